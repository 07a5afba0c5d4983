"""The synthetic invoice corpus the dataset tests score, the report an `Experiment` gives for it, and row checks.

Importable as `invoice_corpus` (pytest puts tests/ on the path), also from the scripts the signal
tests run in a child process.
"""

from __future__ import annotations

import re
from typing import Any

from strands_evals import Case, Experiment

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity
from structsim_nb.demo import Invoice, synthetic_invoice_pairs

MODEL = "structsim_nb.demo.Invoice"
DOCS = 240


def make_pairs(count: int = DOCS) -> list[dict[str, Any]]:
    """The synthetic corpus these tests score: short lists (0 to 5 line items) keep the suite quick."""
    return synthetic_invoice_pairs(count, line_items=(0, 5), seed=3)


def experiment_report(pairs: list[dict[str, Any]], **settings: Any) -> StructuredOutputReport:
    """The sequential path `score_dataset` must reproduce."""
    actual = {pair["name"]: pair["actual"] for pair in pairs}
    cases = [Case(name=pair["name"], input=None, expected_output=pair["expected"]) for pair in pairs]
    experiment = Experiment(
        cases=cases, evaluators=[StructuredOutputSimilarity(Invoice, **settings)], report_cls=StructuredOutputReport
    )
    return experiment.run_evaluations(lambda case: {"output": actual[case.name]})


def head(report: StructuredOutputReport, count: int) -> StructuredOutputReport:
    """The report of the first `count` documents."""
    return report.model_copy(
        update={key: getattr(report, key)[:count] for key in ("cases", "scores", "detailed_results")}
    )


def assert_only_row_failed(report, reference, index: int, kind: str, words: list[str]) -> None:
    """Row `index` is an error row of `kind` naming `words`; every other row is the reference's."""
    assert len(report.cases) == len(reference.cases)
    assert report.scores[index] == 0.0 and report.test_passes[index] is False
    [row] = report.detailed_results[index]
    assert row.metadata == {"error": kind}
    for word in words:
        assert word in report.reasons[index]
    frame = report.cases_frame()
    assert frame.loc[index, "status"] == "error"
    assert (frame["status"] == "error").sum() == 1
    assert report.summary()["errors"] == 1
    assert re.search(r'ss-tile-label"[^>]*>errors</div><div class="ss-tile-value"[^>]*>1</div>', report._repr_html_())
    others = [i for i in range(len(reference.cases)) if i != index]
    assert [report.scores[i] for i in others] == [reference.scores[i] for i in others]
    assert [report.detailed_results[i] for i in others] == [reference.detailed_results[i] for i in others]
    assert [report.cases[i]["name"] for i in range(len(report.cases))] == [c["name"] for c in reference.cases]
