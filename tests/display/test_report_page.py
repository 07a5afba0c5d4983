"""Tests for `structsim_nb.display.report_page`: what the page holds, and (marked `browser`) how it behaves."""

from __future__ import annotations

import hashlib
import json
import re

import nbformat
import pytest
from browser import JUPYTERLAB_CHATTER, LAYOUT_PROBLEMS, jupyterlab, notebook_html, open_page
from pydantic import BaseModel

from structsim_nb import StructuredOutputReport, StructuredOutputSimilarity, score_dataset
from structsim_nb.demo import Invoice, run_reference, synthetic_invoice_pairs
from structsim_nb.display import report_page


class Receipt(BaseModel):
    receipt_id: str
    merchant: str | None = None


RIGHT = Receipt(receipt_id="R-1", merchant="Shop")


@pytest.fixture(scope="module")
def reference() -> StructuredOutputReport:
    return run_reference()


@pytest.fixture(scope="module")
def corpus() -> StructuredOutputReport:
    return score_dataset(synthetic_invoice_pairs(120, line_items=(1, 5)), model_cls=Invoice, workers=1, progress=False)


def _data(html: str, anchor: str) -> dict:
    match = re.search(rf"<script type='application/json' id='{anchor}-data'>(.*?)</script>", html, re.S)
    assert match, f"no data for table {anchor}"
    return json.loads(match.group(1))


def _column(data: dict, key: str) -> list:
    index = [c["key"] for c in data["columns"]].index(key)
    return [row[index] for row in data["rows"]]


class TestPageContent:
    def test_sections_in_reading_order(self, reference):
        html = reference.to_html()
        order = [html.index(f"<h2>{title}</h2>") for title in ("Summary", "Charts", "Cases, worst first")]
        order += [html.index("<h2>Fields, worst first</h2>"), html.index("<h2>Non-matches</h2>")]
        assert order == sorted(order)
        assert html.count("data:image/svg+xml;base64,") == 4
        for term in ("missed (fn)", "invented (fa)", "wrong (fd)", "right (tp)", "blank (tn)"):
            assert f"<dt>{term}</dt>" in html

    def test_summary_tiles_say_the_headline_figures(self, reference):
        html = reference.to_html()
        summary = reference.summary()
        assert "<div class='ss-tile-value'>5 of 6</div><div class='ss-tile-note'>83.3%</div>" in html
        assert f"<div class='ss-tile-value'>{summary['overall_score']:.3f}</div>" in html
        assert "<div class='ss-tile-label'>unreadable</div><div class='ss-tile-value'>0</div>" in html

    def test_cases_worst_first_with_constant_columns_said_once(self, reference):
        html = reference.to_html()
        cases = _data(html, "cases")
        assert _column(cases, "case")[0] == "wrong-throughout"  # the one failure leads
        assert _column(cases, "score") == sorted(_column(cases, "score"))[:1] + _column(cases, "score")[1:]
        keys = [c["key"] for c in cases["columns"]]
        assert "evaluator" not in keys and "model" not in keys and "status" not in keys
        assert "Same in every row, so not repeated: evaluator = StructuredOutputSimilarity; model = Invoice" in html
        assert "reading" not in keys and "reading = None" not in html  # empty in every row: dropped, not said
        assert {"invoice_id", "total_amount", "line_items"} <= set(keys)  # per-field scores as columns

    def test_each_case_carries_truth_prediction_and_marks(self, reference):
        cases = _data(reference.to_html(), "cases")
        detail = cases["details"][_column(cases, "case").index("number-off")]
        truth, prediction = detail["panes"]
        assert truth["value"]["total_amount"] == 1500.0 and prediction["value"]["total_amount"] == 1505.0
        assert truth["marks"] == {"total_amount": "wrong"} and prediction["marks"] == {"total_amount": "wrong"}
        assert truth["value"]["invoice_date"] == "2024-03-09"  # JSON, not datetime.date(2024, 3, 9)
        [non_matches, field_scores] = detail["tables"]
        assert non_matches["rows"] == [["total_amount", "wrong", 1500.0, 1505.0, 0.0]]
        assert dict(field_scores["rows"])["total_amount"] == 0.0

    def test_nested_values_are_json_not_python(self, reference):
        html = reference.to_html()
        misses = _data(html, "non-matches")
        invented = _column(misses, "predicted")[_column(misses, "kind").index("invented")]
        assert invented == {"sku": "KB-07", "description": "Keyboard", "quantity": 1, "unit_price": 45.0}
        assert "{'sku'" not in html and "datetime.date(" not in html

    def test_fields_link_to_their_non_matches(self, reference):
        fields = _data(reference.to_html(), "fields")
        links = dict(zip(_column(fields, "path"), _column(fields, "failing"), strict=True))
        assert links["invoice_date"] == {
            "text": "2 non-matches",
            "target": {"table": "non-matches", "column": "field", "value": "invoice_date"},
        }
        assert links["line_items.sku"] is None  # nothing failed there
        misses = _data(reference.to_html(), "non-matches")
        assert "line_items" in _column(misses, "field") and "line_items[1]" in _column(misses, "path")

    def test_unreadable_and_not_applicable_rows_are_shown_with_reasons(self, run_experiment):
        report = run_experiment(
            {"right": (RIGHT, RIGHT), "broken": (RIGHT, '{"receipt_id": '), "no-truth": (None, RIGHT)},
            [StructuredOutputSimilarity(Receipt)],
        )
        cases = _data(report.to_html(), "cases")
        assert _column(cases, "case") == ["broken", "right", "no-truth"]
        assert _column(cases, "status") == ["unreadable", "scored", "not applicable"]
        broken = cases["details"][0]
        assert "could not compare as Receipt" in broken["reason"]
        assert broken["panes"][1]["value"] == '{"receipt_id": '  # the text as it came

    def test_details_stop_at_the_limit(self, corpus, monkeypatch):
        monkeypatch.setattr(report_page, "DETAILS_LIMIT", 10)
        html = corpus.to_html()
        cases = _data(html, "cases")
        assert sum(detail is not None for detail in cases["details"]) == 10
        assert cases["details"][:10] == [d for d in cases["details"] if d is not None]
        assert "Truth and prediction are embedded for the 10 worst rows" in html

    def test_a_report_with_two_schemas_still_has_a_page(self, run_experiment):
        report = run_experiment(
            {"right": (RIGHT, RIGHT)},
            [StructuredOutputSimilarity(Receipt, name="a"), StructuredOutputSimilarity(Receipt, name="b")],
        )
        html = report.to_html()
        assert "<h3>By evaluator</h3>" in html
        assert "pass evaluator=&lt;name&gt;" in html  # the fields section says why it is empty
        assert html.count("data:image/svg+xml") == 1  # only the score chart applies


