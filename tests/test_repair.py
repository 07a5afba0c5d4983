"""Truncated JSON answers: where the cut is, what is kept and dropped, and that nothing is invented."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.repair import find_truncation, repair_truncated

#: An FCC-shaped answer with every kind of value: strings with escapes and non-ASCII text,
#: floats, a negative exponent number, booleans, null, nested arrays, objects in arrays.
FULL: dict[str, Any] = {
    "Agency": "Harbor Line Media LLC",
    "Advertiser": 'Friends of "Dana" \\ Whitfield é ☃',
    "GrossTotal": 7150.0,
    "AgencyCommission": -1072.5,
    "Tiny": 1.5e-07,
    "Verified": True,
    "Rejected": False,
    "PaymentTerms": None,
    "LineItems": [
        {"LineItemDescription": "Morning News 6A-7A", "LineItemRate": 350.0, "LineItemDays": ["M", "T", "W"]},
        {"LineItemDescription": "Late News 11P", "LineItemRate": 600, "LineItemDays": None},
    ],
    "Grid": [[1, 2], [3, [4, 5]], []],
    "Empty": {},
}


def consistent(repaired: Any, full: Any, *, digits: bool = True) -> bool:
    """Whether `repaired` could have been cut from `full`: no key, item or value that `full` lacks.

    With `digits`, a number must also keep a prefix of the full number's digits; without, only
    its type is checked (a cut inside an exponent changes the magnitude; the repair says a cut
    number may be incomplete).
    """
    if isinstance(repaired, dict):
        return isinstance(full, dict) and all(
            key in full and consistent(v, full[key], digits=digits) for key, v in repaired.items()
        )
    if isinstance(repaired, list):
        return (
            isinstance(full, list)
            and len(repaired) <= len(full)
            and all(consistent(a, b, digits=digits) for a, b in zip(repaired, full, strict=False))
        )
    if isinstance(repaired, str):
        return isinstance(full, str) and full.startswith(repaired)
    if isinstance(repaired, bool) or repaired is None:
        return repaired is full
    if isinstance(full, bool) or not isinstance(full, (int, float)):
        return False
    if not digits:
        return True
    # A cut number keeps a prefix of its digits: 71 from 7150.0, 1.5 from 1.5e-07.
    return repaired == full or json.dumps(full).startswith(json.dumps(repaired).removesuffix(".0"))


def cuts(value: Any) -> list[str]:
    text = json.dumps(value, ensure_ascii=False)
    return [text[:end] for end in range(1, len(text))]


class TestEveryCut:
    @pytest.mark.parametrize("indent", [None, 2], ids=["compact", "indented"])
    def test_every_prefix_repairs_to_a_consistent_value_or_to_nothing(self, indent: int | None) -> None:
        text = json.dumps(FULL, ensure_ascii=False, indent=indent)
        repaired = 0
        for end in range(1, len(text)):
            fixed = repair_truncated(text[:end])
            if fixed is None:
                # Only a cut before the first key's value leaves nothing worth keeping.
                assert text[:end].count(":") <= 1, text[:end]
                continue
            repaired += 1
            assert consistent(fixed.value, FULL), (text[:end], fixed.value)
            assert fixed.start == 0 and fixed.repairs[-1].startswith("closed ")
        assert repaired > len(text) * 0.9

    def test_the_complete_text_is_not_truncated(self) -> None:
        assert find_truncation(json.dumps(FULL)) is None
        assert repair_truncated(json.dumps(FULL)) is None


class TestKindsOfCut:
    @pytest.mark.parametrize(
        ("text", "cut", "value", "said"),
        [
            ('{"Agency": "Harb', "string", {"Agency": "Harb"}, "cut inside the string value of 'Agency'"),
            ('{"GrossTotal": 71', "number", {"GrossTotal": 71}, "cut inside the number 71 of 'GrossTotal'"),
            ('{"GrossTotal": 7150.', "number", {"GrossTotal": 7150}, "cut inside the number 7150"),
            ('{"a": 1, "Agen', "key", {"a": 1}, "cut inside a key (the partial key is dropped)"),
            ('{"a": 1, "NetAmountDue":', "after_key", {"a": 1}, "cut after the key 'NetAmountDue'"),
            ('{"a": 1, "NetAmountDue"', "after_key", {"a": 1}, "cut after the key 'NetAmountDue'"),
            ('{"a": 1, "b": -', "after_key", {"a": 1}, "cut after the key 'b' before its value"),
            ('{"a": 1, "ok": tr', "literal", {"a": 1, "ok": True}, "cut inside the literal 'tr' of 'ok'"),
            ('{"a": 1, "none": nu', "literal", {"a": 1, "none": None}, "(completed as null)"),
            ('{"a": 1,', "between_items", {"a": 1}, "cut between items"),
            ('{"a": [{"x": 1}, {"y": 2}', "between_items", {"a": [{"x": 1}, {"y": 2}]}, "closed 1 array and 1 object"),
            ('{"a": [[1, 2], [3', "number", {"a": [[1, 2], [3]]}, "closed 2 arrays and 1 object"),
            ('{"a": [[1, 2], [', "between_items", {"a": [[1, 2], []]}, "closed 2 arrays and 1 object"),
            ('[{"a": 1}, {"b": "x\\', "string", [{"a": 1}, {"b": "x"}], "closed the string, 1 array and 1 object"),
            ('{"s": "caf\\u00', "string", {"s": "caf"}, "cut inside the string value of 's'"),
        ],
    )
    def test_each_position(self, text: str, cut: str, value: Any, said: str) -> None:
        truncation = find_truncation(text)
        assert truncation is not None and truncation.cut == cut
        fixed = repair_truncated(text)
        assert fixed is not None and fixed.value == value
        assert any(said in repair for repair in fixed.repairs), fixed.repairs
        assert fixed.message.startswith("the answer was cut off (truncated JSON) and repaired: ")

    def test_the_cut_structure_is_found_after_prose(self) -> None:
        text = 'Here is the invoice: {"Agency": "Harbor", "LineItems": [{"LineItemRate": 350.0}, {"LineItemRa'
        fixed = repair_truncated(text)
        assert fixed is not None and fixed.start == text.index("{")
        assert fixed.value == {"Agency": "Harbor", "LineItems": [{"LineItemRate": 350.0}, {}]}

    def test_a_later_cut_structure_after_a_complete_draft(self) -> None:
        text = 'Draft: {"a": 1}. Final: {"a": 2, "b": [1'
        fixed = repair_truncated(text)
        assert fixed is not None and fixed.value == {"a": 2, "b": [1]} and fixed.start == text.rindex("{")


class TestNotTruncated:
    @pytest.mark.parametrize(
        "text",
        [
            "use {curly braces} like this",  # closed
            "use {curly braces like this",  # a bracket in prose: no key follows it
            "see [note 1 for details",  # a bracket in prose: no value follows it
            '{"a": 1} and then {"b":',  # nothing left of the cut one
            '{"a": 1 "b": 2',  # a missing comma is malformed, not cut
            '{"a": [1, 2}',  # a mismatched closer
            '{"a": Harbor',  # an unquoted word is not a JSON value
            "{'a': 'python",  # only JSON is repaired
            "{",
            "",
        ],
    )
    def test_is_left_alone(self, text: str) -> None:
        assert repair_truncated(text) is None

    def test_depth_limit(self) -> None:
        assert repair_truncated("[" * 50 + "1", max_depth=100) is not None
        assert repair_truncated("[" * 150 + "1", max_depth=100) is None

    @settings(max_examples=300, deadline=None)
    @given(st.text(alphabet='{}[]":,\\ ab1-.tn\n', max_size=60))
    def test_never_raises(self, text: str) -> None:
        fixed = repair_truncated(text)
        assert fixed is None or isinstance(fixed.value, (dict, list)) and fixed.value

    @settings(max_examples=200, deadline=None)
    @given(
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | st.text(),
            lambda children: (
                st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=5), children, max_size=4)
            ),
            max_leaves=12,
        ).filter(lambda value: isinstance(value, (dict, list))),
        st.data(),
    )
    def test_any_cut_of_any_json_is_consistent(self, value: Any, data: st.DataObject) -> None:
        text = json.dumps(value, ensure_ascii=False)
        if len(text) < 2:
            return
        end = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
        fixed = repair_truncated(text[:end])
        assert fixed is None or consistent(fixed.value, value, digits=False), (text[:end], fixed)
