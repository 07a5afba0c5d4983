"""What a worker process does for `score_dataset`, and what it is sent.

A worker builds the evaluator (and stickler's compiled spec) once per `WorkerSettings`, then
scores `(name, expected, actual)` triples one document at a time; a document whose scoring raises
becomes an error row (`score_one`), never an exception. A model class workers cannot import by
name (defined in a notebook, `__main__` or a function) travels by value with cloudpickle
(`by_value`), and the documents with it (`wire`), so they load as instances of that very class.
`score_in_process` is the same scoring without workers.

A worker that cannot build the evaluator (the model does not load there, or the class it imports by
path is not the one this process scores with: `fingerprint`) raises `ModelNotLoaded` for the whole
run, never an error row per document: the model, not the documents, is at fault.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import re
from collections.abc import Generator, Iterator
from typing import Annotated, Any, Literal, NamedTuple, get_args, get_origin

from pydantic import BaseModel
from strands_evals.types.evaluation import EvaluationData, EvaluationOutput

from ._pairs import Pair
from .evaluate import StructuredOutputSimilarity

logger = logging.getLogger(__name__)

__all__ = [
    "ModelNotLoaded",
    "Scored",
    "WorkerSettings",
    "by_value",
    "error_row",
    "fingerprint",
    "score_chunk",
    "score_in_process",
    "score_one",
    "sent_by_value",
    "wire",
]


class WorkerSettings(NamedTuple):
    """Everything a worker needs to build the evaluator; hashable, so workers cache on it.

    `model_blob` is the model class itself, pickled by value with cloudpickle, when workers
    cannot import it by `model_path` (a class defined in a notebook, `__main__` or a function);
    the documents then travel by value too, so instances of that class reach the evaluator as
    the same class. `model_fingerprint` is this process's `fingerprint` of the evaluator; a worker
    whose own differs refuses to score (empty: not checked).
    """

    model_path: str
    match_threshold: float
    weight_hints: bool
    name: str | None
    non_matches: bool
    fast_matching: bool = True
    model_blob: bytes | None = None
    strict: bool = False
    model_fingerprint: str = ""


class ModelNotLoaded(Exception):  # noqa: N818 - says what happened, as the message goes on to say why
    """A worker process could not build the evaluator: the model does not load there, or is another class.

    Raised by the worker for the whole chunk; `_pool` ends the run with a `TypeError` (or, when
    workers were not asked for, scores in this process with a warning). `args[0]` says why.
    """


class Scored(NamedTuple):
    """One document's result, as the `Experiment` records it for one evaluator."""

    score: float
    test_pass: bool
    reason: str
    rows: list[EvaluationOutput]


@functools.lru_cache(maxsize=8)
def _evaluator(settings: WorkerSettings) -> StructuredOutputSimilarity:
    """The evaluator for `settings`, built (and stickler's spec compiled) once per process.

    Raises:
        ModelNotLoaded: If the model does not load here (a module only the parent process has, say),
            or its `fingerprint` is not `settings.model_fingerprint` (a spawned worker imported the
            model's file, edited since the parent imported it).
    """
    logger.debug("model=<%s>, pid=<%s> | building evaluator", settings.model_path, os.getpid())
    try:
        model: type[BaseModel] | str = settings.model_path
        if settings.model_blob is not None:
            import cloudpickle

            model = cloudpickle.loads(settings.model_blob)
        evaluator = StructuredOutputSimilarity(
            model,
            match_threshold=settings.match_threshold,
            weight_hints=settings.weight_hints,
            name=settings.name,
            non_matches=settings.non_matches,
            fast_matching=settings.fast_matching,
            strict=settings.strict,
        )
    except Exception as exc:  # noqa: BLE001 - whatever it is, this process cannot score with the model
        raise ModelNotLoaded(
            f"it does not load in a worker process ({type(exc).__name__}: {exc}). Define the model (and what it "
            "uses) in a module the workers can import, or pass workers=1"
        ) from None
    if settings.model_fingerprint and fingerprint(evaluator) != settings.model_fingerprint:
        raise ModelNotLoaded(
            f"the worker processes import {settings.model_path or 'it'} as another class than this process's "
            "(other fields, types or comparison settings): was its file changed after this process imported it? "
            "Reload it (importlib.reload) or restart the kernel, or pass workers=1"
        )
    return evaluator


