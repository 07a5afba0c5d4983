"""The `evaluate` aggregate as one self-contained HTML page (`_aggregate.html` beside `_aggregate.json`).

The aggregate is not a `StructuredOutputReport` (its runs are scored by the registered scorers, one
report file each), so this page is built from the aggregate's own fields with the `structsim_nb.display.page`
blocks: the totals, the score distribution, every run worst first (each expanding to its answer and
its scorer's details), then whatever did not join and the problems.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from .._surrogates import text_frame
from ..display import page
from ..display.histogram import score_histogram
from ..display.page import Column, Tile
from ..json_match.values import load_json_text

__all__ = ["runs_page"]

_RANK = {"error": 0, "failed": 1, "passed": 2}


# What JSON text (as `json.loads` reads it: NaN and Infinity too) can start with, after JSON's white space.
_JSON_START = re.compile(r'[ \t\n\r]*[-{\["0-9tfnNI]')


def _parsed(text: Any) -> Any:
    """An answer as JSON when it is JSON text (as `json.loads` reads it), else as it is.

    Prose is told from JSON by its first character, without a failed parse. JSON text the readers
    refuse (`load_json_text`: nested deeper than `MAX_DEPTH`, or a number longer than Python
    converts) stays text, whether or not this Python's `json.loads` reads it (3.13's reads 5,000
    levels, where 3.11's raises `RecursionError`).
    """
    if isinstance(text, str) and _JSON_START.match(text):
        ok, value, _ = load_json_text(text)
        return value if ok else text
    return text


def _runs(
    aggregate: Mapping[str, Any], reports: Sequence[Mapping[str, Any]] | None
) -> tuple[pd.DataFrame, list[dict[str, Any] | None]]:
    rows, details = [], []
    results = aggregate.get("results", [])
    for index, result in enumerate(results):
        # The aggregate keeps each run's summary; the answer and the scorer's details are in the run's own
        # report (`reports`, as written), unless the aggregate was written with full_results.
        full = reports[index] if reports is not None and index < len(reports) else result
        score = {**(full.get("score") or {}), **(result.get("score") or {})}
        passed = bool(score.get("passed"))
        outcome = "error" if result.get("status") == "error" else ("passed" if passed else "failed")
        rows.append(
            {
                "report": result.get("report"),
                "scenario_id": result.get("scenario_id"),
                "scenario_type": result.get("scenario_type"),
                "model": result.get("model"),
                "status": result.get("status"),
                "test_pass": passed,
                "score": score.get("score"),
                "why": result.get("error") or score.get("rationale"),
                "_rank": _RANK[outcome],
            }
        )
        panes = [{"title": "answer", "value": _parsed(full.get("answer", result.get("answer"))), "marks": {}}]
        if score.get("details"):
            panes.append({"title": f"{aggregate.get('scorer')} details", "value": score["details"], "marks": {}})
        details.append({"reason": result.get("error") or score.get("rationale"), "panes": panes, "tables": []})
    frame = text_frame(
        pd.DataFrame,
        rows,
        columns=["report", "scenario_id", "scenario_type", "model", "status", "test_pass", "score", "why", "_rank"],
    )
    order = frame.sort_values(["_rank", "score"], kind="stable", na_position="first").index.tolist()
    return frame.loc[order].drop(columns=["_rank"]).reset_index(drop=True), [details[i] for i in order]


def _tiles(aggregate: Mapping[str, Any]) -> list[Tile]:
    totals = aggregate.get("totals", {})
    runs, passed, errors = totals.get("scenarios", 0), totals.get("passed", 0), totals.get("errors", 0)
    rate = totals.get("pass_rate")
    unmatched = len(aggregate.get("unmatched_trajectories", [])) + len(aggregate.get("unmatched_scenarios", []))
    problems = len(aggregate.get("problems", []))
    return [
        Tile("runs", f"{runs:,}", note=f"{totals.get('scored', 0):,} scored"),
        Tile(
            "passed",
            f"{passed:,} of {runs:,}",
            note="n/a" if rate is None else f"{rate:.1%}",
            tone="good" if runs and passed == runs else "bad",
        ),
        Tile("errors", f"{errors:,}", note="could not be scored", tone="bad" if errors else "good"),
        Tile("did not join", f"{unmatched:,}", note="trajectories or scenarios", tone="warn" if unmatched else "good"),
        Tile("problems", f"{problems:,}", note="in the inputs", tone="warn" if problems else "good"),
    ]


def _listing(title: str, items: list[dict[str, Any]], columns: list[Column]) -> str:
    if not items:
        return ""
    frame = text_frame(pd.DataFrame, items)
    shown = [c for c in columns if c.key in frame.columns]
    return f"<h3>{title} ({len(items)})</h3>" + page.static_table(frame, shown)


def runs_page(
    aggregate: Mapping[str, Any],
    *,
    reports: Sequence[Mapping[str, Any]] | None = None,
    title: str = "structsim-nb evaluate",
) -> str:
    """The aggregate of `run_evaluation` (or `_aggregate.json` read back) as a standalone page.

    Args:
        aggregate: The aggregate dictionary (`EvaluationRun.aggregate`).
        reports: Each run's own report, in the order of `aggregate["results"]`, for the answers and the
            scorer's details (the aggregate keeps only each run's summary unless written with
            `full_results`). Default None: what the aggregate holds.
        title: The page title. Default "structsim-nb evaluate".

    Returns:
        A self-contained HTML document: totals, the score distribution, every run worst first
        (errors, failures, passes; each run expands to its answer and the scorer's details, and
        names its report file), then unmatched trajectories and scenarios, the problems, and the
        files and folders the walk did not read (`skipped`: hidden, JSON Lines, reports folders).
    """
    runs, details = _runs(aggregate, reports)
    outcomes = pd.DataFrame(
        {
            "status": ["error" if status == "error" else "scored" for status in runs["status"]],
            "score": runs["score"].astype(float).fillna(0.0).to_numpy(),  # (float first: pandas 2 warns on object)
            "test_pass": runs["test_pass"].astype(bool).to_numpy(),
        }
    )
    constants: dict[str, Any] = {}
    if len(runs) > 1:
        runs, constants = page.drop_constant(runs, only=["model", "scenario_type", "status"])
    columns = [
        Column("report", kind="path"),
        Column("scenario_id", "scenario", wrap=False),
        Column("scenario_type", "type", filter=True),
        Column("model", filter=True),
        Column("status", kind="badge", filter=True),
        Column("test_pass", "pass", kind="pass", filter=True),
        Column("score", kind="score"),
        Column("why", "rationale or error"),
    ]
    columns = [c for c in columns if c.key in runs.columns]
    said = "; ".join(f"{k} = {v}" for k, v in constants.items())
    note = f"<p class='ss-constants'>Same in every run: {said}.</p>" if said else ""
    body = page.tiles(_tiles(aggregate))
    if len(runs):
        chart = score_histogram(
            outcomes,
            noun=("run", "runs"),
            caption="Run scores by outcome; a run without a score counts at 0. Click a bar to list its runs below.",
            table="runs",
        )
        body += f"<div class='ss-charts'>{chart}</div>"
    parts = [page.section("Summary", body, anchor="summary")]
    table = page.table(runs, columns, anchor="runs", noun=("run", "runs"), details=details, empty="No run joined.")
    parts.append(
        page.section(
            "Runs, worst first",
            note + table,
            anchor="runs-section",
            intro="Errors first, then failures, then passes; lowest score first. Each report file is in the "
            "same folder as this page. &#9656; shows the answer and the scorer's details.",
        )
    )
    leftovers = _listing(
        "Trajectories that joined no scenario",
        list(aggregate.get("unmatched_trajectories", [])),
        [Column("file", kind="path"), Column("scenario_id", "scenario"), Column("error"), Column("reason")],
    )
    leftovers += _listing(
        "Scenarios no trajectory joined",
        list(aggregate.get("unmatched_scenarios", [])),
        [Column("scenario_id", "scenario"), Column("folder", kind="path"), Column("error"), Column("reason")],
    )
    leftovers += _listing(
        "Problems",
        list(aggregate.get("problems", [])),
        [Column("source", kind="path"), Column("kind", kind="badge"), Column("message")],
    )
    leftovers += _listing(
        "Files and folders not read",
        list(aggregate.get("skipped", [])),
        [Column("file", kind="path"), Column("reason")],
    )
    if leftovers:
        parts.append(page.section("What did not join or was not read", leftovers, anchor="leftovers"))
    models = ", ".join(aggregate.get("models") or []) or "unknown model"
    subtitle = f"scored with {aggregate.get('scorer')}; {models}"
    contents = [("summary", "Summary"), ("runs-section", "Runs")] + ([("leftovers", "Left out")] if leftovers else [])
    return page.document(title, "".join(parts), subtitle=subtitle, contents=contents)
