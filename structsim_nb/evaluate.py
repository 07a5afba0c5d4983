"""The field-level evaluator: the upstream `StructuredOutputSimilarity`, plus the non-matches.

Everything the Strands Evals evaluator does is inherited unchanged: `model_cls` as a class or
dotted path, `match_threshold` (0.7), `weight_hints` (False), `name`, the `test_pass` rule,
the `reason` naming the weakest fields, the score-0.0 row when a side does not validate,
not-applicable when there is no ground truth, and `explain()`.

What this module adds is the part a reader needs to fix an extractor: every row also carries
`metadata["non_matches"]`, one record per field path that was not a true positive or a true
negative, with what the right value was. stickler's comparison internals are read here (the
result's shape) and in `structsim_nb.engine` (the comparison itself, each list matched once and
vectorised where it can); `structsim_nb.lenient` builds the engine's instances for a side read
leniently.

Two readings the upstream evaluator does not do, both visible on the row:

- A text side is read by `parse_answer` (fenced, embedded, after `Final Answer:`, a truncated
  answer repaired); `metadata["read_as"]` says how, and a repaired side is named in the reason
  with what was repaired (`metadata["repairs"]`).
- A side that does not validate as the model is read leniently (`structsim_nb.lenient`): one odd
  value costs that field, not the document. Each such value is a note in `metadata["reading"]`,
  in the reason, and on the non-match records at its path. `strict=True` restores the upstream
  reading (the whole side fails and the row scores 0.0 as unreadable).
"""

from __future__ import annotations

import contextvars
import enum
import json
import logging
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, ValidationError
from strands.agent.agent_result import AgentResult

from . import lenient
from ._heap import young_collections_only
from .answers import parse_answer
from .errors import StructsimError

logger = logging.getLogger(__name__)

__all__ = ["KINDS", "StructuredOutputSimilarity", "importable", "non_match_records"]

_INSTALL = 'pip install "strands-agents-evals[stickler]>=1.7"'

try:
    # Hard dependencies, but the evaluator is what users reach first, so a broken install
    # names the command that fixes it instead of a bare ModuleNotFoundError. stickler itself
    # loads when the first evaluator is built, as upstream loads it, so importing the package
    # (and `structsim-nb --help`) does not pay for the engine.
    from strands_evals.evaluators.deterministic.structured_output import (
        StructuredOutputSimilarity as _UpstreamSimilarity,
    )
    from strands_evals.types.evaluation import EvaluationData, EvaluationOutput
except ImportError as exc:  # pragma: no cover - exercised by test_missing_engine_names_install
    raise ImportError(
        f"structsim_nb needs the Strands Evals harness with the stickler engine; got: {exc}. "
        f"Install it with: {_INSTALL}"
    ) from exc

if TYPE_CHECKING:
    from stickler.auto.facade import EvalSpec

#: stickler's non-match type value -> (confusion-matrix category, the word a reader sees).
KINDS: dict[str, tuple[str, str]] = {
    "false_negative": ("fn", "missed"),
    "false_alarm": ("fa", "invented"),
    "false_discovery": ("fd", "wrong"),
}


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _plain(value: Any) -> Any:
    """`value` with numpy scalars, enums and tuples turned into plain JSON types.

    stickler leaves numpy scalars in some scores and records; pydantic serializes
    `numpy.float64` but not numpy ints and bools, and `json.dumps` serializes none of them,
    so rows carry plain Python values. Dates and models are left for pydantic, but for an instance
    of a class no other process can import (stickler's eval models, `AddressEval`, made at run time
    for a nested model): it becomes `model_dump()`, what pydantic writes for it anyway, so a row
    pickles (a worker process sends its rows back pickled) and a saved report is unchanged.
    """
    kind = type(value)
    if kind in _ATOMS:  # the common case first: a row's metadata is mostly these
        return value
    if kind is dict:
        return {key: _plain(item) for key, item in value.items()}
    if kind is list:
        return [_plain(item) for item in value]
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "item") and kind.__module__ == "numpy":
        return value.item()
    if isinstance(value, BaseModel) and not importable(kind):
        return _plain(value.model_dump())
    return value


