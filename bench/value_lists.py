"""Fields holding lists of plain values: per-document cost against list length, upstream and ours.

A document's `keywords: list[str]` (or a line item's serial numbers) is matched by stickler with
the Hungarian method on one comparator call per pair of values (its Levenshtein is pure Python),
and matched a second time, on lower-cased text, to document the non-matches. Ours reads both
matchings off vectorised matrices with the engine's own solver (`engine/listmatch.py`
`_ValueListComparator`, `engine/listrecords.py` `_equal_pairs`).

Each document is a `Tagged` record with `n` keywords; the prediction keeps four in five of them,
cuts the last letter off the rest, adds one in ten as new words, and shuffles them. Approaches:

- `upstream`: Strands Evals' `StructuredOutputSimilarity` (no records);
- `engine`: `structsim_nb.StructuredOutputSimilarity(fast_matching=False)` (records on);
- `ours`: `structsim_nb.StructuredOutputSimilarity` with the defaults (records on).

Before timing, `ours` and `engine` must give identical rows (score, pass, reason, label and the
whole metadata, records included, as JSON). Approaches are timed in rotating order, `--runs`
times; the table prints the median ms per document (CPU time of this process), ours / upstream,
and the growth exponent between the shortest and the longest length.

Run: `python bench/value_lists.py [--lengths 10 50 200] [--docs 5] [--runs 3]`. Timing is printed,
never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import random
import statistics
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)
from strands_evals.types.evaluation import EvaluationData, EvaluationOutput

from structsim_nb import StructuredOutputSimilarity

Approach = Callable[[EvaluationData[Any, Any]], list[EvaluationOutput]]


class Tagged(BaseModel):
    """A record with a title and a list of keywords."""

    title: str | None = None
    keywords: list[str] = []


def cases(count: int, length: int, seed: int) -> list[EvaluationData[Any, Any]]:
    """`count` seeded documents of `length` keywords each, the prediction altered as the module docstring says."""
    rng = random.Random(seed)
    out = []
    for index in range(count):
        words = [f"keyword-{rng.randint(0, 10**6)}" for _ in range(length)]
        predicted = [word if rng.random() < 0.8 else word[:-1] for word in words]
        predicted += [f"new-{rng.randint(0, 10**6)}" for _ in range(length // 10)]
        rng.shuffle(predicted)
        out.append(
            EvaluationData(
                name=f"doc-{index}",
                input="",
                expected_output={"title": "t", "keywords": words},
                actual_output={"title": "t", "keywords": predicted},
            )
        )
    return out


def _row(row: EvaluationOutput) -> str:
    return json.dumps([row.score, row.test_pass, row.reason, row.label, row.metadata], default=str)


def per_document(approach: Approach, docs: Sequence[EvaluationData[Any, Any]]) -> float:
    # stickler prints a warning to stdout for every list over 10,000 pairs; keep the table readable.
    with contextlib.redirect_stdout(io.StringIO()):
        start = time.process_time()
        for case in docs:
            approach(case)
        return (time.process_time() - start) / len(docs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=[10, 50, 200], help="keywords per document")
    parser.add_argument("--docs", type=int, default=5, help="documents per length (default 5)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per approach (default 3)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    named: dict[str, Approach] = {
        "upstream": UpstreamSimilarity(Tagged).evaluate,
        "engine": StructuredOutputSimilarity(Tagged, fast_matching=False).evaluate,
        "ours": StructuredOutputSimilarity(Tagged).evaluate,
    }
    print(
        f"lists of values: median ms per document (cpu clock) over {args.runs} runs (python "
        f"{platform.python_version()}, stickler-eval {version('stickler-eval')}, rapidfuzz {version('rapidfuzz')}); "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    print(f"{'values':>6} {'docs':>4}  " + "".join(f"{name:>10}" for name in named) + f"  {'ours/upstream':>14}")
    medians: dict[str, list[float]] = {name: [] for name in named}
    for length in args.lengths:
        docs = cases(args.docs, length, args.seed + length)
        with contextlib.redirect_stdout(io.StringIO()):
            for case in docs:
                if _row(named["ours"](case)[0]) != _row(named["engine"](case)[0]):
                    raise SystemExit(f"{case.name}: the rows of ours and engine differ")
        figures: dict[str, list[float]] = {name: [] for name in named}
        order = list(named)
        for index in range(args.runs):
            for name in order[index % len(order) :] + order[: index % len(order)]:
                figures[name].append(per_document(named[name], docs))
        line = f"{length:>6} {len(docs):>4}  "
        for name in named:
            medians[name].append(statistics.median(figures[name]))
            line += f"{medians[name][-1] * 1e3:>10.2f}"
        print(line + f"  {medians['ours'][-1] / medians['upstream'][-1]:>14.4f}", flush=True)
    if len(args.lengths) >= 2:
        lo, hi = args.lengths[0], args.lengths[-1]
        print(f"growth exponent, {lo} -> {hi} values (slope of log time against log length, first to last):")
        for name in named:
            slope = math.log(medians[name][-1] / medians[name][0]) / math.log(hi / lo)
            print(f"  {name:<9} {slope:.2f}")
    print(f"rows of ours and engine identical on all {len(args.lengths) * args.docs} documents: yes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
