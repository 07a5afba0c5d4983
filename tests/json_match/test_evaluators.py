"""Tests for structsim_nb.json_match: the four Agenta-style JSON evaluators and their report rows."""

from __future__ import annotations

import json
import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity
from structsim_nb.errors import FieldPathError, GroundTruthError
from structsim_nb.json_match import (
    ContainsJson,
    ExactMatch,
    JsonDiff,
    JsonFieldMatch,
    contains_json,
    exact_match,
    json_diff,
    json_field_match,
    same_value,
)

# The documented Agenta example (seed 003).
SEED_GT = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
SEED_OUT = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
SEED_FIELDS = ["name", "email", "address.city", "address.zip"]


def _row(evaluator, actual, expected, name="c1"):
    (row,) = evaluator.evaluate(EvaluationData(name=name, input="", actual_output=actual, expected_output=expected))
    return row


class TestSeedExample:
    def test_per_field_and_aggregate(self):
        result = json_field_match(SEED_OUT, SEED_GT, fields=SEED_FIELDS)
        assert result.field_scores == {"name": 1.0, "email": 0.0, "address.city": 1.0, "address.zip": 0.0}
        assert result.score == 0.5
        assert not result.passed  # default threshold 1.0
        assert "not matched: email, address.zip" in result.reason

    def test_same_when_both_sides_are_json_text(self):
        result = json_field_match(json.dumps(SEED_OUT), json.dumps(SEED_GT), fields=SEED_FIELDS)
        assert result.field_scores == {"name": 1.0, "email": 0.0, "address.city": 1.0, "address.zip": 0.0}
        assert result.score == 0.5

    def test_non_match_records(self):
        records = json_field_match(SEED_OUT, SEED_GT, fields=SEED_FIELDS).non_matches()
        assert [(r["path"], r["kind"], r["category"], r["expected"], r["predicted"]) for r in records] == [
            ("email", "wrong", "fd", "john@example.com", "jane@example.com"),
            ("address.zip", "wrong", "fd", "10001", "10002"),
        ]
        assert all(r["similarity"] == 0.0 for r in records)


