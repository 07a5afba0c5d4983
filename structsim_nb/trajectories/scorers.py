"""The scorer registry: the names `structsim-nb evaluate --scorer NAME` accepts.

A scorer is a plain module-level function with this signature::

    def scorer(
        gold: str,
        answer: str,
        *,
        evaluation_metadata: Mapping[str, Any] | None,
        options: Mapping[str, Any],
    ) -> ScoreResult: ...

- `gold` is the scenario's `groundtruth.txt`, stripped; `answer` the trajectory's answer text
  (read it with `answers.parse_answer`, the project's one text-to-structure reader).
- `evaluation_metadata` is the scenario's `groundtruth_eval.json` object, or None.
- `options` holds the command-line options as plain strings and numbers (`{"schema": "x.Model"}`
  for `similarity`); a scorer ignores the ones it does not use.
- It returns a `ScoreResult`, whose `details` must be plain JSON (it is written to the report
  with sorted keys), and must be deterministic: the same inputs give byte-identical reports.
- It raises `errors.ScoringError` (or any `ValueError`/`TypeError`) for a pair it cannot score;
  the runner records that pair as an error entry and goes on.
- It must be picklable (a module-level function, no lambdas) and hold no mutable global state,
  so pairs can be mapped over a process pool; cache expensive set-up with `functools.lru_cache`
  keyed on the options, as `score_similarity` does.

Register one with `register_scorer("name", fn, validate=check)`; `validate(options)` runs once
before any pair and raises `ValueError` for bad options, so a bad `--schema` fails up front.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel

from .._jsondump import round_trip
from .._jsonload import loads
from ..answers import parse_answer
from ..errors import SchemaLoadError, ScoringError, UnknownScorerError
from .static_json import evaluate_static_json, rationale

logger = logging.getLogger(__name__)

__all__ = [
    "ScoreResult",
    "Scorer",
    "get_scorer",
    "load_schema",
    "register_scorer",
    "score_similarity",
    "score_static_json",
    "scorer_names",
    "validate_options",
]


@dataclass(frozen=True)
class ScoreResult:
    """One scored pair.

    Attributes:
        scorer: The registered name that produced it.
        passed: The scorer's pass verdict.
        score: The soft score in [0, 1].
        rationale: One line saying why.
        details: Plain-JSON metrics and per-key records (scorer-specific).
    """

    scorer: str
    passed: bool
    score: float
    rationale: str
    details: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The result as a plain dict; `details` is the same object, not a copy."""
        return {
            "scorer": self.scorer,
            "passed": self.passed,
            "score": self.score,
            "rationale": self.rationale,
            "details": self.details,
        }


class Scorer(Protocol):
    """The call signature every registered scorer has; see the module docstring."""

    def __call__(
        self, gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None, options: Mapping[str, Any]
    ) -> ScoreResult: ...


_REGISTRY: dict[str, tuple[Scorer, Callable[[Mapping[str, Any]], None] | None]] = {}


def register_scorer(
    name: str,
    scorer: Scorer,
    *,
    validate: Callable[[Mapping[str, Any]], None] | None = None,
    replace: bool = False,
) -> None:
    """Register `scorer` under `name`.

    Args:
        name: The `--scorer` value.
        scorer: A function with the signature in the module docstring.
        validate: Optional check of the options, run once before any pair. Default None.
        replace: Allow replacing an existing name. Default False.

    Raises:
        ValueError: If `name` is taken and `replace` is False.
    """
    if name in _REGISTRY and not replace:
        raise ValueError(f"scorer name must be unused; {name!r} is already registered. Pass replace=True to swap it")
    _REGISTRY[name] = (scorer, validate)


def scorer_names() -> list[str]:
    """The registered names, sorted."""
    return sorted(_REGISTRY)


def get_scorer(name: str) -> Scorer:
    """The scorer registered as `name`.

    Raises:
        UnknownScorerError: If no scorer has that name; the message lists the registered ones.
    """
    try:
        return _REGISTRY[name][0]
    except KeyError:
        raise UnknownScorerError(
            f"scorer must be a registered name; got {name!r}. Registered: {', '.join(scorer_names())}"
        ) from None


def validate_options(name: str, options: Mapping[str, Any]) -> None:
    """Run the scorer's option check, if it has one (see `register_scorer`)."""
    get_scorer(name)
    check = _REGISTRY[name][1]
    if check is not None:
        check(options)


