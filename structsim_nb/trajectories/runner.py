"""Score saved agent trajectories against scenario folders, offline: load, join, score, report.

Layout (AssetOpsBench's)::

    trajectories/            any depth; every *.json file is one run
      11.json                {"run_id": "11", "scenario_id": "11", "answer": "...", ...}
    scenarios/
      scenario_11/           the id is the folder name without a leading "scenario_"
        groundtruth.txt      the expected answer (required)
        groundtruth_eval.json  optional scorer metadata (CAR mode)

`run_evaluation` reads the runs (`saved_runs`) and the scenarios (`scenarios`: folders, scenario
files, several paths), joins them and scores every pair (`pairs`, where the join rule is), in
this process or on worker processes, and writes the reports. `scenario_ids` keeps only the named
scenarios. The parts' names this module has always offered (`Trajectory`, `Scenario`, `Pair`,
`load_trajectories`, `load_scenarios`, `read_scenario_ids`, `join_records`, `score_pair`) are
still importable from it.

The answer is scored with its `<think>...</think>` blocks removed, and the report holds it so.
Each report has an `ops` block read from the trajectory (turns, tool calls, tokens, duration,
cost; None when the trajectory does not record it); the aggregate sums them.

Nothing is dropped silently, and one bad file never stops a run: `saved_runs` and `scenarios`
say how each bad input is recorded. Unmatched trajectories and scenarios, and duplicate scenario
ids, are listed in `_aggregate.json`; hidden files left out are listed under `skipped`. Any
exception while scoring one pair, and any error writing one report, becomes that run's error
entry.

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

import hashlib
import json
import logging
import re
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .._heap import young_collections_only
from .._jsondump import dump_bytes
from .._signals import raise_if_terminated, sigterm_raises
from .aggregate import REPORT_FORMAT_VERSION, build_aggregate
from .pairs import Pair, join_records, score_pair
from .reports_dir import AGGREGATE_NAME, PAGE_NAME, ReportsFolder
from .saved_runs import Trajectory, discover_trajectories, load_trajectories
from .scenarios import Scenario, load_scenarios, problem, read_scenario_ids
from .scorers import validate_options

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

_MAX_STEM = 100
_RESERVED_NAMES = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)] + [f"LPT{i}" for i in range(1, 10)]
)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class EvaluationRun:
    """What `run_evaluation` wrote: the aggregate (as written), every report path, and the page (if written)."""

    aggregate: dict[str, Any]
    aggregate_path: Path
    report_paths: list[Path] = field(default_factory=list)
    page_path: Path | None = None


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
            the same, in the same order (at most four a core are started; see `_pool.pool_size`).
            Default None: in this process.
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
        WorkerStartError: If `workers` were asked for and none can start (`_pool.map_ordered`):
            nothing is written.
        KeyboardInterrupt: On Ctrl-C, or SIGTERM (`_signals.Terminated`): the worker processes
            are stopped and nothing is written unless the reports were already moved into place;
            the exception's `reports_written` says which (None, or the folder). Under SIGTERM's
            default action the process then ends by SIGTERM.

    Notes:
        While it runs, Python's garbage collector skips the objects that exist when it starts and
        starts no full collection by itself: a process-wide setting, put back when it returns or
        raises, left alone when the collector is disabled or objects are already frozen
        (`structsim_nb._heap`). Worker processes forked meanwhile collect as usual.
    """
    options = dict(options or {})
    validate_options(scorer, options)
    out = ReportsFolder(reports_dir)
    out.check()
    with sigterm_raises(), young_collections_only():  # collections skip the caller's heap, full ones wait (`_heap`)
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
    loaded, skipped = discover_trajectories(Path(trajectories), skip=[out.path])
    scenario_list, problems = load_scenarios(scenarios)
    problems += [problem("bad_trajectory_id", t.file, t.problem) for t in loaded if t.problem]
    pairs, unmatched_trajectories, unmatched_scenarios = join_records(loaded, scenario_list)
    excluded = 0
    selected = list(dict.fromkeys(scenario_ids)) if scenario_ids is not None else None
    if selected is not None:
        wanted = set(selected)
        known = {s.id for s in scenario_list}
        problems += [
            problem("unknown_scenario_id", "--scenario-ids", f"scenario id {item!r} matches no scenario")
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

    from .._pool import executor_capacity
    from ..dataset import map_ordered

    capacity = executor_capacity(executor, workers)  # (no executor: `workers`, else every core)
    reports = []
    for report in map_ordered(
        partial(score_pair, scorer=scorer, options=options),
        pairs,
        workers=workers,
        executor=executor,
        chunk_size=_chunk_size(len(pairs), capacity),
    ):
        reports.append(report)
        bar.update()
    bar.close()
    return reports


#: Most runs sent to a worker at once. A run scores in 0.1-1 ms, so the pool's default chunk (8, for
#: documents of several milliseconds) cost about as much to pass to a worker and back as to score: with
#: chunks of 16 to 128 the same 20,000 `similarity` runs on 2 workers took about a quarter less time
#: than with 8 (`bench/README.md`, "Long runs and the garbage collector").
_MOST_RUNS_PER_CHUNK = 64
#: Fewest chunks per worker, so that the last ones do not leave a worker idle for long.
_FEWEST_CHUNKS_PER_WORKER = 4


def _chunk_size(runs: int, capacity: int) -> int:
    """Runs per chunk for `capacity` chunks running at once (worker processes, or a cluster's threads):
    `_MOST_RUNS_PER_CHUNK`, less when there are too few runs to give each `_FEWEST_CHUNKS_PER_WORKER`
    chunks, never under the pool's `DEFAULT_CHUNK_SIZE`."""
    from .._pool import DEFAULT_CHUNK_SIZE

    share = runs // (max(1, capacity) * _FEWEST_CHUNKS_PER_WORKER)
    return max(DEFAULT_CHUNK_SIZE, min(_MOST_RUNS_PER_CHUNK, share))
