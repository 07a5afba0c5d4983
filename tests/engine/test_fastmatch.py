"""Differential tests of the vectorised pieces against the engine's own code, value by value.

Each vectoriser must return, for every pair of present values, the double the engine's
comparator returns (`comparator.compare(gt, pred)`), and `assign` must return the pairs the
engine's `munkres` call returns, ties included. Whole documents are compared in
`test_listmatch.py`.
"""

from __future__ import annotations

import datetime
import gc
import warnings
import weakref
from decimal import Decimal

import numpy as np
import pytest
from differential import FLAGS, FLOATS, INTS, TEXT, WORDS, assert_identical
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from munkres import make_cost_matrix
from pydantic import BaseModel
from stickler.algorithms.hungarian import _MUNKRES
from stickler.auto import eval_for
from stickler.comparators.date import DateComparator
from stickler.comparators.exact import ExactComparator
from stickler.comparators.fuzzy import FuzzyComparator
from stickler.comparators.levenshtein import LevenshteinComparator
from stickler.comparators.numeric import NumericComparator
from stickler.comparators.phone import PhoneComparator
from stickler.structured_object_evaluator.models.comparable_field import ComparableField
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

from structsim_nb.engine import assignment, pairwise
from structsim_nb.engine.assignment import assign
from structsim_nb.engine.fastmatch import ElementColumns, ElementPlan, InnerColumns, plan_for
from structsim_nb.engine.pairwise import VECTORISERS, scalar_similarity

SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])

COMPARATORS = {
    "levenshtein": LevenshteinComparator(),
    "levenshtein-raw": LevenshteinComparator(normalize=False),
    "fuzzy-ratio": FuzzyComparator(),
    "fuzzy-partial": FuzzyComparator(method="partial_ratio", normalize=False),
    "fuzzy-token-sort": FuzzyComparator(method="token_sort_ratio"),
    "fuzzy-token-set": FuzzyComparator(method="token_set_ratio"),
    "exact": ExactComparator(),
    "exact-casefold": ExactComparator(case_sensitive=False),
    "numeric": NumericComparator(),
    "numeric-relative": NumericComparator(relative_tolerance=0.001),
    "numeric-absolute": NumericComparator(absolute_tolerance=0.5),
    "numeric-both": NumericComparator(relative_tolerance=0.1, absolute_tolerance=0.01),
    # Tolerances the comparator takes as given: a Decimal (money), and rules the engine skips (not above 0).
    "numeric-decimal": NumericComparator(relative_tolerance=Decimal("0.001"), absolute_tolerance=Decimal("0.01")),
    "numeric-negative-relative": NumericComparator(relative_tolerance=-0.1, absolute_tolerance=1.0),
    "numeric-negative-absolute": NumericComparator(relative_tolerance=0.1, absolute_tolerance=-0.05),
    "numeric-nan-relative": NumericComparator(relative_tolerance=float("nan"), absolute_tolerance=0.5),
    "numeric-infinite": NumericComparator(relative_tolerance=float("inf")),
    "date": DateComparator(),
    "date-dayfirst": DateComparator(dayfirst=True),
    "date-monthfirst": DateComparator(dayfirst=False),
    "date-2-days": DateComparator(tolerance=2),
    "date-1-minute": DateComparator(tolerance=1.0 / (24 * 60)),
    "date-partial-year": DateComparator(allow_partial_year=True, precision_mode="overlap"),
    "date-contains": DateComparator(range_mode="contains"),
}

DATE_TEXT = st.sampled_from(
    [
        "2024-03-01",
        "2024-03-02",
        "03/04/2024",
        "04/03/2024",
        "4 March 2024",
        "March 2024",
        "Mar 4",
        "2024",
        "2024-03-01T10:00:00",
        "2024-03-01T23:59:00",
        "2024-03-01T10:00:00+02:00",
        "2024-03-01 to 2024-03-05",
        "2024-03-02 - 2024-03-03",
        "garbage",
        "   ",
        "- 2024-03-01",
    ]
)
NUMBER_TEXT = st.sampled_from(["1,000.00", "(5)", "$4.99", "abc", "1e3", "--1", "0.0", "-0", "1.0010", "100.1"])
PRESENT = st.one_of(
    st.sampled_from(WORDS),
    st.text(alphabet="aAbB -é\U0001d518ß1", min_size=1, max_size=7),
    st.sampled_from([0, 1, 2, 5, 10, -1, 2**40]),
    st.sampled_from([0.0, -0.0, 1.0, 1.0005, 1.001, 1.0011, 4.99, 100.0, 100.1, 1e20, 1e-5]),
    st.sampled_from([float("nan"), float("inf"), -float("inf")]),
    st.booleans(),
    DATE_TEXT,
    NUMBER_TEXT,
)


