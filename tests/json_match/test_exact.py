"""exact: exact match compared as values, and its notes where Agenta would score otherwise."""

from __future__ import annotations

import datetime
import json

import pytest
from helpers import as_subclass, json_pair_strategy
from hypothesis import example, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from structsim_nb.json_match import (
    exact_match,
    same_value,
)
from structsim_nb.json_match.values import drop_nulls


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
    for pair in ((a, b), (a, a), (b, json.loads(json.dumps(b)))):
        strict = exact_match(*pair, ignore_case=ignore_case, strip=strip, null_is_missing=False)
        assert strict.passed == same_value(pair[1], pair[0], ignore_case=ignore_case, strip=strip), pair
        # The default reads a null-valued key as absent: the same rule on both sides with nulls dropped.
        default = exact_match(*pair, ignore_case=ignore_case, strip=strip)
        expected = same_value(drop_nulls(pair[1]), drop_nulls(pair[0]), ignore_case=ignore_case, strip=strip)
        assert default.passed == expected, pair


class TestReasonsTellTheTruth:
    """Every exact-match row notes each difference from Agenta that changed the result, and no false one."""

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


_NAN = float("nan")


@settings(max_examples=400, deadline=None, derandomize=True)
@given(pair=json_pair_strategy(), ignore_case=st.booleans(), null_is_missing=st.booleans())
@example(pair=({"a": [_NAN, 1], "b": None}, {"a": [_NAN, 1], "b": []}), ignore_case=False, null_is_missing=False)
def test_given_dicts_score_as_the_general_path(pair, ignore_case, null_is_missing):
    """Dicts and lists given on both sides take one walk per side (or none, when identical); a
    `dict` subclass holds the same data and takes the general path: the results are the same."""
    truth, output = pair
    options = {"ignore_case": ignore_case, "null_is_missing": null_is_missing}
    fast = exact_match(output, truth, **options)
    # Compared by repr: the one walk keeps a copy of both documents for the rows it makes later, so a NaN there is
    # another float object than the caller's, and NaN != NaN (found by a long random run; pinned by the example).
    assert repr(fast) == repr(exact_match(as_subclass(output), as_subclass(truth), **options))


@settings(max_examples=600, deadline=None, derandomize=True)
@given(pair=json_pair_strategy(booleans=False), ignore_case=st.booleans(), null_is_missing=st.booleans())
def test_differing_documents_without_booleans_score_as_the_general_path(pair, ignore_case, null_is_missing):
    """Two documents that differ and hold no boolean are compared only where `==` tells them apart
    (`flatten_differences`); the verdict, the reason and every row are the general path's."""
    truth, output = pair
    options = {"ignore_case": ignore_case, "null_is_missing": null_is_missing}
    fast = exact_match(output, truth, **options)
    general = exact_match(as_subclass(output), as_subclass(truth), **options)
    assert repr(fast) == repr(general)  # (by repr: NaN, as in the test above)
    assert [(f.path, f.status, f.reason) for f in fast.fields] == [(f.path, f.status, f.reason) for f in general.fields]


def test_a_long_list_differing_in_one_item_names_that_leaf():
    truth = {"items": [{"sku": f"S{i}", "qty": i, "price": i * 1.5} for i in range(300)], "total": 10.0}
    output = json.loads(json.dumps(truth))
    output["items"][-1]["qty"] += 1
    output["items"][0]["sku"] = "s0"
    result = exact_match(output, truth)
    assert result.reason == "not equal: items[0].sku, items[299].qty"
    assert len(result.fields) == 901 and [f.path for f in result.fields if f.status != "match"] == [
        "items[0].sku",
        "items[299].qty",
    ]
    assert exact_match(output, truth, ignore_case=True).reason == "not equal: items[299].qty"


