"""What documenting non-matches costs per document, against the upstream evaluator.

Four ways to score the same generated invoices, timed per `evaluate()` call:

- `upstream`: Strands Evals' `StructuredOutputSimilarity`, one comparison, no records.
- `ours`: `structsim_nb.StructuredOutputSimilarity` (`non_matches=True`, the default): the
  records are requested inside the one comparison (`document_non_matches=True`).
- `ours-off`: `structsim_nb.StructuredOutputSimilarity(non_matches=False)`: the upstream row.
- `naive`: the upstream evaluator, then stickler's `EvalResult.non_matches` for the records,
  which compares the pair a second time. This is what folding the records into one
  comparison avoids.

Invoices come from `structsim_nb.demo.synthetic_invoice_pairs` (synthetic, seeded) at several
list lengths, with the realistic extraction errors it documents (case changes, typos, missed
values, numbers off, dropped, invented and reordered line items). Each run times every
approach over every document of a list length, rotating the order of approaches between
runs; the figure per run is the mean time per document, and the table reports the median
over runs and its ratio to `upstream`.

Run: `/tmp/venv/bin/python bench/non_match_cost.py [--docs 100] [--lengths 1 5 20] [--runs 5]`.
Timing is printed, never asserted. The records the naive path and ours produce are checked
to be identical before anything is timed, so the two are doing the same work.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Any

from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)
from strands_evals.types.evaluation import EvaluationData, EvaluationOutput

from structsim_nb import StructuredOutputSimilarity
from structsim_nb.demo import Invoice, synthetic_invoice_pairs
from structsim_nb.evaluate import non_match_records

Approach = Callable[[EvaluationData[Any, Any]], list[EvaluationOutput]]


# -- generating documents ------------------------------------------------------------------


def generate(count: int, items: int, *, seed: int) -> list[EvaluationData[str, Invoice]]:
    """`count` cases whose ground truth has `items` line items (`synthetic_invoice_pairs`, `seed`)."""
    return [
        EvaluationData(name=pair["name"], input="", expected_output=pair["expected"], actual_output=pair["actual"])
        for pair in synthetic_invoice_pairs(count, line_items=items, seed=seed)
    ]


# -- the four approaches -------------------------------------------------------------------


class _CapturingSpec:
    """Wraps an `EvalSpec` and keeps the last `EvalResult`, so the naive path can ask it for records."""

    def __init__(self, spec: Any) -> None:
        self._spec = spec
        self.last: Any = None

    def evaluate(self, ground_truth: Any, prediction: Any) -> Any:
        self.last = self._spec.evaluate(ground_truth, prediction)
        return self.last

    def __getattr__(self, name: str) -> Any:
        return getattr(self._spec, name)


def _naive() -> Approach:
    """Upstream evaluator, then `EvalResult.non_matches` (a second comparison), records on metadata."""
    evaluator = UpstreamSimilarity(Invoice)
    spec = _CapturingSpec(evaluator._spec)
    evaluator._spec = spec

    def evaluate(case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        rows: list[EvaluationOutput] = evaluator.evaluate(case)
        for row in rows:
            if row.metadata and "comparison" in row.metadata:
                row.metadata = {**row.metadata, "non_matches": non_match_records(spec.last.non_matches)}
        return rows

    return evaluate


def approaches() -> dict[str, Approach]:
    """The four approaches, by the name the table prints."""
    return {
        "upstream": UpstreamSimilarity(Invoice).evaluate,
        "ours": StructuredOutputSimilarity(Invoice).evaluate,
        "ours-off": StructuredOutputSimilarity(Invoice, non_matches=False).evaluate,
        "naive": _naive(),
    }


def check_same_work(named: dict[str, Approach], cases: Sequence[EvaluationData[Any, Any]]) -> None:
    """Fail loudly if the approaches disagree on scores or records: the timings would compare different work."""
    for case in cases:
        rows = {name: approach(case)[0] for name, approach in named.items()}
        scores = {name: row.score for name, row in rows.items()}
        if len(set(scores.values())) != 1:
            raise SystemExit(f"approaches must score {case.name} the same; got {scores}")
        ours, naive = rows["ours"].metadata["non_matches"], rows["naive"].metadata["non_matches"]
        if ours != naive:
            raise SystemExit(f"ours and naive must produce the same records for {case.name}; got {ours} vs {naive}")


# -- timing --------------------------------------------------------------------------------


def time_per_document(approach: Approach, cases: Sequence[EvaluationData[Any, Any]]) -> float:
    """Mean seconds per `evaluate()` call over `cases`."""
    start = time.perf_counter()
    for case in cases:
        approach(case)
    return (time.perf_counter() - start) / len(cases)


def run(docs: int, lengths: Sequence[int], runs: int, seed: int) -> dict[int, dict[str, list[float]]]:
    """Seconds per document, `{length: {approach: [one figure per run]}}`."""
    named = approaches()
    results: dict[int, dict[str, list[float]]] = {}
    for length in lengths:
        cases = generate(docs, length, seed=seed)
        check_same_work(named, cases[: min(len(cases), 20)])
        for approach in named.values():  # warm-up: caches, lazy imports
            time_per_document(approach, cases[:5])
        results[length] = {name: [] for name in named}
        order = list(named)
        for index in range(runs):
            rotated = order[index % len(order) :] + order[: index % len(order)]
            for name in rotated:
                results[length][name].append(time_per_document(named[name], cases))
        sys.stderr.write(f"list length {length}: {runs} runs of {docs} documents done\n")
    return results


def report(results: dict[int, dict[str, list[float]]], docs: int, runs: int) -> None:
    """Print the medians (ms per document) and ratios to upstream."""
    print(
        f"non-match cost: {docs} documents per list length, {runs} runs, median ms per document "
        f"(python {platform.python_version()}, strands-agents-evals {version('strands-agents-evals')}, "
        f"stickler-eval {version('stickler-eval')})"
    )
    header = f"{'items':>5}  {'approach':<9} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'vs upstream':>12}"
    print(header)
    print("-" * len(header))
    for length, by_name in results.items():
        base = statistics.median(by_name["upstream"])
        for name, figures in by_name.items():
            median = statistics.median(figures)
            print(
                f"{length:>5}  {name:<9} {median * 1e3:>10.3f} {min(figures) * 1e3:>8.3f} "
                f"{max(figures) * 1e3:>8.3f} {median / base:>11.2f}x"
            )
        print()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100, help="documents per list length (default 100)")
    parser.add_argument("--lengths", type=int, nargs="+", default=[1, 5, 20], help="line items per document")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per approach (default 5)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    args = parser.parse_args(argv)
    if args.docs < 1 or args.runs < 1 or any(length < 0 for length in args.lengths):
        parser.error("--docs and --runs must be at least 1 and --lengths non-negative")
    report(run(args.docs, args.lengths, args.runs, args.seed), args.docs, args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
