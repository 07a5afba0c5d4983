"""Start-up cost: importing the evaluator and running `structsim-nb --help`, against `import strands_evals`.

Also `structsim-nb evaluate` on 10 saved runs (`static_json`, the default scorer), cycled from the
committed fixture as `evaluate_share.py` builds its tree, into the same reports folder each time
(as a user reruns it): what a small evaluate costs from the shell, start-up included.

Each measurement is a fresh interpreter (`sys.executable`), so nothing is cached in memory;
the operating system's file cache is warm after the first round, as it is for a user. The
statements are interleaved round by round so a busy spell on the machine hits them alike,
and the table prints the median wall time of each, its difference from `import strands_evals`
(the upstream harness), and the peak resident memory (`ru_maxrss` of the child).

Run: `python bench/import_time.py [--runs 15]`. Timing is printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

#: A small schema and one evaluator built on it: what the first evaluator costs on top of the import.
MODEL = (
    "\nfrom pydantic import BaseModel"
    "\nclass Item(BaseModel):\n    sku: str | None = None\n    qty: int | None = None"
    "\nclass Doc(BaseModel):\n    doc_id: str\n    items: list[Item] = []"
    "\nS(Doc)"
)
STATEMENTS = {
    "import strands_evals": [sys.executable, "-c", "import strands_evals"],
    "import structsim_nb": [sys.executable, "-c", "import structsim_nb"],
    "structsim_nb.StructuredOutputSimilarity": [
        sys.executable,
        "-c",
        "import structsim_nb; structsim_nb.StructuredOutputSimilarity",
    ],
    "upstream StructuredOutputSimilarity": [
        sys.executable,
        "-c",
        "from strands_evals.evaluators import StructuredOutputSimilarity",
    ],
    "upstream evaluator built": [
        sys.executable,
        "-c",
        "from strands_evals.evaluators import StructuredOutputSimilarity as S" + MODEL,
    ],
    "structsim_nb evaluator built": [
        sys.executable,
        "-c",
        "from structsim_nb import StructuredOutputSimilarity as S" + MODEL,
    ],
    "structsim-nb --help": [shutil.which("structsim-nb") or "structsim-nb", "--help"],
    "python -c pass": [sys.executable, "-c", "pass"],
}
BASELINE = "import strands_evals"


def measure(command: list[str]) -> float:
    """Wall seconds of one run of `command` (exit status 0, or 1: `evaluate` when a run did not pass)."""
    start = time.perf_counter()
    _run(command)
    return time.perf_counter() - start


def _run(command: list[str]) -> None:
    done = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited with {done.returncode}: {done.stderr.decode()[-500:]}")


def _evaluate_command(root: Path) -> list[str]:
    """`structsim-nb evaluate` on 10 well-formed saved runs written under `root`."""
    from evaluate_share import build_tree  # this folder's script (the bench folder is on sys.path)

    trajectories, scenarios = build_tree(root, 10)
    executable = shutil.which("structsim-nb") or "structsim-nb"
    return [executable, "evaluate", "--trajectories", str(trajectories), "--scenarios", str(scenarios),
            "--reports-dir", str(root / "reports")]  # fmt: skip


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="rounds; the median is printed (default 15)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        statements = {**STATEMENTS, "structsim-nb evaluate, 10 runs": _evaluate_command(Path(tmp))}
        return _measure_all(statements, args.runs)


def _measure_all(statements: dict[str, list[str]], runs: int) -> int:
    times: dict[str, list[float]] = {name: [] for name in statements}
    for command in statements.values():  # warm the file cache
        _run(command)
    rss: dict[str, float] = {}
    for name, command in statements.items():  # peak memory, one child at a time, smallest first
        rss[name] = _rss(command)
    load = os.getloadavg()[0]
    for index in range(runs):
        order = list(statements)
        for name in order[index % len(order) :] + order[: index % len(order)]:
            times[name].append(measure(statements[name]))
    base = statistics.median(times[BASELINE])
    print(
        f"start-up: median of {runs} interleaved fresh interpreters (python {sys.version.split()[0]}); "
        f"load average {load:.2f} -> {os.getloadavg()[0]:.2f}"
    )
    print(f"{'statement':<42} {'median s':>9} {'vs strands_evals':>17} {'peak RSS MiB':>13}")
    for name in statements:
        median = statistics.median(times[name])
        print(f"{name:<42} {median:>9.3f} {median - base:>+16.3f}s {rss[name]:>13.0f}")
    return 0


def _rss(command: list[str]) -> float:
    """Peak RSS (MiB) of `command`, read by a wrapper interpreter so each figure is that child's alone."""
    probe = (
        "import resource, subprocess, sys; "
        "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); "
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
    )
    done = subprocess.run([sys.executable, "-c", probe, *command], check=True, capture_output=True, text=True)
    return int(done.stdout.strip()) / 1024


if __name__ == "__main__":
    raise SystemExit(main())
