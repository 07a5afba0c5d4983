"""Tests for `structsim_nb.evaluate`: the documented Strands Evals contract, plus the non-matches.

The contract is the Strands Evals page for `StructuredOutputSimilarity` and the stickler page
"Strands Evals"; each documented behaviour has a test here, named after what it pins.
Cases run through a real `Experiment` where the documented figure is a report figure.
"""

from __future__ import annotations

import datetime
import inspect
import json
import random
import subprocess
import sys
import textwrap
from typing import Any, ClassVar, Literal

import pandas as pd
import pytest
from helpers import Order, run_pairs
from pydantic import BaseModel
from stickler import ComparableField, StructuredModel
from stickler.comparators import ExactComparator, LevenshteinComparator
from strands_evals.evaluators import Equals
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData

from structsim_nb import StructuredOutputSimilarity
from structsim_nb import demo as demo_module
from structsim_nb.evaluate import KINDS, non_match_records
from structsim_nb.fcc import FCCInvoiceTuned, FCCLineItemTuned

# -- models ------------------------------------------------------------------------------


class LineItem(BaseModel):
    """The seed's line item, exactly."""

    sku: str | None = None
    quantity: int | None = None


class Invoice(BaseModel):
    """The seed's invoice, exactly."""

    invoice_id: str
    vendor_name: str
    total_amount: float | None = None
    line_items: list[LineItem] = []


class Sparse(BaseModel):
    """The seed's ten-field model; the ground truth fills two fields."""

    invoice_id: str | None = None
    vendor_name: str | None = None
    buyer_name: str | None = None
    po_number: str | None = None
    currency: str | None = None
    payment_terms: str | None = None
    notes: str | None = None
    reference: str | None = None
    department: str | None = None
    contact: str | None = None


class Address(BaseModel):
    city: str | None = None
    postcode: str | None = None


class Person(BaseModel):
    name: str
    address: Address | None = None


class Directory(BaseModel):
    name: str
    offices: dict[str, Address] = {}


class Tagged(BaseModel):
    invoice_id: str
    tags: list[str] = []


class NotAModel:
    pass


SEED_INVOICE = Invoice(
    invoice_id="INV-2024-0042",
    vendor_name="Acme Corporation",
    total_amount=124.93,
    line_items=[LineItem(sku="WM-100", quantity=2), LineItem(sku="UC-050", quantity=5)],
)
SPARSE_TRUTH = Sparse(invoice_id="INV-2024-0042", vendor_name="Acme Corporation")


def score(evaluator, expected, actual):
    """The single row the evaluator returns for one case."""
    rows = evaluator.evaluate(EvaluationData(input="", actual_output=actual, expected_output=expected, name="c"))
    assert len(rows) == 1
    return rows[0]


def counts(row) -> dict[str, int]:
    overall = row.metadata["comparison"]["confusion_matrix"]["overall"]
    return {name: overall[name] for name in ("tp", "tn", "fn", "fa", "fd") if overall[name]}


# -- construction ------------------------------------------------------------------------


class TestConstruction:
    def test_accepts_model_class(self):
        assert StructuredOutputSimilarity(Invoice).model_cls is Invoice

    def test_accepts_dotted_path(self):
        evaluator = StructuredOutputSimilarity("structsim_nb.demo.Invoice")
        assert evaluator.model_cls is demo_module.Invoice
        row = score(evaluator, demo_module.Invoice(invoice_id="A", vendor_name="B"), {"invoice_id": "A"})
        assert row.label == "Invoice"

    def test_bad_dotted_path_raises_type_error_naming_it(self):
        with pytest.raises(TypeError, match="structsim_nb.demo.NoSuchModel"):
            StructuredOutputSimilarity("structsim_nb.demo.NoSuchModel")

    @pytest.mark.parametrize("model_cls", [NotAModel, "collections.OrderedDict", int])
    def test_non_model_raises_type_error(self, model_cls):
        with pytest.raises(TypeError, match="model_cls must be a Pydantic model class"):
            StructuredOutputSimilarity(model_cls)

    def test_defaults(self):
        evaluator = StructuredOutputSimilarity(Invoice)
        assert evaluator.match_threshold == 0.7
        assert evaluator.weight_hints is False
        assert evaluator.name is None
        assert evaluator.non_matches is True
        assert evaluator.strict is False
        parameters = inspect.signature(StructuredOutputSimilarity).parameters
        assert parameters["match_threshold"].default == 0.7
        assert parameters["weight_hints"].default is False
        assert parameters["name"].default is None

    def test_weights_uniform_by_default_and_inferred_with_weight_hints(self):
        uniform = {entry["weight"] for entry in StructuredOutputSimilarity(Invoice).explain().values()}
        hinted = {
            entry["weight"] for entry in StructuredOutputSimilarity(Invoice, weight_hints=True).explain().values()
        }
        assert uniform == {1.0}
        assert len(hinted) > 1

    def test_name_is_the_report_evaluator_key(self, run_experiment):
        report = run_experiment(
            {"doc": (SEED_INVOICE, SEED_INVOICE)}, [StructuredOutputSimilarity(Invoice, name="invoice")]
        )
        assert report.cases[0]["evaluator"] == "invoice"
        assert report.metrics(evaluator="invoice").document_count == 1
        assert report.per_case(evaluator="invoice")[0]["evaluator"] == "invoice"

    @pytest.mark.parametrize("threshold", [-0.1, 1.5, "0.7"])
    def test_match_threshold_out_of_range_raises(self, threshold):
        with pytest.raises(ValueError, match="match_threshold must be a number between 0 and 1"):
            StructuredOutputSimilarity(Invoice, match_threshold=threshold)

    def test_to_dict_carries_dotted_path_and_non_matches(self):
        data = StructuredOutputSimilarity(
            "structsim_nb.demo.Invoice", match_threshold=0.8, non_matches=False, strict=True
        ).to_dict()
        assert data["model_cls"] == "structsim_nb.demo.Invoice"
        assert data["match_threshold"] == 0.8
        assert data["weight_hints"] is False
        assert data["non_matches"] is False
        assert data["strict"] is True and data["fast_matching"] is True
        rebuilt = StructuredOutputSimilarity(**{key: value for key, value in data.items() if key != "evaluator_type"})
        assert rebuilt.model_cls is demo_module.Invoice
        assert rebuilt.non_matches is False and rebuilt.strict is True
        assert rebuilt.fast_matching is True

    def test_repr_names_the_model_and_what_differs_from_the_defaults(self):
        assert repr(StructuredOutputSimilarity(Invoice)) == "<StructuredOutputSimilarity Invoice, match_threshold 0.7>"
        evaluator = StructuredOutputSimilarity(Invoice, match_threshold=0.85, name="inv", strict=True)
        assert repr(evaluator) == "<StructuredOutputSimilarity Invoice, match_threshold 0.85, name 'inv', strict=True>"

    def test_missing_engine_names_install(self):
        code = textwrap.dedent(
            """
            import sys
            sys.modules["stickler"] = None
            try:
                from pydantic import BaseModel
                from structsim_nb import StructuredOutputSimilarity

                class M(BaseModel):
                    name: str

                StructuredOutputSimilarity(M)
            except ImportError as exc:
                print("IMPORT ERROR:", exc)
            else:
                print("NO ERROR")
            """
        )
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
        assert "IMPORT ERROR:" in done.stdout, done.stdout + done.stderr
        assert 'pip install "strands-agents-evals[stickler]' in done.stdout


# -- one row per case -------------------------------------------------------------------