class TestFieldMatch:
    @pytest.mark.parametrize("fields", [["a[0"], [" name"], ["$items"], [], ["a", "a"]])
    def test_bad_paths_fail_at_construction(self, fields):
        with pytest.raises(FieldPathError):
            JsonFieldMatch(fields)

    def test_absent_on_both_sides_is_not_scored_by_default(self):
        result = json_field_match({"a": 1}, {"a": 1}, fields=["a", "phone"])
        assert result.field_scores == {"a": 1.0}
        assert result.score == 1.0 and result.passed
        assert result.fields[1].status == "absent" and result.fields[1].score is None
        assert "phone: absent on both sides, not scored (Agenta scores 1.0)" in result.reason

    @pytest.mark.parametrize(("option", "score"), [("match", 1.0), ("miss", 0.5)])
    def test_absent_on_both_sides_options(self, option, score):
        result = json_field_match({"a": 1}, {"a": 1}, fields=["a", "phone"], both_absent=option)
        assert result.score == score

    def test_nothing_present_scores_zero_and_fails(self):
        result = json_field_match({"a": 1}, {"a": 1}, fields=["x", "y"])
        assert (result.score, result.passed, result.field_scores) == (0.0, False, {})
        assert "nothing was scored" in result.reason

    def test_null_reads_as_missing_by_default(self):
        for out, gt in (({}, {"a": None}), ({"a": None}, {}), ({"a": None}, {"a": None})):
            result = json_field_match(out, gt, fields=["a"])
            assert (result.fields[0].status, result.score, result.passed) == ("match", 1.0, True)
            assert "no value on either side" in result.fields[0].reason
            assert "Agenta" not in result.reason  # Agenta scores 1.0 too: None == None

    def test_null_is_a_value_with_null_is_missing_false(self):
        result = json_field_match({}, {"a": None}, fields=["a"], null_is_missing=False)
        assert result.fields[0].status == "missed"
        assert "null_is_missing=False (Agenta scores 1.0)" in result.reason
        assert json_field_match({"a": None}, {"a": None}, fields=["a"], null_is_missing=False).score == 1.0
        invented = json_field_match({"a": None}, {}, fields=["a"], null_is_missing=False)
        assert invented.fields[0].status == "invented" and invented.score == 0.0

    def test_a_pydantic_output_and_its_ground_truth_are_judged_as_the_similarity_evaluator_judges_them(self):
        class Contact(BaseModel):
            name: str
            email: str | None = None
            phone: str | None = None

        output, truth = Contact(name="A"), {"name": "A"}
        similarity = _row(StructuredOutputSimilarity(Contact), output, truth)
        assert (similarity.score, similarity.test_pass) == (1.0, True)
        for evaluator in (JsonFieldMatch(["name", "email", "phone"]), JsonDiff(penalize_extra_keys=True), ExactMatch()):
            row = _row(evaluator, output, truth)
            assert (row.score, row.test_pass) == (1.0, True), (type(evaluator).__name__, row.reason)
        strict = [
            JsonFieldMatch(["name", "email"], null_is_missing=False),
            JsonDiff(penalize_extra_keys=True, null_is_missing=False),
            ExactMatch(null_is_missing=False),
        ]
        for evaluator in strict:
            assert not _row(evaluator, output, truth).test_pass, type(evaluator).__name__

    def test_bool_is_not_a_number(self):
        result = json_field_match({"a": 1}, {"a": True}, fields=["a"])
        assert result.score == 0.0 and "True != 1" in result.reason

    def test_threshold(self):
        assert json_field_match(SEED_OUT, SEED_GT, fields=SEED_FIELDS, threshold=0.5).passed
        assert json_field_match(SEED_OUT, SEED_GT, fields=SEED_FIELDS, threshold=0).passed
        for bad in (-0.1, 1.5, True, "0.5"):
            with pytest.raises(ValueError):
                JsonFieldMatch(["a"], threshold=bad)
        with pytest.raises(ValueError):
            JsonFieldMatch(["a"], both_absent="maybe")

    @pytest.mark.parametrize(
        ("out", "score"),
        [
            ({"tags": ["x", "y"], "n": 30, "f": 1}, 1.0),
            ({"tags": ["y", "x"], "n": 30, "f": 1.0}, 2 / 3),  # arrays whole, by position; 1 == 1.0
            ({"tags": ["x", "y"], "n": "30", "f": 1}, 2 / 3),  # no string/number coercion
            ({"tags": ["x", "y"], "n": 30, "f": 1, "extra": 1}, 1.0),
        ],
    )
    def test_values_compare_exactly(self, out, score):
        gt = {"tags": ["x", "y"], "n": 30, "f": 1}
        assert json_field_match(out, gt, fields=["tags", "n", "f"]).score == pytest.approx(score)

    def test_values_are_case_sensitive(self):
        assert json_field_match({"c": "paris"}, {"c": "Paris"}, fields=["c"]).score == 0.0
        assert json_field_match({"c": "Paris "}, {"c": "Paris"}, fields=["c"]).score == 0.0

    def test_list_too_short(self):
        result = json_field_match({"items": [1]}, {"items": [1, 2, 3]}, fields=["items[2]", "items.5"])
        missed, absent = result.fields
        assert missed.status == "missed" and "index 2 is out of range (the list has 1 items)" in missed.reason
        assert absent.status == "absent" and "out of range" in absent.reason

    def test_dotted_key_reads_the_literal_key_on_both_sides(self):
        data = {"a.b": 1}
        result = json_field_match(data, data, fields=["a.b", '["a.b"]', "/a.b"])
        assert [f.status for f in result.fields] == ["match"] * 3  # as Agenta: the literal key first
        assert json_field_match({"a.b": 2}, data, fields=["a.b"]).score == 0.0
        # Agenta would compare the literal key on one side with the nested path on the other.
        crossed = json_field_match({"a": {"b": 1}}, data, fields=["a.b"])
        assert crossed.fields[0].status == "missed" and "read as the literal key 'a.b'" in crossed.reason
        both = {"a.b": 1, "a": {"b": 2}}
        assert json_field_match(both, both, fields=["a.b"]).fields[0].expected == 1
        assert json_field_match(both, both, fields=['a["b"]']).fields[0].expected == 2

    def test_array_output_and_ground_truth(self):
        result = json_field_match([{"n": 1}], [{"n": 1}], fields=["$[0].n", "/0/n", "[0].n"])
        assert result.score == 1.0
        assert "paths resolve into it (Agenta scores every field 0)" in result.reason

    def test_jsonpath_several_matches_compare_as_a_list(self):
        gt = {"xs": [{"v": 1}, {"v": 2}]}
        assert json_field_match({"xs": [{"v": 1}, {"v": 2}]}, gt, fields=["$.xs[*].v"]).score == 1.0
        assert json_field_match({"xs": [{"v": 2}, {"v": 1}]}, gt, fields=["$.xs[*].v"]).score == 0.0

    def test_non_json_output_scores_zero_with_reason(self):
        result = json_field_match("I could not find it.", SEED_GT, fields=SEED_FIELDS)
        assert result.score == 0.0 and result.error == "unreadable"
        assert "output is not JSON" in result.reason
        assert [f.status for f in result.fields] == ["missed"] * 4

    def test_text_output_goes_through_the_answer_parser(self):
        text = "Here you go:\n```json\n" + json.dumps(SEED_OUT) + "\n```"
        result = json_field_match(text, SEED_GT, fields=SEED_FIELDS)
        assert result.score == 0.5 and "(output read as fenced)" in result.reason
        assert "Agenta reads only whole-text JSON and scores every field 0" in result.reason

    def test_model_output(self):
        class Person(BaseModel):
            name: str

        assert json_field_match(Person(name="Ada"), {"name": "Ada"}, fields=["name"]).score == 1.0

    def test_ground_truth_string_is_json_text(self):
        with pytest.raises(GroundTruthError, match="which is not JSON"):
            json_field_match({"a": 1}, "Paris", fields=["a"])
        with pytest.raises(GroundTruthError, match="to have fields"):
            json_field_match({"a": 1}, '"Paris"', fields=["a"])


