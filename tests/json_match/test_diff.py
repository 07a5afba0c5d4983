"""diff: the share of ground-truth leaves the output matches, with Agenta's options."""

from __future__ import annotations

import json

import pytest
from helpers import SEED_GT, SEED_OUT, as_subclass, json_pair_strategy, replace_leaf
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.errors import GroundTruthError
from structsim_nb.json_match import (
    JsonDiff,
    json_diff,
    json_field_match,
)


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

    @pytest.mark.parametrize(
        ("out", "gt", "score"),
        [
            ({"a": {"b": 1}, "c": 1}, {"a": 1, "c": 1}, 1 / 3),  # keys a, a.b, c (Agenta's union)
            ({"a": 5, "c": 1}, {"a": {"b": 1}, "c": 1}, 1 / 3),  # keys a.b, a, c
            ({"a": {"b": 1, "e": 3}, "c": 1}, {"a": 1, "c": 1}, 1 / 4),
        ],
    )
    def test_extra_keys_where_the_shapes_differ_count_in_the_union(self, out, gt, score):
        # The ground truth's row is wrong; the output's leaves there are keys the ground truth lacks, as in Agenta.
        result = json_diff(out, gt, penalize_extra_keys=True)
        assert result.score == pytest.approx(score) and not result.passed
        assert "another shape" in next(item.reason for item in result.fields if item.status == "invented")
        assert json_diff(out, gt).score == pytest.approx(0.5)  # without the union: only the ground truth's keys

    def test_an_extra_null_leaf_left_uncounted_is_said(self):
        result = json_diff({"a": 1, "b": None}, {"a": 1}, penalize_extra_keys=True)
        assert result.score == 1.0 and "1 extra null output leaf not counted" in result.reason
        assert json_diff({"a": 1, "b": None}, {"a": 1}, penalize_extra_keys=True, null_is_missing=False).score == 0.5

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


class TestNotes:
    def test_a_missed_null_leaf_is_not_called_a_match(self):
        """`null_is_missing=False`: a null ground-truth leaf the output lacks is missed, and the note says
        only that null equals null, not "and a missing leaf"."""
        result = json_diff({"a": None}, {"a": None, "b": None}, null_is_missing=False)
        assert [f.status for f in result.fields] == ["match", "missed"]
        assert "null equals null (Agenta scores null leaves 0)" in result.notes
        assert json_diff({"a": None}, {"a": None, "b": None}).notes == (
            "null equals null and a missing leaf (Agenta scores null leaves 0)",
        )

    def test_a_scalar_above_a_leaf_is_no_python_eq_difference(self):
        """The output's `1` where the truth has `{"b": 1}` is wrong by both rules; no `==` note."""
        result = json_diff({"a": 1}, {"a": {"b": 1}})
        assert result.fields[0].status == "wrong" and result.notes == ()

    TWINS = "a list index and a key of the same digits, or what a top-level '' key holds and the top level, stay "

    @pytest.mark.parametrize(
        ("actual", "expected"),
        [
            ({"a": {"0": 1, "1": 2}}, {"a": [1, 2]}),  # an answer that wrote a list as an object
            ({"a": [1, 2]}, {"a": {"0": 1, "1": 2}}),
            ({"": {"x": 1}}, {"x": 1}),
            ({"": {"x": 5}, "x": 1}, {"": {"x": 1}, "x": 1}),
            ({"x": 2, "": {"x": 1}}, {"x": 1}),  # every ground-truth leaf is there: only the output has the "" key
        ],
        ids=[
            "digit-keys-for-a-list",
            "a-list-for-digit-keys",
            "under-a-top-level-empty-key",
            "empty-key-and-top",
            "an-extra-empty-key-in-the-output",
        ],
    )
    def test_a_leaf_agenta_writes_at_the_path_of_another_is_noted(self, actual, expected):
        # Agenta's flattening writes these at one path and scores the pair otherwise; the reason said nothing.
        result = json_diff(actual, expected)
        assert result.score < 1.0
        assert any(note.startswith(self.TWINS) for note in result.notes)

    @pytest.mark.parametrize(
        ("actual", "expected"),
        [({"a": [1, 3]}, {"a": [1, 2]}), ({"a": {"007": 1}}, {"a": [1, 2, 3, 4, 5, 6, 7, 8]}), ({"b": 1}, {"": 1})],
        ids=["no-twin", "digits-that-are-no-index-spelling", "an-empty-key-holding-a-value"],
    )
    def test_no_twin_no_note(self, actual, expected):
        assert not any(note.startswith(self.TWINS) for note in json_diff(actual, expected).notes)

    def test_keys_agenta_lowers_otherwise_are_noted(self):
        # 'ß' case-folds to 'ss' and lowers to itself: this matches where Agenta's lower() does not.
        result = json_diff({"Straße": 1}, {"strasse": 1}, case_insensitive_keys=True)
        assert result.score == 1.0
        assert "keys folded with str.casefold, so 'ß' matches 'ss' (Agenta lowers them with str.lower)" in result.notes
        assert json_diff({"Name": 1}, {"name": 1}, case_insensitive_keys=True).notes == ()


