"""Tests for `structsim_nb.plot.whatif`: the pass rule recomputed from the rows, and where it stops predicting."""

from __future__ import annotations

import math

import pytest
from pydantic import BaseModel

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, score_dataset
from structsim_nb.demo import Invoice, synthetic_invoice_pairs
from structsim_nb.json_match import JsonDiff
from structsim_nb.plot import whatif

PAIRS = synthetic_invoice_pairs(200, line_items=(1, 6), seed=3)


class Receipt(BaseModel):
    receipt_id: str
    merchant: str | None = None
    note: str | None = None


RIGHT = Receipt(receipt_id="R-1", merchant="Shop")


def _scored(threshold: float) -> StructuredOutputReport:
    return score_dataset(PAIRS, model_cls=Invoice, match_threshold=threshold, workers=1, progress=False)


@pytest.fixture(scope="module")
def at_07() -> StructuredOutputReport:
    return _scored(0.7)


@pytest.mark.parametrize("threshold", [0.7, 0.85])
def test_at_the_scoring_threshold_the_rule_reproduces_every_row(threshold):
    report = _scored(threshold)
    cases = whatif.similarity_cases(report)
    assert whatif.passes(cases, threshold).tolist() == cases["test_pass"].tolist()
    rates = whatif.pass_rates(cases, thresholds=[threshold]).iloc[0]
    assert rates["passed"] == cases["test_pass"].sum()
    assert (rates["cases"], rates["pass_rate"]) == (len(cases), cases["test_pass"].mean())


def test_where_rescoring_leaves_score_and_recall_alone_the_what_if_is_right(at_07):
    """The stated limit: the prediction holds for rows that rescoring does not change, and only for them."""
    rescored = whatif.similarity_cases(_scored(0.9))
    cases = whatif.similarity_cases(at_07)
    predicted = whatif.passes(cases, 0.9)
    unchanged = (cases["score"] == rescored["score"]) & (cases["recall"] == rescored["recall"])
    assert unchanged.sum() > 100
    assert predicted[unchanged].tolist() == rescored.loc[unchanged, "test_pass"].tolist()


def test_rates_fall_as_the_bar_rises_and_score_only_is_never_stricter(at_07):
    rates = whatif.pass_rates(whatif.similarity_cases(at_07))
    assert rates["threshold"].tolist() == [round(step / 100, 2) for step in range(101)]
    assert rates["pass_rate"].is_monotonic_decreasing
    assert (rates["score_only_rate"] >= rates["pass_rate"]).all()
    assert rates["pass_rate"].iloc[0] == 1.0


def test_unreadable_rows_fail_at_any_bar_and_not_applicable_rows_are_left_out(run_experiment):
    report = run_experiment(
        {"right": (RIGHT, RIGHT), "broken": (RIGHT, '{"receipt_id": '), "no-truth": (None, RIGHT)},
        [StructuredOutputSimilarity(Receipt)],
    )
    cases = whatif.similarity_cases(report)
    rates = whatif.pass_rates(cases, thresholds=[0.0, 0.5, 1.0])
    assert rates["cases"].tolist() == [2, 2, 2]
    assert rates["passed"].tolist() == [1, 1, 1]


def test_nothing_to_find_passes_unless_something_was_invented(run_experiment):
    blank = Receipt(receipt_id="")
    report = run_experiment(
        {"empty": (blank, blank), "invented": (blank, Receipt(receipt_id="", merchant="X"))},
        [StructuredOutputSimilarity(Receipt)],
    )
    cases = whatif.similarity_cases(report)
    assert whatif.passes(cases, 0.7).tolist() == cases["test_pass"].tolist()


def test_no_applicable_rows_give_nan_rates(run_experiment):
    report = run_experiment({"no-truth": (None, RIGHT)}, [StructuredOutputSimilarity(Receipt)])
    rates = whatif.pass_rates(report.cases_frame(), thresholds=[0.7])
    assert rates["cases"].iloc[0] == 0 and math.isnan(rates["pass_rate"].iloc[0])


def test_the_evaluator_must_be_a_similarity_evaluator(run_experiment):
    report = run_experiment(
        {"right": (RIGHT, RIGHT)},
        [StructuredOutputSimilarity(Receipt, name="a"), StructuredOutputSimilarity(Receipt, name="b"), JsonDiff()],
    )
    assert report.similarity_evaluators() == {"a", "b"}
    with pytest.raises(ValueError, match="has a, b. Pass evaluator=<name>"):
        whatif.similarity_cases(report)
    with pytest.raises(ValueError, match="got 'JsonDiff', which are: a, b"):
        whatif.similarity_cases(report, evaluator="JsonDiff")
    assert set(whatif.similarity_cases(report, evaluator="b")["evaluator"]) == {"b"}