class TestFieldMatchReadsBothSidesWhole:
    """Both sides must be JSON data wherever the non-JSON value sits, as for the other evaluators."""

    def test_a_value_that_is_not_json_anywhere_in_the_output_makes_it_unreadable(self):
        result = json_field_match({"a": 1, "junk": {1, 2}}, {"a": 1}, fields=["a"])
        assert result.score == 0.0 and not result.passed and result.error == "unreadable"
        assert "set" in result.reason

    def test_a_value_that_is_not_json_in_the_ground_truth_raises_naming_it(self):
        with pytest.raises(GroundTruthError, match="set"):
            json_field_match({"a": [1]}, {"a": [1], "junk": {1, 2}}, fields=["a"])

    def test_tuples_read_as_lists(self):
        result = json_field_match({"a": (1, (2, 3))}, {"a": [1, [2, 3]]}, fields=["a", "a.1.0", "a[1][1]"])
        assert result.score == 1.0


class TestJsonDiff:
    def test_seed(self):
        result = json_diff(SEED_OUT, SEED_GT)
        assert result.score == 0.5 and result.passed  # default threshold 0.5
        assert result.field_scores == {"name": 1.0, "email": 0.0, "address": 0.5}
        assert [r["path"] for r in result.non_matches()] == ["email", "address.zip"]

    def test_extra_keys(self):
        gt, out = {"name": "Alice"}, {"name": "Alice", "extra": 1}
        assert json_diff(out, gt).score == 1.0
        penalized = json_diff(out, gt, penalize_extra_keys=True)
        assert penalized.score == 0.5
        assert [(r["path"], r["kind"], r["category"]) for r in penalized.non_matches()] == [("extra", "invented", "fa")]

    def test_lists_by_position(self):
        assert json_diff([1, 3, 2], [1, 2, 3]).score == pytest.approx(1 / 3)
        result = json_diff([1, 2], [1, 2, 3])
        assert result.score == pytest.approx(2 / 3) and result.fields[2].status == "missed"

    def test_null_equals_null(self):
        result = json_diff({"a": None, "b": 1}, {"a": None, "b": 1})
        assert result.score == 1.0 and "null equals null (Agenta scores null leaves 0)" in result.reason
        skipped = json_diff({"a": 5, "b": 1}, {"a": None, "b": 1}, skip_nulls=True)
        assert skipped.score == 1.0 and [f.path for f in skipped.fields] == ["b"]

    def test_empty_containers_have_no_leaves_as_in_agenta(self):
        assert json_diff({"a": 1, "tags": ["x"]}, {"a": 1, "tags": []}).score == 1.0
        assert json_diff({"a": 1}, {"a": 1, "b": {}}).score == 1.0
        for gt in ({}, {"a": []}, {"a": {}}):
            result = json_diff(gt, gt)
            assert (result.score, result.passed) == (0.0, False) and "no leaf to compare" in result.reason

    def test_empty_containers_as_values_on_request(self):
        assert json_diff({}, {}, compare_empty_containers=True).score == 1.0
        assert json_diff({"a": []}, {"a": []}, compare_empty_containers=True).score == 1.0
        result = json_diff({"a": [1]}, {"a": []}, compare_empty_containers=True)
        assert result.score == 0.0 and result.fields[0].status == "wrong"
        assert "Agenta drops them" in result.reason
        assert JsonDiff(compare_empty_containers=True).compare_empty_containers

    def test_shape_mismatch_is_wrong_not_missed(self):
        result = json_diff({"a": 5}, {"a": {"b": 1}})
        assert result.fields[0].status == "wrong" and result.fields[0].predicted == 5

    def test_case_insensitive_keys(self):
        assert json_diff({"name": "x"}, {"Name": "x"}).score == 0.0
        result = json_diff({"name": "x"}, {"Name": "x"}, case_insensitive_keys=True)
        assert result.score == 1.0 and "Agenta never matches a key with upper-case letters" in result.reason
        assert result.fields[0].path == "Name"  # shown as the ground truth spells it
        # Agenta's own legacy case: lower-case truth, upper-case output, predict_keys -> 0.5 there.
        legacy = json_diff(
            {"Name": "A", "AGE": 3}, {"name": "A", "age": 3}, case_insensitive_keys=True, penalize_extra_keys=True
        )
        assert legacy.score == 1.0 and "case-insensitively" in legacy.reason

    def test_case_collisions(self):
        with pytest.raises(GroundTruthError, match="differ only in case"):
            json_diff({}, {"a": 1, "A": 2}, case_insensitive_keys=True)
        result = json_diff({"a": 1, "A": 1}, {"a": 1}, case_insensitive_keys=True)
        assert result.score == 0.0 and "differ only in case" in result.fields[0].reason

    def test_schema_only(self):
        gt = {"n": 5, "f": 1.5, "s": "x", "b": True, "z": None, "l": [1]}
        out = {"n": 7, "f": 2.0, "s": "y", "b": False, "z": None, "l": [9]}
        assert json_diff(out, gt, compare_schema_only=True).score == 1.0
        wrong = {"n": 5.0, "f": 2, "s": 1, "b": 0, "z": "x", "l": ["a"]}  # int vs float differ, as in Agenta
        assert json_diff(wrong, gt, compare_schema_only=True).score == 0.0
        assert json_diff({"n": 5.0}, {"n": 5}).score == 1.0  # values: 5 == 5.0

    def test_values_are_case_sensitive(self):
        assert json_diff({"c": "paris"}, {"c": "Paris"}, case_insensitive_keys=True).score == 0.0

    def test_text_output_read_by_the_parser_is_noted(self):
        result = json_diff('Result:\n```json\n{"a": 1}\n```', {"a": 1})
        assert result.score == 1.0 and "Agenta raises on anything but whole-text JSON" in result.reason

    def test_threshold(self):
        assert not json_diff({"a": 0}, {"a": 1}).passed
        zero = json_diff({"a": 0}, {"a": 1}, threshold=0)
        assert zero.passed and "threshold 0 is kept" in zero.reason
        assert json_diff({"a": 1}, {"a": 1}, threshold=1).passed
        for bad in (1.5, -1, True, "x"):
            with pytest.raises(ValueError, match="threshold must be a number between 0 and 1"):
                JsonDiff(threshold=bad)

    def test_non_json_output_is_a_score_not_a_crash(self):
        result = json_diff("no json here at all", {"a": 1})
        assert result.score == 0.0 and result.error == "unreadable"
        assert "Agenta raises an error" in result.reason
        assert not json_diff("no json here at all", {"a": 1}, threshold=0).passed
        assert not json_field_match("no json", {"a": 1}, fields=["a"], threshold=0).passed

    def test_dotted_keys_do_not_collide(self):
        gt = {"a.b": 1, "a": {"b": 2}}
        result = json_diff({"a.b": 1, "a": {"b": 2}}, gt)
        assert result.score == 1.0 and [f.path for f in result.fields] == ['["a.b"]', "a.b"]
        assert "stay distinct from nested paths" in result.reason

    def test_scalar_ground_truth(self):
        assert (json_diff("5", 5).score, json_diff("5", '"5"').passed) == (0.0, False)  # no leaves, as Agenta
        assert json_diff("5", 5, compare_empty_containers=True).score == 1.0
        with pytest.raises(GroundTruthError):
            json_diff({"a": 1}, "not json")


