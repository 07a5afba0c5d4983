"""Lenient reading: a side that does not validate as the model is read field by field, and nothing is lost.

Real labels and real model output carry odd values: a date printed `10/05/16 - 10/11/16`, an
amount `N/A`, `LineItems: null`, a list where the model has one string. Validating the whole
document as the model rejects it for any one of them, and the evaluator would then score the
whole document 0.0 as unreadable. `read_leniently` reads the side field by field instead:

- a field that validates is kept as validated (amounts parsed, dates parsed, as the model says);
- a scalar that does not parse keeps its **raw text**, and that text is what the field's own
  comparator compares (kind `unparsed`): a date comparator parses many more layouts than a
  model does (`OCT 05 16` matches `2016-10-05`; a range scores by overlap), edit distance
  compares text, a numeric comparator reads the digits out of text (`$1,2O0.00` is 1200) and
  scores 0.0 when it finds none. A non-string value (`["M", "T"]`) is compared as its JSON text;
- a null where the field does not accept one is read as the field's default (kind `null`):
  `LineItems: null` is an empty list;
- a required field that is absent, or null where it takes no null, is read as missing (kind
  `missing`);
- a value where an object or list belongs that is neither (`LineItems: "see attached"`), or a
  list item that is not an object, cannot be compared as text: it is left out (kind `dropped`);
  a null item in a list that takes one (`list[Item | None]`) is kept, as validation keeps it;
- nested objects and list items are read the same way, so one odd line item date costs only
  that date;
- an object whose every field reads but which fails the model's own check (a `model_validator`,
  such as "total covers subtotal") is compared as read (kind `object`, the check's message). A
  field is validated as its type alone when such a check fails or breaks on the object while it is
  still being built.

Every such value gets a `ReadingNote` (side, path, kind, raw value, the text compared, why), which
the evaluator puts on the row (`metadata["reading"]`), in the reason, and on the matching
non-match records; `StructuredOutputReport` shows them in `cases_frame()` and `summary()`. A side
that validates is untouched, so rows that needed no lenient reading are exactly the upstream
rows. `StructuredOutputSimilarity(..., strict=True)` turns all of this off.

`compare` scores a pair where a side was read leniently: each side becomes an instance of the
engine's comparison model (built from the model's JSON form, field by field when a null sits in
a field the engine model does not let be null), the raw texts are set on it, and the two are
compared as the evaluator compares any pair (each list matched once, vectorised where it can be).
"""

from __future__ import annotations

import functools
import json
import logging
import types
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Union, get_args, get_origin

from pydantic import AliasChoices, BaseModel, TypeAdapter, ValidationError

logger = logging.getLogger(__name__)

__all__ = ["KINDS", "LenientRead", "ReadingNote", "compare", "read_leniently", "render_path"]

#: Note kind -> what happened to the value, in words.
KINDS: dict[str, str] = {
    "unparsed": "did not parse; its raw text is compared",
    "null": "null where the field takes none; read as the field's default",
    "missing": "a required field is absent (or null where null is not allowed); read as missing",
    "dropped": "neither text nor the object or list the field holds; left out",
    "object": "every field read, but the object fails the model's own check (a model validator); compared as read",
}

Path = tuple[str | int, ...]
# A list item left out of the list that is compared.
_DROPPED = object()


@dataclass(frozen=True)
class ReadingNote:
    """One value that did not validate as the model, and what the lenient reader did with it.

    Attributes:
        side: `expected_output` or `actual_output`.
        path: Dotted path with `[i]` for list items, indexed as on that side (`LineItems[0].LineItemDays`).
        kind: One of `KINDS`: `unparsed`, `null`, `missing`, `dropped` or `object`.
        raw: The value as given (plain JSON types).
        text: The text the comparator saw, for `unparsed`; None otherwise.
        message: Why it did not validate (the model's own message).
    """

    side: str
    path: str
    kind: str
    raw: Any
    text: str | None
    message: str

    def to_dict(self) -> dict[str, Any]:
        """The note as plain JSON, as rows carry it."""
        return {
            "side": self.side,
            "path": self.path,
            "kind": self.kind,
            "raw": self.raw,
            "text": self.text,
            "message": self.message,
        }

    def short(self) -> str:
        """The note in one phrase, for reasons and tables.

        Examples: `expected_output LineItems[0].LineItemStartDate "10/05/16 - 10/11/16" did not
        parse, compared as text`; `actual_output LineItems is null, read as the field's default`.
        """
        shown = json.dumps(self.raw, ensure_ascii=False, default=repr)
        shown = shown if len(shown) <= 40 else shown[:37] + "..."
        what = {
            "unparsed": f"{shown} did not parse, compared as text",
            "null": "is null, read as the field's default",
            "missing": "is required and absent (or null), read as missing",
            "dropped": f"{shown} is not the object or list it should be, left out",
            "object": f"fails the model's own check ({self.message}), compared as read",
        }[self.kind]
        return f"{self.side} {self.path} {what}"


