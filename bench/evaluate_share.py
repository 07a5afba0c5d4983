"""What share of `structsim-nb evaluate` is scoring: 2,000 trajectories, start-up excluded.

Builds a tree of `--runs-count` trajectories and scenario folders in a temporary folder, by
cycling the committed fixture (`tests/data/trajectories_tree`: real AssetOpsBench-shaped files,
with their answers and ground truths), each copy under a new id. It then calls
`structsim_nb.trajectories.run_evaluation` in this process (imports done, so start-up is
excluded) with the scorer wrapped in a timer, and prints the wall time of the whole run, the
time inside the scorer, and the scorer's share. The rest is loading, joining, building the
per-run reports and writing them (one file per run and the aggregate). It also prints the time
the garbage collector took during the run (inside both), and that of one full collection right
after it, timed apart: what a long-lived process would pay for the run later.

It then splits the rest into the page (`_aggregate.html`; until 2026-12-06 mostly its matplotlib
chart, about 0.1-0.2 s for any number of runs; now HTML bars and the runs table) and the rest per
run, beside the scorer's time per run: the share falls whenever scoring gets faster; those do not.
The issue-17 target is a share of at least 60%. The runner's writing path belongs to issue 16;
this script only measures it.
Run: `python bench/evaluate_share.py [--runs-count 2000] [--rounds 3]`. Timing is printed, never asserted.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from structsim_nb.trajectories import pairs, runner, runs_page

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "data" / "trajectories_tree"


def build_tree(root: Path, count: int) -> tuple[Path, Path]:
    """`count` trajectories and their scenario folders under `root`, cycled from the fixture."""
    sources = []
    for path in sorted((FIXTURE / "trajectories").glob("*.json")):
        try:  # the fixture holds deliberately broken files too; only well-formed runs are copied
            data = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        scenario = FIXTURE / "scenarios" / f"scenario_{data.get('scenario_id') or path.stem}"
        if isinstance(data, dict) and isinstance(data.get("answer"), str) and (scenario / "groundtruth.txt").exists():
            sources.append((data, (scenario / "groundtruth.txt").read_text(encoding="utf-8")))
    trajectories, scenarios = root / "trajectories", root / "scenarios"
    trajectories.mkdir()
    scenarios.mkdir()
    for index in range(count):
        data, truth = sources[index % len(sources)]
        ident = f"{index:05d}"
        record = {**data, "run_id": ident, "scenario_id": ident}
        (trajectories / f"{ident}.json").write_text(json.dumps(record), encoding="utf-8")
        folder = scenarios / f"scenario_{ident}"
        folder.mkdir()
        (folder / "groundtruth.txt").write_text(truth, encoding="utf-8")
    return trajectories, scenarios


class _Timed:
    """The `get_scorer` that `pairs.score_pair` calls, returning scorers that add their time to `spent`."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._original = pairs.get_scorer

    def __call__(self, name: str) -> Any:
        scorer = self._original(name)

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return scorer(*args, **kwargs)
            finally:
                self.spent += time.perf_counter() - start

        return timed


class _Collections:
    """A `gc.callbacks` entry adding up the time the collector takes, and counting full collections."""

    def __init__(self) -> None:
        self.spent, self.full, self._start, self.after = 0.0, 0, 0.0, 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._start = time.perf_counter()
            return
        self.spent += time.perf_counter() - self._start
        self.full += info["generation"] == 2


class _TimedPage:
    """`runs_page.runs_page` (the runner imports it when it writes the page), adding its time to `spent`."""

    def __init__(self) -> None:
        self.spent = 0.0
        self._original = runs_page.runs_page

    def __call__(self, *args: Any, **kwargs: Any) -> str:
        start = time.perf_counter()
        try:
            return self._original(*args, **kwargs)
        finally:
            self.spent += time.perf_counter() - start


def one_round(
    trajectories: Path, scenarios: Path, out: Path, workers: int | None
) -> tuple[float, float, float, _Collections]:
    """`(whole run, time in the scorer, time making the page, the collections)` of one in-process `run_evaluation`."""
    timed, page, collections = _Timed(), _TimedPage(), _Collections()
    pairs.get_scorer = timed  # type: ignore[assignment]
    runs_page.runs_page = page  # type: ignore[assignment]
    gc.callbacks.append(collections)
    try:
        start = time.perf_counter()
        runner.run_evaluation(trajectories, scenarios, out, workers=workers)
        total = time.perf_counter() - start
    finally:
        gc.callbacks.remove(collections)
        pairs.get_scorer = timed._original
        runs_page.runs_page = page._original
    # What collecting is left for later (a long-lived process pays it at its next full collection): timed apart.
    start = time.perf_counter()
    gc.collect()
    collections.after = time.perf_counter() - start
    return total, timed.spent, page.spent, collections


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs-count", type=int, default=2000, help="trajectories (default 2000)")
    parser.add_argument("--rounds", type=int, default=3, help="rounds; the median is printed (default 3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trajectories, scenarios = build_tree(Path(tmp), args.runs_count)
        one_round(trajectories, scenarios, Path(tmp) / "warm", None)  # imports, caches
        totals, scoring, paging, collecting, full, after = [], [], [], [], [], []
        for index in range(args.rounds):
            total, spent, paged, collections = one_round(trajectories, scenarios, Path(tmp) / f"reports{index}", None)
            totals.append(total)
            scoring.append(spent)
            paging.append(paged)
            collecting.append(collections.spent)
            full.append(collections.full)
            after.append(collections.after)
    total, spent = statistics.median(totals), statistics.median(scoring)
    print(
        f"evaluate, {args.runs_count} trajectories, in-process, start-up excluded; median of {args.rounds} "
        f"(python {sys.version.split()[0]}); load average {os.getloadavg()[0]:.2f}"
    )
    print(f"whole run {total:8.2f} s   scoring {spent:8.2f} s   scoring share {spent / total:6.1%}")
    print(f"everything else (load, join, reports, writing) {total - spent:.2f} s, {(total - spent) / total:.1%}")
    # The rest as the page and the rest per run, beside scoring per run:
    # the share falls whenever scoring gets faster; these do not.
    paged, per_run = statistics.median(paging), 1e6 / args.runs_count
    print(
        f"of which the page {paged:.2f} s; per run: scoring {spent * per_run:.0f} us, "
        f"everything else but the page {(total - spent - paged) * per_run:.0f} us"
    )
    print(
        f"scoring share with the page set apart: {spent / (total - paged):.1%}; "
        "the issue-17 target (60%) counts the page"
    )
    print(
        f"garbage collection (inside both) {statistics.median(collecting):.2f} s, "
        f"{statistics.median(full):g} full collections; "
        f"one full collection after the run {statistics.median(after):.2f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
