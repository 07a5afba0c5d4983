"""Frames of text pandas can hold: a lone surrogate kept as its escape (`_surrogates`)."""

from __future__ import annotations

import pandas as pd
import pytest
from pydantic import BaseModel

from structsim_nb import score_dataset
from structsim_nb._surrogates import escaped, text_frame


def _refuses_lone_surrogates() -> bool:
    """Whether this pandas refuses a lone surrogate in text (pandas 3 keeps text in pyarrow; pandas 2, on Python
    3.10, in Python objects)."""
    try:
        pd.DataFrame([{"a": "\ud800"}])
    except UnicodeEncodeError:
        return True
    return False


def _held(text: str) -> str:
    """The text a frame of this pandas holds for `text`: as given, or its escape where pandas refuses it."""
    return escaped(text) if _refuses_lone_surrogates() else text


def _in_pyarrow(make):
    """`make`, then every text column stored in pyarrow, which refuses a lone surrogate on any pandas."""

    def made(data, **options):
        frame = make(data, **options)
        return frame.astype({name: "string[pyarrow]" for name in frame.columns if frame[name].dtype != float})

    return made


def test_plain_text_makes_the_frame_pandas_makes() -> None:
    rows = [{"a": "café", "b": 1}, {"a": "x", "b": 2}]
    pd.testing.assert_frame_equal(text_frame(pd.DataFrame, rows), pd.DataFrame(rows))


@pytest.mark.parametrize("make", [pd.DataFrame, pd.DataFrame.from_records])
def test_a_lone_surrogate_is_written_as_its_escape(make) -> None:
    # pandas 3 keeps text in pyarrow, which refuses it: UnicodeEncodeError. Stored in pyarrow here on any pandas.
    rows = [{"model": "m\ud800", "file": "caf\udce9.json", "score": 0.5}, {"model": "é", "file": "ok", "score": 1.0}]
    got = text_frame(_in_pyarrow(make), rows, columns=["model", "file", "score"])
    assert got["model"].tolist() == ["m\\ud800", "é"] and got["file"].tolist() == ["caf\\udce9.json", "ok"]
    assert got["score"].tolist() == [0.5, 1.0]


def test_a_lone_surrogate_pandas_holds_is_kept_as_given() -> None:
    # Text kept in Python objects (pandas 2's default, or asked for) holds a lone surrogate as it is.
    rows = [{"model": "m\ud800", "score": 0.5}]
    got = text_frame(pd.DataFrame, rows, dtype=object)
    assert got["model"].tolist() == ["m\ud800"]


def test_escaped_reaches_keys_and_nested_values_and_keeps_the_rest() -> None:
    value = {"k\ud800": [("a\udce9", 1), {"x": None}], "n": 2.5}
    assert escaped(value) == {"k\\ud800": [("a\\udce9", 1), {"x": None}], "n": 2.5}
    assert escaped("plain") == "plain" and escaped(3) == 3


def test_a_report_with_a_lone_surrogate_in_a_value_shows_every_view() -> None:
    # JSON's "\ud800" decodes to a lone surrogate; non_matches_frame raised UnicodeEncodeError.
    class Contact(BaseModel):
        name: str | None = None
        city: str | None = None

    pairs = [({"name": "A\ud800", "city": "x"}, {"name": "A", "city": "y\udce9"}), ({"name": "B"}, {"name": "B"})]
    report = score_dataset(pairs, model_cls=Contact, progress=False)
    misses = report.non_matches_frame()[["path", "expected", "predicted"]].to_dict("records")
    assert misses == [
        {"path": "name", "expected": _held("A\ud800"), "predicted": "A"},
        {"path": "city", "expected": "x", "predicted": _held("y\udce9")},
    ]
    assert len(report.cases_frame()) == 2 and report.to_html()
