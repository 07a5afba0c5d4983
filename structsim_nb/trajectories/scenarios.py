"""Scenarios, the ground truths runs are scored against, read from folders and scenario files.

Layout (AssetOpsBench's)::

    scenarios/
      scenario_11/           the id is the folder name without a leading "scenario_"
        groundtruth.txt      the expected answer (required)
        groundtruth_eval.json  optional scorer metadata (CAR mode)

`load_scenarios` also takes scenario files (`.json` list or object, `.jsonl`) with `id` and
`expected_answer` (or `characteristic_form`), and several paths. `read_scenario_ids` reads a
`--scenario-ids` selector.

Nothing is dropped silently. A scenario folder without `groundtruth.txt`, with an unreadable one,
or with a bad `groundtruth_eval.json` is a `Scenario` with its `error` (each of its runs becomes an
error entry); a scenario file or line that cannot be read, an unreadable scenarios folder, a broken
or looping link in one (or a file in it meant as a scenario), and a repeated scenario id are listed
as problems (`problem`), and the other scenarios are still loaded.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypedDict

from ..json_match.values import short
from .saved_runs import read_text, text_id

__all__ = ["Scenario", "load_scenarios", "problem", "read_scenario_ids"]


@dataclass(frozen=True)
class Scenario:
    """One scenario (folder or file entry). `error` says why its runs cannot be scored (then `groundtruth` is None).

    `folder` is the folder name, or `<file>#<n>` for the n-th scenario of a scenario file.
    `type` is `structured` for folders (as upstream), else the entry's `type` (None if absent).
    """

    id: str
    folder: str
    groundtruth: str | None = None
    evaluation_metadata: dict[str, Any] | None = None
    error: str | None = None
    type: str | None = "structured"


class _ScenarioBase(TypedDict):
    """The `Scenario` fields every folder entry has, readable or not."""

    id: str
    folder: str


def _read_scenario(root: str, name: str) -> Scenario:
    """The scenario folder `name` in `root`; anything that goes wrong reading it is the scenario's `error`."""
    base: _ScenarioBase = {"id": name.removeprefix("scenario_"), "folder": name}
    folder = os.path.join(root, name)  # (text, not a Path: thousands of joins)
    try:
        return _parse_scenario(folder, base)
    except Exception as exc:  # noqa: BLE001 - isolated per scenario: its runs become error entries
        return Scenario(**base, error=f"scenario folder could not be read: {type(exc).__name__}: {exc}")


