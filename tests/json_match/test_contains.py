"""contains: whether the output holds a JSON object or array."""

from __future__ import annotations

import pytest
from helpers import answer_text_strategy
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.json_match import (
    contains_json,
)


class TestContainsJson:
    @pytest.mark.parametrize(
        ("text", "found", "note"),
        [
            ('text {"k": "v"} more', True, None),
            ('{"a":1} and {"b":2}', True, "Agenta scores False"),
            ("[1,2,3]", True, "misses arrays"),
            ('```json\n{"a": 1}\n```', True, None),
            ("{}", True, None),
            ('[{"a":1}]', True, None),
            ('{"a": NaN}', True, None),
            ('{"a": 1', False, "was cut off (truncated JSON) and repaired"),
            ('{"a": 1, "b": [2', False, 'reads as {"a": 1, "b": [2]}'),
            ("{'a': 1}", False, None),
            ("The answer is 34.", False, None),
            ("nothing here", False, None),
        ],
    )
    def test_text(self, text, found, note):
        result = contains_json(text)
        assert result.passed is found
        if note:
            assert note in result.reason

    def test_structured_output_is_checked(self):
        assert contains_json({"data": "plain text"}).passed
        bad = contains_json({"when": object()})
        assert not bad.passed and "Agenta passes every dict" in bad.reason
        assert contains_json([1]).passed

    def test_other_types_are_a_score_not_a_crash(self):
        result = contains_json(42)
        assert not result.passed and "Agenta raises" in result.reason


@settings(max_examples=400, deadline=None, derandomize=True)
@given(text=answer_text_strategy())
def test_agenta_verdict_shortcut_agrees_with_the_emulation(text):
    """Where the JSON found here is exactly Agenta's first-`{`-to-last-`}` span, Agenta's verdict is taken
    as True without parsing again; everywhere, the result equals the one the emulation gives."""
    from structsim_nb.json_match import contains as module

    fast = contains_json(text)
    with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis runs many examples
        patch.setattr(module, "_agenta_reads_ours", lambda text, read: False)
        assert contains_json(text) == fast


def test_a_number_too_long_to_write_out_is_not_json():
    result = contains_json('{"a": ' + "9" * 4300 + "}")
    assert result.score == 0.0 and "digits" in result.reason


@pytest.mark.parametrize("tag", ["<think>", "<THINK>", "<th\u0131nk>", "<TH\u0130NK>"])
def test_any_think_tag_parse_answer_matches_leaves_agentas_verdict_to_the_emulation(tag):
    """`parse_answer` matches `<think` case-insensitively, dotless and dotted I included."""
    text = '{"a": 1 ' + tag + "junk</think>}"
    assert "Agenta scores False" in contains_json(text).reason


@settings(max_examples=300, deadline=None, derandomize=True)
@given(
    text=answer_text_strategy(),
    number=st.sampled_from(["123456789012345678901234", "-9223372036854775809", "42"]),
    after=st.sampled_from(["", "\n```", '{"c": 2', " [1e400]", " [NaN]"]),
)
def test_reading_without_exact_integers_changes_no_verdict_or_reason(text, number, after):
    """contains_json reads the text with `exact_numbers=False` (integers past 64 bits may be floats): every
    result is the one the exact reading gives."""
    from structsim_nb.json_match import contains as module

    text = f'{text}{{"id": {number}, "rows": [{number}]}}{after}'
    fast = contains_json(text)
    exact = module.read_text
    with pytest.MonkeyPatch.context() as patch:  # not the fixture: hypothesis runs many examples
        patch.setattr(module, "read_text", lambda text, exact_numbers: exact(text))
        assert contains_json(text) == fast


def test_an_integer_past_64_bits_is_json_as_any_other():
    text = 'Result:\n```json\n{"id": 123456789012345678901234, "tags": ["[x"]}\n```'
    result = contains_json(text)
    assert result.passed and result.reason.startswith("found a JSON object")


def test_text_nested_a_thousand_levels_fails_either_way():
    """With a run of 19 digits, 1,000 levels are past what 3.10's and 3.11's json.loads reads (the exact reading)
    and within orjson's 1,024: the verdict is the same either way, and both reasons say the nesting is too deep."""
    from structsim_nb.json_match import contains as module

    text = "[" * 1000 + '"1234567890123456789012"' + "]" * 1000
    fast = contains_json(text)
    exact = module.read_text
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(module, "read_text", lambda text, exact_numbers: exact(text))
        slow = contains_json(text)
    assert (fast.score, fast.passed) == (slow.score, slow.passed) == (0.0, False)
    assert "nests deeper than 100 levels" in fast.reason and "nests deeper than 100 levels" in slow.reason
