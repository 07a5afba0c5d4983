"""The JSON evaluators as `structsim-nb evaluate --scorer` scorers.

Module-level functions with the `structsim_nb.trajectories.scorers.Scorer` signature (picklable,
no state); they register themselves under `SCORER_NAMES` when this module is imported (the
package's `__init__` does, so the dependency runs one way: adapters -> registry). Options arrive
as plain strings, numbers and lists from the command line: `fields`, `threshold`, `both_absent`, `compare_schema_only`,
`case_insensitive_keys`, `penalize_extra_keys`, `skip_nulls`, `compare_empty_containers`, `null_is_missing`,
`ignore_case`, `strip`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from ..answers import parse_answer
from ..errors import FieldPathError, GroundTruthError
from ..json_match import contains_json, exact_match, json_diff, json_field_match
from ..json_match.field_match import check_both_absent
from ..json_match.paths import parse_fields
from ..json_match.results import JsonMatchResult
from ..json_match.values import check_threshold, read_expected
from .scorers import ScoreResult, register_scorer

__all__ = [
    "SCORER_NAMES",
    "check_field_match_options",
    "check_scorer_options",
    "score_contains_json",
    "score_exact_match",
    "score_json_diff",
    "score_json_field_match",
]

#: The names these scorers are registered under.
SCORER_NAMES = ("exact_match", "contains_json", "json_field_match", "json_diff")


def _gold(gold: str) -> Any:
    """A `groundtruth.txt` text: JSON, or a whole-text Python literal (`{'a': 1}`), else the text itself.

    Only a structure that is the whole text counts (`parse_answer` forms `json` and
    `python_literal`); a ground truth is never searched for an embedded structure.
    """
    try:
        value = json.loads(gold)
    except json.JSONDecodeError:
        parsed = parse_answer(gold)
        return parsed.value if parsed.form in ("json", "python_literal") else gold
    except RecursionError:
        raise GroundTruthError(
            "the ground truth nests too deeply to read as JSON; keep groundtruth.txt under 100 levels"
        ) from None
    except ValueError as exc:  # a number longer than Python converts
        raise GroundTruthError(f"the ground truth cannot be read as JSON: {exc}. Fix groundtruth.txt") from None
    return read_expected(value)  # JSON data within the nesting limit, or GroundTruthError


def _fields_option(options: Mapping[str, Any]) -> list[str]:
    fields = options.get("fields")
    if isinstance(fields, str):
        fields = [fields]
    if not fields:
        raise FieldPathError(
            "the json_field_match scorer needs field paths; got none. Pass --fields name address.city '$.items[0].sku'"
        )
    return list(fields)


def _result(kind: str, result: JsonMatchResult) -> ScoreResult:
    return ScoreResult(kind, result.passed, result.score, result.reason, result.to_metadata())


def check_scorer_options(options: Mapping[str, Any]) -> None:
    """Validate the options shared by the four scorers once, before any pair is scored.

    Raises:
        FieldPathError: If `fields` is given and a path does not parse (or is repeated).
        ValueError: If `threshold` is not a number in [0, 1] or `both_absent` is unknown.
    """
    if options.get("fields"):
        parse_fields(_fields_option(options))
    check_threshold(options.get("threshold"), 0.5)
    check_both_absent(options.get("both_absent", "skip"))


def check_field_match_options(options: Mapping[str, Any]) -> None:
    """`check_scorer_options`, and `fields` is required."""
    parse_fields(_fields_option(options))
    check_scorer_options(options)


def score_exact_match(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `exact_match` scorer: `exact_match(answer, gold)`; a JSON gold is compared as a value."""
    result = exact_match(
        answer,
        _gold(gold),
        ignore_case=bool(options.get("ignore_case")),
        strip=bool(options.get("strip")),
        null_is_missing=bool(options.get("null_is_missing", True)),
    )
    return _result("exact_match", result)


def score_contains_json(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `contains_json` scorer: `contains_json(answer)`; the ground truth is not used."""
    return _result("contains_json", contains_json(answer))


def score_json_field_match(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `json_field_match` scorer: `json_field_match(answer, gold, fields=options["fields"], ...)`.

    Raises:
        GroundTruthError: If `gold` is not a JSON object or array (the runner records an error entry).
    """
    result = json_field_match(
        answer,
        _gold(gold),
        fields=_fields_option(options),
        both_absent=options.get("both_absent", "skip"),
        threshold=options.get("threshold"),
        null_is_missing=bool(options.get("null_is_missing", True)),
    )
    return _result("json_field_match", result)


def score_json_diff(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> Any:
    """The `json_diff` scorer: `json_diff(answer, gold, ...)` with the options given.

    Raises:
        GroundTruthError: If `gold` is not JSON text (the runner records an error entry).
    """
    result = json_diff(
        answer,
        _gold(gold),
        compare_schema_only=bool(options.get("compare_schema_only")),
        case_insensitive_keys=bool(options.get("case_insensitive_keys")),
        penalize_extra_keys=bool(options.get("penalize_extra_keys")),
        skip_nulls=bool(options.get("skip_nulls")),
        compare_empty_containers=bool(options.get("compare_empty_containers")),
        threshold=options.get("threshold"),
        null_is_missing=bool(options.get("null_is_missing", True)),
    )
    return _result("json_diff", result)


register_scorer("exact_match", score_exact_match, validate=check_scorer_options)
register_scorer("contains_json", score_contains_json, validate=check_scorer_options)
register_scorer("json_field_match", score_json_field_match, validate=check_field_match_options)
register_scorer("json_diff", score_json_diff, validate=check_scorer_options)
