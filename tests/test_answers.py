"""parse_answer: every form, the preferences between them, safety on hostile input, and properties."""

from __future__ import annotations

import datetime
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import answer_text_strategy, same_but_long_integers
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from structsim_nb.answers import FORMS, ParsedAnswer, parse_answer


class TestForms:
    @pytest.mark.parametrize(
        ("text", "form", "value"),
        [
            ('{"energy": 14, "material": 48}', "json", {"energy": 14, "material": 48}),
            ('[{"g": "Pumps", "count": 21}]', "json", [{"g": "Pumps", "count": 21}]),
            ("{'energy': 14, 'material': 48}", "python_literal", {"energy": 14, "material": 48}),
            (
                '[("Engines & motors", 5), ("Lines & drives", 2)]',
                "python_literal",
                [["Engines & motors", 5], ["Lines & drives", 2]],
            ),
            ('```json\n{"repair": 13, "replace": 0}\n```', "fenced", {"repair": 13, "replace": 0}),
            ("```python\n{'a': None}\n```", "fenced", {"a": None}),
            ('Final Answer: {"repair": 13, "replace": 0}', "prefixed", {"repair": 13, "replace": 0}),
            ("**Answer:** [1, 2]", "prefixed", [1, 2]),
            ('<answer>{"a": 1}</answer> thanks', "prefixed", {"a": 1}),
            ('I checked the records and found {"a": 1} overall.', "embedded", {"a": 1}),
            ("34", "count", 34),
            ("-3.5", "count", -3.5),
            ("The answer is 34.", "count", 34),
            ("Answer: 1,200", "count", 1200),
            ("I examined the table.\n\n7", "count", 7),
            ("I examined the table.\nFinal Answer 34", "count", 34),
            ("Counted them.\ncount is 12.", "count", 12),
        ],
    )
    def test_reads_each_form(self, text: str, form: str, value: object) -> None:
        parsed = parse_answer(text)
        assert (parsed.form, parsed.value) == (form, value)
        assert parsed.found and parsed.form in FORMS

    def test_span_points_at_the_parsed_snippet(self) -> None:
        text = 'prose {"a": 1} more'
        parsed = parse_answer(text)
        assert parsed.span is not None and text[parsed.span[0] : parsed.span[1]] == '{"a": 1}' == parsed.snippet
        assert parsed.syntax == "json"

    def test_nothing_found_says_why(self) -> None:
        parsed = parse_answer("I could not find the records.")
        assert parsed == ParsedAnswer("none", message=parsed.message)
        assert not parsed.found and "no JSON or Python structure" in parsed.message

    def test_empty_answer(self) -> None:
        assert parse_answer("   ").message == "the answer is empty"

    def test_refuses_non_text(self) -> None:
        with pytest.raises(TypeError, match="text must be a str"):
            parse_answer({"a": 1})  # type: ignore[arg-type]


