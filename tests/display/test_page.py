"""Tests for `structsim_nb.display.page`: the page's building blocks (what they embed and how they format)."""

from __future__ import annotations

import datetime
import enum
import json
import math
import re
from decimal import Decimal

import numpy as np
import pandas as pd
import pytest
from pydantic import BaseModel

from structsim_nb.display import page
from structsim_nb.display.page import Column, Tile


class Point(BaseModel):
    x: int
    when: datetime.date


def _embedded(html: str, anchor: str) -> dict:
    match = re.search(rf"<script type='application/json' id='{anchor}-data'>(.*?)</script>", html, re.S)
    assert match, "the table data must be embedded beside the table"
    return json.loads(match.group(1))


class TestJsonable:
    @pytest.mark.parametrize(
        ("value", "expected"),
        [
            (math.nan, None),
            (pd.NA, None),
            (np.int64(3), 3),
            (np.float64(0.5), 0.5),
            (np.bool_(True), True),
            ({"a": (1, math.inf)}, {"a": [1, None]}),
            (Point(x=1, when=datetime.date(2024, 3, 1)), {"x": 1, "when": "2024-03-01"}),
            (datetime.date(2024, 3, 1), "2024-03-01"),
            (Decimal("1.50"), "1.50"),
        ],
    )
    def test_values_become_plain_json(self, value, expected):
        assert page.jsonable(value) == expected
        json.dumps(page.jsonable(value), allow_nan=False)


class _Letter(str, enum.Enum):
    A = "a"


class _Count(enum.IntEnum):
    TWO = 2


MIXED = [
    {"plain": {"a": [1, 2.5, None, "x", True], "b": {"c": []}}},
    [math.nan, math.inf, -math.inf, np.float64(0.5), np.int64(3), np.bool_(False), pd.NA, pd.NaT],
    {"enum": _Letter.A, "int_enum": _Count.TWO, "tuple": (1, (2, math.nan)), "decimal": Decimal("1.50")},
    {"model": Point(x=1, when=datetime.date(2024, 3, 1)), "when": datetime.datetime(2024, 3, 1, 12, 30)},
    {1: "a non-string key", (2, 3): "a tuple key"},  # orjson refuses these: json writes them
    {True: "a bool key", None: "a None key"},  # str() of the key: "True", "None"
    [2**70, "\ud800 a lone surrogate"],
    {"deep": [[[[{"x": [np.float32(0.25)]}]]]]},
]


