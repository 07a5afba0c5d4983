"""static_json: normalisation, flattening, every metric, CAR mode, the evaluator, and each deviation."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData

from structsim_nb.errors import StaticJsonError
from structsim_nb.trajectories.static_json import (
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
            ("1e3", "1000"),
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


class TestChoice:
    @pytest.mark.parametrize(
        ("answer", "letter"),
        [
            ("B", "B"),
            ("(c)", "C"),
            ("Answer: b", "B"),
            ("Option D.", "D"),
            ("Final Answer: [A]", "A"),
            ("I compared the options.\nThe answer is (c).", "C"),
            ("Thinking it through.\nI pick B.", "B"),
            ("Sure.\nthe final answer is d", "D"),
            ("```\nC\n```", "C"),
            ("<think>A</think>Output: D", "D"),
        ],
    )
    def test_extracted(self, answer: str, letter: str) -> None:
        from structsim_nb.trajectories.static_json import extract_choice

        assert extract_choice(answer) == letter
        score = evaluate_static_json(letter.lower(), answer)
        assert score.passed and score.model_read_as == "choice"

    def test_article_a_is_not_a_choice(self) -> None:
        from structsim_nb.trajectories.static_json import extract_choice

        assert extract_choice("the best pick is a") is None  # AssetOpsBench reads A
        assert not evaluate_static_json("A", "the best pick is a").passed
        assert not evaluate_static_json("A", "B").passed

    def test_only_for_single_letter_gold(self) -> None:
        assert evaluate_static_json("AB", "Answer: AB").model_read_as == "text"


class TestLiteralScalars:
    @pytest.mark.parametrize(
        ("gold", "model"), [("Pump 3", '"Pump 3"'), ("pump 3", "'Pump 3'"), ("none", "null"), ("true", "True")]
    )
    def test_whole_text_scalar_literals(self, gold: str, model: str) -> None:
        score = evaluate_static_json(gold, model)
        assert score.passed and score.model_read_as == "literal"

    def test_rationale_keeps_upstreams_words(self) -> None:
        from structsim_nb.trajectories.static_json import rationale

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
        assert score.partial_match_accuracy == score.partial_exact_match_accuracy == score.recall
        assert score.accepted_value_matches == 1 and score.matched_keys == 1
        assert abs(score.partial_similarity_score - 0.5) < TOL  # the optional term is left out
        zero = ("numeric_gold_keys", "range_eligible_keys", "delta_1_eligible_keys", "range_match_accuracy")
        assert all(getattr(score, name) == 0 for name in zero)

    def test_non_object_answers(self) -> None:
        text = evaluate_static_json(GOLD, "Which main unit?", evaluation_metadata=META)
        assert text.extra_keys == ["answer"] and text.details[0].model_value == "INVALID" and not text.passed
        assert (text.total_gold_keys, text.total_model_keys, text.precision) == (2, 3, 0.0)
        assert evaluate_static_json(GOLD, "null", evaluation_metadata=META).extra_keys == []

    def test_unknown_metadata_keys_and_null_terms_are_ignored(self) -> None:
        meta = {**META, "notes": "pilot", "optional_terms": None}
        score = evaluate_static_json(GOLD, '{"clarification": "main unit?"}', evaluation_metadata=meta)
        assert score.passed and score.mode_optional_terms == [] and score.mode_optional_term_coverage is None
        terms = {**META, "required_terms": "The Main-Unit"}
        assert evaluate_static_json(GOLD, "{}", evaluation_metadata=terms).mode_required_terms == ["main unit"]

    def test_derived_without_metadata(self) -> None:
        score = evaluate_static_json(GOLD, '{"clarification": "Do you mean the main unit?"}')
        assert score.mode_required_terms == ["main unit"] and score.passed

    def test_identifiers_and_yes_no_are_derived(self) -> None:
        score = evaluate_static_json('{"response": "No, PMP42144 is offline"}', '{"response": "no: pmp42144 down"}')
        assert score.mode_required_terms == ["pmp42144", "no"] and score.passed
        gold = '{"response": "Yes FC-101 and PMP42144x, not AB12c"}'
        assert evaluate_static_json(gold, "{}", car_allowlist=()).mode_required_terms == ["fc 101", "yes"]

    def test_allowlist_is_an_argument_defaulting_to_upstreams(self) -> None:
        gold = '{"abstain": "I cannot determine this from the dataset"}'
        assert evaluate_static_json(gold, '{"abstain": "sorry"}', car_allowlist=()).mode_required_terms == []
        score = evaluate_static_json(gold, '{"abstain": "sorry"}')
        assert score.mode_required_terms == ["cannot determine", "dataset"] and not score.passed
        assert evaluate_static_json(gold, '{"abstain": "sorry"}', car_allowlist=ASSETOPSBENCH_CAR_TERMS) == score
        assert evaluate_static_json('{"clarification": "Which pump?"}', '{"clarification": "which pump"}').passed

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
            ("34", {"mode": "response"}, "must be a JSON object"),
            (GOLD, {"mode": "clarification", "required_terms": {"x": 1}}, "list of terms"),
            ("{'a': 1}", {"measure_keys": 3}, "measure_keys must be a list"),
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


class TestHostileInput:
    """Linear scanning, huge numbers and self-referencing values: a result or a StaticJsonError, never a hang."""

    @pytest.mark.parametrize(
        ("answer", "letter"),
        [
            ("I compared them all. The answer: c", "C"),
            ("Thinking.\n\nFinal Answer: (b)\n", "B"),
            ("B" + " " * 50_000 + "x", None),
            ("answer" + " " * 50_000 + "B", "B"),
            ("```\n" + " " * 20_000 + "D\n```", "D"),
            ("```D```", "D"),
            ("hmm\n" + "x" * 600 + " so the answer is C", "C"),  # a last line over 500 characters is read
        ],
    )
    def test_choice_letters_in_long_or_padded_answers(self, answer: str, letter: str | None) -> None:
        from structsim_nb.trajectories.static_json import extract_choice

        assert extract_choice(answer) == letter

    def test_a_marker_inside_a_word_is_not_a_marker(self) -> None:
        from structsim_nb.trajectories.static_json import extract_choice

        assert extract_choice("the counteranswer: x\nI pick D.") == "D"

    @pytest.mark.parametrize(
        "text",
        [
            "AB12 CD-34 x-EF5 GH6-IJ ab12 KLM MN-7- OP8_ Q9R ST--9 UV9x WX-Y1 AB1-",
            "PMP42144 and FC101, 2AB3 -ZZ9- ZZ-9-ZZ-",
            "A" * 200 + "1",
            "A" * 200 + "1a",
        ],
    )
    def test_identifiers_match_upstreams_pattern(self, text: str) -> None:
        import re

        from structsim_nb.trajectories.static_json import _identifiers

        pattern = re.compile(r"\b[A-Z]{2,}[A-Z0-9-]*[0-9]+[A-Z0-9-]*\b")
        assert _identifiers(text) == pattern.findall(text)

    def test_long_leaves_and_answers_are_read_whole(self) -> None:
        from structsim_nb.trajectories.static_json import read_answer

        range_leaf = "the usual band, " * 20 + "min: 10, max: 20"  # over 200 characters
        score = evaluate_static_json({"a": range_leaf}, {"a": 15})
        assert score.details[0].range_match is True
        assert read_answer('"' + "y" * 200_000 + '"') == ("y" * 200_000, "literal")

    def test_a_capitals_gold_scores_in_linear_time(self) -> None:
        score = evaluate_static_json({"clarification": "A" * 200_000}, {"clarification": "x"})
        assert score.car_score is not None and score.mode_required_terms == []

    def test_many_terms_in_a_long_answer(self) -> None:
        terms = [f"term{i}" for i in range(20_000)]
        meta = {"mode": "clarification", "required_terms": terms}
        answer = {"clarification": " ".join(terms[::2])}
        score = evaluate_static_json({"clarification": "x"}, answer, evaluation_metadata=meta)
        assert len(score.mode_matched_terms) == 10_000 and score.mode_matched_terms[:2] == ["term0", "term2"]

    def test_an_integer_leaf_longer_than_python_converts(self) -> None:
        digits = "9" * 5_000
        score = evaluate_static_json({"a": digits}, {"a": "0" + digits})
        assert score.passed  # compared digit for digit, leading zeros dropped
        assert not evaluate_static_json({"a": digits}, {"a": "8" + digits[1:]}).passed
        with pytest.raises(StaticJsonError, match="at most 4,300 digits"):
            evaluate_static_json({"a": 10**5_000}, {"a": 1})

    @pytest.mark.parametrize("side", ["gold", "model"])
    def test_self_referencing_and_deep_values_are_refused(self, side: str) -> None:
        cyclic: dict[str, object] = {"clarification": "x"}
        cyclic["self"] = cyclic
        deep: object = "x"
        for _ in range(500):
            deep = [deep]
        for bad, message in ((cyclic, "contains itself"), ({"clarification": deep}, "nest at most")):
            args = (bad, {"clarification": "x"}) if side == "gold" else ({"clarification": "x"}, bad)
            with pytest.raises(StaticJsonError, match=message):
                evaluate_static_json(*args)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="AB1-a_ é٣", max_size=30))
def test_identifier_scan_agrees_with_upstreams_pattern(text: str) -> None:
    import re

    from structsim_nb.trajectories.static_json import _identifiers

    assert _identifiers(text) == re.findall(r"\b[A-Z]{2,}[A-Z0-9-]*[0-9]+[A-Z0-9-]*\b", text)