@pytest.mark.parametrize("output", ["no JSON here at all", {"a": {1, 2}}], ids=["prose", "a-set-inside"])
@pytest.mark.parametrize("skip_nulls", [False, True])
def test_unreadable_output_scores_0_whatever_nulls_the_ground_truth_holds(output, skip_nulls):
    # Each null ground-truth leaf "agreed" with the empty reading (null_is_missing), so such output scored 0.5 or 1.0.
    for truth in ({"name": "Ada", "email": None}, {"a": None}):
        result = json_diff(output, truth, skip_nulls=skip_nulls, threshold=0)
        assert (result.score, result.passed, result.error) == (0.0, False, "unreadable")
        assert all(item.status == "missed" for item in result.fields)


def _options(bits):
    """`json_diff` options, one per bit of `bits`: schema only, case-insensitive keys, extra keys penalised,
    nulls skipped, empty containers compared, null is missing, threshold 0."""
    flags = [(bits >> bit) & 1 == 1 for bit in range(7)]
    return dict(
        compare_schema_only=flags[0],
        case_insensitive_keys=flags[1],
        penalize_extra_keys=flags[2],
        skip_nulls=flags[3],
        compare_empty_containers=flags[4],
        null_is_missing=flags[5],
        threshold=0.0 if flags[6] else None,
    )


@settings(max_examples=400, deadline=None, derandomize=True)
@given(pair=json_pair_strategy(), options=st.integers(0, 127))
def test_given_dicts_score_as_the_general_path(pair, options):
    """Dicts and lists given as they are are checked while flattened (one walk); a `dict` subclass holds
    the same data and is read first: the results, notes and field scores included, are the same."""
    truth, output = pair
    kwargs = _options(options)

    def run(actual, expected):
        try:
            return json_diff(actual, expected, **kwargs)
        except GroundTruthError as exc:
            return str(exc)

    assert run(output, truth) == run(as_subclass(output), as_subclass(truth))


@settings(max_examples=400, deadline=None, derandomize=True)
@given(pair=json_pair_strategy(), options=st.integers(0, 63))
def test_counting_present_leaves_scores_as_the_rows(pair, options):
    """When the output has every ground-truth leaf, the leaves are counted as the ground truth is flattened and
    their rows made on first read (`flatten_compared`); with that off, every row is made at once: the same
    results, rows and metadata."""
    from structsim_nb.json_match import diff as module

    truth, output = pair
    kwargs = _options(options)

    def run():
        try:
            result = json_diff(output, truth, **kwargs)
        except GroundTruthError as exc:
            return str(exc)
        return result, result.to_metadata(), result.counts

    fast = run()
    with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis runs many examples
        patch.setattr(module, "flatten_compared", lambda *args, **kwargs: None)
        assert run() == fast


