"""Tests for `structsim_nb.report`: the views, the HTML, and saving and loading a report."""

from __future__ import annotations

import datetime
import json
import math

import pandas as pd
import pytest
from pydantic import BaseModel
from strands_evals.evaluators import Equals
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputReport as UpstreamReport,
)
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)
from strands_evals.types.evaluation_report import EvaluationReport

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity
from structsim_nb.demo import Invoice, LineItem, run_reference
from structsim_nb.errors import ReportFileError, StructsimError
from structsim_nb.frames import CASE_COLUMNS, FIELD_COLUMNS, NON_MATCH_COLUMNS


class Receipt(BaseModel):
    """Sparse on purpose: `note` is blank in every document, so its ratios are undefined."""

    receipt_id: str
    merchant: str | None = None
    note: str | None = None


RECEIPT = Receipt(receipt_id="R-1", merchant="Corner Shop")


@pytest.fixture(scope="module")
def mixed_report() -> StructuredOutputReport:
    """One case of every status: scored (twice), unreadable, not applicable; plus Equals rows."""
    from strands_evals import Case, Experiment

    pairs = {
        "right": (RECEIPT, RECEIPT),
        "missed": (RECEIPT, Receipt(receipt_id="R-1")),
        "broken": (RECEIPT, '{"receipt_id": '),
        "no-truth": (None, RECEIPT),
    }
    cases = [Case(name=name, input=name, expected_output=expected) for name, (expected, _) in pairs.items()]
    experiment = Experiment(
        cases=cases,
        evaluators=[Equals(), StructuredOutputSimilarity(Receipt)],
        report_cls=StructuredOutputReport,
    )
    return experiment.run_evaluations(lambda case: {"output": pairs[case.name][1]})


@pytest.fixture(scope="module")
def invoice_report() -> StructuredOutputReport:
    """The six reference invoices (a model with a `datetime.date` field)."""
    return run_reference()


# -- cases_frame -------------------------------------------------------------------------


class TestCasesFrame:
    def test_every_case_and_evaluator_with_status(self, mixed_report):
        frame = mixed_report.cases_frame()
        assert len(frame) == 8
        assert list(frame.columns[: len(CASE_COLUMNS)]) == CASE_COLUMNS
        ours = frame[frame["evaluator"] == "StructuredOutputSimilarity"]
        assert dict(zip(ours["case"], ours["status"], strict=True)) == {
            "right": "scored",
            "missed": "scored",
            "broken": "unreadable",
            "no-truth": "not applicable",
        }
        assert set(frame[frame["evaluator"] == "Equals"]["status"]) == {"other evaluator"}

    def test_scored_rows_carry_counts_and_field_scores(self, mixed_report):
        frame = mixed_report.cases_frame(evaluator="StructuredOutputSimilarity").set_index("case")
        missed = frame.loc["missed"]
        assert (missed["tp"], missed["fn"], missed["fa"], missed["fd"], missed["tn"]) == (1, 1, 0, 0, 1)
        assert missed["recall"] == pytest.approx(0.5)
        assert missed["test_pass"] is False or not missed["test_pass"]
        assert missed["merchant"] == 0.0
        assert missed["receipt_id"] == 1.0
        assert missed["model"] == "Receipt"
        assert missed["reason"] == "weakest fields: merchant=0.00"

    def test_rows_not_scored_have_empty_counts_but_keep_score_and_reason(self, mixed_report):
        frame = mixed_report.cases_frame(evaluator="StructuredOutputSimilarity").set_index("case")
        broken = frame.loc["broken"]
        assert broken["score"] == 0.0
        assert "could not compare as Receipt" in broken["reason"]
        assert pd.isna(broken["tp"])
        assert math.isnan(broken["precision"])
        assert math.isnan(broken["merchant"])

    def test_evaluator_filter_and_unknown_name(self, mixed_report):
        assert set(mixed_report.cases_frame(evaluator="Equals")["evaluator"]) == {"Equals"}
        with pytest.raises(ValueError, match="'nope'.*Equals, StructuredOutputSimilarity"):
            mixed_report.cases_frame(evaluator="nope")

    def test_per_case_omits_what_cases_frame_keeps(self, mixed_report):
        assert len(mixed_report.per_case(evaluator="StructuredOutputSimilarity")) == 2
        assert len(mixed_report.cases_frame(evaluator="StructuredOutputSimilarity")) == 4


# -- fields_frame ------------------------------------------------------------------------


