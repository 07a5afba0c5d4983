"""Tests for structsim_nb.json_match.results: `LeafResults` is the tuple it builds, made on first read."""

from __future__ import annotations

import pickle

import pytest

from structsim_nb.json_match import FieldResult, json_diff
from structsim_nb.json_match.results import JsonMatchResult, LeafResults, field_result


def _rows():
    return [(("a",), "match", 1, 1, "equal"), (("b", 0), "wrong", 2, 3, "expected 2, got 3")]


def _render(steps):
    return ".".join(map(str, steps))


WANT = (
    FieldResult("a", "match", 1.0, 1, 1, "equal"),
    FieldResult("b.0", "wrong", 0.0, 2, 3, "expected 2, got 3"),
)


class TestLeafResults:
    def test_behaves_as_the_tuple_it_builds(self):
        leaves = LeafResults(_rows(), _render)
        assert len(leaves) == 2 and leaves == WANT and WANT == leaves
        assert leaves[1] == WANT[1] and leaves[-1] == WANT[-1] and leaves[:1] == WANT[:1]
        assert list(leaves) == list(WANT) and hash(leaves) == hash(WANT) and repr(leaves) == repr(WANT)
        assert leaves == LeafResults(_rows(), _render) and leaves != WANT[:1]
        assert pickle.loads(pickle.dumps(leaves)) == WANT

    def test_rows_made_once_when_first_needed(self):
        calls = []

        def rows():
            calls.append(1)
            return _rows()

        leaves = LeafResults(rows, _render)
        assert calls == []
        assert list(leaves.statuses()) == ["match", "wrong"] and len(leaves) == 2 and leaves == WANT
        assert calls == [1]

    def test_records_need_no_field_results(self):
        leaves = LeafResults(_rows(), _render)
        assert list(leaves.records()) == [(f.path, f.status, f.score, f.expected, f.predicted, f.reason) for f in WANT]
        assert leaves._items is None  # nothing was built

    def test_a_result_with_leaf_results_equals_one_with_the_tuple(self):
        lazy = JsonMatchResult("json_diff", 0.5, True, "r", LeafResults(_rows(), _render))
        eager = JsonMatchResult("json_diff", 0.5, True, "r", WANT)
        assert lazy == eager and lazy.counts == eager.counts and lazy.to_metadata() == eager.to_metadata()
        assert lazy.non_matches() == eager.non_matches()


class TestFieldResultEquality:
    def test_results_holding_one_nan_are_equal_on_every_python(self):
        # Python 3.13's dataclasses compare field by field, where NaN != NaN; before, as tuples (identity first).
        nan = float("nan")
        made = FieldResult("a", "wrong", 0.0, None, nan, "expected null, got NaN")
        again = field_result("a", "wrong", 0.0, None, nan, "expected null, got NaN")
        assert made == again and hash(made) == hash(again)
        assert json_diff([nan], [None]) == json_diff([nan], [None])
        assert made != FieldResult("a", "wrong", 0.0, None, float("nan"), "expected null, got NaN")  # another NaN

    def test_each_field_and_the_class_count(self):
        base = ("a", "wrong", 0.0, 1, 2, "r")
        for index, other in enumerate(["b", "match", 1.0, 3, 4, "s"]):
            changed = list(base)
            changed[index] = other
            assert FieldResult(*base) != FieldResult(*changed)
        assert FieldResult(*base) != base and FieldResult(*base).__eq__(base) is NotImplemented


def test_diff_metadata_holds_every_leaf():
    result = json_diff({"a": 1, "b": [2, float("nan")]}, {"a": 1, "b": [3, float("nan")]})
    metadata = result.to_metadata()
    assert [f["path"] for f in metadata["fields"]] == ["a", "b[0]", "b[1]"]
    assert metadata["fields"][2]["expected"] == "nan"  # non-finite floats made writable
    assert [r["path"] for r in metadata["non_matches"]] == ["b[0]"] and metadata["counts"]["fd"] == 1


class TestFieldsAttribute:
    def test_fields_is_always_a_tuple_built_once(self):
        result = json_diff({"a": 1, "b": [2, 3]}, {"a": 1, "b": [2, 4]})
        assert isinstance(result.__dict__["_fields"], LeafResults)  # recorded, not built
        result.to_metadata(), result.counts, result.non_matches()
        assert result.__dict__["_fields"]._items is None  # the report path never built them
        fields = result.fields
        assert type(fields) is tuple and result.fields is fields and [f.path for f in fields] == ["a", "b[0]", "b[1]"]

    def test_dataclass_tools_see_the_tuple(self):
        import dataclasses

        result = json_diff({"a": 1}, {"a": 2})
        as_dict = dataclasses.asdict(result)
        assert as_dict["fields"] == (
            {
                "path": "a",
                "status": "wrong",
                "score": 0.0,
                "expected": 2,
                "predicted": 1,
                "reason": "expected 2, got 1",
            },
        )
        assert dataclasses.replace(result, score=0.5).fields == result.fields
        with pytest.raises(dataclasses.FrozenInstanceError):
            result.fields = ()  # type: ignore[misc]
        assert pickle.loads(pickle.dumps(json_diff({"a": 1}, {"a": 2}))) == result
        assert JsonMatchResult("exact_match", 1.0, True, "equal").fields == ()
        assert JsonMatchResult("exact_match", 1.0, True, "equal", [WANT[0]]).fields == (WANT[0],)
