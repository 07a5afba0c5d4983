"""field_match: a score per configured field, and every difference from Agenta stated in the reason."""

from __future__ import annotations

import collections
import datetime
import decimal
import json
import re
import threading
import unittest.mock

import pytest
from helpers import SEED_FIELDS, SEED_GT, SEED_OUT, SubDict, as_subclass, evaluate_row, json_pair_strategy
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputSimilarity
from structsim_nb.errors import FieldPathError, GroundTruthError
from structsim_nb.json_match import (
    ExactMatch,
    JsonDiff,
    JsonFieldMatch,
    json_diff,
    json_field_match,
)


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
        similarity = evaluate_row(StructuredOutputSimilarity(Contact), output, truth)
        assert (similarity.score, similarity.test_pass) == (1.0, True)
        for evaluator in (JsonFieldMatch(["name", "email", "phone"]), JsonDiff(penalize_extra_keys=True), ExactMatch()):
            row = evaluate_row(evaluator, output, truth)
            assert (row.score, row.test_pass) == (1.0, True), (type(evaluator).__name__, row.reason)
        strict = [
            JsonFieldMatch(["name", "email"], null_is_missing=False),
            JsonDiff(penalize_extra_keys=True, null_is_missing=False),
            ExactMatch(null_is_missing=False),
        ]
        for evaluator in strict:
            assert not evaluate_row(evaluator, output, truth).test_pass, type(evaluator).__name__

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