def _parse_scenario(folder: str, base: _ScenarioBase) -> Scenario:
    try:
        truth = read_text(os.path.join(folder, "groundtruth.txt")).strip()
    except FileNotFoundError:
        return Scenario(**base, error="scenario folder has no groundtruth.txt")
    except UnicodeDecodeError as exc:
        return Scenario(**base, error=f"groundtruth.txt is not UTF-8 ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        return Scenario(**base, error=f"groundtruth.txt cannot be read: {exc.strerror or exc}")
    if not truth:
        return Scenario(**base, error="groundtruth.txt is empty")
    metadata = None
    try:
        meta_text = read_text(os.path.join(folder, "groundtruth_eval.json"))
    except FileNotFoundError:
        meta_text = None
    except (OSError, UnicodeDecodeError) as exc:
        return Scenario(**base, groundtruth=truth, error=f"groundtruth_eval.json cannot be read: {exc}")
    if meta_text is not None:
        try:
            metadata = json.loads(meta_text)
        except (ValueError, RecursionError) as exc:
            reason = "it nests too deeply" if isinstance(exc, RecursionError) else exc
            return Scenario(**base, groundtruth=truth, error=f"groundtruth_eval.json is not valid JSON: {reason}")
        if not isinstance(metadata, dict):
            return Scenario(
                **base,
                groundtruth=truth,
                error=f"groundtruth_eval.json must be a JSON object; got a {type(metadata).__name__}",
            )
    return Scenario(**base, groundtruth=truth, evaluation_metadata=metadata)


def problem(kind: str, source: str, message: str) -> dict[str, str]:
    """One entry of the aggregate's `problems`: what kind, where, and the message."""
    return {"kind": kind, "source": source, "message": message}


def _scenario_entries(path: Path) -> tuple[list[Scenario], list[dict[str, str]]]:
    """The scenarios of a scenario file (`.jsonl`: one object a line; else a JSON list or object), and the
    problems: a file that cannot be read is one problem, a bad line or entry is a problem naming it. An
    entry is named `<file>:<line>` in JSON Lines (1-based, as an editor numbers lines) and `<file>#<index>`
    (0-based) in a JSON list."""
    try:
        text = read_text(path)
    except UnicodeDecodeError as exc:
        return [], [problem("bad_scenario_file", str(path), f"not UTF-8 ({exc.reason} at byte {exc.start})")]
    except OSError as exc:
        return [], [problem("bad_scenario_file", str(path), f"cannot be read: {exc.strerror or exc}")]
    if not text.strip():
        return [], []
    problems: list[dict[str, str]] = []
    entries: list[tuple[str, Any]] = []
    if path.suffix.lower() == ".jsonl":
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                ok, value, why = _load_json(line)
                if ok:
                    entries.append((f"{path.name}:{lineno}", value))  # (its line, as an editor numbers it)
                else:
                    problems.append(problem("bad_scenario_entry", f"{path}:{lineno}", f"line {lineno} {why}"))
    else:
        ok, loaded, why = _load_json(text)
        if not ok:
            return [], [problem("bad_scenario_file", str(path), f"must be JSON or JSON lines; {why}")]
        items = loaded if isinstance(loaded, list) else [loaded]
        entries = [(f"{path.name}#{index}", item) for index, item in enumerate(items)]
    scenarios = []
    for source, entry in entries:
        if not isinstance(entry, dict) or text_id(entry.get("id")) is None:
            problems.append(
                problem(
                    "bad_scenario_entry",
                    source,
                    f"scenario entries must be objects with a non-blank id (text or a whole number); {source} is "
                    f"{short(entry, 80)}. Fix the file",
                )
            )
            continue
        truth = entry.get("expected_answer")
        if truth is None or (isinstance(truth, str) and not truth.strip()):
            truth = entry.get("characteristic_form")
        if isinstance(truth, (dict, list)):
            truth = json.dumps(truth, ensure_ascii=False)
        meta = entry.get("evaluation_metadata")
        base: dict[str, Any] = {"id": text_id(entry["id"]), "folder": source, "type": entry.get("type")}
        if truth is None or not str(truth).strip():
            scenarios.append(
                Scenario(**base, error="scenario has neither expected_answer nor characteristic_form to score against")
            )
        elif meta is not None and not isinstance(meta, dict):
            scenarios.append(Scenario(**base, error="evaluation_metadata must be a JSON object"))
        else:
            scenarios.append(Scenario(**base, groundtruth=str(truth).strip(), evaluation_metadata=meta))
    return scenarios, problems


def _load_json(text: str) -> tuple[bool, Any, str]:
    """`json.loads`, or `(False, None, why)`: never raises."""
    try:
        return True, json.loads(text), ""
    except json.JSONDecodeError as exc:
        return False, None, f"is not JSON: {exc}"
    except RecursionError:
        return False, None, "nests too deeply to read"
    except ValueError as exc:
        return False, None, f"cannot be read: {exc}"


def load_scenarios(path: str | Path | Iterable[str | Path]) -> tuple[list[Scenario], list[dict[str, str]]]:
    """Scenarios from folders of scenario folders and from scenario files, in the order given.

    A folder contributes its immediate sub-folders, sorted (`scenario_11/` -> id `11`), or is one
    scenario folder itself when it holds `groundtruth.txt` and no sub-folder (`scenarios/scenario_11`). A file
    (`.json` list or object, or `.jsonl`) contributes one scenario per entry: `id`, and
    `expected_answer` or `characteristic_form` as the ground truth; `evaluation_metadata` and
    `type` are optional.

    Returns:
        The scenarios (those that cannot be scored included, with `error` set) and the
        problems: when an id repeats, the last scenario with it is used (as AssetOpsBench's
        loader keeps the last), in the place of the first, and each one left out is listed there, and
        so are a scenarios folder that cannot be listed, an entry in it that is a broken or looping
        link or a file meant as a scenario (`_scenario_folders`), a scenario file that cannot be read
        or is not JSON, and a line or entry that is not an object with an id.

    Raises:
        NotADirectoryError: If a path does not exist.
    """
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    scenarios: list[Scenario] = []
    problems: list[dict[str, str]] = []
    # id -> its place in `scenarios` (where it was first seen) and where its last scenario came from (`_where`)
    seen: dict[str, tuple[int, tuple[Path, str, bool]]] = {}
    for item in paths:
        root = Path(item)
        if root.exists() and not root.is_file() and not root.is_dir():
            problems.append(problem("bad_scenario_file", str(root), "not a regular file; not opened"))
            continue
        if root.is_file():
            found, file_problems = _scenario_entries(root)
            problems += file_problems
        elif root.is_dir() and _one_scenario_folder(root):
            # One scenario's own folder (`--scenarios scenarios/scenario_11`): that scenario.
            found = [_read_scenario(str(root.parent), root.name)]
        elif root.is_dir():
            names, entry_problems = _scenario_folders(root)
            problems += entry_problems
            folder = str(root)
            found = [_read_scenario(folder, name) for name in names]
        else:
            raise NotADirectoryError(
                f"--scenarios must be a folder of scenario folders or a scenario file; {str(root)!r} does not exist"
            )
        folders = root.is_dir()
        for scenario in found:
            where = (root, scenario.folder, folders)
            if scenario.id not in seen:
                seen[scenario.id] = (len(scenarios), where)
                scenarios.append(scenario)
                continue
            index, earlier = seen[scenario.id]  # the last is used, as upstream's `{s.id: s}` keeps it, in place
            problems.append(
                problem(
                    "duplicate_scenario_id",
                    earlier[1],
                    f"scenario id {scenario.id!r} is given again by {_where(*where)}, which is used (the last one, "
                    f"as AssetOpsBench uses it); this one ({_where(*earlier)}) is not. Give one of them another id",
                )
            )
            scenarios[index] = scenario
            seen[scenario.id] = (index, where)
    return scenarios, problems


def _one_scenario_folder(root: Path) -> bool:
    """Whether `root` is one scenario's folder: it holds `groundtruth.txt` and no sub-folder (a folder of scenario
    folders with a stray `groundtruth.txt` beside them is still read as a folder of scenarios)."""
    if not os.path.isfile(root / "groundtruth.txt"):
        return False
    try:
        with os.scandir(root) as listing:
            return not any(entry.is_dir() for entry in listing if not entry.name.startswith("."))
    except OSError:
        return False


def _scenario_folders(root: Path) -> tuple[list[str], list[dict[str, str]]]:
    """The names of the scenario folders in `root`, sorted, and a problem for each entry that stands in the way.

    Hidden entries are left out. A symbolic link to a folder counts as a scenario folder; a broken link, one
    that loops, or an entry the system refuses is a problem naming it, and so is a file that looks meant as
    a scenario (`scenario_*`, `.json`, `.jsonl`: scenario files are read when given as their own
    `--scenarios` argument, not from inside a folder); other files (a README) are not scenarios and are
    left out. One bad entry never hides the rest of the folder.
    """
    try:
        with os.scandir(root) as listing:
            entries = [entry for entry in listing if not entry.name.startswith(".")]
    except OSError as exc:
        message = f"cannot be read: {exc.strerror or exc}; no scenario in it was loaded"
        return [], [problem("unreadable_scenarios", str(root), message)]
    names, problems = [], []
    for entry in sorted(entries, key=lambda item: item.name):
        where = os.path.join(root, entry.name)
        try:
            if entry.is_dir():  # (follows a link: a linked scenario folder is a scenario folder)
                names.append(entry.name)
                continue
            if entry.is_symlink() and not os.path.exists(where):
                message = f"broken symbolic link: its target {os.readlink(where)!r} does not exist; not read"
                problems.append(problem("unreadable_scenario", where, message))
                continue
        except OSError as exc:  # a link that loops, or an entry the system refuses
            problems.append(problem("unreadable_scenario", where, f"cannot be read: {exc.strerror or exc}; not read"))
            continue
        if entry.name.startswith("scenario_") or entry.name.lower().endswith((".json", ".jsonl")):
            message = (
                "a file, not a scenario folder; not read. A scenario file (.json, .jsonl) is read when passed "
                "as its own --scenarios argument"
            )
            problems.append(problem("not_a_scenario_folder", where, message))
    return names, problems


def _where(root: Path, folder: str, in_folder: bool) -> str:
    """Where a scenario came from, as a path a user can open: its folder, or `<file>#<entry>`."""
    return str(root / folder) if in_folder else str(root.with_name(folder))


#: Suffixes that make a `--scenario-ids` value a file, never an id.
_ID_FILE_SUFFIXES = frozenset({".txt", ".json", ".yaml", ".yml"})


def read_scenario_ids(selector: str) -> list[str]:
    """The ids a `--scenario-ids` value names: a file of ids, or ids separated by `,`, `+` or spaces.

    A file may be a JSON list, a YAML list (one `- id` a line) or plain text with one id a line
    (`#` starts a comment). Upstream's named suites (`fcc_lite`) live in its repository, not here.

    Raises:
        ValueError: If the selector names no id, or names a file (ending in `.txt`, `.json`, `.yaml` or
            `.yml`) that does not exist, or a file that is not UTF-8 text.
    """
    path = Path(selector)
    if path.suffix.lower() in _ID_FILE_SUFFIXES and not path.is_file():
        raise ValueError(
            f"--scenario-ids names a file that does not exist: {selector!r}. Check the path, or pass the ids "
            "themselves (11,12,34)"
        )
    if path.is_file():
        try:
            text = read_text(path)
        except (OSError, UnicodeDecodeError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
            raise ValueError(
                f"--scenario-ids file must be UTF-8 text; {selector!r} failed: {reason}. Save it as UTF-8"
            ) from None
        try:
            loaded = json.loads(text)
        except (ValueError, RecursionError):  # not JSON: read as lines of ids
            loaded = None
        if isinstance(loaded, list):
            ids = [str(item).strip() for item in loaded]
        else:
            ids = [line.split("#", 1)[0].strip().removeprefix("- ").strip().strip("'\"") for line in text.splitlines()]
    else:
        ids = re.split(r"[,+\s]+", selector)
    ids = [item for item in ids if item]
    if not ids:
        raise ValueError(f"--scenario-ids must name at least one scenario id; got {selector!r}. Pass e.g. 11,12,34")
    return list(dict.fromkeys(ids))
