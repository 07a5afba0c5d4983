"""The dataset's own schema: build a Pydantic model from the `json_schema` column.

Each row of `amazon-agi/RealKIE-FCC-Verified` carries the JSON Schema its label follows. Two
things stop it from being used as is, both handled here:

- The hub stores the column as an Arrow struct, so every object in it holds every key any object
  in the column has, absent ones as null (`{"type": "string", "anyOf": null, "items": null}`).
  Null-valued keys are dropped: JSON Schema has no keyword whose value may be null.
- It declares amounts with the non-standard type `"float"`, which validators reject; it is read
  as JSON Schema's `"number"` (and `"int"` as `"integer"`).

`model_from_json_schema` then builds a plain Pydantic model with `json-schema-to-pydantic` (the
library stickler itself uses), so `StructuredOutputSimilarity` infers its comparators as for any
hand-written model. Dates in that schema are strings, so they are compared by edit distance
unless you write the model yourself (see `models.FCCInvoice`): the FCC notebook shows the cost.

Examples:
    >>> schema = {"type": "object", "properties": {"GrossTotal": {"anyOf": [{"type": "float"}, {"type": "null"}]}},
    ...           "required": None}
    >>> normalize_json_schema(schema)
    {'type': 'object', 'properties': {'GrossTotal': {'anyOf': [{'type': 'number'}, {'type': 'null'}]}}}
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

logger = logging.getLogger(__name__)

__all__ = ["model_from_json_schema", "normalize_json_schema"]

#: Type names the dataset uses that JSON Schema spells otherwise.
TYPE_NAMES = {"float": "number", "double": "number", "int": "integer"}

# Keywords whose value is a mapping of names to schemas: their keys are names, not keywords, so a
# null there is a property whose schema is missing (dropped with the others).
_NAMED = frozenset({"properties", "patternProperties", "$defs", "definitions"})


def normalize_json_schema(schema: Mapping[str, Any] | str) -> dict[str, Any]:
    """The dataset's `json_schema` as standard JSON Schema.

    Args:
        schema: The column's value: a dict (as `datasets` reads a struct column) or JSON text.

    Returns:
        A new dict: null-valued keys dropped at every depth, and the type names of `TYPE_NAMES`
        (`"float"`, `"int"`) replaced by JSON Schema's own, in `type` and in type lists.

    Raises:
        ValueError: If `schema` is text that is not JSON, or is not an object.
    """
    if isinstance(schema, str):
        try:
            schema = json.loads(schema)
        except json.JSONDecodeError as exc:
            raise ValueError(
                f"json_schema must be a JSON object or JSON text; it is text that is not JSON: {exc}"
            ) from exc
    if not isinstance(schema, Mapping):
        raise ValueError(f"json_schema must be a JSON object; got {type(schema).__name__}")
    return _clean(schema)  # type: ignore[no-any-return]


def _clean(node: Any) -> Any:
    if isinstance(node, Mapping):
        out: dict[str, Any] = {}
        for key, value in node.items():
            if value is None:
                continue
            if key == "type":
                value = (
                    [TYPE_NAMES.get(v, v) for v in value] if isinstance(value, list) else TYPE_NAMES.get(value, value)
                )
            out[str(key)] = _clean(value)
        return out
    if isinstance(node, list):
        return [_clean(item) for item in node]
    return node


def model_from_json_schema(schema: Mapping[str, Any] | str, *, name: str = "FCCSchemaInvoice") -> type[BaseModel]:
    """A Pydantic model built from the dataset's `json_schema` (normalized first).

    Args:
        schema: The column's value, as `normalize_json_schema` accepts it.
        name: The model's class name. Default `"FCCSchemaInvoice"` (a schema `title` is replaced).

    Returns:
        A plain Pydantic model: properties become fields, `anyOf` with null an optional field,
        `required` required fields, arrays of objects lists of nested models.

    Raises:
        ValueError: If the schema is not an object schema, or `json-schema-to-pydantic` cannot
            build a model from it (the message says which part).
    """
    from json_schema_to_pydantic import create_model

    normalized = normalize_json_schema(schema)
    if normalized.get("type") != "object" or not isinstance(normalized.get("properties"), Mapping):
        raise ValueError(
            f"json_schema must describe an object with properties; got type {normalized.get('type')!r} "
            f"and keys {sorted(normalized)}"
        )
    try:
        model: type[BaseModel] = create_model({**normalized, "title": name})
    except Exception as exc:  # the library raises its own SchemaError, TypeError and others
        raise ValueError(f"json_schema could not be turned into a model: {type(exc).__name__}: {exc}") from exc
    logger.debug("model=<%s>, fields=<%d> | built a model from json_schema", name, len(model.model_fields))
    return model
