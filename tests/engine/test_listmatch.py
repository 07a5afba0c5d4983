"""Differential tests: `listmatch.compare` against the stock engine on generated documents.

The reference is stickler's own `compare_with(include_confusion_matrix=True,
document_non_matches=True)`, the call the evaluator used to make. Every result must be
identical to it, value for value and type for type, with the vectorised path on and off:
scores, confusion matrices, per-field details and every non-match record. The documents mix
ties, duplicates, blanks, unicode, numbers at the tolerance edge, nested lists (a list inside
a list element, a list inside a nested object), explicit `StructuredModel` configurations
(other comparators, weights, thresholds, clipping off) and match thresholds that pairs sit
exactly on.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from differential import TEXT, TINY, Document, Tiny, assert_identical, documents, prediction_list
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel
from stickler.auto import eval_for
from stickler.auto.facade import _dump
from stickler.comparators.date import DateComparator
from stickler.comparators.exact import ExactComparator
from stickler.comparators.fuzzy import FuzzyComparator
from stickler.comparators.levenshtein import LevenshteinComparator
from stickler.comparators.numeric import NumericComparator
from stickler.comparators.phone import PhoneComparator
from stickler.structured_object_evaluator.models.comparable_field import ComparableField
from stickler.structured_object_evaluator.models.hungarian_helper import HungarianHelper
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

from structsim_nb.demo import Invoice, synthetic_invoice_pairs
from structsim_nb.engine import fastmatch
from structsim_nb.engine.fastmatch import PairingPlan, pairing_plan_for, pairing_similarity
from structsim_nb.engine.listmatch import compare, list_paths, overridden_method

SETTINGS = settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def eval_pair(cls: type[BaseModel], gt: dict[str, Any], pred: dict[str, Any], **options: Any) -> tuple[Any, Any]:
    spec = eval_for(cls, **options)
    return (
        spec.eval_model.from_json(_dump(cls.model_validate(gt))),
        spec.eval_model.from_json(_dump(cls.model_validate(pred))),
    )


def stock(gt: Any, pred: Any, *, document_non_matches: bool = True) -> dict[str, Any]:
    result: dict[str, Any] = gt.compare_with(
        pred, include_confusion_matrix=True, add_derived_metrics=True, document_non_matches=document_non_matches
    )
    return result


class TestGeneratedDocuments:
    @SETTINGS
    @given(doc=documents(), threshold=st.sampled_from([None, 0.5, 0.75, 1.0]))
    def test_identical_to_the_engine(self, doc, threshold):
        gt, pred = eval_pair(Document, *doc, match_threshold=threshold)
        want = stock(gt, pred)
        for vectorised in (True, False):
            got, _ = compare(gt, pred, vectorised=vectorised, document_non_matches=True)
            assert_identical(want, got)

    @settings(max_examples=40, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(doc=documents())
    def test_identical_without_records(self, doc):
        gt, pred = eval_pair(Document, *doc)
        got, _ = compare(gt, pred, vectorised=True, document_non_matches=False)
        assert_identical(stock(gt, pred, document_non_matches=False), got)

    def test_the_demo_corpus(self):
        for length in (1, 2, 5, 12, 30):
            for pair in synthetic_invoice_pairs(30 if length < 30 else 6, line_items=length, seed=40 + length):
                gt, pred = eval_pair(Invoice, pair["expected"].model_dump(), pair["actual"].model_dump())
                assert_identical(stock(gt, pred), compare(gt, pred, document_non_matches=True)[0])


# -- an explicit StructuredModel: other comparators, weights, thresholds, clipping ---------


class Entry(StructuredModel):
    match_threshold = 0.75

    name: str | None = ComparableField(
        comparator=LevenshteinComparator(normalize=False), threshold=0.5, weight=2.0, clip_under_threshold=False
    )
    code: str | None = ComparableField(comparator=ExactComparator(case_sensitive=False), threshold=1.0, weight=1.0)
    amount: float | None = ComparableField(comparator=NumericComparator(absolute_tolerance=0.5), threshold=1.0)
    day: str | None = ComparableField(comparator=DateComparator(dayfirst=True, tolerance=2), threshold=0.9)
    text: str | None = ComparableField(
        comparator=FuzzyComparator(method="partial_ratio", normalize=False), threshold=0.6, weight=0.5
    )


class Ledger(StructuredModel):
    entries: list[Entry] = ComparableField(default=[], weight=3.0)
    memo: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.7)


ENTRY = {
    "name": TEXT,
    "code": st.sampled_from([None, "x1", "X1", "y2", ""]),
    "amount": st.sampled_from([None, 1.0, 1.4, 1.5, 1.6, 10.0]),
    "day": st.sampled_from([None, "01/02/2024", "02/01/2024", "2024-02-03", "3 Feb 2024", "Feb 2024", "x"]),
    "text": TEXT,
}


class TestExplicitModels:
    @SETTINGS
    @given(data=st.data())
    def test_identical_to_the_engine(self, data):
        entries = data.draw(st.lists(st.fixed_dictionaries(ENTRY), max_size=6))
        predicted = prediction_list(data, entries, ENTRY)
        gt = Ledger.from_json({"entries": entries, "memo": data.draw(TEXT)})
        pred = Ledger.from_json({"entries": predicted, "memo": data.draw(TEXT)})
        want = stock(gt, pred)
        for vectorised in (True, False):
            assert_identical(want, compare(gt, pred, vectorised=vectorised, document_non_matches=True)[0])

    def test_pairs_exactly_on_the_match_threshold(self):
        # name (weight 2) and code (1) right, amount (1) wrong, day and text blank on both sides
        # (left out): the pair scores (2 + 1) / 4, exactly the element's match_threshold of 0.75.
        gt = Ledger.from_json({"entries": [{"name": "abcd", "code": "x1", "amount": 1.0}, {"name": "zz"}]})
        pred = Ledger.from_json({"entries": [{"name": "zz"}, {"name": "abcd", "code": "X1", "amount": 9.0}]})
        assert gt.entries[0].compare(pred.entries[1]) == 0.75
        want = stock(gt, pred)
        got, paths = compare(gt, pred, document_non_matches=True)
        assert_identical(want, got)
        assert paths == {"entries": {"vectorised"}}
        assert got["confusion_matrix"]["fields"]["entries"]["overall"]["tp"] == 2


# -- match once ------------------------------------------------------------------------------


class TestMatchOnce:
    def counting(self, monkeypatch: pytest.MonkeyPatch) -> list[int]:
        calls: list[int] = []
        original = HungarianHelper.get_complete_matching_info

        def counted(self: Any, gt_list: Any, pred_list: Any) -> Any:
            calls.append(len(gt_list))
            return original(self, gt_list, pred_list)

        monkeypatch.setattr(HungarianHelper, "get_complete_matching_info", counted)
        return calls

    def test_the_engine_matches_each_list_twice_to_document_it(self, monkeypatch):
        pair = synthetic_invoice_pairs(1, line_items=8, seed=1)[0]
        gt, pred = eval_pair(Invoice, pair["expected"].model_dump(), pair["actual"].model_dump())
        calls = self.counting(monkeypatch)
        stock(gt, pred)
        assert calls == [8, 8]

    @pytest.mark.parametrize("vectorised", [True, False])
    def test_documenting_the_non_matches_reuses_the_assignment(self, monkeypatch, vectorised):
        pair = synthetic_invoice_pairs(1, line_items=8, seed=1)[0]
        gt, pred = eval_pair(Invoice, pair["expected"].model_dump(), pair["actual"].model_dump())
        calls = self.counting(monkeypatch)
        raw, paths = compare(gt, pred, vectorised=vectorised, document_non_matches=True)
        assert calls == ([] if vectorised else [8])
        assert raw["non_matches"]
        assert paths == {"line_items": {"vectorised" if vectorised else "engine"}}

    def test_paths_name_nested_lists(self):
        parcels = [{"code": "A", "qty": 1}, {"code": "B", "qty": 2}]
        gt = {"shipments": [{"ref": "s1", "parcels": parcels}, {"ref": "s2", "parcels": parcels}]}
        pred = {"shipments": [{"ref": "s2", "parcels": parcels[::-1]}, {"ref": "s1", "parcels": parcels}]}
        gt_model, pred_model = eval_pair(Document, gt, pred)
        _, paths = compare(gt_model, pred_model, document_non_matches=True)
        assert paths == {"shipments": {"paired"}, "shipments.parcels": {"vectorised"}}

    def test_a_lone_pair_is_scored_by_the_engine(self):
        # One element a side: no assignment to make; the engine scores the pair itself, faster than the matrices.
        parcels = [{"code": "A", "qty": 1}, {"code": "B", "qty": 2}]
        gt_model, pred_model = eval_pair(
            Document, {"shipments": [{"ref": "s1", "parcels": parcels}]}, {"shipments": [{"parcels": parcels[::-1]}]}
        )
        got, paths = compare(gt_model, pred_model, document_non_matches=True)
        assert paths == {"shipments": {"engine"}, "shipments.parcels": {"vectorised"}}
        assert_identical(stock(gt_model, pred_model), got)

    def test_list_paths_walks_lists_and_nested_objects(self):
        found = {path: cls.__name__ for path, cls in list_paths(eval_for(Document).eval_model)}
        assert found == {
            "lines": "LineEval",
            "tiny": "TinyEval",
            "stamped": "StampedEval",
            "shipments": "ShipmentEval",
            "shipments.parcels": "TinyEval",
            "party.lines": "TinyEval",
        }


# -- lists whose elements hold nested objects: paired from vectorised similarities -------------


class Money(StructuredModel):
    amount: float | None = ComparableField(comparator=NumericComparator(relative_tolerance=0.01), threshold=1.0)
    currency: str | None = ComparableField(comparator=ExactComparator(case_sensitive=False), threshold=1.0)
    note: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.6, clip_under_threshold=False)


class Priced(StructuredModel):
    match_threshold = 0.6

    sku: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0, weight=2.0)
    name: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.7)
    price: Money | None = ComparableField(default=None, weight=1.5)
    shipping: Money = ComparableField(weight=0.5)  # required: every item has one


class Order(StructuredModel):
    items: list[Priced] = ComparableField(default=[])
    ref: str | None = ComparableField(comparator=LevenshteinComparator())


class Tagged(BaseModel):  # a list inside the element: pairs by the engine, as before
    sku: str | None = None
    tags: list[str] = []


class Basket(BaseModel):
    items: list[Tagged] = []


MONEY_OBJECT = st.fixed_dictionaries(
    {
        "amount": st.sampled_from([None, 1.0, 1.005, 1.02, 10.0, 0.0]),
        "currency": st.sampled_from([None, "", "USD", "usd", "EUR"]),
        "note": TEXT,
    }
)
MONEY = st.one_of(st.none(), MONEY_OBJECT)
PRICED = {
    "sku": st.sampled_from([None, "", "A1", "a1", "B2", "C3"]),
    "name": TEXT,
    "price": MONEY,
    "shipping": MONEY_OBJECT,
}


@contextlib.contextmanager
def element_threshold(cls: type, threshold: float | None) -> Iterator[None]:
    """`cls.match_threshold` set to `threshold` (None: left as it is) for the block, then put back."""
    before = cls.match_threshold  # type: ignore[attr-defined]
    if threshold is not None:
        cls.match_threshold = threshold  # type: ignore[attr-defined]
    try:
        yield
    finally:
        cls.match_threshold = before  # type: ignore[attr-defined]


def assert_paired_as_the_engine(gt: Any, pred: Any, field: str = "items") -> None:
    """`compare` gives stock `compare_with`'s result both ways, and pairs `field` when both sides hold some."""
    want = stock(gt, pred)
    for vectorised in (True, False):
        got, paths = compare(gt, pred, vectorised=vectorised, document_non_matches=True)
        assert_identical(want, got)
        gt_list, pred_list = getattr(gt, field), getattr(pred, field)
        if vectorised and gt_list and pred_list:
            assert paths[field] == {"engine" if len(gt_list) == len(pred_list) == 1 else "paired"}


