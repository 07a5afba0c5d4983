"""scan_literal: accepts exactly what ast.literal_eval reads to plain JSON types, and stops at the first bad token."""

from __future__ import annotations

import ast
import itertools
import sys
import warnings

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from structsim_nb._pyliteral import scan_literal


def _plain(value: object, depth: int = 0) -> bool:
    if depth > 60:
        return False
    if value is None or isinstance(value, (str, bool, int, float)):
        return True
    if isinstance(value, (list, tuple)):
        return all(_plain(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(
            (isinstance(key, (str, int, float, bool)) or key is None) and _plain(item, depth + 1)
            for key, item in value.items()
        )
    return False


def _reference(text: str) -> bool:
    """What `parse_answer` did before: literal_eval, then keep only plain JSON types."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            value = ast.literal_eval(text)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return False
    return _plain(value)


TOKENS = st.sampled_from(
    [
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        ",",
        ":",
        " ",
        "\n",
        "\t",
        "# note\n",
        "\\\n",
        "-",
        "+",
        ".",
        "1",
        "0",
        "007",
        "000",
        "1_000",
        "1__0",
        "0x1F",
        "0b2",
        "0o7",
        "1.5",
        ".5",
        "1.",
        "1e5",
        "1e",
        "1j",
        "09.5",
        "True",
        "False",
        "None",
        "Nonex",
        "x",
        "é",
        "'a'",
        '"b"',
        "'it''s'",
        "r'\\d'",
        "u'x'",
        "b'x'",
        "f'x'",
        "rb'x'",
        "ur'x'",
        "'''a\nb'''",
        '"""q"""',
        "'\\x4'",
        "'\\x41'",
        "'\\u00e9'",
        "'\\U0010ffff'",
        "'\\U00110000'",
        "'\\N{BULLET}'",
        "'\\N{NO SUCH NAME}'",
        "'\\d'",
        "'a\\\nb'",
        "'unterminated",
        "'\x00'",
        "'\ud800'",
        "\x00",
        "\u00a0",
        "...",
        "*",
        "set()",
        ", ",
        ",\n",
        "'a' 'b'",
        "{1: 2}",
        "{(1,): 2}",
        "{[1]: 2}",
        "1, 2, 3",
        "'a', 'b'",
        "1: 2, 3: 4",
        "'k': 'v', 'k2': 1",
        "'a' '''b'''",
        "'''it's'''",
        "u'x' x'y'",
        "1..2",
        "-\n1",
        "True'x'",
        "0_7",
        "0_0",
        "1e5j",
        ".5",
        "r'a' 'b'",
        "- 1",
        "+0x10",
        "'a' \\\n 'b'",
    ]  # fmt: skip
)


@settings(max_examples=1500, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(TOKENS, max_size=14))
@example(["[", "1", ",", "]"])
@example(["{", "'a'", ":", "(", "1", ",", ")", "}"])
@example(["(", "1", ")"])
@example(["{", "1", ",", "2", "}"])
def test_agrees_with_literal_eval(tokens: list[str]) -> None:
    text = "[" + "".join(tokens) + "]"
    assert scan_literal(text, 0, len(text)).ok == _reference(text), text


@settings(max_examples=1000, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.sampled_from(["[", "(", "{"]), st.lists(TOKENS, max_size=10))
@example("[", ["1", "]", ",", " ", "[", "2", "]"])
@example("[", ["1", "]", ",", "\n", "[", "2", "]"])
@example("[", ["]", ",", "-", "\n", "1"])
@example("{", ["}", "\n", " "])  # found on 3.13: an indented blank last line is an unexpected indent
def test_agrees_with_literal_eval_at_the_top_level(opener: str, tokens: list[str]) -> None:
    text = opener + "".join(tokens)  # top-level tuples (`[1], [2]`) and what follows a value
    assert scan_literal(text, 0, len(text)).ok == _reference(text), text


def test_agrees_with_literal_eval_on_every_short_ending_after_the_value() -> None:
    # Every gap of up to four blanks, newlines, comment starts, backslashes and commas after a value: Python's
    # tokenizer refuses an indented blank last line (`[1]\n ` but not `[1]\n \n` or `[1]\n #`) and a
    # continuation with nothing after it, and a continuation in a line's leading blanks fixes its indent.
    alphabet = [" ", "\t", "\f", "\n", "\r", "#", "\\", ","]
    differ = []
    for head in ("[1]", "[1], [2]"):
        for size in range(5):
            for gap in itertools.product(alphabet, repeat=size):
                text = head + "".join(gap)
                if scan_literal(text, 0, len(text)).ok != _reference(text):
                    differ.append(text)
    assert differ == []


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("[1, ('a', None)]", "list"),
        ("(1,)", "tuple"),
        ("(1)", "scalar"),
        ("([1])", "list"),
        ("{}", "dict"),
        ("[1], [2]", "tuple"),
    ],
)
def test_kind(text: str, kind: str) -> None:
    found = scan_literal(text, 0, len(text))
    assert found.ok and found.kind == kind and found.stop == len(text)


def test_reports_where_it_stopped_and_what_it_completed() -> None:
    text = "[[1, 2], (3,), {'a': [4]} x]"
    found = scan_literal(text, 0, len(text))
    assert not found.ok and text[found.stop] == "x"
    assert found.done == {1: (7, "list"), 9: (13, "tuple"), 21: (24, "list"), 15: (25, "dict")}
    assert found.depth == 3


def test_never_reads_past_end() -> None:
    text = "[1, 2] trailing"
    assert scan_literal(text, 0, 6).ok
    assert not scan_literal(text, 0, 5).ok  # the closer lies past `end`


def test_integer_over_the_conversion_limit_is_refused() -> None:
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    if not limit:
        pytest.skip("this Python has no integer conversion limit")
    text = "[" + "1" * (limit + 1) + "]"
    assert not scan_literal(text, 0, len(text)).ok
    assert scan_literal("[0x" + "f" * limit + "]", 0, limit + 4).ok  # hex is not limited


def test_deep_nesting_needs_no_recursion() -> None:
    text = "[" * 100_000 + "]" * 100_000
    found = scan_literal(text, 0, len(text))
    assert found.ok and found.depth == 100_000