class TestExactMatch:
    def test_text(self):
        assert exact_match("Paris", "Paris").score == 1.0
        assert exact_match("Paris ", "Paris").score == 0.0
        assert exact_match("paris", "Paris").score == 0.0
        assert exact_match("hello  world", "hello world").score == 0.0
        assert exact_match('{"a":1}', '{"a": 1}').score == 0.0  # two strings compare as text
        assert exact_match("Paris ", "paris", strip=True, ignore_case=True).score == 1.0

    def test_values(self):
        result = exact_match({"a": 1.0}, {"a": 1})
        assert result.passed and "numbers compared by value, not serialised text (Agenta scores False)" in result.reason
        assert exact_match([1, 2], [1, 2]).passed
        assert exact_match(5, 5.0).passed
        assert not exact_match(True, 1).passed
        assert not exact_match({"a": True}, {"a": 1}).passed
        assert exact_match({"b": {"y": 1, "x": 2}, "a": 1}, {"a": 1, "b": {"x": 2, "y": 1}}).passed  # key order
        assert not exact_match([1, 2], [2, 1]).passed

    def test_text_against_structure(self):
        result = exact_match('{"a": 1}', {"a": 1})
        assert result.passed and "Agenta scores False: it never parses strings" in result.reason
        assert exact_match({"a": 1}, '{"a": 1}').passed

    @pytest.mark.parametrize("text", ['The answer is {"a": 1}', '```json\n{"a": 1}\n```', "{'a': 1}"])
    def test_only_whole_text_json_is_read(self, text):
        result = exact_match(text, {"a": 1})
        assert not result.passed and result.error == "unreadable" and "whole-text JSON" in result.reason
        assert exact_match(' {"a": 1}\n', {"a": 1}).passed

    def test_non_json_text_against_structure(self):
        result = exact_match("no idea", {"a": 1})
        assert result.score == 0.0 and result.error == "unreadable" and "output is not JSON" in result.reason

    def test_differences_are_listed(self):
        result = exact_match({"a": 1, "b": 2, "c": 3}, {"a": 1, "b": 3})
        assert not result.passed
        assert {(r["path"], r["kind"]) for r in result.non_matches()} == {("b", "wrong"), ("c", "invented")}


