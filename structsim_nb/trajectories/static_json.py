"""The `static_json` scorer: AssetOpsBench's deterministic structured-answer score, without its bugs.

`evaluate_static_json(gold, model)` reads both sides with `answers.parse_answer`, flattens each
into keyed leaves (`answer.energy`, `answer.items[0].name`), normalises the leaves and compares
them key by key. `StaticJsonEvaluator` is the same scorer as a Strands Evals evaluator.

General mode (any structure, scalar or count):

- `strict_exact_match_accuracy` is 1.0 only when the flattened gold and model are equal;
  that is the pass rule. `score` is `f1`, rounded to 3 places.
- `partial_exact_match_accuracy` = exact matches / gold keys = `recall`.
- `partial_similarity_score` = mean over gold keys of `similarity_score` (missing keys 0).
- `precision` = exact matches / max(model keys, gold keys), so leaving a key out never beats
  answering it wrongly; `f1` is their harmonic mean. A zero denominator gives 0.0.

CAR mode (clarification / abstain / response) is used when `evaluation_metadata` names a
`mode`, or when the gold is a dict with one key that is a mode name; see `_car`.

Multiple choice: when the gold is a single letter, the letter the model chose is extracted
first (`Answer: B`, `(C)`, a last line `B.`); see `extract_choice`.

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

import ast
import json
import logging
import math
import re
import sys
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from strands_evals.evaluators.evaluator import Evaluator
from strands_evals.types.evaluation import NOT_APPLICABLE, EvaluationData, EvaluationOutput

from .._phrases import phrases_found
from ..answers import MAX_DEPTH, parse_answer, strip_think
from ..errors import StaticJsonError

logger = logging.getLogger(__name__)

__all__ = [
    "ASSETOPSBENCH_CAR_TERMS",
    "CAR_MODES",
    "KeyComparison",
    "StaticJsonEvaluator",
    "StaticJsonScore",
    "evaluate_static_json",
    "flatten_answer",
    "normalize_value",
    "extract_choice",
    "read_answer",
    "similarity_score",
]

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
#: The `groundtruth_eval.json` keys general mode reads (metadata without `mode`).
_GENERAL_METADATA_KEYS = frozenset({"measure_keys"})
#: Most containers a value passed as a Python object may hold (shared references could repeat one forever).
_MAX_VALUES = 5_000_000
_STOPWORDS = frozenset(
    "a an and are as because by do does for has have is it of or the this to what which why with you".split()
)
_NUMBER_LEAF = re.compile(r"-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NUM = r"(-?\d+(?:\.\d+)?)"
_RANGE_FULL = re.compile(rf"\s*{_NUM}\s*(?:-|\.\.|to|through|,|\u2013|\u2014)\s*{_NUM}\s*")
_RANGE_BETWEEN = re.compile(rf"\bbetween\s+{_NUM}\s+and\s+{_NUM}(?![\d.])")
_RANGE_BOUNDS = re.compile(
    rf"\b(?:min|minimum|lower|start)\s*[:=]\s*{_NUM}[^:=]{{0,80}}?\b(?:max|maximum|upper|end)\s*[:=]\s*{_NUM}"
)
_RANGE_PAIRS = (
    ("start_point", "end_point"),
    ("start", "end"),
    ("start_time", "end_time"),
    ("start_timestamp", "end_timestamp"),
    ("min", "max"),
    ("minimum", "maximum"),
    ("lower", "upper"),
    ("lower_bound", "upper_bound"),
    ("range_start", "range_end"),
)
_LETTER = re.compile(r"[A-Za-z]")
# The choice patterns have one way to match any text (whitespace is read by one quantifier at a
# time), so each search is linear in the line it reads.
_CHOICE_MARKERS = r"(?:final answer|answer|option|choice)"
_CHOICE_FULL = re.compile(rf"\s*(?:{_CHOICE_MARKERS}\s*(?:(?:is|:)\s*)?)?[(\[]?([A-Za-z])[)\].:]?\s*", re.I)
_CHOICE_PHRASE = re.compile(rf"{_CHOICE_MARKERS}\s*(?:(?:is|:)\s*)?[(\[]?([A-Za-z])[)\].:]?\s*$", re.I)
_CHOICE_TRAILING = re.compile(r"(?:^|[\s,;:])(?:[(\[]([A-Za-z])[)\]][.:]?|([A-Z])[.:]?)\s*$")
# A marker at the start of the text or after whitespace (never inside a word).
_CHOICE_PREFIX = re.compile(r"(?<!\S)(?:<answer>|(?:final answer|answer|output|result|response)\s*:)", re.I)
_FENCE_TAG = re.compile(r"[A-Za-z0-9_+.-]*[ \t]*")
_NON_ALNUM = re.compile(r"[^a-z0-9]+")
_QUOTED = (
    re.compile(r'"([^"\n]{2,80})"'),
    re.compile(r"\u201c([^\u201d\n]{2,80})\u201d"),
    re.compile(r"\u2018([^\u2019\n]{2,80})\u2019"),
    re.compile(r"(?<![A-Za-z0-9])'([^'\n]{2,80})'(?![A-Za-z0-9])"),
)
# Maximal runs of the characters an identifier (PMP42144, FC-101) is made of; see `_identifiers`.
_IDENTIFIER_RUN = re.compile(r"[A-Z0-9-]+")


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


def read_answer(value: Any) -> tuple[Any, str]:
    """One side as a value to flatten, and how it was read.

    A non-string is returned as is (`value`). A string goes through `parse_answer`: its value
    and form when something was found. Else, a whole text that is a JSON or Python scalar
    literal (`null`, `true`, `None`, `"Pump 3"`, `'Pump 3'`) is that value (`literal`), as
    upstream reads it; otherwise the stripped text is one scalar (`text`).
    """
    if not isinstance(value, str):
        return value, "value"
    parsed = parse_answer(value)
    if parsed.found:
        return parsed.value, parsed.form
    text = strip_think(value)
    if text in ("null", "true", "false", "None", "True", "False") or _is_quoted(text):  # both readers are linear
        try:
            return json.loads(text), "literal"
        except ValueError:
            pass
        try:
            literal = ast.literal_eval(text)  # only str, bool or None literals reach here
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            literal = text
        if isinstance(literal, str) or literal is None or isinstance(literal, bool):
            return literal, "literal"
    return text, "text"


def _is_quoted(text: str) -> bool:
    return len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'" and text.count(text[0]) == 2


def extract_choice(answer: str) -> str | None:
    """The multiple-choice letter an answer gives, upper-cased, or None.

    Read from the text after the last answer marker (`Final Answer:`, `Answer:`, `Output:`,
    `<answer>`...), inside a surrounding fence if any, with `<think>` blocks removed:

    1. the whole text is a letter, optionally after `answer`/`option`/`choice` (with `is` or
       `:`) and in brackets or followed by `.`/`:` (`B`, `(c)`, `Answer: b`, `Option D.`);
    2. else the last non-empty line, by the same rule; then a phrase ending the line
       (`... the answer is C`); then a trailing letter that is bracketed (`... (c)`) or
       upper-case (`I pick B.`).

    Unlike AssetOpsBench, a bare trailing lower-case letter is not read, so the article in
    "the best pick is a" is not answer A. A marker counts at the start of the text or after
    whitespace. Linear in the answer: no pattern here can re-read a run of whitespace.

    Examples:
        >>> extract_choice("Thinking it over, the answer is (c)."), extract_choice("the best pick is a")
        ('C', None)
    """
    text = strip_think(answer)
    markers = deque(_CHOICE_PREFIX.finditer(text), maxlen=1)  # the last one
    marker = markers[0] if markers else None
    if marker is not None:
        text = text[marker.end() :].replace("</answer>", " ").strip()
    text = _unfence(text)
    whole = _CHOICE_FULL.fullmatch(text)
    if whole is not None:
        return whole.group(1).upper()
    last = next((line for line in reversed(text.splitlines()) if line.strip()), None)
    if last is None:
        return None
    for pattern in (_CHOICE_FULL.fullmatch, _CHOICE_PHRASE.search, _CHOICE_TRAILING.search):
        found = pattern(last)
        if found is not None:
            letter = next(group for group in found.groups() if group)
            return letter.upper()
    return None


def _unfence(text: str) -> str:
    """The content of `text` when it is one fenced block (an optional language tag on the opening line)."""
    if len(text) < 6 or not (text.startswith("```") and text.endswith("```")):
        return text
    body_start = 3
    newline = text.find("\n", 3, len(text) - 3)
    if newline >= 0 and _FENCE_TAG.fullmatch(text, 3, newline):
        body_start = newline + 1
    return text[body_start : len(text) - 3].strip()


def normalize_value(value: Any) -> str:
    """A leaf as the string leaves are compared by.

    bool -> `true`/`false`; None -> `none`; float -> 6 decimals with trailing zeros dropped
    (`14.0` -> `14`); int -> `str`. A string is stripped and lower-cased, except one that is
    wholly a number (`" 14 "` -> `14`, so `"14"` equals `14`) or `true`/`false`/`null`/`None`.
    Nothing else in a string is interpreted.

    Examples:
        >>> normalize_value(14.0), normalize_value(" Pump 3 "), normalize_value("3.50")
        ('14', 'pump 3', '3.5')
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".")
    if isinstance(value, int):
        try:
            return str(value)
        except ValueError:  # over Python's integer-to-text digit limit
            raise StaticJsonError(
                f"a number must have at most {sys.get_int_max_str_digits():,} digits to be compared; got one of "
                f"about {int(value.bit_length() * 0.30103):,}. Pass it as text"
            ) from None
    text = str(value).strip()
    if _NUMBER_LEAF.fullmatch(text):
        if "." in text or "e" in text.lower():
            return normalize_value(float(text))
        try:
            return str(int(text))
        except ValueError:  # more digits than Python converts: the digits themselves, without leading zeros
            digits = text.lstrip("-").lstrip("0") or "0"
            return f"-{digits}" if text.startswith("-") and digits != "0" else digits
    lower = text.lower()
    if lower in ("null", "none"):
        return "none"
    return lower