class TestPreferences:
    def test_final_structure_beats_an_earlier_draft(self) -> None:
        assert parse_answer('Draft: {"a": 1}\nCorrected: {"a": 2}').value == {"a": 2}

    def test_final_object_beats_parenthetical_prose(self) -> None:
        assert parse_answer('(no asset is specified) so: {"a": 3}').value == {"a": 3}

    def test_last_fenced_block_wins(self) -> None:
        text = '```json\n{"a": 1}\n```\nfixed:\n```json\n{"a": 2}\n```'
        assert parse_answer(text).value == {"a": 2}

    def test_structure_after_the_fence_wins(self) -> None:
        assert parse_answer('```json\n{"a": 1}\n```\nActually {"a": 5}').value == {"a": 5}

    def test_last_marker_by_position_wins(self) -> None:
        assert parse_answer('Final Answer: {"a": 1}\nResult: {"a": 2}').value == {"a": 2}

    def test_marker_needs_a_colon(self) -> None:
        assert parse_answer('Response time was slow; {"a": 1}').form == "embedded"

    def test_any_fence_language_tag(self) -> None:
        assert parse_answer('```jsonc\n{"a": 1}\n```').value == {"a": 1}

    def test_strip_think(self) -> None:
        from structsim_nb.answers import strip_think

        assert strip_think("<think>x</think> 34 <THINK a='1'>y\n</think>") == "34"
        assert strip_think("<thinking>x</thinking>") == "<thinking>x</thinking>"
        assert strip_think("<think>unclosed 5") == "<think>unclosed 5"

    def test_think_blocks_are_ignored(self) -> None:
        assert parse_answer('<think>{"a": 0}</think>{"a": 9} done').value == {"a": 9}

    @pytest.mark.parametrize(
        ("text", "value"),
        [
            ('{"a": "<think>x</think>"}', {"a": "<think>x</think>"}),
            ('[1, "<THINK>"]', [1, "<THINK>"]),
            ("{'note': '<think>draft</think>'}", {"note": "<think>draft</think>"}),
        ],
    )
    def test_a_think_tag_in_a_string_of_a_whole_text_structure_is_data(self, text: str, value: Any) -> None:
        # As json.loads reads it (and Agenta's evaluators): the tag is one of the structure's strings, not a block.
        found = parse_answer(text)
        assert found.value == value and found.form in ("json", "python_literal")

    @pytest.mark.parametrize(
        ("text", "stated"),
        [
            ("Final Answer: pump", "pump"),
            ("Result: valve\nAnswer: pump ", "pump"),  # the last marker by position
            ("<answer> pump </answer> thanks", "pump"),
            ("Here:\n```text\nChiller 6\n```\nDone.", "Chiller 6"),
            ("```a\n1\n```\n```\n2\n```", "2"),  # the last fenced block
            ("Answer: ```\npump\n```", "pump"),
            ("<think>Answer: x</think> just text ", "just text"),
            ("Response time was slow", "Response time was slow"),  # no colon: not a marker
        ],
    )
    def test_answer_text_is_the_plain_value_an_answer_states(self, text: str, stated: str) -> None:
        from structsim_nb.answers import answer_text

        assert answer_text(text) == stated

    def test_a_think_block_outside_the_structure_is_still_blanked(self) -> None:
        assert parse_answer('{"a": 1} <think>{"a": 2}</think>').value == {"a": 1}
        # Between a structure's values: blanked, and the text is then wholly that structure (read once more, afresh).
        inside = parse_answer('{"a": 1, <think>oops</think> "b": 2}')
        assert (inside.form, inside.value) == ("json", {"a": 1, "b": 2})
        assert parse_answer('<think>x</think>{"a": "<think>"}').value == {"a": "<think>"}

    def test_unlabelled_number_in_prose_is_not_a_count(self) -> None:
        assert parse_answer("The pump failed in Step 1.").form == "none"
        assert parse_answer("After examining 34 records, nothing matched.").form == "none"

    def test_apostrophes_do_not_pair_as_quotes(self) -> None:
        assert parse_answer("It doesn't matter: {'name': \"O'Brien\", 'n': 2}").value == {"name": "O'Brien", "n": 2}

    def test_no_blind_quote_rewrite(self) -> None:
        # AssetOpsBench rewrites ' to " and would mangle the apostrophe; the literal parser keeps it.
        assert parse_answer("{'note': \"it's fine\"}").value == {"note": "it's fine"}

    def test_non_json_literals_are_refused(self) -> None:
        assert parse_answer("{'a': {1, 2}}").form == "none"
        assert parse_answer("{1: 'x', None: 2}").value == {"1": "x", "null": 2}


class TestTruncated:
    """An answer cut off by a token limit is repaired (form `repaired`), never read as a fragment."""

    ANSWER = {
        "Agency": "Harbor Line Media LLC",
        "GrossTotal": 7150.0,
        "LineItems": [
            {"LineItemDescription": "Morning News", "LineItemRate": 350.0},
            {"LineItemDescription": "Late News", "LineItemRate": 600.0},
        ],
    }

    def test_a_cut_answer_is_repaired_not_read_as_an_inner_fragment(self) -> None:
        text = json.dumps(self.ANSWER)
        cut = text[: text.index("Late News") + 4]
        parsed = parse_answer(cut)
        assert parsed.form == "repaired" and parsed.found and parsed.form in FORMS
        assert parsed.value == {
            **self.ANSWER,
            "LineItems": [self.ANSWER["LineItems"][0], {"LineItemDescription": "Late"}],
        }
        assert parsed.syntax == "json" and parsed.span == (0, len(cut))
        assert parsed.repairs == (
            "cut inside the string value of 'LineItemDescription' (the partial text is kept)",
            "closed the string, 1 array and 2 objects",
        )
        assert parsed.message.startswith("the answer was cut off (truncated JSON) and repaired: ")

    @pytest.mark.parametrize(
        "wrapper",
        ["{}", "Here is the extraction:\n{}", "```json\n{}", "Final Answer: {}", '<think>{{"a": 1}}</think>{}'],
    )
    def test_cut_answers_in_every_wrapper(self, wrapper: str) -> None:
        text = json.dumps(self.ANSWER)
        parsed = parse_answer(wrapper.format(text[: text.index("600.0") + 3]))
        assert parsed.form == "repaired"
        assert parsed.value["LineItems"][-1] == {"LineItemDescription": "Late News", "LineItemRate": 600}

    def test_a_complete_answer_is_never_reported_as_repaired(self) -> None:
        text = json.dumps(self.ANSWER)
        assert parse_answer(text).form == "json"
        assert parse_answer(f"Sure: {text} (let me know {{if more is needed").form == "embedded"
        assert parse_answer(text).repairs == ()

    def test_a_cut_final_answer_beats_a_complete_draft(self) -> None:
        parsed = parse_answer('Draft: {"a": 1}\nFinal: {"a": 2, "b": [1, 2')
        assert (parsed.form, parsed.value) == ("repaired", {"a": 2, "b": [1, 2]})

    def test_a_cut_with_nothing_left_is_not_an_answer(self) -> None:
        assert parse_answer('{"receipt_id": ').form == "none"


