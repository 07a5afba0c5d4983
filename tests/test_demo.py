"""Tests for `structsim_nb.demo`: six invoices broken the way their names say, and the synthetic corpus."""

from __future__ import annotations

import datetime

import pytest

from structsim_nb import StructuredOutputReport, score_dataset
from structsim_nb.demo import (
    DOCUMENT_ERROR_RATES,
    LINE_ITEM_ERROR_RATES,
    Invoice,
    LineItem,
    reference_cases,
    reference_predictions,
    run_reference,
    synthetic_invoice_pairs,
)

NAMES = ["perfect", "case-only", "number-off", "missed-field", "hallucinated-item", "wrong-throughout"]


@pytest.fixture(scope="module")
def side_by_side() -> StructuredOutputReport:
    return run_reference(with_equals=True)


@pytest.fixture(scope="module")
def report() -> StructuredOutputReport:
    return run_reference()


def truth() -> dict[str, Invoice]:
    return {case.name: case.expected_output for case in reference_cases()}


class TestCases:
    def test_six_cases_in_fixed_order(self):
        cases = reference_cases()
        assert [case.name for case in cases] == NAMES
        assert all(isinstance(case.expected_output, Invoice) for case in cases)
        assert cases[0].input == "invoice INV-1001"
        assert list(reference_predictions()) == NAMES

    def test_invoice_model_holds_a_date_and_line_items(self):
        invoice = truth()["perfect"]
        assert isinstance(invoice.invoice_date, datetime.date)
        assert all(isinstance(item, LineItem) for item in invoice.line_items)

    def test_each_prediction_is_broken_as_documented(self):
        expected, predicted = truth(), reference_predictions()
        assert predicted["perfect"] == expected["perfect"]
        assert predicted["case-only"] == expected["case-only"].model_copy(
            update={"vendor_name": "BLUE HARBOR SUPPLIES"}
        )
        assert predicted["number-off"].total_amount == 1505.00
        assert predicted["number-off"].model_copy(update={"total_amount": 1500.0}) == expected["number-off"]
        assert predicted["missed-field"].invoice_date is None
        assert (
            predicted["missed-field"].model_copy(update={"invoice_date": expected["missed-field"].invoice_date})
            == (expected["missed-field"])
        )
        assert predicted["hallucinated-item"].line_items[:1] == expected["hallucinated-item"].line_items
        assert len(predicted["hallucinated-item"].line_items) == 2
        wrong, right = predicted["wrong-throughout"], expected["wrong-throughout"]
        for field in ("invoice_id", "vendor_name", "invoice_date", "total_amount", "line_items"):
            assert getattr(wrong, field) != getattr(right, field)

    def test_predictions_are_fresh_copies(self):
        first = reference_predictions()
        first["perfect"].line_items.append(LineItem(sku="X"))
        assert len(reference_predictions()["perfect"].line_items) == 2
        assert len(truth()["perfect"].line_items) == 2


class TestRunReference:
    def test_returns_our_report_one_scored_row_per_case(self, report):
        assert type(report) is StructuredOutputReport
        frame = report.cases_frame()
        assert list(frame["case"]) == NAMES
        assert set(frame["status"]) == {"scored"}
        assert set(frame["evaluator"]) == {"StructuredOutputSimilarity"}

    def test_scores_and_verdicts(self, report):
        scores = dict(zip(NAMES, report.scores, strict=True))
        assert scores["perfect"] == scores["case-only"] == 1.0
        assert scores["number-off"] == pytest.approx(0.8)
        assert scores["missed-field"] == pytest.approx(0.8)
        assert scores["hallucinated-item"] == pytest.approx(0.9)
        assert scores["wrong-throughout"] < 0.05
        assert dict(zip(NAMES, report.test_passes, strict=True)) == {name: name != "wrong-throughout" for name in NAMES}

    def test_each_failure_mode_is_named(self, report):
        misses = report.non_matches_frame()
        by_case = {name: group for name, group in misses.groupby("case")}
        assert "perfect" not in by_case and "case-only" not in by_case
        assert by_case["number-off"][["path", "kind"]].values.tolist() == [["total_amount", "wrong"]]
        assert by_case["missed-field"][["path", "kind"]].values.tolist() == [["invoice_date", "missed"]]
        assert by_case["hallucinated-item"][["path", "kind"]].values.tolist() == [["line_items[1]", "invented"]]
        assert set(by_case["wrong-throughout"]["path"]) >= {"invoice_id", "vendor_name", "invoice_date", "total_amount"}

    def test_equals_side_by_side(self, side_by_side):
        """Seed 001: Equals gives 2 distinct scores and 0.167 overall; field scoring gives 4."""
        frame = side_by_side.cases_frame()
        equals = frame[frame["evaluator"] == "Equals"]
        ours = frame[frame["evaluator"] == "StructuredOutputSimilarity"]
        assert list(equals["case"]) == list(ours["case"]) == NAMES
        assert equals["score"].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]  # case-only included
        assert equals["score"].nunique() == 2
        assert round(equals["score"].mean(), 3) == 0.167
        assert ours["score"].nunique() == 4
        assert ours["score"].mean() > equals["score"].mean()
        assert set(equals["status"]) == {"other evaluator"}

    def test_side_by_side_rollups_read_the_field_scores_only(self, side_by_side, report):
        assert side_by_side.metrics().field_metrics == report.metrics().field_metrics
        assert len(side_by_side.per_case()) == 6

    def test_non_matches_off_is_forwarded(self):
        plain = run_reference(non_matches=False)
        with pytest.raises(ValueError, match="must carry non-match records"):
            plain.non_matches_frame()
        assert plain.scores == run_reference().scores


