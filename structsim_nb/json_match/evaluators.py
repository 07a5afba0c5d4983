"""Agenta-style JSON evaluators: exact match, contains JSON, JSON multi-field match and JSON diff.

Each is a plain function (`exact_match`, `contains_json`, `json_field_match`, `json_diff`) that
returns a `JsonMatchResult`, and a Strands Evals evaluator (`ExactMatch`, `ContainsJson`,
`JsonFieldMatch`, `JsonDiff`) whose single row carries the per-field detail on `metadata`
(`field_scores`, `non_matches`, `fields`, `counts`), so `StructuredOutputReport.cases_frame()`
and `non_matches_frame()` show these rows beside the field-level evaluator's.

The meaning follows Agenta's evaluators (`agenta:builtin:auto_exact_match`, `auto_contains_json`,
`json_multi_field_match`, `auto_json_diff`); where Agenta scores something the user did not mean
(a field absent on both sides scoring 1.0, case-insensitive keys that never match, null never
equal to null, an exception on non-JSON output) these do what was meant and the row's reason
says so. The README section "JSON match evaluators (Agenta-compatible)" lists every difference.

Values are compared by one rule (`values.same_value`); text output is read through
`structsim_nb.answers.parse_answer`. The four functions live in `exact`, `contains`,
`field_match` and `diff`, and this module offers them beside their evaluators; field paths live
in `paths`, flattening in `flatten`, the result types in `results`, and the command-line scorers
in `structsim_nb.trajectories.json_scorers`.

Examples:
    >>> gt = {"name": "John Doe", "email": "john@example.com", "address": {"city": "New York", "zip": "10001"}}
    >>> out = {"name": "John Doe", "email": "jane@example.com", "address": {"city": "New York", "zip": "10002"}}
    >>> result = json_field_match(out, gt, fields=["name", "email", "address.city", "address.zip"])
    >>> result.field_scores, result.score
    ({'name': 1.0, 'email': 0.0, 'address.city': 1.0, 'address.zip': 0.0}, 0.5)
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from strands_evals.evaluators import Evaluator
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData, EvaluationOutput

from ..errors import GroundTruthError
from .contains import contains_json
from .diff import json_diff
from .exact import exact_match
from .field_match import BothAbsent, check_both_absent, json_field_match
from .paths import FieldPath, parse_field_path, parse_fields
from .results import FieldResult, JsonMatchResult
from .values import check_threshold, same_value

logger = logging.getLogger(__name__)

__all__ = [
    "ContainsJson",
    "ExactMatch",
    "FieldPath",
    "FieldResult",
    "JsonDiff",
    "JsonFieldMatch",
    "JsonMatchResult",
    "contains_json",
    "exact_match",
    "json_diff",
    "json_field_match",
    "parse_field_path",
    "same_value",
]


class _JsonMatchEvaluator(Evaluator[Any, Any]):
    """One row per case from one of the four functions; the row's metadata carries the per-field detail."""

    _kind = ""
    _needs_expected = True

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:  # pragma: no cover - abstract
        raise NotImplementedError

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case.

        Returns:
            One row: score, `test_pass` and reason from the scorer, and `metadata` from
            `JsonMatchResult.to_metadata` (`evaluated_by` is `json_match:<kind>`). With no ground
            truth (except for `ContainsJson`) the row is not applicable: score 0.0, `test_pass`
            True, label `NOT_APPLICABLE`. A ground truth that is not JSON gives a score-0 row
            with `metadata["error"] == "unreadable"` and the reason, rather than an exception.
        """
        expected = evaluation_case.expected_output
        if self._needs_expected and expected is None:
            return [
                EvaluationOutput(
                    score=0.0, test_pass=True, reason="no ground truth to compare with", label=NOT_APPLICABLE
                )
            ]
        try:
            result = self._score(evaluation_case.actual_output, expected)
        except GroundTruthError as exc:
            result = JsonMatchResult(self._kind, 0.0, False, f"ground truth unreadable: {exc}", error="unreadable")
        logger.debug(
            "case=<%s>, evaluator=<%s>, score=<%.4f> | scored json match",
            evaluation_case.name,
            self.get_name(),
            result.score,
        )
        return [
            EvaluationOutput(
                score=result.score, test_pass=result.passed, reason=result.reason, metadata=result.to_metadata()
            )
        ]

    async def evaluate_async(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        return self.evaluate(evaluation_case)


class ExactMatch(_JsonMatchEvaluator):
    """Strands Evals evaluator for `exact_match`.

    Args:
        ignore_case: Compare strings case-insensitively. Default False.
        strip: Ignore leading and trailing whitespace of strings. Default False.
        null_is_missing: Null-valued keys count as absent. Default True; see `exact_match`.
        name: Evaluator name in the report. Default None (the class name).
    """

    _kind = "exact_match"

    def __init__(
        self, *, ignore_case: bool = False, strip: bool = False, null_is_missing: bool = True, name: str | None = None
    ) -> None:
        super().__init__(name=name)
        self.ignore_case = ignore_case
        self.strip = strip
        self.null_is_missing = null_is_missing

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return exact_match(
            actual, expected, ignore_case=self.ignore_case, strip=self.strip, null_is_missing=self.null_is_missing
        )


class ContainsJson(_JsonMatchEvaluator):
    """Strands Evals evaluator for `contains_json`; needs no ground truth.

    Args:
        name: Evaluator name in the report. Default None (the class name).
    """

    _kind = "contains_json"
    _needs_expected = False

    def __init__(self, *, name: str | None = None) -> None:
        super().__init__(name=name)

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return contains_json(actual)


class JsonFieldMatch(_JsonMatchEvaluator):
    """Strands Evals evaluator for `json_field_match`; the paths are parsed here, once.

    Args:
        fields: The field paths (see `parse_field_path`).
        both_absent: `"skip"` (default), `"match"` or `"miss"`; see `json_field_match`.
        threshold: Aggregate needed to pass. Default None (1.0).
        null_is_missing: Null and a missing field read alike. Default True; see `json_field_match`.
        name: Evaluator name in the report. Default None (the class name).

    Raises:
        FieldPathError: If a path does not parse, or `fields` is empty or repeats a path.
        ValueError: If `threshold` or `both_absent` is out of range.
    """

    _kind = "json_field_match"

    def __init__(
        self,
        fields: Sequence[str],
        *,
        both_absent: BothAbsent = "skip",
        threshold: float | None = None,
        null_is_missing: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self._paths = parse_fields(fields)
        check_threshold(threshold, 1.0)
        check_both_absent(both_absent)
        self.fields = [path.text for path in self._paths]
        self.both_absent = both_absent
        self.threshold = threshold
        self.null_is_missing = null_is_missing

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return json_field_match(
            actual,
            expected,
            fields=self._paths,
            both_absent=self.both_absent,
            threshold=self.threshold,
            null_is_missing=self.null_is_missing,
        )


class JsonDiff(_JsonMatchEvaluator):
    """Strands Evals evaluator for `json_diff`.

    Args:
        compare_schema_only: Compare JSON types, not values. Default False.
        case_insensitive_keys: Fold key case on both sides. Default False.
        penalize_extra_keys: Count leaves only the output has as misses. Default False.
        skip_nulls: Leave out null ground-truth leaves. Default False.
        compare_empty_containers: Compare empty objects and arrays as leaves. Default False (Agenta).
        threshold: Score needed to pass. Default None (0.5).
        null_is_missing: A null leaf and a missing one agree. Default True; see `json_diff`.
        name: Evaluator name in the report. Default None (the class name).

    Raises:
        ValueError: If `threshold` is not a number in [0, 1].
    """

    _kind = "json_diff"

    def __init__(
        self,
        *,
        compare_schema_only: bool = False,
        case_insensitive_keys: bool = False,
        penalize_extra_keys: bool = False,
        skip_nulls: bool = False,
        compare_empty_containers: bool = False,
        threshold: float | None = None,
        null_is_missing: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        check_threshold(threshold, 0.5)
        self.null_is_missing = null_is_missing
        self.compare_empty_containers = compare_empty_containers
        self.compare_schema_only = compare_schema_only
        self.case_insensitive_keys = case_insensitive_keys
        self.penalize_extra_keys = penalize_extra_keys
        self.skip_nulls = skip_nulls
        self.threshold = threshold

    def _score(self, actual: Any, expected: Any) -> JsonMatchResult:
        return json_diff(
            actual,
            expected,
            compare_schema_only=self.compare_schema_only,
            case_insensitive_keys=self.case_insensitive_keys,
            penalize_extra_keys=self.penalize_extra_keys,
            skip_nulls=self.skip_nulls,
            compare_empty_containers=self.compare_empty_containers,
            threshold=self.threshold,
            null_is_missing=self.null_is_missing,
        )
