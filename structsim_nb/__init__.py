"""structsim-nb: score an agent's structured output against ground truth, field by field.

The public API is what `__all__` lists; everything else is private or lives in a submodule.
"""

import logging

from .answers import ParsedAnswer, parse_answer
from .dataset import score_dataset
from .evaluate import StructuredOutputSimilarity
from .fcc import load_fcc
from .fcc_models import FCCInvoice, FCCInvoiceTuned, FCCLineItem, FCCLineItemTuned
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
from .scorers import register_scorer
from .static_json import StaticJsonEvaluator, evaluate_static_json
from .trajectories import run_evaluation

logging.getLogger(__name__).addHandler(logging.NullHandler())

__all__ = [
    "ContainsJson",
    "ExactMatch",
    "FCCInvoice",
    "FCCInvoiceTuned",
    "FCCLineItem",
    "FCCLineItemTuned",
    "JsonDiff",
    "JsonFieldMatch",
    "ParsedAnswer",
    "RecordMode",
    "RecordingModel",
    "ReplayModel",
    "StaticJsonEvaluator",
    "StructuredOutputReport",
    "StructuredOutputSimilarity",
    "contains_json",
    "evaluate_static_json",
    "exact_match",
    "json_diff",
    "json_field_match",
    "load_fcc",
    "open_model",
    "parse_answer",
    "record_exchange",
    "register_scorer",
    "run_evaluation",
    "score_dataset",
]
