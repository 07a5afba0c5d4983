"""`compare` on two runs of 10,000 cases x 30 fields: time, peak memory, and how both grow with the cases.

Two runs of one synthetic corpus are scored once with `score_dataset` (seeded, in this process;
about 5 minutes for 20,000 documents on one core) and cached as report files under `--cache`
(default: the system temporary folder), so later runs load them. The schema has 30 flat fields
(text, amounts, counts and dates). The baseline extraction gets about 10% of values wrong or
missing; the candidate starts from the baseline's output and fixes 60% of the errors on
`f00`-`f02` and breaks 5% of the right values on `f03`-`f05`, so the true answer is 3 fields
better, 3 worse, 24 unchanged (printed as a check on the verdicts).

For each size (the first N cases of both runs) it reports, medians of `--runs` interleaved runs:

- `compare s`: `compare(baseline, candidate)` on in-memory reports.
- `ref s`: the reference work, `baseline.fields_frame()` plus `candidate.fields_frame()`: stickler's
  own per-field rollup of both runs, which reads the same rows `compare` does. `x ref` is the ratio.
- `growth`: time at N over time at the smallest N, against the growth in cases (linear: equal).
- `peak MB`: the peak Python heap `compare` allocates (tracemalloc, separate traced run).

Then the interval step alone on the same per-field differences, scipy's percentile bootstrap as
`compare` runs it against BCa, at the smallest and largest size: BCa's jackknife makes it grow
with the square of the cases, which is why `compare` does not use it.

Run: `python bench/compare.py` (sizes 1,000 2,500 5,000 10,000; 3 runs), or `--sizes 500 1000
--runs 1` for a quick look.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import random
import statistics
import string
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import BaseModel, create_model
from scipy import stats

from structsim_nb import StructuredOutputReport, compare, score_dataset
from structsim_nb.comparison.paired import intervals

FIELDS = 30
SEED = 17
KINDS = (str, float, int, datetime.date)
BETTER = ("f00", "f01", "f02")
WORSE = ("f03", "f04", "f05")

Record: type[BaseModel] = create_model(  # type: ignore[call-overload]
    "Record", **{f"f{i:02d}": (KINDS[i % 4] | None, None) for i in range(FIELDS)}
)


def _value(rng: random.Random, kind: type) -> Any:
    if kind is str:
        return "".join(rng.choices(string.ascii_lowercase + " ", k=rng.randint(6, 24))).strip() or "x"
    if kind is float:
        return round(rng.uniform(1.0, 5000.0), 2)
    if kind is int:
        return rng.randint(1, 500)
    return datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(366))


def _wrong(rng: random.Random, value: Any) -> Any:
    """An extraction error: a typo, an amount or count off, a date shifted, or the value missing."""
    if rng.random() < 0.25:
        return None
    if isinstance(value, str):
        i = rng.randrange(len(value))
        return value[:i] + rng.choice(string.ascii_lowercase) + value[i + 1 :] + rng.choice(["", "x", " co"])
    if isinstance(value, float):
        return round(value * rng.choice([0.9, 1.1, 10.0]), 2)
    if isinstance(value, int):
        return value + rng.choice([-1, 1, 10])
    return value + datetime.timedelta(days=rng.choice([-30, -1, 1, 31]))


def corpora(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The baseline and candidate pairs: the same ground truth, the candidate derived from the baseline."""
    rng = random.Random(SEED)
    base, cand = [], []
    for index in range(n):
        truth = {f"f{i:02d}": _value(rng, KINDS[i % 4]) for i in range(FIELDS)}
        before = {key: _wrong(rng, value) if rng.random() < 0.10 else value for key, value in truth.items()}
        after = dict(before)
        for key in BETTER:
            if before[key] != truth[key] and rng.random() < 0.6:
                after[key] = truth[key]
        for key in WORSE:
            if before[key] == truth[key] and rng.random() < 0.05:
                after[key] = _wrong(rng, truth[key])
        name = f"doc-{index:05d}"
        base.append({"name": name, "expected": Record(**truth), "actual": Record(**before)})
        cand.append({"name": name, "expected": Record(**truth), "actual": Record(**after)})
    return base, cand