@pytest.mark.parametrize(
    "change",
    [
        lambda truth, output: output["b"].update(y=99),
        lambda truth, output: truth["b"].update(z=3),
        lambda truth, output: output.clear(),
        lambda truth, output: truth["b"].pop("x"),
    ],
    ids=["a-leaf-of-the-output", "a-key-added-to-the-truth", "the-output-emptied", "a-key-removed-from-the-truth"],
)
def test_the_fields_are_what_the_documents_held_when_they_were_scored(change):
    """The per-leaf results are made when first read; changing the documents after the call changes none of them
    (they once did, or raised KeyError), on the fast path as on the general one."""

    def documents():
        return {"a": 1, "b": {"x": 1.5, "y": [2, None]}}, {"a": 2, "b": {"x": 1.5, "y": [2, None]}}

    truth, output = documents()
    result = exact_match(output, truth)
    change(truth, output)
    fresh = exact_match(*reversed(documents()))
    assert result == fresh and list(result.fields) == list(fresh.fields)
    assert [(f.path, f.status) for f in result.fields] == [
        ("a", "wrong"),
        ("b.x", "match"),
        ("b.y[0]", "match"),
        ("b.y[1]", "match"),
    ]


def _deep_list(levels: int) -> list:
    value: list = [1]
    for _ in range(levels - 1):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("output", "truth"),
    [({1, 2}, "{1, 2}"), (datetime.date(2024, 3, 1), "2024-03-01"), (_deep_list(101), json.dumps(_deep_list(101)))],
    ids=["a-set-against-its-text", "a-date-against-its-text", "too-deep-against-its-json-text"],
)
def test_output_that_is_not_json_data_is_unreadable_even_against_its_own_text(output, truth):
    # It was compared as its str() with a text ground truth, and passed.
    result = exact_match(output, truth)
    assert (result.score, result.passed, result.error) == (0.0, False, "unreadable")
    assert "is not JSON data" in result.reason


def test_a_boolean_equal_to_a_number_by_python_is_still_a_difference():
    """`[True] == [1]` in Python; a subtree is passed over only where no boolean can hide in it."""
    result = exact_match({"flags": [1, 0], "n": 2}, {"flags": [True, False], "n": 1})
    assert result.reason == "not equal: flags[0], flags[1], n"


def test_a_leaf_passed_over_still_shows_the_value_the_output_holds():
    """`[1] == [1.0]`, so that subtree is passed over; its row still shows the output's 1.0, not the truth's 1."""
    result = exact_match({"a": [1.0], "b": 3}, {"a": [1], "b": 2})
    [a0] = [f for f in result.fields if f.path == "a[0]"]
    assert a0.status == "match" and type(a0.expected) is int and type(a0.predicted) is float
    assert result.reason == "not equal: b"


def test_keys_in_another_order_list_what_the_output_adds_in_its_own_order():
    truth = {"a": {"x": 1}, "b": {"y": 1}}
    output = {"b": {"y": 1, "z": 2}, "a": {"x": 1, "w": 3}}
    general = exact_match(as_subclass(output), as_subclass(truth))
    assert exact_match(output, truth) == general
    assert general.reason == "not equal: b.z, a.w"


def test_subclass_values_are_kept_as_the_output_gives_them():
    import enum

    class Label(str):
        pass

    class Level(enum.IntEnum):
        LOW = 1

    for output, truth in (
        ({"a": Label("x")}, {"a": "x"}),
        ({"a": Level.LOW}, {"a": 1}),
        ({"a": "x"}, {"a": Label("x")}),
    ):
        field = exact_match(output, truth).fields[0]
        assert type(field.predicted) is type(output["a"]) and type(field.expected) is type(truth["a"])


def test_agentas_verdict_on_an_enum_whose_value_is_not_its_text():
    """json.dumps writes a str enum as its text ("x"); orjson would write its value ("ex")."""
    import enum

    class Tag(str, enum.Enum):
        def __new__(cls, text: str, label: str) -> Tag:
            member = str.__new__(cls, text)
            member._value_ = label
            return member

        X = ("x", "ex")

    result = exact_match({"a": Tag.X}, {"a": "x"})
    assert result.passed and result.reason == "equal"  # Agenta's json.dumps texts are equal: no note