def assert_paired_similarities(gt: Any, pred: Any, field: str = "items") -> None:
    """`pairing_similarity` of the two `field` lists is `compare` for every pair, bit for bit, and so is every
    nested object pair's `compare` it hands on (0.0 where a side holds none)."""
    gt_list, pred_list = getattr(gt, field), getattr(pred, field)
    plan = pairing_plan_for(type(gt_list[0]))
    assert isinstance(plan, PairingPlan)
    compares: dict[str, np.ndarray] = {}
    got = pairing_similarity(plan, gt_list, pred_list, compares=compares)
    want = np.array([[a.compare(b) for b in pred_list] for a in gt_list])
    assert got is not None and got.tobytes() == want.tobytes()
    assert set(compares) == {rule.name for rule in plan.fields if isinstance(rule, fastmatch.NestedRule)}
    for name, nested in compares.items():
        objects = [[(getattr(a, name), getattr(b, name)) for b in pred_list] for a in gt_list]
        expected = np.array([[0.0 if x is None or y is None else x.compare(y) for x, y in row] for row in objects])
        assert nested.tobytes() == expected.tobytes(), name
        for i, row in enumerate(objects):  # and handed on as the engine's value of the engine's type, or not at all
            for j, (x, y) in enumerate(row):
                handed = None if x is None or y is None else fastmatch.compare_as_the_engine(nested[i, j], x, y)
                if handed is not None:
                    engine = x.compare(y)
                    assert (type(handed), handed) == (type(engine), engine), (name, i, j)


def assert_pairs_as_the_engine(gt: Any, pred: Any, field: str = "lines") -> None:
    """Stock `compare_with`'s result both ways, `field` paired, and the pair similarities `compare`'s, bit for bit."""
    assert_paired_as_the_engine(gt, pred, field)
    if getattr(gt, field) and getattr(pred, field):
        assert_paired_similarities(gt, pred, field)


