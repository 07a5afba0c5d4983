"""phrases_found: every phrase that occurs as whole words, the same as searching each one, in one pass."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb._phrases import phrases_found

WORDS = st.sampled_from(["a", "b", "ab", "c"])


@settings(max_examples=500, deadline=None)
@given(st.lists(st.lists(WORDS, max_size=4), max_size=8), st.lists(WORDS, max_size=20))
def test_same_as_searching_each_phrase(phrases: list[list[str]], words: list[str]) -> None:
    padded = f" {' '.join(words)} "
    expected = {index for index, phrase in enumerate(phrases) if phrase and f" {' '.join(phrase)} " in padded}
    assert phrases_found(phrases, words) == expected


def test_many_nested_phrases_cost_one_pass() -> None:
    # "a", "a a", "a a a", ...: every position ends every phrase; each is still reported once.
    phrases = [["a"] * length for length in range(1, 2001)]
    assert phrases_found(phrases, ["a"] * 1000) == set(range(1000))
