"""Find every trajectory file under a folder, and say what could not be read instead of skipping it.

`find_json_files(root)` walks `root` (any depth, sorted as `sorted(root.rglob("*.json"))` would be)
and returns one `Found` per `*.json` file (`.JSON` too), plus one per thing that stood in the way:

- a folder that cannot be listed (permissions, a vanished mount): an entry with `error`, so its
  trajectories are reported missing rather than never counted;
- a symbolic link to a folder: not followed (a link back up the tree would loop), an entry with
  `error` saying so;
- a `*.json` symbolic link that is broken or loops: an entry with `error`;
- a `*.json` that is not a regular file (a FIFO would block the reader forever): an entry with
  `error`, never opened.

Hidden files and folders (a name starting with `.`: editor backups, temporary files, JupyterLab's
`.ipynb_checkpoints` copies of every file opened in it, `.git`) and the folders this package writes
(the reports folder of the run, listed whether or not it exists yet, its staging folders, and any
folder holding an `_aggregate.json`: an earlier run's reports, written wherever `--reports-dir`
pointed) are listed in `skipped` with the reason, not read, and so are JSON Lines files (`*.jsonl`,
`*.ndjson`: runs saved many to a file, which would otherwise vanish without a word). Other files are
not trajectories and are ignored.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Found", "find_json_files", "is_own_folder"]

#: Name fragments of the folders `reports_dir` creates; a walk never reads them.
OWN_FOLDER_MARKERS = (".structsim-staging-", ".structsim-old-")
#: The file every reports folder holds (its aggregate, written last): a walk never reads a folder holding it.
AGGREGATE_NAME = "_aggregate.json"
#: Endings of JSON Lines files: runs saved many to a file, which the walk lists in `skipped` with how to read them.
JSON_LINES_SUFFIXES = (".jsonl", ".ndjson")
_JSON_LINES_REASON = (
    "a JSON Lines file: trajectories are read one to a *.json file; write each line to a file of its own"
)


@dataclass(frozen=True)
class Found:
    """One file (or obstacle) found by the walk.

    Attributes:
        path: Where it is.
        relative: Its path under the root, `/`-separated; a folder's ends with `/`.
        error: Why it cannot be read, or None for a readable regular file.
    """

    path: Path
    relative: str
    error: str | None = None


_OWN_REASON = "a folder this run writes its reports to"


def is_own_folder(name: str) -> bool:
    """Whether a folder name is one of this package's staging or replaced-reports folders."""
    return any(marker in name for marker in OWN_FOLDER_MARKERS)


