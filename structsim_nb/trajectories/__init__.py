"""Saved agent runs scored offline, as `structsim-nb evaluate` does (AssetOpsBench layout).

`runner` finds trajectories and scenarios (`saved_runs`, `scenarios`), joins and scores them
(`pairs`) and writes the reports; `scorers` is the registry of scorer names; `static_json` is the
AssetOpsBench-style scorer (its parts: `leaves`, `tolerance`, `choice`, `car`, `static_score`) and
`static_json_evaluator` the same as a Strands Evals evaluator; `json_scorers` registers the
Agenta-style JSON evaluators as scorers. `StaticJsonEvaluator` loads on first use, so `structsim-nb
evaluate` never imports Strands Evals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from . import json_scorers as _json_scorers  # noqa: F401  (registers the JSON scorers)
from .runner import EvaluationRun, load_scenarios, load_trajectories, read_scenario_ids, run_evaluation
from .scorers import ScoreResult, register_scorer, scorer_names
from .static_json import evaluate_static_json

if TYPE_CHECKING:
    from .static_json_evaluator import StaticJsonEvaluator

__all__ = [
    "EvaluationRun",
    "ScoreResult",
    "StaticJsonEvaluator",
    "evaluate_static_json",
    "load_scenarios",
    "load_trajectories",
    "read_scenario_ids",
    "register_scorer",
    "run_evaluation",
    "scorer_names",
]


__getattr__, __dir__ = lazy_exports(__name__, {"StaticJsonEvaluator": ".static_json_evaluator"}, globals(), __all__)
