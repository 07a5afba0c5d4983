"""What `structsim-nb evaluate --workers N` gains over scoring in one process, on the same runs.

Run: `python bench/evaluate_workers.py [--trajectories 20000] [--rounds 3] [--workers 2] [--scorer similarity]`

It writes `evaluate_cost.py`'s synthetic AssetOpsBench tree (`--trajectories` runs, one per scenario;
answers as an agent writes them: a `Final Answer:` line, a fenced block or plain JSON) to a temporary
folder, then times `run_evaluation` end to end in this process (imports done, so start-up is excluded),
rounds interleaved: once in this process, once with `--workers` worker processes (a fresh pool each
round, so the workers' start-up is counted). It prints the median seconds of each and the ratio (one
process over workers: above 1.0x the workers pay off), and checks that both wrote byte-identical files.

Set `TMPDIR` to a RAM disk (`/dev/shm`) to keep the file system's moods out of the figures. Timing is
printed, never asserted. To compare with another checkout, put its package first on the path:
`PYTHONPATH=/path/to/checkout python bench/evaluate_workers.py`.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from evaluate_cost import build_tree, files_in, scorer_options

from structsim_nb.trajectories.runner import run_evaluation


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trajectories", type=int, default=20000, help="runs in the tree (default: %(default)s)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds, median taken (default: %(default)s)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default: %(default)s)")
    parser.add_argument("--scorer", choices=["static_json", "similarity"], default="similarity")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="evaluate-workers-"))
    try:
        trajectories, scenarios = build_tree(work, args.trajectories)
        options = scorer_options(work, args.scorer)
        run_evaluation(trajectories, scenarios, work / "warm", scorer=args.scorer, options=options)  # imports, caches
        times: dict[str, list[float]] = {"one process": [], f"{args.workers} workers": []}
        written: dict[str, dict[str, bytes]] = {}
        for round_ in range(args.rounds):
            for label, workers in (("one process", None), (f"{args.workers} workers", args.workers)):
                out = work / f"reports-{round_}-{workers}"
                start = time.perf_counter()
                run_evaluation(trajectories, scenarios, out, scorer=args.scorer, options=options, workers=workers)
                times[label].append(time.perf_counter() - start)
                if round_ == 0:
                    written[label] = files_in(out)
        first, *others = written.values()
        same = all(files == first for files in others)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    one, many = (statistics.median(values) for values in times.values())
    print(
        f"evaluate, {args.trajectories:,} runs, scorer {args.scorer}, median of {args.rounds} interleaved rounds "
        f"(python {sys.version.split()[0]}); load average {os.getloadavg()[0]:.2f}"
    )
    for label, values in times.items():
        print(f"{label:<14} {statistics.median(values):7.2f} s   rounds: {', '.join(f'{v:.2f}' for v in values)}")
    print(f"one process / {args.workers} workers: {one / many:.2f}x")
    print(f"both wrote byte-identical files: {'yes' if same else 'NO'}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
