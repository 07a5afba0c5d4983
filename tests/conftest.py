"""Shared test helpers. Keep this file generic: fixtures here serve every test module."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest
from strands_evals import Case, Experiment

from structsim_nb import StructuredOutputReport

RunExperiment = Callable[..., Any]


@pytest.fixture
def run_experiment() -> RunExperiment:
    """Run cases through a real Strands Evals `Experiment`, offline, and return its report.

    Call it as `run_experiment(pairs, evaluators, report_cls=StructuredOutputReport)`, where
    `pairs` maps a case name to `(expected_output, actual_output)`, in case order. The task
    returns `{"output": actual}`, the form that passes a model through the task handler
    untouched (see `structsim_nb.demo.run_reference`).
    """

    def run(
        pairs: Mapping[str, tuple[Any, Any]],
        evaluators: Sequence[Any],
        *,
        report_cls: type = StructuredOutputReport,
    ) -> Any:
        cases = [Case(name=name, input=name, expected_output=expected) for name, (expected, _) in pairs.items()]
        experiment = Experiment(cases=cases, evaluators=list(evaluators), report_cls=report_cls)
        return experiment.run_evaluations(lambda case: {"output": pairs[case.name][1]})

    return run