class TestSafety:
    def test_never_executes_code(self, tmp_path: Path) -> None:
        marker = tmp_path / "pwned"
        for text in (
            f"__import__('os').system('touch {marker}')",
            f"{{'a': __import__('os').system('touch {marker}')}}",
            f"Final Answer: [open('{marker}', 'w')]",
        ):
            parsed = parse_answer(text)
            json.dumps(parsed.value)  # at most inert data, such as the string tuple inside open(...)
            assert parsed.form in ("none", "prefixed")
        assert parse_answer(f"__import__('os').system('touch {marker}')").form == "none"
        assert not marker.exists()

    def test_deep_nesting_is_refused_not_crashed(self) -> None:
        deep = "[" * 50_000 + "]" * 50_000
        parsed = parse_answer(deep)
        assert parsed.form == "none"
        assert parse_answer("{'a': " * 5_000 + "1" + "}" * 5_000).form == "none"

    def test_nesting_limit_is_configurable(self) -> None:
        assert parse_answer("[[[1]]]", max_depth=2).value != [[[1]]]
        assert parse_answer("[[[1]]]").value == [[[1]]]

    def test_several_megabytes_are_read_from_the_end_and_say_so(self) -> None:
        big = "x " * 1_500_000 + '{"a": 1}'
        parsed = parse_answer(big)
        assert parsed.value == {"a": 1} and parsed.truncated
        assert parsed.span is not None and big[parsed.span[0] : parsed.span[1]] == '{"a": 1}'
        assert "only the last 1,000,000 of 3,000,008 characters were read" in parsed.message
        whole = parse_answer(big, max_chars=4_000_000)
        assert whole.value == {"a": 1} and not whole.truncated
        lost = parse_answer('{"a": 1} ' + "x " * 1_000_000)
        assert lost.form == "none" and lost.truncated and "max_chars" in lost.message

    def test_a_long_json_answer_is_read_whole_without_truncation(self) -> None:
        value = [{"i": i, "text": "x" * 20} for i in range(60_000)]
        parsed = parse_answer(json.dumps(value))
        assert parsed.value == value and parsed.form == "json" and not parsed.truncated

    @pytest.mark.parametrize("text", ["1" * 5_000, "The answer is " + "7" * 5_000, "[" + "1" * 5_000 + "]"])
    def test_numbers_longer_than_python_converts_are_refused_not_raised(self, text: str) -> None:
        parsed = parse_answer(text)
        assert parsed.form == "none"
        assert "5,000-digit number is longer than Python converts" in parsed.message or (
            "a number has 5,000 digits, more than Python converts" in parsed.message
        )

    def test_a_huge_integer_inside_json_is_refused_and_an_earlier_structure_read(self) -> None:
        parsed = parse_answer('{"a": 1} then {"b": ' + "9" * 5_000 + "}")
        assert parsed.value == {"a": 1} and parsed.form == "embedded"

    def test_a_long_last_line_is_still_read(self) -> None:
        assert parse_answer("I counted.\n" + " " * 300 + "Answer: " + " " * 300 + "34 .").value == 34
        assert parse_answer("I counted.\n34" + " " * 50_000 + "x").form == "none"

    def test_structures_that_fail_late_leave_the_inner_one_found(self) -> None:
        assert parse_answer("[[[1, 2] x] y]").value == [1, 2]
        assert parse_answer("[" * 90 + "1," * 1000 + "x" + "]" * 90).form == "none"
        assert parse_answer("{'a': [true]} and more").value == [True]  # JSON inside a Python-ish dict

    def test_think_blocks_keep_offsets_with_case_changing_characters(self) -> None:
        text = "\u0130" * 3 + '<THINK>{"draft": 1}</THINK> {"final": 2}'
        parsed = parse_answer(text)
        assert parsed.value == {"final": 2} and text[parsed.span[0] : parsed.span[1]] == '{"final": 2}'

    def test_raw_string_literals_keep_their_brackets(self) -> None:
        assert parse_answer(r"Result: {'pattern': r'[a-z]+\d', 'n': 1}").value == {"pattern": "[a-z]+\\d", "n": 1}

    def test_a_large_json_answer_is_still_read_whole(self) -> None:
        value = [{"i": i} for i in range(200_000)]
        assert parse_answer(json.dumps(value)).value == value

    @pytest.mark.parametrize(
        "text", ["{" * 100_000, "(" * 100_000, '"' * 100_000, "```" * 30_000, "[]" * 50_000, "answer:" + " " * 100_000]
    )
    def test_adversarial_shapes_return(self, text: str) -> None:
        assert parse_answer(text).form in FORMS


