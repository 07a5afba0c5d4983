"""`StaticJsonEvaluator`: the `static_json` scorer as a Strands Evals evaluator, one row per case.

A module of its own so that scoring saved runs (`structsim-nb evaluate`) never imports Strands
Evals, which takes over a second; `static_json` holds the scorer itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from strands_evals.evaluators.evaluator import Evaluator
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData, EvaluationOutput

from ..errors import StaticJsonError
from .car import ASSETOPSBENCH_CAR_TERMS
from .static_json import evaluate_static_json, rationale

__all__ = ["StaticJsonEvaluator"]


class StaticJsonEvaluator(Evaluator[Any, Any]):
    """`evaluate_static_json` as a Strands Evals evaluator: one row per case.

    The row's `score` is `StaticJsonScore.score`, `test_pass` its `passed`, `reason` the
    `rationale`, `label` `static_json`, and `metadata` the score's `to_dict()`. A case
    without `expected_output` is not applicable (score 0.0, passes), as in the upstream
    evaluators. A case the scorer refuses (`StaticJsonError`) scores 0.0, fails, and carries
    `metadata={"error": "unscorable"}` with the reason.

    Args:
        similarity_threshold: See `evaluate_static_json`. Default 0.0.
        evaluation_metadata: CAR metadata for every case. Default None: each case's
            `metadata["evaluation_metadata"]` is used when present.
        car_allowlist: See `evaluate_static_json`. Default `ASSETOPSBENCH_CAR_TERMS`.
        name: Evaluator name. Default None (the class name).

    Examples:
        >>> row, = StaticJsonEvaluator().evaluate(EvaluationData(
        ...     input="", actual_output='Final Answer: {"a": 1}', expected_output="{'a': 1}"))
        >>> row.test_pass, row.metadata["model_read_as"]
        (True, 'prefixed')
    """

    def __init__(
        self,
        *,
        similarity_threshold: float = 0.0,
        evaluation_metadata: Mapping[str, Any] | None = None,
        car_allowlist: Sequence[str] = ASSETOPSBENCH_CAR_TERMS,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.similarity_threshold = similarity_threshold
        self.evaluation_metadata = dict(evaluation_metadata) if evaluation_metadata else None
        self.car_allowlist = tuple(car_allowlist)

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case; see the class docstring for the row."""
        if evaluation_case.expected_output is None:
            return [
                EvaluationOutput(
                    score=0.0,
                    test_pass=True,
                    reason="expected_output is None, so there was no ground truth to compare against",
                    label=NOT_APPLICABLE,
                )
            ]
        meta = self.evaluation_metadata
        if meta is None and isinstance(evaluation_case.metadata, Mapping):
            meta = evaluation_case.metadata.get("evaluation_metadata")
        try:
            score = evaluate_static_json(
                evaluation_case.expected_output,
                evaluation_case.actual_output,
                similarity_threshold=self.similarity_threshold,
                evaluation_metadata=meta,
                car_allowlist=self.car_allowlist,
            )
        except StaticJsonError as exc:
            return [
                EvaluationOutput(
                    score=0.0, test_pass=False, reason=str(exc), label="static_json", metadata={"error": "unscorable"}
                )
            ]
        return [
            EvaluationOutput(
                score=score.score,
                test_pass=score.passed,
                reason=rationale(score),
                label="static_json",
                metadata=score.to_dict(),
            )
        ]

    async def evaluate_async(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """`evaluate`, which never blocks on I/O."""
        return self.evaluate(evaluation_case)