def _describe(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"), (stat.S_ISCHR, "a device")):
        if test(mode):
            return name
    return "a device" if stat.S_ISBLK(mode) else "not a regular file"


def find_json_files(root: Path, *, skip: Collection[Path] = ()) -> tuple[list[Found], list[Found]]:
    """Every `*.json` file under `root`, and every obstacle; see the module docstring.

    Args:
        root: The folder to walk.
        skip: Folders not to enter (compared by their resolved path), such as the reports folder
            when it lies inside `root`; one inside `root` is listed in `skipped` whether or not it
            exists yet (unless a hidden folder holds it).

    Returns:
        `(found, skipped)`: `found` sorted by path, files and obstacles together; `skipped` the
        hidden files and own folders left out, each with its reason in `error`.

    Raises:
        OSError: If `root` itself cannot be listed.
    """
    skip_real = {os.path.realpath(path) for path in skip}
    found: list[tuple[tuple[str, ...], Found]] = []
    skipped: list[tuple[tuple[str, ...], Found]] = []
    stack: list[tuple[Path, tuple[str, ...]]] = [(root, ())]
    while stack:
        folder, parts = stack.pop()
        try:
            with os.scandir(folder) as listing:
                entries = list(listing)
        except OSError as exc:
            if not parts:
                raise
            message = f"folder cannot be read ({exc.strerror or exc}); the trajectories in it were not scored"
            found.append((parts, Found(folder, "/".join(parts) + "/", message)))
            continue
        for entry in entries:
            rel = (*parts, entry.name)
            path = Path(entry.path)
            try:
                item = _classify(entry, path, rel, skip_real)
            except OSError as exc:  # anything the file system refuses about this one entry
                item = ("found", Found(path, "/".join(rel), f"cannot be read ({exc.strerror or exc})"))
            if item is None:
                continue
            kind, value = item
            if kind == "folder":
                stack.append((path, rel))
            elif kind == "skipped" and isinstance(value, Found):
                skipped.append((rel, value))
            elif isinstance(value, Found):
                found.append((rel, value))
    # The reports folder inside `root` is listed whether or not it exists yet, so that a second run with the
    # same inputs writes the same aggregate as the first.
    listed = {os.path.realpath(item.path) for _, item in skipped}
    real_root = os.path.realpath(root)
    for path in skip:
        inside = os.path.relpath(os.path.realpath(path), real_root)
        if os.path.realpath(path) not in listed and inside != "." and not inside.startswith(".."):
            parts = tuple(Path(inside).parts)
            if not any(part.startswith(".") for part in parts):
                skipped.append((parts, Found(Path(path), "/".join(parts) + "/", _OWN_REASON)))
    found.sort(key=lambda pair: pair[0])
    skipped.sort(key=lambda pair: pair[0])
    return [item for _, item in found], [item for _, item in skipped]


def _classify(
    entry: os.DirEntry[str], path: Path, rel: tuple[str, ...], skip_real: set[str]
) -> tuple[str, Found | None] | None:
    """What to do with one directory entry: `("folder", None)`, `("found", Found)`, `("skipped", Found)` or None."""
    name = entry.name
    relative = "/".join(rel)
    lower = name.lower()
    is_json = lower.endswith(".json")  # (as a single --trajectories file is taken: `.JSON` too)
    if lower.endswith(JSON_LINES_SUFFIXES) and not name.startswith(".") and not entry.is_dir():
        return "skipped", Found(path, relative, _JSON_LINES_REASON)
    if entry.is_symlink():
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            if not is_json:
                return None
            target = os.readlink(path)
            return "found", Found(path, relative, f"broken symbolic link: its target {target!r} does not exist")
        except OSError as exc:
            if not is_json:
                return None
            return "found", Found(path, relative, f"symbolic link that cannot be followed ({exc.strerror or exc})")
        if stat.S_ISDIR(mode):
            message = "symbolic link to a folder, not followed (it could loop); pass that folder, or link its files"
            return "found", Found(path, relative + "/", message)
    elif entry.is_dir(follow_symlinks=False):  # (the listing's file type where the system gives one: no stat)
        if is_own_folder(name) or os.path.realpath(path) in skip_real:
            return "skipped", Found(path, relative + "/", _OWN_REASON)
        if name.startswith("."):  # `.ipynb_checkpoints` (JupyterLab's copies of every file opened), `.git`
            return "skipped", Found(path, relative + "/", "hidden folder (its name starts with '.'); not entered")
        if os.path.isfile(os.path.join(path, AGGREGATE_NAME)):  # an earlier run's reports: not trajectories
            reason = f"a reports folder of an earlier run (it holds {AGGREGATE_NAME}); its reports are not trajectories"
            return "skipped", Found(path, relative + "/", reason)
        return "folder", None
    elif not is_json:
        return None
    else:
        mode = stat.S_IFREG if entry.is_file(follow_symlinks=False) else entry.stat(follow_symlinks=False).st_mode
    if not is_json:
        return None
    if name.startswith("."):
        return "skipped", Found(path, relative, "hidden file (its name starts with '.')")
    if not stat.S_ISREG(mode):
        return "found", Found(path, relative, f"not a regular file ({_describe(mode)}); not opened")
    return "found", Found(path, relative)
