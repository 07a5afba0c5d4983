"""Figures the walkthrough's prose states, read off its variables (runs as one extra cell; see conftest.py).

Besides what the notebook computed, it scores the "Try it yourself" changes the prose predicts, with the
notebook's own truth and prediction, so a prediction that stops being true fails the test.
"""

import math

import stickler as _stickler
from strands_evals.types.evaluation import EvaluationData as _EvaluationData

from structsim_nb import StructuredOutputSimilarity as _Similarity


def _number(value):
    """A float for JSON, None for NaN (JSON has no NaN)."""
    value = float(value)
    return None if math.isnan(value) else value


def _score(evaluator, actual):
    (scored,) = evaluator.evaluate(_EvaluationData(input=document, actual_output=actual, expected_output=truth))
    return scored


def _total_score(candidate):
    return _stickler.evaluate(truth, candidate).field_scores["total_amount"]


_fields = report.fields_frame().set_index("path")
_properties = schema["properties"]
_tool_result = retried.requests[1]["messages"][-1]["content"][0]["toolResult"]
_date_fixed = _stickler.evaluate(truth, date_fixed)
_variant_default = _score(evaluator, variant)
_variant_exact = _score(_Similarity(ExactTotal), variant)
_recorded_exact = _score(_Similarity(ExactTotal), prediction)
_bar = _score(_Similarity(Invoice, match_threshold=0.5), prediction)
_hinted = _Similarity(Invoice, weight_hints=True)
_hinted_row = _score(_hinted, prediction)
_hinted_weights = _hinted.explain_frame().loc[list(Invoice.model_fields), "weight"]


class _TextDateInvoice(Invoice):
    invoice_date: str | None = None


_as_text = _score(_Similarity(_TextDateInvoice), prediction.model_dump(mode="json"))

FIGURES = {
    # what was planted, read off the replayed answer and the truth
    "planted_date": prediction.invoice_date.isoformat(),
    "true_date": truth.invoice_date.isoformat(),
    "planted_total": prediction.total_amount,
    "true_total": truth.total_amount,
    "predicted_items": len(prediction.line_items),
    "true_items": len(truth.line_items),
    "dropped_item": truth.line_items[-1].model_dump(),
    "document": document,
    "provenance_source": provenance.source,
    "provenance_note": provenance.note,
    # the tool spec
    "required": schema["required"],
    "line_item_required": _properties["line_items"]["items"]["required"],
    "property_types": {name: field["type"] for name, field in _properties.items()},
    "property_descriptions": {name: field.get("description") for name, field in _properties.items()},
    "date_format": _properties["invoice_date"].get("format"),
    "tool_description": spec["description"],
    "pydantic_required": [name for name, info in Invoice.model_fields.items() if info.is_required()],
    # the providers
    "scripted_calls": len(scripted.requests),
    "scripted_same_as_replay": prediction == result.structured_output,
    "retry_calls": len(retried.requests),
    "retry_status": _tool_result["status"],
    "retry_text": _tool_result["content"][0]["text"],
    "replay_played": model.played,
    # the score, worked out
    "score": float(row["score"]),
    "test_pass": bool(row["test_pass"]),
    "field_order": list(Invoice.model_fields),  # FIGURES is dumped with sorted keys
    "field_scores": {name: float(row[name]) for name in Invoice.model_fields},
    "weights": {name: float(worked.loc[name, "weight"]) for name in Invoice.model_fields},
    "weighted_sum": float(weighted_sum),
    "weight_sum": float(weight_sum),
    "match_threshold": evaluator.match_threshold,
    "precision": float(row["precision"]),
    "recall": float(row["recall"]),
    "f1": float(row["f1"]),
    "counts": {kind: int(row[kind]) for kind in ("tp", "fn", "fa", "fd")},
    "line_items_counts": {kind: int(_fields.loc["line_items", kind]) for kind in ("tp", "fn", "fa", "fd")},
    "field_recall": {path: _number(value) for path, value in _fields["recall"].items()},
    "field_precision": {path: _number(value) for path, value in _fields["precision"].items()},
    "children_errors": int(_fields.loc[_fields["parent"] == "line_items", "errors"].sum()),
    "non_matches": sorted([path, kind] for path, kind in report.non_matches_frame()[["path", "kind"]].values),
    # the fixes
    "date_fixed_score": _date_fixed.overall_score,
    "date_fixed_recall": _date_fixed.recall,
    "total_why": evaluator.explain_frame().loc["total_amount", "why"],
    "total_scores": {
        "printed": _total_score(prediction.model_copy(update={"total_amount": truth.total_amount})),
        "planted": _total_score(prediction),
        "variant": _total_score(variant),
    },
    "variant_total": variant.total_amount,
    "variant_default": {
        "total_amount": _variant_default.metadata["field_scores"]["total_amount"],
        "score": _variant_default.score,
        "test_pass": _variant_default.test_pass,
    },
    "variant_exact": {
        "total_amount": _variant_exact.metadata["field_scores"]["total_amount"],
        "score": _variant_exact.score,
        "test_pass": _variant_exact.test_pass,
    },
    "recorded_exact_score": _recorded_exact.score,
    # try it yourself
    "bar_score": _bar.score,
    "bar_pass": _bar.test_pass,
    "hinted_weights": {name: float(weight) for name, weight in _hinted_weights.items()},
    "hinted_score": _hinted_row.score,
    "text_date_score": _as_text.metadata["field_scores"]["invoice_date"],
    "text_date_case": _as_text.score,
}