class TestFieldsFrame:
    def test_columns_and_one_row_per_path(self, invoice_report):
        frame = invoice_report.fields_frame()
        assert list(frame.columns) == FIELD_COLUMNS
        assert sorted(frame["path"]) == sorted(invoice_report.metrics().field_metrics)

    def test_parents_beside_children_worst_first(self, invoice_report):
        frame = invoice_report.fields_frame()
        paths = list(frame["path"])
        start = paths.index("line_items")
        children = paths[start + 1 : start + 5]
        assert sorted(children) == [
            "line_items.description",
            "line_items.quantity",
            "line_items.sku",
            "line_items.unit_price",
        ]
        top = frame[frame["depth"] == 0]
        assert list(top["f1"]) == sorted(top["f1"])
        assert all(pd.isna(parent) for parent in top["parent"])
        assert set(frame[frame["depth"] == 1]["parent"]) == {"line_items"}

    def test_counts_and_rates_match_metrics(self, invoice_report):
        metrics = invoice_report.metrics().field_metrics
        for row in invoice_report.fields_frame().itertuples():
            entry = metrics[row.path]
            assert (row.tp, row.fn, row.fa, row.fd, row.tn) == tuple(entry[k] for k in ("tp", "fn", "fa", "fd", "tn"))
            assert row.errors == entry["fn"] + entry["fa"] + entry["fd"]
            assert row.precision == pytest.approx(entry["cm_precision"])
            assert row.recall == pytest.approx(entry["cm_recall"])

    def test_list_children_have_nan_mean_score(self, invoice_report):
        frame = invoice_report.fields_frame().set_index("path")
        assert math.isnan(frame.loc["line_items.sku", "mean_score"])
        assert not math.isnan(frame.loc["total_amount", "mean_score"])

    def test_undefined_rates_are_nan_and_sort_last(self, mixed_report):
        frame = mixed_report.fields_frame(evaluator="StructuredOutputSimilarity")
        note = frame.set_index("path").loc["note"]
        assert note["tn"] == 2
        assert math.isnan(note["precision"]) and math.isnan(note["recall"]) and math.isnan(note["f1"])
        # stickler reports 0.0 where the ratio is undefined; the frame does not.
        assert mixed_report.metrics(evaluator="StructuredOutputSimilarity").field_metrics["note"]["cm_f1"] == 0.0
        assert list(frame["path"]) == ["merchant", "receipt_id", "note"]

    def test_rows_of_other_evaluators_do_not_stop_the_rollup(self, mixed_report):
        pd.testing.assert_frame_equal(
            mixed_report.fields_frame(), mixed_report.fields_frame(evaluator="StructuredOutputSimilarity")
        )

    def test_two_scored_schemas_need_a_name(self, run_experiment):
        report = run_experiment(
            {"right": (RECEIPT, RECEIPT)},
            [StructuredOutputSimilarity(Receipt, name="a"), StructuredOutputSimilarity(Receipt, name="b")],
        )
        with pytest.raises(ValueError, match="pass evaluator=<name>"):
            report.fields_frame()
        assert list(report.fields_frame(evaluator="b")["path"]) == ["merchant", "receipt_id", "note"]
        page = report._repr_html_()
        # Two schemas have no one field rollup: the display falls back to the score chart.
        assert "report.plot.scores()" in page and "report.plot.fields()" not in page


# -- non_matches_frame -------------------------------------------------------------------


