"""Tests for structsim_nb.json_match.flatten: leaves by path and the leaf-by-leaf comparison."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.json_match import exact_match
from structsim_nb.json_match.flatten import compare_leaves, flatten, flatten_json, fold_keys
from structsim_nb.json_match.values import as_json, same_value


class TestFlatten:
    def test_agenta_rule_drops_empty_containers_and_a_scalar_root(self):
        value = {"a": {"b": 1}, "c": [None, [2]], "d": [], "e": {}}
        assert flatten(value, keep_empty=False) == {("a", "b"): 1, ("c", 0): None, ("c", 1, 0): 2}
        assert flatten(5, keep_empty=False) == {} and flatten({}, keep_empty=False) == {}

    def test_empty_containers_kept_as_leaves(self):
        assert flatten({"d": [], "e": {}}) == {("d",): [], ("e",): {}}
        assert flatten(5) == {(): 5}

    def test_dotted_keys_stay_distinct(self):
        assert flatten({"a.b": 1, "a": {"b": 2}}) == {("a.b",): 1, ("a", "b"): 2}

    def test_fold_keys_reports_collisions(self):
        folded, original, collisions = fold_keys({("Name",): 1, ("NAME",): 2, ("x",): 3})
        assert folded == {("name",): 2, ("x",): 3} and original[("name",)] == ("NAME",)
        assert collisions == {("name",): [("Name",), ("NAME",)]}


def test_compare_leaves_statuses():
    gt = flatten({"a": 1, "b": {"c": 2}, "d": 3})
    out = flatten({"a": 1, "b": 5, "e": 4})
    pairs = compare_leaves(gt, out, agree=same_value, extras=True)
    assert [(item.path, item.status) for _, item in pairs] == [
        ("a", "match"),
        ("b.c", "wrong"),  # the output has a scalar above the leaf
        ("d", "missed"),
        ("b", "invented"),  # the union of both sides' leaves, as Agenta's: the output's `b` is a key it lacks
        ("e", "invented"),
    ]


class _Mapping(dict):  # a dict subclass, as a caller might pass one
    pass


JSONISH = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.floats(allow_nan=True), st.text(max_size=3)),
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(alphabet="ab.", max_size=2), children, max_size=3),
        st.dictionaries(st.text(alphabet="ab", max_size=2), children, max_size=2).map(_Mapping),
        st.dictionaries(st.integers(0, 2), children, min_size=1, max_size=2),
        st.frozensets(st.integers(0, 2), min_size=1, max_size=2),
    ),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=JSONISH, keep_empty=st.booleans())
def test_flatten_json_is_flatten_of_the_json_reading(value, keep_empty):
    ok, plain = as_json(value)
    got = flatten_json(value, keep_empty=keep_empty)
    if not ok:
        assert got is None
    else:
        want = flatten(plain, keep_empty=keep_empty)
        assert got is not None and list(got) == list(want)
        assert all(same_value(got[key], want[key]) and type(got[key]) is type(want[key]) for key in want)


@settings(max_examples=300, deadline=None, derandomize=True)
@given(value=JSONISH, keep_empty=st.booleans())
def test_flatten_json_dropping_null_keys_is_flatten_of_drop_nulls(value, keep_empty):
    from structsim_nb.json_match.values import drop_nulls

    ok, plain = as_json(value)
    dotted: list[bool] = []
    got = flatten_json(value, keep_empty=keep_empty, drop_null_keys=True, dotted=dotted)
    if not ok:
        assert got is None
        return
    want = flatten(drop_nulls(plain), keep_empty=keep_empty)
    assert got is not None and list(got) == list(want)
    assert all(same_value(got[key], want[key]) and type(got[key]) is type(want[key]) for key in want)
    # `dotted`: a key holding a '.' lies on some leaf's path
    assert bool(dotted) == any(isinstance(step, str) and "." in step for key in want for step in key)


class _Refuses(dict):
    """A dict subclass whose == raises (as a strict model's might)."""

    def __eq__(self, other):
        raise TypeError("does not compare")

    __hash__ = None  # type: ignore[assignment]


def test_a_value_whose_equality_raises_is_left_to_the_general_path():
    # Asking whether a value is null compared it with None; its exception escaped exact_match, which never raises.
    value = {"a": _Refuses(b=1), "c": None}
    assert flatten_json(value, drop_null_keys=True) is None
    assert flatten_json(value) == {("a", "b"): 1, ("c",): None}
    assert exact_match({"a": _Refuses(b=1)}, {"a": {"b": 1}}).passed