_json = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=12,
)


#: Time one example may take: a linear parser needs well under a second on these inputs (on a busy shared machine
#: too), a quadratic one minutes.
BUDGET = datetime.timedelta(seconds=5)
UNITS = [
    "[", "{", "(", "[1,", "{'a': ", '{"a": [', "'a',", '"', "'", "x]", "]", ")", " ", "\n", "```", "```json\n",
    "Answer:", "answer is ", "<think>", "</think>", "<answer>", "1", "1,", "\\", "#", "\ud800", "AB1-", ".5",
]  # fmt: skip


class TestProperties:
    @settings(max_examples=150, deadline=BUDGET)
    @given(st.text(max_size=300))
    def test_never_raises_on_any_text(self, text: str) -> None:
        parsed = parse_answer(text)
        assert parsed.form in FORMS
        assert (parsed.span is None) == (parsed.form == "none")
        json.dumps(parsed.value)

    @settings(max_examples=100, deadline=BUDGET)
    @given(st.text(alphabet="{}[]()'\"\\:,\n ab1", max_size=400))
    def test_never_raises_on_bracket_soup(self, text: str) -> None:
        assert parse_answer(text).form in FORMS

    @settings(max_examples=120, deadline=BUDGET, suppress_health_check=[HealthCheck.too_slow])
    @given(
        st.sampled_from(["", "Final Answer: ", "```\n", '{"a": ', "The answer is "]),
        st.lists(st.sampled_from(UNITS), min_size=1, max_size=3).map("".join),
        st.integers(2_000, 8_000),
        st.sampled_from(["", "x", "]", '{"a": 1}', "\n```", " 34"]),
    )
    def test_returns_within_the_budget_on_long_adversarial_text(
        self, head: str, unit: str, count: int, tail: str
    ) -> None:
        text = head + unit * count + tail
        parsed = parse_answer(text)
        assert parsed.form in FORMS
        json.dumps(parsed.value)

    @settings(max_examples=150, deadline=None)
    @given(
        st.one_of(st.lists(_json, max_size=4), st.dictionaries(st.text(max_size=6), _json, max_size=4)),
        st.sampled_from(["Here is the result: ", "Final Answer: ", "```json\n", "Sure.\n\n", ""]),
        st.sampled_from(["", "\n```", " Let me know if you need more.", "\nDone."]),
    )
    def test_round_trips_json_embedded_in_prose(self, value: object, before: str, after: str) -> None:
        assert parse_answer(before + json.dumps(value) + after).value == value


class TestPlainValues:
    """`parse_answer` returns plain JSON types: JSON comes back as parsed, literals are rebuilt."""

    def test_json_is_not_copied_only_checked(self, monkeypatch):
        from structsim_nb import _candidates

        parsed: list[object] = []
        original = _candidates.loads_within

        def loads_within(text, limit, **options):
            value, vouched = original(text, limit, **options)
            parsed.append(value)
            return value, vouched

        monkeypatch.setattr(_candidates, "loads_within", loads_within)  # where the candidates are read
        value = parse_answer('{"a": [1, {"b": null}], "c": "x"}').value
        assert value == {"a": [1, {"b": None}], "c": "x"} and value is parsed[-1]

    def test_literals_become_plain_at_any_depth(self):
        value = parse_answer("{'a': [(1, 2), {3: (4,)}], 'b': ((),)}").value
        assert value == {"a": [[1, 2], {"3": [4]}], "b": [[]]}
        assert type(value["a"][0]) is list and type(value["b"][0]) is list

    def test_the_depth_limit_counts_scalars_too(self):
        assert parse_answer("[[[1]]]", max_depth=2).value != [[[1]]]
        assert parse_answer("[[[1]]]", max_depth=3).value == [[[1]]]
        assert parse_answer('{"a": {"b": []}}', max_depth=1).value != {"a": {"b": []}}


