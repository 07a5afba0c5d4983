"""Saved agent runs (trajectory files) read as `Trajectory` records: every file one record, every failure its `error`.

Layout (AssetOpsBench's)::

    trajectories/            any depth; every *.json file is one run
      11.json                {"run_id": "11", "scenario_id": "11", "answer": "...", ...}

The answer is kept with its `<think>...</think>` blocks removed (a structured answer as JSON
text), and each run's `ops` block is read from the trajectory (`ops.read_ops`).

Nothing is dropped silently. A trajectory file that cannot be read, is not UTF-8, not JSON or not
an object, or has no `answer`, is still a record (it joins by its file name stem) with its
`error`; so is a broken or looping `*.json` link and a `*.json` that is not a regular file (never
opened, so a FIFO cannot stall the run). A folder that cannot be listed, and a symbolic link to a
folder (not followed), are records with the reason (`walk.find_json_files`). Hidden files are left
out and listed. `read_text` is how files are read here and in `scenarios`: a FIFO, socket or
device is refused unopened.
"""

from __future__ import annotations

import errno
import json
import logging
import math
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

from .._io import read_bytes
from .._jsonload import loads
from ..answers import strip_think
from ..json_match.values import json_type
from .ops import OPS_KEYS, read_ops
from .walk import find_json_files

logger = logging.getLogger(__name__)

__all__ = ["Trajectory", "discover_trajectories", "load_trajectories", "read_text", "text_id"]


@dataclass(frozen=True)
class Trajectory:
    """One saved run. `error` says why it cannot be scored (then `answer` is None); `problem` says what in it was
    not used (an id of the wrong type, left out of the join), or is None."""

    file: str
    stem: str
    run_id: str | None = None
    scenario_id: str | None = None
    runner: str = ""
    model: str = ""
    question: str = ""
    answer: str | None = None
    error: str | None = None
    ops: dict[str, Any] = field(default_factory=lambda: dict.fromkeys(OPS_KEYS))
    problem: str | None = None


