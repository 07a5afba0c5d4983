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
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .pairwise import similarity_matrix

if TYPE_CHECKING:
    from .fastmatch import ElementPlan

__all__ = ["objects_similarity", "values_similarity"]

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
    flat_gt = [x for v in gt_values for x in v]
    flat_pred = [x for v in pred_values for x in v]
    if not flat_gt or not flat_pred:
        return np.zeros((len(gt_values), len(pred_values)))
    try:
        sim = similarity_matrix(comparator, flat_gt, flat_pred)
    except Exception:  # noqa: BLE001 - the engine's path raises the engine's own error, in its order
        return None
    return _list_scores(sim, sim, field_name, gt_items, gt_values, pred_values)


def objects_similarity(
    plan: ElementPlan,
    field_name: str,
    gt_items: Sequence[Any],
    gt_values: Sequence[list[Any]],
    pred_values: Sequence[list[Any]],
) -> np.ndarray | None:
    """`gt_items[i].compare_field_raw(field_name, pred_values[j])` for every pair where both lists hold objects.

    Args:
        plan: The vectorised plan of the objects' class (`fastmatch.plan_for`); every object in the
            lists is an instance of that class.
        field_name: The field, for the pairs scored by the engine.
        gt_items: The ground-truth elements (for those pairs).
        gt_values: Each ground-truth element's list of objects, `[]` where it holds none.
        pred_values: Each predicted element's list of objects, `[]` where it holds none.

    Returns:
        A `len(gt_values) x len(pred_values)` array; entries where either list is empty are 0.0 (the
        caller leaves them to the blank rules). None when a field of an object holds something the
        plan cannot read (`ElementColumns.supported`): the engine then pairs the list.
    """
    from .fastmatch import ElementColumns

    flat_gt = [x for v in gt_values for x in v]
    flat_pred = [x for v in pred_values for x in v]
    if not flat_gt or not flat_pred:
        return np.zeros((len(gt_values), len(pred_values)))
    columns = ElementColumns(plan, flat_gt, flat_pred)
    if not columns.supported:
        return None
    a, b = len(flat_gt), len(flat_pred)
    scores = columns.pair_scores(np.repeat(np.arange(a), b), np.tile(np.arange(b), a)).reshape(a, b)
    # `unordered_list_metrics`: a matched pair under the bar counts 0.0 (clipping is on for `compare_field_raw`).
    kept = (scores >= _OBJECT_BAR) | (np.abs(scores - _OBJECT_BAR) < _BAR_TOLERANCE)
    return _list_scores(columns.similarity(), np.where(kept, scores, 0.0), field_name, gt_items, gt_values, pred_values)


def _list_scores(
    similarity: np.ndarray,
    scores: np.ndarray,
    field_name: str,
    gt_items: Sequence[Any],
    gt_values: Sequence[list[Any]],
    pred_values: Sequence[list[Any]],
) -> np.ndarray:
    """Every element pair's list score: assignments weighed on `similarity` (item by item over the flattened
    lists), the assigned items' `scores` summed; unsettled pairs scored by the engine."""
    out = np.zeros((len(gt_values), len(pred_values)))
    gt_start = np.cumsum([0] + [len(v) for v in gt_values])
    pred_start = np.cumsum([0] + [len(v) for v in pred_values])
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for i, gt in enumerate(gt_values):
        if gt:
            for j, pred in enumerate(pred_values):
                if pred:
                    groups.setdefault((len(gt), len(pred)), []).append((i, j))
    same = scores is similarity
    for (m, n), pairs in groups.items():
        rows = np.array([i for i, _ in pairs])
        cols = np.array([j for _, j in pairs])
        assignments = math.perm(max(m, n), min(m, n))
        best, settled = np.zeros(len(pairs)), np.zeros(len(pairs), dtype=bool)
        if assignments <= _MOST_ASSIGNMENTS:
            step = max(1, _MOST_CELLS // (assignments * min(m, n)))
            for at in range(0, len(pairs), step):
                part = slice(at, at + step)
                gt_index = (gt_start[rows[part]][:, None] + np.arange(m))[:, :, None]
                pred_index = (pred_start[cols[part]][:, None] + np.arange(n))[:, None, :]
                block = similarity[gt_index, pred_index]
                best[part], settled[part] = _assigned_scores(block, block if same else scores[gt_index, pred_index])
        out[rows[settled], cols[settled]] = best[settled]
        for i, j in zip(rows[~settled].tolist(), cols[~settled].tolist(), strict=True):
            out[i, j] = gt_items[i].compare_field_raw(field_name, pred_values[j])
    return out


def _assigned_scores(similarity: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each `m x n` block: the engine's list score (the assigned `scores`), and whether it is settled (no near
    tie on `similarity` that would score differently)."""
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
    total = picked[:, :, 0]
    for t in range(1, k):
        total = total + picked[:, :, t]
    final = (total / k) * (k / most)
    near = costs <= costs.min(axis=1, keepdims=True) + _TIE
    best = final[np.arange(len(final)), np.argmax(near, axis=1)]
    # (A similarity that is not a number leaves nothing near the best: the engine scores that pair.)
    settled = near.any(axis=1) & np.all(np.where(near, final == best[:, None], True), axis=1)
    return best, settled
