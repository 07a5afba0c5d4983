"""structsim-nb: score an agent's structured output against ground truth, field by field.

The public API is what `__all__` lists; everything else is private or lives in a submodule.
Names load on first use (PEP 562), so `import structsim_nb` and `structsim-nb --help` stay
cheap: the engine, pandas and the integrations are imported by the name that needs them.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ._lazy import lazy_exports

if TYPE_CHECKING:
    from .answers import ParsedAnswer, parse_answer
    from .comparison import Comparison, compare
    from .dataset import score_dataset
    from .evaluate import StructuredOutputSimilarity
    from .fcc import FCCInvoice, FCCInvoiceTuned, FCCLineItem, FCCLineItemTuned, load_fcc
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
    from .replay import RecordingModel, RecordMode, ReplayModel, open_model, record_exchange
    from .report import StructuredOutputReport
    from .trajectories import StaticJsonEvaluator, evaluate_static_json, register_scorer, run_evaluation

logging.getLogger(__name__).addHandler(logging.NullHandler())

#: Public name -> the submodule that defines it.
_EXPORTS = {
    "Comparison": ".comparison",
    "ContainsJson": ".json_match",
    "ExactMatch": ".json_match",
    "FCCInvoice": ".fcc",
    "FCCInvoiceTuned": ".fcc",
    "FCCLineItem": ".fcc",
    "FCCLineItemTuned": ".fcc",
    "JsonDiff": ".json_match",
    "JsonFieldMatch": ".json_match",
    "ParsedAnswer": ".answers",
    "RecordMode": ".replay",
    "RecordingModel": ".replay",
    "ReplayModel": ".replay",
    "StaticJsonEvaluator": ".trajectories",
    "StructuredOutputReport": ".report",
    "StructuredOutputSimilarity": ".evaluate",
    "compare": ".comparison",
    "contains_json": ".json_match",
    "evaluate_static_json": ".trajectories",
    "exact_match": ".json_match",
    "json_diff": ".json_match",
    "json_field_match": ".json_match",
    "load_fcc": ".fcc",
    "open_model": ".replay",
    "parse_answer": ".answers",
    "record_exchange": ".replay",
    "register_scorer": ".trajectories",
    "run_evaluation": ".trajectories",
    "score_dataset": ".dataset",
}

__all__ = [
    "Comparison",
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
    "compare",
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, globals(), __all__)