_LONG_INTEGERS = st.sampled_from(["123456789012345678901234", "-9223372036854775809", "18446744073709551615", "7"])


class TestInexactNumbers:
    """`parse_answer(text, exact_numbers=False)`: the same answer, but for integers past 64 bits (and, in text with a
    run of 19 digits, nesting of about 1,000 levels and 769-digit halfway numbers: `tests/test_jsonload.py`)."""

    @settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(
        text=answer_text_strategy(),
        number=_LONG_INTEGERS,
        where=st.sampled_from(["", "Final Answer: ", "```json\n", "Here: "]),
        after=st.sampled_from(["", "\n```", " done", "{'b': 1}", '{"c": 2']),
    )
    def test_only_long_integers_differ(self, text, number, where, after):
        text = text + where + '{"id": ' + number + ', "rows": [' + number + ', {"x": "[a"}]}' + after
        exact, fast = parse_answer(text), parse_answer(text, exact_numbers=False)
        assert replace(fast, value=None) == replace(exact, value=None)
        assert same_but_long_integers(fast.value, exact.value), (fast.value, exact.value)

    def test_a_long_integer_may_come_back_as_a_float(self):
        text = 'Here it is: {"id": 123456789012345678901234, "total": 12}'
        assert parse_answer(text).value == {"id": 123456789012345678901234, "total": 12}
        fast = parse_answer(text, exact_numbers=False)
        assert fast.value == {"id": 1.2345678901234568e23, "total": 12} and type(fast.value["total"]) is int
        assert (fast.form, fast.span) == ("embedded", (12, len(text)))

    def test_text_over_the_limit_is_read_the_same_way(self):
        whole = '{"id": 123456789012345678901234, "pad": "' + "x" * 100 + '"}'
        assert type(parse_answer(whole, max_chars=50).value["id"]) is int
        fast = parse_answer(whole, max_chars=50, exact_numbers=False)  # read whole as JSON first
        assert fast.form == "json" and type(fast.value["id"]) is float
        tail = "x" * 100 + ' {"id": 123456789012345678901234}'
        fast = parse_answer(tail, max_chars=50, exact_numbers=False)  # then its last 50 characters
        assert fast.truncated and type(fast.value["id"]) is float
        assert replace(fast, value=None) == replace(parse_answer(tail, max_chars=50), value=None)


def test_an_answer_built_without_the_frozen_init_is_the_same_object():
    from dataclasses import FrozenInstanceError

    from structsim_nb.answers import _answer

    fast = _answer("fenced", {"a": [1]}, "json", (3, 9), '{"a": [1]}', "the last fenced block")
    slow = ParsedAnswer("fenced", {"a": [1]}, "json", (3, 9), '{"a": [1]}', "the last fenced block")
    assert vars(fast) == vars(slow) and fast == slow and repr(fast) == repr(slow)
    with pytest.raises(FrozenInstanceError):
        fast.form = "json"  # type: ignore[misc]


@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(text=answer_text_strategy())
def test_the_repair_scan_is_skipped_only_where_it_finds_nothing_to_use(text):
    """`_repaired` skips the truncation scan when no bracket lies outside the complete JSON found; with
    the scan run every time, every answer reads the same."""
    from structsim_nb import answers

    fast = parse_answer(text)
    with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis runs many examples
        patch.setattr(answers, "_no_bracket_outside", lambda text, found: False)
        assert parse_answer(text) == fast


def test_depth_limits_below_two_are_kept_exactly():
    assert parse_answer("[1, 2]", max_depth=0).form == "none"
    assert parse_answer("[]", max_depth=0).value == []
    assert parse_answer("[1, 2]", max_depth=1).value == [1, 2]


