"""Score saved agent trajectories against scenario folders, offline: load, join, score, report.

Layout (AssetOpsBench's)::

    trajectories/            any depth; every *.json file is one run
      11.json                {"run_id": "11", "scenario_id": "11", "answer": "...", ...}
    scenarios/
      scenario_11/           the id is the folder name without a leading "scenario_"
        groundtruth.txt      the expected answer (required)
        groundtruth_eval.json  optional scorer metadata (CAR mode)

Join: a trajectory joins the scenario named by its `scenario_id`, or, when it has none, by its
file name stem (`34.json` -> `34`); failing that, by its `run_id` (for a `scenario_id` that is a
descriptive label). Every trajectory for a scenario is scored. `--scenarios` also takes scenario
files (`.json` list or object, `.jsonl`) with `id` and `expected_answer` (or
`characteristic_form`), and several paths. `scenario_ids` keeps only the named scenarios.

The answer is scored with its `<think>...</think>` blocks removed, and the report holds it so.
Each report has an `ops` block read from the trajectory (turns, tool calls, tokens, duration,
cost; None when the trajectory does not record it); the aggregate sums them.

Nothing is dropped silently, and one bad file never stops a run. A trajectory file that cannot
be read, is not UTF-8, not JSON or not an object, or has no `answer`, still joins by its file
name stem and gets an error entry; so does a broken or looping `*.json` link and a `*.json` that
is not a regular file (never opened, so a FIFO cannot stall the run). A folder that cannot be
listed, and a symbolic link to a folder (not followed), are listed as unmatched trajectories with
the reason (`walk.find_json_files`). A scenario folder without `groundtruth.txt`, with an
unreadable one, or with a bad `groundtruth_eval.json` gives an error entry for each of its runs; a
scenario file or line that cannot be read, or an unreadable scenarios folder, is listed under
`problems` and the other scenarios are still scored. Unmatched trajectories and scenarios, and
duplicate scenario ids, are listed in `_aggregate.json`; hidden files left out are listed under
`skipped`. Any exception while scoring one pair, and any error writing one report, becomes that
run's error entry.

Reports: `_aggregate.json` and one file per run, named from the run id (or `scenario-<id>`) made
safe: only `A-Z a-z 0-9 . _ -`, at most 100 characters (a longer id is cut and given a hash of
the whole, so names stay unique), never a reserved device name, and `-1`, `-2` ... for repeats.
They are written with sorted keys and a format version, into a staging folder moved into place
at once (`reports_dir`: the reuse rule for an existing folder, and what an interrupt leaves), so
the same inputs give byte-identical files: `generated_at` is None unless the caller passes a
time (the CLI's `--timestamp`, or `SOURCE_DATE_EPOCH`, which is itself reproducible). The
aggregate's `results` hold each run's summary: AssetOpsBench's `ScenarioResult` fields but the
answer, and the score without its per-key details (ids, question, status, error, score, pass,
rationale, ops); `full_results=True` (`--full-results`) repeats every per-run report there instead.
"""

from __future__ import annotations

import errno
import hashlib
import json
import logging
import math
import os
import re
import stat
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypedDict

import orjson

from .._jsondump import dump_bytes
from .._signals import raise_if_terminated, sigterm_raises
from ..answers import strip_think
from ..errors import StructsimError
from .aggregate import REPORT_FORMAT_VERSION, build_aggregate
from .reports_dir import ReportsFolder
from .scorers import get_scorer, validate_options
from .walk import find_json_files

logger = logging.getLogger(__name__)

__all__ = [
    "AGGREGATE_NAME",
    "EvaluationRun",
    "Pair",
    "Scenario",
    "Trajectory",
    "join_records",
    "load_scenarios",
    "load_trajectories",
    "read_scenario_ids",
    "run_evaluation",
    "score_pair",
]

