"""Lenient reading, field by field: what each odd value becomes, and the note it leaves."""

from __future__ import annotations

import datetime
import json
from typing import Any

import differential
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from stickler.auto import eval_for
from stickler.structured_object_evaluator.models.hungarian_helper import HungarianHelper

from structsim_nb.engine.listmatch import MatchOnceSpec
from structsim_nb.lenient import KINDS, ReadingNote, compare, read_leniently, render_path


class Line(BaseModel):
    description: str | None = None
    start: datetime.date | None = None
    days: str | None = None
    rate: float | None = None


class Doc(BaseModel):
    name: str
    total: float | None = None
    lines: list[Line] = []
    tags: list[str] = []
    party: Line | None = Field(default=None, alias="Party")


class Nullable(BaseModel):
    lines: list[Line | None] = []
    tags: list[str | None] = []


GOOD = {"name": "A", "total": 10.0, "lines": [{"description": "News", "start": "2016-10-05", "rate": 5}]}


def notes_by_path(read) -> dict[str, ReadingNote]:
    return {note.path: note for note in read.notes}


class TestValidSides:
    def test_a_side_that_validates_is_the_validated_instance_with_no_notes(self) -> None:
        read = read_leniently(Doc, GOOD, "expected_output")
        assert read.instance == Doc.model_validate(GOOD)
        assert read.notes == [] and read.texts == {}

    def test_aliases_and_names_are_read_as_pydantic_reads_them(self) -> None:
        read = read_leniently(Doc, {"name": "A", "Party": {"start": "OCT 05 16"}}, "actual_output")
        assert read.instance.party is not None and read.instance.party.start is None
        assert read.texts == {("party", "start"): "OCT 05 16"}