def _nested(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return value


class TestFieldMatchReadsOnlyTheConfiguredFields:
    """Only the values at the configured paths must be JSON data; with a JSON Path, both documents throughout."""

    ODD = [{1, 2}, datetime.date(2024, 1, 2), decimal.Decimal("1.5"), object()]

    @pytest.mark.parametrize("odd", ODD, ids=lambda value: type(value).__name__)
    def test_an_odd_value_elsewhere_does_not_zero_the_case(self, odd):
        result = json_field_match({"a": 1, "b": 2, "junk": odd}, {"a": 1, "b": 3, "junk": odd}, fields=["a", "b"])
        assert result.field_scores == {"a": 1.0, "b": 0.0} and result.error is None
        assert [item.status for item in result.fields] == ["match", "wrong"]

    def test_a_reference_cycle_elsewhere_is_never_walked(self):
        loop: list = []
        loop.append(loop)
        other: list = []
        other.append(other)
        result = json_field_match({"a": 1, "loop": loop}, {"a": 1, "loop": other}, fields=["a", "/a"])
        assert result.score == 1.0 and result.passed

    @pytest.mark.parametrize("fields", [["$..a"], ["$.b", "a"]], ids=["descendants", "json-path-and-dot-path"])
    def test_an_output_that_holds_itself_scores_0_at_once_with_a_json_path(self, fields):
        # With a JSON Path the output must be JSON data throughout; this one is not, so every field scores 0. The
        # emulation of Agenta (for the notes) once resolved `$..a` on it anyway and never returned.
        output: dict = {"b": 1}
        output["self"] = output
        found: list = []
        worker = threading.Thread(target=lambda: found.append(json_field_match(output, {"a": 1}, fields=fields)))
        worker.daemon = True
        worker.start()
        worker.join(timeout=30)
        assert not worker.is_alive(), "json_field_match did not return within 30 s"
        (result,) = found
        assert result.score == 0.0 and not result.passed and result.error == "unreadable"
        assert "it contains itself (a reference cycle); every field scores 0" in result.reason

    def test_an_odd_value_at_a_configured_path_makes_that_field_wrong(self):
        loop: list = []
        loop.append(loop)
        result = json_field_match(
            {"a": {1, 2}, "b": 1, "c": loop}, {"a": [1, 2], "b": 1, "c": [1]}, fields=["a", "b", "c"]
        )
        assert result.field_scores == {"a": 0.0, "b": 1.0, "c": 0.0} and result.error is None
        assert (
            result.fields[0].reason
            == "the output's value here is not JSON data: it holds a set, which is not JSON data"
        )
        assert result.fields[2].reason.endswith("it contains itself (a reference cycle)")

    def test_an_odd_value_at_a_configured_path_of_the_ground_truth_raises_naming_it(self):
        with pytest.raises(GroundTruthError, match="at a it holds a set, which is not JSON data"):
            json_field_match({"a": [1]}, {"a": {1, 2}}, fields=["a"])

    def test_an_odd_value_where_the_ground_truth_has_none_is_invented(self):
        result = json_field_match({"a": {1}, "b": 1, "c": {2}}, {"b": 1, "c": None}, fields=["a", "b", "c"])
        assert [item.status for item in result.fields] == ["invented", "match", "invented"]
        assert result.field_scores == {"a": 0.0, "b": 1.0, "c": 0.0}

    def test_the_ground_truth_is_checked_at_each_field_when_the_output_is_not_json(self):
        loop: list = []
        loop.append(loop)
        for odd, why in (({1, 2}, "holds a set"), (loop, "contains itself"), (_nested(3_000), "nests deeper")):
            with pytest.raises(GroundTruthError, match=why):
                json_field_match("no JSON here", {"a": odd}, fields=["a"])
        row = JsonFieldMatch(["a"]).evaluate(
            EvaluationData(input="", actual_output="no JSON here", expected_output={"a": loop})
        )
        assert row[0].score == 0.0 and not row[0].test_pass

    def test_a_path_through_a_value_that_is_not_json_says_so(self):
        result = json_field_match({"a": {1, 2}}, {"a": {"b": 1}}, fields=["a.b"])
        assert result.fields[0].status == "missed"
        assert "expects an object, found set (not JSON data)" in result.fields[0].reason

    @pytest.mark.parametrize("kind", [collections.OrderedDict, collections.defaultdict, SubDict])
    def test_dict_subclasses_read_only_the_configured_fields_too(self, kind):
        output = kind() if kind is not collections.defaultdict else collections.defaultdict(list)
        output.update({"a": 1, "junk": {1, 2}})
        truth = collections.defaultdict(list, {"a": 1, "junk": {3}})
        result = json_field_match(output, truth, fields=["a", "/a", "missing"])
        assert result.field_scores == {"a": 1.0, "/a": 1.0} and result.error is None
        assert dict(truth) == {"a": 1, "junk": {3}}  # a defaultdict's missing key was not created by a lookup

    def test_with_a_json_path_both_documents_are_checked_whole(self):
        result = json_field_match({"a": 1, "junk": {1, 2}}, {"a": 1}, fields=["$..a"])
        assert result.score == 0.0 and not result.passed and result.error == "unreadable"
        assert "set" in result.reason
        with pytest.raises(GroundTruthError, match="set"):
            json_field_match({"a": [1]}, {"a": [1], "junk": {1, 2}}, fields=["a", "$.a"])

    def test_tuples_read_as_lists(self):
        result = json_field_match({"a": (1, (2, 3))}, {"a": [1, [2, 3]]}, fields=["a", "a.1.0", "a[1][1]"])
        assert result.score == 1.0


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

    def test_a_truncated_output_is_read_repaired_and_said_so(self):
        cut = '{"name": "Ada", "email": "a@b'
        result = json_field_match(cut, {"name": "Ada", "email": "a@b.c"}, fields=["name", "email"])
        assert result.field_scores == {"name": 1.0, "email": 0.0}
        assert "output read as repaired (the answer was cut off (truncated JSON) and repaired: cut inside the " in (
            result.reason
        )
        assert "Python ==" not in result.reason  # Agenta's 0 on every field is stated once, with its real cause
        assert "cut inside the string value of 'email'" in json_diff(cut, {"name": "Ada"}).reason


@settings(max_examples=400, deadline=None, derandomize=True)
@given(pair=json_pair_strategy(), both_absent=st.sampled_from(["skip", "match", "miss"]), nulls=st.booleans())
def test_given_dicts_score_as_the_general_path(pair, both_absent, nulls):
    """Two dicts given as they are resolve each simple path in one walk per side, and score Agenta's
    reading from it; a `dict` subclass holds the same data and takes the general path (our resolver and
    the Agenta emulation): the results, notes included, are the same."""
    truth, output = pair
    if not isinstance(truth, dict):
        truth = {"a": truth}
    paths = ["a", "a.b", "b.0", "0", "1", "A", "c", "b.-1", "a.00", "a.b.0", "0.a", "$.a", "/a/0", 'a["b"]']
    options = {"fields": paths, "both_absent": both_absent, "null_is_missing": nulls}
    fast = json_field_match(output, truth, **options)
    assert fast == json_field_match(as_subclass(output), as_subclass(truth), **options)


SCALARS = st.one_of(
    st.booleans(),
    st.integers(-2, 2),
    st.sampled_from([1.0, 0.0, 2.5, float("nan")]),
    st.sampled_from(["a", "A", "", "a.b", "\u00e9"]),
)


@st.composite
def flat_cases(draw):
    """`(truth, output, paths)`: documents of scalars one or two levels deep, the output a few edits from the
    truth (a value changed to another of its type or of another, a field dropped, a null), and simple dot
    paths to the truth's leaves and a few more; mostly what `_given_scalars` decides."""
    keys = st.sampled_from(["a", "b", "c", "0", "1"])
    inner = st.one_of(SCALARS, st.dictionaries(keys, SCALARS, max_size=3), st.lists(SCALARS, max_size=3))
    truth = draw(st.dictionaries(keys, inner, min_size=1, max_size=4))
    subs = {
        key: list(value) if isinstance(value, dict) else range(len(value))
        for key, value in truth.items()
        if isinstance(value, (dict, list))
    }
    leaves = [(key, sub) for key in truth for sub in subs.get(key, [None])]
    output = json.loads(json.dumps(truth))
    for key, sub in draw(st.lists(st.sampled_from(leaves), max_size=3)) if leaves else []:
        holder, last = (output, key) if sub is None else (output[key], sub)
        edit = draw(st.sampled_from(["value", "drop", "null"]))
        if edit == "drop" and isinstance(holder, dict):
            holder.pop(last, None)
        elif last in holder or isinstance(holder, list):
            holder[last] = None if edit == "null" else draw(SCALARS)
    output.update(draw(st.dictionaries(st.sampled_from(["c", "d"]), SCALARS, max_size=1)))
    texts = [key if sub is None else f"{key}.{sub}" for key, sub in leaves]
    extra = draw(st.lists(st.sampled_from(["c", "d", "a.a", "b.0", "0.1"]), max_size=2))
    return truth, output, tuple(dict.fromkeys(texts + extra))


@settings(max_examples=500, deadline=None, derandomize=True)
@given(case=flat_cases(), both_absent=st.sampled_from(["skip", "match", "miss"]), nulls=st.booleans())
def test_plain_dicts_and_simple_paths_score_as_the_general_path(case, both_absent, nulls):
    """With only simple dot paths, two dicts (or their JSON text) whose fields are scalars of one type (or
    missing on one side) are decided in one walk per side (`_given_scalars`): the same results as the
    general path."""
    truth, output, paths = case
    if not paths:
        return
    options = {"both_absent": both_absent, "null_is_missing": nulls}
    fast = json_field_match(output, truth, fields=paths, **options)
    general = json_field_match(as_subclass(output), as_subclass(truth), fields=list(paths), **options)
    assert fast == general and fast.to_metadata() == general.to_metadata()
    # As JSON text (what Agenta reads with json.loads), with the shortcut and without it.
    texts = json.dumps(output), json.dumps(truth)
    fast = json_field_match(*texts, fields=paths, **options)
    with unittest.mock.patch("structsim_nb.json_match.field_match._given_scalars", return_value=None):
        general = json_field_match(*texts, fields=paths, **options)
    assert fast == general and fast.to_metadata() == general.to_metadata()


def test_the_one_walk_decides_plain_scalars_and_leaves_the_rest():
    """The shortcut the differential test above holds to the general path does run, and declines
    what it cannot decide (a null, a literal dotted key, a list value, types that differ)."""
    from structsim_nb.json_match.field_match import _given_scalars, _plan

    _, plain = _plan(("a", "b.c", "d"))
    assert plain is not None
    decided = _given_scalars(plain, {"a": 1, "b": {"c": "x"}, "d": 2.5}, {"a": 2, "b": {"c": "x"}}, 1.0)
    assert decided is not None and [f.status for f in decided.fields] == ["wrong", "match", "missed"]
    assert decided.reason == "1 of 3 fields matched (aggregate 0.33, threshold 1.00); not matched: a, d"
    assert decided.fields[2].reason == "not in the output: step 1 ('d'): no key 'd'"
    for truth, output in [({"a": None}, {"a": 1}), ({"b.c": 1}, {"b": {"c": 1}}), ({"a": [1]}, {"a": [1]})]:
        assert _given_scalars(plain, truth, output, 1.0) is None
    assert _given_scalars(plain, {"a": 1}, {"a": 1.0}, 1.0) is None
    assert _plan(["a", "b[0]"])[1] is None  # a bracket: not a simple path


@pytest.mark.parametrize("path", ["a.0", "a.1", "a.-1", "a.00", "a.01", "a.\u00b2", "a.\u0663", "a.2", "b.x", "a.0.x"])
@pytest.mark.parametrize("output", [{"a": [5, 6], "b": "s"}, {"a": [5, 7]}, {"a": {"0": 5, "-1": 6, "00": 5}}])
def test_list_index_tokens_read_as_the_general_path(path, output):
    """Tokens that Agenta's `str.isdigit` reads differently from ours (`-1`, `00`, `²`) leave the one-walk path."""
    truth = {"a": [5, 6], "b": "s"}
    fast = json_field_match(output, truth, fields=[path], both_absent="match")
    assert fast == json_field_match(as_subclass(output), as_subclass(truth), fields=[path], both_absent="match")


@pytest.mark.parametrize("path", [".a", "a."])
def test_paths_with_empty_segments_keep_agentas_literal_key_reading(path):
    """Agenta reads the whole text as a literal top-level key first: `.a` is that key there, `a` here."""
    result = json_field_match({"a": 2}, {path: 1, "a": 2}, fields=[path])
    assert result.score == 1.0 and f"{path}: Agenta scores 0.0" in result.reason
    dotted = json_field_match({"a": {"b": 2}}, {"a..b": 1, "a": {"b": 2}}, fields=["a..b"])
    assert "read as the literal key 'a..b' on both sides" in dotted.reason


def test_agentas_reading_is_of_the_objects_as_given_not_a_converted_copy():
    """A side that orjson refuses (a lone surrogate) is read the long way, tuples becoming lists;
    Agenta's resolver does not enter the tuple, and the note says so."""
    result = json_field_match({"a": (1, 2), "s": "\ud800"}, {"a": [1, 2]}, fields=["a.0"])
    assert result.score == 1.0 and "a.0: Agenta scores 0.0" in result.reason


def test_a_hand_built_field_path_with_index_steps():
    from structsim_nb.json_match.paths import FieldPath

    path = FieldPath("x.1", "dot", (("either", "x"), ("index", 1)))
    assert json_field_match({"x": [1, 2]}, {"x": [1, 2]}, fields=[path]).score == 1.0
    key = FieldPath("x.1", "dot", (("either", "x"), ("key", "1")))  # same text, a key step
    assert json_field_match({"x": [1, 2]}, {"x": [1, 2]}, fields=[key]).fields[0].status == "absent"
