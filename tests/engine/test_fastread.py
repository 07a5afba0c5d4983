"""`fastread.read` against stickler's `from_json`: the same instance, extras and private attributes."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import pytest
from differential import Document, assert_identical, documents
from hypothesis import HealthCheck, given, settings
from stickler.auto import eval_for
from stickler.auto.facade import _dump
from stickler.structured_object_evaluator.models.comparable_field import ComparableField
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

from structsim_nb.demo import Invoice, synthetic_invoice_pairs
from structsim_nb.engine.fastread import read

PRIVATE = ("__stickler_raw_json__", "__stickler_field_confidences__", "__stickler_field_extras__")


def state(instance: Any) -> dict[str, Any]:
    """Everything a comparison can read off an instance, nested objects included."""
    return {
        "dump": instance.model_dump(),
        "extra_fields": instance.extra_fields,
        "private": {name: getattr(instance, name, "<unset>") for name in PRIVATE},
        "types": [type(getattr(instance, name)).__name__ for name in type(instance).model_fields],
        "nested_extras": [
            item.extra_fields
            for name in type(instance).model_fields
            for item in (getattr(instance, name) if isinstance(getattr(instance, name), list) else [])
            if isinstance(item, StructuredModel)
        ],
    }


class TestRead:
    @settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
    @given(doc=documents())
    def test_same_as_from_json_on_generated_documents(self, doc):
        model = eval_for(Document).eval_model
        for side in doc:
            data = _dump(Document.model_validate(side))
            assert_identical(state(model.from_json(data)), state(read(model, data)))

    def test_same_as_from_json_on_invoices(self):
        model = eval_for(Invoice).eval_model
        for pair in synthetic_invoice_pairs(20, line_items=(0, 30), seed=3):
            data = _dump(pair["actual"])
            assert_identical(state(model.from_json(data)), state(read(model, data)))

    def test_extra_keys_rich_values_and_confidences_as_from_json(self):
        model = eval_for(Invoice).eval_model
        data = {
            "invoice_id": {"_value": "INV-1", "_confidence": 0.9, "_source": "page 1"},
            "vendor_name": "Acme",
            "surprise": [1, 2],
            "line_items": [{"sku": "A", "odd": True}, {"sku": {"_value": "B", "_confidence": 0.4}}],
        }
        assert_identical(state(model.from_json(data)), state(read(model, data)))

    def test_an_invalid_document_fails_the_same_way(self):
        model = eval_for(Invoice).eval_model
        data = {"invoice_id": "x", "vendor_name": "y", "line_items": [{"sku": "A"}, "not an object"]}
        with pytest.raises(ValueError) as stock:
            model.from_json(data)
        with pytest.raises(ValueError) as ours:
            read(model, data)
        assert type(ours.value) is type(stock.value)
        assert str(ours.value) == str(stock.value)

    @pytest.mark.parametrize("where", ["top", "nested"])
    def test_reserved_names_are_refused_the_same_way(self, where):
        model = eval_for(Invoice).eval_model
        bad = {"__stickler_raw_json__": 1}
        data = {"invoice_id": "x", "vendor_name": "y", **(bad if where == "top" else {})}
        if where == "nested":
            data["line_items"] = [{"sku": "A", **bad}]
        with pytest.raises(ValueError) as stock:
            model.from_json(data)
        with pytest.raises(ValueError) as ours:
            read(model, data)
        assert str(ours.value) == str(stock.value)

    def test_a_class_with_its_own_from_json_is_read_by_it(self):
        class Custom(StructuredModel):
            name: str | None = ComparableField(default=None)

            @classmethod
            def from_json(cls, json_data, process_rich_values=None, process_confidence=None):  # type: ignore[override]
                instance = super().from_json({"name": "always"})
                return instance

        assert read(Custom, {"name": "x"}).name == "always"

    def test_a_model_that_holds_itself_is_not_kept(self):
        # The per-class answers are keyed weakly; holding the nested class strongly kept a model that nests
        # itself (or two that nest each other) for the life of the process, with every class made in a loop.
        def make() -> type:
            class Node(StructuredModel):
                label: str | None = ComparableField(default=None)
                children: list[Node] | None = None

            Node.model_rebuild(_types_namespace={"Node": Node})
            return Node

        cls = make()
        node = read(cls, {"label": "a", "children": [{"label": "b", "children": [{"label": "c"}]}]})
        assert node.children[0].children[0].label == "c"
        gone = weakref.ref(cls)
        del cls, node
        gc.collect()
        assert gone() is None