def score_static_json(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> ScoreResult:
    """The `static_json` scorer: `evaluate_static_json`, with its score, pass and full details.

    Uses `options["similarity_threshold"]` when given (default 0.0).
    """
    score = evaluate_static_json(
        gold,
        answer,
        similarity_threshold=float(options.get("similarity_threshold", 0.0)),
        evaluation_metadata=evaluation_metadata,
    )
    return ScoreResult("static_json", score.passed, score.score, rationale(score), score.to_dict())


def load_schema(spec: str) -> type[BaseModel]:
    """A Pydantic model from a dotted path (`myapp.models.Invoice`) or a JSON Schema file.

    A path to an existing file (or one ending in `.json`) is read as JSON Schema and turned
    into a model with `json_schema_to_pydantic.create_model`; anything else is imported, as
    `StructuredOutputSimilarity` imports a dotted path (its public `model_cls`).

    Raises:
        SchemaLoadError: If the file is missing, not JSON, or not a schema, or the path does
            not import to a Pydantic model.
    """
    return _similarity_evaluator(spec).model_cls  # type: ignore[no-any-return]


@functools.lru_cache(maxsize=16)
def _schema_file(spec: str) -> type[BaseModel] | None:
    """The model of a JSON Schema file, or None when `spec` does not name one."""
    path = Path(spec)
    if not (path.is_file() or spec.endswith(".json")):
        return None
    from json_schema_to_pydantic import create_model  # optional: only --schema FILE needs it

    try:
        schema = json.loads(path.read_text(encoding="utf-8"))
        return create_model(schema)  # type: ignore[no-any-return]
    except Exception as exc:  # OSError, JSON errors, and the library's own SchemaError family
        raise SchemaLoadError(
            f"--schema file must be a readable JSON Schema of an object; {spec!r} failed: {exc}. "
            "Check the path and that the file is a JSON Schema"
        ) from exc


@functools.lru_cache(maxsize=16)
def _similarity_evaluator(spec: str) -> Any:
    from ..evaluate import StructuredOutputSimilarity

    try:
        return StructuredOutputSimilarity(_schema_file(spec) or spec, name="similarity")
    except (TypeError, ImportError) as exc:
        raise SchemaLoadError(
            f"--schema must be a Pydantic model dotted path (myapp.models.Invoice) or a JSON Schema file; "
            f"{spec!r} failed: {exc}. A module is imported from the working directory or PYTHONPATH"
        ) from exc


def _check_similarity(options: Mapping[str, Any]) -> None:
    spec = options.get("schema")
    if not spec:
        raise SchemaLoadError(
            "the similarity scorer needs a schema; got none. Pass --schema myapp.models.Invoice or --schema schema.json"
        )
    _similarity_evaluator(str(spec))


def score_similarity(
    gold: str, answer: str, *, evaluation_metadata: Mapping[str, Any] | None = None, options: Mapping[str, Any]
) -> ScoreResult:
    """The `similarity` scorer: `StructuredOutputSimilarity` over `options["schema"]`, field by field.

    Both texts are read by the evaluator (through `parse_answer` when not plain JSON), so
    `details["read_as"]` says how. `evaluation_metadata` is not used.

    Raises:
        SchemaLoadError: If `options["schema"]` is missing or does not load.
        ScoringError: If the ground truth holds no structure to compare.
    """
    from strands_evals.types.evaluation import EvaluationData

    _check_similarity(options)
    try:
        loads(gold)  # json.loads, read by orjson where that is the same
    except (ValueError, RecursionError):  # not JSON, a number past the digit limit, or too deep
        parsed = parse_answer(gold)
        if not parsed.found or not isinstance(parsed.value, dict):
            raise ScoringError(
                f"the ground truth must hold a JSON object for the similarity scorer; {parsed.message or parsed.form}. "
                "Fix groundtruth.txt"
            ) from None
    evaluator = _similarity_evaluator(str(options["schema"]))
    (row,) = evaluator.evaluate(EvaluationData(input="", actual_output=answer, expected_output=gold))
    details = round_trip(row.metadata or {})  # json.loads(json.dumps(..., sort_keys=True, default=str))
    return ScoreResult("similarity", bool(row.test_pass), float(row.score), str(row.reason or ""), details)


register_scorer("static_json", score_static_json)
register_scorer("similarity", score_similarity, validate=_check_similarity)
