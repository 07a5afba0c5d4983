"""Tests for `structsim_nb.display.marks`: non-match paths located on the truth and on the prediction."""

from __future__ import annotations

import datetime

import pytest
from pydantic import BaseModel

from structsim_nb import score_dataset
from structsim_nb.demo import Invoice, LineItem
from structsim_nb.display.marks import as_document, case_marks, join_path, parse_path, value_at


@pytest.mark.parametrize(
    ("path", "segments"),
    [("", []), ("total", ["total"]), ("line_items[1].sku", ["line_items", 1, "sku"]), ("a[0][2]", ["a", 0, 2])],
)
def test_paths_parse_and_join_back(path, segments):
    assert parse_path(path) == segments
    assert join_path(segments) == path


def test_value_at_resolves_or_says_missing():
    document = {"a": [{"b": 1}, {"b": None}]}
    assert value_at(document, ["a", 1, "b"]) is None
    assert value_at(document, ["a", 2, "b"]) is not None and value_at(document, ["a", 2, "b"]) is value_at({}, ["x"])
    assert value_at(document, ["a", "b"]) is value_at({}, ["x"])


class Note(BaseModel):
    day: datetime.date


def test_as_document_gives_plain_json_never_a_repr():
    assert as_document(Note(day=datetime.date(2024, 3, 1))) == {"day": "2024-03-01"}
    assert as_document('{"a": 1}') == {"a": 1}
    assert as_document("Final answer: none") == "Final answer: none"
    assert as_document({"when": datetime.date(2024, 1, 2), "n": 1}) == {"when": "2024-01-02", "n": 1}


def _marks(truth: Invoice, prediction: Invoice) -> dict:
    report = score_dataset([(truth, prediction)], model_cls=Invoice, workers=1, progress=False)
    records = report.detailed_results[0][0].metadata["non_matches"]
    return case_marks(records, as_document(truth), as_document(prediction))


ITEMS = [
    LineItem(sku="A1", description="apple", quantity=1, unit_price=1.0),
    LineItem(sku="B2", description="banana", quantity=2, unit_price=2.0),
    LineItem(sku="C3", description="cherry", quantity=3, unit_price=3.0),
]


def test_reordered_list_items_are_marked_where_they_are_in_the_prediction():
    """Truth indexes name the records; the prediction's lines are found by their values."""
    truth = Invoice(invoice_id="A", vendor_name="V", line_items=ITEMS)
    moved = ITEMS[0].model_copy(update={"quantity": 5})
    stranger = LineItem(sku="X9", description="xx", quantity=9, unit_price=9.0)
    prediction = Invoice(invoice_id="A", vendor_name="V", line_items=[stranger, ITEMS[2], moved])
    marks = _marks(truth, prediction)
    # truth[0].quantity (1) was read as 5: that line sits at index 2 of the prediction.
    assert marks["truth"]["line_items[0].quantity"] == "wrong"
    assert marks["prediction"]["line_items[2].quantity"] == "wrong"
    # truth[1] (banana) was paired with the stranger, which the prediction has at index 0.
    assert marks["truth"]["line_items[1]"] == "wrong"
    assert marks["prediction"]["line_items[0]"] == "wrong"
    assert "line_items[1]" not in marks["prediction"]


def test_missed_and_invented_values_and_elements():
    truth = Invoice(invoice_id="A", vendor_name="V", invoice_date=datetime.date(2024, 1, 2), line_items=ITEMS[:1])
    extra = LineItem(sku="K7", description="keyboard", quantity=1, unit_price=45.0)
    prediction = Invoice(invoice_id="A", vendor_name="V", total_amount=99.0, line_items=[ITEMS[0], extra])
    marks = _marks(truth, prediction)
    assert marks["truth"] == {"invoice_date": "missed", "total_amount": "invented"}
    # The blank date is marked on the prediction too; the invented line only there.
    assert marks["prediction"] == {"invoice_date": "missed", "total_amount": "invented", "line_items[1]": "invented"}


def test_a_missed_element_is_not_marked_on_the_prediction():
    truth = Invoice(invoice_id="A", vendor_name="V", line_items=ITEMS[:2])
    prediction = Invoice(invoice_id="A", vendor_name="V", line_items=ITEMS[1:2])
    marks = _marks(truth, prediction)
    assert marks["truth"] == {"line_items[0]": "missed"}
    assert marks["prediction"] == {}


def test_records_whose_paths_do_not_resolve_are_skipped():
    records = [{"path": "nowhere.deep", "kind": "wrong", "expected": 1, "predicted": 2}]
    assert case_marks(records, {"a": 1}, {"a": 2}) == {"truth": {}, "prediction": {}}
    # Text that did not parse has no paths.
    assert case_marks(records, "free text", {"a": 2}) == {"truth": {}, "prediction": {}}
