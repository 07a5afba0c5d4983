"""tolerance: delta +/-1, gold ranges and sibling pairs, and measure keys; never pass or score."""

from __future__ import annotations

import pytest

from structsim_nb.trajectories.static_json import evaluate_static_json

TOL = 1e-12


class TestNumericTolerance:
    def test_delta_1(self) -> None:
        score = evaluate_static_json({"count": 14, "name": "x"}, {"count": 15, "name": "x"})
        count = score.details[0]
        assert (count.match_type, count.similarity, count.accepted, count.numeric) == (
            "partial_delta_1",
            1.0,
            True,
            True,
        )
        assert (count.delta_1_match, count.range_match, count.exact) == (True, None, False)
        assert (score.delta_1_eligible_keys, score.delta_1_value_matches, score.delta_1_match_accuracy) == (1, 1, 1.0)
        assert (score.numeric_gold_keys, score.numeric_value_matches, score.accepted_value_matches) == (1, 1, 2)
        assert score.partial_match_accuracy == 1.0 and abs(score.partial_exact_match_accuracy - 0.5) < TOL
        assert abs(score.partial_similarity_score - 1.0) < TOL
        assert not score.passed and score.score == 0.5  # tolerance never changes pass or score
        far = evaluate_static_json({"count": 14}, {"count": 16})
        assert far.details[0].delta_1_match is False and far.delta_1_match_accuracy == 0.0 and far.details[0].numeric

    @pytest.mark.parametrize(
        "gold",
        [
            "10-20",
            "10..20",
            "10 to 20",
            "10 through 20",
            "20, 10",
            "10\u201320",
            "10\u201420",
            "between 10 and 20",
            "min: 10, max: 20",
            "start=10 end=20",
            "min: 10, avg: 15, max: 20",
            "+10 to +20",
            "minimum: 10; maximum: 20",
        ],
    )
    def test_gold_range_forms(self, gold: str) -> None:
        score = evaluate_static_json({"r": gold}, {"r": 17})
        detail = score.details[0]
        assert (detail.match_type, detail.range_match, detail.accepted, detail.delta_1_match) == (
            "partial_range",
            True,
            True,
            None,
        )
        assert (score.range_eligible_keys, score.range_value_matches, score.range_match_accuracy) == (1, 1, 1.0)
        outside = evaluate_static_json({"r": gold}, {"r": 25}).details[0]
        assert outside.range_match is False and not outside.accepted

    @pytest.mark.parametrize(
        "gold", ["between 10 and 20 hours", "roughly 10-20", "min: 10\nmax: 20", "the band is min: 10, max: 20"]
    )
    def test_a_range_is_the_whole_leaf(self, gold: str) -> None:
        # Upstream anchors each form at both ends (`^...$`, and `.` never crosses a line break): a sentence holding a
        # range is text, so no tolerance applies.
        detail = evaluate_static_json({"r": gold}, {"r": 17}).details[0]
        assert (detail.range_match, detail.numeric, detail.accepted) == (None, False, False)

    def test_sibling_pairs_form_a_range(self) -> None:
        gold = {"window": {"start": 10, "end": 20}, "min": 1, "max": 3}
        score = evaluate_static_json(gold, {"window": {"start": 15, "end": 12}, "min": 2, "max": 9})
        by_key = {d.key: d for d in score.details}
        assert by_key["answer.window.start"].range_match and by_key["answer.window.end"].range_match
        assert by_key["answer.min"].delta_1_match and by_key["answer.max"].range_match is False
        assert score.range_eligible_keys == 4 and score.range_value_matches == 3
        assert abs(score.range_match_accuracy - 0.75) < TOL and abs(score.partial_match_accuracy - 0.75) < TOL

    def test_no_numeric_keys_gives_zero(self) -> None:
        score = evaluate_static_json({"a": "x"}, {"a": "x"})
        assert (score.partial_numeric_match_accuracy, score.range_match_accuracy, score.delta_1_match_accuracy) == (
            0.0,
            0.0,
            0.0,
        )

    def test_measure_keys_restrict_tolerance(self) -> None:
        gold, model = {"count": 14, "year": 2020}, {"count": 15, "year": 2021}
        assert evaluate_static_json(gold, model).partial_match_accuracy == 1.0  # upstream: the year too
        score = evaluate_static_json(gold, model, measure_keys=["answer.count"])
        year = score.details[1]
        assert (year.key, year.accepted, year.numeric, year.delta_1_match) == ("answer.year", False, False, None)
        assert abs(score.partial_match_accuracy - 0.5) < TOL and score.delta_1_eligible_keys == 1
        meta = {"measure_keys": ["answer.count"]}
        assert evaluate_static_json(gold, model, evaluation_metadata=meta) == score
