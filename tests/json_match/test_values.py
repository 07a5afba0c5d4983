"""Tests for structsim_nb.json_match.values: the equality rule and reading each side as JSON."""

from __future__ import annotations

import json

import pytest

from structsim_nb.answers import MAX_DEPTH, parse_answer
from structsim_nb.errors import GroundTruthError
from structsim_nb.json_match.flatten import flatten_json
from structsim_nb.json_match.values import (
    as_json,
    check_threshold,
    load_json_text,
    read_expected,
    read_output,
    same_value,
    short,
)


class TestSameValue:
    @pytest.mark.parametrize(
        ("a", "b", "equal"),
        [
            ({"a": 1}, {"a": 1.0}, True),
            (True, 1, False),
            (1, True, False),
            (float("nan"), float("nan"), True),
            ([1, 2], [2, 1], False),
            ({"a": None}, {}, False),
            (None, None, True),
            ("1", 1, False),
            ({"a": [1, {"b": "x"}]}, {"a": [1.0, {"b": "x"}]}, True),
        ],
    )
    def test_value_rule(self, a, b, equal):
        assert same_value(a, b) is equal

    def test_normalisation_is_opt_in(self):
        assert not same_value({"c": " Paris"}, {"c": "paris"})
        assert same_value({"c": " Paris"}, {"c": "paris"}, ignore_case=True, strip=True)


class TestReading:
    def test_output_never_raises(self):
        assert read_output("no json").ok is False and "output is not JSON" in read_output("no json").message
        assert read_output({"when": object()}).ok is False
        assert read_output(("a", 1)).value == ["a", 1]

    def test_expected_string_is_json_text(self):
        assert read_expected('{"a": 1}') == {"a": 1}
        with pytest.raises(GroundTruthError, match="which is not JSON"):
            read_expected("Paris")
        with pytest.raises(GroundTruthError, match="got object"):
            read_expected(object())

    def test_threshold_zero_is_kept(self):
        assert check_threshold(0, 0.5) == 0.0 and check_threshold(None, 0.5) == 0.5 and check_threshold(1, 0.5) == 1.0


class TestAsJson:
    def test_plain_json_comes_back_uncopied(self):
        value = {"a": [1, {"b": None}], "c": "x"}
        ok, plain = as_json(value)
        assert ok and plain is value

    def test_only_what_changes_is_copied(self):
        inner = {"keep": [1, 2]}
        value = {"t": (1, (2, 3)), "inner": inner}
        ok, plain = as_json(value)
        assert ok and plain == {"t": [1, [2, 3]], "inner": {"keep": [1, 2]}}
        assert plain is not value and plain["inner"] is inner and value["t"] == (1, (2, 3))

    def test_non_json_anywhere_is_refused(self):
        assert as_json({"a": [1, {"b": {1, 2}}]}) == (False, None)
        assert as_json({1: "a"}) == (False, None)


class TestDepthLimit:
    """`as_json`, `flatten_json` and `parse_answer` draw the nesting limit in the same place."""

    @staticmethod
    def _nest(depth: int, inner: object) -> object:
        value = inner
        for _ in range(depth):
            value = [value]
        return value

    @pytest.mark.parametrize(
        ("depth", "inner", "accepted"),
        [
            (MAX_DEPTH, [], True),  # an empty array at depth MAX_DEPTH: nothing below it
            (MAX_DEPTH, {}, True),
            (MAX_DEPTH, 1, True),  # a scalar at depth MAX_DEPTH
            (MAX_DEPTH + 1, 1, False),  # a scalar below depth MAX_DEPTH
            (MAX_DEPTH + 1, [], False),
        ],
    )
    def test_same_limit_everywhere(self, depth, inner, accepted):
        value = self._nest(depth, inner)
        text = json.dumps(value)
        assert as_json(value)[0] is accepted
        assert (flatten_json(value) is not None) is accepted
        assert (parse_answer(text).value == value) is accepted
        assert load_json_text(text)[0] is accepted
        assert (read_output(text).value == value) is accepted


@pytest.mark.parametrize("value", [123456, 1.25e-7, True, None, "abcdef", [1, 2, 3]])
def test_short_keeps_to_its_limit_for_every_type(value):
    assert len(short(value, limit=5)) <= 5
