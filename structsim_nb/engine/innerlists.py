"""A list inside a list element, scored for every pair of elements as the engine scores it.

When stickler pairs two lists of elements, it reads `StructuredModel.compare` for every element
pair, and a field holding a list scores there as `compare_field_raw` scores it: the two lists
matched with the Hungarian method (munkres on `1 - similarity`), then the mean of the matched
pairs' scores times the share of items matched, `sum(scores) / k * (k / max(m, n))` for `k =
min(m, n)` pairs summed in the order of the ground truth's items. At 200 elements that is 40,000
small matchings in Python. What is matched on and what is summed depends on the items:

- plain values (`serial_numbers: list[str]`, `values_similarity`): matched on the field's
  comparator, and the matched similarities summed;
- objects whose fields all vectorise (`taxes: list[Tax]`, `objects_similarity`): matched on
  `compare` (the weighted mean of raw field scores), and each matched pair's `compare_with`
  score summed, 0.0 where it is under 0.01 (`compare_unordered_lists`, clipping on).

Both compute the same numbers from one similarity matrix over every item on each side, element
pairs grouped by their two lengths, and score every possible assignment of a group at once. The
engine's solver returns an assignment whose cost (`sum(1 - similarity)`) is optimal, so where
every assignment within `_TIE` of the best cost gives the same final score, that score is the
engine's, bit for bit (the same sums, in the same order). Anywhere else (near ties that would
score differently, lists with more than `_MOST_ASSIGNMENTS` assignments) that pair is scored by
the engine's own `compare_field_raw`.

The engine adds the matched scores with Python's `sum()`, whose rule depends on the interpreter
and the summands: a value list's scores are numpy floats, added one after the other. An object
list's are each pair's `compare_with` score, a Python float or a numpy float depending on what
that pair's fields computed; CPython 3.12 and later add a run of Python floats with Neumaier's
compensation and, from the first numpy float on, one after the other (3.10 and 3.11 add everything
one after the other). Which pairs' scores are numpy floats is not known here, so on such an
interpreter an object list's sum is taken only where every split of its summands into a Python
prefix and a numpy rest gives one value (`"mixed"`); elsewhere the engine scores that pair (found
on 3.13: three parts summed 0.6484848484848484 where the compensated sum gave ...486).
`_mixed_sum_rule` finds out which rule this interpreter's `sum()` follows, on probes with every
split, once; where none matches, every pair of such lists is scored by the engine.
"""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from .pairwise import similarity_matrix

__all__ = ["objects_similarity", "values_scores", "values_similarity"]

#: Cost gap under which two assignments count as tied: munkres works in floating point, so between two
#: assignments this close it could return either; such a pair is scored by the engine unless both give one score.
_TIE = 1e-9
#: Most assignments of two lists enumerated for one pair (6 items against 6); longer lists go to the engine.
_MOST_ASSIGNMENTS = 720
#: Most similarities held at once while weighing assignments (about 16 MB of doubles): pairs go in chunks.
_MOST_CELLS = 2_000_000
#: The engine's bar for a matched pair of objects in a list (`compare_unordered_lists`), and the tolerance of its
#: `ThresholdHelper.is_above_threshold`.
_OBJECT_BAR, _BAR_TOLERANCE = 0.01, 1e-10


def values_similarity(
    comparator: Any,
    field_name: str,
    gt_items: Sequence[Any],
    gt_values: Sequence[list[Any]],
    pred_values: Sequence[list[Any]],
) -> np.ndarray | None:
    """`gt_items[i].compare_field_raw(field_name, pred_values[j])` for every pair where both lists hold values.

    Args:
        comparator: The field's comparator (`_get_comparison_info(field_name).comparator`); it must
            have a vectorised equivalent (`pairwise.VECTORISERS`).
        field_name: The field, for the pairs scored by the engine.
        gt_items: The ground-truth elements (for those pairs).
        gt_values: Each ground-truth element's list, `[]` where it holds none.
        pred_values: Each predicted element's list, `[]` where it holds none.

    Returns:
        A `len(gt_values) x len(pred_values)` array; entries where either list is empty are 0.0 (the
        caller leaves them to the blank rules). None when the comparator raises for a value: the
        engine, comparing pair by pair, then raises what it raises for the first pair it reaches.
    """
    found = values_scores(comparator, field_name, gt_items, gt_values, pred_values)
    return None if found is None else found[0]


