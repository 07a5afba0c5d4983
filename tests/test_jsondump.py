"""dump_bytes: readable sorted JSON, the same bytes every time, and a careful path for data orjson refuses;
round_trip: the plain sorted copy json.dumps and json.loads would give."""

from __future__ import annotations

import datetime
import enum
import json
import math
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb import _jsondump
from structsim_nb._jsondump import dump_bytes, round_trip

_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_plain)
def test_the_layout_of_json_dumps_sorted_and_indented(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert dump_bytes(value) == expected.encode("utf-8")


def test_data_orjson_refuses_is_made_plain() -> None:
    data = {"nan": math.nan, "inf": -math.inf, 1: (1, 2), "big": 2**70, "huge": 10**5000, "s": "\ud800x"}
    written = dump_bytes(data)
    text = written.decode("utf-8")  # valid UTF-8 although the string held a lone surrogate
    assert json.loads(text) == {
        "nan": None,
        "inf": None,
        "1": [1, 2],
        "big": 2**70,
        "huge": "<integer of 16,610 bits>",
        "s": "\ud800x",
    }
    assert dump_bytes(data) == written  # deterministic on the careful path too


def test_nan_is_null_on_the_fast_path_too() -> None:
    assert json.loads(dump_bytes({"a": math.nan, "b": [1.5]})) == {"a": None, "b": [1.5]}


class _Colour(enum.Enum):
    RED = "red"


class _Text(str):
    pass


_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()  # past 64 bits too, up to the text conversion limit
    | st.sampled_from([2**64 - 1, 2**64, -(2**64) + 1, -(2**64)])  # at and past our limit
    | st.builds(lambda: 10**4301)  # past the text conversion's (built: a sample's repr would fail)
    | st.floats()  # NaN, the infinities and -0.0 included
    | st.text(max_size=6)  # lone surrogates included
    | st.sampled_from([_Colour.RED, _Text("t"), datetime.date(2024, 1, 2), b"x", {1, 2}])
)
_KEYS = st.text(max_size=4) | st.integers(-3, 3) | st.sampled_from([None, True, 1.5, _Text("k")])
_ANY = st.recursive(
    _SCALARS,
    lambda children: (
        st.lists(children, max_size=4)
        | st.lists(children, max_size=3).map(tuple)
        | st.dictionaries(st.text(max_size=4), children, max_size=4)
        | st.dictionaries(_KEYS, children, max_size=3)
    ),
    max_leaves=25,
)


def _through_text(value: object) -> object:
    """What `round_trip` replaces: the value, or the exception's type and message."""
    try:
        return json.loads(json.dumps(value, sort_keys=True, default=str))
    except Exception as exc:  # noqa: BLE001 - the exception is the expected result
        return (type(exc), str(exc))


@settings(max_examples=1500, deadline=None)
@given(_ANY)
def test_round_trip_is_json_dumps_then_loads(value: object) -> None:
    try:
        ours: object = round_trip(value)
    except Exception as exc:  # noqa: BLE001
        ours = (type(exc), str(exc))
    expected = _through_text(value)
    # repr compares what == cannot: key order, NaN, -0.0, True against 1, a list against a tuple.
    assert repr(ours) == repr(expected)
    assert type(ours) is type(expected)


def test_round_trip_copies_plain_data_without_the_text(monkeypatch: object) -> None:
    value = {"b": [1.5, (2, None)], "a": {"y": math.nan, "x": True}, "c": -(2**63)}
    copied = round_trip(value)
    assert list(copied) == ["a", "b", "c"] and list(copied["a"]) == ["x", "y"]
    assert copied["b"] == [1.5, [2, None]] and math.isnan(copied["a"]["y"])
    assert copied["b"] is not value["b"]  # a copy: changing it leaves the scorer's row alone

    def refuse(*args: object, **kwargs: object) -> str:
        raise AssertionError("plain data went through the text route")

    monkeypatch.setattr(_jsondump.json, "dumps", refuse)  # type: ignore[attr-defined]
    assert round_trip(value) == copied


def test_round_trip_takes_the_text_route_for_what_the_copy_cannot_vouch_for() -> None:
    assert round_trip({"c": _Colour.RED, "d": datetime.date(2024, 1, 2)}) == {"c": "_Colour.RED", "d": "2024-01-02"}
    assert round_trip({2: "b", 10: "a"}) == {"2": "b", "10": "a"}  # sorted as numbers, then made text
    assert round_trip({"n": 2**70}) == {"n": 2**70}
    deep: object = []
    for _ in range(sys.getrecursionlimit() * 2):
        deep = [deep]
    try:
        round_trip(deep)
    except RecursionError:
        pass  # as json.dumps raises on it
