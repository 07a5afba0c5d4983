"""CAR mode of the `static_json` scorer: clarification / abstain / response answers.

Used when `groundtruth_eval.json` names a `mode`, or when the gold is a dict with one key that is
a mode name. `score_car` scores the mode key, then the coverage of the required terms: those the
metadata lists, or else terms read off the gold text (quoted phrases, identifiers such as
`PMP42144`, allowlisted terms, a leading yes/no).

Where this differs from AssetOpsBench 676de30, on purpose: metadata with an invalid `mode` and a
non-dict gold raise; dict and list values are lower-cased like strings before term matching; the
pass rule's term coverage is configurable (`required_term_coverage`);
`must_have_exactly_one_mode_key=false` lets the mode key sit beside other keys; quotes pair only
with their own kind and an apostrophe inside a word never opens one; the pilot term allowlist is
an argument (`car_allowlist`, default `ASSETOPSBENCH_CAR_TERMS`, so the derived terms match
upstream), not built in; a gold with several keys gives the terms of the value under the mode key
(upstream: its first value, which is also what a gold without the mode key gives here); a gold
that is only "yes" or "no" requires that word (upstream derives yes/no only from text that goes on
after it, so `{"response": "No"}` passed any response). Identifiers are found in linear time
(`_identifiers`).
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping, Sequence
from typing import Any

from .._phrases import phrases_found
from ..errors import StaticJsonError
from .leaves import escape_key, similarity_score
from .static_score import KeyComparison, StaticJsonScore, f1_of, safe_ratio

logger = logging.getLogger(__name__)

__all__ = ["ASSETOPSBENCH_CAR_TERMS", "CAR_MODES", "score_car"]

CAR_MODES = ("response", "clarification", "abstain")
#: The term allowlist AssetOpsBench 676de30 hard-codes for its pilot CAR scenarios; pass it as
#: `car_allowlist=` to reproduce that scorer's derived required terms.
ASSETOPSBENCH_CAR_TERMS: tuple[str, ...] = (
    "air conditioner",
    "cannot determine",
    "date",
    "dataset",
    "exhaust leak",
    "handrail",
    "lately",
    "main unit",
    "pressure vessel",
    "pump",
    "steering",
    "tag",
    "time",
    "unreliable",
    "usual suspect",
)
#: The `groundtruth_eval.json` keys CAR mode reads; others are ignored (as upstream), with a debug log.
_METADATA_KEYS = frozenset(
    {"mode", "required_terms", "optional_terms", "must_have_exactly_one_mode_key", "required_term_coverage"}
)
_STOPWORDS = frozenset(
    "a an and are as because by do does for has have is it of or the this to what which why with you".split()
)
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_QUOTED = (
    re.compile(r'"([^"\n]{2,80})"'),
    re.compile(r"\u201c([^\u201d\n]{2,80})\u201d"),
    re.compile(r"\u2018([^\u2019\n]{2,80})\u2019"),
    re.compile(r"(?<![A-Za-z0-9])'([^'\n]{2,80})'(?![A-Za-z0-9])"),
)
# Maximal runs of the characters an identifier (PMP42144, FC-101) is made of; see `_identifiers`.
_IDENTIFIER_RUN = re.compile(r"[A-Z0-9-]+")


def _normalise_text(value: Any) -> str:
    """Lower-case, non-alphanumerics to single spaces; dicts and lists as sorted JSON first."""
    if isinstance(value, (dict, list)):
        value = json.dumps(value, sort_keys=True, ensure_ascii=False)
    return " ".join(_NON_ALNUM.sub(" ", str(value).lower()).split())


def _dedupe_terms(terms: Sequence[Any]) -> list[str]:
    """Normalised terms, first-seen order, without stopwords, empties or repeats; linear in their length."""
    out: dict[str, None] = {}
    for term in terms:
        words = _normalise_text(term).split()
        if words and words[0] in ("a", "an", "the"):
            words = words[1:]
        text = " ".join(words)
        if text and text not in _STOPWORDS:
            out.setdefault(text)
    return list(out)


def _identifiers(text: str) -> list[str]:
    """Upstream's identifiers (`\\b[A-Z]{2,}[A-Z0-9-]*[0-9]+[A-Z0-9-]*\\b`, ASCII digits), in one pass.

    That pattern nests quantifiers over the same characters and takes cubic time on a run of
    capitals. Here each maximal run of `[A-Z0-9-]` yields at most one identifier: from the first
    word boundary holding two capitals to the last word boundary of the run, when an ASCII digit
    lies between the two capitals and that end. Same matches, linear time.
    """
    found: list[str] = []
    for run in _IDENTIFIER_RUN.finditer(text):
        start, end = run.span()
        boundaries = [end] if _word(text, end - 1) != _word(text, end) else []
        boundaries += [i for i in range(start + 1, end) if (text[i - 1] == "-") != (text[i] == "-")]
        last = max(boundaries, default=-1)
        for at in range(start, end - 2):
            boundary = (at == start and not _word(text, at - 1)) or (at > start and text[at - 1] == "-")
            if boundary and text[at].isalpha() and text[at + 1].isalpha():
                digit = next((i for i in range(at + 2, end) if text[i].isdigit()), -1)
                if 0 <= digit < last:
                    found.append(text[at:last])
                break
    return found


def _word(text: str, index: int) -> bool:
    """Whether `text[index]` is a regex word character (`\\w`); False outside the text."""
    if index < 0 or index >= len(text):
        return False
    char = text[index]
    return char.isalnum() or char == "_"


def _derived_terms(gold_value: Any, allowlist: Sequence[str]) -> list[str]:
    """Required terms read off the gold text: quoted phrases, identifiers, allowlisted terms, yes/no."""
    text = gold_value if isinstance(gold_value, str) else json.dumps(gold_value, sort_keys=True, ensure_ascii=False)
    terms: list[str] = []
    for pattern in _QUOTED:
        for match in pattern.finditer(text):
            phrase = match.group(1).strip()
            if not (2 <= len(phrase) <= 4 and phrase.isalpha() and phrase.isupper()):
                terms.append(phrase)
    terms += _identifiers(text)
    padded = f" {_normalise_text(text)} "
    terms += [term for term in allowlist if f" {_normalise_text(term)} " in padded]
    if padded.startswith((" no ", " yes ")):
        terms.append(padded.split()[0])
    return _dedupe_terms(terms)


def _term_list(meta: Mapping[str, Any], key: str, default: list[str]) -> list[str]:
    """A term list from metadata: a str is one term, None none, list items are read as text (as upstream)."""
    if key not in meta:
        return default
    value = meta[key]
    if value is None:
        return []
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise StaticJsonError(
            f"evaluation metadata {key} must be a list of terms; got {value!r}. Fix groundtruth_eval.json"
        )
    return _dedupe_terms([str(item) for item in value])


def score_car(
    gold_value: Any,
    model_value: Any,
    meta: dict[str, Any],
    allowlist: Sequence[str],
    gold_read_as: str,
    model_read_as: str,
) -> StaticJsonScore:
    """Clarification / abstain / response scoring: the mode key, then required-term coverage.

    Pass: the mode key matches (alone, unless `must_have_exactly_one_mode_key` is false) and
    the required-term coverage reaches `required_term_coverage` (default: one term; no
    required terms counts as covered). `car_score = 0.6 * mode_key_match + 0.4 * coverage`.

    Raises:
        StaticJsonError: If the metadata's `mode`, term lists or `required_term_coverage` are
            invalid, or the gold is not a non-empty dict.
    """
    unknown = sorted(str(key) for key in set(meta) - _METADATA_KEYS)
    if unknown:
        logger.debug("keys=<%s> | ignored evaluation metadata keys", ", ".join(unknown))
    if meta and str(meta.get("mode", "")).strip().lower() not in CAR_MODES:
        raise StaticJsonError(
            f"evaluation metadata mode must be one of {', '.join(CAR_MODES)}; got {meta.get('mode')!r}. "
            "Fix groundtruth_eval.json, or delete it to score the answer as plain structure"
        )
    if not isinstance(gold_value, Mapping) or not gold_value:
        raise StaticJsonError(
            f"a CAR ground truth must be a JSON object with the mode as its key; got {gold_value!r}. "
            'Write groundtruth.txt as {"clarification": "..."}'
        )
    gold_key = str(meta.get("mode") or next(iter(gold_value))).strip().lower()
    # The terms come from the value under the mode key; a gold without that key gives its first value's, as
    # upstream (which always reads the first value: `{"abstain": ...}` with mode `clarification` keeps its terms).
    gold_text = next(
        (v for k, v in gold_value.items() if str(k).strip().lower() == gold_key), next(iter(gold_value.values()))
    )
    required = _term_list(meta, "required_terms", _derived_terms(gold_text, allowlist))
    optional = _term_list(meta, "optional_terms", [])
    must_have = bool(meta.get("must_have_exactly_one_mode_key", True))
    needed = meta.get("required_term_coverage")
    if needed is not None and (isinstance(needed, bool) or not isinstance(needed, (int, float)) or not 0 < needed <= 1):
        raise StaticJsonError(f"evaluation metadata required_term_coverage must be in (0, 1]; got {needed!r}")

    if isinstance(model_value, Mapping):
        keyed = [(str(key).strip().lower(), item) for key, item in model_value.items()]
    else:
        keyed = []
    model_keys = [key for key, _ in keyed]
    exactly_one = len(keyed) == 1
    if must_have:
        key_match = exactly_one and model_keys[0] == gold_key
    else:
        key_match = gold_key in model_keys
    if key_match:
        model_text_value = next(item for key, item in keyed if key == gold_key)
        model_key = gold_key
    elif exactly_one:
        model_key, model_text_value = keyed[0]
    else:
        model_key, model_text_value = "INVALID", ""
    words = _normalise_text(model_text_value).split()
    hits = phrases_found([term.split() for term in required + optional], words)  # one pass for all terms
    matched = [term for index, term in enumerate(required) if index in hits]
    matched_optional = [term for index, term in enumerate(optional) if len(required) + index in hits]
    coverage = safe_ratio(len(matched), len(required)) if required else 1.0
    optional_coverage = safe_ratio(len(matched_optional), len(optional)) if optional else None
    terms_ok = (coverage >= needed) if needed is not None else (bool(matched) or not required)
    passed = key_match and terms_ok and (exactly_one or not must_have)

    if isinstance(model_value, Mapping):
        extra = [f"answer.{key}" for key in model_keys if key != gold_key or (must_have and not exactly_one)]
    else:
        extra = ["answer"] if model_value is not None else []
    total_gold = 1 + len(required)
    total_model = 1 + len(required) + len(extra)
    exact_count = int(key_match) + len(matched)
    precision = safe_ratio(exact_count, max(total_model, total_gold))
    recall = safe_ratio(exact_count, total_gold)
    mode_similarity = 1.0 if key_match else similarity_score(gold_key, model_key)
    details = [
        KeyComparison(
            "answer.mode",
            gold_key,
            model_key,
            key_match,
            "exact" if key_match else "mode_mismatch",
            mode_similarity,
            key_match,
        )
    ]
    matched_set, matched_optional_set = set(matched), set(matched_optional)
    for kind, terms, found in (("required", required, matched_set), ("optional", optional, matched_optional_set)):
        status = "term" if kind == "required" else "optional_term"
        for term in terms:
            hit = term in found
            details.append(
                KeyComparison(
                    f"answer.{kind}_term.{escape_key(term)}",
                    term,
                    term if hit else "MISSING",
                    hit,
                    f"{status}_present" if hit else f"{status}_missing",
                    1.0 if hit else 0.0,
                    hit,
                )
            )
    car_score = 0.6 * float(key_match) + 0.4 * coverage
    logger.debug("mode=<%s>, key_match=<%s>, coverage=<%.3f> | scored car answer", gold_key, key_match, coverage)
    return StaticJsonScore(
        passed=passed,
        score=round(car_score, 3),
        partial_match_accuracy=recall,
        partial_exact_match_accuracy=recall,
        strict_exact_match_accuracy=1.0 if passed else 0.0,
        partial_similarity_score=safe_ratio(sum(d.similarity for d in details[: 1 + len(required)]), total_gold),
        partial_numeric_match_accuracy=0.0,
        range_match_accuracy=0.0,
        delta_1_match_accuracy=0.0,
        precision=precision,
        recall=recall,
        f1=f1_of(precision, recall),
        total_gold_keys=total_gold,
        total_model_keys=total_model,
        matched_keys=int(key_match),
        accepted_value_matches=exact_count,
        exact_value_matches=exact_count,
        numeric_gold_keys=0,
        numeric_value_matches=0,
        range_eligible_keys=0,
        range_value_matches=0,
        delta_1_eligible_keys=0,
        delta_1_value_matches=0,
        missing_keys=[] if key_match else [f"answer.{gold_key}"],
        extra_keys=extra,
        details=details,
        gold_read_as=gold_read_as,
        model_read_as=model_read_as,
        mode_key_match=float(key_match),
        mode_exactly_one_key=float(exactly_one),
        mode_required_terms=required,
        mode_matched_terms=matched,
        mode_term_coverage=coverage,
        mode_optional_terms=optional,
        mode_matched_optional_terms=matched_optional,
        mode_optional_term_coverage=optional_coverage,
        car_score=car_score,
    )
