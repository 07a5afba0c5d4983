"""Helpers shared by test modules (importable as `helpers`: pytest puts tests/ on the path)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from strands_evals import Case, Experiment
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputReport


def run_pairs(
    pairs: Mapping[str, tuple[Any, Any]],
    evaluators: Sequence[Any],
    *,
    report_cls: type = StructuredOutputReport,
) -> Any:
    """Run cases through a real Strands Evals `Experiment`, offline, and return its report.

    `pairs` maps a case name to `(expected_output, actual_output)`, in case order. The task
    returns `{"output": actual}`, the form that passes a model through the task handler
    untouched (see `structsim_nb.demo.run_reference`). Plain function, so module-scoped
    fixtures can call it; tests take it as the `run_experiment` fixture.
    """
    cases = [Case(name=name, input=name, expected_output=expected) for name, (expected, _) in pairs.items()]
    experiment = Experiment(cases=cases, evaluators=list(evaluators), report_cls=report_cls)
    return experiment.run_evaluations(lambda case: {"output": pairs[case.name][1]})


def write_json(path: Path, data: object) -> Path:
    """Write `data` as JSON to `path`, creating its folders; returns the path."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


# The documented Agenta example (seed 003), shared by the json_match tests.
SEED_GT = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
SEED_OUT = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
SEED_FIELDS = ["name", "email", "address.city", "address.zip"]


def evaluate_row(evaluator: Any, actual: Any, expected: Any, name: str = "c1") -> Any:
    """The one row `evaluator` gives for a case with this output and ground truth."""
    (row,) = evaluator.evaluate(EvaluationData(name=name, input="", actual_output=actual, expected_output=expected))
    return row