SMALL_JSON = st.recursive(
    st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, 1.0, 2, float("nan")]), st.sampled_from(["a", "A", ""])),
    lambda children: st.one_of(
        st.lists(children, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "a.b"]), children, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(a=SMALL_JSON, b=SMALL_JSON, ignore_case=st.booleans(), strip=st.booleans())
def test_exact_match_equals_same_value(a, b, ignore_case, strip):
    from structsim_nb.json_match.values import drop_nulls

    for pair in ((a, b), (a, a), (b, json.loads(json.dumps(b)))):
        strict = exact_match(*pair, ignore_case=ignore_case, strip=strip, null_is_missing=False)
        assert strict.passed == same_value(pair[1], pair[0], ignore_case=ignore_case, strip=strip), pair
        # The default reads a null-valued key as absent: the same rule on both sides with nulls dropped.
        default = exact_match(*pair, ignore_case=ignore_case, strip=strip)
        expected = same_value(drop_nulls(pair[1]), drop_nulls(pair[0]), ignore_case=ignore_case, strip=strip)
        assert default.passed == expected, pair


class TestContainsJson:
    @pytest.mark.parametrize(
        ("text", "found", "note"),
        [
            ('text {"k": "v"} more', True, None),
            ('{"a":1} and {"b":2}', True, "Agenta scores False"),
            ("[1,2,3]", True, "misses arrays"),
            ('```json\n{"a": 1}\n```', True, None),
            ("{}", True, None),
            ('[{"a":1}]', True, None),
            ('{"a": NaN}', True, None),
            ('{"a": 1', False, "was cut off (truncated JSON) and repaired"),
            ('{"a": 1, "b": [2', False, 'reads as {"a": 1, "b": [2]}'),
            ("{'a': 1}", False, None),
            ("The answer is 34.", False, None),
            ("nothing here", False, None),
        ],
    )
    def test_text(self, text, found, note):
        result = contains_json(text)
        assert result.passed is found
        if note:
            assert note in result.reason

    def test_structured_output_is_checked(self):
        assert contains_json({"data": "plain text"}).passed
        bad = contains_json({"when": object()})
        assert not bad.passed and "Agenta passes every dict" in bad.reason
        assert contains_json([1]).passed

    def test_other_types_are_a_score_not_a_crash(self):
        result = contains_json(42)
        assert not result.passed and "Agenta raises" in result.reason


