"""Shared pieces of the differential tests: exact comparison of engine results, and generated documents.

`assert_identical` compares two stickler result trees value for value AND type for type (a
numpy float where the engine has a numpy float, a Python float where it has one, the same
key order), because the rows and the saved report are built from them. The strategies make
documents that stress list matching: ties, duplicates, blanks (None, "", whitespace),
unicode (combining-free accents, the German sharp s that case-folds to "ss", a character
outside the BMP), numbers at the relative-tolerance edge, dates a day apart, and nested lists.
"""

from __future__ import annotations

import datetime
import math
from typing import Any

from hypothesis import strategies as st
from pydantic import BaseModel


def differences(a: Any, b: Any, path: str = "$") -> str | None:
    """The first place two result trees differ (type, keys, order or value), else None."""
    if type(a) is not type(b):
        return f"{path}: {type(a).__name__} {a!r} != {type(b).__name__} {b!r}"
    if isinstance(a, dict):
        if list(a) != list(b):
            return f"{path}: keys {list(a)} != {list(b)}"
        for key in a:
            found = differences(a[key], b[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(a, (list, tuple)):
        if len(a) != len(b):
            return f"{path}: length {len(a)} != {len(b)}"
        for index, (x, y) in enumerate(zip(a, b, strict=True)):
            found = differences(x, y, f"{path}[{index}]")
            if found:
                return found
        return None
    if isinstance(a, float):
        same = (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
        return None if same else f"{path}: {a!r} != {b!r}"
    if isinstance(a, BaseModel):
        return differences(a.model_dump(), b.model_dump(), path)
    try:
        equal = bool(a == b)
    except Exception:  # noqa: BLE001 - numpy arrays and the like
        equal = repr(a) == repr(b)
    return None if equal else f"{path}: {a!r} != {b!r}"


def assert_identical(expected: Any, actual: Any) -> None:
    found = differences(expected, actual)
    assert found is None, found


# -- values that make list matching hard ----------------------------------------------------

WORDS = ["Widget", "widget ", "WIDGET", "Widget machine", "machine widget", "USB cable", "usb-cable"]
WORDS += ["Straße", "STRASSE"]
TEXT = st.one_of(
    st.none(),
    st.just(""),
    st.just("  "),
    st.sampled_from(WORDS),
    st.text(alphabet="aAbB -é\U0001d518ß1", max_size=7),
)
INTS = st.one_of(st.none(), st.sampled_from([0, 1, 2, 5, 10, -1, 2**40]))
FLOATS = st.one_of(
    st.none(),
    st.sampled_from([0.0, -0.0, 1.0, 1.0005, 1.001, 1.0011, 4.99, 5.0, 49.99, 50.0, 100.0, 100.1, 1e20, 1e-5, -3.5]),
)
DATES = st.one_of(
    st.none(),
    st.sampled_from([datetime.date(2024, 3, 1), datetime.date(2024, 3, 2), datetime.date(2024, 1, 3)]),
)
FLAGS = st.one_of(st.none(), st.booleans())


def mutated(data: st.DataObject, item: dict[str, Any], fields: dict[str, st.SearchStrategy[Any]]) -> dict[str, Any]:
    """`item` with some of its fields redrawn (none, some or all)."""
    changed = dict(item)
    for name in data.draw(st.lists(st.sampled_from(sorted(fields)), max_size=len(fields), unique=True)):
        changed[name] = data.draw(fields[name])
    return changed


def prediction_list(
    data: st.DataObject, truth: list[dict[str, Any]], fields: dict[str, st.SearchStrategy[Any]], max_extra: int = 3
) -> list[dict[str, Any]]:
    """A predicted list: ground-truth items kept, changed, dropped or duplicated, some invented, reordered."""
    predicted: list[dict[str, Any]] = []
    for item in truth:
        fate = data.draw(st.sampled_from(["keep", "change", "drop", "twice"]))
        if fate == "keep":
            predicted.append(dict(item))
        elif fate == "change":
            predicted.append(mutated(data, item, fields))
        elif fate == "twice":
            predicted += [dict(item), mutated(data, item, fields)]
    predicted += data.draw(st.lists(st.fixed_dictionaries(fields), max_size=max_extra))
    return data.draw(st.permutations(predicted)) if predicted else predicted


# -- a schema with every kind of list, and documents of it ---------------------------------


class Line(BaseModel):
    sku: str | None = None  # exact, case-sensitive
    description: str | None = None  # fuzzy token-set ratio, no clipping
    vendor_name: str | None = None  # Levenshtein at 0.85
    color: str | None = None  # Levenshtein at 0.7
    address: str | None = None  # fuzzy token-sort ratio
    email: str | None = None  # exact, case-folded
    quantity: int | None = None  # numeric, exact
    unit_price: float | None = None  # numeric, relative tolerance
    ship_date: datetime.date | None = None  # date
    gift: bool | None = None  # exact


class Tiny(BaseModel):
    code: str | None = None
    qty: int | None = None


class Stamped(BaseModel):
    label: str | None = None
    seen_at: datetime.datetime | None = None  # sub-day tolerance: the comparator per distinct pair


class Shipment(BaseModel):
    ref: str | None = None
    parcels: list[Tiny] = []  # a list of objects inside a list element: the outer list is paired


class Party(BaseModel):
    name: str | None = None
    lines: list[Tiny] = []  # a list inside a nested object


class Document(BaseModel):
    title: str | None = None
    lines: list[Line] = []
    tiny: list[Tiny] = []
    stamped: list[Stamped] = []
    shipments: list[Shipment] = []
    party: Party | None = None


LINE = {
    "sku": TEXT,
    "description": TEXT,
    "vendor_name": TEXT,
    "color": TEXT,
    "address": TEXT,
    "email": TEXT,
    "quantity": INTS,
    "unit_price": FLOATS,
    "ship_date": DATES,
    "gift": FLAGS,
}
TINY = {"code": st.sampled_from([None, "", "A", "a", "B", "Straße", "STRASSE"]), "qty": st.sampled_from([None, 1, 2])}
STAMPED = {
    "label": TEXT,
    "seen_at": st.sampled_from(
        [
            None,
            datetime.datetime(2024, 3, 1, 10),
            datetime.datetime(2024, 3, 1, 10, 0, 30),
            datetime.datetime(2024, 3, 2),
        ]
    ),
}


@st.composite
def documents(draw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    data = draw(st.data())

    def pair(fields: dict[str, Any], size: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        truth = data.draw(st.lists(st.fixed_dictionaries(fields), max_size=size))
        return truth, prediction_list(data, truth, fields, max_extra=2)

    lines, lines_p = pair(LINE, 6)
    tiny, tiny_p = pair(TINY, 6)
    stamped, stamped_p = pair(STAMPED, 3)
    shipments = [{"ref": data.draw(TEXT), "parcels": pair(TINY, 3)[0]} for _ in range(data.draw(st.integers(0, 3)))]
    shipments_p = [
        {"ref": s["ref"], "parcels": prediction_list(data, s["parcels"], TINY, max_extra=1)}
        for s in data.draw(st.permutations(shipments))
    ]
    party_lines, party_lines_p = pair(TINY, 4)
    gt = {
        "title": data.draw(TEXT),
        "lines": lines,
        "tiny": tiny,
        "stamped": stamped,
        "shipments": shipments,
        "party": {"name": "Acme", "lines": party_lines},
    }
    pred = {
        "title": data.draw(TEXT),
        "lines": lines_p,
        "tiny": tiny_p,
        "stamped": stamped_p,
        "shipments": shipments_p,
        "party": data.draw(st.sampled_from([None, {"name": "ACME", "lines": party_lines_p}])),
    }
    return gt, pred