def text_id(value: Any) -> str | None:
    """An id as stripped text: an int or a non-blank string; None for anything else (bools included)."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, str)):
        text = str(value).strip()
        return text or None
    return None


class _TrajectoryBase(TypedDict):
    """The `Trajectory` fields every entry has, readable or not."""

    file: str
    stem: str


def _id_problem(raw: dict[str, Any]) -> str | None:
    """What is wrong with a trajectory's `scenario_id` or `run_id` when one is given but cannot be an id (an
    object, a list, a fraction, true or false; a blank string means none), or None."""
    wrong = [
        f"{key} must be text or a whole number; got a JSON {json_type(raw[key])}"
        for key in ("scenario_id", "run_id")
        if raw.get(key) is not None and text_id(raw[key]) is None and not isinstance(raw[key], str)
    ]
    return "; ".join(wrong) + ". It is left out when the run is joined to its scenario" if wrong else None


def _read_trajectory(path: Path, relative: str) -> Trajectory:
    """One trajectory file as a `Trajectory`; any failure is its `error`, never an exception."""
    base: _TrajectoryBase = {"file": relative, "stem": path.stem}
    try:
        return _parse_trajectory(path, base)
    except Exception as exc:  # noqa: BLE001 - isolated per file: the run goes on, the file is named
        logger.debug("file=<%s>, error=<%r> | trajectory could not be read", relative, exc)
        return Trajectory(**base, error=f"trajectory file could not be read: {type(exc).__name__}: {exc}")


def _parse_trajectory(path: Path, base: _TrajectoryBase) -> Trajectory:
    try:
        text = read_text(path)
    except UnicodeDecodeError as exc:
        return Trajectory(**base, error=f"trajectory file is not UTF-8 ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        return Trajectory(**base, error=f"trajectory file cannot be read: {exc.strerror or exc}")
    try:
        raw = loads(text)  # json.loads's value and errors, read by orjson where that is the same
    except json.JSONDecodeError as exc:
        return Trajectory(**base, error=f"trajectory file is not JSON: {exc}")
    except RecursionError:
        return Trajectory(**base, error="trajectory file nests too deeply to read")
    except ValueError:  # a number longer than Python converts (`sys.get_int_max_str_digits`)
        limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
        return Trajectory(
            **base, error=f"trajectory file holds a number with more digits than Python reads ({limit:,})"
        )
    if not isinstance(raw, dict):
        return Trajectory(
            **base,
            error=f"trajectory must be a JSON object ({{...}}) with an answer; got a JSON {json_type(raw)}. "
            "Fix the file",
        )
    answer = raw.get("answer")
    not_a_number = isinstance(answer, float) and not math.isfinite(answer)  # `NaN`, `Infinity`: not JSON
    if answer is not None and not isinstance(answer, str):
        answer = json.dumps(answer, ensure_ascii=False)  # JSON's own spelling: a structure's text, `true`, `3.5`
    if answer is not None:
        answer = strip_think(answer)
    fields: dict[str, Any] = {
        "run_id": text_id(raw.get("run_id")),
        "scenario_id": text_id(raw.get("scenario_id")),
        "problem": _id_problem(raw),
        "runner": str(raw.get("runner") or ""),
        "model": str(raw.get("model") or ""),
        "question": str(raw.get("question") or ""),
        "ops": read_ops(raw),
    }
    if answer is None:
        return Trajectory(**base, **fields, error="trajectory has no answer (the 'answer' field is missing or null)")
    if not_a_number:
        return Trajectory(
            **base, **fields, error=f"the answer is {answer}, a number JSON cannot hold: nothing to score. Fix the file"
        )
    return Trajectory(**base, **fields, answer=answer)


def load_trajectories(path: str | Path) -> list[Trajectory]:
    """Every `*.json` under `path` (recursively, sorted), or the one file `path` names.

    Returns:
        One `Trajectory` per file, unreadable ones included with `error` set; a folder that
        could not be listed, a link to a folder, a broken link or a non-regular file is an
        entry with `error` too (see `walk.find_json_files`). Hidden files are left out.

    Raises:
        FileNotFoundError: If `path` does not exist.
        PermissionError: If `path` is a folder that cannot be listed.
        ValueError: If `path` is a file without the `.json` suffix.
    """
    return discover_trajectories(Path(path))[0]


def discover_trajectories(root: Path, skip: Iterable[Path] = ()) -> tuple[list[Trajectory], list[dict[str, str]]]:
    """`load_trajectories`, and the files left out (hidden files, the run's own reports folder).

    Args:
        root: The trajectories folder, or one `.json` file.
        skip: Folders not to read (the run's reports folder). Default none.

    Returns:
        The trajectories, and one `{"file", "reason"}` entry per file or folder left out.

    Raises:
        FileNotFoundError, PermissionError, ValueError: As `load_trajectories`.
    """
    if not root.exists() and not root.is_symlink():
        raise FileNotFoundError(f"--trajectories must be a folder or .json file; {str(root)!r} does not exist")
    if not root.is_dir():
        if root.suffix.lower() != ".json":
            raise ValueError(f"--trajectories must be a folder or a .json file; got {str(root)!r}. Pass the folder")
        if not root.is_file():  # a FIFO or device: opening it could block forever
            return [Trajectory(file=root.name, stem=root.stem, error="not a regular file; not opened")], []
        return [_read_trajectory(root, root.name)], []
    try:
        found, left_out = find_json_files(root, skip=tuple(skip))
    except OSError as exc:
        raise PermissionError(
            f"--trajectories folder {str(root)!r} cannot be read: {exc.strerror or exc}. Check its permissions"
        ) from None
    trajectories = []
    for item in found:
        if item.error is None:
            trajectories.append(_read_trajectory(item.path, item.relative))
        else:
            stem = "" if item.relative.endswith("/") else item.path.stem  # a folder joins no scenario
            trajectories.append(Trajectory(file=item.relative, stem=stem, error=item.error))
    skipped = [{"file": item.relative, "reason": item.error or ""} for item in left_out]
    return trajectories, skipped


def read_text(path: str | os.PathLike[str]) -> str:
    """A UTF-8 text file, without a leading byte-order mark (Windows editors write one; JSON readers refuse it); a
    folder is refused, and so is a FIFO, socket or device, unopened (reading one could block forever).

    Read with `os.open` and `os.read` (`_io.read_bytes`: a run reads thousands of small files, and
    buffered reader objects cost more than the reading); a file that changed size since it was looked
    up is read to its end.
    """
    info = os.stat(path)
    if stat.S_ISDIR(info.st_mode):
        raise OSError(errno.EISDIR, "a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device is never opened)")
    return read_bytes(path, info.st_size).decode("utf-8").removeprefix("\ufeff")
