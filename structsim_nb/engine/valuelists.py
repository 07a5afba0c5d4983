"""A list of plain values inside a list element, scored for every pair of elements as the engine scores it.

When stickler pairs two lists of elements, it reads `StructuredModel.compare` for every element
pair, and a field holding a list of values (`serial_numbers: list[str]`) scores there as
`compare_field_raw` scores it: the two lists matched with the Hungarian method on the field's
comparator (`HungarianMatcher`, munkres on `1 - similarity`), then the mean of the matched
similarities times the share of items matched, `sum(scores) / k * (k / max(m, n))` for `k =
min(m, n)` pairs summed in the order of the ground truth's items. At 200 elements that is 40,000
small matchings in Python.

`values_similarity` computes the same numbers from one similarity matrix over every value on
each side (`pairwise.similarity_matrix`), element pairs grouped by their two lengths. For each
group it scores every possible assignment at once. The engine's solver returns an assignment
whose cost (`sum(1 - s)`) is optimal, so where every assignment within `_TIE` of the best cost
gives the same final score, that score is the engine's, bit for bit (the same sums, in the same
order). Anywhere else (near ties that would score differently, lists with more than
`_MOST_ASSIGNMENTS` assignments) that pair is scored by the engine's own `compare_field_raw`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from .pairwise import similarity_matrix

__all__ = ["values_similarity"]

#: Cost gap under which two assignments count as tied: munkres works in floating point, so between two
#: assignments this close it could return either; such a pair is scored by the engine unless both give one score.
_TIE = 1e-9
#: Most assignments of two lists enumerated for one pair (6 values against 6); longer lists go to the engine.
_MOST_ASSIGNMENTS = 720
#: Most similarities held at once while weighing assignments (about 16 MB of doubles): pairs go in chunks.
_MOST_CELLS = 2_000_000


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
    out = np.zeros((len(gt_values), len(pred_values)))
    gt_start = np.cumsum([0] + [len(v) for v in gt_values])
    pred_start = np.cumsum([0] + [len(v) for v in pred_values])
    flat_gt = [x for v in gt_values for x in v]
    flat_pred = [x for v in pred_values for x in v]
    if not flat_gt or not flat_pred:
        return out
    try:
        sim = similarity_matrix(comparator, flat_gt, flat_pred)
    except Exception:  # noqa: BLE001 - the engine's path raises the engine's own error, in its order
        return None
    groups: dict[tuple[int, int], list[tuple[int, int]]] = {}
    for i, gt in enumerate(gt_values):
        if gt:
            for j, pred in enumerate(pred_values):
                if pred:
                    groups.setdefault((len(gt), len(pred)), []).append((i, j))
    for (m, n), pairs in groups.items():
        rows = np.array([i for i, _ in pairs])
        cols = np.array([j for _, j in pairs])
        assignments = math.perm(max(m, n), min(m, n))
        scores, settled = np.zeros(len(pairs)), np.zeros(len(pairs), dtype=bool)
        if assignments <= _MOST_ASSIGNMENTS:
            step = max(1, _MOST_CELLS // (assignments * min(m, n)))
            for at in range(0, len(pairs), step):
                part = slice(at, at + step)
                gt_index = (gt_start[rows[part]][:, None] + np.arange(m))[:, :, None]
                pred_index = (pred_start[cols[part]][:, None] + np.arange(n))[:, None, :]
                scores[part], settled[part] = _assigned_scores(sim[gt_index, pred_index], m, n)
        out[rows[settled], cols[settled]] = scores[settled]
        for i, j in zip(rows[~settled].tolist(), cols[~settled].tolist(), strict=True):
            out[i, j] = gt_items[i].compare_field_raw(field_name, pred_values[j])
    return out


def _assigned_scores(block: np.ndarray, m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """For each `m x n` block of similarities: the engine's list score, and whether it is settled (no near tie
    that would score differently)."""
    k, most = min(m, n), max(m, n)
    if m <= n:  # each ground-truth item i takes column order[i]: pairs already in the ground truth's order
        orders = np.array(list(itertools.permutations(range(n), m)), dtype=np.int64)
        picked = block[:, np.arange(m)[None, :], orders]  # (blocks, assignments, m)
    else:  # each predicted item j takes row order[j]; the pairs, sorted by row, read as below
        orders = np.array(list(itertools.permutations(range(m), n)), dtype=np.int64)
        by_row = np.argsort(orders, axis=1, kind="stable")
        picked = block[:, np.take_along_axis(orders, by_row, axis=1), by_row]
    costs = (1.0 - picked).sum(axis=2)
    # The engine's sum of the matched similarities: a Python `sum` over the pairs in the ground truth's order.
    total = picked[:, :, 0]
    for t in range(1, k):
        total = total + picked[:, :, t]
    final = (total / k) * (k / most)
    near = costs <= costs.min(axis=1, keepdims=True) + _TIE
    best = final[np.arange(len(final)), np.argmax(near, axis=1)]
    # (A similarity that is not a number leaves nothing near the best: the engine scores that pair.)
    settled = near.any(axis=1) & np.all(np.where(near, final == best[:, None], True), axis=1)
    return best, settled
