"""Tests for `structsim_nb.cli._common`: terminal tables that fit, values that read, plurals, help formatting."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from structsim_nb.cli._common import fit_table, plural, terminal_width


def _frame() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "case": ["a", "b"],
            "path": ["invoice_date", "line_items[1]"],
            "expected": ["2024-03-15", {"sku": "DOCK-3", "description": "Docking station", "quantity": 2}],
            "predicted": [None, {"sku": "MON-27", "description": "Monitor", "quantity": 1}],
            "similarity": [math.nan, 0.0909],
            "passed": [True, False],
            "reason": ["unmatched ground truth", "below threshold (0.091 < 0.7)"],
        }
    )


class TestFitTable:
    @pytest.mark.parametrize("width", [40, 60, 80, 120])
    def test_no_line_is_wider_than_asked(self, width: int) -> None:
        text = fit_table(_frame(), width=width, drop=["reason"], shrink=["expected", "predicted"])
        assert max(map(len, text.splitlines())) <= width

    def test_wide_enough_shows_every_value_whole(self) -> None:
        text = fit_table(_frame(), width=400)
        assert '{"sku": "DOCK-3", "description": "Docking station", "quantity": 2}' in text
        assert "left out" not in text

    def test_nested_values_are_json_not_python_reprs(self) -> None:
        text = fit_table(_frame(), width=400)
        assert "{'sku'" not in text and "None" not in text and "nan" not in text.lower()

    def test_scores_get_three_decimals_and_booleans_read_as_words(self) -> None:
        text = fit_table(_frame(), width=400)
        assert "0.091" in text and "0.0909" not in text
        assert "yes" in text and "no" in text

    def test_raw_columns_keep_numbers_as_written(self) -> None:
        frame = pd.DataFrame({"expected": [1500.0, 2.25], "score": [1.0, 0.5]})
        lines = fit_table(frame, width=80, raw=["expected"]).splitlines()
        assert "1500.0" in lines[1] and "1.000" in lines[1] and "2.25" in lines[2]

    def test_drop_columns_go_first_and_are_named(self) -> None:
        text = fit_table(_frame(), width=80, drop=["reason", "similarity"], shrink=["expected", "predicted"])
        assert "reason" not in text.splitlines()[0]
        assert "left out to fit 80 characters: reason" in " ".join(text.splitlines())

    def test_short_values_stay_whole_while_long_ones_are_cut(self) -> None:
        # The date fits its share of the room; only the long JSON values are cut, with an ellipsis.
        text = fit_table(_frame(), width=80, drop=["reason"], shrink=["expected", "predicted"])
        assert "2024-03-15" in text
        assert "…" in text

    def test_numbers_align_right(self) -> None:
        lines = fit_table(pd.DataFrame({"name": ["x", "y"], "n": [5, 12]}), width=40).splitlines()
        assert lines[1].endswith(" 5") and lines[2].endswith("12")

    def test_an_empty_frame_says_none(self) -> None:
        assert fit_table(pd.DataFrame({"a": []}), width=80) == "(none)"


def test_terminal_width_follows_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "91")
    assert terminal_width() == 91
    monkeypatch.setenv("COLUMNS", "10")
    assert terminal_width() == 40  # never narrower than a readable minimum


@pytest.mark.parametrize(
    ("count", "word", "expected"),
    [(0, "run", "0 runs"), (1, "run", "1 run"), (2, "run", "2 runs"), (1, "match", "1 match")],
)
def test_plural(count: int, word: str, expected: str) -> None:
    assert plural(count, word, "matches" if word == "match" else None) == expected


def test_names_cut_in_the_middle_stay_apart() -> None:
    frame = pd.DataFrame(
        {"case": [f"synthetic-invoice-{index:04d}" for index in range(3)], "reason": ["a long reason " * 4] * 3}
    )
    text = fit_table(frame, width=40, shrink=["case", "reason"], middle=["case"])
    rows = text.splitlines()[1:]
    cases = [row.split("  ")[0] for row in rows]
    assert len(set(cases)) == 3, text  # cut at the end they would all read `synthetic-inv…`
    assert all(case.startswith("…") for case in cases)  # the start they share gives way first
    assert [case[-4:] for case in cases] == ["0000", "0001", "0002"]
    assert all(row.endswith("…") for row in rows)  # the reason, not in `middle`, keeps its start
    assert max(map(len, text.splitlines())) <= 40


@pytest.mark.parametrize(
    ("command", "whole"),
    [
        ("record", "recordings/invoice_walkthrough.json"),
        ("compare", "any-worse-field"),
        ("evaluate", "case-insensitively"),
    ],
)
def test_help_lines_break_between_words_only(command: str, whole: str, monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    """argparse split these across lines at 60 columns (`..._walkthrough.jso` / `n`, `any-` / `worse-field`)."""
    from structsim_nb.cli import build_parser

    monkeypatch.setenv("COLUMNS", "60")
    with pytest.raises(SystemExit):
        build_parser().parse_args([command, "--help"])
    out = capsys.readouterr().out
    assert any(whole in line for line in out.splitlines()), out


def test_a_cut_keeps_the_part_of_a_name_that_differs_wherever_it_is() -> None:
    from structsim_nb.cli._common import _cut, _shared_ends

    names = [f"very-long-scenario-identifier-for-invoice-{index}-abcdef.json" for index in (1, 2, 3)]
    shared = _shared_ends(names)
    for width in (5, 8, 13, 20):
        cut = [_cut(name, width, middle=True, shared=shared) for name in names]
        assert len(set(cut)) == 3 and all(len(text) == width for text in cut), cut
        assert [f"-{index}-" in text for index, text in zip((1, 2, 3), cut, strict=True)] == [True] * 3
    assert _cut("short", 8, middle=True, shared=shared) == "short"
    # Nothing shared: a third of the start, the rest of the end.
    assert _cut("line_items.description", 10, middle=True) == "lin…iption"
    assert _cut("a long reason", 8) == "a long …"  # other text keeps its start