def _text(html: str) -> str:
    """Visible text, tags dropped and spaces squeezed."""
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html)).strip()


def _worst_cases(html: str) -> list[str]:
    """The case names of the worst-rows table(s), in order (each row's first cell)."""
    return re.findall(r'<tr class="ss-has-note"[^>]*><td class="nowrap"[^>]*>([^<]*)</td>', html)


@pytest.fixture(scope="module")
def two_evaluators() -> StructuredOutputReport:
    return run_reference(with_equals=True)


@pytest.fixture(scope="module")
def long_ids() -> StructuredOutputReport:
    """Cases named as document files often are (a 36-character hash), the width that crowded the pass badge."""
    pairs = synthetic_invoice_pairs(12, line_items=(1, 4), seed=3)
    named = [{**pair, "name": hashlib.md5(pair["name"].encode()).hexdigest() + ".pdf"} for pair in pairs]
    return score_dataset(named, model_cls=Invoice, workers=1, progress=False)


class TestFragment:
    def test_is_compact_and_says_how_to_get_the_rest(self, reference, corpus):
        small, large = reference._repr_html_(), corpus._repr_html_()
        for html in (small, large):
            assert "<script" not in html and html.count("<img") == 1 and 'src="data:image/png;base64,' in html
            assert "report.to_html()" in html and "report.explore()" in html
            assert len(_worst_cases(html)) == 5  # five worst rows, each followed by its reason
        assert abs(len(large) - len(small)) < 0.25 * len(small)  # does not grow with the cases
        assert len(large) < 70_000
        assert "Worst 5 of 120 rows" in large

    def test_each_reason_sits_on_a_line_of_its_own_under_its_case(self, reference):
        """A reason column squeezed beside the counts reads a few characters per line in a notebook."""
        html = reference._repr_html_()
        assert _worst_cases(html) == ["wrong-throughout", "number-off", "missed-field", "hallucinated-item", "perfect"]
        notes = re.findall(r'<tr class="ss-note"[^>]*><td colspan="(\d+)"[^>]*>(.*?)</td></tr>', html)
        headers = re.findall(r"<th[ >]", html.split("Worst 5 of 6 rows")[1])
        assert [int(span) for span, _ in notes] == [len(headers)] * 5  # across the whole table
        assert _text(notes[1][1]) == "reason weakest fields: total_amount=0.00"
        assert ">reason</th>" not in html

    def test_two_evaluators_are_shown_apart_field_level_first(self, two_evaluators, reference):
        """`Equals` beside the field-level evaluator: its rows do not fill the worst five or the headline."""
        html = two_evaluators._repr_html_()
        text = _text(html)
        assert text.startswith(
            "2 evaluators scored these cases (StructuredOutputSimilarity scored field by field; Equals scored the "
            "whole output and is summarised below)."
        )
        section = html.split(">StructuredOutputSimilarity</h3>")[1].split(">By evaluator</h3>")[0]
        assert "0.752" in _text(section) and "5 of 6" in _text(section) and "0.459" not in html  # its own figures
        assert _worst_cases(section) == _worst_cases(reference._repr_html_())  # as if Equals were not there
        assert "Equals" not in _text(section) and html.count("<img") == 1
        assert "report.plot.fields(evaluator='StructuredOutputSimilarity')" in _text(html)
        by_evaluator = _text(html.split(">By evaluator</h3>")[1].split("</table>")[0])
        assert by_evaluator == (
            "evaluator cases passed pass rate overall score scored field by field "
            "StructuredOutputSimilarity 6 5 83.3% 0.752 6 Equals 6 1 16.7% 0.167 0"
        )
        # The page says the same per evaluator, in the same order.
        page = two_evaluators.to_html()
        assert _text(page.split(">By evaluator</h3>")[1].split("</table>")[0]) == by_evaluator
        assert "mean over all 2 evaluators&#x27; rows" in page  # its mixed headline says what it mixes

    def test_one_evaluator_that_is_not_field_level_keeps_the_single_view(self, run_experiment):
        from strands_evals.evaluators import Equals

        report = run_experiment({"a": ("x", "x"), "b": ("y", "z")}, [Equals()])
        html = report._repr_html_()
        assert "By evaluator" not in html and "scored field by field" not in html
        assert _worst_cases(html) == ["b", "a"] and "<img" not in html  # no field-level rows: no empty chart


