"""What the `static_json` scorer reports: one record per key, the pair's score, and two ratios.

`KeyComparison` is one row of `StaticJsonScore.details`; `StaticJsonScore` holds AssetOpsBench's
metric fields with the same names, and `to_dict()` gives plain JSON. `safe_ratio` and `f1_of`
are the two ratios every metric is built from: a zero denominator gives 0.0.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

__all__ = ["KeyComparison", "StaticJsonScore", "f1_of", "safe_ratio"]


@dataclass(frozen=True)
class KeyComparison:
    """One record of `StaticJsonScore.details`.

    Attributes:
        key: Flattened key path (`answer.energy`), or a CAR record (`answer.mode`,
            `answer.required_term.<term>`, `answer.optional_term.<term>`).
        gold_value: Normalised gold leaf; `NOT_IN_GOLD` for an extra key.
        model_value: Normalised model leaf; `MISSING` for a missing key.
        exact: Whether the two are equal.
        match_type: `exact`, `partial (0.xx)`, `mismatch`, `missing`, `extra`, or for CAR
            `mode_mismatch`, `term_present`/`term_missing`, `optional_term_present`/`optional_term_missing`.
        similarity: `similarity_score` of the pair (1.0 or 0.0 for term records); 1.0 for a
            `partial_delta_1` or `partial_range` match, as upstream.
        accepted: Exact, or a numeric match (within the gold range, or within 1).
        numeric: Whether the gold leaf is a number or a range (and tolerance applies to the key).
        range_match: Whether the model number lies in the gold range; None when not eligible.
        delta_1_match: Whether |model - gold| <= 1; None unless both are numbers.
    """

    key: str
    gold_value: str
    model_value: str
    exact: bool
    match_type: str
    similarity: float
    accepted: bool = False
    numeric: bool = False
    range_match: bool | None = None
    delta_1_match: bool | None = None


@dataclass(frozen=True)
class StaticJsonScore:
    """Everything `evaluate_static_json` measured for one pair; `to_dict()` is plain JSON.

    The metric fields are AssetOpsBench's (`StaticJsonScore` of 676de30), with the same names.
    `passed` is the strict match (or the CAR pass rule); `score` is `f1` (or `car_score`),
    rounded to 3 places. `gold_read_as`/`model_read_as` say how each side was read: a
    `ParsedAnswer.form`, `literal` for a whole-text JSON/Python scalar (`null`, `"Pump 3"`),
    `choice` for an extracted multiple-choice letter, `text` for a plain string leaf, or
    `value` for a non-string input.
    The `mode_*` fields and `car_score` are None (lists empty) outside CAR mode.
    """

    passed: bool
    score: float
    partial_match_accuracy: float
    partial_exact_match_accuracy: float
    strict_exact_match_accuracy: float
    partial_similarity_score: float
    partial_numeric_match_accuracy: float
    range_match_accuracy: float
    delta_1_match_accuracy: float
    precision: float
    recall: float
    f1: float
    total_gold_keys: int
    total_model_keys: int
    matched_keys: int
    accepted_value_matches: int
    exact_value_matches: int
    numeric_gold_keys: int
    numeric_value_matches: int
    range_eligible_keys: int
    range_value_matches: int
    delta_1_eligible_keys: int
    delta_1_value_matches: int
    missing_keys: list[str]
    extra_keys: list[str]
    details: list[KeyComparison]
    gold_read_as: str
    model_read_as: str
    mode_key_match: float | None = None
    mode_exactly_one_key: float | None = None
    mode_required_terms: list[str] = field(default_factory=list)
    mode_matched_terms: list[str] = field(default_factory=list)
    mode_term_coverage: float | None = None
    mode_optional_terms: list[str] = field(default_factory=list)
    mode_matched_optional_terms: list[str] = field(default_factory=list)
    mode_optional_term_coverage: float | None = None
    car_score: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The score as a dict of plain JSON types (details as a list of dicts).

        Built field by field rather than with `dataclasses.asdict`, which deep-copies every value;
        the lists are shared with the score, which is frozen and never changes them.
        """
        out = {name: getattr(self, name) for name in _SCORE_FIELDS}
        out["details"] = [{name: getattr(row, name) for name in _ROW_FIELDS} for row in self.details]
        return out


_SCORE_FIELDS = tuple(item.name for item in fields(StaticJsonScore))
_ROW_FIELDS = tuple(item.name for item in fields(KeyComparison))


def safe_ratio(numerator: float, denominator: float) -> float:
    """`numerator / denominator`, or 0.0 when the denominator is zero."""
    return numerator / denominator if denominator else 0.0


def f1_of(precision: float, recall: float) -> float:
    """The harmonic mean of precision and recall; 0.0 when both are zero."""
    return safe_ratio(2 * precision * recall, precision + recall)