class TestRows:
    def test_one_row_per_case_with_weighted_score(self, run_experiment):
        wrong_vendor = SEED_INVOICE.model_copy(update={"vendor_name": "Zebra Holdings Ltd"})
        report = run_experiment(
            {"right": (SEED_INVOICE, SEED_INVOICE), "vendor": (SEED_INVOICE, wrong_vendor)},
            [StructuredOutputSimilarity(Invoice)],
        )
        assert [len(rows) for rows in report.detailed_results] == [1, 1]
        # Four fields, uniform weights: one field wrong costs a quarter.
        assert report.scores == pytest.approx([1.0, 0.75])
        assert report.overall_score == pytest.approx(0.875)

    def test_label_is_model_name(self):
        assert score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, SEED_INVOICE).label == "Invoice"

    def test_reason_all_fields_matched(self):
        assert score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, SEED_INVOICE).reason == "all fields matched"

    def test_reason_names_weakest_fields_worst_first(self):
        actual = SEED_INVOICE.model_copy(update={"vendor_name": "Zebra Holdings Ltd", "line_items": []})
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, actual)
        assert row.reason == "weakest fields: vendor_name=0.00; line_items=0.00"

    def test_metadata_carries_field_detail(self):
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, SEED_INVOICE)
        assert {"evaluated_by", "field_scores", "precision", "recall", "f1", "matched", "comparison"} <= set(
            row.metadata
        )
        assert row.metadata["evaluated_by"] == "StructuredOutputSimilarity"
        assert row.metadata["field_scores"] == {
            "invoice_id": 1.0,
            "vendor_name": 1.0,
            "total_amount": 1.0,
            "line_items": 1.0,
        }
        assert row.metadata["matched"] is True
        assert "confusion_matrix" in row.metadata["comparison"]
        assert "prediction_raw" not in row.metadata["comparison"]

    def test_not_applicable_without_ground_truth(self):
        row = score(StructuredOutputSimilarity(Invoice), None, SEED_INVOICE)
        assert row.label == NOT_APPLICABLE
        assert row.score == 0.0
        assert row.test_pass is True
        assert "no ground truth" in row.reason
        assert not row.metadata

    def test_explain_names_comparator_per_field(self):
        explained = StructuredOutputSimilarity(Invoice).explain()
        assert list(explained) == [
            "invoice_id",
            "vendor_name",
            "total_amount",
            "line_items",
            "line_items.sku",
            "line_items.quantity",
        ]
        for entry in explained.values():
            assert {"comparator", "threshold", "weight", "source", "why"} <= set(entry)
        assert explained["total_amount"]["comparator"].startswith("NumericComparator")
        assert "Hungarian" in explained["line_items"]["comparator"]

    def test_explain_frame_has_one_row_per_path(self):
        frame = StructuredOutputSimilarity(Invoice).explain_frame()
        assert list(frame.index) == list(StructuredOutputSimilarity(Invoice).explain())
        assert frame.loc["invoice_id", "comparator"] == "ExactComparator"
        assert " -> " in frame.loc["invoice_id", "why"]


class HandItem(StructuredModel):
    """Elements match at 0.5: one of two exact fields right is a matched pair."""

    match_threshold: ClassVar[float] = 0.5
    sku: str | None = ComparableField(default=None, comparator=ExactComparator(), threshold=1.0)
    name: str | None = ComparableField(default=None, comparator=ExactComparator(), threshold=1.0)


class HandAddress(StructuredModel):
    city: str | None = ComparableField(default=None, comparator=ExactComparator(), threshold=1.0)
    street: str | None = ComparableField(default=None, comparator=ExactComparator(), threshold=1.0)


class HandOrder(StructuredModel):
    """A hand-configured model naming comparators stickler does not use on fields holding models."""

    match_threshold: ClassVar[float] = 0.7
    items: list[HandItem] = ComparableField(default=[], comparator=ExactComparator(), threshold=0.99)
    address: HandAddress | None = ComparableField(default=None, comparator=LevenshteinComparator(), threshold=0.4)


class TestExplainSaysWhatApplies:
    """stickler's own explain() names the comparator configured on a field holding models; it never runs."""

    def test_a_list_of_models_is_matched_at_the_element_threshold_and_explain_says_so(self):
        evaluator = StructuredOutputSimilarity(HandOrder)
        entry = evaluator.explain()["items"]
        assert (entry["comparator"], entry["threshold"], entry["clip_under_threshold"]) == (
            "Hungarian (per-element StructuredModel)",
            0.5,
            False,
        )
        assert entry["why"][-1] == (
            "list of HandItem: elements paired by Hungarian assignment on each pair's score, a pair matched at "
            "HandItem.match_threshold 0.5; the list's score is never clipped; the configured comparator "
            "ExactComparator and threshold 0.99 are not used by stickler"
        )
        assert entry["matching"] == "vectorised"  # the matching column stays
        # What the engine does: a pair at 0.5 is a match (tp), its score 0.5 is kept, not clipped to 0.0.
        row = score(evaluator, HandOrder(items=[HandItem(sku="A", name="x")]), HandOrder(items=[HandItem(sku="A")]))
        assert row.metadata["field_scores"]["items"] == 0.5
        items = row.metadata["comparison"]["confusion_matrix"]["fields"]["items"]["overall"]
        assert (items["tp"], items["fd"]) == (1, 0)

    def test_a_nested_model_is_compared_field_by_field_at_the_field_threshold(self):
        evaluator = StructuredOutputSimilarity(HandOrder)
        entry = evaluator.explain()["address"]
        assert (entry["comparator"], entry["threshold"]) == ("StructuredModelComparator", 0.4)
        assert entry["why"][-1].endswith("the configured comparator LevenshteinComparator are not used by stickler")
        assert "matching" not in entry
        # Half the address right: its field-by-field score 0.5, at or over the field's 0.4, so kept (not clipped).
        truth, half = HandAddress(city="Paris", street="Rue A"), HandAddress(city="Paris", street="Rue B")
        row = score(evaluator, HandOrder(address=truth), HandOrder(address=half))
        assert row.metadata["field_scores"]["address"] == 0.5

    def test_the_fcc_tuned_line_items_say_the_element_threshold(self):
        frame = StructuredOutputSimilarity(FCCInvoiceTuned).explain_frame()
        line_items = frame.loc["LineItems"]
        assert line_items["comparator"] == "Hungarian (per-element StructuredModel)"
        assert line_items["threshold"] == FCCLineItemTuned.match_threshold and not line_items["clip_under_threshold"]
        assert "LevenshteinComparator and threshold 0.5 are not used" in line_items["why"]
        assert line_items["matching"] == "vectorised" and line_items["weight"] == 2.0

    def test_a_list_of_optional_models_is_such_a_list_too(self):
        # `list[Item | None]`, and a JSON Schema array of `anyOf` an object and null: the engine pairs the elements
        # by Hungarian assignment at the element's threshold, as for any list of models.
        class NullableOrder(StructuredModel):
            items: list[HandItem | None] = ComparableField(default=[], comparator=ExactComparator(), threshold=0.99)

        from_schema = StructuredModel.from_json_schema(
            {
                "type": "object",
                "x-aws-stickler-model-name": "Rows",
                "properties": {
                    "rows": {
                        "type": "array",
                        "items": {
                            "anyOf": [{"type": "object", "properties": {"sku": {"type": "string"}}}, {"type": "null"}]
                        },
                    }
                },
            }
        )
        for model, path, threshold in ((NullableOrder, "items", 0.5), (from_schema, "rows", 0.7)):
            entry = StructuredOutputSimilarity(model).explain()[path]
            assert (entry["comparator"], entry["threshold"], entry["clip_under_threshold"]) == (
                "Hungarian (per-element StructuredModel)",
                threshold,
                False,
            )
            assert entry["matching"] == "vectorised, or the engine's path for a list holding a null"
        evaluator = StructuredOutputSimilarity(NullableOrder)
        for extra in ([], [None]):  # a pair at the element threshold 0.5 is kept, not clipped, either path
            truth, output = (
                NullableOrder(items=[HandItem(sku="A", name="x"), *extra]),
                NullableOrder(items=[HandItem(sku="A"), *extra]),
            )
            assert score(evaluator, truth, output).metadata["field_scores"]["items"] == (0.5 if not extra else 0.75)

    def test_inferred_models_keep_what_stickler_says_but_lists_are_not_clipped(self):
        explained = StructuredOutputSimilarity(Invoice, match_threshold=0.8).explain()
        entry = explained["line_items"]
        assert (entry["comparator"], entry["threshold"], entry["clip_under_threshold"]) == (
            "Hungarian (per-element StructuredModel)",
            0.8,
            False,
        )
        assert entry["why"] == ["type:List[BaseModel] -> Hungarian object matching"]  # nothing to correct