class TestPairedLists:
    """Elements with nested objects: the assignment reads vectorised similarities, the engine compares each pair."""

    @SETTINGS
    @given(data=st.data(), threshold=st.sampled_from([None, 0.5, 1.0]))
    def test_identical_to_the_engine(self, data, threshold):
        items = data.draw(st.lists(st.fixed_dictionaries(PRICED), max_size=7))
        predicted = prediction_list(data, items, PRICED)
        with element_threshold(Priced, threshold):
            gt = Order.from_json({"items": items, "ref": data.draw(TEXT)})
            pred = Order.from_json({"items": predicted, "ref": data.draw(TEXT)})
            assert_paired_as_the_engine(gt, pred)

    def test_the_pair_similarities_are_the_engines(self):
        rows = [
            {"sku": "A1", "name": "Widget", "price": {"amount": 1.0, "currency": "USD"}, "shipping": {}},
            {"sku": "B2", "name": "Gadget", "price": None, "shipping": {"amount": 0.0, "note": "free"}},
            {"sku": None, "name": "", "price": {"amount": 10.0, "currency": "usd", "note": "list"}, "shipping": {}},
        ]
        gt = Order.from_json({"items": rows}).items
        pred = Order.from_json(
            {"items": [rows[2], {**rows[0], "price": {"amount": 1.005}}, {"sku": "B2", "shipping": {}}]}
        ).items
        plan = pairing_plan_for(Priced)
        assert isinstance(plan, PairingPlan) and plan.engine == "field 'price' is a nested object"
        want = np.array([[a.compare(b) for b in pred] for a in gt])
        assert np.array_equal(pairing_similarity(plan, gt, pred), want)

    def test_a_list_of_objects_inside_the_element_is_paired(self):
        crate = {"ref": "a", "parcels": [{"code": "A"}, {"code": "B", "qty": 2}]}
        gt, pred = yard_models({"crates": [crate]}, {"crates": [crate, {"ref": "b", "parcels": [{"code": "B"}]}]})
        got, paths = compare(gt, pred, document_non_matches=True)
        assert_identical(stock(gt, pred), got)
        assert paths["crates"] == {"paired"}
        plan = pairing_plan_for(type(gt.crates[0]))
        assert isinstance(plan, PairingPlan) and [type(rule).__name__ for rule in plan.fields] == [
            "FieldRule",
            "ValuesRule",
            "ObjectsRule",
            "NestedRule",
        ]

    def test_lists_of_objects_inside_the_listed_objects_are_paired(self):
        class Tag(BaseModel):
            code: str | None = None

        class Inner(BaseModel):
            tags: list[Tag] = []  # a list of objects inside the objects of a list inside the element

        class Outer(BaseModel):
            inner: list[Inner] = []

        class Holder(BaseModel):
            items: list[Outer] = []

        spec = eval_for(Holder)
        gt = spec.eval_model.from_json({"items": [{"inner": [{"tags": [{"code": "a"}]}]}, {"inner": []}]})
        pred = spec.eval_model.from_json({"items": [{"inner": [{"tags": [{"code": "a"}, {"code": "b"}]}]}]})
        assert_paired_as_the_engine(gt, pred)
        assert_paired_similarities(gt, pred)
        plan = pairing_plan_for(type(gt.items[0]))
        assert isinstance(plan, PairingPlan) and plan.engine == "field 'inner' is a list"

    def test_a_list_of_objects_that_do_not_vectorise_pairs_by_the_engine(self):
        class Contact(StructuredModel):
            phone: str | None = ComparableField(comparator=PhoneComparator(), threshold=0.9)

        class Office(StructuredModel):
            contacts: list[Contact] = ComparableField(default=[])

        class Branch(StructuredModel):
            name: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
            offices: list[Office] = ComparableField(default=[])

        class Firm(StructuredModel):
            items: list[Branch] = ComparableField(default=[])

        branches = [
            {"name": "a", "offices": [{"contacts": [{"phone": "555-0100"}]}]},
            {"name": "b", "offices": [{"contacts": [{"phone": "555-0199"}, {"phone": "555-0100"}]}]},
        ]
        gt, pred = Firm.from_json({"items": branches}), Firm.from_json({"items": branches[::-1]})
        got, paths = compare(gt, pred, document_non_matches=True)
        assert_identical(stock(gt, pred), got)
        assert paths["items"] == {"engine"}
        why = "field 'offices' is a list of objects whose field 'contacts' is a list of objects whose field 'phone'"
        assert pairing_plan_for(Branch) == f"{why} uses PhoneComparator"

    @pytest.mark.parametrize("value", [None, "text", {"code": "A"}])
    def test_something_else_in_a_list_of_objects_is_paired_by_the_engine(self, value):
        # A null item, text or a dict set without validation where an object belongs: the engine's path and result.
        crates = [{"ref": "a", "parcels": [{"code": "A"}]}, {"ref": "b", "parcels": [{"code": "B"}]}]
        gt, pred = yard_models({"crates": crates}, {"crates": crates[::-1]})
        pred.crates[0].parcels.append(value)
        want = stock(gt, pred)
        got, paths = compare(gt, pred, document_non_matches=True)
        assert_identical(want, got)
        assert paths["crates"] == {"engine"}

    # (the engine dumps the odd value, and warns that a dict there is compared as a scalar)
    @pytest.mark.filterwarnings("ignore:Pydantic serializer warnings", "ignore:Field 'price' holds a mapping")
    @pytest.mark.parametrize("value", ["text", 5, {"amount": 1.0}])
    def test_something_else_where_the_object_belongs_is_paired_by_the_engine(self, value):
        # Set without validation (model_construct, a caller's own instance): the engine's path, the engine's result.
        gt = Order.from_json({"items": [{"sku": "A1", "shipping": {}}, {"sku": "B2", "shipping": {}}]})
        pred = Order.from_json({"items": [{"sku": "A1", "shipping": {}}]})
        for item in (*gt.items, *pred.items):
            object.__setattr__(item, "price", value)
        want = stock(gt, pred)
        got, paths = compare(gt, pred, document_non_matches=True)
        assert_identical(want, got)
        assert paths == {"items": {"engine"}}

    def test_a_nested_plan_made_twice_still_pairs(self, monkeypatch):
        # Two threads planning the nested class at once each make a plan: equal ones, not the same object.
        pairing_plan_for(Priced)
        threshold, plan = fastmatch._PLANS[Money]
        monkeypatch.setitem(fastmatch._PLANS, Money, (threshold, dataclasses.replace(plan)))
        items = [{"sku": "A1", "price": {"amount": 1.0}, "shipping": {}}, {"sku": "B2", "shipping": {}}]
        gt, pred = Order.from_json({"items": items}), Order.from_json({"items": items[::-1]})
        got, paths = compare(gt, pred, document_non_matches=True)
        assert paths == {"items": {"paired"}}
        assert_identical(stock(gt, pred), got)

    def test_a_long_list_of_nested_objects_is_not_paired_by_the_engine(self, monkeypatch):
        items = [
            {"sku": f"S{i}", "name": f"item {i}", "price": {"amount": float(i)}, "shipping": {"amount": 5.0}}
            for i in range(40)
        ]
        gt = Order.from_json({"items": items})
        pred = Order.from_json({"items": items[::-1]})
        calls = TestMatchOnce().counting(monkeypatch)
        raw, paths = compare(gt, pred, document_non_matches=True)
        assert calls == [] and paths == {"items": {"paired"}}
        assert raw["overall_score"] == 1.0


# -- elements holding nested objects that hold nested objects: paired, at any depth ---------------------


class Point(StructuredModel):
    match_threshold = 0.8  # the threshold of `x`, declared without ComparableField

    x: float | None = None
    label: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.75)


class Size(StructuredModel):
    width: float | None = ComparableField(comparator=NumericComparator(relative_tolerance=0.01), threshold=1.0)
    unit: str | None = ComparableField(comparator=ExactComparator(case_sensitive=False), threshold=1.0)
    origin: Point | None = ComparableField(default=None, threshold=0.75, clip_under_threshold=True, weight=0.5)
    marks: list[str] = ComparableField(comparator=LevenshteinComparator(), threshold=0.75, default=[])
    pins: list[Point] | None = ComparableField(default=None, weight=0.5)  # a list of objects inside a nested object


class Part(StructuredModel):
    name: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.7, clip_under_threshold=False)
    size: Size | None = ComparableField(default=None, weight=1.5, threshold=0.6, clip_under_threshold=False)
    box: Size = ComparableField(threshold=0.9, clip_under_threshold=True)  # required: every part has one
    codes: list[str] | None = ComparableField(
        comparator=LevenshteinComparator(), threshold=0.75, clip_under_threshold=False, default=None
    )
    tags: list[str] = ComparableField(comparator=LevenshteinComparator(), threshold=0.75, default=[])  # clipped


class Line(StructuredModel):
    sku: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0, weight=2.0)
    part: Part | None = ComparableField(default=None)


class Shipment(StructuredModel):
    lines: list[Line] = ComparableField(default=[])


POINT_OBJECT = st.fixed_dictionaries(
    {"x": st.sampled_from([None, 0.0, 1.0, 1.5]), "label": st.sampled_from([None, "", "abcd", "abce", "wxyz"])}
)
POINT = st.one_of(st.none(), POINT_OBJECT)
# Lists of plain values inside the nested objects: pairs on the 0.75 threshold ("abcd"/"abce") and under it ("abxy").
MARKS = st.lists(st.sampled_from(["abcd", "abce", "abxy", "wxyz", "", "ABCD"]), max_size=3)
SIZE_OBJECT = st.fixed_dictionaries(
    {
        "width": st.sampled_from([None, 1.0, 1.005, 1.02, 10.0]),
        "unit": st.sampled_from([None, "", "cm", "CM", "in"]),
        "origin": POINT,
        "marks": MARKS,
        "pins": st.one_of(st.none(), st.lists(POINT_OBJECT, max_size=3)),
    }
)
PART_OBJECT = st.fixed_dictionaries(
    {
        "name": TEXT,
        "size": st.one_of(st.none(), SIZE_OBJECT),
        "box": SIZE_OBJECT,
        "codes": st.one_of(st.none(), MARKS),
        "tags": MARKS,
    }
)
LINE = {"sku": st.sampled_from([None, "", "A1", "B2", "C3"]), "part": st.one_of(st.none(), PART_OBJECT)}


class Rate(StructuredModel):
    kind: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
    rate: float | None = None


class Breakdown(StructuredModel):
    """A nested object holding a list of flat objects and a list of plain values: its `compare` is handed on."""

    total: float | None = None
    rates: list[Rate] | None = ComparableField(default=None)
    notes: list[str] = ComparableField(comparator=LevenshteinComparator(), threshold=0.75, default=[])


class Taxed(StructuredModel):
    sku: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0, weight=2.0)
    tax: Breakdown | None = ComparableField(default=None, threshold=0.8)


class TaxLedger(StructuredModel):
    lines: list[Taxed] = ComparableField(default=[])


class TwoLedgers(StructuredModel):
    first: list[Taxed] = ComparableField(default=[])
    second: list[Taxed] = ComparableField(default=[])


RATE_OBJECT = st.fixed_dictionaries(
    {"kind": st.sampled_from([None, "", "vat", "VAT", "gst"]), "rate": st.sampled_from([None, 0.0, 0.05, 0.2])}
)
TAXED = {
    "sku": st.sampled_from([None, "A1", "B2"]),
    "tax": st.one_of(
        st.none(),
        st.fixed_dictionaries(
            {
                "total": st.sampled_from([None, 0.0, 1.5, 2.0]),
                "rates": st.one_of(st.none(), st.lists(RATE_OBJECT, max_size=3)),
                "notes": MARKS,
            }
        ),
    ),
}


