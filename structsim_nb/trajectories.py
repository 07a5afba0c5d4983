"""Score saved agent trajectories against scenario folders, offline: load, join, score, report.

Layout (AssetOpsBench's)::

    trajectories/            any depth; every *.json file is one run
      11.json                {"run_id": "11", "scenario_id": "11", "answer": "...", ...}
    scenarios/
      scenario_11/           the id is the folder name without a leading "scenario_"
        groundtruth.txt      the expected answer (required)
        groundtruth_eval.json  optional scorer metadata (CAR mode)

Join: a trajectory joins the scenario named by its `scenario_id`; failing that its `run_id`;
failing that its file name stem (`34.json` -> `34`). Every trajectory for a scenario is scored.

Nothing is dropped silently. A file that is not UTF-8, not JSON or not an object, or has no
`answer`, still joins by its file name stem and gets an error entry; a scenario folder without
`groundtruth.txt`, with an unreadable one, or with a bad `groundtruth_eval.json` gives an error
entry for each of its runs. Unmatched trajectories and scenarios, and duplicate scenario ids,
are listed in `_aggregate.json`. A pair the scorer refuses (an unparseable ground truth) is an
error entry. Reports are written atomically with sorted keys and no timestamps, so the same
inputs give byte-identical files.
"""

from __future__ import annotations

import json
import logging
import math
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._io import write_text_atomic
from .errors import StructsimError
from .scorers import get_scorer, validate_options

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
    "run_evaluation",
    "score_pair",
]

AGGREGATE_NAME = "_aggregate.json"
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


@dataclass(frozen=True)
class Scenario:
    """One scenario folder. `error` says why its runs cannot be scored (then `groundtruth` is None)."""

    id: str
    folder: str
    groundtruth: str | None = None
    evaluation_metadata: dict[str, Any] | None = None
    error: str | None = None


@dataclass(frozen=True)
class Pair:
    """A trajectory joined to its scenario, and the key that joined them."""

    trajectory: Trajectory
    scenario: Scenario
    joined_by: str


@dataclass(frozen=True)
class EvaluationRun:
    """What `run_evaluation` wrote: the aggregate (as written) and every report path."""

    aggregate: dict[str, Any]
    aggregate_path: Path
    report_paths: list[Path] = field(default_factory=list)


def _text_id(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, str)):
        text = str(value).strip()
        return text or None
    return None


def _read_trajectory(path: Path, root: Path) -> Trajectory:
    relative = path.relative_to(root).as_posix() if path != root else path.name
    base = {"file": relative, "stem": path.stem}
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        return Trajectory(**base, error=f"trajectory file is not UTF-8 ({exc.reason} at byte {exc.start})")
    except OSError as exc:
        return Trajectory(**base, error=f"trajectory file cannot be read: {exc.strerror}")
    try:
        raw = json.loads(text)
    except (ValueError, RecursionError) as exc:
        return Trajectory(**base, error=f"trajectory file is not JSON: {exc}")
    if not isinstance(raw, dict):
        return Trajectory(**base, error=f"trajectory must be a JSON object; got a {type(raw).__name__}")
    answer = raw.get("answer")
    if isinstance(answer, (dict, list)):
        answer = json.dumps(answer, ensure_ascii=False)
    elif answer is not None and not isinstance(answer, str):
        answer = str(answer)
    fields = {
        "run_id": _text_id(raw.get("run_id")),
        "scenario_id": _text_id(raw.get("scenario_id")),
        "runner": str(raw.get("runner") or ""),
        "model": str(raw.get("model") or ""),
        "question": str(raw.get("question") or ""),
    }
    if answer is None:
        return Trajectory(**base, **fields, error="trajectory has no answer (the 'answer' field is missing or null)")
    return Trajectory(**base, **fields, answer=answer)


def load_trajectories(path: str | Path) -> list[Trajectory]:
    """Every `*.json` under `path` (recursively, sorted), or the one file `path` names.

    Returns:
        One `Trajectory` per file, unreadable ones included with `error` set.

    Raises:
        FileNotFoundError: If `path` does not exist.
    """
    root = Path(path)
    if not root.exists():
        raise FileNotFoundError(f"--trajectories must be a folder or .json file; {str(root)!r} does not exist")
    if root.is_file():
        return [_read_trajectory(root, root)]
    files = sorted(p for p in root.rglob("*.json") if p.is_file() and not p.name.startswith("."))
    return [_read_trajectory(p, root) for p in files]


def _read_scenario(folder: Path) -> Scenario:
    scenario_id = folder.name.removeprefix("scenario_")
    base = {"id": scenario_id, "folder": folder.name}
    truth_path = folder / "groundtruth.txt"
    if not truth_path.is_file():
        return Scenario(**base, error="scenario folder has no groundtruth.txt")
    try:
        truth = truth_path.read_bytes().decode("utf-8").strip()
    except UnicodeDecodeError as exc:
        return Scenario(**base, error=f"groundtruth.txt is not UTF-8 ({exc.reason} at byte {exc.start})")
    if not truth:
        return Scenario(**base, error="groundtruth.txt is empty")
    meta_path = folder / "groundtruth_eval.json"
    metadata = None
    if meta_path.is_file():
        try:
            metadata = json.loads(meta_path.read_bytes().decode("utf-8"))
        except (ValueError, RecursionError) as exc:
            return Scenario(**base, groundtruth=truth, error=f"groundtruth_eval.json is not valid JSON: {exc}")
        if not isinstance(metadata, dict):
            return Scenario(
                **base,
                groundtruth=truth,
                error=f"groundtruth_eval.json must be a JSON object; got a {type(metadata).__name__}",
            )
    return Scenario(**base, groundtruth=truth, evaluation_metadata=metadata)