class TestNonMatchesFrame:
    def test_columns_and_records_in_case_order(self, invoice_report):
        frame = invoice_report.non_matches_frame()
        assert list(frame.columns) == NON_MATCH_COLUMNS
        expected_cases = [
            "number-off",
            "missed-field",
            "hallucinated-item",
            *["wrong-throughout"] * 6,
        ]
        assert list(frame["case"]) == expected_cases
        number_off = frame.iloc[0]
        assert (number_off["path"], number_off["kind"], number_off["category"]) == ("total_amount", "wrong", "fd")
        assert (number_off["expected"], number_off["predicted"]) == (1500.0, 1505.0)
        missed = frame.iloc[1]
        assert (missed["path"], missed["kind"], missed["expected"], missed["predicted"]) == (
            "invoice_date",
            "missed",
            "2024-03-15",
            None,
        )
        invented = frame.iloc[2]
        assert (invented["path"], invented["kind"]) == ("line_items[1]", "invented")
        assert invented["predicted"]["sku"] == "KB-07"
        assert math.isnan(missed["similarity"])

    def test_editing_an_object_in_the_frame_leaves_the_report_as_it_was(self, invoice_report):
        saved = invoice_report.model_dump_json()
        frame = invoice_report.non_matches_frame()
        invented = frame.iloc[2]["predicted"]
        assert isinstance(invented, dict)
        invented.clear()  # a notebook tidying the objects it shows
        assert invoice_report.model_dump_json() == saved
        assert invoice_report.non_matches_frame().iloc[2]["predicted"]["sku"] == "KB-07"

    def test_every_non_match_is_counted_as_an_error(self, invoice_report):
        cases = invoice_report.cases_frame()
        frame = invoice_report.non_matches_frame()
        for name, group in frame.groupby("case"):
            row = cases[cases["case"] == name].iloc[0]
            assert len(group) == row["fn"] + row["fa"] + row["fd"]

    def test_skips_other_evaluators(self, mixed_report):
        frame = mixed_report.non_matches_frame()
        assert list(frame["case"]) == ["missed"]
        assert set(frame["evaluator"]) == {"StructuredOutputSimilarity"}

    def test_empty_with_columns_when_everything_matched(self, run_experiment):
        report = run_experiment({"right": (RECEIPT, RECEIPT)}, [StructuredOutputSimilarity(Receipt)])
        frame = report.non_matches_frame()
        assert frame.empty
        assert list(frame.columns) == NON_MATCH_COLUMNS

    @pytest.mark.parametrize(
        "evaluator",
        [UpstreamSimilarity(Receipt), StructuredOutputSimilarity(Receipt, non_matches=False)],
        ids=["upstream", "non_matches-off"],
    )
    def test_raises_when_rows_carry_no_records(self, run_experiment, evaluator):
        report = run_experiment({"missed": (RECEIPT, Receipt(receipt_id="R-1"))}, [evaluator])
        with pytest.raises(ValueError, match="must carry non-match records"):
            report.non_matches_frame()
        # The upstream views still work on such a report.
        assert report.cases_frame()["status"].tolist() == ["scored"]


# -- summary and HTML --------------------------------------------------------------------


class TestSummaryAndHtml:
    def test_summary_per_evaluator(self, mixed_report):
        # Scored 1.0 and 2/3, unreadable 0.0; the not-applicable row is left out of the mean.
        assert mixed_report.summary(evaluator="StructuredOutputSimilarity") == {
            "cases": 4,
            "scored": 2,
            "unreadable": 1,
            "not_applicable": 1,
            "errors": 0,
            "passed": 2,
            "overall_score": pytest.approx((1.0 + 2 / 3 + 0.0) / 3),
            "lenient_cases": 0,
            "lenient_values": 0,
            "repaired_cases": 0,
            "notes": [],
        }

    def test_summary_of_the_whole_report(self, mixed_report):
        summary = mixed_report.summary()
        assert (summary["cases"], summary["scored"], summary["unreadable"]) == (8, 2, 1)
        assert summary["overall_score"] == pytest.approx(mixed_report.overall_score)

    def test_repr_is_one_short_line_of_what_matters(self, invoice_report):
        """Jupyter saves repr() as the report's text/plain beside its HTML: one line, not a dump of every row."""
        assert repr(invoice_report) == "<StructuredOutputReport 6 cases, 5 passed, overall 0.752>"
        assert str(invoice_report) == repr(invoice_report)

    def test_repr_says_each_evaluator_field_level_first_and_counts_odd_rows(self, mixed_report):
        assert mixed_report.evaluators() == ["StructuredOutputSimilarity", "Equals"]  # Equals ran first
        similarity = mixed_report.summary(evaluator="StructuredOutputSimilarity")["overall_score"]
        assert repr(mixed_report) == (
            f"<StructuredOutputReport 2 evaluators: StructuredOutputSimilarity 4 cases, 2 passed, overall "
            f"{similarity:.3f}, 1 unreadable, 1 not applicable; Equals 4 cases, 1 passed, overall 0.250>"
        )

    def test_repr_of_an_empty_report_and_of_one_whose_rows_cannot_be_read(self, invoice_report):
        empty = StructuredOutputReport(
            overall_score=0.0, scores=[], cases=[], test_passes=[], reasons=[], detailed_results=[]
        )
        assert repr(empty) == "<StructuredOutputReport 0 cases>" and empty.evaluators() == []
        broken = invoice_report.model_copy(update={"cases": [{"evaluator": "x"}] * 6, "detailed_results": [[1]] * 6})
        assert repr(broken) == "<StructuredOutputReport 6 rows>"  # a repr never raises

    def test_repr_html_is_the_compact_fragment(self, invoice_report):
        # The fragment itself is tested in tests/test_report_page.py; the report hands over to it.
        page = invoice_report._repr_html_()
        assert page.startswith('<div class="ss" style=')  # styles inline: see tests/display/test_page.py
        assert "<html" not in page and "<script" not in page
        assert "wrong-throughout" in page and "report.to_html()" in page

    def test_to_html_is_a_standalone_page(self, invoice_report):
        page = invoice_report.to_html(title="Q1 <invoices>")
        assert page.startswith("<!DOCTYPE html>")
        assert page.rstrip().endswith("</html>")
        assert "<meta charset='utf-8'>" in page
        assert "<title>Q1 &lt;invoices&gt;</title>" in page
        for anchor in ("id='cases'", "id='fields'", "id='non-matches'"):
            assert anchor in page


