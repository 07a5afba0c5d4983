"""`innerlists.values_similarity` against the engine's own `compare_field_raw`, bit for bit.

Lists of values of every length up to 7 (past the enumerated assignments), with duplicates, ties,
blanks and values the comparators score in between, under each vectorised comparator.
"""

from __future__ import annotations

import functools
import math
import operator
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stickler.comparators.exact import ExactComparator
from stickler.comparators.fuzzy import FuzzyComparator
from stickler.comparators.levenshtein import LevenshteinComparator
from stickler.comparators.numeric import NumericComparator
from stickler.structured_object_evaluator.models.comparable_field import ComparableField
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

from structsim_nb.engine.fastmatch import ElementColumns, ElementPlan, pairing_plan_for, pairing_similarity, plan_for
from structsim_nb.engine.innerlists import objects_similarity, values_similarity


class Tagged(StructuredModel):
    words: list[str] = ComparableField(default=[], comparator=LevenshteinComparator())
    codes: list[str] = ComparableField(default=[], comparator=ExactComparator(case_sensitive=False))
    phrases: list[str] = ComparableField(default=[], comparator=FuzzyComparator(method="token_set_ratio"))
    sizes: list[float] = ComparableField(default=[], comparator=NumericComparator(relative_tolerance=0.01))


VALUES = {
    "words": st.lists(st.sampled_from(["ab", "abc", "abd", "b", "", "Straße", "STRASSE"]), max_size=7),
    "codes": st.lists(st.sampled_from(["a", "A", "b"]), max_size=4),
    "phrases": st.lists(st.sampled_from(["red box", "box red", "blue box", "x"]), max_size=4),
    "sizes": st.lists(st.sampled_from([1.0, 1.005, 1.02, 2.0, 0.0, -1.0]), max_size=5),
}
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def engine_matrix(gt: list[Any], pred: list[Any], field: str) -> np.ndarray:
    out = np.zeros((len(gt), len(pred)))
    for i, a in enumerate(gt):
        for j, b in enumerate(pred):
            if getattr(a, field) and getattr(b, field):
                out[i, j] = a.compare_field_raw(field, getattr(b, field))
    return out


@pytest.mark.parametrize("field", sorted(VALUES))
@SETTINGS
@given(data=st.data())
def test_every_pair_is_the_engines_score(field, data):
    gt = [Tagged(**{field: v}) for v in data.draw(st.lists(VALUES[field], min_size=1, max_size=4))]
    pred = [Tagged(**{field: v}) for v in data.draw(st.lists(VALUES[field], min_size=1, max_size=4))]
    comparator = Tagged._get_comparison_info(field).comparator
    got = values_similarity(comparator, field, gt, [getattr(a, field) for a in gt], [getattr(b, field) for b in pred])
    assert got.tobytes() == engine_matrix(gt, pred, field).tobytes()


def test_blank_lists_are_left_at_zero():
    gt, pred = [Tagged(words=["a"]), Tagged()], [Tagged(), Tagged(words=["a", "b"])]
    comparator = Tagged._get_comparison_info("words").comparator
    got = values_similarity(comparator, "words", gt, [["a"], []], [[], ["a", "b"]])
    assert got is not None and got.tolist() == [[0.0, 0.5], [0.0, 0.0]]  # one of two matched, similarity 1.0
    assert got[0, 1] == gt[0].compare_field_raw("words", pred[1].words)


def test_pairs_are_weighed_in_chunks_with_the_same_result(monkeypatch):
    # Six values a side is 720 assignments a pair; all pairs at once would hold gigabytes at 200 elements.
    from structsim_nb.engine import innerlists

    lists = [[f"v{(i * 7 + k) % 9}" for k in range(6)] for i in range(5)]
    gt, pred = [Tagged(words=v) for v in lists], [Tagged(words=v[::-1]) for v in lists]
    comparator = Tagged._get_comparison_info("words").comparator
    whole = values_similarity(comparator, "words", gt, lists, [v[::-1] for v in lists])
    monkeypatch.setattr(innerlists, "_MOST_CELLS", 720 * 6 * 2)  # two pairs a chunk
    chunked = values_similarity(comparator, "words", gt, lists, [v[::-1] for v in lists])
    assert whole is not None and chunked is not None
    assert chunked.tobytes() == whole.tobytes() == engine_matrix(gt, pred, "words").tobytes()


# -- lists of objects ----------------------------------------------------------------------------------------


class Tax(StructuredModel):
    kind: str | None = ComparableField(comparator=ExactComparator(case_sensitive=False), threshold=1.0, weight=2.0)
    rate: float | None = ComparableField(comparator=NumericComparator(relative_tolerance=0.01), threshold=1.0)
    note: str | None = ComparableField(
        comparator=LevenshteinComparator(), threshold=0.8
    )  # under it: 0.0 in `compare_with`
    ref: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.8, clip_under_threshold=False)


