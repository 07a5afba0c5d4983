"""Tests for `structsim_nb.plot.bins`: the score bins the chart and the page's histogram share."""

from __future__ import annotations

import numpy as np
import pandas as pd
from hypothesis import given
from hypothesis import strategies as st

from structsim_nb.plot.bins import OUTCOMES, bin_counts, bin_index, score_groups


def test_a_case_on_the_pass_line_counts_right_of_it():
    counts = bin_counts(pd.Series([0.7, 0.6999, 1.0, 0.0]), 20)
    assert counts[14] == 1 and counts[13] == 1 and counts[19] == 1 and counts[0] == 1


def test_every_bin_edge_opens_its_bin_whatever_the_rounding():
    for bins in (5, 10, 20, 50):
        edges = pd.Series([k / bins for k in range(bins)])
        assert bin_index(edges, bins).tolist() == list(range(bins))


def test_out_of_range_scores_count_in_the_end_bins_and_blank_or_infinite_ones_at_0():
    # (at 0 as the page's script counts JSON's null, which is how the page writes an infinity)
    values = pd.Series([-0.5, 1.5, float("nan"), float("inf"), float("-inf"), None], dtype=float)
    assert bin_index(values, 20).tolist() == [0, 19, 0, 0, 0, 0]
    assert bin_index(values.astype("Float64"), 20).tolist() == [0, 19, 0, 0, 0, 0]  # pandas' NA too


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), max_size=50), st.integers(min_value=1, max_value=40))
def test_counts_add_up_and_each_score_lies_in_its_bin(scores, bins):
    values = pd.Series(scores, dtype=float)
    index = bin_index(values, bins)
    assert bin_counts(values, bins).sum() == len(scores)
    for score, at in zip(scores, index, strict=True):
        # The bin's lower edge is at or below the score, up to the slack; the upper edge above it, but the last.
        assert at / bins <= score + 1e-9
        assert score < (at + 1) / bins or at == bins - 1


def test_groups_split_by_outcome_and_leave_not_applicable_rows_out():
    cases = pd.DataFrame(
        {
            "status": ["scored", "scored", "error", "unreadable", "not_applicable"],
            "score": [0.9, 0.4, 0.0, 0.0, np.nan],
            "test_pass": [True, False, False, False, False],
        }
    )
    groups = score_groups(cases)
    assert tuple(groups) == OUTCOMES
    assert [len(groups[name]) for name in OUTCOMES] == [1, 1, 2]