def fingerprint(evaluator: StructuredOutputSimilarity) -> str:
    """A digest of what scoring with `evaluator` depends on: its fields and their types, its `explain()`, and
    every comparator's settings.

    The fields are those of its model and of every model its annotations name (nested models,
    list elements), each with its annotation written out (`_annotation_text`); `explain()` gives
    each path's comparator, threshold and weight, and the comparators of stickler's eval model add
    their settings (a tolerance, a fuzzy method). Everything is written in a canonical form
    (`_canonical`: sets sorted, functions and classes by name, no object addresses), so it is equal
    for the same class in any process, whatever the hash seed; it differs when a field is added,
    removed, renamed or retyped, or a comparison setting changes. A validator's code and a
    default value are not in it. A class that travels by value (defined in `__main__` or in a
    function) is written by its bare `__name__` (`_class_name`): cloudpickle rebuilds it under that
    name (`Local` for `make.<locals>.Local`), so a worker that did not fork from this process (spawn,
    the default on macOS; forkserver, the default on Linux from Python 3.14) would otherwise refuse a
    model defined in a function. Every other class keeps its `__qualname__`, so a field retyped to
    another class of the same bare name in an edited file is still refused.
    """
    text = json.dumps(
        {
            "fields": sorted(_fields_of(evaluator.model_cls, set())),
            "explain": _canonical(evaluator.explain()),
            "comparators": _comparators_of(evaluator),
        },
        sort_keys=True,
    )
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


#: An object's address as `repr` writes it (`<function clean at 0x7f...>`): another in every process.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
#: How deep `_canonical` reads into an object's attributes.
_DEEPEST = 4


def sent_by_value(cls: type) -> bool:
    """Whether `cls` is defined where no other process can import it (`__main__`, or inside a function), so a
    worker gets it by value (cloudpickle) or not at all."""
    return cls.__module__ in ("__main__", "__mp_main__") or "<locals>" in cls.__qualname__


def _class_name(cls: type) -> str:
    """`cls.__qualname__`, or its bare `__name__` when it is `sent_by_value`, as cloudpickle rebuilds it in a
    process that did not fork from this one."""
    return cls.__name__ if sent_by_value(cls) else cls.__qualname__


def _fields_of(model: type, seen: set[type]) -> list[tuple[str, str, str]]:
    """`(model, field, annotation)` for `model` and every pydantic model its annotations name, each once."""
    if model in seen:
        return []
    seen.add(model)
    found = []
    for name, info in getattr(model, "model_fields", {}).items():
        found.append((_class_name(model), name, _annotation_text(info.annotation)))
        for named in _models_named(info.annotation):
            found += _fields_of(named, seen)
    return found


def _models_named(annotation: Any) -> list[type]:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return [annotation]
    return [model for argument in get_args(annotation) for model in _models_named(argument)]


def _annotation_text(annotation: Any) -> str:
    """An annotation written out the same in every process: classes by module and `_class_name`, `Annotated`
    metadata canonical."""
    origin, arguments = get_origin(annotation), get_args(annotation)
    if origin is Annotated:
        metadata = json.dumps(_canonical(list(annotation.__metadata__)), sort_keys=True)
        return f"Annotated[{_annotation_text(arguments[0])}, {metadata}]"
    if origin is Literal:
        return f"Literal[{json.dumps(_canonical(list(arguments)), sort_keys=True)}]"
    if origin is not None:
        return f"{_annotation_text(origin)}[{', '.join(_annotation_text(argument) for argument in arguments)}]"
    if isinstance(annotation, type):
        return f"{annotation.__module__}.{_class_name(annotation)}"
    return _ADDRESS.sub("", repr(annotation))