def engine_matrix(comparator: object, a: list[object], b: list[object]) -> np.ndarray:
    return np.array([[comparator.compare(x, y) for y in b] for x in a], dtype=np.float64).reshape(len(a), len(b))  # type: ignore[attr-defined]


class TestVectorisers:
    @pytest.mark.parametrize("name", sorted(COMPARATORS))
    @SETTINGS
    @given(a=st.lists(PRESENT, min_size=1, max_size=6), b=st.lists(PRESENT, min_size=1, max_size=6))
    def test_each_pair_scores_what_the_comparator_scores(self, name, a, b):
        comparator = COMPARATORS[name]
        try:
            want = engine_matrix(comparator, a, b)
        except Exception as exc:  # noqa: BLE001 - the engine refuses the value (a bool as a Decimal): so must we
            with pytest.raises(type(exc)):
                pairwise.similarity_matrix(comparator, a, b)
            return
        got = pairwise.similarity_matrix(comparator, a, b)
        assert got.dtype == np.float64
        assert np.array_equal(got, want), (a, b, got, want)
        assert np.array_equal(np.signbit(got), np.signbit(want))

    @pytest.mark.parametrize("name", sorted(COMPARATORS))
    @SETTINGS
    @given(a=st.one_of(st.none(), PRESENT), b=st.one_of(st.none(), PRESENT))
    def test_one_pair_scores_what_the_comparator_scores(self, name, a, b):
        comparator = COMPARATORS[name]
        try:
            want = comparator.compare(a, b)
        except Exception as exc:  # noqa: BLE001 - the engine refuses the value: so must we
            with pytest.raises(type(exc)):
                scalar_similarity(comparator, a, b)
            return
        assert_identical(want, scalar_similarity(comparator, a, b))

    def test_the_relative_tolerance_edge_is_decided_by_the_engine(self):
        comparator = NumericComparator(relative_tolerance=0.001)
        a, b = [1.0, 1000.0, 0.0], [1.001, 1.0010000001, 1001.0, 1001.0000001, 0.001, 0.0010001]
        got = pairwise._numeric(comparator, a, b)
        assert np.array_equal(got, engine_matrix(comparator, a, b))
        assert got[0, 0] == 1.0 and got[0, 1] == 0.0 and got[1, 2] == 1.0 and got[2, 4] == 1.0

    @pytest.mark.parametrize(
        ("relative", "absolute"),
        [
            (-0.1, 1.0),
            (0.1, -0.05),
            (float("nan"), 1.0),
            (Decimal("0.1"), Decimal("0.01")),
            (float("inf"), 0.0),
            (0.0, Decimal("1e-400")),
        ],
        ids=["negative-relative", "negative-absolute", "nan-relative", "decimals", "infinite-relative", "below-floats"],
    )
    def test_a_tolerance_the_engine_skips_or_reads_as_a_decimal_widens_nothing_else(self, relative, absolute):
        # The engine applies each rule only when its tolerance is above 0; one combined window once let a
        # negative or NaN tolerance hide the pairs the other rule accepts, and a Decimal one raised TypeError.
        comparator = NumericComparator(relative_tolerance=relative, absolute_tolerance=absolute)
        tiny = "0." + "0" * 400  # (the comparator reads digits, points and minus signs only: no exponent)
        a, b = [100.0, 1.0, 0.0, "$5.00", tiny + "1"], [100.5, 1.1, 0.004, "5.005", 7.0, tiny + "2"]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (no overflow or invalid-value warning from the window either)
            got = pairwise._numeric(comparator, a, b)
        want = engine_matrix(comparator, a, b)
        assert np.array_equal(got, want) and want.sum() > 0

    def test_numbers_outside_the_float_range_are_compared_by_the_comparator(self):
        comparator = NumericComparator(relative_tolerance=0.5)
        a, b = ["1" + "0" * 400, "1e-400", 2.0], ["1" + "0" * 400 + "1", "3", 2.5]
        got = pairwise._numeric(comparator, a, b)
        assert np.array_equal(got, engine_matrix(comparator, a, b))

    def test_dates_parse_once_per_distinct_value(self, monkeypatch):
        comparator = DateComparator()
        seen: list[str] = []
        original = DateComparator._parse

        def counting(self, value, dayfirst):
            seen.append(value)
            return original(self, value, dayfirst)

        monkeypatch.setattr(pairwise, "_PARSED", {})
        monkeypatch.setattr(DateComparator, "_parse", counting)
        values = ["1 March 2024", "2 March 2024"] * 50
        pairwise._date(comparator, values, values)
        assert sorted(seen) == sorted(["1 March 2024", "2 March 2024"] * 2)  # two readings (dayfirst None)

    @SETTINGS
    @given(day=st.dates(min_value=datetime.date(1000, 1, 1)), dayfirst=st.booleans())
    def test_iso_dates_read_as_the_comparator_reads_them(self, day, dayfirst):
        comparator = DateComparator()
        parsed = comparator._parse(day.isoformat(), dayfirst=dayfirst)
        assert (parsed.has_year, parsed.has_month, parsed.has_day, parsed.dt.tzinfo) == (True, True, True, None)
        assert pairwise._day(comparator, day.isoformat(), dayfirst) == parsed.dt.toordinal()

    @pytest.mark.parametrize("text", ["2024-02-30", "2024-13-01", "0999-01-01", "2024-1-01", " 2024-01-01"])
    def test_other_date_text_goes_to_the_comparator(self, text):
        comparator = DateComparator()
        parsed = comparator._parse(text, dayfirst=False)
        simple = parsed is not None and parsed.has_year and parsed.has_month and parsed.has_day
        assert pairwise._day(comparator, text, False) == (parsed.dt.toordinal() if simple else None)