def _escape(key: Any) -> str:
    text = str(key)
    return text.replace("\\", "\\\\").replace(".", "\\.").replace("[", "\\[").replace("]", "\\]")


def flatten_answer(value: Any, prefix: str = "answer") -> dict[str, str]:
    """Flatten a structure (or a text answer, read with `read_answer`) into normalised leaves.

    A dict item becomes `prefix.key` (key escaped, see the module docstring), a list or tuple
    item `prefix[i]`, a scalar `{prefix: normalize_value(scalar)}`. Empty containers give `{}`.

    Raises:
        StaticJsonError: If the value nests deeper than 100 levels.

    Examples:
        >>> flatten_answer({"a": {"b": 2}, "c": [3, {"d": 4}], "e.f": 1})
        {'answer.a.b': '2', 'answer.c[0]': '3', 'answer.c[1].d': '4', 'answer.e\\\\.f': '1'}
    """
    if isinstance(value, str):
        value, _ = read_answer(value)
    flat: dict[str, str] = {}
    _flatten(value, prefix, flat, 0)
    return flat


def _flatten(
    value: Any, path: str, flat: dict[str, str], depth: int, names: dict[str, tuple[str, str]] | None = None
) -> None:
    """Flatten into `flat`; with `names`, record each dict leaf's `(parent path, key)` too."""
    if depth > MAX_DEPTH:
        raise StaticJsonError(
            f"an answer must nest at most {MAX_DEPTH} levels; {path} goes deeper. Flatten the answer or score it "
            "with another scorer"
        )
    if isinstance(value, Mapping):
        for key, item in value.items():
            child = f"{path}.{_escape(key)}"
            if names is not None:
                names[child] = (path, str(key))
            _flatten(item, child, flat, depth + 1, names)
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            _flatten(item, f"{path}[{index}]", flat, depth + 1, names)
    else:
        flat[path] = normalize_value(value)