def values_scores(
    comparator: Any,
    field_name: str,
    gt_items: Sequence[Any],
    gt_values: Sequence[list[Any]],
    pred_values: Sequence[list[Any]],
    *,
    threshold: float | None = None,
    clip: bool = True,
) -> tuple[np.ndarray, np.ndarray] | None:
    """`values_similarity`, and the same lists' score inside `compare_with`, from one similarity matrix.

    Args:
        comparator, field_name, gt_items, gt_values, pred_values: As `values_similarity`.
        threshold: The field's threshold. In `compare_with` a list scores its matching as
            `compare_unordered_lists` does with it: a matched pair under `threshold` (within 1e-10
            counts as reaching it) counts 0.0, or its similarity when `clip` is False. Default None:
            the second array is the first (every matched pair counts its similarity).
        clip: Whether a matched pair under `threshold` counts 0.0. Default True.

    Returns:
        `(compare_field_raw's scores, compare_with's scores)`, each as `values_similarity` returns
        it (the same array when nothing is clipped); None when the comparator raises for a value.
    """
    flat_gt = [x for v in gt_values for x in v]
    flat_pred = [x for v in pred_values for x in v]
    if not flat_gt or not flat_pred:
        empty = np.zeros((len(gt_values), len(pred_values)))
        return empty, empty
    try:
        sim = similarity_matrix(comparator, flat_gt, flat_pred)
    except Exception:  # noqa: BLE001 - the engine's path raises the engine's own error, in its order
        return None
    # A value list's scores are numpy floats (a clipped pair's a Python 0.0, exact anywhere in the sum), which every
    # known rule adds one after the other.
    if _mixed_sum_rule() is None:
        return None
    rule = "plain"
    raw = _list_scores(sim, sim, rule, _raw_by_engine(field_name, gt_items, pred_values), gt_values, pred_values)
    if threshold is None or not clip:  # (nothing clipped: every matched pair counts its similarity either way)
        return raw, raw
    kept = (sim >= threshold) | (np.abs(sim - threshold) < _BAR_TOLERANCE)
    if kept.all():
        return raw, raw
    # (a clipped pair adds a Python 0.0 among numpy floats: exact, so it sums as the engine's `sum()` does)
    applied = np.where(kept, sim, 0.0)

    def by_engine(i: int, j: int) -> float:
        from stickler.structured_object_evaluator.models.comparison_helper import ComparisonHelper

        found = ComparisonHelper.compare_unordered_lists(
            gt_values[i],
            pred_values[j],
            comparator,
            threshold,
            clip,
            model_cls=type(gt_items[i]),
            field_name=field_name,
        )
        return float(found["overall_score"])

    return raw, _list_scores(sim, applied, rule, by_engine, gt_values, pred_values)


def objects_similarity(
    similarity: np.ndarray,
    scores: np.ndarray,
    field_name: str,
    gt_items: Sequence[Any],
    gt_values: Sequence[list[Any]],
    pred_values: Sequence[list[Any]],
) -> np.ndarray | None:
    """`gt_items[i].compare_field_raw(field_name, pred_values[j])` for every pair where both lists hold objects.

    Args:
        similarity: `a.compare(b)` for every object `a` of the ground-truth lists, one after the
            other, and every object `b` of the predicted ones (`fastmatch.ElementColumns.similarity`):
            what the engine's assignment reads.
        scores: `a.compare_with(b)["overall_score"]` for the same pairs (`ElementColumns.pair_scores`):
            what the engine sums for the assigned pairs.
        field_name: The field, for the pairs scored by the engine.
        gt_items: The ground-truth elements (for those pairs).
        gt_values: Each ground-truth element's list of objects, `[]` where it holds none.
        pred_values: Each predicted element's list of objects, `[]` where it holds none.

    Returns:
        A `len(gt_values) x len(pred_values)` array; entries where either list is empty are 0.0 (the
        caller leaves them to the blank rules). None when this interpreter's `sum()` follows no
        known rule for a mix of Python and numpy floats (`_mixed_sum_rule`): the engine then pairs
        the list.
    """
    rule = _mixed_sum_rule()
    if rule is None:
        return None
    # `unordered_list_metrics`: a matched pair under the bar counts 0.0 (clipping is on for `compare_field_raw`).
    kept = (scores >= _OBJECT_BAR) | (np.abs(scores - _OBJECT_BAR) < _BAR_TOLERANCE)
    applied = np.where(kept, scores, 0.0)
    return _list_scores(
        similarity, applied, rule, _raw_by_engine(field_name, gt_items, pred_values), gt_values, pred_values
    )