def load_scenarios(path: str | Path) -> tuple[list[Scenario], list[dict[str, str]]]:
    """The immediate sub-folders of `path`, sorted, as scenarios.

    Returns:
        The scenarios (folders that cannot be scored included, with `error` set) and the
        problems: a folder whose id repeats an earlier one is left out and listed there.

    Raises:
        NotADirectoryError: If `path` is not a folder.
    """
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"--scenarios must be a folder of scenario folders; {str(root)!r} is not a folder")
    scenarios: list[Scenario] = []
    problems: list[dict[str, str]] = []
    seen: dict[str, str] = {}
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        scenario = _read_scenario(folder)
        if scenario.id in seen:
            problems.append(
                {
                    "kind": "duplicate_scenario_id",
                    "source": folder.name,
                    "message": f"scenario id {scenario.id!r} is already taken by folder {seen[scenario.id]!r}; "
                    "this folder is not used",
                }
            )
            continue
        seen[scenario.id] = folder.name
        scenarios.append(scenario)
    return scenarios, problems


def join_records(
    trajectories: Iterable[Trajectory], scenarios: Iterable[Scenario]
) -> tuple[list[Pair], list[Trajectory], list[Scenario]]:
    """Join trajectories to scenarios by `scenario_id`, then `run_id`, then file name stem.

    Returns:
        The pairs (in trajectory order), the trajectories no key joined, and the scenarios
        no trajectory joined.
    """
    by_id = {scenario.id: scenario for scenario in scenarios}
    pairs: list[Pair] = []
    unmatched: list[Trajectory] = []
    for trajectory in trajectories:
        for joined_by, key in (
            ("scenario_id", trajectory.scenario_id),
            ("run_id", trajectory.run_id),
            ("filename", trajectory.stem),
        ):
            if key is not None and key in by_id:
                pairs.append(Pair(trajectory, by_id[key], joined_by))
                break
        else:
            unmatched.append(trajectory)
    used = {pair.scenario.id for pair in pairs}
    return pairs, unmatched, [scenario for scenario in by_id.values() if scenario.id not in used]