class TestUnreadable:
    """A side that cannot be read as the model at all scores 0.0 and the reason says why; nothing raises."""

    @pytest.mark.parametrize(
        ("actual", "why", "strict"),
        [
            ('{"invoice_id": "INV-1",, }', "JSON", False),
            ('{"receipt_id": ', "JSON", False),
            (Person(name="Ada"), "none of which is a field of Invoice", False),
            ({"vendor_name": "Acme Corporation"}, "actual_output did not validate: invoice_id: Field required", True),
        ],
        ids=["malformed-json", "cut-before-any-value", "other-schema", "missing-required-strict"],
    )
    def test_unreadable_actual_scores_zero_naming_why(self, actual, why, strict):
        row = score(StructuredOutputSimilarity(Invoice, strict=strict), SEED_INVOICE, actual)
        assert row.score == 0.0
        assert row.test_pass is False
        assert row.label == "Invoice"
        assert row.metadata["error"] == "unreadable"
        assert "non_matches" not in row.metadata
        assert row.reason.startswith("could not compare as Invoice: actual_output")
        assert why in row.reason

    def test_unreadable_expected_names_the_side(self):
        row = score(StructuredOutputSimilarity(Invoice, strict=True), {"vendor_name": "Acme"}, SEED_INVOICE)
        assert row.score == 0.0
        assert "expected_output did not validate" in row.reason

    def test_valid_json_string_is_read(self):
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, SEED_INVOICE.model_dump_json())
        assert row.score == 1.0


# -- lenient reading and repaired answers -----------------------------------------------


class Line(BaseModel):
    description: str | None = None
    start: datetime.date | None = None
    days: str | None = None
    rate: float | None = None


class Schedule(BaseModel):
    """A model in the FCC shape with plain Pydantic types: dates as `date`, amounts as `float`."""

    advertiser: str | None = None
    total: float | None = None
    lines: list[Line] = []


TRUTH = {
    "advertiser": "Friends of Dana",
    "total": 7150.0,
    "lines": [
        {"description": "Morning News", "start": "2016-10-05", "days": "M-F", "rate": 350.0},
        {"description": "Late News", "start": "2016-10-10", "days": "M-Su", "rate": 600.0},
    ],
}


def with_line(index: int, **values) -> dict:
    lines = [dict(line) for line in TRUTH["lines"]]
    lines[index].update(values)
    return {**TRUTH, "lines": lines}


class TestLenientReading:
    """One odd value costs its own field, never the document; every such value is noted."""

    @pytest.mark.parametrize(
        ("odd", "field_matches"),
        [
            ({"start": "OCT 05 16"}, True),  # the date comparator reads it: the same day
            ({"start": "10.05.16"}, True),
            ({"start": "10/05/16 - 10/11/16"}, False),  # a range against one day: partial credit
            ({"days": ["M", "T", "W", "Th", "F"]}, False),  # compared as its JSON text
            ({"rate": "N/A"}, False),
        ],
        ids=["month-name", "dotted", "range", "list-valued-days", "amount-not-a-number"],
    )
    def test_one_odd_label_value_does_not_zero_the_document(self, odd, field_matches):
        expected = with_line(0, **odd)
        row = score(StructuredOutputSimilarity(Schedule), expected, TRUTH)
        assert row.metadata.get("error") is None and row.score > 0.9
        (note,) = row.metadata["reading"]
        path = f"lines[0].{next(iter(odd))}"
        assert (note["side"], note["path"], note["kind"]) == ("expected_output", path, "unparsed")
        assert note["raw"] == next(iter(odd.values()))
        assert "read leniently: 1 value did not validate as Schedule" in row.reason
        at_path = [record for record in row.metadata["non_matches"] if record["path"] == path]
        assert (not at_path) is field_matches
        if at_path:
            assert at_path[0]["reading"].startswith(f"expected_output {path} ")
        strict = score(StructuredOutputSimilarity(Schedule, strict=True), expected, TRUTH)
        assert (strict.score, strict.metadata) == (0.0, {"error": "unreadable"})

    def test_the_date_comparator_reads_the_kept_text(self):
        row = score(StructuredOutputSimilarity(Schedule), with_line(0, start="10/05/16 - 10/11/16"), TRUTH)
        (record,) = row.metadata["non_matches"]
        assert (record["expected"], record["predicted"]) == ("10/05/16 - 10/11/16", "2016-10-05")
        assert record["similarity"] == 0.5  # stickler's graded range: the day lies inside the range

    def test_a_null_list_is_empty(self):
        row = score(StructuredOutputSimilarity(Schedule), {"advertiser": "A", "lines": None}, {"advertiser": "A"})
        assert row.score == 1.0 and row.test_pass
        assert [note["kind"] for note in row.metadata["reading"]] == ["null"]

    def test_odd_values_on_the_actual_side_are_noted_too(self):
        actual = {**with_line(1, rate="six hundred"), "total": None}
        row = score(StructuredOutputSimilarity(Schedule), TRUTH, actual)
        (note,) = row.metadata["reading"]
        assert (note["side"], note["path"], note["text"]) == ("actual_output", "lines[1].rate", "six hundred")
        paths = {record["path"]: record for record in row.metadata["non_matches"]}
        assert paths["lines[1].rate"]["predicted"] == "six hundred" and "reading" in paths["lines[1].rate"]
        assert "reading" not in paths["total"]

    def test_non_matches_off_still_notes_the_reading(self):
        row = score(StructuredOutputSimilarity(Schedule, non_matches=False), with_line(0, rate="N/A"), TRUTH)
        assert "non_matches" not in row.metadata and row.metadata["reading"][0]["path"] == "lines[0].rate"

    def test_a_whole_side_of_odd_values_is_still_scored(self):
        expected = {"advertiser": 12, "total": "TBD", "lines": "see the attached order"}
        row = score(StructuredOutputSimilarity(Schedule), expected, TRUTH)
        assert "error" not in row.metadata
        assert {note["kind"] for note in row.metadata["reading"]} == {"unparsed", "dropped"}

    def test_an_odd_value_in_a_list_inside_a_list_matched_among_several_is_scored_on_both_paths(self):
        # The side is validated whole as the engine's model with extra="ignore", which left its nested models with
        # no extra-fields dict; the engine's false-alarm count raised TypeError when the outer list had a choice.
        class Parcel(BaseModel):
            color: Literal["red", "blue"]
            label: str | None = None

        class Shipment(BaseModel):
            parcels: list[Parcel] = []

        class Shipments(BaseModel):
            shipments: list[Shipment] = []

        expected = {"shipments": [{"parcels": [{"color": "red", "label": "a"}]}]}
        actual = {"shipments": [{"parcels": [{"color": "green", "label": "b"}]}, {"parcels": [{"color": "red"}]}]}
        rows = [
            score(StructuredOutputSimilarity(Shipments, fast_matching=fast), expected, actual) for fast in (True, False)
        ]
        assert rows[0].score == rows[1].score and 0.0 < rows[0].score < 1.0
        assert rows[0].metadata == rows[1].metadata and "error" not in rows[0].metadata
        (note,) = rows[0].metadata["reading"]
        assert (note["path"], note["kind"]) == ("shipments[0].parcels[0].color", "unparsed")

    def test_a_required_field_missing_in_a_list_inside_a_list_is_scored_on_both_paths(self):
        # A side that does not validate is rebuilt as the engine's model field by field; its nested list
        # elements came back with no extra-fields dict and the engine's false-alarm count raised TypeError.
        class Parcel(BaseModel):
            level: int | None = None
            ship_date: datetime.date

        class Shipment(BaseModel):
            parcels: list[Parcel] = []

        class Shipments(BaseModel):
            shipments: list[Shipment] = []

        parcels = [{"level": "x", "ship_date": "2024-03-01"}, {"ship_date": "2024-03-02"}]
        expected = {"shipments": [{"parcels": parcels}]}
        actual = {"shipments": [{"parcels": [{"level": 1}, {"ship_date": "2024-03-02"}]}]}
        rows = [
            score(StructuredOutputSimilarity(Shipments, fast_matching=fast), expected, actual) for fast in (True, False)
        ]
        assert rows[0].score == rows[1].score and 0.0 < rows[0].score < 1.0
        assert rows[0].metadata == rows[1].metadata and "error" not in rows[0].metadata
        assert {(note["path"], note["kind"]) for note in rows[0].metadata["reading"]} == {
            ("shipments[0].parcels[0].level", "unparsed"),
            ("shipments[0].parcels[0].ship_date", "missing"),
        }

    def test_report_views_show_the_reading(self, run_experiment):
        pairs = {
            "clean": (TRUTH, TRUTH),
            "odd": (with_line(0, start="10/05/16 - 10/11/16", rate="N/A"), TRUTH),
            "odd-too": (with_line(1, days=["Sa", "Su"]), TRUTH),
        }
        report = run_experiment(pairs, [StructuredOutputSimilarity(Schedule)])
        cases = report.cases_frame().set_index("case")
        assert pd.isna(cases.loc["clean", "reading"])
        assert "lines[0].start" in cases.loc["odd", "reading"] and "lines[0].rate" in cases.loc["odd", "reading"]
        summary = report.summary()
        assert (summary["lenient_cases"], summary["lenient_values"], summary["unreadable"]) == (2, 3, 0)
        assert summary["notes"][0].startswith("2 cases had 3 values that did not validate as the model")
        misses = report.non_matches_frame()
        noted = misses[misses["reading"].notna()]
        assert set(noted["case"]) == {"odd", "odd-too"}
        assert all(path in text for path, text in zip(noted["path"], noted["reading"], strict=True))