def _raw_by_engine(
    field_name: str, gt_items: Sequence[Any], pred_values: Sequence[list[Any]]
) -> Callable[[int, int], float]:
    """The engine's `compare_field_raw` of element pair `(i, j)`'s lists."""
    return lambda i, j: gt_items[i].compare_field_raw(field_name, pred_values[j])  # type: ignore[no-any-return]


def _list_scores(
    similarity: np.ndarray,
    scores: np.ndarray,
    rule: str,
    by_engine: Callable[[int, int], float],
    gt_values: Sequence[list[Any]],
    pred_values: Sequence[list[Any]],
) -> np.ndarray:
    """Every element pair's list score: assignments weighed on `similarity` (item by item over the flattened
    lists), the assigned items' `scores` summed; unsettled pairs `(i, j)` scored by `by_engine(i, j)`."""
    out = np.zeros((len(gt_values), len(pred_values)))
    gt_lengths = np.array([len(v) for v in gt_values], dtype=np.int64)
    pred_lengths = np.array([len(v) for v in pred_values], dtype=np.int64)
    gt_start = np.concatenate(([0], np.cumsum(gt_lengths)))
    pred_start = np.concatenate(([0], np.cumsum(pred_lengths)))
    same = scores is similarity
    # Element pairs grouped by their two list lengths (an empty list on either side is left to the blank rules).
    for m, n in itertools.product(
        np.unique(gt_lengths[gt_lengths > 0]).tolist(), np.unique(pred_lengths[pred_lengths > 0]).tolist()
    ):
        gt_rows, pred_cols = np.flatnonzero(gt_lengths == m), np.flatnonzero(pred_lengths == n)
        rows, cols = np.repeat(gt_rows, pred_cols.size), np.tile(pred_cols, gt_rows.size)
        assignments = math.perm(max(m, n), min(m, n))
        best, settled = np.zeros(rows.size), np.zeros(rows.size, dtype=bool)
        if assignments <= _MOST_ASSIGNMENTS:
            step = max(1, _MOST_CELLS // (assignments * min(m, n)))
            for at in range(0, rows.size, step):
                part = slice(at, at + step)
                gt_index = (gt_start[rows[part]][:, None] + np.arange(m))[:, :, None]
                pred_index = (pred_start[cols[part]][:, None] + np.arange(n))[:, None, :]
                block = similarity[gt_index, pred_index]
                picked = block if same else scores[gt_index, pred_index]
                best[part], settled[part] = _assigned_scores(block, picked, rule)
        out[rows[settled], cols[settled]] = best[settled]
        for i, j in zip(rows[~settled].tolist(), cols[~settled].tolist(), strict=True):
            out[i, j] = by_engine(i, j)
    return out


def _assigned_scores(similarity: np.ndarray, scores: np.ndarray, rule: str) -> tuple[np.ndarray, np.ndarray]:
    """For each `m x n` block: the engine's list score (the assigned `scores` added by `rule`, see `_summed`), and
    whether it is settled (no near tie on `similarity` that would score differently)."""
    m, n = similarity.shape[1:]
    k, most = min(m, n), max(m, n)
    if m <= n:  # each ground-truth item i takes column order[i]: pairs already in the ground truth's order
        orders = np.array(list(itertools.permutations(range(n), m)), dtype=np.int64)
        rows, cols = np.arange(m)[None, :], orders
    else:  # each predicted item j takes row order[j]; the pairs, sorted by row, read as below
        orders = np.array(list(itertools.permutations(range(m), n)), dtype=np.int64)
        by_row = np.argsort(orders, axis=1, kind="stable")
        rows, cols = np.take_along_axis(orders, by_row, axis=1), by_row
    picked = similarity[:, rows, cols]  # (blocks, assignments, k)
    costs = (1.0 - picked).sum(axis=2)
    if scores is not similarity:
        picked = scores[:, rows, cols]
    # The engine's sum of the matched scores: a Python `sum` over the pairs in the ground truth's order.
    total = _summed(picked, rule)
    final = (total / k) * (k / most)
    near = costs <= costs.min(axis=1, keepdims=True) + _TIE
    best = final[np.arange(len(final)), np.argmax(near, axis=1)]
    # (A similarity that is not a number leaves nothing near the best: the engine scores that pair.)
    settled = near.any(axis=1) & np.all(np.where(near, final == best[:, None], True), axis=1)
    return best, settled


def _summed(terms: np.ndarray, rule: str) -> np.ndarray:
    """`sum(row)` along the last axis as this interpreter's `sum()` adds such summands (`_mixed_sum_rule`): from the
    int 0, then one after the other (`"plain"`), or with Neumaier's compensation added at the end when it is a finite
    non-zero (`"neumaier"`, CPython 3.12's `builtin_sum_impl` for Python floats). `"mixed"`: summands each a Python
    or a numpy float, types unknown: the sum where every split (`_split_sum`) gives one value, else NaN."""
    if rule == "plain":
        total = 0.0 + terms[..., 0]
        for t in range(1, terms.shape[-1]):
            total = total + terms[..., t]
        return total
    if rule == "neumaier":
        *_, total = _compensated_prefixes(terms)
        return total
    plain = _summed(terms, "plain")
    agree = np.ones(plain.shape, dtype=bool)
    size = terms.shape[-1]
    # (A Python prefix of one term sums as plain addition: the splits from two on can differ from it.)
    for python, split in enumerate(_compensated_prefixes(terms), start=1):
        if python == 1:
            continue
        for t in range(python, size):
            split = split + terms[..., t]
        agree &= (split == plain) | (np.isnan(split) & np.isnan(plain))
    return np.where(agree, plain, np.nan)


def _compensated_prefixes(terms: np.ndarray) -> Iterator[np.ndarray]:
    """After each of the first 1, 2, ... terms along the last axis: their sum as CPython 3.12's `sum()` of Python floats
    returns it (Neumaier's compensation, added in when a finite non-zero)."""
    total = 0.0 + terms[..., 0]
    compensation = np.zeros_like(total)
    yield total
    for t in range(1, terms.shape[-1]):
        x = terms[..., t]
        step = total + x
        compensation = compensation + np.where(np.abs(total) >= np.abs(x), (total - step) + x, (x - step) + total)
        total = step
        yield np.where((compensation != 0) & np.isfinite(compensation), total + compensation, total)


def _split_sum(terms: Sequence[float], python: int) -> float:
    """CPython 3.12's `sum()` of `terms` whose first `python` are Python floats and the rest numpy floats: the
    prefix added with Neumaier's compensation (added in when a finite non-zero), the rest one after the other."""
    head = float(_summed(np.array([terms[:python]], dtype=np.float64), "neumaier")[0]) if python else 0.0
    for x in terms[python:]:
        head = head + x
    return head


@functools.cache
def _mixed_sum_rule() -> str | None:
    """How this interpreter's `sum()` adds a list of Python and numpy floats, checked on probes with every split
    (a Python prefix, a numpy rest): `"plain"` (one after the other, whatever the types: CPython 3.10 and 3.11),
    `"mixed"` (`_split_sum`: CPython 3.12 and later), or None when neither gives every probe's sum. Either rule adds
    numpy floats one after the other (the split with no Python prefix)."""
    rng = random.Random(20261205)
    probes = [[0.8181818181818182, 0.7272727272727273, 0.4], [1.0, 1e100, 1.0, -1e100], [0.1] * 10]
    probes += [[0.1, 0.2, 0.3, 1e-17], [0.6, 0.3, 0.1], [0.5], [0.0, -0.0]]
    probes += [[rng.random() * 10.0 ** rng.randint(-3, 3) for _ in range(rng.randint(1, 8))] for _ in range(200)]
    for rule in ("plain", "mixed"):
        fits = True
        for probe in probes:
            for python in range(len(probe) + 1):
                terms = [float(x) for x in probe[:python]] + [np.float64(x) for x in probe[python:]]
                want = float(sum(terms))
                got = float(_summed(np.array([probe]), "plain")[0]) if rule == "plain" else _split_sum(probe, python)
                if not (want == got and math.copysign(1.0, want) == math.copysign(1.0, got)):
                    fits = False
                    break
            if not fits:
                break
        if fits:
            return rule
    return None
