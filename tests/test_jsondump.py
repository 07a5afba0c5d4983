"""dump_bytes: readable sorted JSON, the same bytes every time, and a careful path for data orjson refuses."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb._jsondump import dump_bytes

_plain = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text(max_size=8),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_plain)
def test_the_layout_of_json_dumps_sorted_and_indented(value: object) -> None:
    expected = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert dump_bytes(value) == expected.encode("utf-8")


def test_data_orjson_refuses_is_made_plain() -> None:
    data = {"nan": math.nan, "inf": -math.inf, 1: (1, 2), "big": 2**70, "huge": 10**5000, "s": "\ud800x"}
    written = dump_bytes(data)
    text = written.decode("utf-8")  # valid UTF-8 although the string held a lone surrogate
    assert json.loads(text) == {
        "nan": None,
        "inf": None,
        "1": [1, 2],
        "big": 2**70,
        "huge": "<integer of 16,610 bits>",
        "s": "\ud800x",
    }
    assert dump_bytes(data) == written  # deterministic on the careful path too


def test_nan_is_null_on_the_fast_path_too() -> None:
    assert json.loads(dump_bytes({"a": math.nan, "b": [1.5]})) == {"a": None, "b": [1.5]}
