"""Peak Python heap of `score_dataset` against the size of the report it returns, and against an `Experiment`.

A run must hold every row of the report (each carries its comparison and non-matches), but it
should not hold a second copy of every comparison on the way there. This script scores
synthetic invoice corpora of increasing size (`structsim_nb.demo.synthetic_invoice_pairs`,
1 to 20 line items, seeded) with the project's evaluator (non-matches on) three ways:

- `score_dataset(..., workers=1)`, in this process;
- `score_dataset(..., workers=2)`, on a process pool (the parent's heap: it receives every
  row from the workers and assembles the report);
- the same evaluator inside a Strands Evals `Experiment` (`run_evaluations`), for reference.

Each measurement runs in a fresh interpreter, so nothing one leaves behind skews another.
There the corpus is built and a two-document warm-up run imports everything and fills the
caches; then `tracemalloc` traces the run. It records the peak traced heap during the run
(`peak`), what is still traced after it with only the report alive (`report`: the report's
in-memory size), the length of `report.model_dump_json()`, and the ratio `peak / report`.
Flat memory means the peak tracks the report, which must hold every row, plus a constant for
the documents in flight: the ratio stays near 1 and falls as the corpus grows. A run holding
every comparison twice would show a ratio near 2 or more at every size.

Run: `python bench/memory.py` (250, 500 and 1,000 documents, one run each, about seven minutes
on two cores: tracing slows Python down about twofold), `--runs 3` for medians (the heap figures
move by well under 1% between runs; the seconds are the traced run's and only a rough guide), or
`--docs 100 200` for a quick look.
Figures are bytes of Python heap seen by `tracemalloc` (not the RSS); they depend little on the
machine but do on the Python, pydantic and stickler versions.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import statistics
import subprocess
import sys
import time
import tracemalloc
from typing import Any

PATHS = {
    "sd-1": "score_dataset, workers=1 (in-process)",
    "sd-2": "score_dataset, workers=2 (parent's heap)",
    "experiment": "Experiment (run_evaluations)",
}
MODEL = "structsim_nb.demo.Invoice"
LINE_ITEMS = (1, 20)
SEED = 11


def _run(path: str, corpus: list[dict[str, Any]]) -> Any:
    from strands_evals import Case, Experiment

    from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, score_dataset
    from structsim_nb.demo import Invoice

    if path == "experiment":
        actual = {pair["name"]: pair["actual"] for pair in corpus}
        cases = [Case(name=pair["name"], input=None, expected_output=pair["expected"]) for pair in corpus]
        experiment = Experiment(
            cases=cases, evaluators=[StructuredOutputSimilarity(Invoice)], report_cls=StructuredOutputReport
        )
        return experiment.run_evaluations(lambda case: {"output": actual[case.name]})
    workers = {"sd-1": 1, "sd-2": 2}[path]
    return score_dataset(corpus, model_cls=MODEL, workers=workers, progress=False)


def child(path: str, docs: int) -> dict[str, Any]:
    """One measurement, in this (fresh) interpreter: the figures for `path` on `docs` documents."""
    from structsim_nb.demo import synthetic_invoice_pairs

    corpus = synthetic_invoice_pairs(docs, line_items=LINE_ITEMS, seed=SEED)
    _run(path, corpus[:2])  # imports, the compiled spec, pydantic's validators: not part of the run
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    start = time.perf_counter()
    report = _run(path, corpus)
    elapsed = time.perf_counter() - start
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    dumped = report.model_dump_json()
    return {
        "peak": peak - base,
        "report": held - base,
        "json": len(dumped),
        "sha": hashlib.sha256(dumped.encode()).hexdigest()[:12],
        "seconds": elapsed,
    }


def measure(path: str, docs: int) -> dict[str, Any]:
    """`child(path, docs)` in a fresh interpreter."""
    done = subprocess.run(
        [sys.executable, __file__, "--child", path, str(docs)], check=True, capture_output=True, text=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def _mb(value: float) -> str:
    return f"{value / 1e6:8.2f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--docs", type=int, nargs="+", default=[250, 500, 1000], help="corpus sizes (default: %(default)s)"
    )
    parser.add_argument("--runs", type=int, default=1, help="runs per size and path; medians (default: %(default)s)")
    parser.add_argument("--paths", nargs="+", choices=list(PATHS), default=list(PATHS), help="paths to measure")
    parser.add_argument("--child", nargs=2, metavar=("PATH", "DOCS"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child[0], int(args.child[1]))))
        return 0

    print(
        f"memory: synthetic invoices, {LINE_ITEMS[0]}-{LINE_ITEMS[1]} line items, non-matches on; "
        f"tracemalloc, a fresh interpreter per measurement; median of {args.runs} run(s) "
        f"(python {sys.version.split()[0]})"
    )
    header = (
        f"{'docs':>5}  {'path':<42} {'peak MB':>8} {'report MB':>9} {'json MB':>8} {'peak/report':>11} "
        f"{'peak-report MB':>14} {'s (traced)':>10}"
    )
    print(header)
    print("-" * len(header))
    identical = True
    for docs in args.docs:
        shas = set()
        for path in args.paths:
            runs = []
            for _ in range(args.runs):
                runs.append(measure(path, docs))
                print(f"  {docs} {path}: {runs[-1]}", file=sys.stderr)
            shas.update(run["sha"] for run in runs)
            med = {key: statistics.median(run[key] for run in runs) for key in ("peak", "report", "json", "seconds")}
            print(
                f"{docs:>5}  {PATHS[path]:<42} {_mb(med['peak'])} {_mb(med['report']):>9} {_mb(med['json'])} "
                f"{med['peak'] / med['report']:>10.2f}x {_mb(med['peak'] - med['report']):>14} {med['seconds']:>10.1f}"
            )
        identical &= len(shas) == 1
        print()
    print(f"reports identical (model_dump_json) on every path at each size: {'yes' if identical else 'NO'}")
    return 0 if identical else 1


if __name__ == "__main__":
    raise SystemExit(main())