def _twin_prone_pair() -> st.SearchStrategy:
    """`(ground truth, output)` with "" and digit keys beside lists; the output mostly has every ground-truth leaf,
    a value changed, and now and then a top-level "" key holding a copy (the paths Agenta writes twice)."""
    keys = st.sampled_from(["", "0", "1", "a"])
    scalar = st.sampled_from([0, 1, "x", None])
    document = st.recursive(
        scalar,
        lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(keys, children, max_size=3)),
        max_leaves=8,
    )

    @st.composite
    def pair(draw):
        truth = draw(st.dictionaries(keys, document, min_size=1, max_size=3))
        output = json.loads(json.dumps(truth))
        replace_leaf(output, draw(st.integers(0, 20)), draw(scalar))
        if draw(st.booleans()):
            output[""] = draw(st.sampled_from([json.loads(json.dumps(truth)), draw(document)]))
        return truth, output

    return pair()


@settings(max_examples=400, deadline=None, derandomize=True)
@given(pair=_twin_prone_pair(), schema_only=st.booleans())
def test_counting_present_leaves_notes_twins_as_the_rows(pair, schema_only):
    """The one-walk count looks for Agenta's twins only under a top-level "" key (elsewhere the output's
    containers are the ground truth's when it has every leaf): the same notes as with it off."""
    from structsim_nb.json_match import diff as module

    truth, output = pair
    fast = json_diff(output, truth, compare_schema_only=schema_only)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "flatten_compared", lambda *args, **kwargs: None)
        assert json_diff(output, truth, compare_schema_only=schema_only) == fast


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    pair=json_pair_strategy(),
    before=st.sampled_from(["", " ", "\n", "\u00a0", "<think>{'a': 1}</think>", "```json\n", "Answer: "]),
    after=st.sampled_from(["", " \n", "\n```", "\u2003"]),
    truth_as_text=st.booleans(),
    keep=st.booleans(),
)
def test_text_read_in_one_walk_scores_as_the_general_path(pair, before, after, truth_as_text, keep):
    """Whole-text JSON is loaded and flattened in one checked walk; anything else (prose, fences, think
    blocks, non-JSON whitespace) takes `read_output`. Both ways give the same result."""
    from structsim_nb.json_match import diff as module

    truth, output = pair
    actual = before + json.dumps(output) + after
    expected = json.dumps(truth) if truth_as_text else truth

    def run():
        try:
            return json_diff(actual, expected, compare_empty_containers=keep)
        except GroundTruthError as exc:
            return str(exc)

    fast = run()
    with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis runs many examples
        patch.setattr(module, "_given", lambda *args, **kwargs: module._UNREAD)
        assert run() == fast


@pytest.mark.parametrize(
    "actual",
    [
        '{"a": "<think>x</think>"}',  # whole-text JSON: a think tag in a string is data (parse_answer's call)
        '{"a": "<THINK>x</think>"}',
        ' {"a": "x"} ',
        '\u00a0{"a": "x"}',  # not JSON whitespace: parse_answer strips it, json.loads does not
        '[{"a": "x"}]',
        '{"a": 12345678901234567890123}',
    ],
)
def test_text_answers_the_one_walk_must_leave_to_parse_answer(actual):
    from structsim_nb.json_match import diff as module

    truth = {"a": "<think>x</think>"}
    fast = json_diff(actual, truth)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "_given", lambda *args, **kwargs: module._UNREAD)
        assert json_diff(actual, truth) == fast


def test_keys_that_differ_only_in_case_are_no_python_eq_difference():
    result = json_diff({"a": 1, "A": 1}, {"a": 1}, case_insensitive_keys=True)
    assert result.fields[0].status == "wrong" and "differ only in case" in result.fields[0].reason
    assert not any("Python ==" in note for note in result.notes)
