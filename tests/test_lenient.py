"""Lenient reading, field by field: what each odd value becomes, and the note it leaves."""

from __future__ import annotations

import datetime

import pytest
from pydantic import BaseModel, ConfigDict, Field

from structsim_nb.lenient import KINDS, ReadingNote, read_leniently, render_path


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