def _clean(value: Any) -> Any:
    """`value` as strict JSON: NaN and infinities become None, tuples lists."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(key): _clean(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item) for item in value]
    return value


def score_pair(pair: Pair, *, scorer: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Score one pair; the per-run report as a dict. Plain and picklable, so it maps over a pool.

    Never raises for bad data: an unreadable trajectory or scenario, or a pair the scorer
    refuses (`ValueError`, `TypeError`, `StructsimError`), gives `status: "error"`, `passed`
    False, `score` 0.0 and the message under `error`.
    """
    trajectory, scenario = pair.trajectory, pair.scenario
    report: dict[str, Any] = {
        "scenario_id": scenario.id,
        "scenario_folder": scenario.folder,
        "run_id": trajectory.run_id,
        "runner": trajectory.runner,
        "model": trajectory.model,
        "question": trajectory.question,
        "answer": trajectory.answer,
        "trajectory_file": trajectory.file,
        "joined_by": pair.joined_by,
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
        except (StructsimError, ValueError, TypeError, RecursionError) as exc:
            error = str(exc)
        else:
            report.update(status="scored", error=None, score=_clean(result.to_dict()))
            logger.debug("scenario=<%s>, passed=<%s> | scored trajectory", scenario.id, result.passed)
            return report
    logger.debug("scenario=<%s>, error=<%s> | trajectory not scored", scenario.id, error)
    report.update(
        status="error",
        error=error,
        score={"scorer": scorer, "passed": False, "score": 0.0, "rationale": error, "details": {}},
    )
    return report


def _report_names(pairs: list[Pair]) -> list[str]:
    """`<run_id>.json`, or `scenario-<id>.json` without a run id; repeats get `-1`, `-2`."""
    names: list[str] = []
    taken: set[str] = {AGGREGATE_NAME.lower()}
    for pair in pairs:
        stem = pair.trajectory.run_id or f"scenario-{pair.scenario.id}"
        stem = _UNSAFE.sub("_", stem).strip("._") or "run"
        name, counter = f"{stem}.json", 0
        while name.lower() in taken:
            counter += 1
            name = f"{stem}-{counter}.json"
        taken.add(name.lower())
        names.append(name)
    return names


def _dump(data: Any) -> str:
    return json.dumps(_clean(data), sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _summary(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """Means of the score and of every numeric top-level detail, over the scored reports."""
    scored = [r["score"] for r in reports if r["status"] == "scored"]
    scores = [float(s["score"]) for s in scored]
    summary: dict[str, Any] = {
        "scored_results": len(scored),
        "score_avg": round(sum(scores) / len(scores), 4) if scores else None,
        "score_min": min(scores) if scores else None,
        "score_max": max(scores) if scores else None,
    }
    values: dict[str, list[float]] = {}
    for score in scored:
        for key, value in score["details"].items():
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                values.setdefault(key, []).append(float(value))
    for key, items in values.items():
        summary[f"{key}_avg"] = round(sum(items) / len(items), 4)
    return summary


def run_evaluation(
    trajectories: str | Path,
    scenarios: str | Path,
    reports_dir: str | Path,
    *,
    scorer: str = "static_json",
    options: Mapping[str, Any] | None = None,
    progress: bool = False,
    workers: int | None = None,
    executor: Any = None,
) -> EvaluationRun:
    """Load, join, score every pair, and write one report per run plus `_aggregate.json`.

    Args:
        trajectories: Folder of trajectory `*.json` files (searched recursively), or one file.
        scenarios: Folder of `scenario_<id>` folders.
        reports_dir: Where the reports go (created if missing).
        scorer: A registered scorer name (`scorers.scorer_names()`). Default `static_json`.
        options: Scorer options (`{"schema": "x.Model"}` for `similarity`). Default none.
        progress: Show a tqdm bar on stderr when stderr is a terminal. Default False.
        workers: Score on this many worker processes (`dataset.map_ordered`); the reports are
            the same, in the same order. Default None: in this process.
        executor: A `concurrent.futures.Executor` to score on instead, such as a Dask client's
            `get_executor()`. Default None.

    Returns:
        An `EvaluationRun` with the aggregate as written and the report paths.

    Raises:
        UnknownScorerError: If `scorer` is not registered.
        SchemaLoadError: If the scorer's options are invalid (a bad `--schema`).
        FileNotFoundError, NotADirectoryError: If an input folder is missing.
    """
    options = dict(options or {})
    validate_options(scorer, options)
    loaded = load_trajectories(trajectories)
    scenario_list, problems = load_scenarios(scenarios)
    pairs, unmatched_trajectories, unmatched_scenarios = join_records(loaded, scenario_list)
    from tqdm import tqdm

    bar = tqdm(
        pairs, desc="scoring", unit="run", file=sys.stderr, disable=not (progress and sys.stderr.isatty()), leave=False
    )
    if executor is None and (workers or 1) <= 1:
        reports = [score_pair(pair, scorer=scorer, options=options) for pair in bar]
    else:  # the same pure function on worker processes; results come back in input order
        from functools import partial

        from .dataset import map_ordered

        reports = []
        for report in map_ordered(
            partial(score_pair, scorer=scorer, options=options), pairs, workers=workers, executor=executor
        ):
            reports.append(report)
            bar.update()
        bar.close()
    out = Path(reports_dir)
    names = _report_names(pairs)
    paths = [write_text_atomic(out / name, _dump(report)) for name, report in zip(names, reports, strict=True)]
    passed = sum(1 for report in reports if report["score"]["passed"])
    errors = sum(1 for report in reports if report["status"] == "error")
    aggregate = {
        "scorer": scorer,
        "options": options,
        "totals": {
            "trajectories": len(loaded),
            "scenarios": len(scenario_list),
            "pairs": len(pairs),
            "scored": len(pairs) - errors,
            "errors": errors,
            "passed": passed,
            "pass_rate": round(passed / len(pairs), 4) if pairs else None,
        },
        "runners": sorted({p.trajectory.runner for p in pairs if p.trajectory.runner}),
        "models": sorted({p.trajectory.model for p in pairs if p.trajectory.model}),
        "score_summary": _summary(reports),
        "results": [
            {
                "report": name,
                "scenario_id": report["scenario_id"],
                "run_id": report["run_id"],
                "trajectory_file": report["trajectory_file"],
                "joined_by": report["joined_by"],
                "status": report["status"],
                "passed": report["score"]["passed"],
                "score": report["score"]["score"],
                "rationale": report["score"]["rationale"],
            }
            for name, report in zip(names, reports, strict=True)
        ],
        "unmatched_trajectories": [
            {
                "file": t.file,
                "scenario_id": t.scenario_id,
                "run_id": t.run_id,
                "error": t.error,
                "reason": "no scenario folder matches its scenario_id, run_id or file name stem",
            }
            for t in unmatched_trajectories
        ],
        "unmatched_scenarios": [
            {"scenario_id": s.id, "folder": s.folder, "error": s.error, "reason": "no trajectory joins this scenario"}
            for s in unmatched_scenarios
        ],
        "problems": problems,
    }
    aggregate_path = write_text_atomic(out / AGGREGATE_NAME, _dump(aggregate))
    logger.info("pairs=<%d>, passed=<%d>, errors=<%d> | wrote reports", len(pairs), passed, errors)
    return EvaluationRun(aggregate=json.loads(_dump(aggregate)), aggregate_path=aggregate_path, report_paths=paths)
