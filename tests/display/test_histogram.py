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


def test_text_is_escaped():
    markup = score_histogram(_frame([("scored", 0.5, True)]), title="<b>", caption="a < b", noun=("x&y", "x&ys"))
    assert "<b>" not in markup and "&lt;b&gt;" in markup and "a &lt; b" in markup and "x&amp;y score" in markup


def test_fewer_than_one_bin_is_refused():
    with pytest.raises(ValueError, match="bins must be a whole number of at least 1; got 0"):
        score_histogram(_frame([("scored", 0.5, True)]), bins=0)


# A page whose runs table and histogram share their scores: edge values, blanks, out-of-range scores.
_SCORES = [0.0, 0.05, 0.0999, 0.1, 0.35, 0.7, 0.6999, 0.7, 0.95, 0.97, 1.0, None, None, 0.5, 0.55]


def _page() -> tuple[str, list[float | None]]:
    rows = [[f"{i}.json", "error" if s is None else "scored", bool(s and s >= 0.7), s] for i, s in enumerate(_SCORES)]
    frame = pd.DataFrame(rows, columns=["report", "status", "test_pass", "score"])
    columns = [
        page.Column("report", kind="path"),
        page.Column("status", kind="badge"),
        page.Column("score", kind="score"),
    ]
    chart = score_histogram(frame, table="runs", noun=("run", "runs"))
    body = page.section("Runs", chart + page.table(frame, columns, anchor="runs", noun=("run", "runs")))
    return page.document("histogram", body), _SCORES


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
    assert console.problems() == []