# -- in a real browser --------------------------------------------------------------------


def _rows(page, table: str) -> list[str]:
    """The first cell's text of each row the table shows (without the expand button)."""
    return [
        text.lstrip("\u25b8\u25be").strip()
        for text in page.locator(f"#{table} tbody tr.ss-row td:first-child").all_inner_texts()
    ]


@pytest.fixture(scope="module")
def pages(reference, corpus, tmp_path_factory):
    """Both pages written once; the screenshots go beside them."""
    folder = tmp_path_factory.mktemp("pages")
    (folder / "reference.html").write_text(reference.to_html(), encoding="utf-8")
    (folder / "corpus.html").write_text(corpus.to_html(), encoding="utf-8")
    return folder


@pytest.mark.browser
class TestInChromium:
    def test_the_page_sorts_filters_and_expands(self, pages, reference, chromium):
        page, console = open_page(chromium, (pages / "reference.html").as_uri())
        page.screenshot(path=pages / "reference.png", full_page=True)
        assert console.problems() == []
        first = _rows(page, "cases")
        assert first[0] == "wrong-throughout"

        # Sorting: by score ascending, then descending, then back to worst first.
        header = page.locator("#cases th[data-key='score'] button")
        header.click()
        assert page.locator("#cases th[data-key='score']").get_attribute("aria-sort") == "ascending"
        header.click()
        descending = _rows(page, "cases")
        assert descending[-1] == "wrong-throughout" and descending != first
        header.click()
        assert _rows(page, "cases") == first

        # Filtering: the text box, and the kind drop-down of the non-matches.
        page.fill("#cases input.ss-filter", "missed")
        assert _rows(page, "cases") == ["missed-field"]
        assert page.locator("#cases .ss-count").inner_text() == "Showing 1 of 1 case matching (6 in all)"
        page.fill("#cases input.ss-filter", "")
        page.select_option("#non-matches select[data-column='kind']", "wrong")
        kinds = page.locator("#non-matches tbody tr.ss-row .ss-badge").all_inner_texts()
        wrong = int((reference.non_matches_frame()["kind"] == "wrong").sum())
        assert kinds == ["wrong"] * wrong

        # A field's link filters the non-matches to that field.
        page.select_option("#non-matches select[data-column='kind']", "")
        page.locator("#fields a[data-ss-filter]").first.click()
        paths = page.locator("#non-matches tbody tr.ss-row td:nth-child(2)").all_inner_texts()
        assert paths == ["invoice_date", "invoice_date"]

        # Expanding a case shows its truth beside its prediction, the failing path highlighted.
        row = page.locator("#cases tr.ss-row", has_text="number-off")
        row.locator("button.ss-expand").click()
        detail = page.locator("#cases tr.ss-detail")
        assert detail.count() == 1
        panes = detail.locator(".ss-pane")
        assert panes.locator("h4").all_inner_texts() == ["truth (expected)", "prediction (actual)"]
        truth_mark = panes.nth(0).locator(".m-wrong")
        prediction_mark = panes.nth(1).locator(".m-wrong")
        assert truth_mark.get_attribute("data-path") == "total_amount" and "1500" in truth_mark.inner_text()
        assert "1505" in prediction_mark.inner_text()
        assert detail.locator("table").first.locator("tbody tr").count() == 1
        page.screenshot(path=pages / "reference-expanded.png", full_page=True)
        row.locator("button.ss-expand").click()
        assert page.locator("#cases tr.ss-detail").count() == 0
        assert console.problems() == []

    def test_a_large_page_shows_one_page_of_rows_at_a_time(self, pages, corpus, chromium):
        page, console = open_page(chromium, (pages / "corpus.html").as_uri())
        assert page.locator("#cases tbody tr.ss-row").count() == 25
        assert page.locator("#cases .ss-count").inner_text() == "Showing 25 of 120 cases"
        page.locator("#cases button.ss-more").click()
        assert page.locator("#cases tbody tr.ss-row").count() == 50
        page.locator("#cases button.ss-all").click()
        assert page.locator("#cases tbody tr.ss-row").count() == 120
        assert page.locator("#cases button.ss-more").is_hidden()
        page.select_option("#cases select[data-column='test_pass']", "fail")
        failed = int((~corpus.cases_frame()["test_pass"].astype(bool)).sum())
        assert page.locator("#cases tbody tr.ss-row").count() == failed
        page.screenshot(path=pages / "corpus.png")
        assert console.problems() == []

    def test_the_script_draws_documents_as_json_html_does(self, pages, chromium):
        """page.js renderJson and page.json_html are twins: the same lines, paths and marks."""
        from structsim_nb.display import page as blocks

        value = {"a": 1, "b": [{"c": None}, {"c": "x"}], "d": {}, "e": 't"q', "f": [1500.0, 0.1, -2.5, True]}
        marks = {"b[1]": "invented", "a": "wrong", "b[0].c": "missed"}
        page, console = open_page(chromium, (pages / "reference.html").as_uri())
        script = (
            "([v, m, py]) => { const a = document.createElement('div'); a.innerHTML = window.ssRenderJson(v, m);"
            " const b = document.createElement('div'); b.innerHTML = py;"
            " const read = (el) => [...el.querySelectorAll('[data-path]')].map(n => [n.dataset.path, n.className,"
            " n.textContent]); return [read(a), read(b)]; }"
        )
        ours, python = page.evaluate(script, [value, marks, blocks.json_html(value, marks)])
        assert ours == python
        assert console.problems() == []