def similarity_score(gold: str, model: str) -> float:
    """Closeness of two normalised leaves in [0, 1], as AssetOpsBench computes it.

    Equal -> 1.0. Two numbers: relative error under 1% -> 0.9, 5% -> 0.7, 10% -> 0.5, else 0.0
    (a zero gold scores 1.0 only for a zero model). Otherwise character-set Jaccard, raised to
    0.6 when one string contains the other; two empty strings -> 1.0.
    """
    if gold == model:
        return 1.0
    try:
        g, m = float(gold), float(model)
    except ValueError:
        pass
    else:
        if g != g or m != m or abs(g) == float("inf") or abs(m) == float("inf"):
            return 0.0
        if g == 0:
            return 1.0 if m == 0 else 0.0
        relative = abs(g - m) / abs(g)
        for bound, score in ((0.01, 0.9), (0.05, 0.7), (0.10, 0.5)):
            if relative < bound:
                return score
        return 0.0
    gold_chars, model_chars = set(gold), set(model)
    union = gold_chars | model_chars
    if not union:
        return 1.0
    jaccard = len(gold_chars & model_chars) / len(union)
    if gold and model and (gold in model or model in gold):
        jaccard = max(jaccard, 0.6)
    return jaccard


def _ratio(numerator: float, denominator: float) -> float:
    return numerator / denominator if denominator else 0.0


