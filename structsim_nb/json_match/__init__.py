"""Agenta-style JSON evaluators: exact match, contains JSON, JSON multi-field match and JSON diff.

`evaluators` holds the Strands Evals evaluators and offers the four functions, which live in
`exact`, `contains`, `field_match` and `diff`; `paths` parses field paths (dot notation, JSON Path,
JSON Pointer), `values` reads each side and compares values, `flatten` compares leaves, `results`
holds the result types, and `agenta` says where Agenta would score differently.
"""

from .evaluators import (
    ContainsJson,
    ExactMatch,
    JsonDiff,
    JsonFieldMatch,
    contains_json,
    exact_match,
    json_diff,
    json_field_match,
    same_value,
)
from .paths import FieldPath, parse_field_path
from .results import FieldResult, JsonMatchResult

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
