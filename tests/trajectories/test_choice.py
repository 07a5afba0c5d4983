"""choice: the multiple-choice letter an answer gives, and when static_json reads one."""

from __future__ import annotations

import pytest

from structsim_nb.trajectories.choice import extract_choice
from structsim_nb.trajectories.static_json import evaluate_static_json


class TestChoice:
    @pytest.mark.parametrize(
        ("answer", "letter"),
        [
            ("B", "B"),
            ("(c)", "C"),
            ("Answer: b", "B"),
            ("Option D.", "D"),
            ("Final Answer: [A]", "A"),
            ("I compared the options.\nThe answer is (c).", "C"),
            ("Thinking it through.\nI pick B.", "B"),
            ("Sure.\nthe final answer is d", "D"),
            ("```\nC\n```", "C"),
            ("<think>A</think>Output: D", "D"),
            ("Weighing them up, I pick B)", "B"),
            ("so it is c)", "C"),
            ("the pick, [d", "D"),
        ],
    )
    def test_extracted(self, answer: str, letter: str) -> None:
        assert extract_choice(answer) == letter
        score = evaluate_static_json(letter.lower(), answer)
        assert score.passed and score.model_read_as == "choice"

    def test_article_a_is_not_a_choice(self) -> None:
        assert extract_choice("the best pick is a") is None  # AssetOpsBench reads A
        assert not evaluate_static_json("A", "the best pick is a").passed
        assert not evaluate_static_json("A", "B").passed

    def test_only_for_single_letter_gold(self) -> None:
        assert evaluate_static_json("AB", "Answer: AB").model_read_as == "text"


class TestHostileInput:
    """Linear scanning, huge numbers and self-referencing values: a result or a StaticJsonError, never a hang."""

    @pytest.mark.parametrize(
        ("answer", "letter"),
        [
            ("I compared them all. The answer: c", "C"),
            ("Thinking.\n\nFinal Answer: (b)\n", "B"),
            ("B" + " " * 50_000 + "x", None),
            ("answer" + " " * 50_000 + "B", "B"),
            ("```\n" + " " * 20_000 + "D\n```", "D"),
            ("```D```", "D"),
            ("hmm\n" + "x" * 600 + " so the answer is C", "C"),  # a last line over 500 characters is read
        ],
    )
    def test_choice_letters_in_long_or_padded_answers(self, answer: str, letter: str | None) -> None:
        assert extract_choice(answer) == letter

    def test_a_marker_inside_a_word_is_not_a_marker(self) -> None:
        assert extract_choice("the counteranswer: x\nI pick D.") == "D"