class TestNestedComparesHandedOn:
    """A matched pair's nested objects: their `compare` comes from the pairing pass, as the engine's value and type."""

    @SETTINGS
    @given(data=st.data())
    def test_identical_to_the_engine(self, data):
        lines = data.draw(st.lists(st.fixed_dictionaries(TAXED), max_size=6))
        gt = TaxLedger.from_json({"lines": lines})
        pred = TaxLedger.from_json({"lines": prediction_list(data, lines, TAXED)})
        assert_pairs_as_the_engine(gt, pred, "lines")

    def test_the_engine_does_not_compute_them_again(self, monkeypatch):
        rates = [{"kind": "vat", "rate": 0.2}, {"kind": "gst", "rate": 0.05}]
        lines = [
            {"sku": f"S{i}", "tax": {"total": float(i), "rates": rates[: i % 3], "notes": ["abcd", "wxyz"][: i % 3]}}
            for i in range(8)
        ]
        gt = TaxLedger.from_json({"lines": lines})
        pred = TaxLedger.from_json({"lines": [{**line, "sku": f"T{i}"} for i, line in enumerate(lines[::-1])]})
        want = stock(gt, pred)
        calls: list[str] = []
        original = StructuredModel.compare

        def counted(self: Any, other: Any) -> float:
            calls.append(type(self).__name__)
            return original(self, other)

        monkeypatch.setattr(StructuredModel, "compare", counted)
        got, paths = compare(gt, pred, document_non_matches=True)
        assert paths["lines"] == {"paired"} and "Breakdown" not in calls
        monkeypatch.undo()
        assert_identical(want, got)
        assert any(type(v) is np.float64 for v in _values(got))  # (two notes a side: the engine's numpy float)

    def test_a_matched_pairs_inner_lists_are_cut_from_the_pairing_columns(self, monkeypatch):
        """The pairing pass built columns over every line's rates; a matched pair's two rate lists are a slice of
        them: no new columns, and the engine's result."""
        from structsim_nb.engine import listmatch

        rates = [{"kind": "vat", "rate": 0.2}, {"kind": "gst", "rate": 0.05}, {"kind": "pst", "rate": 0.07}]
        lines = [{"sku": f"S{i}", "tax": {"total": float(i), "rates": rates[i % 2 : 2 + i % 2]}} for i in range(6)]
        gt = TaxLedger.from_json({"lines": lines})
        pred = TaxLedger.from_json(
            {"lines": [{**line, "tax": {**line["tax"], "rates": line["tax"]["rates"][::-1]}} for line in lines[::-1]]}
        )
        want = stock(gt, pred)
        built: list[int] = []
        original = listmatch.ElementColumns

        def counted(plan: Any, gt_list: Any, pred_list: Any) -> Any:
            built.append(len(gt_list))
            return original(plan, gt_list, pred_list)

        monkeypatch.setattr(listmatch, "ElementColumns", counted)
        got, paths = compare(gt, pred, document_non_matches=True)
        monkeypatch.undo()
        assert paths["lines"] == {"paired"} and paths["lines.tax.rates"] == {"vectorised"}
        assert built == []
        assert_identical(want, got)

    def test_a_pass_lets_go_of_its_columns_when_its_list_is_done(self, monkeypatch):
        """The columns a pairing pass built over every inner list live as long as that list's comparison, not the
        document's: a second list field's pass starts with the first one's gone (non-match records included)."""
        import weakref

        from structsim_nb.engine import listmatch

        rates = [{"kind": "vat", "rate": 0.2}, {"kind": "gst", "rate": 0.05}]
        lines = [{"sku": f"S{i}", "tax": {"total": float(i), "rates": rates}} for i in range(4)]
        gt = TwoLedgers.from_json({"first": lines, "second": lines})
        pred = TwoLedgers.from_json({"first": lines[::-1], "second": lines[::-1]})
        want = stock(gt, pred)
        recorded: list[weakref.ref] = []
        alive_at_each_pass: list[int] = []
        original_record, original_pairing = fastmatch.InnerColumns.record, listmatch.pairing_similarity

        def record(self: Any, columns: Any, *args: Any) -> None:
            recorded.extend(weakref.ref(kept) for kept in (columns, *columns.raw))  # (a slice kept must not keep them)
            original_record(self, columns, *args)

        def pairing(*args: Any, **kwargs: Any) -> Any:
            alive_at_each_pass.append(sum(ref() is not None for ref in recorded))
            return original_pairing(*args, **kwargs)

        monkeypatch.setattr(fastmatch.InnerColumns, "record", record)
        monkeypatch.setattr(listmatch, "pairing_similarity", pairing)
        got, paths = compare(gt, pred, document_non_matches=True)
        monkeypatch.undo()
        assert paths["first"] == paths["second"] == {"paired"}
        assert recorded and alive_at_each_pass == [0, 0]
        assert_identical(want, got)

    def test_a_class_whose_type_is_not_worked_out_is_computed_by_the_engine(self):
        part = Part.from_json({"size": {"width": 1.0, "pins": [{"x": 1.0}]}, "box": {"unit": "cm"}})
        assert fastmatch.compare_as_the_engine(0.5, part, part) is None
        breakdown = Breakdown.from_json({"notes": ["abcd"]})
        assert type(fastmatch.compare_as_the_engine(np.float64(0.5), breakdown, breakdown)) is float


class TestFieldsSetWithoutValidation:
    """An object without one of its fields (`model_construct`, a deleted attribute): stickler's `compare` leaves the
    field out, so every vectorised reader refuses the list and the engine's path runs, with the engine's result (or
    its error: it reads a matched list element's fields without a default, so there it raises, and so do we)."""

    @staticmethod
    def outcome(run: Any) -> Any:
        try:
            return run()
        except Exception as error:  # noqa: BLE001 - the engine's own failure is the outcome to match
            return type(error)

    @pytest.mark.parametrize("where", ["element", "nested object", "list item"])
    def test_a_missing_field_takes_the_engines_path(self, where):
        if where == "element":
            entries = [{"name": "abcd", "code": "x1", "amount": 1.0}, {"name": "wxyz", "code": "y2", "amount": 2.0}]
            gt, pred = Ledger.from_json({"entries": entries}), Ledger.from_json({"entries": entries[::-1]})
            field, objects, name = "entries", pred.entries, "code"
        else:
            lines = [
                {"sku": "A1", "tax": {"total": 1.0, "rates": [{"kind": "vat", "rate": 0.2}, {"kind": "gst"}]}},
                {"sku": "B2", "tax": {"total": 2.0, "rates": [{"kind": "vat", "rate": 0.1}], "notes": ["abcd"]}},
            ]
            gt, pred = TaxLedger.from_json({"lines": lines}), TaxLedger.from_json({"lines": lines[::-1]})
            field, name = "lines", "total" if where == "nested object" else "rate"
            objects = [line.tax for line in pred.lines]
            if where == "list item":
                objects = [rate for tax in objects for rate in tax.rates]
        for item in objects:
            del item.__dict__[name]
        want = self.outcome(lambda: stock(gt, pred))
        got = self.outcome(lambda: compare(gt, pred, document_non_matches=True))
        if isinstance(want, type):
            assert got is want
            return
        result, paths = got
        assert_identical(want, result)
        assert paths[field] == {"engine"}


def _values(tree: Any) -> Iterator[Any]:
    """Every leaf of a result dict."""
    if isinstance(tree, dict):
        for value in tree.values():
            yield from _values(value)
    elif isinstance(tree, list):
        for value in tree:
            yield from _values(value)
    else:
        yield tree


class Pallet(StructuredModel):
    ref: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
    parts: list[Part] = ComparableField(default=[])  # a list of objects that hold nested objects


class Depot(StructuredModel):
    pallets: list[Pallet] = ComparableField(default=[])


PALLET = {"ref": st.sampled_from([None, "P1", "P2"]), "parts": st.lists(PART_OBJECT, max_size=3)}


class SizeHolder(StructuredModel):
    size: Size | None = ComparableField(default=None)


class PartHolder(StructuredModel):
    part: Part | None = ComparableField(default=None)


class Holders(StructuredModel):
    """Elements holding one object each: their pair similarity is that object pair's `compare_with` score."""

    sizes: list[SizeHolder] = ComparableField(default=[])
    parts: list[PartHolder] = ComparableField(default=[])


