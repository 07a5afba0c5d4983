"""How a comparison reads: the headline in words, a standalone page, Jupyter's repr, and JSON.

The page is a list of sections (a heading, then a DataFrame or HTML) rendered by one function,
`_page`, self-contained (inline CSS, no scripts, nothing fetched), so it can move onto a shared
page builder without changing what it says.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

__all__ = ["headline", "render_json", "render_page", "render_repr"]

Section = tuple[str, "pd.DataFrame | str"]

_CSS = (
    "body{font-family:system-ui,sans-serif;margin:2em;color:#222}"
    "table{border-collapse:collapse;font-size:13px;margin:.4em 0 1.2em}"
    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left;vertical-align:top;white-space:nowrap}"
    "td.text{white-space:normal;min-width:12em}"
    "th{background:#f3f3f3}td.num{text-align:right;font-variant-numeric:tabular-nums}"
    "td.better{background:#e3f4e1}td.worse{background:#fbe3e1}"
    "p.lead{font-size:15px}.note{color:#555}"
)
_SIGNED = {"delta", "ci_low", "ci_high"}
_TEXT = {"detail", "reason_before", "reason_after", "expected", "predicted_before", "predicted_after"}
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


def _cells(frame: pd.DataFrame) -> str:
    """`frame` as an HTML table: numbers to 3 places (signed differences), blanks for missing, verdicts coloured."""
    head = "".join(f"<th>{html.escape(str(column))}</th>" for column in frame.columns)
    body = []
    for record in frame.itertuples(index=False):
        cells = []
        for column, value in zip(frame.columns, record, strict=True):
            css = ""
            if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
                text = ""
            elif isinstance(value, bool):
                text = "yes" if value else "no"
            elif isinstance(value, float):
                text, css = _number(value, signed=column in _SIGNED), "num"
            elif isinstance(value, int):
                text, css = str(value), "num"
            elif isinstance(value, (dict, list)):
                text = json.dumps(value, ensure_ascii=False, default=str)
            else:
                text = str(value)
                if column == "verdict" and text in ("better", "worse"):
                    css = text
            if column in _TEXT and not css:
                css = "text"
            cells.append(f"<td class='{css}'>{html.escape(text)}</td>" if css else f"<td>{html.escape(text)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _section(heading: str, content: pd.DataFrame | str) -> str:
    if isinstance(content, pd.DataFrame):
        content = _cells(content) if len(content) else "<p class='note'>(none)</p>"
    return f"<h3>{html.escape(heading)}</h3>\n{content}"


def _page(title: str, lead: list[str], sections: list[Section]) -> str:
    """A standalone page: a title, lead paragraphs (plain text), then each section."""
    paragraphs = "".join(f"<p class='lead'>{html.escape(line)}</p>" for line in lead)
    parts = "\n".join(_section(heading, content) for heading, content in sections)
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title><style>{_CSS}</style></head><body>"
        f"<h2>{html.escape(title)}</h2>\n{paragraphs}\n{parts}\n</body></html>\n"
    )


def _note_html(notes: list[str]) -> str:
    return "<ul>" + "".join(f"<li>{html.escape(note)}</li>" for note in notes) + "</ul>"


def _sections(summary: Mapping[str, Any], notes: list[str], frames: Mapping[str, pd.DataFrame]) -> list[Section]:
    sections: list[Section] = [
        ("Overall", frames["overall"]),
        ("Regressions, worst first", frames["regressions"]),
        (
            "Per field, most negative difference first (n_cases: the cases each interval rests on)",
            frames["fields"],
        ),
        ("Per case", frames["cases"]),
        ("Non-matches that appeared, were fixed or changed", frames["non_matches"]),
    ]
    if notes:
        sections.insert(0, ("Notes", _note_html(notes)))
    sections.append(("How to read this", f"<p class='note'>{html.escape(_rule(summary))}</p>"))
    return sections


def render_page(summary: Mapping[str, Any], notes: list[str], frames: Mapping[str, pd.DataFrame], *, title: str) -> str:
    """The standalone page: the headline, then every view in full."""
    return _page(title, headline(summary, frames["overall"]), _sections(summary, notes, frames))


def render_repr(summary: Mapping[str, Any], notes: list[str], frames: Mapping[str, pd.DataFrame]) -> str:
    """Jupyter's view: the headline, notes, overall, and the first rows of the regressions and fields."""
    lead = "".join(f"<p>{html.escape(line)}</p>" for line in headline(summary, frames["overall"]))
    parts = [lead]
    if notes:
        parts.append(_note_html(notes))
    for heading, frame, limit in (
        ("Overall", frames["overall"], None),
        ("Regressions, worst first", frames["regressions"], 10),
        ("Per field (n_cases: the cases each interval rests on)", frames["fields"], 15),
    ):
        shown = frame if limit is None else frame.head(limit)
        more = (
            f" (first {len(shown)} of {len(frame)}; see fields_frame(), regressions())"
            if len(shown) < len(frame)
            else ""
        )
        parts.append(_section(heading + more, shown))
    parts.append(f"<p class='note'>{html.escape(_rule(summary))}</p>")
    return "<div class='structsim-comparison'>" + "\n".join(parts) + "</div>"


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