class TestOddValues:
    @pytest.mark.parametrize("printed", ["OCT 05 16", "10.05.16", "10/05/16 - 10/11/16", "09/31/16"])
    def test_a_date_outside_the_layouts_keeps_its_text(self, printed: str) -> None:
        data = {**GOOD, "lines": [{"description": "News", "start": printed, "rate": 5}, {"start": "2016-10-12"}]}
        read = read_leniently(Doc, data, "expected_output")
        assert read.instance.lines[0].description == "News" and read.instance.lines[0].rate == 5.0
        assert read.instance.lines[1].start == datetime.date(2016, 10, 12)
        assert read.texts == {("lines", 0, "start"): printed}
        (note,) = read.notes
        assert (note.side, note.path, note.kind, note.raw, note.text) == (
            "expected_output",
            "lines[0].start",
            "unparsed",
            printed,
            printed,
        )
        assert "date" in note.message

    def test_a_null_list_is_the_default(self) -> None:
        read = read_leniently(Doc, {"name": "A", "lines": None}, "expected_output")
        assert read.instance.lines == []
        assert notes_by_path(read)["lines"].kind == "null"
        assert notes_by_path(read)["lines"].short() == "expected_output lines is null, read as the field's default"

    def test_a_list_where_text_belongs_is_compared_as_its_json_text(self) -> None:
        read = read_leniently(Doc, {"name": "A", "lines": [{"days": ["M", "T", "W"]}]}, "actual_output")
        assert read.texts == {("lines", 0, "days"): '["M", "T", "W"]'}
        assert notes_by_path(read)["lines[0].days"].raw == ["M", "T", "W"]

    def test_an_amount_that_is_not_a_number_keeps_its_text(self) -> None:
        read = read_leniently(Doc, {"name": "A", "total": "N/A"}, "expected_output")
        assert read.instance.total is None and read.texts == {("total",): "N/A"}

    def test_a_missing_required_field_is_read_as_missing(self) -> None:
        read = read_leniently(Doc, {"total": 3}, "actual_output")
        assert read.instance.name is None and read.instance.total == 3.0
        note = notes_by_path(read)["name"]
        assert (note.kind, note.raw, note.text) == ("missing", None, None)

    def test_a_null_required_field_is_read_as_missing(self) -> None:
        read = read_leniently(Doc, {"name": None}, "actual_output")
        note = notes_by_path(read)["name"]
        assert read.instance.name is None and note.kind == "missing" and "null in a field" in note.message

    def test_text_where_a_list_belongs_is_left_out(self) -> None:
        read = read_leniently(Doc, {"name": "A", "lines": "see attached schedule"}, "expected_output")
        assert read.instance.lines == []
        note = notes_by_path(read)["lines"]
        assert note.kind == "dropped" and note.raw == "see attached schedule" and "a list belongs here" in note.message

    def test_an_item_that_is_not_an_object_is_left_out_and_later_texts_follow_their_item(self) -> None:
        data = {"name": "A", "lines": ["garbage", {"start": "OCT 05 16"}, None, {"start": "bad"}]}
        read = read_leniently(Doc, data, "expected_output")
        assert len(read.instance.lines) == 2
        # Notes keep the index as given; texts move to where the item sits in the list compared.
        assert [note.path for note in read.notes] == ["lines[0]", "lines[1].start", "lines[2]", "lines[3].start"]
        assert read.texts == {("lines", 0, "start"): "OCT 05 16", ("lines", 1, "start"): "bad"}

    def test_a_bad_item_of_a_list_of_text_keeps_its_place(self) -> None:
        read = read_leniently(Doc, {"name": "A", "tags": ["a", {"b": 1}, "c"]}, "expected_output")
        assert read.instance.tags == ["a", None, "c"]
        assert read.texts == {("tags", 1): '{"b": 1}'}

    def test_a_null_item_where_the_list_takes_one_is_kept_without_a_note(self) -> None:
        # Another item's odd value sends the list to be read item by item; the null stays where validation keeps it.
        read = read_leniently(Nullable, {"lines": [{"rate": "N/A"}, None], "tags": ["a", None, 5]}, "actual_output")
        assert read.instance.lines == [Line(), None]
        assert read.instance.tags == ["a", None, None]
        assert [(note.path, note.kind) for note in read.notes] == [
            ("lines[0].rate", "unparsed"),
            ("tags[2]", "unparsed"),
        ]

    def test_a_null_item_where_the_list_takes_none_is_still_left_out(self) -> None:
        read = read_leniently(Doc, {"name": "A", "lines": [{"rate": "N/A"}, None]}, "actual_output")
        assert read.instance.lines == [Line()]
        assert [(note.path, note.kind) for note in read.notes] == [
            ("lines[0].rate", "unparsed"),
            ("lines[1]", "dropped"),
        ]

    def test_every_value_of_a_broken_document_is_noted(self) -> None:
        data = {"total": "N/A", "lines": [{"start": "OCT 05 16", "days": ["M"], "rate": "TBD"}], "tags": None}
        read = read_leniently(Doc, data, "expected_output")
        kinds = {note.path: note.kind for note in read.notes}
        assert kinds == {
            "name": "missing",
            "total": "unparsed",
            "lines[0].start": "unparsed",
            "lines[0].days": "unparsed",
            "lines[0].rate": "unparsed",
            "tags": "null",
        }
        assert set(KINDS) >= set(kinds.values())


