"""The offline agent walkthrough: every figure its prose states is the figure the notebook computes.

The notebook is executed once in a fresh kernel with its probe (`probes/02_offline_agent_walkthrough.py`), which
reads the figures off the notebook's variables and scores the changes its "Try it yourself" predicts. Each test
checks a figure against what the lesson is about (the planted errors, the tool spec, the score) and that the
markdown states it as computed, so neither can drift from the other.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from notebooks.conftest import markdown, outputs_text

NOTEBOOK = "02_offline_agent_walkthrough.ipynb"

pytestmark = pytest.mark.notebook


@pytest.fixture(scope="module")
def executed(run_notebook) -> tuple[Any, dict[str, Any]]:
    return run_notebook(NOTEBOOK)


@pytest.fixture(scope="module")
def figures(executed) -> dict[str, Any]:
    _, figures = executed
    assert figures, "the probe set no FIGURES; did the notebook's last cells run?"
    return figures


@pytest.fixture(scope="module")
def text(executed) -> str:
    """The markdown, with line breaks inside paragraphs joined, so a figure may sit across a wrapped line."""
    return re.sub(r"\s+", " ", markdown(executed[0]))


def adjacent_swaps(printed: str, written: str) -> list[int]:
    """The positions i where swapping printed[i] and printed[i + 1] gives `written` (two different digits)."""
    return [
        i
        for i in range(len(printed) - 1)
        if printed[i] != printed[i + 1] and printed[:i] + printed[i + 1] + printed[i] + printed[i + 2 :] == written
    ]


def money(value: float) -> str:
    return f"{value:,.2f}"


class TestPlantedErrors:
    def test_the_total_is_a_real_transposition_of_two_adjacent_digits(self, figures) -> None:
        printed, written = f"{figures['true_total']:.2f}", f"{figures['planted_total']:.2f}"
        assert adjacent_swaps(printed, written) == [1], (printed, written)
        assert sum(a != b for a, b in zip(printed, written, strict=True)) == 2
        assert figures["true_total"] == 1898.16 and f"GBP {money(figures['true_total'])}" in figures["document"]

    def test_the_date_has_day_and_month_swapped(self, figures) -> None:
        year, month, day = figures["true_date"].split("-")
        assert figures["planted_date"] == f"{year}-{day}-{month}" != figures["true_date"]
        assert f"{day}/{month}/{year} (DD/MM/YYYY)" in figures["document"]

    def test_the_third_line_item_is_dropped(self, figures) -> None:
        assert (figures["true_items"], figures["predicted_items"]) == (3, 2)
        dropped = figures["dropped_item"]
        assert dropped["description"] in figures["document"]
        assert ["line_items[2]", "missed"] in figures["non_matches"]

    def test_the_intro_describes_each_planted_error_as_it_is(self, figures, text) -> None:
        dropped = figures["dropped_item"]
        assert f"{figures['planted_date']}, where the document prints 04/03/2024 as DD/MM/YYYY" in text
        transposition = f"{money(figures['planted_total'])} for {money(figures['true_total'])}"
        assert f"two adjacent digits transposed: {transposition} (the 8 and the 9 after the 1 swapped)" in text
        assert f"({dropped['quantity']} × {dropped['description']}, at {dropped['unit_price']:.2f}) left out" in text
        assert "1,989.16" not in text and "1989.16" not in text

    def test_the_recording_says_it_was_written_by_hand_and_what_is_planted(self, figures, text) -> None:
        note = figures["provenance_note"]
        assert figures["provenance_source"] == "hand_authored" and note.startswith("NOT a recording of any model")
        assert f"invoice_date {figures['planted_date']}" in note
        assert f"total_amount {figures['planted_total']} (two adjacent digits transposed" in note
        assert "left out" in note and "measure no model" in note
        assert "The answer was written by hand, not by a model." in text

    def test_each_planted_error_costs_points_and_nothing_else_does(self, figures) -> None:
        assert figures["non_matches"] == [
            ["invoice_date", "wrong"],
            ["line_items[2]", "missed"],
            ["total_amount", "wrong"],
        ]
        scores = figures["field_scores"]
        assert scores["invoice_date"] == scores["total_amount"] == 0.0
        assert scores["invoice_id"] == scores["vendor_name"] == 1.0


class TestToolSpec:
    def test_required_lists_the_fields_without_a_default(self, figures, text) -> None:
        assert figures["required"] == figures["pydantic_required"] == ["invoice_id", "vendor_name"]
        assert figures["line_item_required"] == ["description", "quantity", "unit_price"]
        assert "Two fields have no default, `invoice_id` and `vendor_name`" in text
        assert "**`required` lists exactly the fields without a default** (`invoice_id`, `vendor_name`;" in text
        assert "and all three fields of each line item" in text

    def test_optional_fields_admit_null_in_the_spec(self, figures, text) -> None:
        types = figures["property_types"]
        optional = [name for name in types if name not in figures["required"]]
        assert optional and all("null" in types[name] for name in optional)
        assert all(types[name] == "string" for name in figures["required"])
        assert "The optional fields' type also admits `null`." in text

    def test_strands_adds_descriptions_the_schema_does_not_have(self, figures, text) -> None:
        descriptions = figures["property_descriptions"]
        assert descriptions["invoice_date"] == "Property invoice_date" and figures["date_format"] == "date"
        assert descriptions["invoice_id"] == "The invoice number exactly as printed"
        prefix = "IMPORTANT: This StructuredOutputTool should only be invoked as the last and final tool"
        assert figures["tool_description"].startswith(prefix)
        assert f"`{prefix}...`" in text
        assert '`"Property <name>"`' in text and '`"format": "date"`' in text

    def test_a_missing_required_field_is_sent_back_and_the_model_asked_again(self, figures, text) -> None:
        assert figures["retry_calls"] == 2 and figures["retry_status"] == "error"
        assert "Field 'vendor_name': Field required" in figures["retry_text"]
        assert "found the required `vendor_name` missing" in text and "the model got a second call" in text


class TestProviders:
    def test_the_inline_model_and_replay_model_give_the_same_answer(self, figures, text) -> None:
        assert figures["scripted_calls"] == 1 and figures["replay_played"] == 1
        assert figures["scripted_same_as_replay"] is True
        assert "A replay model in a few lines" in text


class TestScore:
    def test_the_score_is_the_weighted_mean_of_the_field_scores(self, figures, text) -> None:
        scores, weights = figures["field_scores"], figures["weights"]
        assert set(weights.values()) == {1.0}
        assert figures["weighted_sum"] == pytest.approx(sum(scores[name] * weights[name] for name in scores))
        assert figures["weighted_sum"] / figures["weight_sum"] == pytest.approx(figures["score"])
        terms = " + ".join(f"{scores[name]:.3f}".rstrip("0").rstrip(".") for name in figures["field_order"])
        worked = f"({terms}) / {len(scores)} = {figures['weighted_sum']:.3f} / {figures['weight_sum']:.0f} = "
        assert f"{worked}**{figures['score']:.3f}**" in text, worked

    def test_the_list_score_is_the_share_of_items_matched(self, figures, text) -> None:
        counts = figures["line_items_counts"]
        matched, longest = counts["tp"], max(figures["true_items"], figures["predicted_items"])
        assert (matched, counts["fn"]) == (2, 1)
        assert figures["field_scores"]["line_items"] == pytest.approx(matched / longest)
        assert f"1.0 × {matched}/{longest} = **{matched / longest:.3f}**" in text

    def test_the_case_fails_because_the_score_is_below_the_bar(self, figures, text) -> None:
        assert figures["test_pass"] is False and figures["score"] < figures["match_threshold"] == 0.7
        assert f"{figures['score']:.3f} is below {figures['match_threshold']}, so the case fails" in text

    def test_precision_and_recall_are_worked_from_the_counts(self, figures, text) -> None:
        tp, fn, fa, fd = (figures["counts"][kind] for kind in ("tp", "fn", "fa", "fd"))
        assert (tp, fn, fa, fd) == (4, 1, 0, 2)
        assert figures["precision"] == pytest.approx(tp / (tp + fa + fd))
        assert figures["recall"] == pytest.approx(tp / (tp + fn))
        assert f"tp / (tp + fa + fd) = {tp} / {tp + fa + fd} = {figures['precision']:.3f}" in text
        assert f"tp / (tp + fn) = {tp} / {tp + fn} = {figures['recall']:.1f}" in text

    def test_the_recall_nan_is_explained(self, executed, figures, text) -> None:
        for path in ("invoice_date", "total_amount"):
            assert figures["field_recall"][path] is None and figures["field_precision"][path] == 0.0
        assert "NaN" in outputs_text(executed[0])
        assert "**Why is recall `NaN` for `invoice_date` and `total_amount`?**" in text
        assert "So recall is 0 / 0, undefined" in text

    def test_the_line_items_children_count_only_matched_items(self, figures, text) -> None:
        assert figures["children_errors"] == 0
        assert "they count only the two items that matched, and all of those were right" in text


class TestFixes:
    def test_the_date_fix_is_worth_what_the_table_says(self, figures, text) -> None:
        assert figures["date_fixed_score"] == pytest.approx(0.7333, abs=5e-4)
        assert f"the case **{figures['date_fixed_score']:.3f}**" in text
        assert f"{figures['date_fixed_score']:.3f} reaches 0.7, and so does recall" in text
        assert f"(now 5 of 6 values found, {figures['date_fixed_recall']:.3f})" in text

    def test_the_default_tolerance_forgives_only_the_last_digit_swap(self, figures, text) -> None:
        assert "NumericComparator(rel_tol=0.001)" in figures["total_why"] and "`rel_tol=0.001`" in text
        assert figures["total_scores"] == {"printed": 1.0, "planted": 0.0, "variant": 1.0}
        true, planted, variant = figures["true_total"], figures["planted_total"], figures["variant_total"]
        assert adjacent_swaps(f"{true:.2f}", f"{variant:.2f}") == [5]
        assert abs(planted - true) / true > 0.001 > abs(variant - true) / true
        assert f"is {abs(planted - true):.2f} off, a relative difference of {abs(planted - true) / true:.3f}" in text
        assert f"is {abs(variant - true):.2f} off, a relative difference of {abs(variant - true) / true:.5f}" in text
        assert f"swaps the *last* two digits ({money(variant)}, not in the recording)" in text

    def test_the_exact_comparator_costs_the_variant_its_point(self, figures, text) -> None:
        default, exact = figures["variant_default"], figures["variant_exact"]
        assert (default["total_amount"], default["test_pass"]) == (1.0, True)
        assert (exact["total_amount"], exact["test_pass"]) == (0.0, False)
        assert f"scores {default['score']:.3f} and **passes**" in text
        assert f"loses the point: {exact['score']:.3f}, failed" in text
        assert figures["recorded_exact_score"] == pytest.approx(figures["score"])
        assert "It changes nothing for the recorded answer" in text

    def test_each_error_is_mapped_to_a_kind_of_fix(self, text) -> None:
        for kind in ("**reading error**", "**prompt problem**", "**comparator or threshold choice**"):
            assert kind in text
        assert "| `invoice_date` 2024-04-03 for 2024-03-04 | prompt problem:" in text
        assert "| `total_amount` 1,988.16 for 1,898.16 | reading error:" in text
        assert "| `line_items[2]` (Cable tray) missed | reading error:" in text
        assert "| not planted: 1,898.61 for 1,898.16 | comparator choice:" in text


class TestTryItYourself:
    def test_it_ends_the_lesson(self, executed) -> None:
        last = [cell for cell in executed[0].cells if cell.cell_type == "markdown"][-1]
        assert "## Try it yourself" in last.source

    def test_a_lower_bar_passes_the_same_score(self, figures, text) -> None:
        assert figures["bar_score"] == pytest.approx(figures["score"]) and figures["bar_pass"] is True
        assert f"The score stays {figures['score']:.3f}, but the case now passes" in text

    def test_name_weights_give_the_stated_score(self, figures, text) -> None:
        weights, scores = figures["hinted_weights"], figures["field_scores"]
        assert weights == {
            "invoice_id": 3.0,
            "vendor_name": 1.5,
            "invoice_date": 1.5,
            "total_amount": 2.5,
            "line_items": 1.0,
        }
        assert figures["hinted_score"] == pytest.approx(
            sum(weights[n] * scores[n] for n in scores) / sum(weights.values())
        )
        assert f"/ {sum(weights.values())} = {figures['hinted_score']:.3f}" in text
        assert "`invoice_id` 3.0, `total_amount` 2.5, `invoice_date` and `vendor_name` 1.5, `line_items` 1.0" in text

    def test_a_text_date_earns_the_stated_partial_credit(self, figures, text) -> None:
        assert figures["text_date_score"] == pytest.approx(0.8)
        assert (
            f"it earns {figures['text_date_score']:.1f} of a point and the case {figures['text_date_case']:.3f}" in text
        )


class TestReadability:
    def test_no_assertion_machinery_or_assembled_prose_in_the_lesson(self, executed) -> None:
        code = "\n".join(cell.source for cell in executed[0].cells if cell.cell_type == "code")
        assert "Markdown(" not in code and "assert " not in code

    def test_no_warnings_errors_or_long_decimals_in_what_the_reader_sees(self, executed) -> None:
        for cell in executed[0].cells:
            for output in cell.get("outputs", []):
                assert output.get("name") != "stderr", output.get("text")
                shown = output.get("text", "") + str(output.get("data", {}).get("text/html", ""))
                assert "Warning" not in shown
                assert not re.search(r"\b\d\.\d{6,}\b", shown), shown[:300]

    def test_the_charts_are_pictures(self, executed) -> None:
        pictures = [
            output
            for cell in executed[0].cells
            for output in cell.get("outputs", [])
            if "image/png" in output.get("data", {}) or "data:image/png" in str(output.get("data", {}).get("text/html"))
        ]
        assert len(pictures) >= 2  # the compact report's chart and report.plot.fields(normalize=False)