_MARKER_PIECES = st.sampled_from(
    [
        "Final Answer",
        "final answer",
        "ANSWER",
        "answer",
        "Answers",
        "output",
        "Result",
        "response",
        "resul",
        ":",
        " ",
        "\t",
        "*",
        "**",
        "#",
        ">",
        "_",
        "-",
        "\n",
        "\r\n",
        "\r",
        "\x0b",
        "\x0c",
        "\x1c",
        "\x1e",
        "x",
        '{"result": 1}',
        "<answer>",
        "</answer>",
    ]
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(pieces=st.lists(_MARKER_PIECES, max_size=16), repeat=st.sampled_from([1, 1, 3, 12]), after=st.integers(-1, 90))
@example(pieces=["Answer", ":", "x"], repeat=1, after=0)  # a marker line starting exactly at `after`
@example(pieces=["x", "\n", "Result", ":"], repeat=1, after=2)
@example(pieces=["x", "\r", "Result", ":"], repeat=12, after=2)
def test_ascii_markers_are_the_lines_markers(pieces, repeat, after):
    """ASCII text finds its last marker line by memchr (few lines) or from the marker words searched from
    the end (`_last_marker_fast`): the same as reading every `splitlines` line (`_by_line`)."""
    from structsim_nb.answers import _last_marker_fast

    text = "".join(pieces) * repeat
    assert _last_marker_fast(text, after) == _by_line(text, after)


# Non-ASCII: splitlines' other breaks, the one character lowering lengthens (İ), the Kelvin sign (lowers to
# ASCII `k`), characters of other lengths in UTF-8 and UTF-16, and a final sigma (lowered by context).
_NON_ASCII_PIECES = _MARKER_PIECES | st.sampled_from(
    ["é", "Ü", "€", "😀", "\x85", "\u2028", "\u2029", "İ", "fİnal answer", "\u212a", "Σ", "ΑΝΣΩΕΡ", "ß", "\xa0"]
)


@settings(max_examples=1500, deadline=None, derandomize=True)
@given(
    pieces=st.lists(_NON_ASCII_PIECES, max_size=16), repeat=st.sampled_from([1, 1, 3, 12]), after=st.integers(-1, 90)
)
@example(pieces=["é", "\u2028", "Answer", ":", "x"], repeat=12, after=0)  # a non-ASCII line break before a marker
@example(pieces=["é", "\x85", "Result", ":"], repeat=1, after=0)
@example(pieces=["İ", "\n", "Answer", ":"], repeat=12, after=0)  # lowering lengthens: read line by line
def test_non_ascii_markers_are_the_lines_markers(pieces, repeat, after):
    """Text with an accent anywhere is searched at C speed too (it was read line by line, a millisecond for an
    indented answer), and finds what reading every `splitlines` line finds."""
    from structsim_nb.answers import _last_marker_fast

    text = "".join(pieces) * repeat
    assert _last_marker_fast(text, after) == _by_line(text, after)


@settings(max_examples=800, deadline=None, derandomize=True)
@given(pieces=st.lists(_NON_ASCII_PIECES, max_size=16), repeat=st.sampled_from([1, 3]), cut=st.integers(0, 200))
def test_markers_searched_in_regions_are_the_lines_markers(pieces, repeat, cut):
    """The marker search over regions (the whole text, or split anywhere, even inside a marker word) finds what
    reading every line finds."""
    from structsim_nb.answers import _last_marker_fast

    text = "".join(pieces) * repeat
    cut = min(cut, len(text))
    assert _last_marker_fast(text, -1, ((0, len(text)),)) == _by_line(text, -1)
    assert _last_marker_fast(text, -1, ((0, cut), (cut, len(text)))) == _by_line(text, -1)
    assert _last_marker_fast(text, cut, ((0, len(text)),)) == _by_line(text, cut)


# Agent answers around fenced blocks: JSON (indented, with a marker word as a key or value, with the line breaks a
# JSON string may hold as they are), Python literals whose strings span lines, and marker lines before, in and after.
_FENCED_PIECES = st.sampled_from(
    [
        "```json\n",
        "```\n",
        "```",
        "\n```",
        json.dumps({"answer": "Result: 1", "items": [{"output": 2}] * 3}, indent=2),
        json.dumps({"note": "x\u2028Answer: [7]"}, ensure_ascii=False),
        json.dumps({"note": "x\x85Result: [8]", "é": 1}, ensure_ascii=False),
        "{'note': '''x\nAnswer: [9]'''}",
        '{"a": [1, {"b": ',  # cut off
        "Answer: ",
        "\nFinal answer: [3]\n",
        '\n- Result: {"r": 4}\n',
        "Here it is:\n",
        "\n",
        "<answer>[5]</answer>",
        "42",
        "é",
    ]
)


@settings(max_examples=1500, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(pieces=st.lists(_FENCED_PIECES, min_size=1, max_size=8))
@example(pieces=["```json\n", json.dumps({"note": "x\u2028Answer: [7]"}, ensure_ascii=False), "\n```"])
@example(pieces=["```\n", "{'note': '''x\nAnswer: [9]'''}", "\n```"])
@example(
    pieces=["Answer: ", "```json\n", json.dumps({"answer": "Result: 1"}, indent=2), "\n```", "\nFinal answer: [3]\n"]
)
def test_a_json_block_left_out_of_the_marker_search_reads_the_same(pieces):
    """Leaving the last fenced block out of the marker search when it holds JSON changes no answer's reading
    (`_last_marker_around_json` against searching the whole text)."""
    from structsim_nb import answers

    text = "".join(pieces)
    with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis runs many examples
        patch.setattr(answers, "_SHORT_TEXT", 0)  # every text takes the path that reads the block first
        fast = parse_answer(text)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            answers, "_last_marker_around_json", lambda text, after, budget: answers._last_marker_fast(text, after)
        )
        assert parse_answer(text) == fast


@pytest.mark.parametrize(
    ("text", "form", "value"),
    [
        ("Here:\n```\n{'note': '''x\nAnswer: [9]'''}\n```\n", "fenced", {"note": "x\nAnswer: [9]"}),
        ('Here:\n```json\n{"note": "x\u2028Answer: [7]"}\n```\n', "fenced", {"note": "x\u2028Answer: [7]"}),
        ('Here is the result: {"0": ["<ANSWER>"], "": []}', "embedded", {"0": ["<ANSWER>"], "": []}),
        ('{"a": "<answer>[1]</answer>"}', "json", {"a": "<answer>[1]</answer>"}),
        # A marker in a string of a structure after a real marker: the structure is what that marker gives.
        ('Final answer: [1]\n{"note": "<answer>"}', "prefixed", {"note": "<answer>"}),
        ('Final answer: {"a": "x\u2028Answer: y"}', "prefixed", {"a": "x\u2028Answer: y"}),
        ('Notes.\n**Answer**: {"a": "x\u2029Final answer: 3"} ', "prefixed", {"a": "x\u2029Final answer: 3"}),
        ('<answer>{"a": "x\u2028Answer: y"}', "prefixed", {"a": "x\u2028Answer: y"}),
        # ... but not when that marker's region closed before the structure.
        ('<answer>no</answer> {"a": "x\u2028Answer: y"}', "embedded", {"a": "x\u2028Answer: y"}),
        ('{"a": 1}\nFinal answer: [2]', "prefixed", [2]),  # a bracket before, the marker outside it
        ('(step 1) done.\n<answer>{"b": 3}</answer>', "prefixed", {"b": 3}),
        # A closing tag inside one of the answer's strings does not end the answer: the last one does.
        ('Think.<answer>{"a": ["x</answer>", "y"]}</answer>', "prefixed", {"a": ["x</answer>", "y"]}),
        ('<answer>\n{"a": "```p```", "b": "</ANSWER>"}\n</answer> ok', "prefixed", {"a": "```p```", "b": "</ANSWER>"}),
        ("<answer>[1]</answer> and later </answer>", "prefixed", [1]),  # the first close, when it reads whole
    ],
)
def test_a_marker_inside_a_structure_is_part_of_its_string(text: str, form: str, value: object) -> None:
    """A marker (a line, or an `<answer>` tag) inside a structure that parses is text of one of its strings: the
    structure is the answer, not what follows the marker inside it."""
    parsed = parse_answer(text)
    assert (parsed.form, parsed.value) == (form, value)


def test_a_json_block_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The marker search reads the last block to know it holds JSON; the fence search then reuses that reading."""
    from structsim_nb import _candidates, answers

    reads: list[tuple[int, int]] = []
    read = _candidates._read_whole

    def counted(text: str, start: int, end: int, budget: object, *, literal: bool) -> object:
        reads.append((start, end))
        return read(text, start, end, budget, literal=literal)

    monkeypatch.setattr(_candidates, "_read_whole", counted)
    text = "Here it is:\n```json\n" + json.dumps({"items": list(range(300))}, indent=2) + "\n```\nDone."
    assert len(text) > answers._SHORT_TEXT  # (a shorter text is searched whole: its block is read once anyway)
    assert parse_answer(text).value == {"items": list(range(300))}
    assert len(reads) == len(set(reads)) == 1


@settings(max_examples=500, deadline=None, derandomize=True)
@given(
    lead=st.text(alphabet=" \t\n\x0b\x1c\x85\u2028\u3000", max_size=40),
    body=st.sampled_from(['{"a": 1}', "[1, 2]", "42", "-3.5", "{'a': (1,)}", "x", "", "{", "1,234"]),
    trail=st.text(alphabet=" \t\n\x0b\x1c\x85\u2028\u3000", max_size=80),
)
def test_a_region_is_read_whole_between_the_ends_strip_finds(lead, body, trail):
    """`_whole` finds the region's ends without copying it: the span `str.strip` gives, also past a long run of
    trailing space."""
    from structsim_nb._candidates import Budget
    from structsim_nb.answers import _whole

    text = "pre" + lead + body + trail + "post"
    start, end = 3, len(text) - 4
    found = _whole(text, start, end, Budget(100, 200_000, 10**6))
    stripped = text[start:end].strip()
    if found is not None:
        first = start + len(text[start:end]) - len(text[start:end].lstrip())
        assert found.span == (first, first + len(stripped))
    else:
        assert stripped not in ('{"a": 1}', "[1, 2]", "42", "-3.5", "{'a': (1,)}", "1,234")


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("Answer: " + "(" * 101 + "\n```\n" + "9" * 4301 + "\n```", "a snippet nests deeper than 100 levels"),
        (
            "<answer>" + "[" * 101 + "1" + "]" * 101 + "</answer>```\n" + "(" * 101 + "\n```",
            "a value nests deeper than 100 levels",
        ),
    ],
)
def test_a_block_read_early_says_its_refusal_in_its_turn(text: str, reason: str) -> None:
    """The marker search reads the last block before the text after a marker is read; the reason a read refused
    something is still the first one met in reading order, as when the block was read only by the fence search."""
    parsed = parse_answer(text)
    assert parsed.form == "none" and parsed.message.endswith(reason)


@pytest.mark.parametrize(
    ("text", "form", "value"),
    [
        ('```json\n[[], {"```": null}]', "embedded", [[], {"```": None}]),  # no closing fence: its string's backticks
        ('```json\n[[], {"```": null}]\n```', "embedded", [[], {"```": None}]),
        ('x ```\n{"a": 1} and [2]\n```', "fenced", [2]),  # prose in a block: its last structure
        ('```\nsee {"a": 1}\n```\n```json\n{"b": 2}\n```', "fenced", {"b": 2}),
        # A value holding fences inside a fenced object: the backticks in its string open no block either.
        (
            'Here it is:\n```json\n{"t": 1, "items": [{"label": "```x```", "k": 1}, {"k": 2}]}\n```\nDone.',
            "embedded",
            {"t": 1, "items": [{"label": "```x```", "k": 1}, {"k": 2}]},
        ),
        (
            '```json\n{"code": "```py\\nprint(1)\\n```", "ok": true}\n```',
            "embedded",
            {"code": "```py\nprint(1)\n```", "ok": True},
        ),
    ],
)
def test_backticks_inside_a_structure_close_no_block(text: str, form: str, value: object) -> None:
    """Backticks inside a string of a structure that parses across them are not a fence."""
    parsed = parse_answer(text)
    assert (parsed.form, parsed.value) == (form, value)


def _by_line(text: str, after: int) -> tuple[int, str] | None:
    """What a marker line is, by definition: the last `splitlines` line starting at or after `after` that
    `_line_marker` reads as one (a microsecond a line, which `_last_marker_fast` must not cost)."""
    from structsim_nb.answers import _line_marker

    best, offset = None, 0
    for line in text.splitlines(keepends=True):
        if offset >= after:
            best = _line_marker(line, offset) or best
        offset += len(line)
    return best


def test_an_accent_does_not_send_a_long_answer_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    """A long indented answer naming `Café Müller` is searched for markers without lowering it as text, nor
    reading it line by line (non-ASCII text once was: a millisecond for an indented answer)."""
    import structsim_nb.answers as answers

    def by_line(line: str, start: int) -> None:
        raise AssertionError(f"read line by line: {line!r}")

    monkeypatch.setattr(answers, "_line_marker", by_line)
    data = {"vendor": "Café Müller", "items": [{"n": index, "name": "Straße"} for index in range(100)]}
    text = (
        "Here it is:\n```json\n"
        + json.dumps(data, indent=2, ensure_ascii=False)
        + '\n```\nFinal answer: {"vendor": "Café"}'
    )
    parsed = answers.parse_answer(text)
    assert (parsed.form, parsed.value) == ("prefixed", {"vendor": "Café"})  # the marker after the block wins
    assert answers.parse_answer(text.rsplit("\n", 1)[0]).value == data


@settings(max_examples=500, deadline=None, derandomize=True)
@given(
    text=st.text(alphabet="`` x\n", max_size=200),
    start=st.integers(0, 210),
    end=st.integers(0, 210),
)
def test_fences_are_found_as_str_find_finds_them(text, start, end):
    """`_find_fence` (single backticks, memchr) is `text.find("```", start, end)`, also past 64 lone backticks."""
    from structsim_nb.answers import _find_fence

    assert _find_fence(text, start, end) == text.find("```", start, end)
    many = "`x" * 100 + text
    assert _find_fence(many, start, end + 200) == many.find("```", start, end + 200)
