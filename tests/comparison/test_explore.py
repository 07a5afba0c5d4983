"""Tests for `structsim_nb.comparison.explore`: the comparison explorer, driven through its widgets."""

from __future__ import annotations

import pytest

from structsim_nb import compare

pytest.importorskip("ipywidgets", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')


@pytest.fixture(scope="module")
def explorer(baseline_run, vendor_run):
    return compare(baseline_run, vendor_run).explore()


def test_cases_are_listed_broken_first(explorer, baseline_run, vendor_run):
    result = compare(baseline_run, vendor_run)
    broken = set(result.cases_frame().query("flip == 'broken'")["case"])
    listed = [label for label, _ in explorer.case.options]
    assert broken and all(any(name in label for name in broken) for label in listed[: len(broken)])


def test_filters_narrow_the_cases(explorer, baseline_run, vendor_run):
    changes = compare(baseline_run, vendor_run).non_matches_frame()
    explorer.kind.value = "fixed"
    fixed_cases = changes.loc[changes["change"] == "fixed", "case"].nunique()
    assert f"{fixed_cases} of 40 cases match" in explorer.note.value
    explorer.kind.value = ""
    explorer.outcome.value = "broken"
    assert len(explorer.case.options) == compare(baseline_run, vendor_run).summary()["broken"]
    explorer.outcome.value = ""


def test_a_picked_case_shows_both_runs_side_by_side(explorer):
    explorer.outcome.value = "broken"
    explorer.case.value = explorer.case.options[0][1]
    detail = explorer.detail.value
    assert "baseline prediction" in detail and "candidate prediction" in detail and "truth (expected)" in detail
    assert "Field values that changed" in detail and "vendor_name" in detail and "appeared" in detail
    assert "Field scores" in detail
    explorer.outcome.value = ""


def test_the_fields_tab_lists_every_case_where_a_field_changed(explorer, baseline_run, vendor_run):
    changes = compare(baseline_run, vendor_run).non_matches_frame()
    explorer.field_pick.value = "vendor_name"
    assert len(explorer.field_cases.options) == changes.loc[changes["path"] == "vendor_name", "case"].nunique()


def test_runs_read_from_files_explore_too(baseline_run, vendor_run, tmp_path):
    before, after = baseline_run.to_file(tmp_path / "a.json"), vendor_run.to_file(tmp_path / "b.json")
    explorer = compare(before, after).explore()
    explorer.case.value = explorer.case.options[0][1]
    assert "candidate prediction" in explorer.detail.value


def test_without_a_kernel_it_says_what_it_is_and_what_it_needs(explorer, baseline_run, vendor_run):
    summary = compare(baseline_run, vendor_run).summary()
    text = explorer._repr_mimebundle_()["text/plain"]
    assert text.startswith(
        f"structsim-nb comparison explorer ({summary['candidate']} against {summary['baseline']}: 40 cases compared, "
        f"{summary['fixed']} fixed, {summary['broken']} broken): pick a case to see both runs side by side"
    )
    assert "needs a running kernel" in text and "comparison.to_html()" in text and "VBox" not in text
    assert "application/vnd.jupyter.widget-view+json" in explorer._repr_mimebundle_()