class TestEvaluators:
    def test_row_metadata(self):
        row = _row(JsonFieldMatch(SEED_FIELDS), SEED_OUT, SEED_GT)
        assert (row.score, row.test_pass) == (0.5, False)
        meta = row.metadata
        assert meta["evaluated_by"] == "json_match:json_field_match"
        assert meta["field_scores"] == {"name": 1.0, "email": 0.0, "address.city": 1.0, "address.zip": 0.0}
        assert meta["counts"] == {"tp": 2, "fn": 0, "fa": 0, "fd": 2, "tn": 0}
        assert meta["precision"] == 0.5 and meta["recall"] == 1.0
        assert len(meta["non_matches"]) == 2 and len(meta["fields"]) == 4
        json.dumps(meta)  # plain JSON

    def test_not_applicable_without_ground_truth(self):
        row = _row(JsonDiff(), {"a": 1}, None)
        assert row.label == "not_applicable" and row.test_pass
        assert _row(ContainsJson(), '{"a": 1}', None).score == 1.0

    def test_bad_ground_truth_is_a_row(self):
        row = _row(JsonDiff(), {"a": 1}, "Paris")
        assert row.score == 0.0 and not row.test_pass
        assert row.metadata["error"] == "unreadable" and "ground truth unreadable" in row.reason

    def test_nan_is_saved_as_text(self):
        row = _row(ExactMatch(), {"a": float("nan")}, {"a": float("nan")})
        assert row.score == 1.0
        assert json.loads(json.dumps(row.metadata))["fields"][0]["expected"] == "nan"

    def test_to_dict(self):
        assert JsonFieldMatch(["a"], threshold=0.5).to_dict() == {
            "evaluator_type": "JsonFieldMatch",
            "fields": ["a"],
            "threshold": 0.5,
        }

    def test_report_views(self, run_experiment, tmp_path):
        class Person(BaseModel):
            name: str
            email: str | None = None

        pairs = {
            "seed": (SEED_GT, SEED_OUT),
            "text": (SEED_GT, "nothing useful"),
            "none": (None, SEED_OUT),
        }
        report = run_experiment(pairs, [JsonFieldMatch(SEED_FIELDS), JsonDiff(), ContainsJson(), ExactMatch()])
        cases = report.cases_frame()
        seed = cases[(cases["case"] == "seed") & (cases["evaluator"] == "JsonFieldMatch")].iloc[0]
        assert seed["status"] == "scored" and seed["score"] == 0.5
        assert (seed["name"], seed["email"], seed["address.city"], seed["address.zip"]) == (1.0, 0.0, 1.0, 0.0)
        assert (seed["tp"], seed["fd"]) == (2, 2)
        text = cases[(cases["case"] == "text") & (cases["evaluator"] == "JsonDiff")].iloc[0]
        assert text["status"] == "unreadable"
        assert (
            cases[(cases["case"] == "none") & (cases["evaluator"] == "JsonDiff")].iloc[0]["status"] == "not applicable"
        )
        misses = report.non_matches_frame(evaluator="JsonFieldMatch")
        assert list(misses[misses["case"] == "seed"]["path"]) == ["email", "address.zip"]
        # The upstream rollups still select only the similarity evaluator's rows.
        with pytest.raises(ValueError, match="no scored structured-output rows"):
            report.per_case()
        html = report.to_html()
        assert "address.zip" in html
        reloaded = StructuredOutputReport.from_file(report.to_file(tmp_path / "r.json"))
        assert reloaded.cases_frame().equals(cases)

    def test_beside_the_similarity_evaluator(self, run_experiment):
        class Address(BaseModel):
            city: str
            zip: str

        class Person(BaseModel):
            name: str
            email: str
            address: Address

        pairs = {"seed": (Person(**SEED_GT), Person(**SEED_OUT))}
        report = run_experiment(pairs, [StructuredOutputSimilarity(Person), JsonFieldMatch(SEED_FIELDS)])
        assert [row["case"] for row in report.per_case()] == ["seed"]
        assert set(report.cases_frame()["status"]) == {"scored"}
        assert set(report.non_matches_frame()["evaluator"]) == {"StructuredOutputSimilarity", "JsonFieldMatch"}
        assert not math.isnan(report.fields_frame(evaluator="StructuredOutputSimilarity")["f1"].iloc[0])


def test_public_names():
    import structsim_nb

    for name in ("ContainsJson", "ExactMatch", "JsonDiff", "JsonFieldMatch", "contains_json", "exact_match"):
        assert name in structsim_nb.__all__ and hasattr(structsim_nb, name)
    assert {"json_diff", "json_field_match"} <= set(structsim_nb.__all__)


# -- every reason tells the truth about Agenta ----------------------------------------------


def agenta_resolve(expr, data):
    """Agenta's `resolve_any` for dot notation and JSON Pointer, from the reference notes (section 4.1)."""
    if expr.startswith("/"):
        current = data
        for token in expr[1:].split("/"):
            token = token.replace("~1", "/").replace("~0", "~")
            if isinstance(current, list) and token.isdigit() and int(token) < len(current):
                current = current[int(token)]
            elif isinstance(current, dict) and token in current:
                current = current[token]
            else:
                return None
        return current
    if not expr or "[" in expr or "]" in expr:
        return None
    if isinstance(data, dict) and expr in data:
        return data[expr]
    current = data
    for token in [part for part in expr.split(".") if part]:
        if isinstance(current, list) and token.isdigit():
            if int(token) >= len(current):
                return None
            current = current[int(token)]
        elif isinstance(current, dict) and token in current:
            current = current[token]
        else:
            return None
    return current


def agenta_multi_field(out, gt, fields):
    """Agenta's `json_multi_field_match_v0` scores per field; None where it raises (section 4)."""
    if isinstance(gt, str):
        gt = json.loads(gt)
    elif not isinstance(gt, dict):
        return None
    if isinstance(out, BaseModel):
        out = out.model_dump(mode="json")
    if isinstance(out, str):
        try:
            out = json.loads(out)
        except ValueError:
            return dict.fromkeys(fields, 0.0)
    if not isinstance(out, dict):
        return dict.fromkeys(fields, 0.0)
    return {f: 1.0 if agenta_resolve(f, gt) == agenta_resolve(f, out) else 0.0 for f in fields}


