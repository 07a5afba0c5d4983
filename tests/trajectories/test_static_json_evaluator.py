"""static_json_evaluator: the static_json scorer as a Strands Evals evaluator, one row per case."""

from __future__ import annotations

import subprocess
import sys

from helpers import CAR_GOLD, CAR_META
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData

from structsim_nb.trajectories.static_json_evaluator import StaticJsonEvaluator

GOLD, META = CAR_GOLD, CAR_META


class TestEvaluator:
    def test_row(self) -> None:
        (row,) = StaticJsonEvaluator().evaluate(
            EvaluationData(input="", actual_output='```json\n{"a": 1}\n```', expected_output="{'a': 1}")
        )
        assert row.test_pass and row.score == 1.0 and row.label == "static_json"
        assert row.metadata["model_read_as"] == "fenced" and row.reason == "strict structured match"

    def test_metadata_from_the_case(self) -> None:
        case = EvaluationData(
            input="",
            actual_output='{"clarification": "main unit?"}',
            expected_output=GOLD,
            metadata={"evaluation_metadata": META},
        )
        (row,) = StaticJsonEvaluator().evaluate(case)
        assert row.test_pass and row.metadata["car_score"] == 1.0

    def test_not_applicable_without_ground_truth(self) -> None:
        (row,) = StaticJsonEvaluator().evaluate(EvaluationData(input="", actual_output="{}"))
        assert row.test_pass and row.label == NOT_APPLICABLE

    def test_unscorable_case(self) -> None:
        (row,) = StaticJsonEvaluator().evaluate(EvaluationData(input="", actual_output="{}", expected_output="{'a':"))
        assert not row.test_pass and row.metadata == {"error": "unscorable"} and "ground truth" in row.reason


def test_scoring_saved_runs_never_imports_strands():
    """`structsim-nb evaluate` with any built-in scorer: neither Strands Evals nor the agent SDK (over a second)."""
    code = (
        "import sys, structsim_nb.trajectories as t, structsim_nb.json_match as j\n"
        "from structsim_nb.trajectories import scorers\n"
        "for name in scorers.scorer_names():\n"
        "    scorers.get_scorer(name)\n"
        "j.json_field_match({'a': 1}, {'a': 1}, fields=['a'])\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('strands', 'strands_evals')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    assert StaticJsonEvaluator.__module__ == "structsim_nb.trajectories.static_json_evaluator"


def test_the_public_name_loads_on_first_use():
    import structsim_nb
    import structsim_nb.trajectories as trajectories

    assert trajectories.StaticJsonEvaluator is StaticJsonEvaluator is structsim_nb.StaticJsonEvaluator
