"""Tests for `structsim_nb.plot.forest`: a forest plot of per-field differences, read back from the Axes."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from structsim_nb import plot


def _tick_labels(ax) -> list[str]:
    return [label.get_text() for label in ax.get_yticklabels()]


class TestForest:
    @pytest.fixture
    def frame(self) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "path": ["invoice_date", "total_amount", "line_items", "vendor_name", "invoice_id"],
                "delta": [0.12, -0.05, 0.01, 0.0, math.nan],
                "ci_low": [0.07, -0.09, -0.02, math.nan, math.nan],
                "ci_high": [0.17, -0.01, 0.04, math.nan, math.nan],
                "verdict": ["better", "worse", "no evidence", "no evidence", "no evidence"],
                "n_cases": [1000, 1000, 1000, 1000, 0],
            }
        )

    def test_dots_intervals_colours_and_counts(self, frame):
        ax = plot.forest(frame)
        points = {collection.get_label(): np.asarray(collection.get_offsets()) for collection in ax.collections}
        assert points["better"].tolist() == [[0.12, 0.0]]
        assert points["worse"].tolist() == [[-0.05, 1.0]]
        assert points["no evidence"][:, 1].tolist() == [2.0, 3.0]  # the NaN delta has no dot
        intervals = [line for line in ax.get_lines() if line.get_linestyle() == "-"]
        assert [tuple(line.get_xdata()) for line in intervals] == [(0.07, 0.17), (-0.09, -0.01), (-0.02, 0.04)]
        assert [tuple(line.get_ydata()) for line in intervals] == [(0, 0), (1, 1), (2, 2)]
        assert intervals[0].get_color() == plot.COLOURS["better"]
        assert intervals[1].get_color() == plot.COLOURS["worse"]
        assert _tick_labels(ax) == frame["path"].tolist()
        [counts] = [child for child in ax.get_children() if type(child).__name__ == "SecondaryAxis"]
        assert [label.get_text() for label in counts.get_yticklabels()] == ["n=1000"] * 4 + ["n=0"]
        assert "no estimate" in [text.get_text().strip() for text in ax.texts]
        zero = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
        assert zero[0].get_xdata()[0] == 0.0

    def test_bad_frames_are_refused(self, frame):
        with pytest.raises(ValueError, match="lacks ci_low, ci_high"):
            plot.forest(frame.drop(columns=["ci_low", "ci_high"]))
        with pytest.raises(ValueError, match="empty"):
            plot.forest(frame.iloc[:0])
        with pytest.raises(ValueError, match="verdict must be one of .* got 'improved'"):
            plot.forest(frame.assign(verdict="improved"))


def test_a_comparison_draws_its_forest_through_plot_fields():
    from structsim_nb import compare, score_dataset
    from structsim_nb.demo import Invoice, synthetic_invoice_pairs

    pairs = synthetic_invoice_pairs(30, line_items=(1, 2), seed=3)
    fixed = [{**pair, "actual": pair["expected"]} if i % 2 else pair for i, pair in enumerate(pairs)]
    before = score_dataset(pairs, model_cls=Invoice, workers=1, progress=False)
    after = score_dataset(fixed, model_cls=Invoice, workers=1, progress=False)
    result = compare(before, after)
    ax = result.plot.fields()
    labels = [label.get_text() for label in ax.get_yticklabels()]
    assert labels == result.fields_frame().dropna(subset=["delta"])["path"].tolist()
    assert [label.get_text() for label in result.plot.fields(top=2).get_yticklabels()] == labels[:2]