AGGREGATE_NAME = "_aggregate.json"
#: The runs as a page, beside the aggregate (`runs_page`).
PAGE_NAME = "_aggregate.html"
_MAX_STEM = 100
_RESERVED_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)] + [f"LPT{i}" for i in range(1, 10)]
)
_OPS_KEYS = ("turn_count", "tool_call_count", "unique_tools", "tokens_in", "tokens_out", "duration_ms", "est_cost_usd")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Trajectory:
    """One saved run. `error` says why it cannot be scored (then `answer` is None)."""

    file: str
    stem: str
    run_id: str | None = None
    scenario_id: str | None = None
    runner: str = ""
    model: str = ""
    question: str = ""
    answer: str | None = None
    error: str | None = None
    ops: dict[str, Any] = field(default_factory=lambda: dict.fromkeys(_OPS_KEYS))


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


@dataclass(frozen=True)
class Pair:
    """A trajectory joined to its scenario, and the key that joined them."""

    trajectory: Trajectory
    scenario: Scenario
    joined_by: str


@dataclass(frozen=True)
class EvaluationRun:
    """What `run_evaluation` wrote: the aggregate (as written), every report path, and the page (if written)."""

    aggregate: dict[str, Any]
    aggregate_path: Path
    report_paths: list[Path] = field(default_factory=list)
    page_path: Path | None = None


def _text_id(value: Any) -> str | None:
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


