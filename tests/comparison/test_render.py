"""Tests for `structsim_nb.comparison.render`: the page on the shared page blocks, the notebook display, the JSON."""

from __future__ import annotations

import base64
import json
import re

import pytest
from browser import LAYOUT_PROBLEMS, notebook_html, open_page

from structsim_nb import compare


@pytest.fixture(scope="module")
def result(baseline_run, vendor_run):
    return compare(baseline_run, vendor_run)


def _data(page: str, table: str) -> dict:
    match = re.search(rf"<script type='application/json' id='{table}-data'>(.*?)</script>", page, re.S)
    assert match, f"the page must embed the {table} table's data"
    return json.loads(match.group(1))


def test_the_page_is_built_from_the_report_page_blocks(result):
    page = result.to_html()
    assert "class='ss-tiles'" in page and "<nav class='ss-toc'>" in page  # tiles and contents, as a report's page
    for table in ("overall", "regressions", "fields", "cases", "non-matches"):
        assert _data(page, table)["rows"], table


def test_the_tiles_and_the_forest_plot_say_what_changed(result):
    page = result.to_html()
    summary = result.summary()
    assert f"{summary['score_baseline']:.3f} → {summary['score_candidate']:.3f}" in page
    assert f"{summary['fixed']} fixed, {summary['broken']} broken" in page
    images = re.findall(r"src='data:image/svg\+xml;base64,([^']+)'", page)
    assert len(images) == 1, "one chart: the per-field forest plot"
    svg = base64.b64decode(images[0]).decode("utf-8")
    for path in result.fields_frame()["path"]:
        assert path in svg, f"the forest plot must name {path}"


def test_every_field_row_carries_its_interval_and_the_cases_it_rests_on(result):
    fields = _data(result.to_html(), "fields")
    keys = [column["key"] for column in fields["columns"]]
    frame = result.fields_frame()
    for row, expected in zip(fields["rows"], frame.to_dict("records"), strict=True):
        got = dict(zip(keys, row, strict=True))
        assert got["path"] == expected["path"] and got["verdict"] == expected["verdict"]
        assert got["n_cases"] == expected["n_cases"]
        assert got["ci_low"] == pytest.approx(expected["ci_low"]) and got["ci_high"] == pytest.approx(
            expected["ci_high"]
        )


def test_cases_are_worst_first_and_constant_statuses_are_said_once(result):
    page = result.to_html()
    cases = _data(page, "cases")
    keys = [column["key"] for column in cases["columns"]]
    assert "status_before" not in keys and "run" not in keys  # scored throughout, both runs: said once above
    assert "Every case: status before = scored." in page
    rows = [dict(zip(keys, row, strict=True)) for row in cases["rows"]]
    flips = [row["flip"] for row in rows]
    broken = flips.count("broken")
    assert flips[:broken] == ["broken"] * broken and broken == result.summary()["broken"]
    deltas = [row["delta"] for row in rows[broken:] if row["flip"] != "fixed"]
    assert deltas == sorted(deltas)


def test_the_notebook_display_is_compact_with_the_forest_plot_as_png(result):
    shown = result._repr_html_()
    assert "<html" not in shown and "<script" not in shown
    assert shown.count("data:image/png;base64,") == 1
    assert "comparison.explore()" in shown and "comparison.to_html()" in shown
    assert len(shown) < 200_000


@pytest.mark.browser
def test_the_page_sorts_filters_and_has_no_console_errors(result, chromium, tmp_path):
    path = tmp_path / "comparison.html"
    path.write_text(result.to_html(), encoding="utf-8")
    page, console = open_page(chromium, path.as_uri())
    page.screenshot(path=tmp_path / "comparison.png", full_page=True)
    assert console.problems() == []
    page.select_option("#fields select[data-column='verdict']", "worse")
    assert page.locator("#fields tbody tr.ss-row td:first-child").all_inner_texts() == ["vendor_name"]
    page.select_option("#non-matches select[data-column='change']", "fixed")
    changes = page.locator("#non-matches tbody tr.ss-row .ss-badge.fixed").count()
    assert changes == min(25, int((result.non_matches_frame()["change"] == "fixed").sum()))
    assert console.problems() == []


def test_the_notebook_display_keeps_tables_narrow(result):
    """One interval column instead of two, a regression's detail on a line of its own under its row."""
    shown = result._repr_html_()
    assert ">ci_low<" not in shown and ">interval</abbr>" in shown
    regressions = shown.split("Regressions, worst first")[1].split("</table>")[0]
    assert re.search(
        r'<tr class="ss-note"[^>]*><td colspan="\d+"[^>]*><span class="ss-note-label"[^>]*>detail</span>', regressions
    )
    assert ">detail</th>" not in regressions and regressions.count('class="ss-note"') == min(
        10, len(result.regressions())
    )


@pytest.mark.browser
def test_the_notebook_display_clips_nothing_in_nbconvert_html_at_1280_px(long_named_runs, chromium, tmp_path):
    """Cases named as document files often are (36 characters) were clipped under their neighbours."""
    path = notebook_html(tmp_path, {"comparison": compare(*long_named_runs)})
    page, console = open_page(chromium, path.as_uri(), width=1280)
    page.screenshot(path=tmp_path / "comparison-1280.png", full_page=True)
    assert page.evaluate(LAYOUT_PROBLEMS) == [{"spilled": [], "hidden": []}]
    names = page.locator(".jp-OutputArea-output td code").all_inner_texts()
    assert any(name.endswith(".pdf") and len(name) == 36 for name in names)  # the long names are shown whole
    assert console.problems(ignore=("requestfailed: http", "Failed to load resource", "require", "MathJax")) == []