# -- saving and loading ------------------------------------------------------------------


class TestSaveLoad:
    def test_upstream_to_file_fails_on_a_date(self, invoice_report, tmp_path):
        with pytest.raises(TypeError, match="date is not JSON serializable"):
            UpstreamReport.to_file(invoice_report, str(tmp_path / "upstream.json"))

    def test_round_trip_with_a_date(self, invoice_report, tmp_path):
        path = invoice_report.to_file(tmp_path / "report.json")
        assert path == tmp_path / "report.json"
        loaded = StructuredOutputReport.from_file(path)
        assert type(loaded) is StructuredOutputReport
        assert loaded.scores == invoice_report.scores
        assert loaded.per_case() == invoice_report.per_case()
        assert loaded.metrics().field_metrics == invoice_report.metrics().field_metrics
        pd.testing.assert_frame_equal(loaded.cases_frame(), invoice_report.cases_frame())
        pd.testing.assert_frame_equal(loaded.fields_frame(), invoice_report.fields_frame())
        pd.testing.assert_frame_equal(loaded.non_matches_frame(), invoice_report.non_matches_frame())
        assert loaded.cases[0]["expected_output"]["invoice_date"] == "2024-03-01"

    def test_saving_twice_writes_the_same_bytes(self, invoice_report, tmp_path):
        first = invoice_report.to_file(tmp_path / "a.json").read_bytes()
        second = invoice_report.to_file(tmp_path / "b.json").read_bytes()
        again = StructuredOutputReport.from_file(tmp_path / "a.json").to_file(tmp_path / "c.json").read_bytes()
        assert first == second == again
        assert first.endswith(b"\n")
        json.loads(first)

    def test_path_without_suffix_gets_json(self, invoice_report, tmp_path):
        path = invoice_report.to_file(tmp_path / "nested" / "report")
        assert path == tmp_path / "nested" / "report.json"
        assert path.is_file()

    def test_other_suffix_is_an_error(self, invoice_report, tmp_path):
        with pytest.raises(ValueError, match=r"must end in \.json"):
            invoice_report.to_file(tmp_path / "report.txt")
        assert list(tmp_path.iterdir()) == []

    def test_loads_a_base_strands_report(self, run_experiment, tmp_path):
        base = run_experiment(
            {"missed": (RECEIPT, Receipt(receipt_id="R-1"))},
            [StructuredOutputSimilarity(Receipt)],
            report_cls=EvaluationReport,
        )
        assert type(base) is EvaluationReport
        base.to_file(str(tmp_path / "base.json"))
        loaded = StructuredOutputReport.from_file(tmp_path / "base.json")
        assert loaded.metrics().document_count == 1
        assert list(loaded.non_matches_frame()["path"]) == ["merchant"]


class TestFromFileErrors:
    def _assert_names_file(self, path):
        with pytest.raises(ReportFileError) as caught:
            StructuredOutputReport.from_file(path)
        assert str(path) in str(caught.value)
        return caught.value

    def test_missing_file(self, tmp_path):
        error = self._assert_names_file(tmp_path / "absent.json")
        assert "not found" in str(error)

    def test_not_json(self, tmp_path):
        path = tmp_path / "report.json"
        path.write_text("{ not json", encoding="utf-8")
        error = self._assert_names_file(path)
        assert "must be JSON; line 1" in str(error)

    def test_not_utf8(self, tmp_path):
        path = tmp_path / "report.json"
        path.write_bytes(b'{"overall_score": "\xff\xfe"}')
        error = self._assert_names_file(path)
        assert "UTF-8" in str(error)

    @pytest.mark.parametrize("content", ['{"hello": "world"}', "[1, 2, 3]", '{"overall_score": "high"}'])
    def test_json_that_is_not_a_report(self, tmp_path, content):
        path = tmp_path / "report.json"
        path.write_text(content, encoding="utf-8")
        error = self._assert_names_file(path)
        assert "is not a Strands Evals report" in str(error)

    def test_error_is_a_value_error_and_ours(self):
        assert issubclass(ReportFileError, ValueError)
        assert issubclass(ReportFileError, StructsimError)