@pytest.mark.browser
@pytest.mark.parametrize("width", [1280, 900])
def test_the_notebook_display_reads_in_nbconvert_html(long_ids, two_evaluators, chromium, tmp_path, width):
    """Nothing spills out of its cell (a long case id under the pass badge) or hides behind a sideways scroll,
    and each reason spans its table (a reason column beside the counts read a few characters a line)."""
    path = notebook_html(tmp_path, {"long_ids": long_ids, "two_evaluators": two_evaluators})
    page, console = open_page(chromium, path.as_uri(), width=width)
    page.screenshot(path=tmp_path / f"displays-{width}.png", full_page=True)
    assert page.evaluate(LAYOUT_PROBLEMS) == [{"spilled": [], "hidden": []}] * 2
    spans = page.evaluate(
        "() => [...document.querySelectorAll('tr.ss-note td')].map(td =>"
        " td.getBoundingClientRect().width / td.closest('table').getBoundingClientRect().width)"
    )
    assert len(spans) == 10 and min(spans) > 0.97
    badge = page.locator(".jp-OutputArea-output .ss-badge.fail").first.bounding_box()
    case = page.locator(".jp-OutputArea-output tr.ss-has-note td.nowrap").first
    assert case.evaluate("td => td.scrollWidth <= td.clientWidth")
    assert badge["x"] >= case.bounding_box()["x"] + case.bounding_box()["width"]  # the badge is right of the id
    assert console.problems(ignore=("requestfailed: http", "Failed to load resource", "require", "MathJax")) == []