class Taxed(StructuredModel):
    taxes: list[Tax] = ComparableField(default=[])


TAX = st.fixed_dictionaries(
    {
        "kind": st.sampled_from([None, "", "VAT", "vat", "GST"]),
        "rate": st.sampled_from([None, 0.2, 0.201, 0.25, 0.0]),
        "note": st.sampled_from([None, "", "standard", "standrd", "reduced", "x"]),
        "ref": st.sampled_from([None, "r1", "r12", "R1"]),
    }
)


def taxed(lists: list[list[dict[str, Any]]]) -> list[Taxed]:
    return [Taxed.from_json({"taxes": v}) for v in lists]


def objects(plan: ElementPlan, field: str, gt: list[Any], gt_values: list[Any], pred_values: list[Any]) -> Any:
    """`objects_similarity` with its two matrices over every object, as `fastmatch` builds them."""
    flat_gt, flat_pred = [x for v in gt_values for x in v], [x for v in pred_values for x in v]
    if not flat_gt or not flat_pred:
        return np.zeros((len(gt_values), len(pred_values)))
    columns = ElementColumns(plan, flat_gt, flat_pred)
    a, b = len(flat_gt), len(flat_pred)
    scores = columns.pair_scores(np.repeat(np.arange(a), b), np.tile(np.arange(b), a)).reshape(a, b)
    return objects_similarity(columns.similarity(), scores, field, gt, gt_values, pred_values)


@pytest.mark.parametrize("threshold", [None, 0.3, 0.9])
@SETTINGS
@given(data=st.data())
def test_every_pair_of_object_lists_is_the_engines_score(threshold, data):
    before = Tax.match_threshold
    if threshold is not None:
        Tax.match_threshold = threshold
    try:
        gt = taxed(data.draw(st.lists(st.lists(TAX, max_size=7), min_size=1, max_size=4)))
        pred = taxed(data.draw(st.lists(st.lists(TAX, max_size=5), min_size=1, max_size=4)))
        plan = plan_for(Tax)
        assert isinstance(plan, ElementPlan)
        got = objects(plan, "taxes", gt, [a.taxes for a in gt], [b.taxes for b in pred])
        assert got is not None and got.tobytes() == engine_matrix(gt, pred, "taxes").tobytes()
    finally:
        Tax.match_threshold = before


def test_tied_object_lists_that_would_score_differently_are_scored_by_the_engine(monkeypatch):
    # Two taxes that `compare` scores alike against both predicted ones, but whose `compare_with` scores differ
    # (a note under its threshold, kept because clipping is off): the assignment decides the score, so the engine
    # scores the pair; every other pair never reaches it.
    from structsim_nb.engine import innerlists

    asked: list[int] = []
    original = StructuredModel.compare_field_raw

    def spy(self: Any, field_name: str, other: Any) -> Any:
        if field_name == "taxes":  # (the engine's own comparison of the taxes calls it for their fields too)
            asked.append(len(other))
        return original(self, field_name, other)

    monkeypatch.setattr(StructuredModel, "compare_field_raw", spy)
    gt = taxed([[{"kind": "VAT", "note": "standard"}, {"kind": "GST", "note": "standard"}]])
    pred = taxed([[{"kind": "VAT", "note": "standrd"}, {"kind": "GST", "note": "standrd"}]])
    plan = plan_for(Tax)
    got = objects(plan, "taxes", gt, [gt[0].taxes], [pred[0].taxes])
    assert asked == [] and got is not None and got[0, 0] == gt[0].compare_field_raw("taxes", pred[0].taxes)
    asked.clear()
    monkeypatch.setattr(innerlists, "_TIE", 2.0)  # every assignment tied with the best: the crossed one scores lower
    got = objects(plan, "taxes", gt, [gt[0].taxes], [pred[0].taxes])
    assert asked == [2] and got is not None and got.tobytes() == engine_matrix(gt, pred, "taxes").tobytes()


def test_an_object_the_plan_cannot_read_leaves_the_list_to_the_engine():
    gt, pred = taxed([[{"kind": "VAT"}]]), taxed([[{"kind": "VAT"}]])
    object.__setattr__(pred[0].taxes[0], "rate", [0.2])  # set without validation
    assert pairing_similarity(pairing_plan_for(Taxed), gt, pred) is None


class Levy(StructuredModel):
    kind: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
    code: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0, weight=0.005)


class Levied(StructuredModel):
    levies: list[Levy] = ComparableField(default=[])


