"""Helpers shared by test modules (importable as `helpers`: pytest puts tests/ on the path)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from strands_evals import Case, Experiment

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