PROMISE_FIELDS = [
    "name",
    "email",
    "address.city",
    "items[0].name",
    "items.0.name",
    "items.-1.name",
    "items[-1].name",
    "items.5",
    "a.b",
    '["a.b"]',
    "/items/0/name",
    "/address/city",
    "nowhere",
    "flag",
]
PROMISE_TRUTHS = [
    {"name": "A", "email": None, "address": {"city": "X"}, "items": [{"name": "i"}, {"name": "j"}], "flag": True},
    {"name": "A", "items": [{"name": "i"}], "a.b": 1, "a": {"b": 2}, "flag": 1},
    json.dumps({"name": "A", "address": {"city": "Y"}, "items": []}),
]
PROMISE_OUTPUTS = [
    {"name": "A", "email": None, "address": {"city": "X"}, "items": [{"name": "i"}, {"name": "k"}], "flag": 1},
    {"name": "B", "items": [{"name": "i"}], "a.b": 1, "a": {"b": 3}, "flag": True, "email": "e"},
    {"name": "A"},
    {},
    "not json at all",
    '```json\n{"name": "A"}\n```',
    [{"name": "A"}],
    json.dumps({"name": "A", "address": {"city": "Y"}, "items": [], "email": None}),
]


class TestReasonsTellTheTruth:
    """Every multi-field row states each difference from Agenta that changed a field, and no false one."""

    @pytest.mark.parametrize("null_is_missing", [True, False])
    @pytest.mark.parametrize("gt", PROMISE_TRUTHS, ids=["truth-0", "truth-1", "truth-text"])
    @pytest.mark.parametrize("out", PROMISE_OUTPUTS, ids=lambda out: str(out)[:12])
    def test_every_difference_from_agenta_is_stated(self, out, gt, null_is_missing):
        result = json_field_match(out, gt, fields=PROMISE_FIELDS, null_is_missing=null_is_missing)
        theirs = agenta_multi_field(out, gt, PROMISE_FIELDS)
        everything = ("Agenta scores every field 0", "Agenta reads only whole-text JSON", "Agenta raises")
        for item in result.fields:
            if item.score == theirs[item.path]:
                continue
            assert item.path in result.reason or any(text in result.reason for text in everything), (
                item.path,
                item.score,
                theirs[item.path],
                result.reason,
            )
        for note in result.notes:
            claimed = re.match(r"(?P<path>.+?): .*Agenta scores (?P<score>[01](?:\.0)?)\b", note)
            if claimed and claimed["path"] in theirs:
                assert float(claimed["score"]) == theirs[claimed["path"]], note

    def test_bracket_paths_are_named_when_they_change_the_score(self):
        gt = {"items": [{"name": "i"}]}
        result = json_field_match({"items": [{"name": "k"}]}, gt, fields=["items[0].name", "items.0.name"])
        assert result.field_scores == {"items[0].name": 0.0, "items.0.name": 0.0}
        (note,) = [note for note in result.notes if note.startswith("items[0].name")]
        assert note == (
            "items[0].name: Agenta scores 1.0, 0.0 here (its dot paths read no brackets, so the path resolves "
            "on neither side and None == None)"
        )
        assert not any(note.startswith("items.0.name") for note in result.notes)

    def test_output_that_is_not_json_scores_every_field_zero_as_agenta(self):
        result = json_field_match("I could not find it", {"name": "A"}, fields=["name", "email", "nowhere"])
        assert result.field_scores == {"name": 0.0, "email": 0.0, "nowhere": 0.0}
        assert [item.status for item in result.fields] == ["missed", "absent", "absent"]
        assert result.error == "unreadable" and not result.passed
        assert "Agenta scores 1" not in result.reason and result.notes == ()

    def test_a_ground_truth_given_as_a_list_is_read_and_said_so(self):
        result = json_field_match([{"a": 1}], [{"a": 1}], fields=["0.a"])
        assert result.score == 1.0
        assert "ground truth given as a list is read as JSON (Agenta raises unless it is JSON text)" in result.reason
        as_text = json_field_match([{"a": 1}], json.dumps([{"a": 1}]), fields=["0.a"])
        assert "Agenta raises" not in as_text.reason
        diff = json_diff([1, 2], [1, 2])
        assert "Agenta raises unless it is JSON text" in diff.reason

    @pytest.mark.parametrize(
        ("actual", "expected"),
        [
            ({"a": 1, "b": None}, {"a": 1}),
            ({"a": 1.0}, {"a": 1}),
            ({"a": 1}, {"a": 1}),
            ('{"a": 1}', {"a": 1}),
            ({"a": 1}, '{"a": 1}'),
            ([1, 2], [1, 2]),
            (3, 3.0),
            ("Paris", "Paris"),
            ({"a": True}, {"a": 1}),
            ({"a": [None]}, {"a": []}),
        ],
    )
    @pytest.mark.parametrize("null_is_missing", [True, False])
    def test_exact_match_notes_every_difference_truthfully(self, actual, expected, null_is_missing):
        result = exact_match(actual, expected, null_is_missing=null_is_missing)
        if isinstance(actual, str) and isinstance(expected, str):
            theirs = actual == expected
        elif isinstance(actual, dict) and isinstance(expected, dict):
            theirs = json.dumps(actual, sort_keys=True) == json.dumps(expected, sort_keys=True)
        else:
            theirs = False
        assert bool(result.notes) == (theirs != result.passed), result.reason
        for note in result.notes:
            assert f"Agenta scores {theirs}" in note or f"Agenta compares exactly: {theirs}" in note

    def test_exact_match_on_a_pydantic_output(self):
        class Contact(BaseModel):
            name: str
            email: str | None = None

        result = exact_match(Contact(name="A"), {"name": "A"})
        assert result.passed
        assert "a Pydantic model compared as values (Agenta scores False unless both are str or both dict)" in (
            result.reason
        )
        assert not exact_match(Contact(name="A"), {"name": "A"}, null_is_missing=False).passed
        nulls = exact_match({"a": 1, "b": None}, {"a": 1})
        assert nulls.passed and "null-valued keys read as absent" in nulls.reason

    def test_a_truncated_output_is_read_repaired_and_said_so(self):
        cut = '{"name": "Ada", "email": "a@b'
        result = json_field_match(cut, {"name": "Ada", "email": "a@b.c"}, fields=["name", "email"])
        assert result.field_scores == {"name": 1.0, "email": 0.0}
        assert "output read as repaired (the answer was cut off (truncated JSON) and repaired: cut inside the " in (
            result.reason
        )
        assert "Python ==" not in result.reason  # Agenta's 0 on every field is stated once, with its real cause
        assert "cut inside the string value of 'email'" in json_diff(cut, {"name": "Ada"}).reason


