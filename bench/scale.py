"""Throughput of `score_dataset` against the upstream evaluator inside a Strands Evals `Experiment`.

Builds a synthetic corpus of invoices with `structsim_nb.demo.synthetic_invoice_pairs` (1 to 50
line items, seeded, with the errors an extractor makes at the rates it documents: case and typo
changes, numbers off, dropped, invented and reordered line items, blank fields), scores it

- with the upstream `StructuredOutputSimilarity` inside an `Experiment` (the baseline),
- with `score_dataset` in-process (1 worker), on a process pool of every core, and on a local
  Dask cluster of processes (`distributed.LocalCluster(n_workers=2, threads_per_worker=1)`),

checks every path gives the same scores (and that `score_dataset` with non-matches writes the
same report bytes as the `Experiment` with this project's evaluator), and prints documents per
second with the ratios to the baseline. It then prints the per-document cost of one comparison
against list length, so the engine's growth is visible.

Run: `python bench/scale.py` (2,000 documents, one round, about six minutes on two cores),
`--runs 3` for medians of three interleaved rounds, or `--docs 100 --no-dask --no-lengths` for a
quick look.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from strands_evals import Case, Experiment
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, score_dataset
from structsim_nb.demo import Invoice, synthetic_invoice_pairs

MODEL = "structsim_nb.demo.Invoice"

SEED = 7  # the corpus; the length table uses SEED + length
LINE_ITEMS = (1, 50)


# -- the paths being timed ------------------------------------------------------------------


def run_experiment(corpus: list[dict[str, Any]], evaluator: Any) -> StructuredOutputReport:
    """`corpus` through a Strands Evals `Experiment`, as a user would run it (sequentially)."""
    actual = {pair["name"]: pair["actual"] for pair in corpus}
    cases = [Case(name=pair["name"], input=None, expected_output=pair["expected"]) for pair in corpus]
    experiment = Experiment(cases=cases, evaluators=[evaluator], report_cls=StructuredOutputReport)
    return experiment.run_evaluations(lambda case: {"output": actual[case.name]})


def _scores(report: Any) -> list[tuple[Any, float, bool]]:
    return [
        (case["name"], score, passed)
        for case, score, passed in zip(report.cases, report.scores, report.test_passes, strict=True)
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=2000, help="documents in the corpus (default: %(default)s)")
    parser.add_argument(
        "--runs", type=int, default=3, help="runs per path; the median is printed (default: %(default)s)"
    )
    parser.add_argument("--no-dask", action="store_true", help="skip the local Dask cluster")
    parser.add_argument("--no-lengths", action="store_true", help="skip the cost-against-list-length table")
    args = parser.parse_args(argv)

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    corpus = synthetic_invoice_pairs(args.docs, line_items=LINE_ITEMS, seed=SEED)
    items = [len(pair["expected"].line_items) for pair in corpus]
    print(
        f"corpus: {len(corpus)} invoices, {min(items)}-{max(items)} line items (mean {statistics.mean(items):.1f}); "
        f"{cores} cores; median of {args.runs} run(s); load average {os.getloadavg()[0]:.2f} (other work skews it)"
    )

    settings: dict[str, Any] = {"model_cls": MODEL, "non_matches": False, "progress": False}
    paths: dict[str, Any] = {
        "upstream evaluator in an Experiment": lambda: run_experiment(corpus, UpstreamSimilarity(Invoice)),
        "score_dataset, 1 worker (in-process)": lambda: score_dataset(corpus, workers=1, **settings),
        f"score_dataset, {cores} workers (process pool)": lambda: score_dataset(corpus, workers=cores, **settings),
    }
    with contextlib.ExitStack() as stack:
        if not args.no_dask:
            from distributed import Client, LocalCluster

            # A cluster outlives a run: its startup (and the workers' imports) is not timed.
            cluster = stack.enter_context(
                LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
            )
            client = stack.enter_context(Client(cluster))
            client.run(lambda: __import__("structsim_nb.dataset"))
            executor = stack.enter_context(client.get_executor())
            paths["score_dataset on a LocalCluster (2 worker processes)"] = lambda: score_dataset(
                corpus, executor=executor, **settings
            )
        # Rounds interleave the paths, so a busy spell on the machine hits them all alike.
        times: dict[str, list[float]] = {label: [] for label in paths}
        reference = None
        for _ in range(args.runs):
            for label, run in paths.items():
                start = time.perf_counter()
                report = run()
                times[label].append(time.perf_counter() - start)
                scores = _scores(report)
                del report
                if reference is None:
                    reference = scores
                elif scores != reference:
                    raise SystemExit(f"{label}: scores differ from the upstream Experiment")

    medians = {label: statistics.median(values) for label, values in times.items()}
    base_t = medians["upstream evaluator in an Experiment"]
    print()
    print(f"{'path':<55} {'seconds':>8} {'docs/s':>8} {'vs upstream':>12}")
    for label, elapsed in medians.items():
        print(f"{label:<55} {elapsed:8.2f} {len(corpus) / elapsed:8.1f} {base_t / elapsed:11.2f}x")
    print(f"scores identical on every path: yes; load average now {os.getloadavg()[0]:.2f}")

    # The project's evaluator (with non-matches): the same report, to the byte, both ways.
    sample = corpus[: min(len(corpus), 300)]
    with tempfile.TemporaryDirectory() as tmp:
        a = run_experiment(sample, StructuredOutputSimilarity(Invoice)).to_file(Path(tmp) / "a.json")
        b = score_dataset(sample, model_cls=MODEL, workers=cores, progress=False).to_file(Path(tmp) / "b.json")
        same = a.read_bytes() == b.read_bytes()
    print(
        f"with non-matches, {len(sample)} documents: report bytes identical to the Experiment's: "
        f"{'yes' if same else 'NO'}"
    )
    if not same:
        return 1

    if not args.no_lengths:
        print()
        print("per-document cost of one comparison against list length (upstream evaluator, one core)")
        print(f"{'line items':>10} {'ms/doc':>10} {'docs timed':>11}")
        evaluator = UpstreamSimilarity(Invoice)
        for length in (1, 5, 20, 50, 100, 200):
            count = max(2, min(40, int(400 / length)))
            pairs = [
                EvaluationData(input=None, expected_output=pair["expected"], actual_output=pair["actual"])
                for pair in synthetic_invoice_pairs(count, line_items=length, seed=SEED + length)
            ]
            start = time.perf_counter()
            for pair in pairs:
                evaluator.evaluate(pair)
            per_doc = (time.perf_counter() - start) / count
            print(f"{length:>10} {per_doc * 1000:>10.1f} {count:>11}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