class TestScriptJson:
    """The embedded data is what `jsonable` gives, whichever encoder (orjson's C one, or json) wrote it."""

    @pytest.mark.parametrize("value", MIXED)
    def test_same_json_as_jsonable_then_json(self, value):
        expected = json.dumps(page.jsonable(value), ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        written = page._script_json(value)
        assert "<" not in written
        assert json.loads(written.replace("\\u003c", "<")) == json.loads(expected)

    def test_jsonable_fast_path_gives_the_python_paths_result(self, monkeypatch):
        fast = [page.jsonable(value) for value in MIXED]

        def refuse(*args, **kwargs):
            raise TypeError("the Python path, please")

        monkeypatch.setattr(page.orjson, "dumps", refuse)
        slow = [page.jsonable(value) for value in MIXED]
        assert fast == slow
        assert [type(value) for value in fast] == [type(value) for value in slow]

    @pytest.mark.parametrize("levels", [300, 5_000])
    def test_a_value_nested_past_the_shown_depth_is_cut_there_not_an_error(self, levels):
        # orjson refuses past 255 levels and the Python path recursed without a limit: RecursionError ended a run.
        value: list = []
        for _ in range(levels):
            value = [value]
        written = json.loads(page._script_json({"answer": value}))["answer"]
        for _ in range(page.DEEPEST_SHOWN - 1):  # (the dict holding it is the first level)
            (written,) = written
        assert written == page.DEEPER

    def test_a_table_embeds_numpy_na_and_enums_as_plain_json(self):
        frame = pd.DataFrame({"n": [np.int64(1), np.int64(2)], "e": [_Letter.A, None], "s": [0.5, math.nan]})
        html = page.table(frame, [Column("n"), Column("e"), Column("s", kind="score")], anchor="t9")
        assert _embedded(html, "t9")["rows"] == [[1, "a", 0.5], [2, None, None]]


class TestTable:
    FRAME = pd.DataFrame(
        {
            "name": ["a</script><script>alert(1)</script>", "b"],
            "score": [0.25, math.nan],
            "nested": [{"k": [1, 2]}, None],
            "depth": [0, 1],
        }
    )
    COLUMNS = [
        Column("name"),
        Column("score", kind="score"),
        Column("nested", kind="json"),
        Column("depth", hidden=True),
    ]

    def test_rows_are_embedded_as_json_that_cannot_close_the_script(self):
        html = page.table(self.FRAME, self.COLUMNS, anchor="t1", noun=("thing", "things"), page_size=10)
        assert html.count("</script>") == 1
        data = _embedded(html, "t1")
        assert data["rows"] == [
            ["a</script><script>alert(1)</script>", 0.25, {"k": [1, 2]}, 0],
            ["b", None, None, 1],
        ]
        assert [c["key"] for c in data["columns"]] == ["name", "score", "nested", "depth"]
        assert data["columns"][3]["hidden"] is True
        assert (data["pageSize"], data["noun"]) == (10, ["thing", "things"])
        assert "details" not in data
        assert "<noscript>" in html

    def test_details_are_one_per_row(self):
        html = page.table(self.FRAME, self.COLUMNS, anchor="t2", details=[{"reason": "x"}, None])
        assert _embedded(html, "t2")["details"] == [{"reason": "x"}, None]
        with pytest.raises(ValueError, match="one entry per row \\(2\\); got 1"):
            page.table(self.FRAME, self.COLUMNS, anchor="t3", details=[None])

    def test_unknown_columns_are_an_error(self):
        with pytest.raises(KeyError, match="missing nope"):
            page.table(self.FRAME, [Column("nope")], anchor="t4")

    def test_rows_of_every_kind_of_column_embed_as_the_rows_pandas_iterates(self):
        # The rows are read column by column; what they embed must be what iterating the rows gives.
        frame = pd.DataFrame(
            {
                "text": pd.array(["x", None, "z"], dtype="str"),
                "object": ["a", None, 1],
                "float": [1.5, math.nan, math.inf],
                "flag": [True, False, True],
                "int": np.array([1, 2, 3], dtype="int64"),
                "nullable": pd.array([1, None, 3], dtype="Int64"),
                "when": pd.to_datetime(["2024-01-01", None, "2024-01-03"]),
                "kind": pd.Categorical(["u", None, "u"]),
                "nested": [{"k": [1, 2]}, None, [np.int64(4)]],
                "enum": [_Letter.A, _Count.TWO, None],
            }
        )
        columns = [Column(key) for key in frame.columns]
        expected = [page.jsonable(list(row)) for row in frame[list(frame.columns)].itertuples(index=False, name=None)]
        assert _embedded(page.table(frame, columns, anchor="t5"), "t5")["rows"] == expected
        assert _embedded(page.table(frame.iloc[:0], columns, anchor="t6"), "t6")["rows"] == []
        assert _embedded(page.table(frame, [], anchor="t7"), "t7")["rows"] == [[], [], []]


class TestStaticTable:
    def test_formats_like_the_page(self):
        frame = pd.DataFrame(
            {"case": ["x"], "ok": [False], "score": [0.5], "n": [3], "v": [{"a": None}], "kind": ["missed"]}
        )
        html = page.static_table(
            frame,
            [
                Column("case", wrap=False),
                Column("ok", "pass", kind="pass"),
                Column("score", kind="score", help="0 to 1"),
                Column("n", kind="integer"),
                Column("v", kind="json"),
                Column("kind", kind="badge"),
            ],
        )
        assert "<td class='nowrap'>x</td>" in html
        assert "<span class='ss-badge fail'>fail</span>" in html
        assert f"style='background:{page.score_colour(0.5)}'>0.500</td>" in html
        assert "<abbr title='0 to 1'>score</abbr>" in html
        assert "<code>{&quot;a&quot;: null}</code>" in html  # JSON, not {'a': None}
        assert "<span class='ss-badge missed'>missed</span>" in html

    def test_a_note_column_gets_a_line_of_its_own_across_the_table(self):
        frame = pd.DataFrame({"case": ["a", "b"], "score": [0.5, 1.0], "reason": ["weakest fields: x=0.00", None]})
        html = page.static_table(frame, [Column("case"), Column("score", kind="score")], note=Column("reason"))
        rows = re.findall(r"<tr[^>]*>.*?</tr>", html.split("<tbody>")[1])
        assert len(rows) == 3  # a's row and its note, b's row (a blank note gets no line)
        assert rows[0].startswith("<tr class='ss-has-note'>") and rows[2].startswith("<tr><td")
        assert rows[1] == (
            "<tr class='ss-note'><td colspan='2'><span class='ss-note-label'>reason</span>"
            "weakest fields: x=0.00</td></tr>"
        )
        assert "<th>reason</th>" not in html


def test_score_colour_runs_red_amber_green():
    assert page.score_colour(0.0) == "rgb(248,208,200)"
    assert page.score_colour(0.5) == "rgb(251,231,181)"
    assert page.score_colour(1.0) == "rgb(221,241,228)"
    assert page.score_colour(2.0) == page.score_colour(1.0)


class TestJsonHtml:
    def test_lines_carry_their_paths_and_marks(self):
        html = page.json_html(
            {"a": 1, "items": [{"sku": "X"}, {"sku": None}], "empty": []},
            {"a": "wrong", "items[1]": "invented", "items[0].sku": "missed"},
        )
        paths = re.findall(r"data-path='([^']*)'", html)
        assert paths == ["", "a", "items", "items[0]", "items[0].sku", "items[1]", "items[1].sku", "empty"]
        assert re.search(r"<div class='l m-wrong' title='wrong' data-path='a'>", html)
        assert re.search(r"<div class='b m-invented' title='invented' data-path='items\[1\]'>", html)
        assert re.search(r"class='l m-missed' title='missed' data-path='items\[0\]\.sku'", html)
        assert "<span class='z'>null</span>" in html
        assert "[]" in html

    def test_text_is_shown_as_text(self):
        assert page.json_html("not <json>") == "<pre class='ss-text'>not &lt;json&gt;</pre>"


def test_drop_constant_reports_what_it_dropped():
    frame = pd.DataFrame({"model": ["M", "M"], "score": [0.1, 0.2], "v": [[1], [1]], "keep": ["k", "k"]})
    dropped, constants = page.drop_constant(frame, keep=["keep"])
    assert list(dropped.columns) == ["score", "v", "keep"]  # unhashable values are left alone
    assert constants == {"model": "M"}
    one_row, none = page.drop_constant(frame.head(1))
    assert list(one_row.columns) == list(frame.columns) and none == {}


def test_blocks_escape_their_text():
    assert "&lt;b&gt;" in page.tiles([Tile("<b>", "1", note="<i>", tone="bad")])
    assert "class='ss-tile bad'" in page.tiles([Tile("x", "1", tone="bad")])
    assert "<dt>fn</dt><dd>a &lt;value&gt;</dd>" in page.glossary({"fn": "a <value>"})
    assert page.section("T", "<p>x</p>", anchor="s").startswith("<section id='s'><h2>T</h2>")


def test_document_is_self_contained():
    html = page.document("A <title>", "<p>body</p>", subtitle="sub", contents=[("s", "Section")])
    assert html.startswith("<!DOCTYPE html>")
    assert "<title>A &lt;title&gt;</title>" in html
    assert "<a href='#s'>Section</a>" in html
    assert "window.ssTables" in html and ".ss-grid" in html  # script and styles inline
    assert not re.search(r"(src|href)=['\"]https?://", html)


def test_figure_embeds_an_svg_with_alt_text():
    from matplotlib.figure import Figure

    figure = Figure(figsize=(4, 2))
    figure.add_subplot().plot([0, 1], [0, 1])
    html = page.figure(figure, alt="a line", caption="caption <here>")
    assert "src='data:image/svg+xml;base64," in html
    assert "alt='a line' width='400' height='200'" in html
    assert "<figcaption>caption &lt;here&gt;</figcaption>" in html


class TestFragment:
    """A notebook display carries its styles on each element: JupyterLab drops `<style>` from untrusted output."""

    def test_styles_are_written_on_each_element_not_in_a_style_element(self):
        html = page.fragment(page.tiles([Tile("passed", "5 of 6", tone="good")]) + "<p class='ss-muted'>x</p>")
        assert "<style" not in html and "<script" not in html
        assert html.startswith('<div class="ss" style="color: #1f2328;')
        assert re.search(r'class="ss-tiles" style="display: flex;flex-wrap: wrap;', html)
        assert re.search(r'class="ss-tile good" style="[^"]*background: #dafbe1;', html)  # the tone's colour
        assert '<p class="ss-muted" style="margin: 6px 0;color: #59636e;">x</p>' in html

    def test_only_values_a_sanitizer_keeps(self):
        """JupyterLab's sanitizer drops `var(...)` and `ch` lengths from inline styles, so none may be left."""
        html = page.fragment(page.static_table(pd.DataFrame({"t": ["long text"]}), [Column("t")]) + "<figure></figure>")
        styles = " ".join(re.findall(r'style="([^"]*)"', html))
        assert "var(" not in styles and not re.search(r"\d+ch\b", styles)
        assert not re.search(r"\d+ch\b", page.stylesheet())  # the page's own rules too, as fragments inline them
