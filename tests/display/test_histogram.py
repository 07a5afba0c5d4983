"""Tests for `structsim_nb.display.histogram`: the score distribution as the page's own HTML bars."""

from __future__ import annotations

import html as html_lib
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb import plot
from structsim_nb.display import page
from structsim_nb.display.histogram import score_histogram
from structsim_nb.plot.bins import bin_index

_SEGMENT = re.compile(r"<i style='flex-grow:(\d+);background:(#[0-9A-Fa-f]{6})'></i>")


def _bars(markup: str) -> list[dict[str, int]]:
    """Each bar's counts by outcome, read back from the segments' flex-grow and colours."""
    names = {colour: name for name, colour in plot.COLOURS.items() if name in ("passed", "failed", "not scored")}
    return [
        {names[colour]: int(count) for count, colour in _SEGMENT.findall(bar)}
        for bar in re.findall(r"class='ss-hist-bin'.*?(?=class='ss-hist-bin'|<div class='ss-hist-axis')", markup)
    ]


def _frame(rows: list[tuple[str, float | None, bool]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["status", "score", "test_pass"])


outcomes = st.lists(
    st.tuples(
        st.sampled_from(["scored", "scored", "error", "unreadable", "not_applicable"]),
        st.one_of(st.sampled_from([0.0, 0.05, 0.7, 0.6999, 0.95, 1.0]), st.floats(0, 1)),
        st.booleans(),
    ),
    min_size=1,
    max_size=60,
)


@pytest.mark.filterwarnings("ignore:No artists with labels found:UserWarning")  # matplotlib, on a chart of nothing
@settings(max_examples=40, deadline=None)
@given(outcomes, st.sampled_from([1, 4, 20]))
def test_each_bar_holds_what_the_matplotlib_chart_stacks_in_its_bin(rows, bins):
    frame = _frame(rows)
    markup = score_histogram(frame, bins=bins)
    ax = plot.scores(frame, bins=bins, match_threshold=None)
    expected = [dict() for _ in range(bins)]
    for container in ax.containers:
        name = container.get_label().rsplit(" (", 1)[0]
        for at, bar in enumerate(container):
            if bar.get_height():
                expected[at][name] = int(bar.get_height())
    ax.figure.clear()
    if not any(expected):
        assert markup == ""
        return
    assert _bars(markup) == expected


def test_bars_are_as_tall_as_their_count_over_the_tallest_with_the_count_above():
    frame = _frame([("scored", 0.9, True)] * 4 + [("scored", 0.5, False)] * 2 + [("error", None, False)])
    markup = score_histogram(frame, bins=10)
    heights = [float(h) for h in re.findall(r"class='ss-hist-stack' style='height:([\d.]+)%'", markup)]
    counts = re.findall(r"<span class='ss-hist-count'>([\d,]+)</span>", markup)
    assert counts == ["1", "2", "4"] and heights == [25.0, 50.0, 100.0]
    assert markup.count("class='ss-hist-bin'") == 10  # the empty bins keep their place
    assert "Score distribution (7 cases)" in markup
    legend = re.findall(r"<li><i style='background:#[0-9A-Fa-f]+'></i>([^<]+)</li>", markup)
    assert legend == ["passed (4)", "failed (2)", "not scored (1)"]


def test_a_legend_entry_only_for_an_outcome_that_has_cases_and_nothing_for_none():
    markup = score_histogram(_frame([("scored", 1.0, True)]), noun=("run", "runs"))
    assert "passed (1)" in markup and "failed" not in markup and "(1 run)" in markup
    assert score_histogram(_frame([("not_applicable", None, False)])) == ""
    assert score_histogram(_frame([])) == ""


def test_tooltips_name_the_bin_and_its_counts_and_the_last_bin_includes_1():
    frame = _frame([("scored", 1.0, True), ("scored", 0.96, False), ("scored", 0.7, True)])
    markup = score_histogram(frame, noun=("run", "runs"))
    titles = [html_lib.unescape(t) for t in re.findall(r" title='([^']*)'", markup)]
    assert titles == [
        "0.70 to 0.75: 1 run (1 passed)",
        "0.95 to 1.00 (both included): 2 runs (1 passed, 1 failed)",
    ]


def test_with_a_table_each_non_empty_bar_is_a_button_naming_its_bin():
    frame = _frame([("scored", 0.31, False), ("scored", 0.31, False), ("error", None, False)])
    markup = score_histogram(frame, table="runs", column="score")
    targets = [json.loads(html_lib.unescape(t)) for t in re.findall(r"data-ss-range='([^']*)'", markup)]
    assert targets == [
        {"table": "runs", "column": "score", "bin": 0, "bins": 20},
        {"table": "runs", "column": "score", "bin": 6, "bins": 20},
    ]
    assert markup.count("<button") == 2 and markup.count("aria-pressed='false'") == 2
    assert "<button" not in score_histogram(frame)


def test_text_is_escaped_everywhere_it_is_written():
    markup = score_histogram(_frame([("scored", 0.5, True)]), title="<b>", caption="a < b", noun=("x&y", "x&ys"))
    assert "<b>" not in markup and "&lt;b&gt;" in markup and "a &lt; b" in markup and "x&amp;y score" in markup
    rows = _frame([("scored", 0.5, True), ("scored", 0.5, True)])
    hostile = ("<i>", "<b>runs' onmouseover='alert(1)")
    markup = score_histogram(rows, noun=hostile, table="t")
    assert "<b>" not in markup and "<i>" not in markup and "' onmouseover" not in markup
    assert "&lt;b&gt;runs&#x27; onmouseover=&#x27;alert(1)" in markup


def test_large_counts_are_labelled_compactly_and_exactly_in_the_tooltip():
    frame = _frame([("scored", 0.9, True)] * 12_345 + [("scored", 0.1, False)] * 999)
    markup = score_histogram(frame, noun=("run", "runs"))
    assert re.findall(r"<span class='ss-hist-count'>([^<]+)</span>", markup) == ["999", "12k"]
    assert "0.90 to 0.95: 12,345 runs (12,345 passed)" in markup


def test_a_bar_keeps_the_table_to_the_statuses_the_chart_draws_when_other_rows_are_there():
    drawn = _frame([("scored", 0.02, False), ("error", None, False)])
    target = re.search(r"data-ss-range='([^']*)'", score_histogram(drawn, table="t")).group(1)
    assert "statuses" not in html_lib.unescape(target)  # every row is drawn: the score alone decides
    mixed = _frame([("scored", 0.02, False), ("not_applicable", None, False), ("error", None, False)])
    target = re.search(r"data-ss-range='([^']*)'", score_histogram(mixed, table="t", status_column="state")).group(1)
    spec = json.loads(html_lib.unescape(target))
    assert spec["statusColumn"] == "state" and spec["statuses"] == ["scored", "unreadable", "error"]


def test_fewer_than_one_bin_is_refused():
    with pytest.raises(ValueError, match="bins must be a whole number of at least 1; got 0"):
        score_histogram(_frame([("scored", 0.5, True)]), bins=0)


# A page whose runs table and histogram share their scores: edge values, blanks, infinities, out-of-range scores.
_SCORES = [0.0, 0.05, 0.0999, 0.1, 0.35, 0.7, 0.6999, 0.7, 0.95, 0.97, 1.0, None, None, 0.5, 0.55, float("inf"), 1.5]


def _frame_of(scores: list[float | None]) -> pd.DataFrame:
    rows = [[f"{i}.json", "error" if s is None else "scored", bool(s and s >= 0.7), s] for i, s in enumerate(scores)]
    return pd.DataFrame(rows, columns=["report", "status", "test_pass", "score"])


_COLUMNS = [page.Column("report", kind="path"), page.Column("status", kind="badge"), page.Column("score", kind="score")]


def _page() -> tuple[str, list[float | None]]:
    frame = _frame_of(_SCORES)
    chart = score_histogram(frame, table="runs", noun=("run", "runs"))
    body = page.section("Runs", chart + page.table(frame, _COLUMNS, anchor="runs", noun=("run", "runs")))
    return page.document("histogram", body), _SCORES


def _two_tables_page() -> str:
    """Two tables, each with a 20-bin histogram; the first also with a 10-bin one; the second holds a row the
    charts leave out (not applicable)."""
    first = _frame_of([0.1, 0.12, 0.16, 0.3, 0.31, 0.9])
    second = pd.concat(
        [_frame_of([0.1, 0.12, 0.5]), pd.DataFrame([["na.json", "not_applicable", False, 0.11]], columns=first.columns)]
    )
    body = page.section(
        "First",
        score_histogram(first, table="first")
        + score_histogram(first, table="first", bins=10)
        + page.table(first, _COLUMNS, anchor="first"),
    )
    body += page.section(
        "Second", score_histogram(second, table="second") + page.table(second, _COLUMNS, anchor="second")
    )
    return page.document("two tables", body)


def _bar(view, table: str, bins: int, at: int):
    spec = json.dumps({"table": table, "column": "score", "bin": at, "bins": bins})
    return view.locator(f"button.ss-hist-bin[data-ss-range^='{spec[:-1]}']")


def _pressed(view) -> list[dict]:
    return view.evaluate(
        "[...document.querySelectorAll('[data-ss-range][aria-pressed=true]')]"
        ".map(b => JSON.parse(b.getAttribute('data-ss-range')))"
    )


@pytest.mark.browser
def test_a_click_on_a_bar_lists_exactly_the_runs_in_its_bin_and_a_second_click_lists_all(tmp_path, chromium):
    from browser import open_page

    document, scores = _page()
    path = tmp_path / "page.html"
    path.write_text(document, encoding="utf-8")
    view, console = open_page(chromium, path.as_uri())
    expected = bin_index(pd.Series(scores, dtype=float), 20)
    bars = view.locator("button.ss-hist-bin")
    assert bars.count() == len(set(expected.tolist()))
    for nth in range(bars.count()):
        bar = bars.nth(nth)
        target = json.loads(bar.get_attribute("data-ss-range"))
        bar.click()
        shown = view.evaluate("window.ssTables.runs.visibleRows()")
        assert sorted(shown) == [i for i, at in enumerate(expected) if at == target["bin"]], target
        assert bar.get_attribute("aria-pressed") == "true"
        assert view.locator(".ss-range").is_visible()
    bar.click()  # the pressed bar again: every run
    assert len(view.evaluate("window.ssTables.runs.visibleRows()")) == len(scores)
    assert not view.locator(".ss-range").is_visible() and bar.get_attribute("aria-pressed") == "false"
    bars.first.click()
    view.locator(".ss-range-clear").click()  # the chip's clear button: every run
    assert len(view.evaluate("window.ssTables.runs.visibleRows()")) == len(scores)
    # Bars are as tall as their counts, in pixels; the figure fits a phone's width.
    heights = view.evaluate(
        "[...document.querySelectorAll('.ss-hist-stack')].map(e => e.getBoundingClientRect().height)"
    )
    counts = np.bincount(expected)[np.bincount(expected) > 0]
    assert np.allclose(np.array(heights) / max(heights), counts / counts.max(), atol=0.02)
    view.set_viewport_size({"width": 360, "height": 700})
    assert view.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert not view.locator(".ss-hist-count").first.is_visible()  # too narrow for labels: the tooltips say
    assert console.problems() == []


@pytest.mark.browser
def test_each_table_marks_and_clears_only_its_own_bars_and_a_bar_lists_only_rows_it_counts(tmp_path, chromium):
    from browser import open_page

    path = tmp_path / "two.html"
    path.write_text(_two_tables_page(), encoding="utf-8")
    view, console = open_page(chromium, path.as_uri())

    def rows(table: str) -> list[int]:
        return sorted(view.evaluate(f"window.ssTables[{table!r}].visibleRows()"))

    _bar(view, "first", 20, 2).click()  # 0.10 to 0.15: rows 0 and 1
    assert rows("first") == [0, 1]
    assert [(p["table"], p["bins"], p["bin"]) for p in _pressed(view)] == [("first", 20, 2)]  # not the 10-bin bar 2
    _bar(view, "second", 20, 2).click()  # 0.10 to 0.15: rows 0 and 1, not the not-applicable row 3 at 0.11
    assert rows("second") == [0, 1]
    assert rows("first") == [0, 1]  # still filtered, and still shown as pressed
    assert sorted((p["table"], p["bins"], p["bin"]) for p in _pressed(view)) == [("first", 20, 2), ("second", 20, 2)]
    _bar(view, "first", 10, 1).click()  # 0.10 to 0.20 in 10 bins, while 20-bin bar 2 is on: applied, not cleared
    assert rows("first") == [0, 1, 2]
    assert sorted((p["table"], p["bins"], p["bin"]) for p in _pressed(view)) == [("first", 10, 1), ("second", 20, 2)]
    # The chip's clear button gives the focus back to the bar that set the filter.
    view.locator("#first .ss-range-clear").focus()
    view.keyboard.press("Enter")
    assert rows("first") == list(range(6))
    focused = view.evaluate("JSON.parse(document.activeElement.getAttribute('data-ss-range') || 'null')")
    assert focused == {"table": "first", "column": "score", "bin": 1, "bins": 10}
    assert [(p["table"], p["bin"]) for p in _pressed(view)] == [("second", 2)]
    assert console.problems() == []