def load_runs(n: int, cache: Path) -> tuple[StructuredOutputReport, StructuredOutputReport]:
    paths = [cache / f"structsim-bench-compare-{side}-{n}-{SEED}.json" for side in ("base", "cand")]
    if not all(path.exists() for path in paths):
        print(f"scoring 2 x {n:,} documents once (cached in {cache}) ...", flush=True)
        for pairs, path in zip(corpora(n), paths, strict=True):
            score_dataset(pairs, model_cls=Record, workers=1, progress=False).to_file(path)
    return StructuredOutputReport.from_file(paths[0]), StructuredOutputReport.from_file(paths[1])


def head(report: StructuredOutputReport, n: int) -> StructuredOutputReport:
    data = dict(report)
    for key in ("scores", "cases", "test_passes", "reasons", "detailed_results", "diagnoses", "recommendations"):
        data[key] = data[key][:n]
    return StructuredOutputReport.model_construct(**data)


def _timed(function: Any) -> float:
    gc.collect()
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def _peak(function: Any) -> float:
    gc.collect()
    tracemalloc.start()
    function()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2500, 5000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()))
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    base, cand = load_runs(sizes[-1], args.cache)
    subsets = {n: (head(base, n), head(cand, n)) for n in sizes}
    compare(*subsets[sizes[0]])  # imports and caches before anything is timed
    times: dict[tuple[str, int], list[float]] = {}
    for _ in range(args.runs):
        for n in sizes:  # interleaved, so drift in machine load spreads over every size
            b, c = subsets[n]
            times.setdefault(("compare", n), []).append(_timed(lambda b=b, c=c: compare(b, c)))
            times.setdefault(("ref", n), []).append(_timed(lambda b=b, c=c: (b.fields_frame(), c.fields_frame())))
    print(f"\ncompare on two runs of N cases x {FIELDS} fields: median of {args.runs} interleaved runs")
    header = ("N", "compare s", "ref s", "x ref", "growth", "cases", "peak MB", "KB/case")
    print("  ".join(f"{name:>{width}}" for name, width in zip(header, (6, 9, 7, 6, 7, 6, 8, 7), strict=True)))
    first = statistics.median(times[("compare", sizes[0])])
    for n in sizes:
        ours, ref = statistics.median(times[("compare", n)]), statistics.median(times[("ref", n)])
        peak = _peak(lambda n=n: compare(*subsets[n]))
        print(
            f"{n:>6}  {ours:>9.2f}  {ref:>7.2f}  {ours / ref:>6.2f}  {ours / first:>7.2f}  {n / sizes[0]:>6.2f}"
            f"  {peak:>8.1f}  {peak * 1024 / n:>7.1f}"
        )
    result = compare(base, cand)
    fields = result.fields_frame().set_index("path")
    print(
        f"\nverdicts at {sizes[-1]:,} cases: better {sorted(fields.index[fields['verdict'] == 'better'])}, "
        f"worse {sorted(fields.index[fields['verdict'] == 'worse'])} (planted: better {list(BETTER)}, "
        f"worse {list(WORSE)}); {int((fields['verdict'] == 'no evidence').sum())} no evidence"
    )

    print("\nthe interval step alone, one field's differences: percentile (as compare runs it) against BCa")
    print(f"{'N':>6}  {'percentile s':>12}  {'BCa s':>7}  {'BCa / pct':>9}")
    growth = {}
    for n in (sizes[0], sizes[-1]):
        rng = np.random.default_rng(SEED)
        deltas = np.where(rng.random(n) < 0.1, rng.normal(0.05, 0.3, n), 0.0)
        pct = statistics.median(
            _timed(lambda d=deltas: intervals(d[None, :], confidence=0.95, n_resamples=1999, seed=0))
            for _ in range(args.runs)
        )
        bca = statistics.median(
            _timed(
                lambda d=deltas: stats.bootstrap(
                    (d,), np.mean, n_resamples=1999, method="BCa", rng=np.random.default_rng(0), batch=50
                )
            )
            for _ in range(args.runs)
        )
        growth[n] = (pct, bca)
        print(f"{n:>6}  {pct:>12.3f}  {bca:>7.3f}  {bca / pct:>9.2f}")
    (p0, b0), (p1, b1) = growth[sizes[0]], growth[sizes[-1]]
    print(
        f"growth from {sizes[0]:,} to {sizes[-1]:,} cases ({sizes[-1] / sizes[0]:.0f}x): "
        f"percentile {p1 / p0:.1f}x, BCa {b1 / b0:.1f}x"
    )


if __name__ == "__main__":
    main()
