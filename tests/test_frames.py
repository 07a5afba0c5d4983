"""Tests for `structsim_nb.frames`: the pure pandas renderers, on hand-built inputs."""

from __future__ import annotations

import math

import pytest

from structsim_nb.frames import (
    CASE_COLUMNS,
    FIELD_COLUMNS,
    NON_MATCH_COLUMNS,
    cases_frame,
    explain_frame,
    fields_frame,
    non_matches_frame,
)


def entry(tp=0, fn=0, fa=0, fd=0, tn=0, mean_score=None):
    data = {"tp": tp, "fn": fn, "fa": fa, "fd": fd, "tn": tn}
    if mean_score is not None:
        data["mean_score"] = mean_score
    return data


class TestCasesFrame:
    def test_columns_dtypes_and_field_columns_in_first_seen_order(self):
        frame = cases_frame(
            [
                {"case": "a", "status": "scored", "score": 1, "tp": 2, "field_scores": {"x": 1.0, "y": 1}},
                {"case": "b", "status": "unreadable", "score": 0.0},
                {"case": "c", "status": "scored", "score": 0.5, "tp": 1, "field_scores": {"z": 0.0, "x": 0.5}},
            ]
        )
        assert list(frame.columns) == [*CASE_COLUMNS, "x", "y", "z"]
        assert list(frame["case"]) == ["a", "b", "c"]
        assert frame["score"].dtype == float
        assert str(frame["tp"].dtype) == "Int64"
        assert frame["tp"].isna().tolist() == [False, True, False]
        assert math.isnan(frame.loc[1, "x"])
        assert math.isnan(frame.loc[2, "y"])
        assert frame.loc[2, "x"] == 0.5
        assert math.isnan(frame.loc[1, "precision"])

    def test_field_named_like_a_fixed_column_is_prefixed(self):
        frame = cases_frame([{"case": "a", "score": 0.5, "field_scores": {"score": 0.25, "reason": 1.0}}])
        assert frame.loc[0, "score"] == 0.5
        assert frame.loc[0, "field:score"] == 0.25
        assert frame.loc[0, "field:reason"] == 1.0

    def test_empty(self):
        frame = cases_frame([])
        assert frame.empty
        assert list(frame.columns) == CASE_COLUMNS


class TestFieldsFrame:
    def test_columns_counts_and_rates(self):
        frame = fields_frame({"a": entry(tp=2, fn=1, fa=1, fd=2, tn=4, mean_score=0.5)})
        assert list(frame.columns) == FIELD_COLUMNS
        row = frame.iloc[0]
        assert (row["tp"], row["fn"], row["fa"], row["fd"], row["tn"], row["errors"]) == (2, 1, 1, 2, 4, 4)
        assert row["precision"] == pytest.approx(2 / 5)  # fp = fa + fd
        assert row["recall"] == pytest.approx(2 / 3)
        assert row["f1"] == pytest.approx(4 / 8)
        assert row["mean_score"] == 0.5
        assert row["depth"] == 0

    def test_undefined_rates_are_nan_not_zero(self):
        row = fields_frame({"blank": entry(tn=3)}).iloc[0]
        assert math.isnan(row["precision"]) and math.isnan(row["recall"]) and math.isnan(row["f1"])
        missed = fields_frame({"missed": entry(fn=2)}).iloc[0]
        assert math.isnan(missed["precision"])
        assert missed["recall"] == 0.0
        assert missed["f1"] == 0.0

    def test_missing_mean_score_is_nan(self):
        frame = fields_frame({"items": entry(tp=1, mean_score=1.0), "items.sku": entry(tp=1)}).set_index("path")
        assert math.isnan(frame.loc["items.sku", "mean_score"])
        assert frame.loc["items", "mean_score"] == 1.0

    def test_groups_worst_first_nan_last_parents_before_children(self):
        metrics = {
            "blank": entry(tn=2),  # f1 NaN: last
            "good": entry(tp=4),  # f1 1.0
            "items": entry(tp=3, fd=1),  # f1 6/7
            "items.qty": entry(tp=3),  # f1 1.0
            "items.sku": entry(tp=1, fd=2),  # f1 0.5
            "items.sku.code": entry(tp=1),
            "bad": entry(fd=2),  # f1 0.0
        }
        frame = fields_frame(metrics)
        assert list(frame["path"]) == ["bad", "items", "items.sku", "items.sku.code", "items.qty", "good", "blank"]
        assert list(frame["depth"]) == [0, 0, 1, 2, 1, 0, 0]
        assert frame.set_index("path").loc["items.sku.code", "parent"] == "items.sku"

    def test_ties_broken_by_more_errors_then_path(self):
        metrics = {
            "b": entry(fn=1),  # f1 0.0, one error
            "a": entry(fn=1),  # f1 0.0, one error
            "c": entry(fn=3),  # f1 0.0, three errors
            "n2": entry(tn=1),
            "n1": entry(tn=1),
        }
        assert list(fields_frame(metrics)["path"]) == ["c", "a", "b", "n1", "n2"]

    def test_child_without_parent_row_sorts_as_a_group(self):
        frame = fields_frame({"orphan.leaf": entry(fd=1), "top": entry(tp=1)})
        assert list(frame["path"]) == ["orphan.leaf", "top"]
        assert frame.iloc[0]["parent"] == "orphan"

    def test_empty(self):
        frame = fields_frame({})
        assert frame.empty
        assert list(frame.columns) == FIELD_COLUMNS