class TestDeeplyNestedObjects:
    """Elements whose nested objects hold nested objects (three levels): pairing reads vectorised similarities."""

    @SETTINGS
    @given(data=st.data(), threshold=st.sampled_from([None, 0.5, 1.0]))
    def test_identical_to_the_engine(self, data, threshold):
        lines = data.draw(st.lists(st.fixed_dictionaries(LINE), max_size=7))
        predicted = prediction_list(data, lines, LINE)
        with element_threshold(Point, threshold):
            gt = Shipment.from_json({"lines": lines})
            pred = Shipment.from_json({"lines": predicted})
            assert_pairs_as_the_engine(gt, pred)

    @SETTINGS
    @given(data=st.data())
    def test_a_list_of_such_objects_inside_the_element_is_paired(self, data):
        pallets = data.draw(st.lists(st.fixed_dictionaries(PALLET), max_size=5))
        gt = Depot.from_json({"pallets": pallets})
        pred = Depot.from_json({"pallets": prediction_list(data, pallets, PALLET)})
        assert_pairs_as_the_engine(gt, pred, "pallets")

    def test_parts_whose_scores_mix_python_and_numpy_floats_are_summed_as_the_engine(self):
        # Found on 3.13 (the test above): the three parts' compare_with scores were a Python float and two numpy
        # floats, which sum() adds one after the other; the compensated sum of Python floats was 2 ulps off.
        def size(unit=None, marks=(), pins=None):
            return {"width": None, "unit": unit, "origin": None, "marks": list(marks), "pins": pins}

        def part(box, tags, size_=None):
            return {"name": None, "size": size_, "box": box, "codes": None, "tags": tags}

        pin = [{"x": None, "label": None}]
        gt = Depot.from_json(
            {
                "pallets": [
                    {"ref": None, "parts": []},
                    {
                        "ref": None,
                        "parts": [
                            part(size(marks=["abcd"]), []),
                            part(size(marks=["abcd"]), ["abcd", "abcd"]),
                            part(size(marks=["abcd"]), ["abcd"], size("cm", ["abcd"], pin)),
                        ],
                    },
                ]
            }
        )
        pred = Depot.from_json(
            {
                "pallets": [
                    {
                        "ref": None,
                        "parts": [part(size(), []), part(size(), ["abcd"]), part(size(), [], size(marks=["abcd"] * 3))],
                    }
                ]
            }
        )
        assert_pairs_as_the_engine(gt, pred, "pallets")

    @SETTINGS
    @given(
        sizes=st.lists(SIZE_OBJECT, min_size=1, max_size=5),
        other_sizes=st.lists(SIZE_OBJECT, min_size=1, max_size=5),
        parts=st.lists(PART_OBJECT, min_size=1, max_size=4),
        other_parts=st.lists(PART_OBJECT, min_size=1, max_size=4),
    )
    def test_every_pair_of_nested_objects_scores_as_the_engine(self, sizes, other_sizes, parts, other_parts):
        # Each entry is one object pair's `compare_with` score, which reads the nested objects' `compare` and the
        # lists' scores inside it: every pair of two lists, compared with the engine's, bit for bit.
        gt = Holders.from_json({"sizes": [{"size": s} for s in sizes], "parts": [{"part": p} for p in parts]})
        pred = Holders.from_json(
            {"sizes": [{"size": s} for s in other_sizes], "parts": [{"part": p} for p in other_parts]}
        )
        assert_paired_similarities(gt, pred, "sizes")
        assert_paired_similarities(gt, pred, "parts")

    def test_the_plan_reaches_every_level(self):
        plan = pairing_plan_for(Line)
        assert isinstance(plan, PairingPlan) and plan.engine == "field 'part' is a nested object"
        part = plan.fields[1]
        assert isinstance(part, fastmatch.NestedRule) and part.cls is Part
        part_plan = fastmatch.object_plan_for(Part)
        assert isinstance(part_plan, fastmatch.NestedPlan)
        size = part_plan.fields[1]
        assert (size.name, size.cls, size.threshold, size.clip) == ("size", Size, 0.6, False)
        origin = fastmatch.object_plan_for(Size).fields[2]
        assert (origin.name, origin.cls, origin.threshold, origin.clip) == ("origin", Point, 0.75, True)
        assert isinstance(fastmatch.object_plan_for(Point), fastmatch.ElementPlan)
        codes, marks = part_plan.fields[3], fastmatch.object_plan_for(Size).fields[3]
        assert isinstance(codes, fastmatch.ValuesRule) and (codes.name, codes.threshold, codes.clip) == (
            "codes",
            0.75,
            False,
        )
        assert isinstance(marks, fastmatch.ValuesRule) and (marks.name, marks.threshold, marks.clip) == (
            "marks",
            0.75,
            True,
        )
        pins = fastmatch.object_plan_for(Size).fields[4]
        assert isinstance(pins, fastmatch.ObjectsRule) and (pins.name, pins.cls, pins.weight) == ("pins", Point, 0.5)

    def test_a_long_list_is_not_paired_by_the_engine(self, monkeypatch):
        lines = [
            {
                "sku": f"S{i}",
                "part": {"name": f"part {i}", "size": {"width": float(i), "origin": {"x": 1.0}}, "box": {}},
            }
            for i in range(40)
        ]
        gt, pred = Shipment.from_json({"lines": lines}), Shipment.from_json({"lines": lines[::-1]})
        calls = TestMatchOnce().counting(monkeypatch)
        raw, paths = compare(gt, pred, document_non_matches=True)
        assert calls == [] and paths == {"lines": {"paired"}}
        assert raw["overall_score"] == 1.0

    def test_an_inner_class_whose_threshold_changed_is_planned_again(self):
        lines = [{"sku": "A1", "part": {"size": {"origin": {"x": 1.0, "label": "abcd"}}, "box": {}}}, {"sku": "B2"}]
        gt = Shipment.from_json({"lines": lines})
        pred = Shipment.from_json(
            {"lines": [lines[1], {**lines[0], "part": {"size": {"origin": {"x": 1.5}}, "box": {}}}]}
        )
        assert_pairs_as_the_engine(gt, pred)  # planned with Point's threshold as it is
        with element_threshold(Point, 0.3):
            assert_pairs_as_the_engine(gt, pred)

    def test_a_class_nesting_itself_pairs_by_the_engine(self):
        class Node(StructuredModel):
            name: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
            child: Node | None = ComparableField(default=None)

        class Tree(StructuredModel):
            nodes: list[Node] = ComparableField(default=[])

        Node.model_rebuild()
        assert pairing_plan_for(Node) == (
            "field 'child' is a nested object whose field 'child' is a nested object that nests its own class"
        )
        nodes = [{"name": "a", "child": {"name": "b"}}, {"name": "c"}]
        gt, pred = Tree.from_json({"nodes": nodes}), Tree.from_json({"nodes": nodes[::-1]})
        got, paths = compare(gt, pred, document_non_matches=True)
        assert_identical(stock(gt, pred), got)
        assert paths["nodes"] == {"engine"}


# -- elements holding lists: each matched pair compared once, extra keys counted as the engine does ------


class Crate(BaseModel):
    ref: str | None = None
    tags: list[str] = []  # a list of plain values inside the element
    parcels: list[Tiny] = []  # a list of objects inside the element
    seal: Tiny | None = None  # a nested object inside the element


class Yard(BaseModel):
    name: str | None = None
    crates: list[Crate] = []
    gate: Tiny | None = None


TAGS = st.lists(st.sampled_from(["red", "Red", "blue", "", "fragile"]), max_size=3)
EXTRA = st.dictionaries(st.sampled_from(["zz", "note", "x-id"]), st.sampled_from([1, "a", None]), max_size=2)