class TestRepairedAnswers:
    def test_a_truncated_answer_is_repaired_and_the_reason_says_so(self):
        text = json.dumps(TRUTH)
        cut = text[: text.index('"rate": 600.0')]
        row = score(StructuredOutputSimilarity(Schedule), TRUTH, cut)
        assert row.score > 0.9 and "error" not in row.metadata
        assert row.metadata["read_as"] == {"actual_output": "repaired"}
        assert row.metadata["repairs"]["actual_output"][-1] == "closed 1 array and 2 objects"
        assert "actual_output was cut off (truncated JSON) and repaired: cut between items" in row.reason
        complete = score(StructuredOutputSimilarity(Schedule), TRUTH, text)
        assert "repairs" not in complete.metadata and "cut off" not in complete.reason

    def test_a_repaired_answer_that_still_fails_says_it_was_repaired(self):
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, '{"name": "Ada", "address": {"city": "Par')
        assert row.metadata["error"] == "unreadable"
        assert "none of which is a field of Invoice" in row.reason and "was cut off" in row.reason


# -- the sparse tables -------------------------------------------------------------------

# Seed 000, "Six documents on the ten-field model": (expected, actual), score, test_pass,
# (precision, recall, f1), counts.
SPARSE_TABLE = {
    "every value right": (SPARSE_TRUTH, SPARSE_TRUTH, 1.0, True, (1.0, 1.0, 1.0), {"tp": 2, "tn": 8}),
    "nothing returned": (SPARSE_TRUTH, Sparse(), 0.8, False, (0.0, 0.0, 0.0), {"tn": 8, "fn": 2}),
    "every value wrong": (
        SPARSE_TRUTH,
        Sparse(invoice_id="XQ-7781-ZZZZ", vendor_name="Zebra Holdings Ltd"),
        0.8,
        False,
        (0.0, 0.0, 0.0),
        {"tn": 8, "fd": 2},
    ),
    "values invented, ground truth blank": (
        Sparse(),
        Sparse(invoice_id="INV-2024-0042", vendor_name="Acme Corporation"),
        0.8,
        False,
        (0.0, 0.0, 0.0),
        {"tn": 8, "fa": 2},
    ),
    "genuinely blank on both sides": (Sparse(), Sparse(), 1.0, True, (0.0, 0.0, 0.0), {"tn": 10}),
    "every value found, plus two invented": (
        SPARSE_TRUTH,
        SPARSE_TRUTH.model_copy(update={"buyer_name": "Globex", "po_number": "PO-99"}),
        0.8,
        True,
        (0.5, 1.0, 0.667),
        {"tp": 2, "tn": 6, "fa": 2},
    ),
}


@pytest.fixture(scope="module")
def sparse_report():
    """The six sparse documents, run once through a real Experiment."""
    pairs = {name: (spec[0], spec[1]) for name, spec in SPARSE_TABLE.items()}
    return run_pairs(pairs, [StructuredOutputSimilarity(Sparse)])


class TestSparseTable:
    @pytest.mark.parametrize("name", list(SPARSE_TABLE))
    def test_sparse_row(self, sparse_report, name):
        _, _, expected_score, expected_pass, (precision, recall, f1), expected_counts = SPARSE_TABLE[name]
        index = list(SPARSE_TABLE).index(name)
        (row,) = sparse_report.detailed_results[index]
        assert sparse_report.cases[index]["name"] == name
        assert row.score == pytest.approx(expected_score)
        assert row.test_pass is expected_pass
        assert row.metadata["precision"] == pytest.approx(precision, abs=5e-4)
        assert row.metadata["recall"] == pytest.approx(recall, abs=5e-4)
        assert row.metadata["f1"] == pytest.approx(f1, abs=5e-4)
        assert counts(row) == expected_counts

    def test_nothing_returned_clears_score_but_fails_on_recall(self, sparse_report):
        (row,) = sparse_report.detailed_results[list(SPARSE_TABLE).index("nothing returned")]
        assert row.metadata["matched"] is True  # score 0.80 clears 0.7 on its own
        assert row.test_pass is False

    def test_raising_threshold_does_not_separate_blank_from_right(self):
        """The score needed to pass tends to 1.0; recall, not the threshold, makes the difference."""
        strict = StructuredOutputSimilarity(Sparse, match_threshold=0.8)
        assert score(strict, SPARSE_TRUTH, Sparse()).test_pass is False
        assert score(strict, SPARSE_TRUTH, SPARSE_TRUTH).test_pass is True


# Seed 001, "Measured, on a 10-field schema with 2 populated": score, recall, test_pass.
SEED_001_TABLE = {
    "found nothing": (Sparse(), 0.800, 0.000, False),
    "both correct": (SPARSE_TRUTH, 1.000, 1.000, True),
    "vendor wrong": (SPARSE_TRUTH.model_copy(update={"vendor_name": "Zebra Holdings Ltd"}), 0.900, 1.000, True),
}


