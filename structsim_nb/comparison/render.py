"""How a comparison reads: the headline in words, a standalone page, Jupyter's repr, and JSON.

The page and the notebook display are built from the same blocks as a report's page
(`structsim_nb.display.page`): summary tiles, the per-field forest plot (`structsim_nb.plot.forest`),
and sortable, filterable tables, self-contained (nothing is fetched).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any, Literal

import pandas as pd

__all__ = ["headline", "render_json", "render_page", "render_repr"]

_PERCENT_MEASURE = "pass rate"


def _number(value: float, *, signed: bool = False) -> str:
    return "" if math.isnan(value) else (f"{value:+.3f}" if signed else f"{value:.3f}")


def _interval(low: float, high: float, confidence: float, *, points: bool = False) -> str:
    if math.isnan(low):
        return "no interval (fewer than 2 cases)"
    if points:
        return f"{confidence:.0%} interval {low * 100:+.1f} to {high * 100:+.1f} points"
    return f"{confidence:.0%} interval {low:+.3f} to {high:+.3f}"


def headline(summary: Mapping[str, Any], overall: pd.DataFrame) -> list[str]:
    """The comparison in a few sentences, plain text: what was compared, the score, the pass rate, the fields."""
    s = summary
    confidence = s["confidence"]
    lines = [
        f"{s['candidate']} against {s['baseline']} ({s['evaluator']}): {s['compared']} cases compared"
        + (
            f"; {s['only_baseline']} only in the baseline, {s['only_candidate']} only in the candidate (not compared)"
            if s["only_baseline"] or s["only_candidate"]
            else ""
        )
        + (f"; {s['paired'] - s['compared']} without ground truth" if s["paired"] != s["compared"] else "")
    ]
    for record in overall.to_dict("records"):
        rate = record["measure"] == _PERCENT_MEASURE
        if rate:
            before, after = f"{record['baseline']:.1%}", f"{record['candidate']:.1%}"
            delta = f"{record['delta'] * 100:+.1f} points"
        else:
            before, after, delta = f"{record['baseline']:.3f}", f"{record['candidate']:.3f}", f"{record['delta']:+.3f}"
        text = (
            f"{'pass rate' if rate else 'mean score'} {before} -> {after}: {delta} "
            f"({_interval(record['ci_low'], record['ci_high'], confidence, points=rate)}, "
            f"over {record['n_cases']} cases, {record['n_changed']} changed): {record['verdict']}"
        )
        if rate:
            text += (
                f"; {record['improved']} fixed, {record['worsened']} broken (exact McNemar p = {record['p_value']:.3g})"
            )
        lines.append(text)
    lines.append(
        f"fields: {s['fields_worse']} worse, {s['fields_better']} better, the rest no evidence "
        f"(over the {s['field_cases']} cases compared field by field)"
    )
    return lines


def _rule(summary: Mapping[str, Any]) -> str:
    return (
        f"Each difference is candidate minus baseline, averaged over the cases it rests on (n_cases), with a "
        f"{summary['confidence']:.0%} interval from a {summary['method']} ({summary['n_resamples']} resamples, "
        f"seed {summary['seed']}). The verdict says better or worse only when the interval excludes zero and at "
        f"least {summary['min_changes']} of those cases changed (fewer cannot be told from chance by an exact sign "
        "test); otherwise no evidence."
    )


#: How each view's columns are drawn on the page (`display.page.Column`); columns not named are left out.
def _columns(view: str) -> list[Any]:
    from ..display.page import Column

    verdict = Column("verdict", kind="badge", filter=True)
    if view == "overall":
        return [
            Column("measure"),
            Column("baseline", kind="number"),
            Column("candidate", kind="number"),
            Column("delta", kind="number", help="candidate minus baseline, averaged over the cases"),
            Column("ci_low", kind="number"),
            Column("ci_high", kind="number"),
            verdict,
            Column("n_cases", kind="integer", help="the cases the interval rests on"),
            Column("n_changed", kind="integer", help="how many of them changed"),
            Column("improved", kind="integer"),
            Column("worsened", kind="integer"),
            Column("p_value", kind="number", help="exact McNemar test on the pass/fail flips"),
        ]
    if view == "regressions":
        return [
            Column("kind", kind="badge", filter=True),
            Column("name", kind="path"),
            Column("before", kind="score"),
            Column("after", kind="score"),
            Column("delta", kind="number"),
            Column("ci_low", kind="number"),
            Column("ci_high", kind="number"),
            Column("n_cases", kind="integer"),
            Column("detail"),
        ]
    if view == "fields":
        return [
            Column("path", kind="path"),
            Column("measure", filter=True),
            Column("n_cases", kind="integer", help="the cases this field's interval rests on"),
            Column("n_changed", kind="integer"),
            Column("mean_before", label="before", kind="score"),
            Column("mean_after", label="after", kind="score"),
            Column("delta", kind="number"),
            Column("ci_low", kind="number"),
            Column("ci_high", kind="number"),
            verdict,
            Column("fn_before", label="fn before", kind="integer", help="missed"),
            Column("fn_after", label="fn after", kind="integer"),
            Column("fa_before", label="fa before", kind="integer", help="invented"),
            Column("fa_after", label="fa after", kind="integer"),
            Column("fd_before", label="fd before", kind="integer", help="wrong"),
            Column("fd_after", label="fd after", kind="integer"),
        ]
    if view == "cases":
        return [
            Column("case", wrap=False),
            Column("flip", kind="badge", filter=True),
            Column("score_before", label="before", kind="score"),
            Column("score_after", label="after", kind="score"),
            Column("delta", kind="number"),
            Column("pass_before", label="passed before", kind="pass"),
            Column("pass_after", label="passed after", kind="pass"),
            Column("status_before", label="status before", filter=True),
            Column("status_after", label="status after", filter=True),
            Column("appeared", kind="integer", help="non-matches that appeared"),
            Column("fixed", kind="integer", help="non-matches that were fixed"),
            Column("changed", kind="integer", help="non-matches whose predicted value changed"),
            Column("reason_after", label="reason (candidate)"),
            Column("run", filter=True),
        ]
    return [
        Column("case", wrap=False),
        Column("path", kind="path"),
        Column("change", kind="badge", filter=True),
        Column("kind_before", label="before", kind="badge"),
        Column("kind_after", label="after", kind="badge"),
        Column("expected", kind="json"),
        Column("predicted_before", label="predicted before", kind="json"),
        Column("predicted_after", label="predicted after", kind="json"),
    ]


def _worst_first(cases: pd.DataFrame) -> pd.DataFrame:
    """Broken cases first, then by how far the score fell, then the rest; fixed cases last."""
    order = cases["flip"].map({"broken": 0, "fixed": 2}).fillna(1)
    ranked = cases.assign(_order=order, _delta=cases["delta"].fillna(0))
    ranked = ranked.sort_values(["_order", "_delta"], kind="stable")
    return ranked.drop(columns=["_order", "_delta"]).reset_index(drop=True)


def _tiles(summary: Mapping[str, Any]) -> list[Any]:
    from ..display.page import Tile

    s = summary
    tone: Literal["good", "bad", "neutral"] = (
        "good" if s.get("verdict") == "better" else "bad" if s.get("verdict") == "worse" else "neutral"
    )
    if s["compared"] == 0:
        return [Tile("compared", "0 cases", "none has ground truth in both runs", "warn")]
    interval = _interval(s["ci_low"], s["ci_high"], s["confidence"])
    return [
        Tile("cases compared", f"{s['compared']:,}", f"{s['only_baseline'] + s['only_candidate']:,} in one run only"),
        Tile(
            "mean score",
            f"{s['score_baseline']:.3f} → {s['score_candidate']:.3f}",
            f"{s['delta']:+.3f}; {interval}: {s['verdict']}",
            tone,
        ),
        Tile("pass rate", f"{s['pass_rate_baseline']:.1%} → {s['pass_rate_candidate']:.1%}"),
        Tile(
            "flips",
            f"{s['fixed']} fixed, {s['broken']} broken",
            f"exact McNemar p = {s['mcnemar_p']:.3g}" if not math.isnan(s["mcnemar_p"]) else None,
            "bad" if s["broken"] else ("good" if s["fixed"] else "neutral"),
        ),
        Tile(
            "fields",
            f"{s['fields_worse']} worse, {s['fields_better']} better",
            f"the rest no evidence, over {s['field_cases']:,} cases",
            "bad" if s["fields_worse"] else ("good" if s["fields_better"] else "neutral"),
        ),
    ]


def _forest(fields: pd.DataFrame, *, png: bool) -> str:
    """The fields' forest plot as an embedded image, or nothing when no field has an interval."""
    from ..display import page
    from ..plot import forest

    shown = fields.dropna(subset=["delta"]).head(_FOREST_ROWS)
    if shown.empty:
        return ""
    more = f" (the {len(shown)} most negative of {len(fields)})" if len(shown) < len(fields) else ""
    return page.figure(
        forest(shown),
        alt="Per-field differences with their confidence intervals",
        caption=f"comparison.plot.fields(){more}",
        png=png,
    )


