"""static_json: normalisation, flattening, every metric, CAR mode, the evaluator, and each deviation."""

from __future__ import annotations

import pytest
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData

from structsim_nb.errors import StaticJsonError
from structsim_nb.static_json import (
    ASSETOPSBENCH_CAR_TERMS,
    StaticJsonEvaluator,
    evaluate_static_json,
    flatten_answer,
    normalize_value,
    similarity_score,
)

TOL = 1e-12


class TestNormalise:
    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (True, "true"),
            (None, "none"),
            (14.0, "14"),
            (3.50, "3.5"),
            (1e-7, "0"),
            (3.14159265, "3.141593"),
            (7, "7"),
            (" 14 ", "14"),
            ("3.50", "3.5"),
            ("Null", "none"),
            ("  Pump 3 ", "pump 3"),
        ],
    )
    def test_values(self, value: object, expected: str) -> None:
        assert normalize_value(value) == expected

    def test_leaves_are_not_reparsed(self) -> None:
        # AssetOpsBench collapses one-number strings and strips answer words (its bugs 1, 3, 5).
        assert normalize_value("COMP-01") == "comp-01"
        assert normalize_value("Output low") == "output low"
        assert flatten_answer({"a": "1,200"}) == {"answer.a": "1,200"}
        assert flatten_answer({"a": '{"b": 1}'}) == {"answer.a": '{"b": 1}'}


class TestFlatten:
    def test_paths(self) -> None:
        assert flatten_answer({"a": {"b": 2}, "c": [3, {"d": 4}]}) == {
            "answer.a.b": "2",
            "answer.c[0]": "3",
            "answer.c[1].d": "4",
        }

    def test_tuple_lists_and_scalars(self) -> None:
        assert flatten_answer("[('Engines', 5)]") == {"answer[0][0]": "engines", "answer[0][1]": "5"}
        assert flatten_answer(34) == {"answer": "34"}
        assert flatten_answer({}) == {}

    def test_dotted_keys_do_not_collide_with_nesting(self) -> None:
        assert flatten_answer({"a.b": 1}) != flatten_answer({"a": {"b": 1}})
        assert not evaluate_static_json({"a.b": 1}, {"a": {"b": 1}}).passed

    def test_too_deep_is_an_error(self) -> None:
        deep: object = 1
        for _ in range(150):
            deep = {"a": deep}
        with pytest.raises(StaticJsonError, match="nest at most"):
            flatten_answer(deep)


class TestSimilarity:
    @pytest.mark.parametrize(
        ("gold", "model", "expected"),
        [
            ("14", "14", 1.0),
            ("100", "100.5", 0.9),
            ("100", "103", 0.7),
            ("100", "108", 0.5),
            ("100", "120", 0.0),
            ("0", "0.0", 1.0),
            ("0", "1", 0.0),
            ("pump", "pump station", 0.6),
            ("ab", "cd", 0.0),
            ("", "", 1.0),
        ],
    )
    def test_values(self, gold: str, model: str, expected: float) -> None:
        assert abs(similarity_score(gold, model) - expected) < TOL


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
        score = evaluate_static_json({"a": 100, "b": 7}, {"a": 100.5, "b": 7})
        assert abs(score.partial_similarity_score - (0.9 + 1.0) / 2) < TOL
        assert score.details[0].match_type == "partial (0.90)"

    def test_similarity_threshold(self) -> None:
        score = evaluate_static_json({"a": 100}, {"a": 101}, similarity_threshold=0.95)
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


class TestGroundTruthErrors:
    def test_unparseable_structure(self) -> None:
        with pytest.raises(StaticJsonError, match="ground truth must parse"):
            evaluate_static_json("{'energy': 14,", '{"energy": 14}')

    def test_empty_structure(self) -> None:
        with pytest.raises(StaticJsonError, match="flattens to no keys"):
            evaluate_static_json("{}", "{}")


GOLD = '{"clarification": "Which asset do you mean by \'the main unit\'?"}'
META = {
    "mode": "clarification",
    "required_terms": ["main unit"],
    "optional_terms": ["asset"],
    "must_have_exactly_one_mode_key": True,
}