@pytest.fixture(scope="module")
def seed_001_report():
    pairs = {name: (SPARSE_TRUTH, spec[0]) for name, spec in SEED_001_TABLE.items()}
    return run_pairs(pairs, [StructuredOutputSimilarity(Sparse)])


class TestSeed001Table:
    @pytest.mark.parametrize("name", list(SEED_001_TABLE))
    def test_row(self, seed_001_report, name):
        _, expected_score, expected_recall, expected_pass = SEED_001_TABLE[name]
        entry = next(row for row in seed_001_report.per_case() if row["case"] == name)
        assert round(entry["overall_score"], 3) == expected_score
        assert round(entry["recall"], 3) == expected_recall
        assert entry["test_pass"] is expected_pass

    def test_vendor_wrong_precision_and_f1(self, seed_001_report):
        entry = next(row for row in seed_001_report.per_case() if row["case"] == "vendor wrong")
        assert entry["precision"] == pytest.approx(0.5)
        assert entry["f1"] == pytest.approx(0.667, abs=5e-4)


# -- list ordering -----------------------------------------------------------------------


class TestListOrdering:
    def test_reordered_identical_list_scores_one_where_equals_scores_zero(self, run_experiment):
        reordered = SEED_INVOICE.model_copy(update={"line_items": list(reversed(SEED_INVOICE.line_items))})
        report = run_experiment(
            {"reordered": (SEED_INVOICE, reordered)}, [Equals(), StructuredOutputSimilarity(Invoice)]
        )
        by_evaluator = {
            case["evaluator"]: rows[0] for case, rows in zip(report.cases, report.detailed_results, strict=True)
        }
        assert by_evaluator["Equals"].score == 0.0
        assert by_evaluator["StructuredOutputSimilarity"].score == 1.0
        assert by_evaluator["StructuredOutputSimilarity"].reason == "all fields matched"

    def test_one_quantity_wrong_list_reordered(self, run_experiment):
        actual = SEED_INVOICE.model_copy(
            update={"line_items": [LineItem(sku="UC-050", quantity=5), LineItem(sku="WM-100", quantity=3)]}
        )
        report = run_experiment({"quantity": (SEED_INVOICE, actual)}, [Equals(), StructuredOutputSimilarity(Invoice)])
        by_evaluator = {
            case["evaluator"]: rows[0] for case, rows in zip(report.cases, report.detailed_results, strict=True)
        }
        assert by_evaluator["Equals"].score == 0.0
        row = by_evaluator["StructuredOutputSimilarity"]
        assert row.score == pytest.approx(0.9375)
        assert row.reason == "weakest fields: line_items=0.75"
        assert row.metadata["field_scores"] == pytest.approx(
            {"invoice_id": 1.0, "vendor_name": 1.0, "total_amount": 1.0, "line_items": 0.75}
        )
        (entry,) = report.per_case(evaluator="StructuredOutputSimilarity")
        assert entry["field_scores"] == pytest.approx(row.metadata["field_scores"])


# -- nested rows -------------------------------------------------------------------------


class TestNestedRows:
    def test_list_children_count_only_matched_element_pairs(self, run_experiment):
        badly_wrong = SEED_INVOICE.model_copy(
            update={"line_items": [LineItem(sku="WM-100", quantity=2), LineItem(sku="ZZ-999", quantity=99)]}
        )
        report = run_experiment({"doc": (SEED_INVOICE, badly_wrong)}, [StructuredOutputSimilarity(Invoice)])
        fields = report.metrics().field_metrics
        assert fields["line_items"]["fd"] == 1
        assert fields["line_items"]["tp"] == 1
        # The wrong element dropped out of its children, which read perfect.
        for child in ("line_items.sku", "line_items.quantity"):
            assert fields[child]["tp"] == 1
            assert fields[child]["fd"] == fields[child]["fn"] == fields[child]["fa"] == 0
            assert fields[child]["cm_recall"] == 1.0

    def test_list_children_count_per_element_not_per_document(self, run_experiment):
        report = run_experiment({"doc": (SEED_INVOICE, SEED_INVOICE)}, [StructuredOutputSimilarity(Invoice)])
        metrics = report.metrics()
        assert metrics.document_count == 1
        assert metrics.field_metrics["line_items.sku"]["tp"] == 2

    def test_list_children_count_when_pair_clears_threshold(self, run_experiment):
        """At match_threshold 0.5 the quantity-wrong pair (0.5) is looked inside, at 0.7 it is not."""
        actual = SEED_INVOICE.model_copy(
            update={"line_items": [LineItem(sku="WM-100", quantity=3), LineItem(sku="UC-050", quantity=5)]}
        )
        pairs = {"doc": (SEED_INVOICE, actual)}
        default = run_experiment(pairs, [StructuredOutputSimilarity(Invoice)]).metrics().field_metrics
        lenient = (
            run_experiment(pairs, [StructuredOutputSimilarity(Invoice, match_threshold=0.5)]).metrics().field_metrics
        )
        assert default["line_items.quantity"]["fd"] == 0
        assert default["line_items.quantity"]["tp"] == 1
        assert lenient["line_items.quantity"]["fd"] == 1
        assert lenient["line_items.quantity"]["tp"] == 1

    def test_nested_model_children_count_whenever_present_on_both_sides(self, run_experiment):
        paris = Address(city="Paris", postcode="75001")
        pairs = {
            "one": (Person(name="Ada", address=paris), Person(name="Ada", address=paris)),
            "two": (Person(name="Bob", address=paris), Person(name="Bob", address=paris)),
            "three": (Person(name="Cy", address=paris), Person(name="Cy")),
        }
        fields = run_experiment(pairs, [StructuredOutputSimilarity(Person)]).metrics().field_metrics
        assert fields["address"]["cm_recall"] == pytest.approx(0.667, abs=5e-4)
        assert fields["address.city"]["cm_recall"] == 1.0
        assert fields["address.city"]["tp"] == 2

    def test_nested_model_children_count_whatever_the_object_scored(self, run_experiment):
        truth = Person(name="Ada", address=Address(city="Paris", postcode="75001"))
        wrong = Person(name="Ada", address=Address(city="Oslo", postcode="0150"))
        fields = run_experiment({"doc": (truth, wrong)}, [StructuredOutputSimilarity(Person)]).metrics().field_metrics
        assert fields["address.city"]["fd"] == 1
        assert fields["address.postcode"]["fd"] == 1

    def test_dict_of_models_never_has_child_paths(self, run_experiment):
        office = Address(city="Paris", postcode="75001")
        truth = Directory(name="Acme", offices={"hq": office})
        report = run_experiment({"exact": (truth, truth)}, [StructuredOutputSimilarity(Directory)])
        paths = set(report.metrics().field_metrics)
        assert "offices" in paths
        assert not [path for path in paths if path.startswith("offices.")]

    def test_list_children_lack_mean_score_nested_model_leaves_have_one(self, run_experiment):
        invoices = run_experiment({"doc": (SEED_INVOICE, SEED_INVOICE)}, [StructuredOutputSimilarity(Invoice)])
        fields = invoices.metrics().field_metrics
        assert fields["total_amount"].get("mean_score") is not None
        assert fields["line_items.sku"].get("mean_score") is None
        person = Person(name="Ada", address=Address(city="Paris"))
        people = run_experiment({"doc": (person, person)}, [StructuredOutputSimilarity(Person)])
        assert people.metrics().field_metrics["address.city"].get("mean_score") is not None


# -- rollups -----------------------------------------------------------------------------


