"""The `static_json` scorer: AssetOpsBench's deterministic structured-answer score, without its bugs.

`evaluate_static_json(gold, model)` reads both sides with `answers.parse_answer`, flattens each
into keyed leaves (`answer.energy`, `answer.items[0].name`), normalises the leaves and compares
them key by key. `static_json_evaluator.StaticJsonEvaluator` is the same scorer as a Strands Evals
evaluator (a module of its own: Strands Evals takes over a second to import, and `structsim-nb
evaluate` never needs it).

Its parts: `leaves` (reading a side, normalising and flattening), `tolerance` (the numeric
range/delta diagnostics), `choice` (multiple-choice letters), `car` (CAR mode) and
`static_score` (`StaticJsonScore`, `KeyComparison`); this module holds the scorer and every
public name of its parts.

General mode (any structure, scalar or count):

- `strict_exact_match_accuracy` is 1.0 only when the flattened gold and model are equal;
  that is the pass rule. `score` is `f1`, rounded to 3 places.
- `partial_exact_match_accuracy` = exact matches / gold keys = `recall`.
- `partial_similarity_score` = mean over gold keys of `similarity_score` (missing keys 0).
- `precision` = exact matches / max(model keys, gold keys), so leaving a key out never beats
  answering it wrongly; `f1` is their harmonic mean. A zero denominator gives 0.0.

CAR mode (clarification / abstain / response) is used when `evaluation_metadata` names a
`mode`, or when the gold is a dict with one key that is a mode name; see `car`.

Multiple choice: when the gold is a single letter, the letter the model chose is extracted
first (`Answer: B`, `(C)`, a last line `B.`); see `choice.extract_choice`.

Numeric tolerance (diagnostics, as upstream): for each common key, `delta_1_match` is
|model - gold| <= 1 when both are numbers, and `range_match` is lo <= model <= hi when the gold
is a range (`10-20`, `10 to 20`, `between 10 and 20`, `min: 10, max: 20`, ...) or one end of a
sibling pair such as `start`/`end` or `min`/`max`. `accepted` = exact or a numeric match, and
`partial_match_accuracy` = accepted / gold keys.

Where this differs from AssetOpsBench 676de30, on purpose (the README lists the same):

1. Leaves are not re-parsed: no count fallback, marker stripping or re-parsing of values, so
   `"COMP-01"`, `"Pump 3"` and `"Output low"` compare as strings and `"1,200"` stays a string.
   Only a leaf that is wholly a number or `true`/`false`/`null`/`None` compares as that value.
2. Key paths are unambiguous: `.`, `[`, `]` and `\\` inside a key are escaped with `\\`, so
   `{"a.b": 1}` flattens to `answer.a\\.b`, never equal to `{"a": {"b": 1}}`.
3. Text is read by `parse_answer`: the last structure wins over drafts, the last answer marker
   by position wins, counts need a label or a line of their own, and `'` is never rewritten to `"`.
4. `precision` divides by max(model keys, gold keys) (as 19ae5d6 does), not by model keys.
5. A gold that flattens to no keys, a gold that looks like a structure but does not parse, and
   gold or model values nested deeper than 100 levels raise `StaticJsonError` instead of scoring.
6. CAR: metadata with an invalid `mode` and a non-dict gold raise; dict and list values are
   lower-cased like strings before term matching; the pass rule's term coverage is configurable
   (`required_term_coverage`); `must_have_exactly_one_mode_key=false` lets the mode key sit
   beside other keys; quotes pair only with their own kind and an apostrophe inside a word never
   opens one; the pilot term allowlist is an argument (`car_allowlist`, default
   `ASSETOPSBENCH_CAR_TERMS`, so the derived terms match upstream), not built in.
7. Numeric tolerance (range, delta +/-1) is computed as upstream, for every numeric gold key by
   default, and like upstream it never changes `passed` or `score` (both come from exact
   matches); `measure_keys` (argument, or `groundtruth_eval.json`) restricts it to the keys
   that are measures, so an id or a year is never "accepted" one off.
8. Multiple-choice letters: a bare trailing letter must be upper-case (`... is B`), so the
   article in "the best pick is a" is not read as answer A; a marker (`Answer: a`, `Option a`),
   brackets (`(a)`) or a line holding only the letter are read in any case.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from ..answers import parse_answer
from ..errors import StaticJsonError
from .car import ASSETOPSBENCH_CAR_TERMS, CAR_MODES, score_car
from .choice import extract_choice
from .leaves import check_nesting, flatten_answer, flatten_into, normalize_value, read_answer, similarity_score
from .static_score import KeyComparison, StaticJsonScore, f1_of, safe_ratio
from .tolerance import compare_key, context_ranges, measure_key_set

logger = logging.getLogger(__name__)

__all__ = [
    "ASSETOPSBENCH_CAR_TERMS",
    "CAR_MODES",
    "KeyComparison",
    "StaticJsonScore",
    "evaluate_static_json",
    "flatten_answer",
    "normalize_value",
    "extract_choice",
    "read_answer",
    "similarity_score",
]

#: The `groundtruth_eval.json` keys general mode reads (metadata without `mode`).
_GENERAL_METADATA_KEYS = frozenset({"measure_keys"})
_LETTER = re.compile(r"[A-Za-z]")


def evaluate_static_json(
    gold: Any,
    model: Any,
    *,
    similarity_threshold: float = 0.0,
    evaluation_metadata: Mapping[str, Any] | None = None,
    car_allowlist: Sequence[str] = ASSETOPSBENCH_CAR_TERMS,
    measure_keys: Sequence[str] | None = None,
) -> StaticJsonScore:
    """Score a model answer against a gold answer, key by key.

    Args:
        gold: The ground truth: text (read with `parse_answer`) or a value.
        model: The model's answer: text or a value. Text with no structure is one string leaf.
        similarity_threshold: A non-exact pair is `partial (x.xx)` when its similarity is
            strictly above this, else `mismatch`. Default 0.0. Does not affect pass or score.
        evaluation_metadata: `groundtruth_eval.json`. With a `mode` it is CAR metadata:
            `mode`, `required_terms`, `optional_terms`, `must_have_exactly_one_mode_key`
            (default true), `required_term_coverage` (fraction needed to pass; default: at
            least one term); other keys are ignored. Without `mode` it may hold `measure_keys`.
        car_allowlist: Terms added to the derived required terms when the gold text holds
            them as whole tokens (CAR without `required_terms` only). Default
            `ASSETOPSBENCH_CAR_TERMS`, upstream's list; pass `()` for none.
        measure_keys: Flattened key paths (`answer.count`) that numeric tolerance (range,
            delta +/-1) applies to. Default None: every numeric gold key, as upstream.

    Returns:
        A `StaticJsonScore`.

    Raises:
        StaticJsonError: If the gold looks like a structure but does not parse, flattens to no
            keys, either side nests too deep (or, as a Python object, holds itself), or the
            metadata or a CAR gold is invalid.

    Cost: linear in the length of both sides (as `parse_answer`), plus sorting the flattened
    keys; the choice letter, CAR term and identifier scans each read the text once.

    Examples:
        >>> s = evaluate_static_json("{'energy': 14, 'material': 48}", '{"energy":14,"material":27}')
        >>> s.passed, s.score, s.missing_keys
        (False, 0.5, [])
    """
    gold_value, gold_read_as = read_answer(gold)
    check_nesting(gold_value, "ground truth")
    if gold_read_as == "text" and gold_value[:1] in ("{", "["):
        raise StaticJsonError(
            f"the ground truth must parse as a structure; it starts with {gold_value[:1]!r} but does not parse "
            f"({parse_answer(gold).message}). Fix groundtruth.txt"
        )
    model_value, model_read_as = read_answer(model)
    check_nesting(model_value, "answer")
    meta = dict(evaluation_metadata or {})
    if meta and "mode" not in meta and set(meta) <= _GENERAL_METADATA_KEYS:
        if measure_keys is None:
            measure_keys = meta.get("measure_keys")
        meta = {}
    if meta:
        return score_car(gold_value, model_value, meta, car_allowlist, gold_read_as, model_read_as)
    if isinstance(gold_value, Mapping) and len(gold_value) == 1:
        (only,) = gold_value
        if str(only).strip().lower() in CAR_MODES:
            return score_car(gold_value, model_value, {}, car_allowlist, gold_read_as, model_read_as)
    measures = measure_key_set(measure_keys)
    if isinstance(gold_value, str) and _LETTER.fullmatch(gold_value) and isinstance(model, str):
        letter = extract_choice(model)
        if letter is not None:
            model_value, model_read_as = letter, "choice"

    names: dict[str, tuple[str, str]] = {}
    gold_flat: dict[str, str] = {}
    if isinstance(gold_value, str):
        gold_flat["answer"] = normalize_value(gold_value)
    else:
        flatten_into(gold_value, "answer", gold_flat, 0, names)
    if not gold_flat:
        raise StaticJsonError(
            f"the ground truth must have at least one value to compare; {gold_value!r} flattens to no keys, so "
            "every metric would be undefined. Give the scenario a non-empty ground truth"
        )
    model_flat = (
        flatten_answer(model_value) if not isinstance(model_value, str) else {"answer": normalize_value(model_value)}
    )
    context = context_ranges(gold_flat, names)
    common = sorted(gold_flat.keys() & model_flat.keys())
    missing = sorted(gold_flat.keys() - model_flat.keys())
    extra = sorted(model_flat.keys() - gold_flat.keys())
    details = [
        compare_key(
            key,
            gold_flat[key],
            model_flat[key],
            similarity_threshold,
            measures is None or key in measures,
            context.get(key),
        )
        for key in common
    ]
    exact_count = sum(d.exact for d in details)
    accepted_count = sum(d.accepted for d in details)
    numeric_keys = sum(d.numeric for d in details)
    numeric_matches = sum(d.numeric and d.accepted for d in details)
    range_eligible = sum(d.range_match is not None for d in details)
    range_matches = sum(bool(d.range_match) for d in details)
    delta_eligible = sum(d.delta_1_match is not None for d in details)
    delta_matches = sum(bool(d.delta_1_match) for d in details)
    similarity_total = sum(d.similarity for d in details)
    details += [KeyComparison(key, gold_flat[key], "MISSING", False, "missing", 0.0) for key in missing]
    details += [KeyComparison(key, "NOT_IN_GOLD", model_flat[key], False, "extra", 0.0) for key in extra]
    total_gold, total_model = len(gold_flat), len(model_flat)
    precision = safe_ratio(exact_count, max(total_model, total_gold))
    recall = safe_ratio(exact_count, total_gold)
    f1 = f1_of(precision, recall)
    strict = 1.0 if gold_flat == model_flat else 0.0
    logger.debug("gold_keys=<%d>, exact=<%d>, strict=<%s> | scored static json", total_gold, exact_count, strict)
    return StaticJsonScore(
        passed=strict == 1.0,
        score=round(f1, 3),
        partial_match_accuracy=safe_ratio(accepted_count, total_gold),
        partial_exact_match_accuracy=recall,
        strict_exact_match_accuracy=strict,
        partial_similarity_score=safe_ratio(similarity_total, total_gold),
        partial_numeric_match_accuracy=safe_ratio(numeric_matches, numeric_keys),
        range_match_accuracy=safe_ratio(range_matches, range_eligible),
        delta_1_match_accuracy=safe_ratio(delta_matches, delta_eligible),
        precision=precision,
        recall=recall,
        f1=f1,
        total_gold_keys=total_gold,
        total_model_keys=total_model,
        matched_keys=len(common),
        accepted_value_matches=accepted_count,
        exact_value_matches=exact_count,
        numeric_gold_keys=numeric_keys,
        numeric_value_matches=numeric_matches,
        range_eligible_keys=range_eligible,
        range_value_matches=range_matches,
        delta_1_eligible_keys=delta_eligible,
        delta_1_value_matches=delta_matches,
        missing_keys=missing,
        extra_keys=extra,
        details=details,
        gold_read_as=gold_read_as,
        model_read_as=model_read_as,
    )


def rationale(score: StaticJsonScore) -> str:
    """A one-line reason: `strict structured match`, or upstream's `structured answer differs from ground
    truth` followed by what differs."""
    if score.passed:
        return "strict structured match"
    head = "structured answer differs from ground truth; "
    if score.car_score is not None:
        if not score.mode_key_match:
            return f"{head}CAR mode differs: expected {score.details[0].gold_value}, got {score.details[0].model_value}"
        matched, required = len(score.mode_matched_terms), len(score.mode_required_terms)
        return f"{head}CAR required terms missing: matched {matched} of {required}"
    wrong = [d.key for d in score.details if d.match_type not in ("exact", "missing", "extra")]
    parts = []
    for label, keys in (("wrong", wrong), ("missing", score.missing_keys), ("extra", score.extra_keys)):
        if keys:
            shown = ", ".join(keys[:3]) + (f" (+{len(keys) - 3} more)" if len(keys) > 3 else "")
            parts.append(f"{label}: {shown}")
    return head + "; ".join(parts)