class TestCar:
    def test_pass_with_metadata(self) -> None:
        score = evaluate_static_json(GOLD, '{"clarification": "Which Main Unit?"}', evaluation_metadata=META)
        assert score.passed and score.car_score == 1.0 and score.score == 1.0
        assert score.mode_key_match == 1.0 and score.mode_exactly_one_key == 1.0
        assert score.mode_matched_terms == ["main unit"] and score.mode_term_coverage == 1.0
        assert score.mode_optional_terms == ["asset"] and score.mode_optional_term_coverage == 0.0
        assert [d.match_type for d in score.details] == ["exact", "term_present", "optional_term_missing"]

    def test_wrong_mode(self) -> None:
        score = evaluate_static_json(GOLD, '{"response": "the main unit is pump 3"}', evaluation_metadata=META)
        assert not score.passed
        assert abs(score.car_score - 0.4) < TOL  # terms are still searched in the single value
        assert score.missing_keys == ["answer.clarification"] and score.extra_keys == ["answer.response"]
        assert score.details[0].match_type == "mode_mismatch"

    def test_two_keys_fail_when_exactly_one_is_required(self) -> None:
        answer = '{"clarification": "main unit?", "response": "x"}'
        assert not evaluate_static_json(GOLD, answer, evaluation_metadata=META).passed
        relaxed = {**META, "must_have_exactly_one_mode_key": False}
        score = evaluate_static_json(GOLD, answer, evaluation_metadata=relaxed)
        assert score.passed and score.extra_keys == ["answer.response"]

    def test_metrics(self) -> None:
        score = evaluate_static_json(GOLD, '{"clarification": "which one?"}', evaluation_metadata=META)
        assert (score.total_gold_keys, score.total_model_keys, score.exact_value_matches) == (2, 2, 1)
        assert abs(score.recall - 0.5) < TOL and abs(score.car_score - 0.6) < TOL and not score.passed

    def test_derived_without_metadata(self) -> None:
        score = evaluate_static_json(GOLD, '{"clarification": "Do you mean the main unit?"}')
        assert score.mode_required_terms == ["main unit"] and score.passed

    def test_identifiers_and_yes_no_are_derived(self) -> None:
        score = evaluate_static_json('{"response": "No, PMP42144 is offline"}', '{"response": "no: pmp42144 down"}')
        assert score.mode_required_terms == ["pmp42144", "no"] and score.passed

    def test_allowlist_is_an_argument(self) -> None:
        gold = '{"abstain": "I cannot determine this from the dataset"}'
        assert evaluate_static_json(gold, '{"abstain": "sorry"}').mode_required_terms == []
        score = evaluate_static_json(gold, '{"abstain": "sorry"}', car_allowlist=ASSETOPSBENCH_CAR_TERMS)
        assert score.mode_required_terms == ["cannot determine", "dataset"] and not score.passed

    def test_apostrophes_do_not_open_quotes(self) -> None:
        score = evaluate_static_json('{"clarification": "It doesn\'t say which \'pump\' you mean"}', "{}")
        assert score.mode_required_terms == ["pump"]

    def test_dict_values_keep_their_capitals_for_matching(self) -> None:
        answer = '{"clarification": {"question": "Which MAIN UNIT?"}}'
        assert evaluate_static_json(GOLD, answer, evaluation_metadata=META).passed

    def test_coverage_needed_is_configurable(self) -> None:
        meta = {**META, "required_terms": ["main unit", "asset"], "required_term_coverage": 1.0}
        assert not evaluate_static_json(GOLD, '{"clarification": "main unit?"}', evaluation_metadata=meta).passed
        del meta["required_term_coverage"]
        assert evaluate_static_json(GOLD, '{"clarification": "main unit?"}', evaluation_metadata=meta).passed

    @pytest.mark.parametrize(
        ("gold", "meta", "match"),
        [
            (GOLD, {"required_terms": ["x"]}, "mode must be one of"),
            (GOLD, {"mode": "answer"}, "mode must be one of"),
            (GOLD, {"mode": "clarification", "requried_terms": ["x"]}, "keys must be among"),
            ("34", {"mode": "response"}, "must be a JSON object"),
            (GOLD, {"mode": "clarification", "required_terms": [1]}, "list of strings"),
        ],
    )
    def test_bad_metadata_raises(self, gold: str, meta: dict, match: str) -> None:
        with pytest.raises(StaticJsonError, match=match):
            evaluate_static_json(gold, "{}", evaluation_metadata=meta)


class TestEvaluator:
    def test_row(self) -> None:
        (row,) = StaticJsonEvaluator().evaluate(
            EvaluationData(input="", actual_output='```json\n{"a": 1}\n```', expected_output="{'a': 1}")
        )
        assert row.test_pass and row.score == 1.0 and row.label == "static_json"
        assert row.metadata["model_read_as"] == "fenced" and row.reason == "strict structured match"

    def test_metadata_from_the_case(self) -> None:
        case = EvaluationData(
            input="",
            actual_output='{"clarification": "main unit?"}',
            expected_output=GOLD,
            metadata={"evaluation_metadata": META},
        )
        (row,) = StaticJsonEvaluator().evaluate(case)
        assert row.test_pass and row.metadata["car_score"] == 1.0

    def test_not_applicable_without_ground_truth(self) -> None:
        (row,) = StaticJsonEvaluator().evaluate(EvaluationData(input="", actual_output="{}"))
        assert row.test_pass and row.label == NOT_APPLICABLE

    def test_unscorable_case(self) -> None:
        (row,) = StaticJsonEvaluator().evaluate(EvaluationData(input="", actual_output="{}", expected_output="{'a':"))
        assert not row.test_pass and row.metadata == {"error": "unscorable"} and "ground truth" in row.reason