class TestRollups:
    def test_per_case_omits_unreadable_rows_scores_keep_them(self, run_experiment):
        report = run_experiment(
            {"good": (SEED_INVOICE, SEED_INVOICE), "broken": (SEED_INVOICE, "not json at all")},
            [StructuredOutputSimilarity(Invoice)],
        )
        assert report.scores == [1.0, 0.0]
        assert [entry["case"] for entry in report.per_case()] == ["good"]
        assert report.metrics().document_count == 1

    def test_metrics_is_a_model_not_a_mapping(self, run_experiment):
        report = run_experiment({"doc": (SEED_INVOICE, SEED_INVOICE)}, [StructuredOutputSimilarity(Invoice)])
        metrics = report.metrics()
        assert isinstance(metrics, BaseModel)
        with pytest.raises(TypeError):
            metrics["field_metrics"]
        entry = metrics.field_metrics["total_amount"]
        assert {"tp", "tn", "fn", "fa", "fd", "fp", "cm_precision", "cm_recall", "cm_f1", "cm_accuracy"} <= set(entry)
        assert {"line_items.sku", "line_items.quantity"} <= set(metrics.field_metrics)

    def test_per_case_keys(self, run_experiment):
        report = run_experiment({"doc": (SEED_INVOICE, SEED_INVOICE)}, [StructuredOutputSimilarity(Invoice)])
        (entry,) = report.per_case()
        assert set(entry) == {
            "case",
            "evaluator",
            "model",
            "overall_score",
            "test_pass",
            "matched",
            "precision",
            "recall",
            "f1",
            "field_scores",
        }
        assert entry["model"] == "Invoice"


# -- non-matches (our addition) ----------------------------------------------------------


def only(records, path):
    found = [record for record in records if record["path"] == path]
    assert len(found) == 1, records
    return found[0]


class TestNonMatches:
    def test_record_keys(self):
        row = score(StructuredOutputSimilarity(Sparse), SPARSE_TRUTH, Sparse())
        for record in row.metadata["non_matches"]:
            assert set(record) == {"path", "category", "kind", "expected", "predicted", "similarity", "reason"}

    def test_missed_value(self):
        row = score(StructuredOutputSimilarity(Sparse), SPARSE_TRUTH, Sparse(invoice_id="INV-2024-0042"))
        record = only(row.metadata["non_matches"], "vendor_name")
        assert record["category"] == "fn"
        assert record["kind"] == "missed"
        assert record["expected"] == "Acme Corporation"
        assert record["predicted"] is None
        assert record["similarity"] is None
        assert record["reason"]
        assert len(row.metadata["non_matches"]) == 1

    def test_invented_value(self):
        row = score(StructuredOutputSimilarity(Sparse), SPARSE_TRUTH, SPARSE_TRUTH.model_copy(update={"notes": "rush"}))
        (record,) = row.metadata["non_matches"]
        assert (record["path"], record["category"], record["kind"]) == ("notes", "fa", "invented")
        assert record["expected"] is None
        assert record["predicted"] == "rush"
        assert record["similarity"] is None

    def test_wrong_scalar(self):
        actual = SEED_INVOICE.model_copy(update={"total_amount": 240.0})
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, actual)
        (record,) = row.metadata["non_matches"]
        assert (record["path"], record["category"], record["kind"]) == ("total_amount", "fd", "wrong")
        assert (record["expected"], record["predicted"]) == (124.93, 240.0)
        assert isinstance(record["similarity"], float)
        assert record["similarity"] < 0.95
        assert "below threshold" in record["reason"]

    def test_nested_model_leaf(self):
        truth = Person(name="Ada", address=Address(city="Paris", postcode="75001"))
        actual = Person(name="Ada", address=Address(city="Lyon", postcode="75001"))
        row = score(StructuredOutputSimilarity(Person), truth, actual)
        (record,) = row.metadata["non_matches"]
        assert (record["path"], record["kind"], record["category"]) == ("address.city", "wrong", "fd")
        assert (record["expected"], record["predicted"]) == ("Paris", "Lyon")

    def test_list_element_below_threshold_is_one_wrong_record_with_both_objects(self):
        actual = SEED_INVOICE.model_copy(
            update={"line_items": [LineItem(sku="UC-050", quantity=5), LineItem(sku="WM-100", quantity=3)]}
        )
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, actual)
        (record,) = row.metadata["non_matches"]
        # Indexed as in the ground truth, where WM-100 is element 0.
        assert record["path"] == "line_items[0]"
        assert (record["category"], record["kind"]) == ("fd", "wrong")
        assert record["expected"] == {"sku": "WM-100", "quantity": 2}
        assert record["predicted"] == {"sku": "WM-100", "quantity": 3}
        assert record["similarity"] == pytest.approx(0.5)

    def test_invented_list_element(self):
        actual = SEED_INVOICE.model_copy(update={"line_items": [*SEED_INVOICE.line_items, LineItem(sku="KB-07")]})
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, actual)
        (record,) = row.metadata["non_matches"]
        assert record["path"] == "line_items[2]"
        assert (record["category"], record["kind"]) == ("fa", "invented")
        assert record["expected"] is None
        assert record["predicted"] == {"sku": "KB-07", "quantity": None}

    def test_perfect_case_has_empty_list(self):
        assert score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, SEED_INVOICE).metadata["non_matches"] == []

    def test_unreadable_and_not_applicable_rows_carry_none(self):
        evaluator = StructuredOutputSimilarity(Invoice)
        unreadable = score(evaluator, SEED_INVOICE, "no object here").metadata
        assert unreadable == {"error": "unreadable", "read_as": {"actual_output": "none"}}
        assert not score(evaluator, None, SEED_INVOICE).metadata

    def test_records_moved_off_comparison(self):
        row = score(StructuredOutputSimilarity(Sparse), SPARSE_TRUTH, Sparse())
        assert "non_matches" not in row.metadata["comparison"]

    def test_kinds_table(self):
        assert KINDS == {
            "false_negative": ("fn", "missed"),
            "false_alarm": ("fa", "invented"),
            "false_discovery": ("fd", "wrong"),
        }

    def test_non_match_records_accepts_plain_strings(self):
        (record,) = non_match_records(
            [{"field_path": "a", "non_match_type": "false_alarm", "prediction_value": 1, "details": {"reason": "r"}}]
        )
        assert record == {
            "path": "a",
            "category": "fa",
            "kind": "invented",
            "expected": None,
            "predicted": 1,
            "similarity": None,
            "reason": "r",
        }


def upstream_cases():
    """Pairs covering every row shape: perfect, partial, nested, unreadable, not applicable."""
    predictions = demo_module.reference_predictions()
    pairs = [
        (demo_module.Invoice, case.expected_output, predictions[case.name]) for case in demo_module.reference_cases()
    ]
    pairs += [
        (Sparse, SPARSE_TRUTH, Sparse()),
        (Sparse, Sparse(), Sparse(notes="x")),
        (Person, Person(name="Ada", address=Address(city="Paris")), Person(name="Ada", address=Address(city="Lyon"))),
        (Tagged, Tagged(invoice_id="A", tags=["red", "green", "blue"]), Tagged(invoice_id="A", tags=["gren", "blue"])),
        (Invoice, SEED_INVOICE, {"vendor_name": "Acme Corporation", "invoice_id": "X", "extra": 1}),
        (Invoice, SEED_INVOICE, SEED_INVOICE.model_dump_json()),
        (Invoice, SEED_INVOICE, Person(name="Ada")),
        (Invoice, None, SEED_INVOICE),
    ]
    return pairs


def strict_cases():
    """Pairs that need lenient reading: strict reading must give exactly the upstream rows."""
    return [
        (Invoice, SEED_INVOICE, {"vendor_name": "Acme Corporation"}),
        (Invoice, {**SEED_INVOICE.model_dump(), "total_amount": "N/A"}, SEED_INVOICE),
        (Invoice, SEED_INVOICE, {**SEED_INVOICE.model_dump(), "line_items": None}),
    ]