@st.composite
def yards(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """Yards whose crates hold lists and objects; the predicted side has keys the schema lacks, at every level."""
    data = draw(st.data())

    def crate() -> dict[str, Any]:
        return {
            "ref": data.draw(st.sampled_from([None, "c1", "C1", "c2", "c3"])),
            "tags": data.draw(TAGS),
            "parcels": data.draw(st.lists(st.fixed_dictionaries(TINY), max_size=3)),
            "seal": data.draw(st.one_of(st.none(), st.fixed_dictionaries(TINY))),
        }

    def odd(item: dict[str, Any]) -> dict[str, Any]:
        """`item` with extra keys, also in its nested object."""
        seal = item.get("seal")
        return {**item, **data.draw(EXTRA), "seal": {**seal, **data.draw(EXTRA)} if seal else seal}

    truth = [crate() for _ in range(data.draw(st.integers(0, 5)))]
    predicted = []
    for item in truth:
        fate = data.draw(st.sampled_from(["keep", "retag", "reparcel", "drop", "new"]))
        if fate == "keep":
            predicted.append(odd(dict(item)))
        elif fate == "retag":
            predicted.append(odd({**item, "tags": data.draw(TAGS)}))
        elif fate == "reparcel":
            predicted.append(odd({**item, "parcels": prediction_list(data, item["parcels"], TINY, max_extra=1)}))
        elif fate == "new":
            predicted.append(odd(crate()))
    gate = data.draw(st.one_of(st.none(), st.fixed_dictionaries(TINY)))
    gt = {"name": data.draw(TEXT), "crates": truth, "gate": gate}
    pred = {
        "name": data.draw(TEXT),
        "crates": data.draw(st.permutations(predicted)) if predicted else [],
        "gate": {**gate, **data.draw(EXTRA)} if gate else None,
        **data.draw(EXTRA),
    }
    return gt, pred


def yard_models(gt: dict[str, Any], pred: dict[str, Any], **options: Any) -> tuple[Any, Any]:
    spec = eval_for(Yard, **options)
    return spec.eval_model.from_json(gt), spec.eval_model.from_json(pred)  # (extra keys kept, as the engine reads them)


class TestElementsHoldingLists:
    @SETTINGS
    @given(doc=yards(), threshold=st.sampled_from([None, 0.5, 1.0]))
    def test_identical_to_the_engine(self, doc, threshold):
        gt, pred = yard_models(*doc, match_threshold=threshold)
        want = stock(gt, pred)
        for vectorised in (True, False):
            assert_identical(want, compare(gt, pred, vectorised=vectorised, document_non_matches=True)[0])

    def pair(self) -> tuple[Any, Any]:
        crates = [{"ref": f"c{i}", "tags": ["red", "fragile"], "parcels": [{"code": "A", "qty": 1}]} for i in range(4)]
        parcels = [{"code": "B", "qty": 1}, {"code": "A", "qty": 1}]
        changed = [{**c, "tags": ["red"], "parcels": parcels} for c in crates]
        # (each pair scores (1 + 1/2 + 1/2) / 3 = 2/3: a match at 0.6, so the per-field counts read every pair)
        return yard_models({"crates": crates}, {"crates": changed}, match_threshold=0.6)

    @pytest.mark.parametrize("vectorised", [True, False])
    def test_each_matched_pair_is_compared_once(self, monkeypatch, vectorised):
        # stickler's per-field counts of a list of elements compare every good pair's list fields a second
        # time, through the stock dispatch (its own list comparators); the pair's comparison already holds them.
        from stickler.structured_object_evaluator.models.primitive_list_comparator import PrimitiveListComparator
        from stickler.structured_object_evaluator.models.structured_list_comparator import StructuredListComparator

        stock_lists: list[str] = []
        plain_lists: list[str] = []
        structured, primitive = (
            StructuredListComparator.compare_struct_list_with_scores,
            PrimitiveListComparator.compare_primitive_list_with_scores,
        )

        def structured_spy(self: Any, gt_list: Any, pred_list: Any, field_name: str) -> Any:
            if type(self) is StructuredListComparator:
                stock_lists.append(field_name)
            return structured(self, gt_list, pred_list, field_name)

        def primitive_spy(self: Any, gt_list: Any, pred_list: Any, field_name: str) -> Any:
            if type(self) is PrimitiveListComparator:  # a stock comparison (not this engine's handing a list on)
                plain_lists.append(field_name)
            return primitive(self, gt_list, pred_list, field_name)

        # This engine's own comparator of lists of values (which hands what it does not vectorise to the stock one).
        from structsim_nb.engine.listmatch import _ValueListComparator

        ours = _ValueListComparator.compare_primitive_list_with_scores

        def our_spy(self: Any, gt_list: Any, pred_list: Any, field_name: str) -> Any:
            plain_lists.append(field_name)
            return ours(self, gt_list, pred_list, field_name)

        monkeypatch.setattr(StructuredListComparator, "compare_struct_list_with_scores", structured_spy)
        monkeypatch.setattr(PrimitiveListComparator, "compare_primitive_list_with_scores", primitive_spy)
        monkeypatch.setattr(_ValueListComparator, "compare_primitive_list_with_scores", our_spy)
        gt, pred = self.pair()
        raw, paths = compare(gt, pred, vectorised=vectorised, document_non_matches=True)
        assert paths["crates"] == {"paired" if vectorised else "engine"}
        assert stock_lists == []  # the crates' parcels: matched once each, by this engine
        assert plain_lists == ["tags"] * 4  # once for each of the 4 matched pairs, not twice
        crates = raw["confusion_matrix"]["fields"]["crates"]
        assert crates["fields"]["parcels"]["overall"]["fa"] == 4
        assert crates["fields"]["tags"]["overall"]["fn"] == 4

    def test_plain_fields_skip_the_engines_dispatch(self, monkeypatch):
        # The engine asks the class for a field's configuration and kind on every call; a plain field holding
        # plain values is dispatched from what was read once per class, with the same result.
        from stickler.structured_object_evaluator.models.comparison_dispatcher import ComparisonDispatcher

        seen: list[str] = []
        original = ComparisonDispatcher.dispatch_field_comparison

        def spy(self: Any, field_name: str, gt_val: Any, pred_val: Any) -> Any:
            seen.append(field_name)
            return original(self, field_name, gt_val, pred_val)

        monkeypatch.setattr(ComparisonDispatcher, "dispatch_field_comparison", spy)
        gt, pred = self.pair()
        compare(gt, pred, vectorised=True)
        # (the engine's pairing of the crates still dispatches the parcels' fields, inside stickler's `compare`)
        assert "name" not in seen and "ref" not in seen and "crates" in seen
        seen.clear()
        compare(gt, pred, vectorised=False)
        assert "name" in seen and "ref" in seen


# -- what the engine reads on every call, read again when it changes; what it refuses, refused -----------------


class Bare(StructuredModel):  # fields without ComparableField: thresholds from the class's match_threshold
    match_threshold = 0.5
    name: str | None = None
    code: str | None = None


class BareDoc(StructuredModel):
    match_threshold = 0.5
    items: list[Bare] = []
    title: str | None = None


class TestClassSettings:
    @pytest.mark.parametrize("threshold", [0.9, 0.3])
    def test_a_changed_match_threshold_is_read_again(self, monkeypatch, threshold):
        gt = BareDoc(items=[Bare(name="abc", code="x"), Bare(name="zzz", code="y")], title="abc")
        pred = BareDoc(items=[Bare(name="abd", code="x"), Bare(name="zzy", code="q")], title="abd")
        compare(gt, pred)  # the plans and field tables kept at 0.5
        monkeypatch.setattr(Bare, "match_threshold", threshold)
        monkeypatch.setattr(BareDoc, "match_threshold", threshold)
        want = stock(gt, pred)
        for vectorised in (True, False):
            assert_identical(want, compare(gt, pred, vectorised=vectorised, document_non_matches=True)[0])

    @pytest.mark.parametrize("vectorised", [True, False])
    def test_an_element_without_the_field_raises_as_the_engine_does(self, vectorised):
        # A list of two classes: the per-field counts read the ground truth's fields off the predicted element.
        class Seal(StructuredModel):
            code: str | None = None

        class Cat(StructuredModel):
            name: str | None = None
            seal: Seal | None = None

        class Dog(StructuredModel):
            name: str | None = None

        class Pets(StructuredModel):
            pets: list[Cat | Dog] = []

        gt, pred = Pets(pets=[Cat(name="x", seal=Seal(code="A"))]), Pets(pets=[Dog(name="x")])
        with pytest.raises(AttributeError, match="seal"):
            stock(gt, pred)
        with pytest.raises(AttributeError, match="seal"):
            compare(gt, pred, vectorised=vectorised, document_non_matches=True)

    def test_a_pair_is_documented_only_when_the_collector_asks(self, monkeypatch):
        # The engine documents the fields of a matched pair only when the pair is a match; collecting every pair's
        # records at once ran the engine's matching of lists inside pairs it never documents (and a value there
        # that its comparator refuses then raised where the engine does not).
        from structsim_nb.engine.listrecords import RecordCollector

        calls: list[str] = []
        original = RecordCollector.collect_enhanced_non_matches

        def spy(self: Any, recursive_result: Any, other: Any) -> Any:
            calls.append(type(self.model).__name__)
            return original(self, recursive_result, other)

        monkeypatch.setattr(RecordCollector, "collect_enhanced_non_matches", spy)
        parcels = [{"code": "A", "qty": 1}, {"code": "B", "qty": 2}]  # (two: a vectorised list, no collector)
        crates = [{"ref": f"c{i}", "tags": ["red"], "parcels": parcels} for i in range(4)]
        changed = [{**crate, "ref": "other"} for crate in crates[:2]] + crates[2:]  # two pairs below the threshold
        gt, pred = yard_models({"crates": crates}, {"crates": changed}, match_threshold=0.9)
        raw, paths = compare(gt, pred, document_non_matches=True)
        assert paths["crates"] == {"paired"}
        assert sorted(calls) == ["CrateEval", "CrateEval", "YardEval"]  # the document, and the two good pairs
        assert_identical(stock(gt, pred), raw)


# -- elements holding lists of plain values: paired, each list pair scored as the engine scores it ----------


class Serial(StructuredModel):
    match_threshold = 0.6

    sku: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
    serials: list[str] = ComparableField(default=[], comparator=LevenshteinComparator(), weight=2.0)
    codes: list[str] | None = ComparableField(default=None, comparator=ExactComparator(case_sensitive=False))
    sizes: list[float] = ComparableField(default=[], comparator=NumericComparator(relative_tolerance=0.01))
    notes: list[str] = ComparableField(default=[], comparator=FuzzyComparator(method="token_sort_ratio"))


class Shipped(StructuredModel):
    items: list[Serial] = ComparableField(default=[])


VALUES = st.sampled_from(["SN-1", "SN-2", "sn-1", "SN-12", "", "Straße", "STRASSE", "x"])
SERIAL = {
    "sku": st.sampled_from([None, "A", "B", "C"]),
    "serials": st.lists(VALUES, max_size=4),
    "codes": st.one_of(st.none(), st.lists(st.sampled_from(["a", "A", "b"]), max_size=3)),
    "sizes": st.lists(st.sampled_from([1.0, 1.005, 1.02, 2.0, 0.0]), max_size=3),
    "notes": st.lists(st.sampled_from(["red box", "box red", "blue", ""]), max_size=2),
}


class TestValueLists:
    """Elements holding lists of plain values: pair similarities by `innerlists`, each matched pair by the engine."""

    @SETTINGS
    @given(data=st.data())
    def test_the_pair_similarities_are_the_engines(self, data):
        draw = st.lists(st.fixed_dictionaries(SERIAL), min_size=1, max_size=5)
        assert_paired_similarities(
            Shipped.from_json({"items": data.draw(draw)}), Shipped.from_json({"items": data.draw(draw)})
        )

    @SETTINGS
    @given(data=st.data(), threshold=st.sampled_from([None, 0.5, 1.0]))
    def test_identical_to_the_engine(self, data, threshold):
        items = data.draw(st.lists(st.fixed_dictionaries(SERIAL), max_size=6))
        predicted = prediction_list(data, items, SERIAL)
        with element_threshold(Serial, threshold):
            assert_paired_as_the_engine(Shipped.from_json({"items": items}), Shipped.from_json({"items": predicted}))

    def test_ties_and_long_lists_are_scored_by_the_engine(self, monkeypatch):
        # Equal-cost assignments that score differently, and lists with more assignments than are enumerated,
        # are left to the engine's own `compare_field_raw` for that pair; the rest never reach it.
        from structsim_nb.engine import innerlists

        asked: list[tuple[int, int]] = []
        original = StructuredModel.compare_field_raw

        def spy(self: Any, field_name: str, other: Any) -> Any:
            asked.append((len(getattr(self, field_name) or []), len(other or [])))
            return original(self, field_name, other)

        monkeypatch.setattr(StructuredModel, "compare_field_raw", spy)
        long = [f"SN-{k}" for k in range(7)]  # 7 x 7: 5,040 assignments
        gt = Shipped.from_json({"items": [{"serials": long}, {"serials": ["SN-1", "SN-2"]}]})
        pred = Shipped.from_json({"items": [{"serials": long[::-1]}, {"serials": ["SN-2", "SN-1"]}]})
        got = pairing_similarity(pairing_plan_for(Serial), gt.items, pred.items)
        assert (7, 7) in asked and (2, 2) not in asked
        want = np.array([[a.compare(b) for b in pred.items] for a in gt.items])
        assert got is not None and got.tobytes() == want.tobytes()
        # Treat every assignment as tied with the best: the two that score differently (SN-1 to SN-2 and back, or
        # each to itself) leave the pair unsettled, so the engine scores it.
        asked.clear()
        monkeypatch.setattr(innerlists, "_TIE", 2.0)
        got = pairing_similarity(pairing_plan_for(Serial), gt.items[1:], pred.items[1:])
        assert asked == [(2, 2)]
        assert got is not None and got[0, 0] == gt.items[1].compare(pred.items[1])

    def test_a_long_list_is_paired_without_the_engines_matching(self, monkeypatch):
        rows = [{"sku": f"S{i}", "serials": [f"SN-{i}-{k}" for k in range(1 + i % 3)]} for i in range(40)]
        gt, pred = Shipped.from_json({"items": rows}), Shipped.from_json({"items": rows[::-1]})
        calls = TestMatchOnce().counting(monkeypatch)
        raw, paths = compare(gt, pred, document_non_matches=True)
        assert paths == {"items": {"paired"}} and raw["overall_score"] == 1.0
        assert [n for n in calls if n >= 40] == []  # the element list: never the engine's pair-by-pair matching

    def test_text_where_a_list_belongs_is_paired_by_the_engine(self):
        gt = Shipped.from_json({"items": [{"serials": ["a"]}, {"serials": ["b"]}]})
        pred = Shipped.from_json({"items": [{"serials": ["a"]}]})
        object.__setattr__(pred.items[0], "serials", "a")  # set without validation
        assert pairing_similarity(pairing_plan_for(Serial), gt.items, pred.items) is None

    def test_one_element_a_side_is_scored_as_the_engine_types_it(self):
        # A 1x1 list is scored without the solver; a list of values inside the pair matched by munkres makes the
        # engine's score a numpy float, which the non-match record's similarity keeps.
        gt = Shipped.from_json({"items": [{"serials": ["a", "b"]}]})
        pred = Shipped.from_json({"items": [{"serials": ["x", "b"]}]})
        got, paths = compare(gt, pred, document_non_matches=True)
        assert paths == {"items": {"engine"}}  # (a lone pair: the engine scores it)
        assert_identical(stock(gt, pred), got)

    def test_a_value_the_comparator_refuses_raises_the_engines_error(self):
        # The engine compares pair by pair and raises for the first pair it reaches; the vectorised matrix would
        # read every value first and could meet another error first, so the engine pairs such a list.
        class Counted(StructuredModel):
            nums: list[bool | int] = ComparableField(default=[], comparator=NumericComparator())

        class Counts(StructuredModel):
            items: list[Counted] = ComparableField(default=[])

        gt = Counts.from_json({"items": [{"nums": [1]}, {"nums": [True]}]})
        pred = Counts.from_json({"items": [{"nums": [10**5000]}, {"nums": [2]}]})
        assert pairing_similarity(pairing_plan_for(Counted), gt.items, pred.items) is None
        with pytest.raises(ValueError, match="digits"):
            stock(gt, pred)
        with pytest.raises(ValueError, match="digits"):
            compare(gt, pred)


# -- elements holding lists of objects: paired, each list pair scored as the engine scores it --------------------


class Levy(StructuredModel):
    match_threshold = 0.5

    kind: str | None = ComparableField(comparator=ExactComparator(case_sensitive=False), threshold=1.0, weight=2.0)
    rate: float | None = ComparableField(comparator=NumericComparator(relative_tolerance=0.01), threshold=1.0)
    note: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.8)
    ref: str | None = ComparableField(comparator=LevenshteinComparator(), threshold=0.8, clip_under_threshold=False)


