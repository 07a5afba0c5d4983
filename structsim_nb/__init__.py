"""structsim-nb: score an agent's structured output against ground truth, field by field.

The public API is what `__all__` lists; everything else is private or lives in a submodule.
"""

import logging

from .evaluate import StructuredOutputSimilarity
from .json_match import (
    ContainsJson,
    ExactMatch,
    JsonDiff,
    JsonFieldMatch,
    contains_json,
    exact_match,
    json_diff,
    json_field_match,
)
from .record import RecordingModel, RecordMode, open_model, record_exchange
from .replay import ReplayModel
from .report import StructuredOutputReport

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "ContainsJson",
    "ExactMatch",
    "JsonDiff",
    "JsonFieldMatch",
    "RecordMode",
    "RecordingModel",
    "ReplayModel",
    "StructuredOutputReport",
    "StructuredOutputSimilarity",
    "contains_json",
    "exact_match",
    "json_diff",
    "json_field_match",
    "open_model",
    "record_exchange",
]