class Explodes(Equals):
    """An evaluator that raises, as any evaluator might inside an Experiment."""

    def evaluate(self, evaluation_case):
        if evaluation_case.name == "bad":
            raise ValueError("Exceeds the limit (4300 digits) for integer string conversion")
        return super().evaluate(evaluation_case)


class TestRowsWhoseScoringRaised:
    """An Experiment records an evaluator that raised as a case with no row; the views still show it."""

    def test_the_case_is_an_error_row_and_counted(self, run_experiment):
        report = run_experiment({"good": ("a", "a"), "bad": ("b", "b"), "last": ("c", "x")}, [Explodes()])
        assert report.detailed_results[1] == []  # what the Experiment recorded
        frame = report.cases_frame()
        assert list(frame["case"]) == ["good", "bad", "last"]
        bad = frame.iloc[1]
        assert (bad["status"], bad["score"], bad["test_pass"]) == ("error", 0.0, False)
        assert "Exceeds the limit" in bad["reason"]
        summary = report.summary()
        assert summary["cases"] == 3 and summary["errors"] == 1 and summary["passed"] == 1

    def test_a_real_evaluator_that_raises(self, run_experiment):
        class Bad(StructuredOutputSimilarity):
            def evaluate(self, evaluation_case):
                raise RecursionError("maximum recursion depth exceeded")

        report = run_experiment({"doc": (RECEIPT, RECEIPT)}, [Bad(Receipt)])
        assert report.summary()["errors"] == 1 and report.cases_frame()["status"].tolist() == ["error"]


class TestFormatVersionAndNaN:
    def test_the_file_says_its_format_version_first(self, invoice_report, tmp_path):
        from structsim_nb.report import FORMAT_VERSION

        text = invoice_report.to_file(tmp_path / "r.json").read_text()
        assert text.startswith('{\n  "format_version": 1,\n  "overall_score"') and FORMAT_VERSION == 1
        assert json.loads(text)["format_version"] == 1
        assert EvaluationReport.model_validate_json(text).scores == invoice_report.scores  # upstream still reads it

    def test_a_newer_format_says_upgrade(self, invoice_report, tmp_path):
        path = invoice_report.to_file(tmp_path / "r.json")
        data = json.loads(path.read_text())
        data["format_version"] = 2
        path.write_text(json.dumps(data))
        with pytest.raises(
            ReportFileError,
            match="newer structsim-nb .*Upgrade structsim-nb to the version that wrote it .in its clone: git pull",
        ):
            StructuredOutputReport.from_file(path)
        data["format_version"] = "1"
        path.write_text(json.dumps(data))
        with pytest.raises(ReportFileError, match="format_version '1'; it must be a whole number"):
            StructuredOutputReport.from_file(path)

    def test_a_file_without_a_version_reads_as_version_1(self, invoice_report, tmp_path):
        path = tmp_path / "old.json"
        path.write_text(invoice_report.model_dump_json())
        assert StructuredOutputReport.from_file(path).scores == invoice_report.scores

    def test_nan_scores_are_refused_when_saving(self, invoice_report, tmp_path):
        broken = invoice_report.model_copy(update={"scores": [math.nan, *invoice_report.scores[1:]]})
        with pytest.raises(ValueError, match=r"scores\[0\] is not"):
            broken.to_file(tmp_path / "r.json")
        assert list(tmp_path.iterdir()) == []

    @pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
    def test_nan_scores_are_refused_when_loading(self, invoice_report, tmp_path, token):
        path = invoice_report.to_file(tmp_path / "r.json")
        text = path.read_text()
        first = str(invoice_report.scores[0])
        path.write_text(text.replace(f'"scores": [\n    {first}', f'"scores": [\n    {token}', 1))
        with pytest.raises(ReportFileError, match=r"not a finite number at scores\[0\]"):
            StructuredOutputReport.from_file(path)

    @pytest.mark.parametrize(
        ("content", "message"),
        [
            ('{"overall_score": ' + "1" * 5000 + "}", "cannot be read: Exceeds the limit"),
            ("[" * 100_000 + "]" * 100_000, "nests too deeply"),
        ],
    )
    def test_huge_numbers_and_deep_files_are_report_file_errors(self, tmp_path, content, message):
        path = tmp_path / "r.json"
        path.write_text(content)
        with pytest.raises(ReportFileError, match=message):
            StructuredOutputReport.from_file(path)


def test_invoice_model_is_what_the_report_holds():
    """The save/load tests rely on the reference model holding a date."""
    assert Invoice.model_fields["invoice_date"].annotation == datetime.date | None
    assert LineItem.model_fields