class LevyLine(StructuredModel):
    match_threshold = 0.6

    sku: str | None = ComparableField(comparator=ExactComparator(), threshold=1.0)
    levies: list[Levy] = ComparableField(default=[], weight=2.0)
    extra: list[Levy] | None = ComparableField(default=None, weight=0.5)


class LevyBill(StructuredModel):
    items: list[LevyLine] = ComparableField(default=[])


LEVY = st.fixed_dictionaries(
    {
        "kind": st.sampled_from([None, "", "VAT", "vat", "GST"]),
        "rate": st.sampled_from([None, 0.2, 0.201, 0.25]),
        "note": st.sampled_from([None, "standard", "standrd", "x"]),
        "ref": st.sampled_from([None, "r1", "r12"]),
    }
)
LEVY_LINE = {
    "sku": st.sampled_from([None, "A", "B", "C"]),
    "levies": st.lists(LEVY, max_size=4),
    "extra": st.one_of(st.none(), st.lists(LEVY, max_size=2)),
}


class TestObjectLists:
    """Elements holding lists of objects: pair similarities by `innerlists`, each matched pair by the engine."""

    @SETTINGS
    @given(data=st.data())
    def test_the_pair_similarities_are_the_engines(self, data):
        draw = st.lists(st.fixed_dictionaries(LEVY_LINE), min_size=1, max_size=5)
        assert_paired_similarities(
            LevyBill.from_json({"items": data.draw(draw)}), LevyBill.from_json({"items": data.draw(draw)})
        )

    @SETTINGS
    @given(data=st.data(), threshold=st.sampled_from([None, 0.5, 1.0]))
    def test_identical_to_the_engine(self, data, threshold):
        items = data.draw(st.lists(st.fixed_dictionaries(LEVY_LINE), max_size=6))
        predicted = prediction_list(data, items, LEVY_LINE)
        with element_threshold(LevyLine, threshold):
            assert_paired_as_the_engine(LevyBill.from_json({"items": items}), LevyBill.from_json({"items": predicted}))

    def test_a_long_list_is_paired_without_the_engines_matching(self, monkeypatch):
        rows = [
            {
                "sku": f"S{i}",
                "levies": [{"kind": "VAT", "rate": 0.2 + k / 100, "ref": f"r{i}"} for k in range(1 + i % 3)],
            }
            for i in range(40)
        ]
        gt, pred = LevyBill.from_json({"items": rows}), LevyBill.from_json({"items": rows[::-1]})
        calls = TestMatchOnce().counting(monkeypatch)
        raw, paths = compare(gt, pred, document_non_matches=True)
        assert paths["items"] == {"paired"} and raw["overall_score"] == 1.0
        assert [n for n in calls if n >= 40] == []  # the element list: never the engine's pair-by-pair matching


