"""car: clarification / abstain / response scoring, derived terms, and linear term and identifier scans."""

from __future__ import annotations

import re

import pytest
from helpers import CAR_GOLD, CAR_META
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.errors import StaticJsonError
from structsim_nb.trajectories.car import _identifiers
from structsim_nb.trajectories.static_json import ASSETOPSBENCH_CAR_TERMS, evaluate_static_json

TOL = 1e-12

GOLD, META = CAR_GOLD, CAR_META


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

    def test_a_gold_without_the_mode_key_gives_its_first_values_terms(self) -> None:
        # As upstream (it always reads the gold's first value): metadata naming another mode keeps the gold's terms.
        meta = {"mode": "clarification"}
        gold = '{"abstain": "cannot determine, dataset unreliable"}'
        score = evaluate_static_json(gold, '{"clarification": "which pump?"}', evaluation_metadata=meta)
        assert score.mode_required_terms == ["cannot determine", "dataset", "unreliable"] and not score.passed
        # With the mode key among several, its own value gives the terms (upstream would read `note`'s).
        gold = '{"note": "x", "clarification": "ask about the pump"}'
        score = evaluate_static_json(gold, '{"clarification": "ask which unit"}', evaluation_metadata=meta)
        assert score.mode_required_terms == ["pump"] and not score.passed

    def test_a_bare_yes_or_no_gold_requires_that_word(self) -> None:
        # Upstream derives yes/no only when text follows it, so its `{"response": "No"}` passes a "Yes".
        score = evaluate_static_json('{"response": "No"}', '{"response": "Yes"}')
        assert score.mode_required_terms == ["no"] and not score.passed
        assert evaluate_static_json('{"response": "No"}', '{"response": "no."}').passed

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


class TestHostileInput:
    """Linear scanning, huge numbers and self-referencing values: a result or a StaticJsonError, never a hang."""

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
        pattern = re.compile(r"\b[A-Z]{2,}[A-Z0-9-]*[0-9]+[A-Z0-9-]*\b")
        assert _identifiers(text) == pattern.findall(text)

    def test_a_capitals_gold_scores_in_linear_time(self) -> None:
        score = evaluate_static_json({"clarification": "A" * 200_000}, {"clarification": "x"})
        assert score.car_score is not None and score.mode_required_terms == []

    def test_many_terms_in_a_long_answer(self) -> None:
        terms = [f"term{i}" for i in range(20_000)]
        meta = {"mode": "clarification", "required_terms": terms}
        answer = {"clarification": " ".join(terms[::2])}
        score = evaluate_static_json({"clarification": "x"}, answer, evaluation_metadata=meta)
        assert len(score.mode_matched_terms) == 10_000 and score.mode_matched_terms[:2] == ["term0", "term2"]


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="AB1-a_ é٣", max_size=30))
def test_identifier_scan_agrees_with_upstreams_pattern(text: str) -> None:
    assert _identifiers(text) == re.findall(r"\b[A-Z]{2,}[A-Z0-9-]*[0-9]+[A-Z0-9-]*\b", text)