def _canonical(value: Any, depth: int = 0) -> Any:
    """`value` as JSON data written the same in every process: sets sorted, callables and classes by name, other
    objects as their type and attributes (to `_DEEPEST` levels), no addresses."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return repr(value)  # (NaN and infinities too)
    if isinstance(value, dict):
        return sorted(([_canonical(key, depth), _canonical(item, depth)] for key, item in value.items()), key=_text)
    if isinstance(value, (list, tuple)):
        return [_canonical(item, depth) for item in value]
    if isinstance(value, (set, frozenset)):
        return sorted((_canonical(item, depth) for item in value), key=_text)
    if isinstance(value, type):
        return f"{value.__module__}.{_class_name(value)}"
    if callable(value) and hasattr(value, "__qualname__"):  # (by name only: rapidfuzz's module names the CPU's SIMD)
        return str(value.__qualname__)
    attributes = getattr(value, "__dict__", None)
    if isinstance(attributes, dict) and depth < _DEEPEST:
        return [_class_name(type(value)), _canonical(attributes, depth + 1)]
    return _ADDRESS.sub("", repr(value)) if depth < _DEEPEST else _class_name(type(value))


def _text(value: Any) -> str:
    return json.dumps(value, sort_keys=True, default=str)


def _comparators_of(evaluator: StructuredOutputSimilarity) -> list[Any]:
    """Each field's comparator in stickler's eval model (nested models too), with its settings, canonical."""
    from .engine.listmatch import model_paths

    model = evaluator._spec.eval_model  # (the evaluator's own spec: the model stickler compares)
    found = []
    for path, cls in [("", model), *((path, cls) for path, cls, _, _ in model_paths(model))]:
        for name in getattr(cls, "model_fields", {}):
            try:
                comparator = cls._get_comparison_info(name).comparator
            except Exception:  # noqa: BLE001 - a field without a comparison of its own (explain() covers it)
                continue
            found.append([path, name, _canonical(comparator)])
    return found


def error_row(model_name: str, kind: str, reason: str) -> Scored:
    """The error row for a document that could not be scored; `cases_frame` shows it as `error`."""
    row = EvaluationOutput(score=0.0, test_pass=False, reason=reason, label=model_name, metadata={"error": kind})
    return Scored(0.0, False, reason, [row])


def score_one(evaluator: StructuredOutputSimilarity, name: str, expected: Any, actual: Any) -> Scored:
    """Score one document as `Experiment._run_evaluator` does, turning an exception into an error row."""
    try:
        outputs = evaluator.evaluate(
            EvaluationData(input=None, name=name, expected_output=expected, actual_output=actual)
        )
        score, passed, reason = evaluator.aggregator(outputs)
        return Scored(float(score), passed, reason or "", outputs)
    except Exception as exc:  # noqa: BLE001 - isolated per document, reported on its row
        return error_row(evaluator.model_cls.__name__, "raised", f"Evaluator error: {type(exc).__name__}: {exc}")


def score_chunk(settings: WorkerSettings, chunk: list[tuple[str, Any, Any]] | bytes) -> list[Scored]:
    """Worker entry point: score `(name, expected, actual)` triples with the cached evaluator.

    With a model sent by value the chunk arrives as cloudpickle bytes (see `wire`); the
    evaluator is built first, so the documents load as instances of its very class.

    Raises:
        ModelNotLoaded: If the evaluator cannot be built here (see `_evaluator`).
    """
    evaluator = _evaluator(settings)
    if isinstance(chunk, bytes):
        import cloudpickle

        triples: list[tuple[str, Any, Any]] = cloudpickle.loads(chunk)
    else:
        triples = chunk
    return [score_one(evaluator, name, expected, actual) for name, expected, actual in triples]


def wire(chunk: list[Pair], settings: WorkerSettings) -> list[tuple[str, Any, Any]] | bytes:
    """What a worker needs of each pair: the case record (input, metadata) stays in the parent.

    With the model sent by value, the documents are pickled by value too (they may be instances
    of that class, which the worker could not import by name).
    """
    triples = [(pair.name, pair.expected, pair.actual) for pair in chunk]
    if settings.model_blob is None:
        return triples
    import cloudpickle

    return cloudpickle.dumps(triples)  # type: ignore[no-any-return]


def by_value(model_cls: type[BaseModel]) -> bytes:
    """`model_cls` pickled by value (cloudpickle), for workers that cannot import it by name.

    Raises:
        TypeError: If it cannot be pickled, naming why (a class that holds a lock, an open file
            or a live client in its namespace, say).
    """
    import cloudpickle

    where = f"{model_cls.__module__}.{model_cls.__qualname__}"
    try:
        blob: bytes = cloudpickle.dumps(model_cls)
        cloudpickle.loads(blob)
    except Exception as exc:  # noqa: BLE001 - any failure means the workers cannot have the model
        raise TypeError(
            f"model_cls must be importable by dotted path or picklable by value to score on worker processes; "
            f"{where} is neither (defined in __main__, a notebook or a function, and cloudpickle failed: "
            f"{type(exc).__name__}: {exc}). Move the model to a module, or pass workers=1"
        ) from exc
    return blob


def score_in_process(
    evaluator: StructuredOutputSimilarity, source: Iterator[Pair]
) -> Generator[tuple[Pair, Scored], None, None]:
    """Each pair with its result, scored in this process, in order."""
    for pair in source:
        yield pair, score_one(evaluator, pair.name, pair.expected, pair.actual)
