"""The FCC invoice models: parsing amounts and dates, both variants, and their comparators."""

from __future__ import annotations

import datetime
import json

import pytest
from pydantic import ValidationError

from structsim_nb import StructuredOutputSimilarity
from structsim_nb.fcc.data.build_sample import IDS, ROWS
from structsim_nb.fcc.models import FCCInvoice, FCCInvoiceTuned, FCCLineItem, parse_amount, parse_date

IMPOSSIBLE_DAY, PRINTED_RANGE = IDS[3], IDS[6]


def _sample_labels() -> dict[str, dict]:
    """The sample's labels as the hub holds them: floats, printed dates, `LineItems` null on a summary."""
    return {row_id: json.loads(json.dumps(label)) for row_id, (_, _, label) in zip(IDS, ROWS, strict=True)}


class TestParseAmount:
    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ("$1,234.50", 1234.5),
            ("1234.5", 1234.5),
            ("(1,072.50)", -1072.5),
            ("-$75.00", -75.0),
            ("$-75.00", -75.0),
            ("75.00CR", -75.0),
            (" $ 9.99 ", 9.99),
            (12, 12.0),
            ("", None),
            (None, None),
        ],
    )
    def test_parses_printed_amounts(self, text: object, value: float | None) -> None:
        assert parse_amount(text) == value

    @pytest.mark.parametrize("text", ["N/A", "see attached", "$1.2.3", True])
    def test_refuses_what_is_not_an_amount(self, text: object) -> None:
        with pytest.raises(ValueError, match="an amount must"):
            parse_amount(text)


class TestParseDate:
    @pytest.mark.parametrize(
        "text",
        [
            "10/03/16",
            "10/03/2016",
            "2016-10-03",
            "Oct 3, 2016",
            "October 3, 2016",
            "OCT 03 16",
            "Oct 3 2016",
            "10.03.16",
        ],
    )
    def test_every_layout_gives_the_same_day(self, text: str) -> None:
        assert parse_date(text) == datetime.date(2016, 10, 3)

    def test_a_datetime_is_cut_to_its_day(self) -> None:
        assert parse_date(datetime.datetime(2016, 10, 3, 18, 30)) == datetime.date(2016, 10, 3)

    @pytest.mark.parametrize("text", ["09/31/16", "next Tuesday", "2016/13/01", "10/03/16 - 10/09/16"])
    def test_refuses_what_is_not_a_real_day(self, text: str) -> None:
        with pytest.raises(ValueError, match="a date must be a real day"):
            parse_date(text)


class TestPlainModels:
    def test_every_valid_sample_label_validates(self) -> None:
        labels = _sample_labels()
        odd = (IMPOSSIBLE_DAY, PRINTED_RANGE)
        valid = {key: FCCInvoice.model_validate(label) for key, label in labels.items() if key not in odd}
        assert len(valid) == 6
        assert all(isinstance(item.LineItemStartDate, datetime.date) for v in valid.values() for item in v.LineItems)

    def test_the_odd_sample_labels_do_not(self) -> None:
        with pytest.raises(ValidationError, match="LineItemEndDate"):
            FCCInvoice.model_validate(_sample_labels()[IMPOSSIBLE_DAY])
        with pytest.raises(ValidationError, match="11/05/16 - 11/06/16"):
            FCCInvoice.model_validate(_sample_labels()[PRINTED_RANGE])

    def test_null_line_items_are_no_lines(self) -> None:
        assert FCCInvoice.model_validate({"LineItems": None}).LineItems == []
        assert FCCInvoiceTuned.model_validate({"LineItems": None}).LineItems == []

    def test_every_field_is_optional(self) -> None:
        blank = FCCInvoice()
        assert blank.LineItems == [] and blank.GrossTotal is None
        assert FCCLineItem().LineItemRate is None

    def test_blank_text_is_missing(self) -> None:
        assert FCCInvoice(Agency="  ", PaymentTerms="").Agency is None

    def test_inferred_comparators_compare_dates_as_dates(self) -> None:
        table = StructuredOutputSimilarity(FCCInvoice).explain_frame()
        assert table.loc["LineItems.LineItemStartDate", "comparator"] == "DateComparator"
        assert table.loc["GrossTotal", "comparator"] == "NumericComparator"


class TestTunedModels:
    def test_every_valid_sample_label_validates_with_dates_as_printed(self) -> None:
        labels = _sample_labels()
        tuned = FCCInvoiceTuned.model_validate(labels[IDS[0]])
        assert tuned.LineItems[0].LineItemStartDate == "10/03/16"
        assert tuned.GrossTotal == 7150.0
        for label in labels.values():
            FCCInvoiceTuned.model_validate(label)  # dates stay text, so even the odd ones validate here

    def test_a_plain_label_converts(self) -> None:
        plain = FCCInvoice.model_validate(_sample_labels()[IDS[0]])
        tuned = FCCInvoiceTuned.model_validate(plain.model_dump())
        assert tuned.LineItems[0].LineItemStartDate == "2016-10-03"

    def test_dates_written_as_strings_are_compared_as_dates(self) -> None:
        table = StructuredOutputSimilarity(FCCInvoiceTuned).explain_frame()
        assert table.loc["LineItems.LineItemStartDate", "comparator"] == "DateComparator"
        assert set(table["source"]) == {"explicit"}

    def test_same_date_in_another_format_matches(self) -> None:
        label = _sample_labels()[IDS[0]]
        iso = json.loads(json.dumps(label))
        for item in iso["LineItems"]:
            for key in ("LineItemStartDate", "LineItemEndDate"):
                item[key] = parse_date(item[key]).isoformat()
        evaluator = StructuredOutputSimilarity(FCCInvoiceTuned)
        from strands_evals.types.evaluation import EvaluationData

        (row,) = evaluator.evaluate(
            EvaluationData(
                input="",
                actual_output=FCCInvoiceTuned.model_validate(iso),
                expected_output=FCCInvoiceTuned.model_validate(label),
            )
        )
        assert row.score == pytest.approx(1.0)