@dataclass
class LenientRead:
    """A side read leniently: the instance, the notes, and the raw texts to compare.

    Attributes:
        instance: An instance of the model, built without whole-document validation; a field
            that did not validate holds its default or None.
        notes: One `ReadingNote` per value that did not validate.
        texts: Path -> raw text, for each `unparsed` value (the comparator sees this text).
    """

    instance: BaseModel
    notes: list[ReadingNote] = field(default_factory=list)
    texts: dict[Path, str] = field(default_factory=dict)


def render_path(path: Sequence[str | int]) -> str:
    """`("LineItems", 0, "LineItemDays")` -> `LineItems[0].LineItemDays`; `$` for the root."""
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out or "$"


def _plain(value: Any) -> Any:
    """`value` as plain JSON types, for notes (models dumped, other objects by repr)."""
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json", warnings=False)
    try:
        return json.loads(json.dumps(value, default=repr))
    except (TypeError, ValueError):  # pragma: no cover - default=repr serializes anything
        return repr(value)


def _text(value: Any) -> str:
    """The text an unparsed value is compared as: a string as is, anything else as JSON."""
    return value if isinstance(value, str) else json.dumps(_plain(value), ensure_ascii=False)


def _unwrap(annotation: Any) -> Any:
    """`X` from `X | None` / `Optional[X]`; other annotations unchanged."""
    if get_origin(annotation) in (Union, types.UnionType):
        args = [arg for arg in get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def _model(annotation: Any) -> type[BaseModel] | None:
    return annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None


def _list_of(annotation: Any) -> Any | None:
    """The element annotation of a list type as written (`It | None` stays so), or None when `annotation` is not
    one."""
    if get_origin(annotation) in (list, Sequence) or annotation is list:
        args = get_args(annotation)
        return args[0] if args else Any
    return None


def _takes_none(annotation: Any) -> bool:
    """Whether a value of `annotation` may be None (`X | None`, `Optional[X]`, `Any`, `None`)."""
    if annotation is Any or annotation is None or annotation is type(None):
        return True
    return get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation)


def _key(cls: type[BaseModel], name: str, data: Mapping[str, Any]) -> str | None:
    """The key `data` holds the field `name` under: its name, else an alias, as pydantic reads it."""
    if name in data:
        return name
    info = cls.model_fields[name]
    alias = info.validation_alias if info.validation_alias is not None else info.alias
    for choice in alias.choices if isinstance(alias, AliasChoices) else [alias]:
        if isinstance(choice, str) and choice in data:
            return choice
    return None