class _ScenarioBase(TypedDict):
    """The `Scenario` fields every folder entry has, readable or not."""

    id: str
    folder: str


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
        text = _read_text(path)
    except UnicodeDecodeError as exc:
        return Trajectory(**base, error=f"trajectory file is not UTF-8 ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        return Trajectory(**base, error=f"trajectory file cannot be read: {exc.strerror or exc}")
    try:
        raw = json.loads(text)
    except json.JSONDecodeError as exc:
        return Trajectory(**base, error=f"trajectory file is not JSON: {exc}")
    except RecursionError:
        return Trajectory(**base, error="trajectory file nests too deeply to read")
    except ValueError as exc:  # a number longer than Python converts
        return Trajectory(**base, error=f"trajectory file cannot be read: {exc}")
    if not isinstance(raw, dict):
        return Trajectory(**base, error=f"trajectory must be a JSON object; got a {type(raw).__name__}")
    answer = raw.get("answer")
    if isinstance(answer, (dict, list)):
        answer = json.dumps(answer, ensure_ascii=False)
    elif answer is not None and not isinstance(answer, str):
        answer = str(answer)
    if answer is not None:
        answer = strip_think(answer)
    fields: dict[str, Any] = {
        "run_id": _text_id(raw.get("run_id")),
        "scenario_id": _text_id(raw.get("scenario_id")),
        "runner": str(raw.get("runner") or ""),
        "model": str(raw.get("model") or ""),
        "question": str(raw.get("question") or ""),
        "ops": _ops(raw),
    }
    if answer is None:
        return Trajectory(**base, **fields, error="trajectory has no answer (the 'answer' field is missing or null)")
    return Trajectory(**base, **fields, answer=answer)


def _number(*values: Any) -> float | None:
    """The first value that is a finite number (bools excluded), or None."""
    for value in values:
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            return value
    return None


def _sum(values: list[Any]) -> float | None:
    numbers = [v for v in values if v is not None]
    return sum(numbers) if numbers else None


def _tool_name(call: Any) -> str | None:
    if isinstance(call, str):
        return call
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    name = call.get("name") or call.get("tool") or call.get("tool_name")
    if not name and isinstance(function, dict):
        name = function.get("name")
    return str(name) if name else None


def _ops(raw: Mapping[str, Any]) -> dict[str, Any]:
    """Operational metrics of one saved run; None for anything the trajectory does not record.

    Read from `trajectory.turns` (a list): `turn_count`; tool calls from each turn's
    `tool_calls` (or `tools`) list, named by `name`/`tool`/`tool_name`/`function.name`; tokens
    from `tokens_in`/`input_tokens`/`prompt_tokens` (and the `_out`/`output_`/`completion_`
    forms) on the run, its `usage`, its `trajectory`, or else summed over the turns;
    `duration_ms` and `est_cost_usd` (or `cost_usd`) likewise.
    """
    trajectory = raw.get("trajectory")
    inner: Mapping[str, Any] = trajectory if isinstance(trajectory, dict) else {}
    turns = inner.get("turns") if isinstance(inner.get("turns"), list) else None
    turn_dicts = [turn for turn in turns or [] if isinstance(turn, dict)]
    calls: list[Any] = []
    for turn in turn_dicts:
        for key in ("tool_calls", "tools"):
            if isinstance(turn.get(key), list):
                calls += turn[key]
                break
    if isinstance(inner.get("tool_calls"), list) and not calls:
        calls = inner["tool_calls"]
    names = [name for name in (_tool_name(call) for call in calls) if name]
    sources = [
        source
        for source in (raw, raw.get("usage"), inner, inner.get("usage"), raw.get("metrics"))
        if isinstance(source, dict)
    ]

    def read(*keys: str) -> float | None:
        found = _number(*(source[key] for source in sources for key in keys if key in source))
        if found is not None:
            return found
        return _sum([_number(*(turn[key] for key in keys if key in turn)) for turn in turn_dicts])

    return {
        "turn_count": len(turns) if turns is not None else None,
        "tool_call_count": len(calls) if turns is not None or calls else None,
        "unique_tools": sorted(set(names)),
        "tokens_in": read("tokens_in", "input_tokens", "prompt_tokens"),
        "tokens_out": read("tokens_out", "output_tokens", "completion_tokens"),
        "duration_ms": read("duration_ms"),
        "est_cost_usd": read("est_cost_usd", "cost_usd"),
    }


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
    return _discover(Path(path))[0]


def _discover(root: Path, skip: Iterable[Path] = ()) -> tuple[list[Trajectory], list[dict[str, str]]]:
    """`load_trajectories`, and the files left out (hidden files, the run's own reports folder)."""
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


def _read_scenario(folder: Path) -> Scenario:
    """One scenario folder; anything that goes wrong reading it is the scenario's `error`."""
    scenario_id = folder.name.removeprefix("scenario_")
    base: _ScenarioBase = {"id": scenario_id, "folder": folder.name}
    try:
        return _parse_scenario(folder, base)
    except Exception as exc:  # noqa: BLE001 - isolated per scenario: its runs become error entries
        return Scenario(**base, error=f"scenario folder could not be read: {type(exc).__name__}: {exc}")


def _read_text(path: Path) -> str:
    """A UTF-8 text file; a FIFO, socket or device is refused unopened (reading one could block forever)."""
    if not stat.S_ISREG(os.stat(path).st_mode):
        raise OSError(errno.EINVAL, "not a regular file (a FIFO, socket or device is never opened)")
    with open(path, "rb") as handle:
        return handle.read().decode("utf-8")


def _parse_scenario(folder: Path, base: _ScenarioBase) -> Scenario:
    try:
        truth = _read_text(folder / "groundtruth.txt").strip()
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
        meta_text = _read_text(folder / "groundtruth_eval.json")
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


def _problem(kind: str, source: str, message: str) -> dict[str, str]:
    return {"kind": kind, "source": source, "message": message}


def _scenario_entries(path: Path) -> tuple[list[Scenario], list[dict[str, str]]]:
    """The scenarios of a scenario file (`.jsonl`: one object a line; else a JSON list or object), and the
    problems: a file that cannot be read is one problem, a bad line or entry is a problem naming it."""
    try:
        text = _read_text(path)
    except UnicodeDecodeError as exc:
        return [], [_problem("bad_scenario_file", str(path), f"not UTF-8 ({exc.reason} at byte {exc.start})")]
    except OSError as exc:
        return [], [_problem("bad_scenario_file", str(path), f"cannot be read: {exc.strerror or exc}")]
    if not text.strip():
        return [], []
    problems: list[dict[str, str]] = []
    entries: list[tuple[str, Any]] = []
    if path.suffix.lower() == ".jsonl":
        for lineno, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                ok, value, why = _load_json(line)
                if ok:
                    entries.append((f"{path.name}#{len(entries)}", value))
                else:
                    problems.append(_problem("bad_scenario_entry", f"{path}:{lineno}", f"line {lineno} {why}"))
    else:
        ok, loaded, why = _load_json(text)
        if not ok:
            return [], [_problem("bad_scenario_file", str(path), f"must be JSON or JSON lines; {why}")]
        items = loaded if isinstance(loaded, list) else [loaded]
        entries = [(f"{path.name}#{index}", item) for index, item in enumerate(items)]
    scenarios = []
    for source, entry in entries:
        if not isinstance(entry, dict) or _text_id(entry.get("id")) is None:
            problems.append(
                _problem(
                    "bad_scenario_entry",
                    source,
                    f"scenario entries must be objects with an id; {source} is {str(entry)[:80]!r}. Fix the file",
                )
            )
            continue
        truth = entry.get("expected_answer")
        if truth is None or (isinstance(truth, str) and not truth.strip()):
            truth = entry.get("characteristic_form")
        if isinstance(truth, (dict, list)):
            truth = json.dumps(truth, ensure_ascii=False)
        meta = entry.get("evaluation_metadata")
        base: dict[str, Any] = {"id": _text_id(entry["id"]), "folder": source, "type": entry.get("type")}
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

    A folder contributes its immediate sub-folders, sorted (`scenario_11/` -> id `11`). A file
    (`.json` list or object, or `.jsonl`) contributes one scenario per entry: `id`, and
    `expected_answer` or `characteristic_form` as the ground truth; `evaluation_metadata` and
    `type` are optional.

    Returns:
        The scenarios (those that cannot be scored included, with `error` set) and the
        problems: a scenario whose id repeats an earlier one is left out and listed there, and
        so are a scenarios folder that cannot be listed, a scenario file that cannot be read or
        is not JSON, and a line or entry that is not an object with an id.

    Raises:
        NotADirectoryError: If a path does not exist.
    """
    paths = [path] if isinstance(path, (str, Path)) else list(path)
    scenarios: list[Scenario] = []
    problems: list[dict[str, str]] = []
    seen: dict[str, str] = {}
    for item in paths:
        root = Path(item)
        if root.exists() and not root.is_file() and not root.is_dir():
            problems.append(_problem("bad_scenario_file", str(root), "not a regular file; not opened"))
            continue
        if root.is_file():
            found, file_problems = _scenario_entries(root)
            problems += file_problems
        elif root.is_dir():
            try:
                with os.scandir(root) as listing:
                    names = sorted(e.name for e in listing if not e.name.startswith(".") and e.is_dir())
                folders = [root / name for name in names]
            except OSError as exc:
                problems.append(
                    _problem(
                        "unreadable_scenarios",
                        str(root),
                        f"cannot be read: {exc.strerror or exc}; no scenario in it was loaded",
                    )
                )
                folders = []
            found = [_read_scenario(folder) for folder in folders]
        else:
            raise NotADirectoryError(
                f"--scenarios must be a folder of scenario folders or a scenario file; {str(root)!r} does not exist"
            )
        for scenario in found:
            # Where it came from, as a path a user can open: the folder, or `<file>#<entry>`.
            where = str(root / scenario.folder) if root.is_dir() else str(root.with_name(scenario.folder))
            if scenario.id in seen:
                problems.append(
                    _problem(
                        "duplicate_scenario_id",
                        scenario.folder,
                        f"scenario id {scenario.id!r} is already taken by {seen[scenario.id]}; "
                        f"this one ({where}) is not used. Give one of them another id",
                    )
                )
                continue
            seen[scenario.id] = where
            scenarios.append(scenario)
    return scenarios, problems


def read_scenario_ids(selector: str) -> list[str]:
    """The ids a `--scenario-ids` value names: a file of ids, or ids separated by `,`, `+` or spaces.

    A file may be a JSON list, a YAML list (one `- id` a line) or plain text with one id a line
    (`#` starts a comment). Upstream's named suites (`fcc_lite`) live in its repository, not here.

    Raises:
        ValueError: If the selector names no id.
    """
    path = Path(selector)
    if path.is_file():
        text = path.read_text(encoding="utf-8")
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


def join_records(
    trajectories: Iterable[Trajectory], scenarios: Iterable[Scenario]
) -> tuple[list[Pair], list[Trajectory], list[Scenario]]:
    """Join trajectories to scenarios by `scenario_id` (or the file name stem when it has none), then `run_id`.

    Returns:
        The pairs (in trajectory order), the trajectories no key joined, and the scenarios
        no trajectory joined.
    """
    by_id = {scenario.id: scenario for scenario in scenarios}
    pairs: list[Pair] = []
    unmatched: list[Trajectory] = []
    for trajectory in trajectories:
        first = ("scenario_id", trajectory.scenario_id) if trajectory.scenario_id is not None else None
        for joined_by, key in (first or ("filename", trajectory.stem), ("run_id", trajectory.run_id)):
            if key and key in by_id:  # a folder entry (no stem) joins nothing
                pairs.append(Pair(trajectory, by_id[key], joined_by))
                break
        else:
            unmatched.append(trajectory)
    used = {pair.scenario.id for pair in pairs}
    return pairs, unmatched, [scenario for scenario in by_id.values() if scenario.id not in used]


def score_pair(pair: Pair, *, scorer: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Score one pair; the per-run report as a dict. Plain and picklable, so it maps over a pool.

    Never raises for bad data: an unreadable trajectory or scenario, a pair the scorer refuses
    (`ValueError`, `TypeError`, `StructsimError`), or any other exception the scorer raises
    (named with its class), gives `status: "error"`, `passed` False, `score` 0.0 and the
    message under `error`. Only `KeyboardInterrupt` and `SystemExit` pass through.
    """
    trajectory, scenario = pair.trajectory, pair.scenario
    report: dict[str, Any] = {
        "scenario_id": scenario.id,
        "scenario_type": scenario.type,
        "scenario_folder": scenario.folder,
        "run_id": trajectory.run_id,
        "runner": trajectory.runner,
        "model": trajectory.model,
        "question": trajectory.question,
        "answer": trajectory.answer,
        "trajectory_file": trajectory.file,
        "joined_by": pair.joined_by,
        "ops": trajectory.ops,
    }
    error = trajectory.error or scenario.error
    if error is None:
        try:
            result = get_scorer(scorer)(
                scenario.groundtruth or "",
                trajectory.answer or "",
                evaluation_metadata=scenario.evaluation_metadata,
                options=options,
            )
        except (StructsimError, ValueError, TypeError) as exc:
            error = str(exc) or type(exc).__name__
        except Exception as exc:  # noqa: BLE001 - isolated per pair: a scorer's bug is this run's error entry
            error = f"the scorer raised {type(exc).__name__}: {exc}"
        else:
            report.update(status="scored", error=None, score=result.to_dict())
            logger.debug("scenario=<%s>, passed=<%s> | scored trajectory", scenario.id, result.passed)
            return report
    logger.debug("scenario=<%s>, error=<%s> | trajectory not scored", scenario.id, error)
    report.update(
        status="error",
        error=error,
        score={"scorer": scorer, "passed": False, "score": 0.0, "rationale": error, "details": {}},
    )
    return report


def _safe_stem(identifier: str) -> str:
    """A file name stem for an id: `A-Z a-z 0-9 . _ -` only, at most 100 characters, never a device name."""
    stem = _UNSAFE.sub("_", identifier).strip("._-") or "run"
    if len(stem) > _MAX_STEM:  # cut, and keep the whole id's hash so different long ids stay apart
        digest = hashlib.sha256(identifier.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        stem = stem[: _MAX_STEM - 13].rstrip("._-") + "-" + digest
    if stem.split(".", 1)[0].upper() in _RESERVED_NAMES:
        stem = f"_{stem}"
    return stem


def _report_names(pairs: list[Pair]) -> list[str]:
    """`<run_id>.json`, or `scenario-<id>.json` without a run id, made safe (`_safe_stem`); repeats get `-1`, `-2`."""
    names: list[str] = []
    taken: set[str] = {AGGREGATE_NAME.lower()}
    for pair in pairs:
        stem = _safe_stem(pair.trajectory.run_id or f"scenario-{pair.scenario.id}")
        name, counter = f"{stem}.json", 0
        while name.lower() in taken:
            counter += 1
            name = f"{stem}-{counter}.json"
        taken.add(name.lower())
        names.append(name)
    return names


def run_evaluation(
    trajectories: str | Path,
    scenarios: str | Path | Iterable[str | Path],
    reports_dir: str | Path,
    *,
    scorer: str = "static_json",
    options: Mapping[str, Any] | None = None,
    progress: bool = False,
    workers: int | None = None,
    executor: Any = None,
    scenario_ids: Iterable[str] | None = None,
    generated_at: str | None = None,
    full_results: bool = False,
    page: bool = True,
) -> EvaluationRun:
    """Load, join, score every pair, and write one report per run plus `_aggregate.json`.

    Args:
        trajectories: Folder of trajectory `*.json` files (searched recursively), or one file.
        scenarios: Folder of `scenario_<id>` folders, a scenario file, or a list of them.
        reports_dir: Where the reports go: created if missing, replaced whole if an earlier run
            wrote it, refused if it holds anything else (see `reports_dir`).
        scorer: A registered scorer name (`scorers.scorer_names()`). Default `static_json`.
        options: Scorer options (`{"schema": "x.Model"}` for `similarity`). Default none.
        progress: Show a tqdm bar on stderr when stderr is a terminal. Default False.
        workers: Score on this many worker processes (`dataset.map_ordered`); the reports are
            the same, in the same order. Default None: in this process.
        executor: A `concurrent.futures.Executor` or a `distributed.Client` to score on
            instead. Default None.
        scenario_ids: Score only these scenarios. Trajectories that join another scenario are
            counted under `totals.excluded`, not listed as unmatched; ids that match no
            scenario are listed in `problems`. Default None: all.
        generated_at: The aggregate's `generated_at` (an ISO time). Default None, so the
            reports stay byte-identical across runs; the CLI passes the time for `--timestamp`.
        full_results: Repeat every per-run report inside the aggregate's `results`. Default
            False: each entry keeps the run's summary (`SUMMARY_FIELDS`, `report`, and the
            score's `scorer`, `passed`, `score` and `rationale`); the detail is in its file.
        page: Write the runs as a page, `_aggregate.html`, beside the aggregate (with the reports,
            moved into place with them). Default True.

    Returns:
        An `EvaluationRun` with the aggregate as written and the report paths.

    Raises:
        UnknownScorerError: If `scorer` is not registered.
        SchemaLoadError: If the scorer's options are invalid (a bad `--schema`).
        FileNotFoundError, NotADirectoryError: If an input folder is missing.
        PermissionError: If the trajectories folder cannot be listed.
        ReportsFolderError: If `reports_dir` cannot take the reports (checked before scoring).
        KeyboardInterrupt: On Ctrl-C, or SIGTERM (`_signals.Terminated`): the worker processes
            are stopped and nothing is written unless the reports were already moved into place;
            the exception's `reports_written` says which (None, or the folder). Under SIGTERM's
            default action the process then ends by SIGTERM.
    """
    options = dict(options or {})
    validate_options(scorer, options)
    out = ReportsFolder(reports_dir)
    out.check()
    with sigterm_raises():
        try:
            return _run(
                trajectories,
                scenarios,
                out,
                scorer=scorer,
                options=options,
                progress=progress,
                workers=workers,
                executor=executor,
                scenario_ids=scenario_ids,
                generated_at=generated_at,
                full_results=full_results,
                page=page,
            )
        except KeyboardInterrupt as exc:
            if not hasattr(exc, "reports_written"):
                exc.reports_written = None  # type: ignore[attr-defined]
            raise


def _run(
    trajectories: str | Path,
    scenarios: str | Path | Iterable[str | Path],
    out: ReportsFolder,
    *,
    scorer: str,
    options: dict[str, Any],
    progress: bool,
    workers: int | None,
    executor: Any,
    scenario_ids: Iterable[str] | None,
    generated_at: str | None,
    full_results: bool,
    page: bool,
) -> EvaluationRun:
    loaded, skipped = _discover(Path(trajectories), skip=[out.path])
    scenario_list, problems = load_scenarios(scenarios)
    pairs, unmatched_trajectories, unmatched_scenarios = join_records(loaded, scenario_list)
    excluded = 0
    selected = list(dict.fromkeys(scenario_ids)) if scenario_ids is not None else None
    if selected is not None:
        wanted = set(selected)
        known = {s.id for s in scenario_list}
        problems += [
            _problem("unknown_scenario_id", "--scenario-ids", f"scenario id {item!r} matches no scenario")
            for item in selected
            if item not in known
        ]
        excluded = sum(1 for pair in pairs if pair.scenario.id not in wanted)
        pairs = [pair for pair in pairs if pair.scenario.id in wanted]
        unmatched_scenarios = [s for s in unmatched_scenarios if s.id in wanted]
    reports = _score_all(pairs, scorer=scorer, options=options, progress=progress, workers=workers, executor=executor)
    names: list[str | None] = list(_report_names(pairs))
    raise_if_terminated()
    out.stage()
    try:
        paths = []
        for index, report in enumerate(reports):
            name = names[index]
            assert name is not None
            try:
                report["format_version"] = REPORT_FORMAT_VERSION
                paths.append(out.write(name, dump_bytes(report)))
            except (OSError, TypeError, ValueError) as exc:  # this one report: an error entry, the run goes on
                logger.warning("report=<%s>, error=<%s> | report file could not be written", name, exc)
                names[index] = None
                report.update(status="error", error=f"its report file could not be written: {exc}")
                report["score"] = {**report["score"], "passed": False}
        aggregate = build_aggregate(
            reports,
            names,
            scorer=scorer,
            options=options,
            selected=selected,
            generated_at=generated_at,
            counts={"trajectories": len(loaded), "scenarios_loaded": len(scenario_list), "excluded": excluded},
            unmatched_trajectories=[
                {
                    "file": t.file,
                    "scenario_id": t.scenario_id,
                    "run_id": t.run_id,
                    "error": t.error,
                    "reason": "no scenario matches its scenario_id (or file name stem) or run_id",
                }
                for t in unmatched_trajectories
            ],
            unmatched_scenarios=[
                {
                    "scenario_id": s.id,
                    "folder": s.folder,
                    "error": s.error,
                    "reason": "no trajectory joins this scenario",
                }
                for s in unmatched_scenarios
            ],
            problems=problems,
            skipped=skipped,
            full_results=full_results,
        )
        written = dump_bytes(aggregate)
        aggregate_path = out.write(AGGREGATE_NAME, written)
        page_path = None
        if page:  # the same runs as a page, written and moved into place with the reports
            from .runs_page import runs_page

            # A lone surrogate (an answer no UTF-8 holds) shows as its escape, as in the JSON files.
            page_path = out.write(PAGE_NAME, runs_page(aggregate, reports=reports).encode("utf-8", "backslashreplace"))
    except BaseException:
        out.discard()
        raise
    try:
        out.publish()
    except KeyboardInterrupt as exc:  # held during the move, delivered after it: the reports are in place
        exc.reports_written = out.path  # type: ignore[attr-defined]
        raise
    except BaseException:
        out.discard()
        raise
    logger.info("pairs=<%d>, folder=<%s> | wrote reports", len(pairs), out.path)
    try:
        as_written = orjson.loads(written)
    except orjson.JSONDecodeError:  # a lone surrogate, written as an escape orjson does not read back
        as_written = json.loads(written)
    return EvaluationRun(aggregate=as_written, aggregate_path=aggregate_path, report_paths=paths, page_path=page_path)


def _score_all(
    pairs: list[Pair], *, scorer: str, options: dict[str, Any], progress: bool, workers: int | None, executor: Any
) -> list[dict[str, Any]]:
    """`score_pair` for every pair, in order: in this process, or on worker processes."""
    from tqdm import tqdm

    bar = tqdm(
        pairs, desc="scoring", unit="run", file=sys.stderr, disable=not (progress and sys.stderr.isatty()), leave=False
    )
    if executor is None and (workers or 1) <= 1:
        return [score_pair(pair, scorer=scorer, options=options) for pair in bar]
    # The same pure function on worker processes; results come back in input order.
    from functools import partial

    from ..dataset import map_ordered

    reports = []
    for report in map_ordered(
        partial(score_pair, scorer=scorer, options=options), pairs, workers=workers, executor=executor
    ):
        reports.append(report)
        bar.update()
    bar.close()
    return reports