# -- fields holding lists of plain values: matched on a vectorised matrix with the engine's solver ------------------


class Labels(StructuredModel):
    words: list[str] = ComparableField(default=[], comparator=LevenshteinComparator(), threshold=0.7)
    codes: list[str] | None = ComparableField(default=None, comparator=ExactComparator(case_sensitive=False))
    sizes: list[float] = ComparableField(
        default=[], comparator=NumericComparator(relative_tolerance=0.01), threshold=1.0, weight=2.0
    )
    phrases: list[str] = ComparableField(
        default=[], comparator=FuzzyComparator(method="token_sort_ratio"), threshold=0.8, clip_under_threshold=False
    )
    title: str | None = ComparableField(comparator=LevenshteinComparator())


LABELS = {
    "words": st.lists(
        st.sampled_from(["alpha", "Alpha ", "alpah", "be  ta", "beta", "", "Straße", "STRASSE"]), max_size=25
    ),
    "codes": st.one_of(st.none(), st.lists(st.sampled_from(["x1", "X1", "y2", ""]), max_size=6)),
    "sizes": st.lists(st.sampled_from([1.0, 1.005, 1.02, 2.0, 0.0, -3.5]), max_size=12),
    "phrases": st.lists(st.sampled_from(["red box", "box red", "blue box", "x", ""]), max_size=6),
    "title": TEXT,
}


class TestValueListFields:
    """Fields holding lists of plain values, anywhere: the engine's result, without its comparator called per pair."""

    @SETTINGS
    @given(data=st.data())
    def test_identical_to_the_engine(self, data):
        gt = Labels.from_json(data.draw(st.fixed_dictionaries(LABELS)))
        pred = Labels.from_json(data.draw(st.fixed_dictionaries(LABELS)))
        want = stock(gt, pred)
        for vectorised in (True, False):
            assert_identical(want, compare(gt, pred, vectorised=vectorised, document_non_matches=True)[0])

    def test_a_long_list_never_calls_the_comparator_pair_by_pair(self, monkeypatch):
        words = [f"word-{k}" for k in range(40)]
        gt, pred = Labels.from_json({"words": words}), Labels.from_json({"words": words[::-1][:35] + ["odd"]})
        from stickler.algorithms.hungarian import HungarianMatcher

        calls: list[Any] = []
        original, score = LevenshteinComparator.compare, HungarianMatcher._score

        def spy(self: Any, a: Any, b: Any) -> Any:
            calls.append((a, b))
            return original(self, a, b)

        def score_spy(self: Any, a: Any, b: Any) -> Any:
            calls.append((a, b))
            return score(self, a, b)

        monkeypatch.setattr(LevenshteinComparator, "compare", spy)
        monkeypatch.setattr(HungarianMatcher, "_score", score_spy)  # (the records' matching, on equality)
        got, _ = compare(gt, pred, document_non_matches=True)
        assert calls == []  # (the engine: 40 x 36 calls for the score, as many for the records)
        monkeypatch.undo()
        assert_identical(stock(gt, pred), got)

    def test_one_value_a_side_and_refused_values_take_the_engines_path(self, monkeypatch):
        from stickler.structured_object_evaluator.models.primitive_list_comparator import PrimitiveListComparator

        handed: list[int] = []
        original = PrimitiveListComparator.compare_primitive_list_with_scores

        def spy(self: Any, gt_list: Any, pred_list: Any, field_name: str) -> Any:
            handed.append(len(gt_list) * len(pred_list))
            return original(self, gt_list, pred_list, field_name)

        monkeypatch.setattr(PrimitiveListComparator, "compare_primitive_list_with_scores", spy)
        gt, pred = Labels.from_json({"words": ["a"], "sizes": [1.0, 2.0]}), Labels.from_json({"words": ["b"]})
        object.__setattr__(pred, "sizes", [1.0, {"n": 2}])  # set without validation: not a plain value
        want = stock(gt, pred)
        handed.clear()
        got, _ = compare(gt, pred, document_non_matches=True)
        assert sorted(handed) == [1, 4]  # the 1x1 words and the sizes holding a dict: the engine's own comparison
        assert_identical(want, got)

    @pytest.mark.parametrize(
        ("field", "gt", "pred"),
        [
            ("codes", ["x1", "x1"], ["X1"]),  # the records' matching folds case, whatever the field's comparator
            ("words", ["Alpha ", "be  ta"], ["beta", "alpha"]),  # and collapses white space
            ("sizes", [1.0, 2.0], [2.0, 1.0, 1.0]),
        ],
    )
    def test_the_records_pair_values_as_the_engine_does(self, field, gt, pred):
        gt_model, pred_model = Labels.from_json({field: gt}), Labels.from_json({field: pred})
        assert_identical(stock(gt_model, pred_model), compare(gt_model, pred_model, document_non_matches=True)[0])

    def test_a_class_with_its_own_list_comparison_is_compared_by_it(self):
        class Own(StructuredModel):
            words: list[str] = ComparableField(default=[], comparator=LevenshteinComparator())

            def _compare_unordered_lists(self, gt_list, pred_list, comparator, threshold, clip=True, field_name=""):
                found = super()._compare_unordered_lists(gt_list, pred_list, comparator, threshold, clip, field_name)
                return {**found, "overall_score": 0.125}

        gt, pred = Own(words=["a", "b"]), Own(words=["a", "c"])
        got, _ = compare(gt, pred, document_non_matches=True)
        assert got["field_scores"]["words"] == 0.125
        assert_identical(stock(gt, pred), got)


class TestOverrides:
    """A model class that overrides a method the engine compares with is compared by its own `compare_with`."""

    def test_an_element_class_with_its_own_compare_is_paired_by_it(self):
        class Coded(StructuredModel):
            code: str | None = ComparableField(comparator=ExactComparator())
            note: str | None = ComparableField(comparator=LevenshteinComparator())

            def compare(self, other: Any) -> float:  # pairs by code alone
                return 1.0 if self.code == other.code else 0.0

        class Codes(StructuredModel):
            items: list[Coded] = ComparableField(default=[])

        gt = Codes.from_json({"items": [{"code": "a", "note": "x"}, {"code": "b", "note": "y"}]})
        pred = Codes.from_json({"items": [{"code": "b", "note": "x"}, {"code": "a", "note": "y"}]})
        for vectorised in (True, False):
            got, paths = compare(gt, pred, vectorised=vectorised, document_non_matches=True)
            assert paths == {}
            assert_identical(stock(gt, pred), got)
        assert overridden_method(Codes) == "Coded.compare"
        assert overridden_method(Shipped) is None  # (a stock class, holding stock classes)