def _cyclic() -> dict[str, object]:
    loop: dict[str, object] = {"a": 1}
    loop["self"] = loop
    return loop


def _deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return value


HOSTILE_SIDES = [
    pytest.param(_cyclic(), "contains itself", id="cyclic"),
    pytest.param(_deep(5_000), "nests deeper than 100", id="deep-object"),
    pytest.param("[" * 5_000 + "]" * 5_000, "deeper than 100", id="deep-text"),
    pytest.param('{"a": ' + "9" * 5_000 + "}", "digits", id="huge-integer-text"),
]


class TestHostileInput:
    """Deep, cyclic and huge-number inputs: a score-0 row or GroundTruthError, never ValueError/RecursionError."""

    @pytest.mark.parametrize(("output", "why"), HOSTILE_SIDES)
    @pytest.mark.parametrize("scorer", ["exact_match", "json_field_match", "json_diff", "contains_json"])
    def test_hostile_output_is_unreadable_not_raised(self, scorer: str, output: object, why: str) -> None:
        functions = {
            "exact_match": lambda out: exact_match(out, {"a": 1}),
            "json_field_match": lambda out: json_field_match(out, {"a": 1}, fields=["a"]),
            "json_diff": lambda out: json_diff(out, {"a": 1}),
            "contains_json": contains_json,
        }
        result = functions[scorer](output)
        assert not result.passed and result.score == 0.0
        if scorer != "contains_json":
            assert result.error == "unreadable"

    @pytest.mark.parametrize(("expected", "why"), HOSTILE_SIDES)
    def test_hostile_ground_truth_is_a_ground_truth_error(self, expected: object, why: str) -> None:
        for call in (
            lambda: json_field_match({"a": 1}, expected, fields=["a"]),
            lambda: json_diff({"a": 1}, expected),
        ):
            with pytest.raises(GroundTruthError, match=why):
                call()

    @pytest.mark.parametrize(("expected", "why"), HOSTILE_SIDES)
    def test_evaluator_rows_carry_the_reason(self, expected: object, why: str) -> None:
        for evaluator in (ExactMatch(), JsonFieldMatch(["a"]), JsonDiff()):
            (row,) = evaluator.evaluate(EvaluationData(input="", actual_output={"a": 1}, expected_output=expected))
            assert row.score == 0.0 and not row.test_pass

    def test_a_huge_python_integer_is_compared_by_value(self) -> None:
        assert json_diff({"a": 10**5_000}, {"a": 10**5_000 + 1}).score == 0.0
        assert json_diff({"a": 10**5_000}, {"a": 10**5_000}).score == 1.0
        result = exact_match(10**5_000, 1)
        assert not result.passed and "cannot be shown" in result.fields[0].reason