class _Reader:
    """Reads one side field by field, collecting notes and texts."""

    def __init__(self, side: str) -> None:
        self.side = side
        self.notes: list[ReadingNote] = []
        self.texts: dict[Path, str] = {}

    def note(self, path: Path, kind: str, raw: Any, message: str, text: str | None = None) -> None:
        self.notes.append(ReadingNote(self.side, render_path(path), kind, _plain(raw), text, message))

    def model(self, cls: type[BaseModel], data: Mapping[str, Any], path: Path) -> BaseModel:
        try:
            return _with_extra(cls.model_validate(data, strict=False, extra="ignore", by_name=True))
        except ValidationError as exc:
            whole = [error["msg"] for error in exc.errors(include_url=False) if not error["loc"]]
        instance = _with_extra(cls.model_construct())
        given: set[str] = set()
        noted = len(self.notes)
        for name, info in cls.model_fields.items():
            where = (*path, name)
            key = _key(cls, name, data)
            if key is None:
                if info.is_required():
                    self.note(where, "missing", None, "Field required")
                    instance.__dict__[name] = None
                continue
            given.add(name)
            value = data[key]
            found = _field_value(cls, instance, name, info, value)
            if not isinstance(found, str):
                instance.__dict__[name] = found[0]
                continue
            instance.__dict__[name] = self.field(info.annotation, info, value, where, found)
        instance.__pydantic_fields_set__ = given
        if whole and len(self.notes) == noted:  # every field read as it is: only the object's own check failed
            self.note(path, "object", None, whole[0])
        return instance

    def field(self, annotation: Any, info: Any, value: Any, where: Path, message: str) -> Any:
        """The value to hold for a field that did not validate."""
        inner = _unwrap(annotation)
        child, element = _model(inner), _list_of(inner)
        if value is None:
            if info is None or info.is_required():
                self.note(where, "missing", None, f"{message} (null in a field that takes no null)")
                return None
            self.note(where, "null", None, message)
            return info.get_default(call_default_factory=True)
        if child is not None and isinstance(value, Mapping):
            return self.model(child, value, where)
        if element is not None and isinstance(value, list):
            return self.items(element, value, where)
        if child is not None or element is not None or get_origin(inner) is dict or inner is dict:
            wanted = "an object" if child is not None or get_origin(inner) is dict or inner is dict else "a list"
            self.note(where, "dropped", value, f"{message} ({wanted} belongs here)")
            return None if info is None or info.is_required() else info.get_default(call_default_factory=True)
        text = _text(value)
        self.texts[where] = text
        self.note(where, "unparsed", value, message, text)
        return None

    def items(self, element: Any, value: list[Any], where: Path) -> list[Any]:
        """A list's items; an item that cannot be an object of the list's model is left out.

        Texts of later items move to the item's index in the list that is compared; notes
        keep the index as given.
        """
        kept: list[Any] = []
        for index, item in enumerate(value):
            result = self.item(element, item, (*where, index))
            if result is _DROPPED:
                continue
            if len(kept) != index:
                old, new = (*where, index), (*where, len(kept))
                self.texts = {
                    (new + path[len(old) :] if path[: len(old)] == old else path): text
                    for path, text in self.texts.items()
                }
            kept.append(result)
        return kept

    def item(self, element: Any, item: Any, where: Path) -> Any:
        if item is None and _takes_none(element):
            return None  # a null item where the list takes one (`list[It | None]`): kept, as validation keeps it
        element = _unwrap(element)
        child = _model(element)
        if child is not None and isinstance(item, Mapping):
            return self.model(child, item, where)
        try:
            return _adapter(element).validate_python(item, strict=False)
        except ValidationError as exc:
            message = exc.errors(include_url=False)[0]["msg"]
        if child is not None or _list_of(element) is not None:
            self.note(where, "dropped", item, message)
            return _DROPPED
        return self.field(element, None, item, where, message)


def _field_value(cls: type[BaseModel], instance: BaseModel, name: str, info: Any, value: Any) -> tuple[Any] | str:
    """`(value as the field validates it,)`, or the message saying why it does not.

    The field is validated by assignment (its type, constraints and field validators). A model's own
    checks (`model_validator`) run then too, on an object still being built: when one of them fails
    or breaks (it reads a field not set yet), the value is validated as the field's type alone.
    """
    try:
        cls.__pydantic_validator__.validate_assignment(instance, name, value)
        return (instance.__dict__[name],)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        own = [error for error in errors if error["loc"]]
        if own:
            return str(own[0]["msg"])
    except Exception:  # noqa: BLE001 - a model validator reading what is not set yet (AttributeError, KeyError...)
        logger.debug("model=<%s>, field=<%s> | a model validator failed on a partial object", cls.__name__, name)
    try:
        return (_field_adapter(cls, name).validate_python(value, strict=False),)
    except ValidationError as exc:
        return str(exc.errors(include_url=False)[0]["msg"])


@functools.lru_cache(maxsize=1024)
def _field_adapter(cls: type[BaseModel], name: str) -> TypeAdapter[Any]:
    """A validator for one field of `cls` on its own (its type, constraints and field validators), built once:
    building one costs far more than using it, and a document reads the same fields in every list item."""
    info = cls.model_fields[name]
    annotated: Any = Annotated[info.annotation, info]  # (a type built at run time)
    return TypeAdapter(annotated)


def _adapter(annotation: Any) -> TypeAdapter[Any]:
    """A validator for `annotation`, built once per annotation (one that cannot be a cache key is built each time)."""
    try:
        return _cached_adapter(annotation)
    except TypeError:  # an unhashable annotation (metadata without a hash)
        return TypeAdapter(annotation)


@functools.lru_cache(maxsize=1024)
def _cached_adapter(annotation: Any) -> TypeAdapter[Any]:
    return TypeAdapter(annotation)