# -- synthetic_invoice_pairs ---------------------------------------------------------------

KINDS = set(DOCUMENT_ERROR_RATES) | set(LINE_ITEM_ERROR_RATES)
FIELD_OF = {
    "vendor_case": "vendor_name",
    "vendor_typo": "vendor_name",
    "invoice_id_typo": "invoice_id",
    "date_missing": "invoice_date",
    "date_shifted": "invoice_date",
    "total_off": "total_amount",
    "total_missing": "total_amount",
    **{kind: "line_items" for kind in ("items_reordered", "item_invented", *LINE_ITEM_ERROR_RATES)},
}


@pytest.fixture(scope="module")
def corpus() -> list[dict]:
    return synthetic_invoice_pairs(400, line_items=(0, 8), seed=5)


class TestSyntheticPairs:
    def test_same_seed_same_pairs_other_seed_other_pairs(self):
        first = synthetic_invoice_pairs(30, line_items=(0, 6), seed=1)
        assert first == synthetic_invoice_pairs(30, line_items=(0, 6), seed=1)
        assert first[:10] == synthetic_invoice_pairs(10, line_items=(0, 6), seed=1)
        assert [p["expected"] for p in first] != [p["expected"] for p in synthetic_invoice_pairs(30, line_items=(0, 6))]

    def test_list_lengths_stay_within_bounds_and_reach_both(self, corpus):
        lengths = [len(pair["expected"].line_items) for pair in corpus]
        assert set(lengths) == set(range(9))
        assert {len(p["expected"].line_items) for p in synthetic_invoice_pairs(20, line_items=3)} == {3}
        assert all(len(p["expected"].line_items) == 0 for p in synthetic_invoice_pairs(5, line_items=0))
        defaults = [len(p["expected"].line_items) for p in synthetic_invoice_pairs(60)]
        assert min(defaults) >= 1 and max(defaults) <= 50

    def test_every_error_kind_turns_up_and_some_documents_are_clean(self, corpus):
        assert {kind for pair in corpus for kind in pair["errors"]} == KINDS
        assert KINDS == set(FIELD_OF)
        assert 0 < sum(not pair["errors"] for pair in corpus) < len(corpus)

    def test_errors_name_what_changed(self, corpus):
        for pair in corpus:
            expected, actual = pair["expected"], pair["actual"]
            changed = {field for field in Invoice.model_fields if getattr(expected, field) != getattr(actual, field)}
            assert changed == {FIELD_OF[kind] for kind in pair["errors"]}, pair["name"]
            if pair["errors"] == ("vendor_case",):
                assert actual.vendor_name == expected.vendor_name.upper()

    def test_observed_rates_match_the_documented_ones(self):
        pairs = synthetic_invoice_pairs(2000, line_items=1, seed=2)
        for kind in ("vendor_case", "invoice_id_typo", "date_missing", "total_off", "item_invented"):
            observed = sum(kind in pair["errors"] for pair in pairs) / len(pairs)
            assert observed == pytest.approx(DOCUMENT_ERROR_RATES[kind], abs=0.03), kind

    def test_ground_truth_and_prediction_validate(self, corpus):
        for pair in corpus:
            truth = pair["expected"]
            assert Invoice.model_validate(truth.model_dump(mode="json")) == truth
            Invoice.model_validate(pair["actual"].model_dump(mode="json"))
            lines = sum(line.quantity * line.unit_price for line in truth.line_items)
            assert truth.total_amount == pytest.approx(lines, abs=0.005)
            assert truth.invoice_date is not None and truth.invoice_date.year == 2024

    def test_names_say_synthetic(self, corpus):
        assert [pair["name"] for pair in corpus[:2]] == ["synthetic-00000", "synthetic-00001"]
        assert len({pair["name"] for pair in corpus}) == len(corpus)

    def test_score_dataset_takes_the_pairs_as_they_are(self):
        pairs = synthetic_invoice_pairs(6, line_items=(1, 3), seed=4)
        report = score_dataset(pairs, model_cls=Invoice, workers=1, progress=False)
        assert [case["name"] for case in report.cases] == [pair["name"] for pair in pairs]
        clean = [score for score, pair in zip(report.scores, pairs, strict=True) if not pair["errors"]]
        assert clean and all(score == 1.0 for score in clean)
        assert min(report.scores) < 1.0

    @pytest.mark.parametrize(
        ("arguments", "word"),
        [
            ({"n": -1}, "n must be"),
            ({"n": 2, "line_items": -1}, "line_items must be"),
            ({"n": 2, "line_items": (5, 2)}, "line_items must be"),
            ({"n": 2, "line_items": (1, 2, 3)}, "line_items must be"),
            ({"n": 2, "line_items": (1.0, 2)}, "line_items must be"),
        ],
    )
    def test_bad_arguments(self, arguments, word):
        n = arguments.pop("n")
        with pytest.raises(ValueError, match=word):
            synthetic_invoice_pairs(n, **arguments)


def test_run_reference_works_inside_a_running_event_loop_as_in_jupyter():
    import asyncio

    from structsim_nb.demo import run_reference

    async def in_a_kernel():
        return run_reference()  # Experiment.run_evaluations would call asyncio.run inside this loop

    report = asyncio.run(in_a_kernel())
    assert report.summary()["cases"] == 6
