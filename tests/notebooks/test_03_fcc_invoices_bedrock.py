"""03_fcc_invoices_bedrock.ipynb as a lesson: what it shows, how its outputs read, and every figure its prose states.

The notebook is executed once in a fresh kernel (replay mode, no credentials); its probe
(`probes/03_fcc_invoices_bedrock.py`) reads the figures off the notebook's variables and rescores the variants the
"Try it yourself" section predicts. Each test checks a figure against the run *and* that the prose states it, so a
changed recording, sample or evaluator fails here instead of leaving the prose wrong.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
from typing import Any

import pytest
from notebooks.conftest import markdown, outputs_text, require_same_rendering

from structsim_nb._notebooks import NOTEBOOK_DIR, stabilise
from structsim_nb.fcc import models, prompts

nbformat = pytest.importorskip("nbformat", reason='needs the notebooks extra: pip install "structsim-nb[notebooks]"')

pytestmark = pytest.mark.notebook

NAME = "03_fcc_invoices_bedrock.ipynb"


@pytest.fixture(scope="module")
def lesson(run_notebook) -> tuple[Any, dict[str, Any], str]:
    """(the executed notebook, FIGURES, its markdown)."""
    notebook, figures = run_notebook(NAME)
    assert figures, "the probe set no FIGURES; see tests/notebooks/probes/03_fcc_invoices_bedrock.py"
    return notebook, figures, markdown(notebook)


def says(text: str, *phrases: str) -> None:
    """Every phrase appears in the prose, whitespace (line breaks) normalised."""
    flat = " ".join(text.split())
    missing = [phrase for phrase in phrases if " ".join(phrase.split()) not in flat]
    assert not missing, f"the notebook's prose must state {missing}"


def code_cells(notebook: Any) -> list[Any]:
    return [cell for cell in notebook.cells if cell.cell_type == "code"]


def outputs_of(notebook: Any, source: str) -> list[Any]:
    """The outputs of the code cell whose source is `source` (stripped), which must exist once."""
    cells = [cell for cell in code_cells(notebook) if cell.source.strip() == source]
    assert len(cells) == 1, f"the notebook must have one code cell `{source}`; found {len(cells)}"
    return cells[0].outputs


def f3(value: float) -> str:
    return f"{value:.3f}"


# -- what it teaches, and how honestly ---------------------------------------------------------


class TestWhatItShows:
    def test_the_schemas_are_shown_from_the_package_not_copied(self, lesson) -> None:
        notebook, _, _ = lesson
        shown = outputs_text(notebook)
        for model in (models.FCCLineItem, models.FCCInvoice, models.FCCLineItemTuned, models.FCCInvoiceTuned):
            assert inspect.getsource(model) in shown, f"the notebook must show the source of {model.__name__}"
        sources = "\n".join(cell.source for cell in code_cells(notebook))
        assert "inspect.getsource(models.FCCInvoice)" in sources
        assert "class FCCInvoice(" not in sources, "the schema must be displayed from the package, not copied"

    def test_the_prompts_are_shown_from_the_package(self, lesson) -> None:
        notebook, _, _ = lesson
        shown = outputs_text(notebook)
        assert inspect.getsource(prompts) in shown
        opening = prompts.user_prompt("").split("\n")[0]
        assert f"{opening}\n\n<ocr>\nKXNB-TV" in shown, "the notebook must show the user turn of a document, as sent"

    def test_it_says_the_documents_are_invented_and_the_answers_hand_written(self, lesson) -> None:
        notebook, figures, text = lesson
        assert figures["mode"] == "replay"
        says(
            text,
            "The eight documents are **invented** invoices",
            "The answers are **not from a model**",
            "written by hand",
            "deliberate errors planted in it (`recordings/fcc_hand_authored.py` lists them)",
            "None of them measures a model.",
        )
        assert "source=hand_authored" in outputs_text(notebook)
        assert "NOT a recording of any model" in outputs_text(notebook)

    def test_it_says_how_to_run_it_live_and_re_record(self, lesson) -> None:
        _, _, text = lesson
        says(
            text,
            "AWS credentials that boto3 resolves",
            "AWS_BEARER_TOKEN_BEDROCK",
            "`STRUCTSIM_NB_FCC_SOURCE=hub` loads the real dataset",
            "structsim-nb record-fcc --model-id",
        )

    def test_it_ends_with_try_it_yourself(self, lesson) -> None:
        notebook, _, _ = lesson
        lines = [line for cell in notebook.cells if cell.cell_type == "markdown" for line in cell.source.splitlines()]
        headings = [line for line in lines if line.startswith("## ")]
        assert headings[-1] == "## Try it yourself", f"the last section must be 'Try it yourself'; got {headings[-1]!r}"

    def test_prose_lives_in_markdown_cells(self, lesson) -> None:
        notebook, _, _ = lesson
        for cell in code_cells(notebook):
            assert "Markdown(" not in cell.source, f"a lesson builds no prose in code:\n{cell.source}"

    def test_compare_is_used_with_its_display_regressions_and_forest_plot(self, lesson) -> None:
        notebook, _, _ = lesson
        sources = [cell.source.strip() for cell in code_cells(notebook)]
        assert any("structsim_nb.compare(report, tuned_report, allow_schema_change=True)" in s for s in sources)
        assert "comparison.regressions()" in sources
        display = outputs_of(
            notebook, "comparison = structsim_nb.compare(report, tuned_report, allow_schema_change=True)\ncomparison"
        )
        [html] = ["".join(output["data"]["text/html"]) for output in display if "text/html" in output.get("data", {})]
        # The forest plot the prose points at is the one inside the comparison's display, not drawn a second time.
        assert "<img" in html and "comparison.plot.fields()" in html
        assert not any("plot.forest(" in s for s in sources)


# -- outputs a reader can read -------------------------------------------------------------------


class TestOutputs:
    def test_progress_bars_show_their_final_state(self, lesson) -> None:
        notebook, figures, _ = lesson
        bars = [
            output["data"]
            for cell in code_cells(notebook)
            for output in cell.outputs
            if re.fullmatch(r"\[[= ]+\] \d+/\d+", str(output.get("data", {}).get("text/plain", "")))
        ]
        assert len(bars) == 2, "one progress bar per extraction run"
        total = figures["docs"]
        for bar in bars:
            assert bar["text/plain"] == f"[{'=' * 60}] {total}/{total}"
            assert f"max='{total}' value='{total}'" in bar["text/html"]

    def test_no_library_noise(self, lesson) -> None:
        notebook, _, _ = lesson
        for cell in code_cells(notebook):
            for output in cell.outputs:
                assert output.get("name") != "stderr", f"stderr in the outputs of:\n{cell.source}\n{output.get('text')}"
                data = output.get("data", {})
                assert "application/vnd.jupyter.widget-view+json" not in data, "a widget saves its first state"
        shown = outputs_text(notebook)
        for noise in ("Generating", "it/s", "Warning", "warn("):
            assert noise not in shown, f"library noise in the outputs: {noise!r}"

    def test_charts_are_pictures_that_render_without_a_kernel(self, lesson) -> None:
        notebook, _, _ = lesson
        for source in ("report.plot.scores()", "report.plot.threshold()", "report.plot.fields()"):
            assert any("image/png" in output.get("data", {}) for output in outputs_of(notebook, source)), source

    def test_tables_show_three_decimals_at_most(self, lesson) -> None:
        notebook, _, _ = lesson
        for cell in code_cells(notebook):
            for output in cell.outputs:
                html = output.get("data", {}).get("text/html", "")
                noisy = re.findall(r"(?<![\w.])\d+\.\d{4,}(?![\w.])", html)
                assert not noisy, f"numbers with more than 3 decimals {noisy[:3]} in the output of:\n{cell.source}"

    def test_the_committed_outputs_are_those_of_a_fresh_run(self, lesson) -> None:
        notebook, _, _ = lesson
        committed = nbformat.read(NOTEBOOK_DIR / NAME, as_version=4)
        require_same_rendering(committed)

        def texts(nb: Any) -> list[str]:
            return [
                json.dumps([(o.get("text"), o.get("data", {}).get("text/plain")) for o in cell.outputs], sort_keys=True)
                for cell in code_cells(nb)
            ]

        fresh = copy.deepcopy(notebook)
        stabilise(fresh)  # as a saved notebook is: a print the kernel sent in two pieces is one output
        assert texts(committed) == texts(fresh), (
            f"{NAME} is committed with outputs of another run; re-execute it: "
            f"python -m structsim_nb._notebooks examples/notebooks/{NAME}"
        )


# -- every figure the prose states -----------------------------------------------------------------


class TestTheDocuments:
    def test_eight_invented_invoices_two_odd_labels(self, lesson) -> None:
        _, figures, text = lesson
        assert figures["docs"] == 8 and figures["max_line_items"] == 7
        says(text, "Eight invented invoices with up to seven broadcast lines each.")
        problems = figures["problems"]
        assert sorted(problems) == ["216e6595", "f46f2d52"]
        assert problems["f46f2d52"].endswith("got '09/31/16'")
        assert problems["216e6595"].endswith("got '11/05/16 - 11/06/16'")
        says(text, "an end date that is no real day (`09/31/16`)", "the printed range (`11/05/16 - 11/06/16`)")


class TestTheScores:
    def test_pass_count_and_overall_score(self, lesson) -> None:
        _, figures, text = lesson
        assert (figures["passed"], figures["cases"], f3(figures["overall_score"])) == (6, 8, "0.840")
        says(text, "6 of the 8 documents pass, and the overall score (the mean of the document scores) is 0.840.")

    def test_the_planted_error_table_gives_each_documents_score(self, lesson) -> None:
        _, figures, text = lesson
        stated = dict(re.findall(r"^\| `([0-9a-f]{8})` \| .+ \| (\d\.\d{3}) \|$", text, flags=re.MULTILINE))
        assert stated == {doc: f3(score) for doc, score in figures["scores"].items()}

    def test_the_worked_example(self, lesson) -> None:
        _, figures, text = lesson
        assert figures["top_level_fields"] == 7 and figures["fa"]["c5e25c9c"] == 2
        assert f3(5 / 7) == f3(figures["scores"]["c5e25c9c"]) == "0.714"
        says(text, "`c5e25c9c` has 7 fields", "(`fa` = 2)", "5/7 = 0.714: it passes, just.")
        assert f3(figures["scores"]["216e6595"]) == "0.686" and figures["recall"]["216e6595"] == 1.0
        says(text, "`216e6595` fails at 0.686, under 0.7, although its recall is 1.000")
        assert all("read leniently" in figures["reason"][doc] for doc in ("f46f2d52", "216e6595"))
        says(text, "`f46f2d52` keeps 0.986.")
        assert f3(figures["scores"]["f46f2d52"]) == "0.986"

    def test_the_pass_bar_what_if(self, lesson) -> None:
        _, figures, text = lesson
        at = figures["pass_rate_at"]
        assert (at["0.680"], at["0.700"], at["0.714"], at["0.720"]) == (7, 6, 6, 5)
        says(
            text,
            "At 0.7, 6 of 8 pass",
            "lower it to 0.68 and `216e6595` (0.686) passes too; raise it past 0.714 and `c5e25c9c` fails.",
            "A document 0.014 under the bar",
        )
        assert f3(0.7 - figures["scores"]["216e6595"]) == "0.014"
        assert (figures["tp"]["254d58dc"], figures["fn"]["254d58dc"], f3(figures["recall"]["254d58dc"])) == (
            10,
            1,
            "0.909",
        )
        says(text, "`254d58dc` misses one value in 11 (recall 0.909)")


class TestTheFields:
    def test_the_worst_fields(self, lesson) -> None:
        _, figures, text = lesson
        assert figures["fields_worst_first"] == ["LineItems", "Agency", "AgencyCommission"]
        assert figures["field_errors"] == {"LineItems": [9, 26], "Agency": [2, 8], "AgencyCommission": [2, 8]}
        assert figures["worst_line_field"] == "LineItems.LineItemDays"
        says(
            text,
            "Of the top-level fields `LineItems` leads (9 of its 26 elements), then `Agency` and `AgencyCommission` "
            "(2 of 8 each); within the lines, `LineItemDays`",
        )

    def test_the_non_matches_described(self, lesson) -> None:
        _, figures, text = lesson
        misses = {(doc, path): (kind, similarity) for doc, path, kind, similarity in figures["misses"]}
        assert misses[("254d58dc", "LineItems[4]")][0] == "missed"
        assert misses[("c67893b4", "LineItems[0]")][0] == "invented"
        lines = [misses[("46ddc3fe", f"LineItems[{i}]")] for i in range(7)]
        assert lines == [("wrong", 0.6)] * 6 + [("wrong", 0.4)]
        assert {misses[("216e6595", f"LineItems[{i}].LineItemDays")] for i in range(3)} == {("wrong", 0.429)}
        assert misses[("216e6595", "LineItems[3].LineItemStartDate")] == ("wrong", 0.5)
        says(
            text,
            "`LineItems[4]` of `254d58dc` is **missed**",
            "`LineItems[0]` of `c67893b4` is **invented**",
            "the seven lines of `46ddc3fe` are **wrong** as whole elements, six at 0.6 similarity",
            "the last at 0.4",
            "`Mon-Fri` against `M-F` (0.429 by edit distance, under 0.7)",
            "the printed range against its first day (0.5 from the date comparator)",
        )


class TestTheComparators:
    def test_the_inferred_comparators(self, lesson) -> None:
        _, figures, text = lesson
        explain = figures["explain"]
        for path in ("Agency", "Advertiser", "PaymentTerms", "LineItems.LineItemDays"):
            assert explain[path][:2] == ["LevenshteinComparator", 0.7]
        for path in ("GrossTotal", "AgencyCommission", "NetAmountDue", "LineItems.LineItemRate"):
            assert explain[path][:2] == ["NumericComparator", 0.95] and "rel_tol=0.001" in explain[path][3]
        for path in ("LineItems.LineItemStartDate", "LineItems.LineItemEndDate"):
            assert explain[path][:2] == ["DateComparator", 0.95]
        assert explain["LineItems.LineItemDescription"][:2] == ["FuzzyComparator", 0.6]
        assert {row[2] for row in explain.values()} == {1.0}
        says(
            text,
            "Amounts get a numeric comparator (equal within 0.1%, relative) at 0.95, dates `DateComparator` at 0.95, "
            "text edit distance at 0.7, and the line description, by its name, rapidfuzz's fuzzy match at 0.6. "
            "Every field weighs 1.",
        )

    def test_the_date_table(self, lesson) -> None:
        _, figures, text = lesson
        rows = figures["dates"]
        same = [row[1] == "same day" for row in rows]
        assert sum(match != truth for match, truth in zip([row[3] for row in rows], same, strict=True)) == 5
        assert sum(match != truth for match, truth in zip([row[5] for row in rows], same, strict=True)) == 0
        by_answer = {row[0]: row for row in rows}
        assert by_answer["2016-10-03"][2] == 0.1 and by_answer["10/08/16"][2] == 0.875
        assert all(row[3] for row in rows if row[1] == "another day") and len(rows) == 6
        assert [row[0] for row in rows if row[1] == "same day" and row[3]] == ["10/03/2016"]
        says(
            text,
            "Edit distance gets 5 of the 6 pairs wrong",
            "the same day written `2016-10-03` (0.100)",
            "it accepts all three other days",
            "Only `10/03/2016`, the label's own layout with the year in full, is judged right.",
            "(`10/08/16` scores 0.875)",
            "`DateComparator` gets all 6 right.",
        )


class TestTheTunedSchema:
    def test_what_the_tuned_schema_changes(self, lesson) -> None:
        _, figures, text = lesson
        tuned, plain = figures["tuned_explain"], figures["explain"]
        top = [path for path in tuned if "." not in path]
        assert sum(tuned[path][2] for path in top) == 11 and sum(plain[path][2] for path in top) == 7
        doubled = sorted(path for path in top if tuned[path][2] == 2.0)
        assert doubled == ["Advertiser", "GrossTotal", "LineItems", "NetAmountDue"]
        assert tuned["LineItems.LineItemDays"][:2] == ["ExactComparator", 1.0]
        assert all(tuned[p][1] == 0.99 for p in ("GrossTotal", "AgencyCommission", "NetAmountDue"))
        # explain() says what stickler applies to a list of models: Hungarian matching at the element's threshold.
        assert tuned["LineItems"] == ["Hungarian (per-element StructuredModel)", 0.7, 2.0]
        assert models.FCCLineItemTuned.match_threshold == 0.7
        says(
            text,
            "matches day patterns exactly, tightens the numeric tolerance, and doubles the weight of the advertiser, "
            "the two totals and the line items",
            "it pairs the elements one to one (Hungarian), each pair judged at the element class's `match_threshold` "
            "(0.7 in both schemas), so for `LineItems` the tuned schema changes only the weight, to 2.0.",
            "the weights of the top-level fields now sum to 11 instead of 7.",
        )

    def test_the_headline_of_the_comparison(self, lesson) -> None:
        _, figures, text = lesson
        c = figures["comparison"]
        assert (f3(c["score_baseline"]), f3(c["score_candidate"]), f"{c['delta']:+.3f}") == ("0.840", "0.853", "+0.013")
        assert (f"{c['ci_low']:+.3f}", f"{c['ci_high']:+.3f}", c["verdict"]) == ("-0.016", "+0.052", "no evidence")
        score = figures["overall_frame"]["score"]
        assert (score["improved"], score["worsened"], figures["unchanged_cases"]) == (3, 3, 2)
        assert (c["fixed"], c["broken"], c["pass_rate_baseline"], c["pass_rate_candidate"]) == (0, 0, 0.75, 0.75)
        assert c["min_changes"] == 6 and score["n_changed"] == 6
        assert any("the schema changed" in note for note in figures["tuned_notes"])
        says(
            text,
            "the mean score rises from 0.840 to 0.853 (+0.013), but the 95% interval runs from -0.016 to +0.052",
            "so the verdict is `no evidence`. Three documents rose, three fell, two did not move, and none flipped "
            "between pass and fail (6 of 8 pass in both runs)",
            "at least 6 documents changed",
            "the schema changed, so the difference includes the change of comparators",
        )

    def test_the_regressions_and_the_forest_plot(self, lesson) -> None:
        _, figures, text = lesson
        regressions = figures["regressions"]
        assert len(regressions) == 3 and all(kind == "case" for kind, *_ in regressions)
        assert all("no field became wrong" in detail for *_, detail in regressions)
        assert set(figures["field_deltas"].values()) == {0.0}
        says(
            text,
            "Three documents fell, and each row says why: no field became wrong.",
            "Every field sits on zero",
        )

    def test_the_biggest_movers(self, lesson) -> None:
        _, figures, text = lesson
        movers = figures["movers"]
        assert max(movers, key=lambda doc: abs(movers[doc][2])) == "c5e25c9c"
        assert movers["c5e25c9c"] == [0.714, 0.818, 0.104] and f3(9 / 11) == "0.818"
        assert movers["46ddc3fe"] == [0.51, 0.558, 0.048]
        assert movers["c67893b4"] == [0.857, 0.818, -0.039] and f3(6 / 7) == "0.857"
        tuned = figures["tuned_explain"]
        assert tuned["Agency"][2] + tuned["Advertiser"][2] + tuned["GrossTotal"][2] == 5
        says(
            text,
            "**`c5e25c9c` rises most (+0.104, 0.714 to 0.818).**",
            "they cost 2/7 of the score before and 2/11 after",
            "**`46ddc3fe` rises (+0.048, 0.510 to 0.558).**",
            "now carry 5 of the 11 weight instead of 3 of 7",
            "**`c67893b4` falls (-0.039, 0.857 to 0.818).**",
            "`LineItems` now weighs 2 of 11 instead of 1 of 7",
        )

    def test_dates_as_text_and_the_odd_labels(self, lesson) -> None:
        _, figures, text = lesson
        assert figures["tuned_label_problems"] == [None] * figures["docs"]
        assert figures["tuned_printed_dates"] == ["13cb62b4", "254d58dc", "5dde9b03"]
        says(
            text,
            "In the tuned run three answers copy the dates as printed (`10/03/16`)",
            "under `FCCInvoiceTuned`, whose dates are text, they validate as they are",
        )


class TestTryItYourself:
    def test_the_lenient_days_cell(self, lesson) -> None:
        _, figures, text = lesson
        assert figures["try_moved"] == {"216e6595": [0.691, 0.703, False, True]}
        says(text, "Only `216e6595` moves", "the document rises from 0.691 to 0.703 and passes, by 0.003")
        from stickler.comparators import LevenshteinComparator

        assert [round(LevenshteinComparator().compare("M-F", days), 3) for days in ("M-Th", "M-Su")] == [0.5, 0.5]
        says(text, "also accepts `M-Th` and `M-Su` (0.5 each)")

    def test_what_each_suggested_change_does(self, lesson) -> None:
        _, figures, text = lesson
        assert all(before == after for before, after, _ in figures["try_threshold_05"].values())
        says(text, "`Mon-Fri` fails again and nothing moves (the table comes back empty)")

        dates = figures["try_dates_by_edit_distance"]
        fell = {doc: before - after for doc, (before, after, _) in dates.items() if after != before}
        assert sorted(fell) == ["216e6595", "c5e25c9c", "f46f2d52"]
        assert (f3(min(fell.values())), f3(max(fell.values()))) == ("0.052", "0.073")
        assert all(dates[doc][0] == dates[doc][1] for doc in [*figures["tuned_printed_dates"], "46ddc3fe"])
        says(text, "`f46f2d52`, `c5e25c9c` and `216e6595` fall by 0.052 to 0.073")

        weight = figures["try_line_items_weight_1"]
        assert (weight["c67893b4"][1], weight["c5e25c9c"][1]) == (0.9, 0.8)
        says(text, "rises to 0.900 and `c5e25c9c` (whose errors lie elsewhere) falls to 0.800")

        strict = figures["try_strict"]
        assert {doc for doc, (_, error) in strict.items() if error == "unreadable"} == {"f46f2d52", "216e6595"}
        assert strict["f46f2d52"][0] == strict["216e6595"][0] == 0.0
        says(text, "their documents score 0.0 as unreadable")
