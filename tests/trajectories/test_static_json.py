"""static_json: every general metric, the rationale, ground-truth errors, and the public names."""

from __future__ import annotations

import pytest
from helpers import CAR_GOLD, CAR_META

from structsim_nb.errors import StaticJsonError
from structsim_nb.trajectories import car, choice, leaves, static_json, static_score
from structsim_nb.trajectories.static_json import evaluate_static_json, rationale

TOL = 1e-12
GOLD, META = CAR_GOLD, CAR_META


class TestGeneralMetrics:
    def test_reference_example(self) -> None:
        score = evaluate_static_json("{'energy': 14, 'material': 48}", '{"energy":14,"material":27}')
        assert (score.passed, score.score) == (False, 0.5)
        for name in ("partial_exact_match_accuracy", "precision", "recall", "f1", "partial_similarity_score"):
            assert abs(getattr(score, name) - 0.5) < TOL
        assert score.strict_exact_match_accuracy == 0.0
        assert (score.total_gold_keys, score.total_model_keys, score.matched_keys, score.exact_value_matches) == (
            2,
            2,
            2,
            1,
        )
        assert score.missing_keys == score.extra_keys == []
        assert [(d.key, d.match_type) for d in score.details] == [
            ("answer.energy", "exact"),
            ("answer.material", "mismatch"),
        ]

    def test_strict_match_passes(self) -> None:
        score = evaluate_static_json('{"a": 1, "b": [1, 2]}', "Final Answer: {'b': [1, 2], 'a': 1.0}")
        assert score.passed and score.score == 1.0 and score.model_read_as == "prefixed"

    def test_list_order_matters(self) -> None:
        assert not evaluate_static_json("[1, 2]", "[2, 1]").passed

    def test_missing_and_extra_keys(self) -> None:
        score = evaluate_static_json({"a": 1, "b": 2}, {"a": 1, "c": 3})
        assert score.missing_keys == ["answer.b"] and score.extra_keys == ["answer.c"]
        assert [d.match_type for d in score.details] == ["exact", "missing", "extra"]
        assert score.details[1].model_value == "MISSING" and score.details[2].gold_value == "NOT_IN_GOLD"
        assert abs(score.precision - 0.5) < TOL and abs(score.recall - 0.5) < TOL

    def test_partial_similarity_with_numeric_closeness(self) -> None:
        score = evaluate_static_json({"a": 1000, "b": 7}, {"a": 1005, "b": 7})
        assert abs(score.partial_similarity_score - (0.9 + 1.0) / 2) < TOL
        assert score.details[0].match_type == "partial (0.90)"

    def test_similarity_threshold(self) -> None:
        score = evaluate_static_json({"a": 100}, {"a": 103}, similarity_threshold=0.95)
        assert score.details[0].match_type == "mismatch"

    def test_omitting_a_key_does_not_beat_answering_it_wrong(self) -> None:
        omitted = evaluate_static_json({"a": 1, "b": 2}, {"a": 1})
        wrong = evaluate_static_json({"a": 1, "b": 2}, {"a": 1, "b": 3})
        assert omitted.f1 <= wrong.f1
        assert abs(omitted.precision - 0.5) < TOL  # AssetOpsBench: 1.0

    def test_count_answers(self) -> None:
        assert evaluate_static_json("34", "The answer is 34.").passed
        assert not evaluate_static_json("1", "The pump failed in Step 1.").passed

    def test_text_model_answer_is_one_leaf(self) -> None:
        score = evaluate_static_json({"a": 1}, "I do not know")
        assert score.extra_keys == ["answer"] and score.missing_keys == ["answer.a"] and score.model_read_as == "text"

    def test_plain_text_gold(self) -> None:
        assert evaluate_static_json("Pump", "pump").passed

    def test_final_structure_is_scored_not_the_draft(self) -> None:
        assert evaluate_static_json('{"a": 2}', 'Draft {"a": 1}\nFixed: {"a": 2}').passed


class TestRationale:
    def test_rationale_keeps_upstreams_words(self) -> None:

        assert rationale(evaluate_static_json("{'a': 1}", "{'a': 1}")) == "strict structured match"
        assert rationale(evaluate_static_json(GOLD, '{"clarification": "main unit?"}')) == "strict structured match"
        wrong = rationale(evaluate_static_json("{'a': 1}", "{'a': 2}"))
        assert wrong == "structured answer differs from ground truth; wrong: answer.a"


class TestGroundTruthErrors:
    def test_unparseable_structure(self) -> None:
        with pytest.raises(StaticJsonError, match="ground truth must parse"):
            evaluate_static_json("{'energy': 14,", '{"energy": 14}')

    def test_empty_structure(self) -> None:
        with pytest.raises(StaticJsonError, match="flattens to no keys"):
            evaluate_static_json("{}", "{}")


def test_the_names_of_its_parts_stay_importable_from_static_json() -> None:
    parts = (car, choice, leaves, static_score)
    for name in static_json.__all__:
        home = next((part for part in parts if name in part.__all__), static_json)
        assert getattr(static_json, name) is getattr(home, name), name