class TestAssign:
    @SETTINGS
    @given(
        rows=st.integers(1, 9),
        cols=st.integers(1, 9),
        levels=st.sampled_from([2, 3, 5, 0]),
        seed=st.integers(0, 2**32 - 1),
    )
    def test_pairs_are_the_engines_ties_included(self, rows, cols, levels, seed):
        random = np.random.default_rng(seed).random((rows, cols))
        similarity = np.round(random * levels) / levels if levels else random
        engine = [tuple(p) for p in _MUNKRES.compute(make_cost_matrix(similarity, lambda x: 1 - x))]
        assert assign(similarity) == engine

    def test_long_lists_too(self):
        random = np.random.default_rng(3)
        for shape in [(60, 60), (80, 41), (33, 90)]:
            similarity = np.round(random.random(shape) * 4) / 4
            engine = [tuple(p) for p in _MUNKRES.compute(make_cost_matrix(similarity, lambda x: 1 - x))]
            assert assign(similarity) == engine

    def test_without_the_native_kernel_it_makes_the_engines_call(self, monkeypatch):
        monkeypatch.setattr(assignment, "_native_solver", lambda: None)
        similarity = np.round(np.random.default_rng(5).random((7, 6)) * 3) / 3
        assert assign(similarity) == [tuple(p) for p in _MUNKRES.compute(make_cost_matrix(similarity, lambda x: 1 - x))]

    def test_assigned_pairs_are_the_engines_matched_pairs(self):
        from stickler.algorithms.hungarian import HungarianMatcher

        from structsim_nb.engine.assignment import assigned_pairs

        values = ["a", "b", "a", "c", "d"]
        matcher = HungarianMatcher(lambda x, y: float(x == y), match_threshold=0.0, normalize_values=False)
        similarity = np.array([[float(x == y) for y in values[::-1]] for x in values[:4]])
        want = matcher.calculate_metrics(values[:4], values[::-1])["matched_pairs"]
        got = assigned_pairs(similarity)
        assert got == want and [type(s) for _, _, s in got] == [type(s) for _, _, s in want]


# -- the element class: what vectorises and what does not -----------------------------------