@pytest.mark.browser
@pytest.mark.notebook
def test_charts_render_in_nbconvert_html_without_a_kernel(tmp_path, reference, chromium):
    """A notebook's chart outputs are images, so its nbconvert HTML shows them with no kernel and no network."""
    from nbclient import NotebookClient
    from nbconvert import HTMLExporter

    reference.to_file(tmp_path / "report.json")
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(
            "from structsim_nb import StructuredOutputReport\nreport = StructuredOutputReport.from_file('report.json')"
        ),
        nbformat.v4.new_code_cell("report.plot.fields()"),
        nbformat.v4.new_code_cell("report"),
    ]
    NotebookClient(
        notebook, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    [chart] = notebook.cells[1].outputs
    assert "image/png" in chart["data"]
    assert "text/html" in notebook.cells[2].outputs[0]["data"]
    # The text/plain a notebook saves beside the HTML is the report's one-line repr, not a dump of its rows.
    assert notebook.cells[2].outputs[0]["data"]["text/plain"] == repr(reference)
    body, _ = HTMLExporter().from_notebook_node(notebook)
    path = tmp_path / "notebook.html"
    path.write_text(body, encoding="utf-8")
    page, console = open_page(chromium, path.as_uri())
    page.wait_for_load_state("load")
    images = page.locator("img")
    assert images.count() == 2  # the chart's PNG and the report's chart in its display
    widths = page.evaluate("() => [...document.images].map(i => i.complete && i.naturalWidth)")
    assert all(width and width > 100 for width in widths)
    page.screenshot(path=tmp_path / "notebook.png", full_page=True)
    # nbconvert's template asks a CDN for require.js and MathJax: refused here, and not ours.
    assert console.problems(ignore=("requestfailed: http", "Failed to load resource", "require", "MathJax")) == []


@pytest.mark.jupyterlab
@pytest.mark.browser
def test_an_untrusted_notebook_in_jupyterlab_shows_the_displays_styled(long_ids, two_evaluators, chromium, tmp_path):
    """JupyterLab drops `<style>` from an untrusted notebook's outputs but keeps the inline styles it allows, so
    the displays carry theirs inline: tiles in a row, coloured badges, tables that fit. An explorer saved without
    its kernel shows its text/plain, which says what it is."""
    from structsim_nb import compare

    comparison = compare(long_ids, long_ids)
    explorer = long_ids.explore()
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for count, shown in enumerate((long_ids, two_evaluators, comparison), start=1):
        data = {"text/html": shown._repr_html_(), "text/plain": repr(shown)}
        output = nbformat.v4.new_output("execute_result", data=data, execution_count=count)
        notebook.cells.append(nbformat.v4.new_code_cell("shown", outputs=[output], execution_count=count))
    output = nbformat.v4.new_output("execute_result", data=explorer._repr_mimebundle_(), execution_count=4)
    notebook.cells.append(nbformat.v4.new_code_cell("report.explore()", outputs=[output], execution_count=4))
    nbformat.write(notebook, tmp_path / "untrusted.ipynb")  # not signed: JupyterLab opens it untrusted
    with jupyterlab(tmp_path) as url:
        page, console = open_page(chromium, url.format(name="untrusted.ipynb"), height=8000)
        page.set_default_timeout(90_000)
        page.locator(".jp-OutputArea-output", has_text="needs a running kernel").wait_for()
        outputs = page.locator(".jp-Cell .jp-OutputArea-output")
        assert outputs.count() == 4
        page.screenshot(path=tmp_path / "jupyterlab-untrusted.png", full_page=True)
        assert page.locator(".jp-OutputArea-output style").count() == 0  # what the sanitizer does
        first, second = (outputs.first.locator(".ss-tile").nth(i).bounding_box() for i in (0, 1))
        assert first["y"] == second["y"] and second["x"] > first["x"] + first["width"]  # a row, not stacked lines
        fail = outputs.first.locator(".ss-badge.fail").first
        assert fail.evaluate("badge => getComputedStyle(badge).backgroundColor") == "rgb(255, 235, 233)"
        problems = page.evaluate(LAYOUT_PROBLEMS)
        assert [problem["spilled"] for problem in problems[:3]] == [[], [], []]
        assert outputs.nth(3).inner_text().startswith("structsim-nb report explorer (12 rows")
        assert console.problems(ignore=JUPYTERLAB_CHATTER) == []
