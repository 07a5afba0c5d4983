"""The field-level evaluator: the upstream `StructuredOutputSimilarity`, plus the non-matches.

Everything the Strands Evals evaluator does is inherited unchanged: `model_cls` as a class or
dotted path, `match_threshold` (0.7), `weight_hints` (False), `name`, the `test_pass` rule,
the `reason` naming the weakest fields, the score-0.0 row when a side does not validate,
not-applicable when there is no ground truth, and `explain()`.

What this module adds is the part a reader needs to fix an extractor: every row also carries
`metadata["non_matches"]`, one record per field path that was not a true positive or a true
negative, with what the right value was. This is the only module that talks to stickler's
comparison internals (see `_DocumentingSpec`).
"""

from __future__ import annotations

import contextvars
import enum
import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from .answers import parse_answer
from .errors import StructsimError

logger = logging.getLogger(__name__)

__all__ = ["KINDS", "StructuredOutputSimilarity", "non_match_records"]

_INSTALL = 'pip install "strands-agents-evals[stickler]>=1.7"'

try:
    # Hard dependencies, but the evaluator is what users reach first, so a broken install
    # names the command that fixes it instead of a bare ModuleNotFoundError.
    from stickler.auto.facade import EvalResult, EvalSpec, _dump
    from strands_evals.evaluators.deterministic.structured_output import (
        StructuredOutputSimilarity as _UpstreamSimilarity,
    )
    from strands_evals.types.evaluation import EvaluationData, EvaluationOutput
except ImportError as exc:  # pragma: no cover - exercised by test_missing_engine_names_install
    raise ImportError(
        f"structsim_nb needs the Strands Evals harness with the stickler engine; got: {exc}. "
        f"Install it with: {_INSTALL}"
    ) from exc

#: stickler's non-match type value -> (confusion-matrix category, the word a reader sees).
KINDS: dict[str, tuple[str, str]] = {
    "false_negative": ("fn", "missed"),
    "false_alarm": ("fa", "invented"),
    "false_discovery": ("fd", "wrong"),
}


class _DocumentingSpec(EvalSpec):  # type: ignore[misc]
    """An `EvalSpec` whose single comparison also documents the non-matches.

    stickler's `EvalResult.non_matches` compares the pair a second time; asking for the
    records in the one `compare_with` call costs less (see `bench/non_match_cost.py`). The
    result is otherwise identical: the records ride on `raw["non_matches"]`, which the
    upstream evaluator copies into `metadata["comparison"]` and `evaluate` below moves out.
    """

    def evaluate(self, ground_truth: Any, prediction: Any) -> EvalResult:
        # stickler's own coerce/dump steps, as `EvalSpec.evaluate` runs them; pinned by `<2`.
        gt = self.eval_model.from_json(_dump(self._coerce(ground_truth)))
        pred = self.eval_model.from_json(_dump(self._coerce(prediction)))
        raw = gt.compare_with(
            pred,
            include_confusion_matrix=True,
            add_derived_metrics=True,
            document_non_matches=True,
        )
        return EvalResult(raw, self, ground_truth=gt, prediction=pred)


def _plain(value: Any) -> Any:
    """`value` with numpy scalars, enums and tuples turned into plain JSON types.

    stickler leaves numpy scalars in some scores and records; pydantic serializes
    `numpy.float64` but not numpy ints and bools, and `json.dumps` serializes none of them,
    so rows carry plain Python values. Dates and models are left for pydantic.
    """
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if hasattr(value, "item") and type(value).__module__ == "numpy":
        return value.item()
    return value


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


# How each text side of the case being scored was read: {"actual_output": "fenced", ...}.
# A context variable, so concurrent `evaluate` calls (threads, `evaluate_async`) never mix.
_READ_AS: contextvars.ContextVar[dict[str, str] | None] = contextvars.ContextVar("read_as", default=None)


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
        non_matches: Document the non-matches on each row. Default True. Off, rows are exactly
            the upstream evaluator's and cost the same.

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

    #: Built by the upstream `__init__` (stickler's `eval_for`); a `_DocumentingSpec` when
    #: `non_matches` is on. Declared because the untyped base class declares nothing.
    _spec: EvalSpec

    def __init__(
        self,
        model_cls: type[BaseModel] | str,
        *,
        match_threshold: float = 0.7,
        weight_hints: bool = False,
        name: str | None = None,
        non_matches: bool = True,
    ) -> None:
        if not isinstance(match_threshold, (int, float)) or not 0.0 <= float(match_threshold) <= 1.0:
            raise ValueError(f"match_threshold must be a number between 0 and 1; got {match_threshold!r}")
        super().__init__(model_cls, match_threshold=match_threshold, weight_hints=weight_hints, name=name)
        self._non_matches = bool(non_matches)
        if self._non_matches:
            spec = self._spec
            self._spec = _DocumentingSpec(
                spec.source_cls, spec.eval_model, weight_hints=weight_hints, match_threshold=spec._match_threshold
            )

    @property
    def non_matches(self) -> bool:
        """Whether rows carry `metadata["non_matches"]`."""
        return self._non_matches

    def to_dict(self) -> dict[str, Any]:
        """The upstream dictionary (with `model_cls` as a dotted path), plus `non_matches`."""
        data: dict[str, Any] = super().to_dict()
        data["non_matches"] = self._non_matches
        return data

    def evaluate(self, evaluation_case: EvaluationData[Any, Any]) -> list[EvaluationOutput]:
        """Score one case: the upstream row, with the non-matches moved onto `metadata`.

        Returns:
            One row. Not-applicable (score 0.0, `test_pass` True, label `NOT_APPLICABLE`) when
            there is no ground truth; score 0.0 with `metadata={"error": "unreadable"}` and the
            reason when a side does not validate. Neither carries `non_matches`.
        """
        token = _READ_AS.set({})
        try:
            rows: list[EvaluationOutput] = super().evaluate(evaluation_case)
            read_as = dict(_READ_AS.get() or {})
        finally:
            _READ_AS.reset(token)
        for row in rows:
            if read_as and row.metadata is not None:
                row.metadata = {**row.metadata, "read_as": read_as}
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
            row.metadata = _plain(metadata)
        return rows

    def _read(self, value: Any, which: str) -> BaseModel:
        """The upstream reader, except that a text side which is not plain JSON goes through `parse_answer`.

        The structure the parser finds (fenced, after `Final Answer:`, embedded in prose, a Python
        literal) is read as `model_cls`, and the row's `metadata["read_as"]` records the form per
        side (`{"actual_output": "fenced"}`). Text with no object in it raises `ValueError`, which
        the upstream evaluator turns into a score-0 row saying so (`read_as` is then `none`).
        """
        if isinstance(value, str):
            try:
                json.loads(value)
            except (ValueError, RecursionError):  # not JSON, a number past the digit limit, or too deep
                parsed = parse_answer(value)
                read_as = _READ_AS.get()
                if read_as is not None:
                    read_as[which] = parsed.form if isinstance(parsed.value, dict) else "none"
                if not isinstance(parsed.value, dict):
                    found = f"found a {parsed.form} answer, not an object" if parsed.found else parsed.message
                    raise ValueError(f"{which} is text with no JSON object to read: {found}") from None
                value = parsed.value
        return super()._read(value, which)

    def explain_frame(self) -> Any:
        """`explain()` as a pandas DataFrame, one row per field path; see `frames.explain_frame`."""
        from .frames import explain_frame

        return explain_frame(self.explain())
