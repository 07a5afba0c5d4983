"""Tests for `structsim_nb.trajectories.runs_page`: the evaluate aggregate as a page."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path

import pytest

from structsim_nb.trajectories.runner import run_evaluation
from structsim_nb.trajectories.runs_page import runs_page

TREE = Path(__file__).parent.parent / "data" / "trajectories_tree"


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reports")
    return run_evaluation(TREE / "trajectories", TREE / "scenarios", out, progress=False)


@pytest.fixture(scope="module")
def aggregate(run) -> dict:
    return run.aggregate


@pytest.fixture(scope="module")
def reports(run) -> list[dict]:
    """Each run's own report file, in the aggregate's order (the aggregate keeps only summaries)."""
    folder = run.aggregate_path.parent
    return [json.loads((folder / result["report"]).read_text()) for result in run.aggregate["results"]]


def _runs(html: str) -> dict:
    match = re.search(r"<script type='application/json' id='runs-data'>(.*?)</script>", html, re.S)
    assert match
    return json.loads(match.group(1))


def test_every_run_worst_first_with_its_answer(aggregate, reports):
    html = runs_page(aggregate, reports=reports)
    data = _runs(html)
    keys = [c["key"] for c in data["columns"]]
    rows = [dict(zip(keys, row, strict=True)) for row in data["rows"]]
    assert len(rows) == len(aggregate["results"])
    assert [r["status"] for r in rows] == sorted((r["status"] for r in rows), key=lambda s: s != "error")
    scored = [r for r in rows if r["status"] == "scored"]
    assert [r["test_pass"] for r in scored] == sorted(r["test_pass"] for r in scored)
    first_scored = data["details"][rows.index(scored[0])]
    assert first_scored["panes"][0]["title"] == "answer"
    assert isinstance(first_scored["panes"][0]["value"], dict)  # JSON answers are shown as JSON
    assert first_scored["panes"][1]["title"] == "static_json details"
    assert "scenario_type = structured" in html  # said once, not per row


def test_totals_and_what_did_not_join(aggregate):
    html = runs_page(aggregate, title="runs <1>")
    totals = aggregate["totals"]
    assert f"<div class='ss-tile-value'>{totals['passed']} of {totals['scenarios']}</div>" in html
    assert "<title>runs &lt;1&gt;</title>" in html
    assert "Trajectories that joined no scenario (1)" in html and "99.json" in html
    assert "Scenarios no trajectory joined (2)" in html
    assert "duplicate_scenario_id" in html
    # The score chart is the page's own HTML, each bar a filter of the runs table: no image.
    assert html.count("class='ss-hist'") == 1 and "data:image" not in html
    assert "data-ss-range='{&quot;table&quot;: &quot;runs&quot;" in html


def test_files_not_read_are_listed_with_their_reason(aggregate):
    skipped = [{"file": "runs.jsonl", "reason": "a JSON Lines file: write each line to a file of its own"}]
    html = runs_page({**aggregate, "skipped": skipped})
    assert "Files and folders not read (1)" in html and "runs.jsonl" in html and "a file of its own" in html
    assert "Files and folders not read" not in runs_page({**aggregate, "skipped": []})


def test_an_empty_aggregate_still_renders():
    html = runs_page({"scorer": "static_json", "totals": {"scenarios": 0}, "results": []})
    assert "No run joined." in html and "class='ss-hist'" not in html


def test_runs_that_all_errored_make_a_page_without_a_warning(aggregate):
    # Their scores are all None: an object column, whose fillna warned of a downcast on pandas 2 (Python 3.10).
    errors = [{**result, "status": "error", "score": None, "error": "boom"} for result in aggregate["results"][:3]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        html = runs_page({**aggregate, "results": errors})
    assert len(_runs(html)["rows"]) == 3 and "status = error" in html  # (said once: the same in every run)


def test_the_run_writes_its_page_beside_the_aggregate_with_every_answer(run):
    assert run.page_path == run.aggregate_path.with_name("_aggregate.html")
    html = run.page_path.read_text(encoding="utf-8")
    data = _runs(html)
    assert all(detail["panes"][0]["title"] == "answer" for detail in data["details"])
    assert any(isinstance(detail["panes"][0]["value"], dict) for detail in data["details"])


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ('  {"a": [1, 2.5, null]}', {"a": [1, 2.5, None]}),
        ("NaN", None),  # read as json.loads reads it (a float NaN), which the page's JSON writes as null
        ("12345678901234567890123", 12345678901234567890123),  # past 64 bits: still an integer
        ("The pump is off.", "The pump is off."),
        ("nope", "nope"),  # starts like JSON (`null`), is not
        ("[" * 5000 + "]" * 5000, "[" * 5000 + "]" * 5000),  # too deep to read: stays text, no crash
        ("[" * 101 + "]" * 101, json.loads("[" * 101 + "]" * 101)),  # as deep as the answer readers read
        ("[" * 102 + "]" * 102, "[" * 102 + "]" * 102),  # deeper: text on every Python (3.13's json reads it)
    ],
)
def test_an_answer_pane_holds_json_text_as_json_and_anything_else_as_text(answer, shown):
    aggregate = {
        "scorer": "static_json",
        "totals": {"scenarios": 1},
        "results": [{"status": "scored", "answer": answer}],
    }
    [detail] = _runs(runs_page(aggregate))["details"]
    value = detail["panes"][0]["value"]
    assert value == shown


@pytest.mark.browser
def test_an_answer_with_no_space_to_break_at_stays_inside_its_pane(tmp_path, chromium):
    """A text pane wraps anywhere: an answer of one unbroken run (a JSON too deep to read, a token, a URL)
    used to run under the next pane."""
    from browser import open_page

    answer = "[" * 3000 + "]" * 3000
    aggregate = {
        "scorer": "static_json",
        "totals": {"scenarios": 1},
        "results": [{"status": "scored", "answer": answer}],
    }
    path = tmp_path / "runs.html"
    path.write_text(runs_page(aggregate), encoding="utf-8")
    page, console = open_page(chromium, path.as_uri())
    page.locator(".ss-expand").first.click()
    text = page.locator("pre.ss-text").first
    text.wait_for()
    widths = text.evaluate("e => [e.scrollWidth, e.clientWidth, e.parentElement.clientWidth]")
    assert widths[0] <= widths[1] + 1 and widths[1] <= widths[2] + 1, widths
    assert console.problems() == []