class TestUpstreamParity:
    @pytest.mark.parametrize(("model", "expected", "actual"), strict_cases())
    def test_strict_rows_equal_upstream_where_lenient_reading_would_differ(self, model, expected, actual):
        for non_matches in (False, True):
            ours = score(StructuredOutputSimilarity(model, non_matches=non_matches, strict=True), expected, actual)
            theirs = score(UpstreamSimilarity(model), expected, actual)
            assert (ours.score, ours.test_pass, ours.reason, ours.label, ours.metadata) == (
                theirs.score,
                theirs.test_pass,
                theirs.reason,
                theirs.label,
                theirs.metadata,
            )
            assert theirs.metadata == {"error": "unreadable"}
        lenient = score(StructuredOutputSimilarity(model), expected, actual)
        assert lenient.metadata["reading"] and lenient.score > 0.0

    @pytest.mark.parametrize(("model", "expected", "actual"), upstream_cases())
    def test_non_matches_false_rows_equal_upstream(self, model, expected, actual):
        ours = score(StructuredOutputSimilarity(model, non_matches=False), expected, actual)
        theirs = score(UpstreamSimilarity(model), expected, actual)
        assert (ours.score, ours.test_pass, ours.reason, ours.label) == (
            theirs.score,
            theirs.test_pass,
            theirs.reason,
            theirs.label,
        )
        assert ours.metadata == theirs.metadata
        assert "non_matches" not in (ours.metadata or {})

    @pytest.mark.parametrize(("model", "expected", "actual"), upstream_cases())
    def test_non_matches_true_adds_only_non_matches(self, model, expected, actual):
        ours = score(StructuredOutputSimilarity(model), expected, actual)
        theirs = score(UpstreamSimilarity(model), expected, actual)
        assert (ours.score, ours.test_pass, ours.reason, ours.label) == (
            theirs.score,
            theirs.test_pass,
            theirs.reason,
            theirs.label,
        )
        metadata = dict(ours.metadata or {})
        metadata.pop("non_matches", None)
        assert (metadata or None) == (theirs.metadata or None)