def importable(kind: type) -> bool:
    """Whether `kind` is found again by its module and qualified name, as pickle sends a class (a module
    not yet imported here would make a new class: no)."""
    try:
        found: Any = sys.modules[kind.__module__]
        for part in kind.__qualname__.split("."):
            found = getattr(found, part)
    except (KeyError, AttributeError):
        return False
    return found is kind


def non_match_records(raw_records: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Turn stickler's non-match records into the flat form rows carry.

    Args:
        raw_records: `compare_with(..., document_non_matches=True)["non_matches"]`.

    Returns:
        One dict per record, in stickler's order: `path` (dotted, with `[i]` for a list
        element, indexed as in the ground truth), `category` (`fn`/`fa`/`fd`), `kind`
        (`missed`/`invented`/`wrong`), `expected`, `predicted`, `similarity` (None when the
        engine compared nothing, as for a missed or invented value) and `reason`.

    Notes:
        A list element that scored below `match_threshold` is one `wrong` record for the whole
        element, with both objects as values: the engine does not look inside it, just as
        its children drop out of `report.metrics()`.
    """
    records = []
    for record in raw_records:
        value = record.get("non_match_type")
        value = value.value if isinstance(value, enum.Enum) else str(value)
        category, kind = KINDS.get(value, (value, value))
        similarity = record.get("similarity_score", record.get("similarity"))
        details = record.get("details") or {}
        reason = record.get("reason") or (details.get("reason") if isinstance(details, Mapping) else None)
        records.append(
            {
                "path": str(record.get("field_path", "")),
                "category": category,
                "kind": kind,
                "expected": _plain(record.get("ground_truth_value")),
                "predicted": _plain(record.get("prediction_value")),
                "similarity": None if similarity is None else float(similarity),
                "reason": reason,
            }
        )
    return records


@dataclass
class _Reading:
    """How each side of the case being scored was read."""

    read_as: dict[str, str] = field(default_factory=dict)  # {"actual_output": "fenced"}
    repairs: dict[str, tuple[str, ...]] = field(default_factory=dict)  # sides read as `repaired`
    lenient: dict[str, lenient.LenientRead] = field(default_factory=dict)  # sides read leniently


# A context variable, so concurrent `evaluate` calls (threads, `evaluate_async`) never mix.
_READING: contextvars.ContextVar[_Reading | None] = contextvars.ContextVar("reading", default=None)


class _LenientSpec:
    """The evaluator's spec: a pair with a side read leniently goes to `lenient.compare`.

    Every other pair is the wrapped spec's `evaluate`, unchanged, so its rows are exactly what
    they were without lenient reading. Anything else is the wrapped spec's (`eval_model`, ...):
    a wrapper rather than an `EvalSpec` subclass, so stickler still loads only when the first
    evaluator is built.
    """

    def __init__(self, inner: EvalSpec, *, documenting: bool) -> None:
        self.inner = inner
        self._documenting = documenting

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def evaluate(self, ground_truth: Any, prediction: Any) -> Any:
        reading = _READING.get()
        sides = {"expected_output": ground_truth, "actual_output": prediction}
        reads = {
            side: read
            for side, read in (reading.lenient.items() if reading is not None else ())
            if read.instance is sides[side]
        }
        if not reads:
            return self.inner.evaluate(ground_truth, prediction)
        return lenient.compare(self.inner, ground_truth, prediction, reads, document_non_matches=self._documenting)

    def explain(self) -> dict[str, dict[str, Any]]:
        return dict(self.inner.explain())


def _mapping(value: Any) -> Any:
    """A side in the form the upstream reader validated: a dict (or what it was, if not one)."""
    if isinstance(value, AgentResult):
        value = value.structured_output
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, str):
        return json.loads(value)
    return value


def _annotate(metadata: dict[str, Any], notes: list[lenient.ReadingNote]) -> None:
    """Put the lenient-reading notes on the row and on the non-match records at their paths."""
    metadata["reading"] = [note.to_dict() for note in notes]
    for record in metadata.get("non_matches") or []:
        path = record["path"]
        at = [note for note in notes if note.path == path or note.path.startswith((f"{path}.", f"{path}["))]
        if at:
            record["reading"] = "; ".join(note.short() for note in at)


def _reading_reason(notes: list[lenient.ReadingNote], model: str, limit: int = 3) -> str:
    """`read leniently: 2 values did not validate as Invoice (...; ...)`."""
    shown = "; ".join(note.short() for note in notes[:limit])
    more = f"; (+{len(notes) - limit} more)" if len(notes) > limit else ""
    values = f"{len(notes)} value{'s' if len(notes) != 1 else ''}"
    return f"read leniently: {values} did not validate as {model} ({shown}{more})"


#: What stickler names the comparisons of fields holding models (`stickler.auto.builder`).
_HUNGARIAN = "Hungarian (per-element StructuredModel)"
_RECURSIVE = "StructuredModelComparator"


def _what_applies(entry: dict[str, Any], element: type, *, in_list: bool) -> None:
    """Correct one `explain()` entry of a field holding models to what stickler does with it (see `explain`)."""
    said = (entry.get("comparator"), entry.get("threshold"), entry.get("clip_under_threshold"))
    if in_list:
        threshold = float(element.match_threshold)  # type: ignore[attr-defined]
        entry.update(comparator=_HUNGARIAN, threshold=threshold, clip_under_threshold=False)
        unused = [f"comparator {said[0]}"] if said[0] != _HUNGARIAN else []
        unused += [f"threshold {said[1]:g}"] if isinstance(said[1], (int, float)) and said[1] != threshold else []
        how = (
            f"list of {element.__name__}: elements paired by Hungarian assignment on each pair's score, a pair "
            f"matched at {element.__name__}.match_threshold {threshold:g}; the list's score is never clipped"
        )
    else:
        entry["comparator"] = _RECURSIVE
        unused = [f"comparator {said[0]}"] if said[0] != _RECURSIVE else []
        how = f"nested {element.__name__}: compared field by field, matched at this field's threshold"
    if unused:
        why = entry.get("why")
        trail = list(why) if isinstance(why, (list, tuple)) else ([why] if why else [])
        entry["why"] = [*trail, f"{how}; the configured {' and '.join(unused)} are not used by stickler"]


class StructuredOutputSimilarity(_UpstreamSimilarity):  # type: ignore[misc]
    """Scores structured output against ground truth field by field, and says what was right.

    A drop-in for Strands Evals' `StructuredOutputSimilarity`: same arguments, same rows, same
    `metadata` keys, so `StructuredOutputReport.metrics()` and `per_case()` read it the same
    way. Each scored row's `metadata` also carries `non_matches` (see `non_match_records`),
    and every value on `metadata` is plain JSON, so any report holding it can be saved.

    Args:
        model_cls: The Pydantic model the agent emits as `structured_output_model`, or its
            dotted path (`"myapp.models.Invoice"`). Every case is read as this model.
        match_threshold: Similarity at or above which an object counts as a match; also the
            bar for both halves of `test_pass` (score and recall). Default 0.7.
        weight_hints: Infer per-field weights from field names. Default False (uniform).
        name: Evaluator name; what `report.metrics(evaluator=...)` filters on. Default None.
        non_matches: Document the non-matches on each row. Default True; they are read off the
            comparison that scores the row, so they cost little (`bench/non_match_cost.py`).
            Off, rows are exactly the upstream evaluator's (when no side needed lenient reading).
        strict: Read each side as the upstream evaluator does: a side that does not validate
            as `model_cls` scores the row 0.0 as unreadable. Default False: such a side is read
            leniently, field by field (see `structsim_nb.lenient`), and every value that did not
            validate is noted on the row (`metadata["reading"]`, the reason, the non-match
            records); a side that validates is read exactly as upstream.
        fast_matching: Match lists of objects whose fields are all plain values (text, numbers,
            dates, flags) from vectorised pair-similarity matrices, with the engine's own
            assignment solver; pair lists whose elements also hold flat nested objects, lists of
            plain values or lists of flat objects from such matrices too. Default True. Scores,
            rows and records are identical to the engine's (differential tests in `tests/engine/`);
            `explain()` says which lists qualify. False runs the engine's per-pair comparison for
            every list.

    Raises:
        ImportError: If stickler is not installed (the message names the install command).
        TypeError: If `model_cls` does not resolve to a Pydantic model with named fields.

    Examples:
        >>> from pydantic import BaseModel
        >>> class Person(BaseModel):
        ...     name: str
        ...     city: str | None = None
        >>> from strands_evals.types.evaluation import EvaluationData
        >>> row, = StructuredOutputSimilarity(Person).evaluate(EvaluationData(
        ...     input="", actual_output=Person(name="Ada", city="Paris"),
        ...     expected_output=Person(name="Ada", city="London")))
        >>> row.score, row.metadata["non_matches"][0]["expected"]
        (0.5, 'London')
    """

    #: Built by the upstream `__init__` (stickler's `eval_for`); an `engine.listmatch.MatchOnceSpec` unless both
    #: `non_matches` and `fast_matching` are off, wrapped in `_LenientSpec` unless `strict`. Declared because the
    #: untyped base declares nothing.
    _spec: EvalSpec

    def __init__(
        self,
        model_cls: type[BaseModel] | str,
        *,
        match_threshold: float = 0.7,
        weight_hints: bool = False,
        name: str | None = None,
        non_matches: bool = True,
        strict: bool = False,
        fast_matching: bool = True,
    ) -> None:
        if not isinstance(match_threshold, (int, float)) or not 0.0 <= float(match_threshold) <= 1.0:
            raise ValueError(f"match_threshold must be a number between 0 and 1; got {match_threshold!r}")
        super().__init__(model_cls, match_threshold=match_threshold, weight_hints=weight_hints, name=name)
        self._non_matches = bool(non_matches)
        self._fast_matching = bool(fast_matching)
        if self._non_matches or self._fast_matching:
            from .engine.listmatch import MatchOnceSpec

            self._spec = MatchOnceSpec(
                self._spec,
                match_threshold=self.match_threshold,
                weight_hints=self.weight_hints,
                vectorised=self._fast_matching,
                document_non_matches=self._non_matches,
            )
        self._strict = bool(strict)
        if not self._strict:
            self._spec = _LenientSpec(self._spec, documenting=self._non_matches)  # type: ignore[assignment]

    def __repr__(self) -> str:
        """`<StructuredOutputSimilarity Invoice, match_threshold 0.7>`, plus the name and any option not at its default.

        Short and free of memory addresses, so a notebook cell ending in an evaluator saves the same
        text every time it runs.
        """
        options = [f"match_threshold {self._match_threshold:g}"]
        if self.name not in (None, type(self).__name__):
            options.append(f"name {self.name!r}")
        options += [
            text
            for text, differs in (
                ("weight_hints=True", self._weight_hints),
                ("non_matches=False", not self._non_matches),
                ("strict=True", self._strict),
                ("fast_matching=False", not self._fast_matching),
            )
            if differs
        ]
        return f"<{type(self).__name__} {self._model_cls.__name__}, {', '.join(options)}>"

    @property
    def non_matches(self) -> bool:
        """Whether rows carry `metadata["non_matches"]`."""
        return self._non_matches

    @property
    def strict(self) -> bool:
        """Whether sides are read strictly (a side that does not validate makes the row unreadable)."""
        return self._strict

    @property
    def fast_matching(self) -> bool:
        """Whether lists of plain fields are matched from vectorised matrices (same results)."""
        return self._fast_matching

    def explain(self) -> dict[str, dict[str, Any]]:
        """The upstream `explain()`, corrected where stickler compares a field another way, and list matching.

        stickler's `explain()` reports the comparator configured on each field. A field holding
        models is not compared with it (read in stickler-eval 1.0.0, `ComparisonDispatcher`):

        - `List[Model]`: the elements are paired by Hungarian assignment on each pair's
          `compare_with` score, and a pair counts as matched at the element class's
          `match_threshold`; the list's score is never clipped. Its entry says so: `comparator`
          `"Hungarian (per-element StructuredModel)"`, `threshold` the element class's
          `match_threshold`, `clip_under_threshold` False.
        - A nested model: compared field by field (its overall score), matched at the field's own
          `threshold`: `comparator` `"StructuredModelComparator"`.

        When a hand-configured `StructuredModel` names another comparator or threshold there, `why`
        ends with a note saying which configured values are not used.

        Each `List[Model]` path also carries `matching`: `"vectorised"` when every field of its
        elements has a vectorised equivalent of its comparator (the pair-similarity matrix is
        built in one pass; results are identical to the engine's); `"paired: <reason>"` when the
        elements also hold nested objects, lists of plain values or lists of objects, whose objects
        hold plain values, lists of plain values and such objects in turn, at any depth (the pair
        similarities the assignment reads are built in one pass, and the engine compares each
        matched pair, for the reason given); else `"engine: <reason>"` (the engine compares the
        elements pair by pair; the reason names what stops pairing, such as `"field 'legs' is a
        list of objects whose field 'phone' uses PhoneComparator"`), or
        `"engine: fast_matching=False"`, or `"engine: Item.compare is overridden"` when the model
        or a class it holds defines its own version of a method the engine compares with (the whole
        document is then compared by its own `compare_with`). (A list holding one element on each
        side has no assignment to make: the engine scores that pair directly, whatever `matching`
        says.)
        A list whose elements may be null (`List[Optional[Model]]`, or JSON Schema items `anyOf`
        an object and null) is such a list too; when it can be vectorised, `matching` says
        `"vectorised, or the engine's path for a list holding a null"`.
        """
        from .engine.fastmatch import ElementPlan, PairingPlan, pairing_plan_for, plan_for
        from .engine.listmatch import model_paths, overridden_method

        explained: dict[str, dict[str, Any]] = super().explain()
        for path, element, in_list, nullable in model_paths(self._spec.eval_model):
            entry = explained.get(path)
            if entry is None:
                continue
            _what_applies(entry, element, in_list=in_list)
            if not in_list:
                continue
            if not self._fast_matching:
                entry["matching"] = "engine: fast_matching=False"
                continue
            own = overridden_method(self._spec.eval_model)
            if own is not None:
                entry["matching"] = f"engine: {own} is overridden"
                continue
            plan = plan_for(element)
            or_null = ", or the engine's path for a list holding a null" if nullable else ""
            if isinstance(plan, ElementPlan):
                entry["matching"] = f"vectorised{or_null}"
                continue
            pairing = pairing_plan_for(element)
            entry["matching"] = (
                f"paired: {pairing.engine}{or_null}" if isinstance(pairing, PairingPlan) else f"engine: {pairing}"
            )
        return explained

    def to_dict(self) -> dict[str, Any]:
        """The upstream dictionary (`model_cls` as a dotted path), plus `non_matches`, `strict`, `fast_matching`."""
        data: dict[str, Any] = super().to_dict()
        data["non_matches"] = self._non_matches
        data["strict"] = self._strict
        data["fast_matching"] = self._fast_matching
        return data

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case: the upstream row, with the non-matches moved onto `metadata`.

        Returns:
            One row. Not-applicable (score 0.0, `test_pass` True, label `NOT_APPLICABLE`) when
            there is no ground truth; score 0.0 with `metadata={"error": "unreadable"}` and the
            reason when a side cannot be read at all (not JSON, another schema, or, with
            `strict=True`, a side that does not validate). Neither carries `non_matches`. A side
            read from text carries `metadata["read_as"]`; a truncated answer that was repaired
            is named in the reason with what was repaired (`metadata["repairs"]`); a side read
            leniently carries `metadata["reading"]` and the reason says which values.
        """
        token = _READING.set(_Reading())
        try:
            # The comparison's results live until it ends: no full collection walks the heap for them, and none
            # moves to the oldest generation, where moving counts toward the next full collection (`_heap`).
            with young_collections_only(freeze=False, hold_middle=True):
                rows: list[EvaluationOutput] = super().evaluate(evaluation_case)
            reading = _READING.get() or _Reading()
        finally:
            _READING.reset(token)
        notes = [note for read in reading.lenient.values() for note in read.notes]
        for row in rows:
            if reading.read_as and row.metadata is not None:
                row.metadata = {**row.metadata, "read_as": dict(reading.read_as)}
            if reading.repairs and row.metadata is not None:
                row.metadata = {**row.metadata, "repairs": {side: list(how) for side, how in reading.repairs.items()}}
                cut = "; ".join(
                    f"{side} was cut off (truncated JSON) and repaired: {'; '.join(how)}"
                    for side, how in reading.repairs.items()
                )
                row.reason = f"{row.reason}; {cut}" if row.reason else cut
            if not row.metadata or "comparison" not in row.metadata:
                continue
            metadata = dict(row.metadata)
            comparison = dict(metadata["comparison"])
            raw_records = comparison.pop("non_matches", None)
            metadata["comparison"] = comparison
            if self._non_matches:
                if raw_records is None:
                    raise StructsimError(
                        "stickler returned no non-match records although they were requested; "
                        "the engine's result shape changed. Pin stickler-eval<2 or report this."
                    )
                metadata["non_matches"] = non_match_records(raw_records)
            if notes:
                _annotate(metadata, notes)
                row.reason = f"{row.reason}; {_reading_reason(notes, self.model_cls.__name__)}"
            row.metadata = _plain(metadata)
        return rows

    def _read(self, value: Any, which: str) -> BaseModel:
        """The upstream reader, with two additions: text through `parse_answer`, and lenient reading.

        A text side which is not plain JSON goes through `parse_answer`: the structure it finds
        (fenced, after `Final Answer:`, embedded in prose, a Python literal, a truncated answer
        repaired) is read as `model_cls`, and the row's `metadata["read_as"]` records the form
        per side (`{"actual_output": "fenced"}`). Text with no object in it raises `ValueError`,
        which the upstream evaluator turns into a score-0 row saying so (`read_as` is `none`).

        A side that does not validate is read by `lenient.read_leniently` unless `strict`.
        """
        reading = _READING.get()
        if isinstance(value, str):
            try:
                json.loads(value)
            except (ValueError, RecursionError):  # not JSON, a number past the digit limit, or too deep
                parsed = parse_answer(value)
                if reading is not None:
                    reading.read_as[which] = parsed.form if isinstance(parsed.value, dict) else "none"
                    if parsed.repairs:
                        reading.repairs[which] = parsed.repairs
                if not isinstance(parsed.value, dict):
                    found = f"found a {parsed.form} answer, not an object" if parsed.found else parsed.message
                    raise ValueError(f"{which} is text with no JSON object to read: {found}") from None
                value = parsed.value
        try:
            return super()._read(value, which)  # type: ignore[no-any-return]
        except ValueError as exc:
            if self._strict or not isinstance(exc.__cause__, ValidationError):
                raise
            read = lenient.read_leniently(self._model_cls, _mapping(value), which)
            if reading is not None:
                reading.lenient[which] = read
            return read.instance

    def explain_frame(self) -> Any:
        """`explain()` as a pandas DataFrame, one row per field path; see `frames.explain_frame`."""
        from .frames import explain_frame

        return explain_frame(self.explain())
