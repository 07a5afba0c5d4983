"""The dataset's `json_schema`: normalizing what the hub stores, and the model built from it."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputSimilarity
from structsim_nb.fcc.data.build_sample import JSON_SCHEMA
from structsim_nb.fcc.schema import model_from_json_schema, normalize_json_schema


def as_the_hub_stores_it(schemas: list[dict]) -> list[dict]:
    """Schemas through an Arrow struct column, as `datasets` reads them back: absent keys become null."""
    return pa.Table.from_pylist([{"json_schema": schema} for schema in schemas]).column("json_schema").to_pylist()


class TestNormalize:
    def test_nulls_from_an_arrow_struct_are_dropped(self) -> None:
        plain = {"type": "object", "properties": {"a": {"type": "string"}}}
        other = {"type": "object", "properties": {"a": {"anyOf": [{"type": "float"}, {"type": "null"}]}}}
        read_back, _ = as_the_hub_stores_it([plain, other])
        assert read_back["properties"]["a"] == {"type": "string", "anyOf": None}
        assert normalize_json_schema(read_back) == plain

    def test_float_and_int_become_json_schema_types(self) -> None:
        schema = {"type": "object", "properties": {"a": {"type": "float"}, "b": {"type": ["int", "null"]}}}
        assert normalize_json_schema(schema)["properties"] == {
            "a": {"type": "number"},
            "b": {"type": ["integer", "null"]},
        }

    def test_json_text_is_read(self) -> None:
        assert normalize_json_schema(json.dumps(JSON_SCHEMA)) == normalize_json_schema(JSON_SCHEMA)

    @pytest.mark.parametrize("bad", ["{not json", "[1, 2]", 3])
    def test_what_is_not_a_schema_is_refused(self, bad: object) -> None:
        with pytest.raises(ValueError, match="json_schema must be a JSON object"):
            normalize_json_schema(bad)  # type: ignore[arg-type]


class TestModel:
    def test_the_model_has_the_schemas_fields_and_types(self) -> None:
        model = model_from_json_schema(JSON_SCHEMA)
        assert model.__name__ == "FCCSchemaInvoice"
        assert list(model.model_fields) == [
            "Agency",
            "Advertiser",
            "GrossTotal",
            "PaymentTerms",
            "AgencyCommission",
            "NetAmountDue",
            "LineItems",
        ]
        assert model.model_fields["Agency"].is_required() and not model.model_fields["GrossTotal"].is_required()
        line = model.model_validate({"Agency": "A", "Advertiser": "B", "LineItems": [{"LineItemRate": "350"}]})
        assert line.LineItems[0].LineItemRate == 350.0

    def test_without_normalizing_float_would_compare_amounts_as_anything(self) -> None:
        # The reason `float` is mapped: the library reads an unknown type as no type at all.
        from json_schema_to_pydantic import create_model

        raw = create_model({"type": "object", "properties": {"x": {"type": "float"}}})
        assert raw.model_validate({"x": "not a number"}).x == "not a number"
        built = model_from_json_schema({"type": "object", "properties": {"x": {"type": "float"}}})
        with pytest.raises(ValueError):
            built.model_validate({"x": "not a number"})

    def test_inferred_comparators_treat_printed_dates_as_text(self) -> None:
        table = StructuredOutputSimilarity(model_from_json_schema(JSON_SCHEMA)).explain_frame()
        assert table.loc["LineItems.LineItemStartDate", "comparator"] == "LevenshteinComparator"
        assert table.loc["GrossTotal", "comparator"] == "NumericComparator"

    def test_a_label_scores_against_itself(self) -> None:
        model = model_from_json_schema(JSON_SCHEMA)
        label = {
            "Agency": "A",
            "Advertiser": "B",
            "GrossTotal": 7150.0,
            "LineItems": [{"LineItemStartDate": "10/03/16"}],
        }
        (row,) = StructuredOutputSimilarity(model).evaluate(
            EvaluationData(input="", actual_output=label, expected_output=label)
        )
        assert row.score == 1.0

    def test_a_schema_that_is_not_an_object_is_refused(self) -> None:
        with pytest.raises(ValueError, match="must describe an object with properties"):
            model_from_json_schema({"type": "array", "items": {"type": "string"}})