def numpy_values(value, path=""):
    """Every `(path, type)` under `value` whose type comes from numpy."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from numpy_values(item, f"{path}.{key}")
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            yield from numpy_values(item, f"{path}[{index}]")
    elif type(value).__module__ == "numpy":
        yield path, type(value)


class TestPlainJson:
    def test_metadata_is_plain_json_where_upstream_leaves_numpy(self):
        truth = Tagged(invoice_id="A", tags=["red", "green", "blue"])
        actual = Tagged(invoice_id="A", tags=["gren", "blue", "purple"])
        theirs = score(UpstreamSimilarity(Tagged), truth, actual)
        assert list(numpy_values(theirs.metadata))  # stickler's Hungarian scores are numpy.float64
        for non_matches in (True, False):
            ours = score(StructuredOutputSimilarity(Tagged, non_matches=non_matches), truth, actual)
            assert list(numpy_values(ours.metadata)) == []
            assert type(ours.metadata["field_scores"]["tags"]) is float
            assert json.loads(json.dumps(ours.metadata)) == ours.metadata
            ours.model_dump_json()

    def test_non_match_values_are_plain(self):
        import enum

        import numpy as np

        class Colour(enum.Enum):
            RED = "red"

        (record,) = non_match_records(
            [
                {
                    "field_path": "a",
                    "non_match_type": "false_discovery",
                    "ground_truth_value": {"n": np.int64(3), "flag": np.bool_(True), "pair": (1, 2)},
                    "prediction_value": Colour.RED,
                    "similarity_score": np.float64(0.25),
                }
            ]
        )
        assert record["expected"] == {"n": 3, "flag": True, "pair": [1, 2]}
        assert type(record["expected"]["n"]) is int
        assert type(record["expected"]["flag"]) is bool
        assert record["predicted"] == "red"
        assert type(record["similarity"]) is float
        json.dumps(record)


class TestMixedSchemas:
    def test_cross_schema_pairs_score_zero_and_rollups_split_by_name(self, run_experiment):
        person = Person(name="Ada", address=Address(city="Paris"))
        report = run_experiment(
            {"invoice": (SEED_INVOICE, SEED_INVOICE), "person": (person, person)},
            [StructuredOutputSimilarity(Invoice, name="invoice"), StructuredOutputSimilarity(Person, name="person")],
        )
        rows = {
            (case["evaluator"], case["name"]): rows[0]
            for case, rows in zip(report.cases, report.detailed_results, strict=True)
        }
        assert rows[("invoice", "invoice")].score == 1.0
        assert rows[("person", "person")].score == 1.0
        for cross in (("invoice", "person"), ("person", "invoice")):
            assert rows[cross].score == 0.0
            assert rows[cross].test_pass is False
            assert rows[cross].metadata["error"] == "unreadable"
        with pytest.raises(ValueError, match="evaluator"):
            report.metrics()
        assert report.metrics(evaluator="invoice").document_count == 1
        assert "address.city" in report.metrics(evaluator="person").field_metrics

    def test_value_of_another_schema_that_validates_is_scored_as_this_one(self):
        class Vendor(BaseModel):
            invoice_id: str
            vendor_name: str
            phone: str | None = None

        actual = Vendor(invoice_id="INV-2024-0042", vendor_name="Acme Corporation", phone="555")
        row = score(StructuredOutputSimilarity(Invoice), SEED_INVOICE, actual)
        assert row.metadata["evaluated_by"] == "StructuredOutputSimilarity"
        assert row.metadata["field_scores"]["invoice_id"] == 1.0
        assert row.metadata["field_scores"]["line_items"] == 0.0


# -- fast list matching -------------------------------------------------------------------


class Shipment(BaseModel):
    ref: str | None = None
    items: list[LineItem] = []


class Manifest(BaseModel):
    shipments: list[Shipment] = []
    tagged: list[Tagged] = []


class Hold(BaseModel):
    bay: str | None = None
    manifests: list[Manifest] = []  # a list of objects that hold lists of objects: not flat


class Depot(BaseModel):
    holds: list[Hold] = []


class Money(BaseModel):
    amount: float | None = None
    currency: str | None = None


class OrderLine(BaseModel):
    sku: str | None = None
    price: Money | None = None


class PurchaseOrder(BaseModel):
    items: list[OrderLine] = []


class TestFastMatching:
    """Vectorised list matching is on by default, says where it runs, and changes no row."""

    def test_on_by_default_and_named_per_list_in_explain(self):
        evaluator = StructuredOutputSimilarity(Invoice)
        assert evaluator.fast_matching is True
        explained = evaluator.explain()
        assert explained["line_items"]["matching"] == "vectorised"
        assert "matching" not in explained["invoice_id"]
        assert evaluator.explain_frame().loc["line_items", "matching"] == "vectorised"

    def test_lists_of_objects_at_any_depth_are_paired_and_say_so(self):
        explained = StructuredOutputSimilarity(Depot).explain()
        assert explained["holds"]["matching"] == "paired: field 'manifests' is a list"
        assert explained["holds.manifests"]["matching"] == "paired: field 'shipments' is a list"
        assert explained["holds.manifests.shipments"]["matching"] == "paired: field 'items' is a list"
        assert explained["holds.manifests.shipments.items"]["matching"] == "vectorised"

    def test_lists_that_cannot_vectorise_say_why(self):
        from stickler.comparators.phone import PhoneComparator

        class Contact(StructuredModel):
            phone: str | None = ComparableField(default=None, comparator=PhoneComparator(), threshold=0.9)

        class Office(StructuredModel):
            contacts: list[Contact] = ComparableField(default=[])

        class Branch(StructuredModel):
            name: str | None = ComparableField(default=None, comparator=ExactComparator(), threshold=1.0)
            offices: list[Office] = ComparableField(default=[])

        class Firm(StructuredModel):
            branches: list[Branch] = ComparableField(default=[])

        explained = StructuredOutputSimilarity(Firm).explain()
        why = "field 'offices' is a list of objects whose field 'contacts' is a list of objects whose field 'phone'"
        assert explained["branches"]["matching"] == f"engine: {why} uses PhoneComparator"
        why = "engine: field 'contacts' is a list of objects whose field 'phone' uses PhoneComparator"
        assert explained["branches.offices"]["matching"] == why
        assert explained["branches.offices.contacts"]["matching"] == "engine: field 'phone' uses PhoneComparator"

    def test_lists_of_objects_holding_objects_are_paired_and_say_so(self):
        explained = StructuredOutputSimilarity(PurchaseOrder).explain()
        assert explained["items"]["matching"] == "paired: field 'price' is a nested object"
        assert "matching" not in explained["items.price"]

    def test_lists_of_objects_holding_lists_of_values_are_paired_and_say_so(self):
        explained = StructuredOutputSimilarity(Manifest).explain()
        assert explained["tagged"]["matching"] == "paired: field 'tags' is a list"

    def test_lists_of_objects_holding_lists_of_objects_are_paired_and_say_so(self):
        explained = StructuredOutputSimilarity(Manifest).explain()
        assert explained["shipments"]["matching"] == "paired: field 'items' is a list"
        assert explained["shipments.items"]["matching"] == "vectorised"

    def test_a_model_overriding_the_engine_says_so(self):
        from stickler.comparators.exact import ExactComparator
        from stickler.structured_object_evaluator.models.comparable_field import ComparableField
        from stickler.structured_object_evaluator.models.structured_model import StructuredModel

        class Coded(StructuredModel):
            code: str | None = ComparableField(comparator=ExactComparator())

            def compare(self, other: Any) -> float:
                return 1.0 if self.code == other.code else 0.0

        class Codes(StructuredModel):
            items: list[Coded] = ComparableField(default=[])

        assert StructuredOutputSimilarity(Codes).explain()["items"]["matching"] == "engine: Coded.compare is overridden"

    def test_off_says_so(self):
        explained = StructuredOutputSimilarity(Invoice, fast_matching=False).explain()
        assert explained["line_items"]["matching"] == "engine: fast_matching=False"

    @pytest.mark.parametrize("non_matches", [True, False])
    def test_rows_are_identical_either_way(self, non_matches):
        fast = StructuredOutputSimilarity(demo_module.Invoice, non_matches=non_matches)
        slow = StructuredOutputSimilarity(demo_module.Invoice, non_matches=non_matches, fast_matching=False)
        for pair in demo_module.synthetic_invoice_pairs(40, line_items=(0, 15), seed=23):
            a, b = score(fast, pair["expected"], pair["actual"]), score(slow, pair["expected"], pair["actual"])
            assert (a.score, a.test_pass, a.reason, a.label) == (b.score, b.test_pass, b.reason, b.label)
            assert json.dumps(a.metadata, sort_keys=False, default=str) == json.dumps(
                b.metadata, sort_keys=False, default=str
            )

    def test_paired_rows_are_identical_either_way(self):
        # Order lines holding a nested price, reordered, some prices changed, missing or in another currency, and
        # one odd value (read leniently): the paired path gives the engine's rows.
        rng = random.Random(5)
        fast, slow = (
            StructuredOutputSimilarity(PurchaseOrder),
            StructuredOutputSimilarity(PurchaseOrder, fast_matching=False),
        )
        for size in (1, 2, 8, 25):
            lines = [
                {"sku": f"S{i % 7}", "price": {"amount": float(rng.randint(1, 5)), "currency": "USD"}}
                for i in range(size)
            ]
            predicted = json.loads(json.dumps(lines))
            rng.shuffle(predicted)
            for line in predicted[: size // 2]:
                line["price"] = rng.choice([None, {"amount": line["price"]["amount"] + 1}, {"currency": "usd"}])
            predicted[0]["sku"] = rng.choice(["S1", None, ["odd"]])
            a, b = (
                score(fast, {"items": lines}, {"items": predicted}),
                score(slow, {"items": lines}, {"items": predicted}),
            )
            assert (a.score, a.test_pass, a.reason) == (b.score, b.test_pass, b.reason)
            assert json.dumps(a.metadata, default=str) == json.dumps(b.metadata, default=str)

    def test_rows_of_lists_holding_lists_of_objects_are_identical_either_way(self):
        # Shipments holding line items, reordered, items dropped, changed or invented, and one odd value (read
        # leniently): the paired path gives the engine's rows.
        rng = random.Random(7)
        fast, slow = StructuredOutputSimilarity(Manifest), StructuredOutputSimilarity(Manifest, fast_matching=False)
        for size in (1, 2, 6, 15):
            shipments = [
                {
                    "ref": f"R{i % 5}",
                    "items": [
                        {"sku": f"S{k}", "quantity": rng.randint(1, 3), "unit_price": float(rng.randint(1, 9))}
                        for k in range(rng.randint(0, 3))
                    ],
                }
                for i in range(size)
            ]
            predicted = json.loads(json.dumps(shipments))
            rng.shuffle(predicted)
            for shipment in predicted[: size // 2 + 1]:
                items = shipment["items"]
                rng.shuffle(items)
                if items:
                    items[0] = rng.choice([{**items[0], "quantity": 9}, {"sku": "new"}, {**items[0], "sku": None}])
                if len(items) > 1 and rng.random() < 0.5:
                    items.pop()
            predicted[0]["ref"] = rng.choice(["R1", None, ["odd"]])
            a, b = (
                score(fast, {"shipments": shipments}, {"shipments": predicted}),
                score(slow, {"shipments": shipments}, {"shipments": predicted}),
            )
            assert (a.score, a.test_pass, a.reason) == (b.score, b.test_pass, b.reason)
            assert json.dumps(a.metadata, default=str) == json.dumps(b.metadata, default=str)

    def test_non_matches_match_the_engines_own_records(self):
        # The records stickler's collector writes when asked inside one compare_with call.
        from stickler.auto.facade import _dump

        evaluator = StructuredOutputSimilarity(demo_module.Invoice)
        spec = evaluator._spec
        for pair in demo_module.synthetic_invoice_pairs(30, line_items=(1, 12), seed=29):
            row = score(evaluator, pair["expected"], pair["actual"])
            gt = spec.eval_model.from_json(_dump(pair["expected"]))
            pred = spec.eval_model.from_json(_dump(pair["actual"]))
            raw = gt.compare_with(pred, include_confusion_matrix=True, document_non_matches=True)
            assert row.metadata["non_matches"] == json.loads(
                json.dumps(non_match_records(raw["non_matches"]), default=str)
            )


def test_rows_pickle_when_a_non_match_holds_one_of_sticklers_run_time_models():
    # An invented nested object comes back from stickler as an instance of a class it makes at run time (AddressEval),
    # which no other process can import: a worker could not send the row back, and the document became a crash row.
    import pickle

    from strands_evals.types import EvaluationData

    rows = StructuredOutputSimilarity(Order).evaluate(
        EvaluationData(
            input=None, expected_output={"order_id": "A"}, actual_output={"order_id": "A", "bill_to": {"street": "x"}}
        )
    )
    [record] = [r for row in rows for r in (row.metadata or {}).get("non_matches", []) if r["path"] == "bill_to"]
    assert record["kind"] == "invented" and record["predicted"] == {"street": "x", "city": None}
    assert pickle.loads(pickle.dumps(rows)) == rows
