"""The embedded-structure search: the same answer as trying every candidate from scratch, read once."""

from __future__ import annotations

import ast
import json
import warnings

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from structsim_nb._candidates import Budget, last_structure, plain, read_whole, scan_brackets


def _budget(max_depth: int = 100) -> Budget:
    return Budget(max_depth=max_depth, max_literal_chars=200_000, remaining=10**9)


def _brute_force(text: str, max_depth: int = 100) -> tuple[int, int, object, str] | None:
    """Every candidate, last-ending first, each parsed from scratch with json.loads and ast.literal_eval."""
    tree = scan_brackets(text, 0, len(text))
    order: list[int] = []
    stack = list(tree.roots)
    while stack:
        node = stack.pop()
        if tree.height[node] > max_depth:
            continue
        order.append(node)
        stack.extend(tree.children[node])
    for structural in (True, False):
        for node in order:
            if (tree.opener[node] != "(") != structural:
                continue
            snippet = text[tree.start[node] : tree.end[node]]
            wanted = (dict, list) if structural else (list,)
            for syntax in ("json", "python_literal"):
                try:
                    if syntax == "json":
                        value = json.loads(snippet)
                    else:
                        with warnings.catch_warnings():
                            warnings.simplefilter("ignore")
                            value = ast.literal_eval(snippet)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    continue
                ok, value = plain(value, max_depth)
                if ok and isinstance(value, wanted):
                    return tree.start[node], tree.end[node], value, syntax
                if syntax == "json":
                    break  # JSON text the plain check refuses is not retried as a literal
    return None


PIECES = st.sampled_from(
    [
        "[",
        "]",
        "{",
        "}",
        "(",
        ")",
        ",",
        ":",
        " ",
        "\n",
        "1",
        "-2",
        "x",
        "true",
        "null",
        "None",
        "True",
        '"a"',
        "'b'",
        '"',
        "'",
        "it's",
        "r'[1]'",
        "'''[\n]'''",
        '"[1]"',
        "\\",
        "# c",
        "{1, 2}",
        "()",
        "(1,)",
        "[1, 2]",
        '{"k": [3]}',
        "{'k': (4,)}",
        "1e5",
        "NaN",
    ]  # fmt: skip
)


@settings(max_examples=1500, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=24))
@example(["[", "[", "[", "1", ",", "2", "]", "x", "]", "y", "]"])
@example(["(", '"[1]"', "x", ")"])
@example(["{", "'k'", ":", "[", "true", "]", "}"])
@example(["[", "'''[\n]'''", "x", "]"])
def test_same_answer_as_trying_every_candidate(pieces: list[str]) -> None:
    text = "".join(pieces)
    assert last_structure(text, 0, len(text), _budget()) == _brute_force(text), text


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=24), st.integers(1, 4))
def test_same_answer_with_a_low_depth_limit(pieces: list[str], depth: int) -> None:
    text = "".join(pieces)
    assert last_structure(text, 0, len(text), _budget(depth)) == _brute_force(text, depth), text


def test_a_nested_family_is_read_once() -> None:
    # 99 nested lists that all fail at the same late token: one reading answers for every one of them.
    text = "[" * 99 + "1," * 50_000 + "x" + "]" * 99
    budget = _budget()
    assert last_structure(text, 0, len(text), budget) is None
    assert 10**9 - budget.remaining < 3 * len(text)


def test_the_budget_stops_the_search_and_says_so() -> None:
    text = "[1, 2] [" + "1, " * 1000 + "x]"
    budget = Budget(max_depth=100, max_literal_chars=200_000, remaining=50)
    assert last_structure(text, 0, len(text), budget) is None
    assert budget.exhausted and "parse budget" in budget.refused


def test_scan_brackets_builds_the_tree() -> None:
    tree = scan_brackets("a [b (c) {d: 'x]'}] (e", 0, 23)
    spans = {(tree.start[i], tree.end[i]) for i in range(len(tree.start))}
    assert spans == {(5, 8), (9, 18), (2, 19)}
    (root,) = tree.roots
    assert (tree.start[root], tree.height[root]) == (2, 2)


def test_read_whole_refuses_deep_literals_without_recursion() -> None:
    text = "(" * 200_000 + ")" * 200_000
    budget = _budget()
    assert read_whole(text, 0, len(text), budget) is None
    assert "deeper than 100" in budget.refused