class TestNonMatchesFrame:
    def test_order_values_and_similarity(self):
        rows = [
            {"case": "a", "evaluator": "e", "path": "x", "kind": "missed", "category": "fn", "expected": 1},
            {
                "case": "a",
                "evaluator": "e",
                "path": "items[0]",
                "kind": "wrong",
                "category": "fd",
                "expected": {"sku": "A"},
                "predicted": {"sku": "B"},
                "similarity": 0.25,
                "reason": "below threshold",
                "extra": "dropped",
            },
        ]
        frame = non_matches_frame(rows)
        assert list(frame.columns) == NON_MATCH_COLUMNS
        assert list(frame["path"]) == ["x", "items[0]"]
        assert frame["similarity"].dtype == float
        assert math.isnan(frame.loc[0, "similarity"])
        assert frame.loc[1, "expected"] == {"sku": "A"}
        assert frame.loc[0, "predicted"] is None

    def test_an_object_or_list_value_is_the_frames_own(self):
        row = {"path": "items[0]", "kind": "wrong", "expected": {"sku": "A", "tags": ["x"]}, "predicted": [1, 2]}
        frame = non_matches_frame([row])
        frame.loc[0, "expected"]["tags"].clear()
        frame.loc[0, "predicted"].append(3)
        assert row == {
            "path": "items[0]",
            "kind": "wrong",
            "expected": {"sku": "A", "tags": ["x"]},
            "predicted": [1, 2],
        }

    def test_empty_keeps_columns(self):
        frame = non_matches_frame([])
        assert frame.empty
        assert list(frame.columns) == NON_MATCH_COLUMNS


class TestExplainFrame:
    def test_indexed_by_path_with_why_joined(self):
        frame = explain_frame(
            {
                "a": {"comparator": "Exact", "threshold": 1.0, "weight": 1.0, "why": ["type:str -> L", "name -> E"]},
                "b": {"comparator": "Numeric", "why": "only one"},
            }
        )
        assert list(frame.index) == ["a", "b"]
        columns = ["comparator", "threshold", "weight", "clip_under_threshold", "source", "why", "matching"]
        assert list(frame.columns) == columns
        assert frame.loc["a", "why"] == "type:str -> L; name -> E"
        assert frame.loc["b", "why"] == "only one"
        assert frame.loc["b", "source"] is None
        assert frame.loc["b", "matching"] is None