class Checked(BaseModel):
    """An invoice with the model's own checks, as real schemas have them."""

    invoice_id: str
    subtotal: float | None = None
    total: float

    @field_validator("invoice_id")
    @classmethod
    def no_blank_id(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("blank id")
        return value.strip()

    @model_validator(mode="after")
    def total_covers_subtotal(self) -> Checked:
        if self.subtotal is not None and self.total < self.subtotal:
            raise ValueError("total below subtotal")
        return self


class Keyed(BaseModel):
    qty: int
    price: float

    @model_validator(mode="before")
    @classmethod
    def reads_its_keys(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data["qty"]  # noqa: B018 - a check that reads a key, as one written for whole documents does
        return data


class TestTheModelsOwnChecks:
    """A model validator runs on each field's assignment too, on an object still being built: it must neither
    crash the reading (it read fields not set yet: AttributeError, KeyError) nor blame a field that is fine."""

    def test_an_odd_value_beside_a_whole_object_check_is_read_as_any_other(self) -> None:
        read = read_leniently(Checked, {"invoice_id": " A-1 ", "subtotal": 10.0, "total": "12,00"}, "actual_output")
        assert [(n.path, n.kind) for n in read.notes] == [("total", "unparsed")]
        assert read.instance.invoice_id == "A-1"  # the field validator ran

    def test_a_failed_whole_object_check_is_noted_and_every_field_kept(self) -> None:
        read = read_leniently(Checked, {"invoice_id": "A-1", "subtotal": 20.0, "total": 12.0}, "actual_output")
        assert [(n.path, n.kind) for n in read.notes] == [("$", "object")]
        assert "total below subtotal" in read.notes[0].message and "model's own check" in read.notes[0].short()
        assert (read.instance.subtotal, read.instance.total) == (20.0, 12.0)

    def test_a_field_validator_still_decides_its_field(self) -> None:
        read = read_leniently(Checked, {"invoice_id": "  ", "total": 1.0}, "actual_output")
        assert [(n.path, n.kind) for n in read.notes] == [("invoice_id", "unparsed")]

    def test_a_check_that_reads_keys_does_not_break_list_items(self) -> None:
        class Order(BaseModel):
            items: list[Keyed]

        read = read_leniently(Order, {"items": [{"qty": "1 pc", "price": 2.0}]}, "actual_output")
        assert [(n.path, n.kind) for n in read.notes] == [("items[0].qty", "unparsed")]
        assert read.instance.items[0].price == 2.0

    def test_the_evaluator_scores_such_a_side(self) -> None:
        from strands_evals.types.evaluation import EvaluationData

        from structsim_nb import StructuredOutputSimilarity

        truth = {"invoice_id": "A-1", "subtotal": 10.0, "total": 12.0}
        data = EvaluationData(input="", expected_output=truth, actual_output={**truth, "total": "N/A"})
        (row,) = StructuredOutputSimilarity(Checked).evaluate(data)
        assert row.score == pytest.approx(2 / 3) and "did not parse" in row.reason


def test_render_path() -> None:
    assert render_path(("lines", 0, "start")) == "lines[0].start"
    assert render_path(()) == "$"
    assert render_path((0, "a")) == "[0].a"


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")  # as stickler's comparison models
    name: str
    rate: float | None = None


@pytest.mark.parametrize(
    "data", [{"name": "A", "rate": 1.0, "other": 2}, {"rate": "N/A"}], ids=["validates", "read-field-by-field"]
)
def test_a_model_that_allows_extra_fields_holds_none_of_them_in_a_dict(data) -> None:
    # Keys outside the model are left out; the engine counts the extra fields with len(), which None broke.
    instance = read_leniently(Open, data, "actual_output").instance
    assert instance.__pydantic_extra__ == {}


# -- comparing: a side read leniently is compared as the evaluator compares any pair -------------

#: Values that do not validate, by the kind of field they land in (each keeps its text, or its JSON text).
ODD = {
    "number": st.sampled_from(["N/A", "2 pcs", "$1,2O0.00", "1.5", "", "  ", ["M", "T"], {"x": 1}, "12,00"]),
    "date": st.sampled_from(
        ["10/05/16 - 10/11/16", "OCT 05 16", "09/31/16", "2024-03-01T10:00:00Z", "soon", "03/01/24"]
    ),
    "moment": st.sampled_from(["yesterday", "2024-03-01 25:00", "2024-03-01 10:00 - 11:00"]),
    "flag": st.sampled_from(["yes please", "maybe", "2"]),
    "text": st.sampled_from([["a", "b"], {"k": "v"}, 12345, 1.5]),
}
#: Where odd values go: (list field, element field, kind).
ODD_PLACES = [
    ("lines", "quantity", "number"),
    ("lines", "unit_price", "number"),
    ("lines", "ship_date", "date"),
    ("lines", "gift", "flag"),
    ("lines", "sku", "text"),
    ("lines", "description", "text"),
    ("tiny", "qty", "number"),
    ("tiny", "code", "text"),
    ("stamped", "seen_at", "moment"),
]


@st.composite
def odd_documents(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """`differential.documents()` as JSON, with odd values in list items, odd items, odd lists and an odd title."""
    gt, pred = (json.loads(json.dumps(side, default=str)) for side in draw(differential.documents()))
    for side in (gt, pred):
        for _ in range(draw(st.integers(0, 4))):
            name, key, kind = draw(st.sampled_from(ODD_PLACES))
            if side[name]:
                side[name][draw(st.integers(0, len(side[name]) - 1))][key] = draw(ODD[kind])
        fate = draw(st.sampled_from(["none", "item", "null list", "title"]))
        if fate == "item" and side["lines"]:  # an item that is not an object: left out, later texts follow theirs
            side["lines"].insert(draw(st.integers(0, len(side["lines"]))), "see attached")
        elif fate == "null list":
            side[draw(st.sampled_from(["tiny", "stamped"]))] = None
        elif fate == "title":
            side["title"] = draw(ODD["text"])
    return gt, pred


class TestCompare:
    """`compare` gives the engine's own result on leniently read sides, whichever path matches the lists."""

    @staticmethod
    def results(gt: dict[str, Any], pred: dict[str, Any], threshold: float | None) -> list[dict[str, Any]]:
        reads = {
            "expected_output": read_leniently(differential.Document, gt, "expected_output"),
            "actual_output": read_leniently(differential.Document, pred, "actual_output"),
        }
        stock = eval_for(differential.Document, match_threshold=threshold)  # stickler's compare_with
        specs = [stock] + [
            MatchOnceSpec(
                stock,
                match_threshold=stock._match_threshold,
                weight_hints=False,
                vectorised=v,
                document_non_matches=True,
            )
            for v in (True, False)
        ]
        sides = (reads["expected_output"].instance, reads["actual_output"].instance)
        return [compare(spec, *sides, reads, document_non_matches=True).raw for spec in specs]

    @settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(doc=odd_documents(), threshold=st.sampled_from([None, 0.5, 1.0]))
    def test_identical_to_the_engine_with_odd_values_in_the_lists(self, doc, threshold) -> None:
        stock, vectorised, engine_path = self.results(*doc, threshold)
        differential.assert_identical(stock, vectorised)
        differential.assert_identical(stock, engine_path)

    def test_a_long_table_with_one_odd_value_is_matched_once_and_vectorised(self, monkeypatch) -> None:
        # A kept text in a number field of a 40-item list: the engine's Hungarian helper never runs (it ran twice
        # per list before: once to score, once more to document the non-matches).
        gt = {"lines": [{"sku": f"S{i}", "color": "red", "email": f"{i}@x.org", "quantity": i} for i in range(40)]}
        pred = json.loads(json.dumps(gt))
        pred["lines"][7]["quantity"] = "N/A"
        pred["lines"].reverse()
        calls: list[int] = []
        original = HungarianHelper.get_complete_matching_info
        monkeypatch.setattr(
            HungarianHelper,
            "get_complete_matching_info",
            lambda self, a, b: calls.append(len(a)) or original(self, a, b),
        )
        stock, vectorised, engine_path = self.results(gt, pred, None)
        assert calls == [40, 40, 40]  # stock: twice; the engine's path: once; vectorised: never
        differential.assert_identical(stock, vectorised)
        differential.assert_identical(stock, engine_path)
        (record,) = vectorised["non_matches"]  # the pair still matches (3 fields of 4): one field's record
        assert (record["field_path"], record["ground_truth_value"], record["prediction_value"]) == (
            "lines[7].quantity",
            7,
            "N/A",
        )