def _with_extra(instance: BaseModel) -> BaseModel:
    """`instance`, and every model inside it, holding no extra fields the way its model holds them.

    A model that allows extra fields (stickler's comparison models do) keeps them in a dict; validated
    with `extra="ignore"` (so that keys outside the model are left out), pydantic leaves None there
    instead, in the nested models too, and the engine's false-alarm count (`len(other.__pydantic_extra__)`)
    raised TypeError.
    """
    stack: list[Any] = [instance]
    seen: set[int] = set()  # (a field typed Any may hold a value that contains itself)
    while stack:
        item = stack.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, BaseModel):
            if item.__pydantic_extra__ is None and item.model_config.get("extra") == "allow":
                object.__setattr__(item, "__pydantic_extra__", {})
            stack.extend(item.__dict__.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.values())
    return instance


def read_leniently(cls: type[BaseModel], data: Mapping[str, Any], side: str) -> LenientRead:
    """Read `data` as `cls` field by field; see the module docstring for what happens to each value.

    Args:
        cls: The model.
        data: The side as a mapping (a JSON object).
        side: `expected_output` or `actual_output`, for the notes.

    Returns:
        A `LenientRead`. When `data` validates whole, its instance is the validated one and
        it carries no notes.
    """
    reader = _Reader(side)
    instance = reader.model(cls, data, ())
    for note in reader.notes:
        logger.debug("side=<%s>, path=<%s>, kind=<%s> | read leniently", note.side, note.path, note.kind)
    return LenientRead(instance, reader.notes, reader.texts)


# -- comparing ------------------------------------------------------------------------------


def _engine_instance(spec: Any, read: LenientRead | None, instance: BaseModel) -> Any:
    """`instance` as the engine's comparison model, with the raw texts of `read` set on it."""
    dumped = instance.model_dump(mode="json", warnings=False)
    try:  # (the evaluator's spec reads each class's annotations once; stickler's reads them for every object)
        engine = getattr(spec, "read_model", spec.eval_model.from_json)(dumped)
    except (ValidationError, ValueError, TypeError):
        # A null the engine model does not let be null (a required field read as missing):
        # build it field by field too; the notes were taken on the model already.
        engine = _Reader("engine").model(spec.eval_model, dumped, ())
        object.__setattr__(engine, "__stickler_raw_json__", dumped)
    for path, text in (read.texts if read is not None else {}).items():
        _put(engine, path, text)
    return engine


def _put(target: Any, path: Path, text: str) -> None:
    """Set `text` at `path` inside an engine instance, without validation."""
    *parents, last = path
    for step in parents:
        target = target[step] if isinstance(step, int) else getattr(target, step, None)
        if target is None:
            return
    if isinstance(last, int):
        if isinstance(target, list) and last < len(target):
            target[last] = text
    else:
        object.__setattr__(target, last, text)


def compare(
    spec: Any,
    expected: BaseModel,
    actual: BaseModel,
    reads: Mapping[str, LenientRead],
    *,
    document_non_matches: bool,
) -> Any:
    """Score a pair where at least one side was read leniently, as the evaluator scores any pair.

    Args:
        spec: The evaluator's stickler `EvalSpec` (its `eval_model` and match threshold). When it
            has `compare_models` (`engine.listmatch.MatchOnceSpec`, the evaluator's spec unless both
            `non_matches` and `fast_matching` are off), that compares the two instances: each list
            matched once, vectorised where its elements allow, the same result as stickler's (a
            document with one odd value in a 200-item table took seconds on stickler's path).
            Otherwise stickler's `compare_with`.
        expected: The expected side, an instance of the model (`LenientRead.instance` when lenient).
        actual: The actual side.
        reads: `{"expected_output": LenientRead, "actual_output": LenientRead}` for the sides
            read leniently.
        document_non_matches: Ask stickler's `compare_with` for the non-match records in the same
            comparison (a spec with `compare_models` has its own setting).

    Returns:
        stickler's `EvalResult` of one comparison, as the evaluator's spec builds it.
    """
    from stickler.auto.facade import EvalResult

    gt = _engine_instance(spec, reads.get("expected_output"), expected)
    pred = _engine_instance(spec, reads.get("actual_output"), actual)
    with warnings.catch_warnings():
        # stickler dumps a whole list item into a non-match record; an item holding kept text in
        # a number field makes pydantic warn that the text is not a number, which is the point.
        # (catch_warnings is process-wide before Python 3.14; this filter hides only that warning.)
        warnings.filterwarnings("ignore", message="Pydantic serializer warnings", category=UserWarning)
        compare_models = getattr(spec, "compare_models", None)
        if compare_models is not None:  # the evaluator's spec: each list matched once, vectorised where it can be
            return compare_models(gt, pred)
        raw = gt.compare_with(
            pred,
            include_confusion_matrix=True,
            add_derived_metrics=True,
            document_non_matches=document_non_matches,
        )
    return EvalResult(raw, spec, ground_truth=gt, prediction=pred)
