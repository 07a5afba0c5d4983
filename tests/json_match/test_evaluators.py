"""evaluators: the Strands Evals evaluators' rows, the report views, the public names, and hostile input."""

from __future__ import annotations

import json
import math

import pytest
from helpers import SEED_FIELDS, SEED_GT, SEED_OUT, evaluate_row
from pydantic import BaseModel
from strands_evals.types.evaluation import EvaluationData

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity
from structsim_nb.errors import GroundTruthError
from structsim_nb.json_match import (
    ContainsJson,
    ExactMatch,
    JsonDiff,
    JsonFieldMatch,
    contains_json,
    exact_match,
    json_diff,
    json_field_match,
)


class TestEvaluators:
    def test_row_metadata(self):
        row = evaluate_row(JsonFieldMatch(SEED_FIELDS), SEED_OUT, SEED_GT)
        assert (row.score, row.test_pass) == (0.5, False)
        meta = row.metadata
        assert meta["evaluated_by"] == "json_match:json_field_match"
        assert meta["field_scores"] == {"name": 1.0, "email": 0.0, "address.city": 1.0, "address.zip": 0.0}
        assert meta["counts"] == {"tp": 2, "fn": 0, "fa": 0, "fd": 2, "tn": 0}
        assert meta["precision"] == 0.5 and meta["recall"] == 1.0
        assert len(meta["non_matches"]) == 2 and len(meta["fields"]) == 4
        json.dumps(meta)  # plain JSON

    def test_not_applicable_without_ground_truth(self):
        row = evaluate_row(JsonDiff(), {"a": 1}, None)
        assert row.label == "not_applicable" and row.test_pass
        assert evaluate_row(ContainsJson(), '{"a": 1}', None).score == 1.0

    def test_bad_ground_truth_is_a_row(self):
        row = evaluate_row(JsonDiff(), {"a": 1}, "Paris")
        assert row.score == 0.0 and not row.test_pass
        assert row.metadata["error"] == "unreadable" and "ground truth unreadable" in row.reason

    def test_nan_is_saved_as_text(self):
        row = evaluate_row(ExactMatch(), {"a": float("nan")}, {"a": float("nan")})
        assert row.score == 1.0
        assert json.loads(json.dumps(row.metadata))["fields"][0]["expected"] == "nan"

    def test_to_dict(self):
        assert JsonFieldMatch(["a"], threshold=0.5).to_dict() == {
            "evaluator_type": "JsonFieldMatch",
            "fields": ["a"],
            "threshold": 0.5,
        }

    def test_report_views(self, run_experiment, tmp_path):
        class Person(BaseModel):
            name: str
            email: str | None = None

        pairs = {
            "seed": (SEED_GT, SEED_OUT),
            "text": (SEED_GT, "nothing useful"),
            "none": (None, SEED_OUT),
        }
        report = run_experiment(pairs, [JsonFieldMatch(SEED_FIELDS), JsonDiff(), ContainsJson(), ExactMatch()])
        cases = report.cases_frame()
        seed = cases[(cases["case"] == "seed") & (cases["evaluator"] == "JsonFieldMatch")].iloc[0]
        assert seed["status"] == "scored" and seed["score"] == 0.5
        assert (seed["name"], seed["email"], seed["address.city"], seed["address.zip"]) == (1.0, 0.0, 1.0, 0.0)
        assert (seed["tp"], seed["fd"]) == (2, 2)
        text = cases[(cases["case"] == "text") & (cases["evaluator"] == "JsonDiff")].iloc[0]
        assert text["status"] == "unreadable"
        assert (
            cases[(cases["case"] == "none") & (cases["evaluator"] == "JsonDiff")].iloc[0]["status"] == "not applicable"
        )
        misses = report.non_matches_frame(evaluator="JsonFieldMatch")
        assert list(misses[misses["case"] == "seed"]["path"]) == ["email", "address.zip"]
        # The upstream rollups still select only the similarity evaluator's rows.
        with pytest.raises(ValueError, match="no scored structured-output rows"):
            report.per_case()
        html = report.to_html()
        assert "address.zip" in html
        reloaded = StructuredOutputReport.from_file(report.to_file(tmp_path / "r.json"))
        assert reloaded.cases_frame().equals(cases)

    def test_beside_the_similarity_evaluator(self, run_experiment):
        class Address(BaseModel):
            city: str
            zip: str

        class Person(BaseModel):
            name: str
            email: str
            address: Address

        pairs = {"seed": (Person(**SEED_GT), Person(**SEED_OUT))}
        report = run_experiment(pairs, [StructuredOutputSimilarity(Person), JsonFieldMatch(SEED_FIELDS)])
        assert [row["case"] for row in report.per_case()] == ["seed"]
        assert set(report.cases_frame()["status"]) == {"scored"}
        assert set(report.non_matches_frame()["evaluator"]) == {"StructuredOutputSimilarity", "JsonFieldMatch"}
        assert not math.isnan(report.fields_frame(evaluator="StructuredOutputSimilarity")["f1"].iloc[0])