class Item(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None
    ship_date: datetime.date | None = None
    gift: bool | None = None


class Tagged(BaseModel):
    name: str | None = None
    tags: list[str] = []


class Inner(BaseModel):
    city: str | None = None


class Located(BaseModel):
    name: str | None = None
    where: Inner | None = None


class Reachable(BaseModel):
    phone: str | None = None


class Holder(BaseModel):
    items: list[Item] = []
    tagged: list[Tagged] = []
    located: list[Located] = []
    reachable: list[Reachable] = []


def element(path: str) -> type:
    import typing

    annotation = eval_for(Holder).eval_model.model_fields[path].annotation
    return typing.get_args(typing.get_args(annotation)[0])[0]


class TestPlan:
    def test_plain_fields_vectorise(self):
        plan = plan_for(element("items"))
        assert isinstance(plan, ElementPlan)
        names = [rule.name for rule in plan.fields]
        assert names == ["sku", "description", "quantity", "unit_price", "ship_date", "gift"]

    @pytest.mark.parametrize(
        ("path", "reason"),
        [
            ("tagged", "field 'tags' is a list"),
            ("located", "field 'where' is a nested object"),
            ("reachable", "field 'phone' uses PhoneComparator"),
        ],
    )
    def test_anything_else_says_why(self, path, reason):
        assert plan_for(element(path)) == reason

    def test_a_changed_match_threshold_makes_the_plan_again(self, monkeypatch):
        # A field without `ComparableField` takes its threshold from the class's `match_threshold`, which a
        # caller may reassign; the engine reads it on every call, so a kept plan must not outlive it.
        class Bare(StructuredModel):
            match_threshold = 0.5
            name: str | None = None

        first = plan_for(Bare)
        assert isinstance(first, ElementPlan) and first.fields[0].threshold == 0.5
        assert plan_for(Bare) is first  # kept while the threshold stands
        monkeypatch.setattr(Bare, "match_threshold", 0.9)
        again = plan_for(Bare)
        assert isinstance(again, ElementPlan) and again.fields[0].threshold == 0.9

    def test_a_value_that_is_not_a_scalar_stops_the_columns(self):
        plan = plan_for(element("items"))
        assert isinstance(plan, ElementPlan)

        class Odd:
            sku = {"a": 1}
            description = quantity = unit_price = ship_date = gift = None

        columns = ElementColumns(plan, [Odd()], [Odd()])
        assert not columns.supported
        assert columns.reason == "field 'sku' holds a value that is not a scalar"

    def test_phone_comparator_is_really_unsupported(self):
        assert PhoneComparator not in VECTORISERS

    def test_a_plan_does_not_keep_its_class(self):
        # The plans are keyed weakly by class; a plan that held its class kept every element class (and its
        # comparators) made in a loop, one per notebook re-run or JSON Schema, for the life of the process.
        def make() -> type:
            class Line(StructuredModel):
                code: str | None = ComparableField(default=None)
                amount: float | None = ComparableField(default=None)

            return Line

        cls = make()
        assert isinstance(plan_for(cls), ElementPlan)
        gone = weakref.ref(cls)
        del cls
        gc.collect()
        assert gone() is None


class TestColumnsAgainstEngine:
    @SETTINGS
    @given(data=st.data())
    def test_similarity_is_compare_for_every_pair(self, data):
        fields = {"sku": TEXT, "description": TEXT, "quantity": INTS, "unit_price": FLOATS, "gift": FLAGS}
        gt = data.draw(st.lists(st.fixed_dictionaries(fields), min_size=1, max_size=5))
        pred = data.draw(st.lists(st.fixed_dictionaries(fields), min_size=1, max_size=5))
        cls = element("items")
        gt_items = [cls.from_json(item) for item in gt]
        pred_items = [cls.from_json(item) for item in pred]
        plan = plan_for(cls)
        assert isinstance(plan, ElementPlan)
        columns = ElementColumns(plan, gt_items, pred_items)
        want = np.array([[g.compare(p) for p in pred_items] for g in gt_items])
        assert np.array_equal(columns.similarity(), want)
        rows, cols = np.meshgrid(np.arange(len(gt)), np.arange(len(pred)), indexing="ij")
        scores = columns.pair_scores(rows.ravel(), cols.ravel())
        want_scores = [g.compare_with(p)["overall_score"] for g in gt_items for p in pred_items]
        assert_identical(want_scores, scores.tolist())
        assert_identical(want_scores, columns.every_pair_score().ravel().tolist())


def _columns_equal(got: ElementColumns, want: ElementColumns) -> None:
    """Every array the columns hold, and what they score, bit for bit."""
    assert got.shape == want.shape and got.plan is want.plan and got.supported
    for name in ("raw", "absent_gt", "absent_pred", "null_gt", "null_pred"):
        for mine, theirs in zip(getattr(got, name), getattr(want, name), strict=True):
            assert mine.dtype == theirs.dtype and np.array_equal(mine, theirs), name
    assert np.array_equal(got.similarity(), want.similarity())
    rows, cols = np.meshgrid(np.arange(want.shape[0]), np.arange(want.shape[1]), indexing="ij")
    assert_identical(
        want.pair_scores(rows.ravel(), cols.ravel()).tolist(), got.pair_scores(rows.ravel(), cols.ravel()).tolist()
    )
    assert_identical(want.every_pair_score().tolist(), got.every_pair_score().tolist())
    assert got.flagged(rows.ravel(), cols.ravel()) == want.flagged(rows.ravel(), cols.ravel())
    assert got.field_counts(rows.ravel(), cols.ravel()) == want.field_counts(rows.ravel(), cols.ravel())


ITEM_FIELDS = {"sku": TEXT, "description": TEXT, "quantity": INTS, "unit_price": FLOATS, "gift": FLAGS}


class TestSlicedColumns:
    """A matched pair's inner lists are cut from the columns the pairing pass built over every inner list: the cut
    must hold what new columns of those two lists hold."""

    @SETTINGS
    @given(data=st.data())
    def test_a_slice_holds_what_new_columns_hold(self, data):
        cls = element("items")
        plan = plan_for(cls)
        assert isinstance(plan, ElementPlan)
        gt = [
            cls.from_json(item)
            for item in data.draw(st.lists(st.fixed_dictionaries(ITEM_FIELDS), min_size=1, max_size=7))
        ]
        pred = [
            cls.from_json(item)
            for item in data.draw(st.lists(st.fixed_dictionaries(ITEM_FIELDS), min_size=1, max_size=7))
        ]
        a0 = data.draw(st.integers(0, len(gt) - 1))
        a1 = data.draw(st.integers(a0 + 1, len(gt)))
        b0 = data.draw(st.integers(0, len(pred) - 1))
        b1 = data.draw(st.integers(b0 + 1, len(pred)))
        whole = ElementColumns(plan, gt, pred)
        _columns_equal(whole.sliced(slice(a0, a1), slice(b0, b1)), ElementColumns(plan, gt[a0:a1], pred[b0:b1]))

    def test_the_view_is_each_lists_slice_and_only_theirs(self):
        cls = element("items")
        plan = plan_for(cls)
        assert isinstance(plan, ElementPlan)
        make = [cls.from_json({"sku": f"S{i}", "quantity": i}) for i in range(7)]
        gt_lists = [make[0:2], None, [], make[2:5]]
        pred_lists = [make[4:7], make[1:2]]
        flat_gt = [x for v in gt_lists for x in v or ()]
        flat_pred = [x for v in pred_lists for x in v or ()]
        columns = ElementColumns(plan, flat_gt, flat_pred)
        inner = InnerColumns()
        inner.record(columns, gt_lists, pred_lists)
        for g in (gt_lists[0], gt_lists[3]):
            for p in pred_lists:
                view = inner.view(g, p, plan)
                assert view is not None
                _columns_equal(view, ElementColumns(plan, g, p))
        assert inner.view(make[0:2], pred_lists[0], plan) is None  # an equal list, but not one the pass read
        assert inner.view(gt_lists[0], gt_lists[0], plan) is None  # a ground-truth list is not a predicted one
        other = InnerColumns()
        other.record(ElementColumns(plan, flat_gt, flat_pred), gt_lists, [])
        inner.gt.update(other.gt)  # the ground-truth lists now point at other columns than the predicted ones
        assert inner.view(gt_lists[0], pred_lists[0], plan) is None
        inner.gt.update({id(gt_lists[0]): (columns, 0, 2)})
        assert inner.view(gt_lists[0], pred_lists[0], ElementPlan(plan.fields)) is None  # another plan
        gt_lists[0].append(make[6])  # (grown since it was read)
        assert inner.view(gt_lists[0], pred_lists[0], plan) is None