#: Fields drawn in the forest plot (most negative difference first); the table holds every one.
_FOREST_ROWS = 30


def _lead(summary: Mapping[str, Any], notes: list[str], overall: pd.DataFrame) -> str:
    lines = "".join(f"<p>{html.escape(line)}</p>" for line in headline(summary, overall))
    notes_html = (
        "<div class='ss-notes'><b>Notes</b><ul>"
        + "".join(f"<li>{html.escape(note)}</li>" for note in notes)
        + "</ul></div>"
        if notes
        else ""
    )
    return lines + notes_html


def render_page(summary: Mapping[str, Any], notes: list[str], frames: Mapping[str, pd.DataFrame], *, title: str) -> str:
    """The standalone page on the shared page blocks: summary, the forest plot, then every view in full."""
    from ..display import page

    def table(view: str, anchor: str, noun: tuple[str, str], empty: str) -> str:
        frame = frames[view]
        constants: dict[str, Any] = {}
        if view == "cases":  # worst first, as the regressions; statuses that never vary are said once
            frame = _worst_first(frame)
            frame, constants = page.drop_constant(frame, only=["status_before", "status_after", "run"])
        columns = [column for column in _columns(view) if column.key in frame.columns]
        said = "".join(
            f"<p class='ss-muted'>Every case: {html.escape(key.replace('_', ' '))} = {html.escape(str(value))}.</p>"
            for key, value in constants.items()
        )
        return said + page.table(frame, columns, anchor=anchor, noun=noun, empty=empty)

    rule = f"<p class='ss-muted'>{html.escape(_rule(summary))}</p>"
    parts = [
        page.section(
            "Summary",
            page.tiles(_tiles(summary))
            + _lead(summary, notes, frames["overall"])
            + table("overall", "overall", ("measure", "measures"), "Nothing was compared."),
            anchor="summary",
        )
    ]
    chart = _forest(frames["fields"], png=False)
    if chart:
        parts.append(page.section("Per-field differences", chart + rule, anchor="chart"))
    parts += [
        page.section(
            "Regressions, worst first",
            table("regressions", "regressions", ("regression", "regressions"), "Nothing got worse."),
            anchor="regressions-section",
            intro="Read this first: fields whose interval lies below zero, cases that broke, then every case whose "
            "score fell.",
        ),
        page.section(
            "Per field",
            table("fields", "fields", ("field", "fields"), "No field was compared."),
            anchor="fields-section",
            intro="Most negative difference first; n_cases is the number of cases each interval rests on.",
        ),
        page.section(
            "Per case",
            table("cases", "cases", ("case", "cases"), "No case."),
            anchor="cases-section",
            intro="Every case of either run, broken first, then by how far the score fell; flip says fixed or broken.",
        ),
        page.section(
            "Non-matches that appeared, were fixed or changed",
            table("non_matches", "non-matches", ("non-match", "non-matches"), "No field value changed."),
            anchor="non-matches-section",
        ),
        page.section("How to read this", rule, anchor="how-to-read"),
    ]
    contents = [("summary", "Summary")] + ([("chart", "Chart")] if chart else [])
    contents += [("regressions-section", "Regressions"), ("fields-section", "Fields"), ("cases-section", "Cases")]
    contents += [("non-matches-section", "Non-matches")]
    subtitle = f"{summary['candidate']} against {summary['baseline']} ({summary['evaluator']})"
    return page.document(title, "".join(parts), subtitle=subtitle, contents=contents)