def test_public_names():
    import structsim_nb

    for name in ("ContainsJson", "ExactMatch", "JsonDiff", "JsonFieldMatch", "contains_json", "exact_match"):
        assert name in structsim_nb.__all__ and hasattr(structsim_nb, name)
    assert {"json_diff", "json_field_match"} <= set(structsim_nb.__all__)


def _cyclic() -> dict[str, object]:
    loop: dict[str, object] = {"a": 1}
    loop["self"] = loop
    return loop


def _deep(levels: int) -> object:
    value: object = 1
    for _ in range(levels):
        value = {"a": value}
    return value


HOSTILE_SIDES = [
    pytest.param(_cyclic(), "contains itself", id="cyclic"),
    pytest.param(_deep(5_000), "nests deeper than 100", id="deep-object"),
    pytest.param("[" * 5_000 + "]" * 5_000, "deeper than 100", id="deep-text"),
    pytest.param('{"a": ' + "9" * 5_000 + "}", "digits", id="huge-integer-text"),
]


class TestHostileInput:
    """Deep, cyclic and huge-number inputs: a score-0 row or GroundTruthError, never ValueError/RecursionError."""

    @pytest.mark.parametrize(("output", "why"), HOSTILE_SIDES)
    @pytest.mark.parametrize("scorer", ["exact_match", "json_field_match", "json_diff", "contains_json"])
    def test_hostile_output_is_unreadable_not_raised(self, scorer: str, output: object, why: str) -> None:
        functions = {
            "exact_match": lambda out: exact_match(out, {"a": 1}),
            # A JSON Path can reach anything, so both documents are checked whole (dot paths: the test below).
            "json_field_match": lambda out: json_field_match(out, {"a": 1}, fields=["$.a"]),
            "json_diff": lambda out: json_diff(out, {"a": 1}),
            "contains_json": contains_json,
        }
        result = functions[scorer](output)
        assert not result.passed and result.score == 0.0
        if scorer != "contains_json":
            assert result.error == "unreadable"

    @pytest.mark.parametrize(("expected", "why"), HOSTILE_SIDES)
    def test_hostile_ground_truth_is_a_ground_truth_error(self, expected: object, why: str) -> None:
        for call in (
            lambda: json_field_match({"a": 1}, expected, fields=["$.a"]),
            lambda: json_diff({"a": 1}, expected),
        ):
            with pytest.raises(GroundTruthError, match=why):
                call()

    @pytest.mark.parametrize(("expected", "why"), HOSTILE_SIDES)
    def test_evaluator_rows_carry_the_reason(self, expected: object, why: str) -> None:
        for evaluator in (ExactMatch(), JsonFieldMatch(["$.a"]), JsonDiff()):
            (row,) = evaluator.evaluate(EvaluationData(input="", actual_output={"a": 1}, expected_output=expected))
            assert row.score == 0.0 and not row.test_pass

    def test_field_match_with_dot_paths_reads_only_the_configured_field(self) -> None:
        """A cycle beside the field is never walked; a field that nests too deep is that field's error."""
        assert json_field_match(_cyclic(), {"a": 1}, fields=["a"]).score == 1.0
        assert json_field_match({"a": 1}, _cyclic(), fields=["/a"]).score == 1.0
        deep = json_field_match({"a": _deep(5_000)}, {"a": 1}, fields=["a"])
        assert deep.score == 0.0 and deep.error is None and "nests deeper than 100" in deep.fields[0].reason
        with pytest.raises(GroundTruthError, match="at a it nests deeper than 100"):
            json_field_match({"a": 1}, {"a": _deep(5_000)}, fields=["a"])

    def test_a_huge_python_integer_is_compared_by_value(self) -> None:
        assert json_diff({"a": 10**5_000}, {"a": 10**5_000 + 1}).score == 0.0
        assert json_diff({"a": 10**5_000}, {"a": 10**5_000}).score == 1.0
        result = exact_match(10**5_000, 1)
        assert not result.passed and "cannot be shown" in result.fields[0].reason


def test_the_four_functions_stay_importable_from_evaluators() -> None:
    from structsim_nb.json_match import contains, diff, evaluators, exact, field_match

    for module, name in ((exact, "exact_match"), (contains, "contains_json"), (field_match, "json_field_match")):
        assert getattr(evaluators, name) is getattr(module, name) and name in evaluators.__all__
    assert evaluators.json_diff is diff.json_diff and "json_diff" in evaluators.__all__
