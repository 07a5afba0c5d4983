"""Reading a document as stickler's eval model, with each class's field kinds worked out once.

Before comparing, stickler reads both sides with `StructuredModel.from_json`, which for every
object in the document (each line item included) asks four annotation questions per field
(`ConfigurationHelper._is_structured_model_class`, `_is_optional_structured_model`,
`_is_list_structured_model` and the matching `_extract_*`). The answers depend only on the
class, yet on a 200-item invoice they are most of the reading time, and reading was half the
time of a vectorised comparison. `read` asks the same questions with the same functions, once
per class, and then does what `from_json` does, step for step: the reserved-name check, the
rich-value unwrapping, the extra-field split, each nested object read and dumped, one
validation, and the same private attributes. `tests/engine/test_fastread.py` compares instances,
extra fields and attributes against `from_json` on generated documents.

A class that overrides `from_json` is read by its own method.
"""

from __future__ import annotations

import weakref
from typing import Any

from stickler.structured_object_evaluator.models.configuration_helper import ConfigurationHelper
from stickler.structured_object_evaluator.models.rich_value_helper import RichValueHelper
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

__all__ = ["read"]

#: class -> (its field names but `extra_fields`, {field: ("one" | "list", nested class, held weakly)}). The
#: nested class is held weakly: a model that holds itself (a tree of nodes) or two that hold each other would
#: otherwise keep their own keys alive, and with them every class made in a loop. A class's annotations hold its
#: nested classes, so a nested class lives as long as its entry.
_KINDS: weakref.WeakKeyDictionary[type, tuple[set[str], dict[str, tuple[str, weakref.ref[type]]]]] = (
    weakref.WeakKeyDictionary()
)
_FROM_JSON = StructuredModel.from_json.__func__  # type: ignore[attr-defined]


def read(cls: type[StructuredModel], json_data: Any) -> StructuredModel:
    """`cls.from_json(json_data)`, reading each class's annotations once.

    Args:
        cls: A `StructuredModel` subclass (stickler's eval model).
        json_data: The document as JSON-ready data (`model_dump(mode="json")`).

    Returns:
        The instance `cls.from_json(json_data)` returns, with the same `extra_fields` and the
        same `__stickler_*` attributes.

    Raises:
        ValueError: If the document holds a reserved `__stickler_*` key (stickler's message),
            or does not validate (pydantic's `ValidationError`).
    """
    if not _stock(cls):
        return cls.from_json(json_data)
    _check_reserved(cls, json_data)
    processed, confidences, extras = RichValueHelper.process_rich_values(json_data)
    instance = _from_json(cls, processed)
    if confidences:
        object.__setattr__(instance, "__stickler_field_confidences__", confidences)
    if extras:
        object.__setattr__(instance, "__stickler_field_extras__", extras)
    object.__setattr__(instance, "__stickler_raw_json__", json_data)
    return instance


def _stock(cls: type) -> bool:
    return getattr(getattr(cls, "from_json", None), "__func__", None) is _FROM_JSON


def _check_reserved(cls: type[StructuredModel], json_data: Any) -> None:
    # As StructuredModel.from_json (stickler-eval 1.0.0) words it.
    if isinstance(json_data, dict):
        reserved = cls._RESERVED_DUNDER_NAMES.intersection(json_data)
        if reserved:
            raise ValueError(
                f"json_data contains reserved key(s): {sorted(reserved)}. The '__stickler_*' namespace is "
                "reserved for library metadata and cannot appear in user payloads."
            )


def _kinds(cls: type[StructuredModel]) -> tuple[set[str], dict[str, tuple[str, weakref.ref[type]]]]:
    """The answers `ConfigurationHelper.from_json` computes per field, in its order of questions."""
    found = _KINDS.get(cls)
    if found is None:
        names = set(cls.model_fields.keys())
        names.discard("extra_fields")
        kinds: dict[str, tuple[str, weakref.ref[type]]] = {}
        for name in names:
            annotation = cls.model_fields[name].annotation
            nested: Any
            if ConfigurationHelper._is_structured_model_class(annotation):
                kinds[name] = ("one", weakref.ref(annotation))  # type: ignore[arg-type]
            elif ConfigurationHelper._is_optional_structured_model(annotation):
                nested = ConfigurationHelper._extract_structured_class_from_optional(annotation)
                if nested:
                    kinds[name] = ("one", weakref.ref(nested))
            elif ConfigurationHelper._is_list_structured_model(annotation):
                nested = ConfigurationHelper._extract_structured_class_from_list(annotation)
                if nested:
                    kinds[name] = ("list", weakref.ref(nested))
        found = (names, kinds)
        _KINDS[cls] = found
    return found


def _from_json(cls: type[StructuredModel], json_data: dict[str, Any]) -> StructuredModel:
    # Adapted from stickler-eval 1.0.0 ConfigurationHelper.from_json (Apache-2.0), same steps.
    data_copy = json_data.copy()
    names, kinds = _kinds(cls)
    extra_fields = {name: data_copy[name] for name in set(data_copy.keys()) - names}
    for name, (kind, held) in kinds.items():
        if name not in data_copy:
            continue
        value = data_copy[name]
        if kind == "one" and isinstance(value, dict):
            data_copy[name] = _nested(held(), value)  # type: ignore[arg-type]
        elif kind == "list" and isinstance(value, list):
            nested = held()
            data_copy[name] = [_nested(nested, item) if isinstance(item, dict) else item for item in value]  # type: ignore[arg-type]
    instance = cls.model_validate(data_copy)
    instance.extra_fields = extra_fields
    return instance


def _nested(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    """`ConfigurationHelper._process_nested_structured_data`: read the object, return its dump."""
    if not _stock(cls):
        dumped: dict[str, Any] = cls.from_json(data, process_rich_values=False).model_dump()  # type: ignore[attr-defined]
        return dumped
    _check_reserved(cls, data)  # type: ignore[arg-type]
    return _from_json(cls, data).model_dump()  # type: ignore[arg-type]
