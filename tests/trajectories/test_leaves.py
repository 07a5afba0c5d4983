"""leaves: normalisation, flattening, similarity, whole-text literals, and values too big or deep to compare."""

from __future__ import annotations

import pytest

from structsim_nb.errors import StaticJsonError
from structsim_nb.trajectories.leaves import flatten_answer, normalize_value, read_answer, similarity_score
from structsim_nb.trajectories.static_json import evaluate_static_json

TOL = 1e-12


class TestNormalise:
    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (True, "true"),
            (None, "none"),
            (14.0, "14"),
            (3.50, "3.5"),
            (1e-7, "0"),
            (3.14159265, "3.141593"),
            (7, "7"),
            (" 14 ", "14"),
            ("3.50", "3.5"),
            ("Null", "none"),
            ("  Pump 3 ", "pump 3"),
            ("1e3", "1000"),
            ("+5", "5"),
            (".5", "0.5"),
            ("1.", "1"),
            ("007.5", "7.5"),
            ("-0", "0"),
            ("007", "007"),
            ("02134", "02134"),
            ("0x10", "0x10"),
        ],
    )
    def test_values(self, value: object, expected: str) -> None:
        assert normalize_value(value) == expected

    def test_a_leaf_is_a_number_only_as_json_or_python_writes_one(self) -> None:
        # Upstream re-reads a leaf with json.loads / ast.literal_eval: `+5` and `.5` are numbers there, `007` (a zip
        # code, an id) is not (no number literal has leading zeros), so it stays text and never equals 7.
        assert evaluate_static_json({"a": "+5", "b": ".5"}, {"a": 5, "b": 0.5}).passed
        assert not evaluate_static_json({"zip": "02134"}, {"zip": 2134}).passed
        assert evaluate_static_json({"zip": "02134"}, {"zip": "02134"}).passed

    def test_leaves_are_not_reparsed(self) -> None:
        # AssetOpsBench collapses one-number strings and strips answer words (its bugs 1, 3, 5).
        assert normalize_value("COMP-01") == "comp-01"
        assert normalize_value("Output low") == "output low"
        assert flatten_answer({"a": "1,200"}) == {"answer.a": "1,200"}
        assert flatten_answer({"a": '{"b": 1}'}) == {"answer.a": '{"b": 1}'}


class TestFlatten:
    def test_paths(self) -> None:
        assert flatten_answer({"a": {"b": 2}, "c": [3, {"d": 4}]}) == {
            "answer.a.b": "2",
            "answer.c[0]": "3",
            "answer.c[1].d": "4",
        }

    def test_tuple_lists_and_scalars(self) -> None:
        assert flatten_answer("[('Engines', 5)]") == {"answer[0][0]": "engines", "answer[0][1]": "5"}
        assert flatten_answer(34) == {"answer": "34"}
        assert flatten_answer({}) == {}

    def test_dotted_keys_do_not_collide_with_nesting(self) -> None:
        assert flatten_answer({"a.b": 1}) != flatten_answer({"a": {"b": 1}})
        assert not evaluate_static_json({"a.b": 1}, {"a": {"b": 1}}).passed

    def test_too_deep_is_an_error(self) -> None:
        deep: object = 1
        for _ in range(150):
            deep = {"a": deep}
        with pytest.raises(StaticJsonError, match="nest at most"):
            flatten_answer(deep)


class TestSimilarity:
    @pytest.mark.parametrize(
        ("gold", "model", "expected"),
        [
            ("14", "14", 1.0),
            ("100", "100.5", 0.9),
            ("100", "103", 0.7),
            ("100", "108", 0.5),
            ("100", "120", 0.0),
            ("0", "0.0", 1.0),
            ("0", "1", 0.0),
            ("pump", "pump station", 0.6),
            ("ab", "cd", 0.0),
            ("", "", 1.0),
            ("", "pump", 0.0),  # upstream: 0.6 (Python finds "" in any string); an empty value is nothing alike
        ],
    )
    def test_values(self, gold: str, model: str, expected: float) -> None:
        assert abs(similarity_score(gold, model) - expected) < TOL


class TestAnswerText:
    """An answer with no structure or count is the plain value it states: after its marker, inside its fence."""

    @pytest.mark.parametrize(
        ("model", "read"),
        [
            ("Final Answer: pump", ("pump", "text")),
            ("I checked the logs.\nAnswer: Pump", ("Pump", "text")),
            ('Final Answer: "pump"', ("pump", "literal")),
            ("<answer>pump</answer>", ("pump", "text")),
            ("```json\n34\n```", ("34", "text")),
            ("```\nChiller 6\n```", ("Chiller 6", "text")),
            ("<think>Answer: valve</think>Answer: pump", ("pump", "text")),
        ],
    )
    def test_marker_and_fence_are_taken_away(self, model: str, read: tuple[str, str]) -> None:
        assert read_answer(model) == read
        assert evaluate_static_json(read[0].lower() if read[0] != "34" else "34", model).passed

    def test_without_a_colon_a_marker_word_is_text(self) -> None:
        assert read_answer("Output low") == ("Output low", "text")
        assert not evaluate_static_json("low", "Output low").passed

    def test_a_ground_truth_inside_a_fence_that_does_not_parse_is_still_an_error(self) -> None:
        with pytest.raises(StaticJsonError, match="does not parse"):
            evaluate_static_json("```\n{'a': \n```", "x")


class TestLiteralScalars:
    @pytest.mark.parametrize(
        ("gold", "model"), [("Pump 3", '"Pump 3"'), ("pump 3", "'Pump 3'"), ("none", "null"), ("true", "True")]
    )
    def test_whole_text_scalar_literals(self, gold: str, model: str) -> None:
        score = evaluate_static_json(gold, model)
        assert score.passed and score.model_read_as == "literal"


class TestHostileInput:
    """Linear scanning, huge numbers and self-referencing values: a result or a StaticJsonError, never a hang."""

    def test_long_leaves_and_answers_are_read_whole(self) -> None:
        range_leaf = "min: 10, " + "the usual band, " * 20 + "max: 20"  # over 200 characters
        score = evaluate_static_json({"a": range_leaf}, {"a": 15})
        assert score.details[0].range_match is True
        assert read_answer('"' + "y" * 200_000 + '"') == ("y" * 200_000, "literal")

    def test_an_integer_leaf_longer_than_python_converts(self) -> None:
        digits = "9" * 5_000
        score = evaluate_static_json({"a": digits}, {"a": "+" + digits})
        assert score.passed  # compared digit for digit, the plus sign dropped
        assert not evaluate_static_json({"a": digits}, {"a": "0" + digits}).passed  # a leading zero: text
        assert not evaluate_static_json({"a": digits}, {"a": "8" + digits[1:]}).passed
        with pytest.raises(StaticJsonError, match="at most 4,300 digits"):
            evaluate_static_json({"a": 10**5_000}, {"a": 1})

    @pytest.mark.parametrize("side", ["gold", "model"])
    def test_self_referencing_and_deep_values_are_refused(self, side: str) -> None:
        cyclic: dict[str, object] = {"clarification": "x"}
        cyclic["self"] = cyclic
        deep: object = "x"
        for _ in range(500):
            deep = [deep]
        for bad, message in ((cyclic, "contains itself"), ({"clarification": deep}, "nest at most")):
            args = (bad, {"clarification": "x"}) if side == "gold" else ({"clarification": "x"}, bad)
            with pytest.raises(StaticJsonError, match=message):
                evaluate_static_json(*args)