def _f1(precision: float, recall: float) -> float:
    return _ratio(2 * precision * recall, precision + recall)


def _finite(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _gold_range(text: str) -> tuple[float, float] | None:
    """A range written in a gold leaf (`10-20`, `10 to 20`, `between 10 and 20`, `min: 10 ... max: 20`)."""
    match = _RANGE_FULL.fullmatch(text) or _RANGE_BETWEEN.search(text) or _RANGE_BOUNDS.search(text)
    if match is None:
        return None
    low, high = sorted((float(match.group(1)), float(match.group(2))))
    return low, high


def _context_ranges(gold_flat: dict[str, str], names: dict[str, tuple[str, str]]) -> dict[str, tuple[float, float]]:
    """Ranges from sibling pairs (`start`/`end`, `min`/`max`, ...) whose two gold values are numbers."""
    by_parent: dict[tuple[str, str], str] = {(parent, key): path for path, (parent, key) in names.items()}
    ranges: dict[str, tuple[float, float]] = {}
    for (parent, key), path in by_parent.items():
        for low_name, high_name in _RANGE_PAIRS:
            if key != low_name or (parent, high_name) not in by_parent:
                continue
            other = by_parent[(parent, high_name)]
            if path not in gold_flat or other not in gold_flat:
                continue
            low, high = _finite(gold_flat[path]), _finite(gold_flat[other])
            if low is not None and high is not None:
                ranges[path] = ranges[other] = (min(low, high), max(low, high))
    return ranges


def _compare(
    key: str, g: str, m: str, threshold: float, tolerant: bool, context: tuple[float, float] | None
) -> KeyComparison:
    """One common key, upstream's rules: exact, then delta +/-1, then range, then similarity."""
    exact = g == m
    gold_number = _finite(g) if tolerant else None
    model_number = _finite(m)
    value_range = (context or _gold_range(g)) if tolerant else None
    numeric = gold_number is not None or value_range is not None
    delta_1 = abs(model_number - gold_number) <= 1 if gold_number is not None and model_number is not None else None
    in_range = value_range[0] <= model_number <= value_range[1] if value_range and model_number is not None else None
    numeric_match = numeric and (exact or bool(in_range) or bool(delta_1))
    similarity = similarity_score(g, m)
    if exact:
        match_type, similarity = "exact", 1.0
    elif delta_1:
        match_type, similarity = "partial_delta_1", 1.0
    elif in_range:
        match_type, similarity = "partial_range", 1.0
    elif similarity > threshold:
        match_type = f"partial ({similarity:.2f})"
    else:
        match_type = "mismatch"
    return KeyComparison(key, g, m, exact, match_type, similarity, exact or numeric_match, numeric, in_range, delta_1)


def _check_nesting(value: Any, side: str) -> None:
    """Refuse a value nested deeper than `MAX_DEPTH`, holding itself, or of more than `_MAX_VALUES` values.

    Checked before anything recurses into the value (a Python caller may pass any object; text
    never parses to such values). One iterative pass, linear in the values visited.

    Raises:
        StaticJsonError: Naming the side and what was wrong.
    """
    if not isinstance(value, (Mapping, list, tuple)):
        return
    on_path: set[int] = set()
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    visited = 0
    while stack:
        item, depth, leaving = stack.pop()
        if leaving:
            on_path.discard(id(item))
            continue
        visited += 1
        if depth > MAX_DEPTH:
            raise StaticJsonError(
                f"the {side} must nest at most {MAX_DEPTH} levels; it goes deeper. Flatten it or score it with "
                "another scorer"
            )
        if id(item) in on_path:
            raise StaticJsonError(f"the {side} must be a tree of values; it contains itself (a reference cycle)")
        if visited > _MAX_VALUES:
            raise StaticJsonError(f"the {side} must hold at most {_MAX_VALUES:,} values; it holds more")
        on_path.add(id(item))
        stack.append((item, depth, True))
        children = item.values() if isinstance(item, Mapping) else item
        stack.extend((child, depth + 1, False) for child in children if isinstance(child, (Mapping, list, tuple)))


def _measure_keys(value: Any) -> frozenset[str] | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, (list, tuple, set, frozenset)) or not all(isinstance(item, str) for item in value):
        raise StaticJsonError(
            f"measure_keys must be a list of flattened key paths such as 'answer.count'; got {value!r}"
        )
    return frozenset(value)


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
    _check_nesting(gold_value, "ground truth")
    if gold_read_as == "text" and gold_value[:1] in ("{", "["):
        raise StaticJsonError(
            f"the ground truth must parse as a structure; it starts with {gold_value[:1]!r} but does not parse "
            f"({parse_answer(gold).message}). Fix groundtruth.txt"
        )
    model_value, model_read_as = read_answer(model)
    _check_nesting(model_value, "answer")
    meta = dict(evaluation_metadata or {})
    if meta and "mode" not in meta and set(meta) <= _GENERAL_METADATA_KEYS:
        if measure_keys is None:
            measure_keys = meta.get("measure_keys")
        meta = {}
    if meta:
        return _car(gold_value, model_value, meta, car_allowlist, gold_read_as, model_read_as)
    if isinstance(gold_value, Mapping) and len(gold_value) == 1:
        (only,) = gold_value
        if str(only).strip().lower() in CAR_MODES:
            return _car(gold_value, model_value, {}, car_allowlist, gold_read_as, model_read_as)
    measures = _measure_keys(measure_keys)
    if isinstance(gold_value, str) and _LETTER.fullmatch(gold_value) and isinstance(model, str):
        letter = extract_choice(model)
        if letter is not None:
            model_value, model_read_as = letter, "choice"

    names: dict[str, tuple[str, str]] = {}
    gold_flat: dict[str, str] = {}
    if isinstance(gold_value, str):
        gold_flat["answer"] = normalize_value(gold_value)
    else:
        _flatten(gold_value, "answer", gold_flat, 0, names)
    if not gold_flat:
        raise StaticJsonError(
            f"the ground truth must have at least one value to compare; {gold_value!r} flattens to no keys, so "
            "every metric would be undefined. Give the scenario a non-empty ground truth"
        )
    model_flat = (
        flatten_answer(model_value) if not isinstance(model_value, str) else {"answer": normalize_value(model_value)}
    )
    context = _context_ranges(gold_flat, names)
    common = sorted(gold_flat.keys() & model_flat.keys())
    missing = sorted(gold_flat.keys() - model_flat.keys())
    extra = sorted(model_flat.keys() - gold_flat.keys())
    details = [
        _compare(
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
    precision = _ratio(exact_count, max(total_model, total_gold))
    recall = _ratio(exact_count, total_gold)
    f1 = _f1(precision, recall)
    strict = 1.0 if gold_flat == model_flat else 0.0
    logger.debug("gold_keys=<%d>, exact=<%d>, strict=<%s> | scored static json", total_gold, exact_count, strict)
    return StaticJsonScore(
        passed=strict == 1.0,
        score=round(f1, 3),
        partial_match_accuracy=_ratio(accepted_count, total_gold),
        partial_exact_match_accuracy=recall,
        strict_exact_match_accuracy=strict,
        partial_similarity_score=_ratio(similarity_total, total_gold),
        partial_numeric_match_accuracy=_ratio(numeric_matches, numeric_keys),
        range_match_accuracy=_ratio(range_matches, range_eligible),
        delta_1_match_accuracy=_ratio(delta_matches, delta_eligible),
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


def _car(
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
    gold_text = next((v for k, v in gold_value.items() if str(k).strip().lower() == gold_key), "")
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
    coverage = _ratio(len(matched), len(required)) if required else 1.0
    optional_coverage = _ratio(len(matched_optional), len(optional)) if optional else None
    terms_ok = (coverage >= needed) if needed is not None else (bool(matched) or not required)
    passed = key_match and terms_ok and (exactly_one or not must_have)

    if isinstance(model_value, Mapping):
        extra = [f"answer.{key}" for key in model_keys if key != gold_key or (must_have and not exactly_one)]
    else:
        extra = ["answer"] if model_value is not None else []
    total_gold = 1 + len(required)
    total_model = 1 + len(required) + len(extra)
    exact_count = int(key_match) + len(matched)
    precision = _ratio(exact_count, max(total_model, total_gold))
    recall = _ratio(exact_count, total_gold)
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
    for term in required:
        hit = term in matched_set
        details.append(
            KeyComparison(
                f"answer.required_term.{_escape(term)}",
                term,
                term if hit else "MISSING",
                hit,
                "term_present" if hit else "term_missing",
                1.0 if hit else 0.0,
                hit,
            )
        )
    for term in optional:
        hit = term in matched_optional_set
        details.append(
            KeyComparison(
                f"answer.optional_term.{_escape(term)}",
                term,
                term if hit else "MISSING",
                hit,
                "optional_term_present" if hit else "optional_term_missing",
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
        partial_similarity_score=_ratio(sum(d.similarity for d in details[: 1 + len(required)]), total_gold),
        partial_numeric_match_accuracy=0.0,
        range_match_accuracy=0.0,
        delta_1_match_accuracy=0.0,
        precision=precision,
        recall=recall,
        f1=_f1(precision, recall),
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


class StaticJsonEvaluator(Evaluator[Any, Any]):
    """`evaluate_static_json` as a Strands Evals evaluator: one row per case.

    The row's `score` is `StaticJsonScore.score`, `test_pass` its `passed`, `reason` the
    `rationale`, `label` `static_json`, and `metadata` the score's `to_dict()`. A case
    without `expected_output` is not applicable (score 0.0, passes), as in the upstream
    evaluators. A case the scorer refuses (`StaticJsonError`) scores 0.0, fails, and carries
    `metadata={"error": "unscorable"}` with the reason.

    Args:
        similarity_threshold: See `evaluate_static_json`. Default 0.0.
        evaluation_metadata: CAR metadata for every case. Default None: each case's
            `metadata["evaluation_metadata"]` is used when present.
        car_allowlist: See `evaluate_static_json`. Default `ASSETOPSBENCH_CAR_TERMS`.
        name: Evaluator name. Default None (the class name).

    Examples:
        >>> row, = StaticJsonEvaluator().evaluate(EvaluationData(
        ...     input="", actual_output='Final Answer: {"a": 1}', expected_output="{'a': 1}"))
        >>> row.test_pass, row.metadata["model_read_as"]
        (True, 'prefixed')
    """

    def __init__(
        self,
        *,
        similarity_threshold: float = 0.0,
        evaluation_metadata: Mapping[str, Any] | None = None,
        car_allowlist: Sequence[str] = ASSETOPSBENCH_CAR_TERMS,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.similarity_threshold = similarity_threshold
        self.evaluation_metadata = dict(evaluation_metadata) if evaluation_metadata else None
        self.car_allowlist = tuple(car_allowlist)

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case; see the class docstring for the row."""
        if evaluation_case.expected_output is None:
            return [
                EvaluationOutput(
                    score=0.0,
                    test_pass=True,
                    reason="expected_output is None, so there was no ground truth to compare against",
                    label=NOT_APPLICABLE,
                )
            ]
        meta = self.evaluation_metadata
        if meta is None and isinstance(evaluation_case.metadata, Mapping):
            meta = evaluation_case.metadata.get("evaluation_metadata")
        try:
            score = evaluate_static_json(
                evaluation_case.expected_output,
                evaluation_case.actual_output,
                similarity_threshold=self.similarity_threshold,
                evaluation_metadata=meta,
                car_allowlist=self.car_allowlist,
            )
        except StaticJsonError as exc:
            return [
                EvaluationOutput(
                    score=0.0, test_pass=False, reason=str(exc), label="static_json", metadata={"error": "unscorable"}
                )
            ]
        return [
            EvaluationOutput(
                score=score.score,
                test_pass=score.passed,
                reason=rationale(score),
                label="static_json",
                metadata=score.to_dict(),
            )
        ]

    async def evaluate_async(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """`evaluate`, which never blocks on I/O."""
        return self.evaluate(evaluation_case)
