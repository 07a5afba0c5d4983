"""Every registered scorer and every evaluator on fuzzed and adversarial text, within a time budget per example.

Each example must finish within `BUDGET` (hypothesis `deadline`) and end in a result or one of the
documented errors (`StructsimError` subclasses: a ground truth the scorer refuses), never a bare
`ValueError`, `RecursionError` or a hang. The adversarial strategy repeats the units that made
scanning paths quadratic or cubic (whitespace runs, capitals, nested brackets that fail late,
fence and answer markers) thousands of times: at that size a quadratic path takes seconds.
"""

from __future__ import annotations

import datetime
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputSimilarity
from structsim_nb.demo import Invoice
from structsim_nb.errors import StructsimError
from structsim_nb.json_match import ContainsJson, ExactMatch, JsonDiff, JsonFieldMatch
from structsim_nb.trajectories.scorers import get_scorer, scorer_names
from structsim_nb.trajectories.static_json_evaluator import StaticJsonEvaluator

#: The time one example may take: far above what a linear path needs on these sizes, far below
#: what a quadratic one does.
BUDGET = datetime.timedelta(seconds=5)

UNITS = [
    " ", "\n", "\t ", "A", "AB1-", "[", "{", "(", "[1,", "'a',", '"', "'", "]", "}", ")", "x]", "1,",
    "```", "```json\n", "Answer:", "answer ", "Final Answer: ", "<think>", "</think>", "<answer>", "9",
    "{'k': ", '{"k": [', "\\", "#", "\ud800", "é", "\x00",
]  # fmt: skip

HEADS = st.sampled_from(["", "B", "Final Answer: ", '{"a": 1} ', "[", "The answer is "])
TAILS = st.sampled_from(["", "x", "B", '{"a": 1}', "]", "\nC", " 34"])
#: One unit repeated 20,000 times between a head and a tail: linear paths take milliseconds on it.
adversarial = st.builds(lambda head, unit, tail: head + unit * 20_000 + tail, HEADS, st.sampled_from(UNITS), TAILS)
mixed = st.lists(st.sampled_from(UNITS), max_size=400).map("".join)
ANSWERS = st.one_of(st.text(max_size=400), mixed)

GOLDS = [
    '{"a": 1, "b": "x"}',
    "A",
    '{"clarification": "Which PMP42144 pump? \\"main unit\\" or the \'spare\'"}',
    "[1, 2, 3]",
    "34",
    json.dumps({"invoice_id": "INV-1", "vendor_name": "Acme", "total": 12.5, "line_items": []}),
]
OPTIONS = {
    "similarity": {"schema": "structsim_nb.demo.Invoice"},
    "json_field_match": {"fields": ["a", "invoice_id"]},
}
FUZZ = settings(max_examples=60, deadline=BUDGET, suppress_health_check=[HealthCheck.too_slow])
LARGE = settings(max_examples=25, deadline=BUDGET, suppress_health_check=[HealthCheck.too_slow])


def _documented(call: object) -> object:
    try:
        return call()  # type: ignore[operator]
    except StructsimError as exc:  # a refused ground truth: documented, named
        return exc


@FUZZ
@given(st.sampled_from(sorted(scorer_names())), st.sampled_from(GOLDS), ANSWERS)
def test_every_registered_scorer_returns_within_the_budget(name: str, gold: str, answer: str) -> None:
    scorer = get_scorer(name)
    result = _documented(lambda: scorer(gold, answer, evaluation_metadata=None, options=OPTIONS.get(name, {})))
    if not isinstance(result, StructsimError):
        assert 0.0 <= result.score <= 1.0  # type: ignore[attr-defined]
        json.dumps(result.to_dict())  # type: ignore[attr-defined]


@pytest.mark.parametrize("gold", GOLDS)
@pytest.mark.parametrize("name", sorted(scorer_names()))
@LARGE
@given(adversarial)
def test_every_scorer_on_20_000_repeated_units(name: str, gold: str, answer: str) -> None:
    """Every scorer against every gold shape: a path quadratic in the answer takes seconds here."""
    scorer = get_scorer(name)
    _documented(lambda: scorer(gold, answer, evaluation_metadata=None, options=OPTIONS.get(name, {})))


GOLD_WRAPS = st.sampled_from([("", ""), ('{"clarification": "', '"}'), ('{"a": "', '"}'), ("[", "]")])


@pytest.mark.parametrize("name", sorted(scorer_names()))
@LARGE
@given(GOLD_WRAPS, st.sampled_from(UNITS), st.sampled_from(['{"a": 1}', "B", '{"clarification": "x"}']))
def test_every_scorer_on_a_20_000_unit_ground_truth(name: str, wrap: tuple[str, str], unit: str, answer: str) -> None:
    """The ground truth is input too (a scenario file): a CAR gold of capitals was cubic."""
    gold = wrap[0] + unit * 20_000 + wrap[1]
    scorer = get_scorer(name)
    _documented(lambda: scorer(gold, answer, evaluation_metadata=None, options=OPTIONS.get(name, {})))


@FUZZ
@given(st.one_of(ANSWERS, adversarial), st.sampled_from(GOLDS))
def test_static_json_with_car_metadata_returns_within_the_budget(answer: str, gold: str) -> None:
    meta = {"mode": "clarification", "required_terms": ["pump", "main unit"]}
    _documented(lambda: get_scorer("static_json")(gold, answer, evaluation_metadata=meta, options={}))


EVALUATORS = [
    StructuredOutputSimilarity(Invoice),
    StaticJsonEvaluator(),
    ExactMatch(),
    ContainsJson(),
    JsonFieldMatch(["invoice_id"]),
    JsonDiff(),
]


@FUZZ
@given(st.sampled_from(range(len(EVALUATORS))), st.sampled_from(GOLDS), ANSWERS)
def test_every_evaluator_returns_a_row_within_the_budget(index: int, gold: str, answer: str) -> None:
    evaluator = EVALUATORS[index]
    rows = _documented(lambda: evaluator.evaluate(EvaluationData(input="", expected_output=gold, actual_output=answer)))
    if not isinstance(rows, StructsimError):
        assert len(rows) == 1 and 0.0 <= rows[0].score <= 1.0  # type: ignore[arg-type,index]