def test_a_matched_pair_under_the_engines_bar_counts_nothing():
    # `compare_unordered_lists` counts a matched pair of objects scoring under 0.01 as 0.0: here the code
    # matches (weight 0.005) and the kind does not, 0.005 / 1.005 for the pair, so the list scores 0.0.
    gt = [Levied.from_json({"levies": [{"kind": "A", "code": "c"}]})]
    pred = [Levied.from_json({"levies": [{"kind": "B", "code": "c"}]})]
    got = objects(plan_for(Levy), "levies", gt, [gt[0].levies], [pred[0].levies])
    assert 0.0 < gt[0].levies[0].compare(pred[0].levies[0]) < 0.01
    assert got is not None and got.tolist() == [[0.0]] == engine_matrix(gt, pred, "levies").tolist()


# -- the engine's sums, as this interpreter's `sum()` adds them -----------------------------------------------------


def neumaier_sum(terms: list[float]) -> float:
    """CPython 3.12's `sum()` of Python floats (`builtin_sum_impl`), written out."""
    total, compensation = 0.0 + terms[0], 0.0
    for x in terms[1:]:
        step = total + x
        compensation += (total - step) + x if abs(total) >= abs(x) else (x - step) + total
        total = step
    return total + compensation if compensation and math.isfinite(compensation) else total


FLOATS = st.lists(st.floats(min_value=0.0, max_value=1.0) | st.floats(min_value=-1e30, max_value=1e30), min_size=1)


@SETTINGS
@given(terms=FLOATS)
def test_the_sum_rules_are_the_interpreters(terms):
    from structsim_nb.engine.innerlists import _mixed_sum_rule, _split_sum, _summed

    row = np.array([terms], dtype=np.float64)
    rule = _mixed_sum_rule()
    assert rule is not None  # (on CPython 3.10-3.13)
    # numpy floats (a value list's scores) one after the other; Python floats (an object list's) by the found rule
    assert float(_summed(row, "plain")[0]) == float(sum(np.float64(x) for x in terms))
    python_sum = float(_summed(row, "plain")[0]) if rule == "plain" else _split_sum(terms, len(terms))
    assert python_sum == float(sum(terms))
    assert float(_summed(row, "neumaier")[0]) == neumaier_sum(terms)
    assert float(_summed(row, "plain")[0]) == functools.reduce(operator.add, terms, 0)


@SETTINGS
@given(terms=FLOATS, data=st.data())
def test_a_sum_of_python_and_numpy_floats_is_the_interpreters_where_every_split_agrees(terms, data):
    # An object list's summands are each pair's compare_with score: a Python float or a numpy float, depending on
    # what the pair's fields computed. CPython 3.12+ compensates the Python run before the first numpy float.
    from structsim_nb.engine.innerlists import _mixed_sum_rule, _split_sum, _summed

    python = data.draw(st.integers(min_value=0, max_value=len(terms)))
    summands = [float(x) for x in terms[:python]] + [np.float64(x) for x in terms[python:]]
    rule = _mixed_sum_rule()
    assert rule is not None  # (on CPython 3.10-3.13)
    got = float(_summed(np.array([terms], dtype=np.float64), rule)[0])
    splits = {_split_sum(terms, p) for p in range(len(terms) + 1)}
    if rule == "plain":
        assert got == float(sum(summands))
    elif math.isnan(got):  # not taken: some split sums differently (the engine scores such a pair)
        assert len(splits) > 1
    else:
        assert got == float(sum(summands)) == _split_sum(terms, python) and splits == {got}


def test_three_parts_whose_scores_mix_python_and_numpy_floats_sum_as_the_engine():
    # Found on 3.13 by the pallets test: the parts' compare_with scores were [0.818... (Python), 0.727..., 0.4
    # (numpy)], which sum() adds one after the other; the compensated sum was 2 ulps off in the last digit.
    from structsim_nb.engine.innerlists import _mixed_sum_rule, _summed

    terms = [0.8181818181818182, 0.7272727272727273, 0.4]
    rule = _mixed_sum_rule()
    got = _summed(np.array([terms]), rule)[0]
    if rule == "plain":
        assert got == sum([terms[0], np.float64(terms[1]), np.float64(terms[2])])
    else:  # the all-Python split sums 2 ulps higher: not taken, the engine scores such a pair
        assert math.isnan(got)


def test_an_interpreter_whose_sum_is_unknown_leaves_object_lists_to_the_engine(monkeypatch):
    from structsim_nb.engine import innerlists

    monkeypatch.setattr(innerlists, "_mixed_sum_rule", lambda: None)
    gt, pred = taxed([[{"kind": "VAT"}, {"kind": "GST"}]]), taxed([[{"kind": "GST"}]])
    assert objects(plan_for(Tax), "taxes", gt, [gt[0].taxes], [pred[0].taxes]) is None
