"""Dataset throughput with the defaults: `score_dataset` on every core against the upstream `Experiment`.

For each list length (default 5 and 50 line items) it builds a corpus with
`structsim_nb.demo.synthetic_invoice_pairs` (seeded, realistic extraction errors) and scores it

- with the upstream `StructuredOutputSimilarity` inside a Strands Evals `Experiment`, as a user
  runs it (`run_evaluations`; one core): the baseline;
- with `score_dataset(pairs, model_cls=Invoice)`, every default as shipped: non-matches on,
  vectorised matching, every core once there are 64 documents or more;
- the same with a model defined the way a notebook defines it: the class is created by
  executing its source in a namespace named `__main__` (no module holds it), and the pairs are
  instances of that class, so it reaches the workers by value (cloudpickle).

Rounds interleave the three paths; the table prints the median seconds, documents per second
and the ratio to the upstream `Experiment`. The pool's start-up is inside each timing (it is
part of every call). Before timing, the scores and pass decisions of every path are checked to
be the upstream `Experiment`'s, document by document.

Run: `python bench/throughput.py [--lengths 5 50] [--docs 600 120] [--runs 3]`. Timing is
printed, never asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from strands_evals import Case, Experiment
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)

from structsim_nb import StructuredOutputReport, score_dataset
from structsim_nb.demo import Invoice, synthetic_invoice_pairs

NOTEBOOK_CELL = """
import datetime
from pydantic import BaseModel

class LineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None

class Invoice(BaseModel):
    invoice_id: str
    vendor_name: str
    invoice_date: datetime.date | None = None
    total_amount: float | None = None
    line_items: list[LineItem] = []
"""


def notebook_model() -> type:
    """The demo `Invoice` schema as a notebook cell defines it: a class in `__main__` that no module holds."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(NOTEBOOK_CELL, "<notebook cell>", "exec", dont_inherit=True), namespace)
    model: type = namespace["Invoice"]
    return model


def upstream(corpus: list[dict[str, Any]]) -> StructuredOutputReport:
    actual = {pair["name"]: pair["actual"] for pair in corpus}
    cases = [Case(name=pair["name"], input=None, expected_output=pair["expected"]) for pair in corpus]
    experiment = Experiment(cases=cases, evaluators=[UpstreamSimilarity(Invoice)], report_cls=StructuredOutputReport)
    report: StructuredOutputReport = experiment.run_evaluations(lambda case: {"output": actual[case.name]})
    return report


def decisions(report: Any) -> list[tuple[float, bool]]:
    return list(zip(report.scores, report.test_passes, strict=True))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[5, 50], help="line items per document")
    parser.add_argument("--docs", type=int, nargs="+", default=[600, 120], help="documents per length")
    parser.add_argument("--runs", type=int, default=3, help="interleaved rounds; the median is printed")
    args = parser.parse_args(argv)
    if len(args.docs) != len(args.lengths):
        parser.error("--docs needs one count per --lengths entry")
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    print(
        f"dataset throughput, defaults (non-matches on, vectorised matching, every core: {cores}); median of "
        f"{args.runs} interleaved rounds (python {sys.version.split()[0]}); load average {os.getloadavg()[0]:.2f}"
    )
    print(f"{'items':>5} {'docs':>5}  {'path':<46} {'seconds':>8} {'docs/s':>8} {'vs upstream':>12}")
    Notebook = notebook_model()
    for length, count in zip(args.lengths, args.docs, strict=True):
        corpus = synthetic_invoice_pairs(count, line_items=length, seed=31 + length)
        as_notebook = [
            {
                "name": pair["name"],
                "expected": Notebook.model_validate(pair["expected"].model_dump()),  # type: ignore[attr-defined]
                "actual": Notebook.model_validate(pair["actual"].model_dump()),  # type: ignore[attr-defined]
            }
            for pair in corpus
        ]
        paths: dict[str, Callable[[], Any]] = {
            "upstream evaluator in an Experiment (1 core)": lambda corpus=corpus: upstream(corpus),
            "score_dataset, defaults": lambda corpus=corpus: score_dataset(corpus, model_cls=Invoice, progress=False),
            "score_dataset, defaults, notebook-defined model": lambda pairs=as_notebook: score_dataset(
                pairs, model_cls=Notebook, progress=False
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in paths}
        reference: list[tuple[float, bool]] | None = None
        for index in range(args.runs):
            order = list(paths)
            for name in order[index % len(order) :] + order[: index % len(order)]:
                start = time.perf_counter()
                report = paths[name]()
                times[name].append(time.perf_counter() - start)
                got = decisions(report)
                if reference is None:
                    reference = got
                elif got != reference:
                    raise SystemExit(f"{name} at {length} items: scores differ from the first path's")
        base = statistics.median(times["upstream evaluator in an Experiment (1 core)"])
        for name, values in times.items():
            median = statistics.median(values)
            print(f"{length:>5} {count:>5}  {name:<46} {median:>8.2f} {count / median:>8.1f} {base / median:>11.2f}x")
        sys.stderr.write(f"length {length} done\n")
    print(f"scores and pass decisions identical on every path: yes; load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