#: The per-run error counts of the fields table, left out of the notebook display (the page has them).
_COUNTS = frozenset(f"{kind}_{side}" for kind in ("fn", "fa", "fd") for side in ("before", "after"))
#: Rows of the regressions and fields the notebook display shows.
_REPR_ROWS = (10, 15)


def _with_interval(frame: pd.DataFrame) -> pd.DataFrame:
    """`ci_low` and `ci_high` as one text column, `interval` ("-0.016 to +0.052"; blank without one)."""
    text = [
        "" if pd.isna(low) or pd.isna(high) else f"{low:+.3f} to {high:+.3f}"
        for low, high in zip(frame["ci_low"], frame["ci_high"], strict=True)
    ]
    return frame.assign(interval=text)


def render_repr(summary: Mapping[str, Any], notes: list[str], frames: Mapping[str, pd.DataFrame]) -> str:
    """Jupyter's view: tiles, the headline, the forest plot (PNG) and the first regressions and fields.

    Narrower than the page's tables, to read in a notebook about 900 px wide: each interval is one
    column, and a regression's detail sits on a line of its own under its row.
    """
    from ..display import page

    body = page.tiles(_tiles(summary)) + _lead(summary, notes, frames["overall"]) + _forest(frames["fields"], png=True)
    interval = page.Column("interval", help=f"{summary['confidence']:.0%} interval of delta", wrap=False)
    for heading, view, limit in (
        ("Regressions, worst first", "regressions", _REPR_ROWS[0]),
        ("Per field (n_cases: the cases each interval rests on)", "fields", _REPR_ROWS[1]),
    ):
        frame = frames[view]
        shown = _with_interval(frame.head(limit))
        more = f" (first {len(shown)} of {len(frame)})" if len(shown) < len(frame) else ""
        columns = [
            replace(column, wrap=False)  # short words; a wrapping column keeps a minimum width
            for column in _columns(view)
            if column.key in frame.columns and column.key not in _COUNTS | {"ci_low", "ci_high", "detail"}
        ]
        columns.append(interval)  # last: in a narrow notebook the verdict stays in view, the interval scrolls
        note = page.Column("detail") if "detail" in frame.columns else None
        body += f"<h3>{html.escape(heading + more)}</h3>"
        body += page.static_table(shown, columns, note=note) if len(shown) else "<p class='ss-muted'>(none)</p>"
    body += (
        "<p class='ss-muted'>The rest: <code>comparison.to_html()</code> (every view, sortable), "
        "<code>comparison.explore()</code> (pick a case: both runs side by side), "
        "<code>comparison.plot.fields()</code>, "
        "<code>comparison.regressions()</code>, <code>comparison.fields_frame()</code>, "
        "<code>comparison.cases_frame()</code>, <code>comparison.non_matches_frame()</code>.</p>"
    )
    body += f"<p class='ss-muted'>{html.escape(_rule(summary))}</p>"
    return page.fragment(body)


def _json_value(value: Any) -> Any:
    """`value` as strict JSON data: numpy scalars as Python ones, NaN, infinities and pandas' NA as null."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, dict):
        return {str(key): _json_value(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_value(item) for item in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def render_json(summary: Mapping[str, Any], notes: list[str], frames: Mapping[str, pd.DataFrame]) -> str:
    """Summary, notes and every view (as lists of records) as JSON with sorted keys; NaN is null."""
    data: dict[str, Any] = {"summary": {key: _json_value(value) for key, value in summary.items()}, "notes": notes}
    for name, frame in frames.items():
        data[name] = [
            {column: _json_value(value) for column, value in zip(frame.columns, record, strict=True)}
            for record in frame.itertuples(index=False)
        ]
    return json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False, allow_nan=False, default=str) + "\n"
