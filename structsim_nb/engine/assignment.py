"""The assignment of list elements: the engine's own Hungarian solver, on a vectorised matrix.

stickler's `HungarianMatcher.match` hands `1 - similarity` to `munkres.Munkres.compute`. On the
munkres releases in `_TESTED_MUNKRES`, `compute` gives a matrix of 16 cells or more to its
native kernel (the longer side as columns) and sorts the pairs; `assign` calls the same kernel
on the same doubles without the per-cell Python validation, and anywhere else makes the
engine's own call, so the pairs, ties included, are the ones the engine picks.
`tests/engine/test_fastmatch.py` checks it against the engine's call on tie-heavy matrices.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np
from stickler.algorithms.hungarian import _MUNKRES, make_cost_matrix

logger = logging.getLogger(__name__)

__all__ = ["assign", "assigned_pairs"]

#: munkres releases whose `compute` this module reproduces with the native kernel directly.
_TESTED_MUNKRES = ("3.0.",)


@functools.cache
def _munkres_native() -> Any:
    """munkres' `_native` module, when this is a release whose `compute` `assign` reproduces."""
    try:
        if not version("munkres").startswith(_TESTED_MUNKRES):
            return None
        from munkres import _core, _native
    except (ImportError, PackageNotFoundError):
        return None
    if not (hasattr(_native, "solve_array") and getattr(_core, "_NATIVE_MIN", None) == 16):
        return None
    return _native


def _native_solver() -> tuple[Callable[..., Any], Any, int] | None:
    """The native dense kernel, its failure sentinel and size floor, while it is active."""
    native = _munkres_native()
    if native is None or not native.available():  # the kernel can switch itself off at run time
        return None
    return native.solve_array, native.FAILED, 16


def assign(similarity: np.ndarray) -> list[tuple[int, int]]:
    """The engine's assignment for a pair-similarity matrix: `(gt, pred)` index pairs, by gt.

    stickler's `HungarianMatcher.match` hands `1 - similarity` to `munkres.Munkres.compute`.
    On the munkres releases in `_TESTED_MUNKRES`, `compute` gives a matrix of 16 cells or more
    to its native kernel (the longer side as columns) and sorts the pairs; this calls the same
    kernel on the same doubles without the per-cell Python validation. Anywhere else (small
    matrices, another munkres, the kernel unavailable or declining) it makes the engine's own
    call. Either way the pairs, ties included, are the ones the engine picks.
    """
    rows, cols = similarity.shape
    solver = _native_solver()
    if solver is not None and rows * cols >= solver[2] and rows and cols:
        solve_array, failed, _ = solver
        transposed = rows > cols
        cost = np.ascontiguousarray((1.0 - similarity).T if transposed else 1.0 - similarity, dtype=np.float64)
        got = solve_array(cost)
        if got is not None and got is not failed:
            column = got[0]
            pairs = [(i, int(column[i])) for i in range(cost.shape[0])]
            return sorted((c, r) for r, c in pairs) if transposed else sorted(pairs)
        logger.debug("shape=<%s> | native assignment declined, using the engine's call", similarity.shape)
    return [tuple(pair) for pair in _MUNKRES.compute(make_cost_matrix(similarity, lambda x: 1 - x))]  # type: ignore[misc]


def assigned_pairs(similarity: np.ndarray) -> list[tuple[int, int, Any]]:
    """The engine's matched pairs `(gt, pred, similarity)` for a pair-similarity matrix, as stickler's
    `HungarianMatcher.calculate_metrics` lists them for two lists of more than one pair: `assign`'s pairs, each
    with its similarity as a numpy float."""
    return [(i, j, similarity[i, j]) for i, j in assign(similarity)]
