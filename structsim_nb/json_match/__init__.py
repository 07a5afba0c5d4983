"""Agenta-style JSON evaluators: exact match, contains JSON, JSON multi-field match and JSON diff.

`evaluators` holds the Strands Evals evaluators and offers the four functions, which live in
`exact`, `contains`, `field_match` and `diff`; `paths` parses field paths (dot notation, JSON Path,
JSON Pointer), `values` reads each side and compares values, `flatten` compares leaves, `results`
holds the result types, and `agenta` says where Agenta would score differently.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports
from .contains import contains_json
from .diff import json_diff
from .exact import exact_match
from .field_match import json_field_match
from .paths import FieldPath, parse_field_path
from .results import FieldResult, JsonMatchResult
from .values import same_value

if TYPE_CHECKING:
    from .evaluators import ContainsJson, ExactMatch, JsonDiff, JsonFieldMatch

#: The Strands Evals evaluators load on first use: Strands Evals takes over a second to import, and the
#: functions (what `structsim-nb evaluate --scorer json_field_match` calls) never need it.
_EVALUATORS = ("ContainsJson", "ExactMatch", "JsonDiff", "JsonFieldMatch")

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


__getattr__, __dir__ = lazy_exports(__name__, dict.fromkeys(_EVALUATORS, ".evaluators"), globals(), __all__)
