"""A report as one self-contained HTML page (`report.to_html()`) and as a compact notebook display.

The page reads top to bottom as a person asks: how did it go (summary, glossary), where does it
fail (charts), which cases to open first (worst first, each expanding to truth beside prediction
with the failing paths highlighted), which fields to fix first, and every non-match. Its tables
are paged, so a 10,000-case page stays quick (see `bench/page.py` for sizes and times).

The notebook display (`_repr_html_`) is deliberately small: the summary, one chart, the five worst
cases, and how to get the rest.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable, Sequence
from typing import Any

import pandas as pd

from .._protocols import ReportLike
from .._surrogates import text_frame
from . import page
from .case_view import CaseDetail, case_details, field_of, ranked_cases
from .page import Column, Tile

logger = logging.getLogger(__name__)

__all__ = ["DETAILS_LIMIT", "GLOSSARY", "report_fragment", "report_page"]

#: Cases whose truth and prediction the page embeds (the worst ones); the rest show their row and reason.
DETAILS_LIMIT = 2000
#: Top-level field score columns shown in the cases table; past this the detail holds them.
FIELD_COLUMNS_LIMIT = 10

GLOSSARY = {
    "right (tp)": "the prediction has the ground-truth value (or one close enough for the field's comparator)",
    "missed (fn)": "the ground truth has a value; the prediction left it blank",
    "invented (fa)": "the prediction has a value where the ground truth has none (a false alarm)",
    "wrong (fd)": "both have a value and they do not match (a false discovery)",
    "blank (tn)": "blank on both sides; counts as right in the score, not in precision or recall",
    "pass": "score and recall both reach match_threshold (0.7 by default); with nothing to find, nothing invented",
    "score": "the weighted mean of the field scores, 0 to 1",
}


def _plural(count: int, word: str, words: str | None = None) -> str:
    return f"{count:,} {word if count == 1 else (words or word + 's')}"


def _summary_tiles(summary: dict[str, Any], *, evaluators: int = 1) -> list[Tile]:
    """The headline tiles; with several evaluators the figures mix their rows, and the tiles say so."""
    cases, passed = summary["cases"], summary["passed"]
    rate = passed / cases if cases else 0.0
    mixed = evaluators > 1
    tiles = [
        Tile(
            "rows" if mixed else "cases",
            f"{cases:,}",
            note=f"{evaluators} evaluators; {summary['scored']:,} scored field by field"
            if mixed
            else f"{summary['scored']:,} scored",
        ),
        Tile("passed", f"{passed:,} of {cases:,}", note=f"{rate:.1%}", tone="good" if passed == cases else "bad"),
        Tile(
            "overall score",
            f"{summary['overall_score']:.3f}",
            note=f"mean over all {evaluators} evaluators' rows" if mixed else "mean over applicable rows",
        ),
        Tile(
            "unreadable",
            f"{summary['unreadable']:,}",
            note="a side did not parse or validate",
            tone="bad" if summary["unreadable"] else "good",
        ),
        Tile("errors", f"{summary['errors']:,}", note="scoring raised", tone="bad" if summary["errors"] else "good"),
    ]
    if summary["not_applicable"]:
        tiles.append(Tile("not applicable", f"{summary['not_applicable']:,}", note="no ground truth"))
    return tiles


def _field_level(cases: pd.DataFrame) -> set[str]:
    """The evaluators that scored field by field: any row of theirs scored or unreadable."""
    return {str(name) for name in cases.loc[cases["status"].isin(["scored", "unreadable"]), "evaluator"]}


def _per_evaluator(report: ReportLike, names: Sequence[str] | None = None) -> str:
    """One row per evaluator (field-level ones first), as the page and the notebook display show it."""
    names = report.evaluators() if names is None else names
    if len(names) < 2:
        return ""
    rows = [{"evaluator": name, **report.summary(evaluator=name)} for name in names]
    frame = text_frame(pd.DataFrame, rows)
    frame["pass_rate"] = frame["passed"] / frame["cases"].where(frame["cases"] > 0)
    columns = [
        Column("evaluator", wrap=False),
        Column("cases", kind="integer"),
        Column("passed", kind="integer"),
        Column("pass_rate", "pass rate", kind="percent"),
        Column("overall_score", "overall score", kind="score"),
        Column("scored", "scored field by field", kind="integer"),
        Column("unreadable", kind="integer"),
        Column("not_applicable", "not applicable", kind="integer"),
        Column("errors", kind="integer"),
    ]
    # Counts that are zero for every evaluator say nothing; the tiles above show them.
    quiet = {key for key in ("unreadable", "not_applicable", "errors") if not frame[key].any()}
    columns = [column for column in columns if column.key not in quiet]
    return "<h3>By evaluator</h3>" + page.static_table(frame, columns)


def _chart(draw: Callable[[], Any], *, alt: str, caption: str, png: bool = False) -> str | None:
    """One chart as a figure, or None when the report cannot have it (the reason is logged)."""
    try:
        return page.figure(draw(), alt=alt, caption=caption, png=png)
    except ValueError as exc:
        logger.debug("chart=<%s>, reason=<%s> | chart left out", alt, exc)
        return None


def _charts(report: ReportLike, cases: pd.DataFrame, fields: pd.DataFrame | None) -> list[str]:
    """The four charts, each drawn from frames read once (a chart the report cannot have is left out)."""
    from .. import plot
    from ..plot import whatif

    def field_chart(draw: Callable[..., Any]) -> Callable[[], Any]:
        def drawn() -> Any:
            if fields is None:
                raise ValueError("no single field rollup")
            return draw(fields)

        return drawn

    drawn = [
        _chart(
            field_chart(plot.fields),
            alt="Errors per field path, worst first",
            caption="Share of each field's compared values that were missed, invented or wrong; children of a list "
            "(grey) count only elements that paired up. The label gives the count.",
        ),
        _chart(
            lambda: plot.scores(cases),
            alt="Score distribution by outcome",
            caption="Case scores, passed and failed stacked. A failed case right of the line fell short on recall.",
        ),
        _chart(
            lambda: plot.threshold(whatif.similarity_cases(report)),
            alt="Pass rate as the pass bar moves",
            caption="Recomputed from these scores: exact for this report's bar, an estimate elsewhere (rescoring "
            "at another match_threshold can pair list items differently).",
        ),
        _chart(
            field_chart(plot.precision_recall),
            alt="Precision and recall per field",
            caption="Recall drops with missed values, precision with invented and wrong ones.",
        ),
    ]
    return [chart for chart in drawn if chart]


def _fields(report: ReportLike) -> tuple[pd.DataFrame | None, str]:
    """`report.fields_frame()`, or None and why not (nothing scored, or several schemas)."""
    try:
        return report.fields_frame(), ""
    except ValueError as exc:
        return None, str(exc)


def _detail(detail: CaseDetail) -> dict[str, Any]:
    tables = []
    if detail.non_matches:
        tables.append(
            {
                "title": f"Non-matches ({len(detail.non_matches)})",
                "columns": ["path", "kind", "expected", "predicted", "similarity"],
                "kinds": ["path", "badge", "json", "json", "number"],
                "rows": [
                    [r.get("path"), r.get("kind"), r.get("expected"), r.get("predicted"), r.get("similarity")]
                    for r in detail.non_matches
                ],
            }
        )
    if detail.field_scores:
        tables.append(
            {
                "title": "Field scores",
                "columns": ["field", "score"],
                "kinds": ["path", "score"],
                "rows": [[name, score] for name, score in detail.field_scores.items()],
            }
        )
    return {
        "reason": detail.reason,
        "panes": [
            {"title": "truth (expected)", "value": detail.truth, "marks": detail.marks["truth"]},
            {"title": "prediction (actual)", "value": detail.prediction, "marks": detail.marks["prediction"]},
        ],
        "tables": tables,
    }


_CASE_COLUMNS = [
    Column("case", wrap=False),
    Column("evaluator", filter=True),
    Column("model", filter=True),
    Column("status", kind="badge", filter=True),
    Column("test_pass", "pass", kind="pass", filter=True, help="score and recall reach match_threshold"),
    Column("score", kind="score"),
    Column("recall", kind="number", help="share of the values to find that were found (pass needs it too)"),
    Column("fn", "missed", kind="integer", help="fn: a value in the truth left blank"),
    Column("fa", "invented", kind="integer", help="fa: a value where the truth has none"),
    Column("fd", "wrong", kind="integer", help="fd: both have a value and they differ"),
]


def _constants_note(constants: dict[str, Any], labels: dict[str, str]) -> str:
    """The columns dropped as the same in every row, with their value; one empty in every row goes unsaid."""
    said = "; ".join(
        f"{labels.get(k, k)} = {v if isinstance(v, str) else page.jsonable(v)}"
        for k, v in constants.items()
        if page.jsonable(v) is not None
    )
    if not said:
        return ""
    return f"<p class='ss-constants'>Same in every row, so not repeated: {html.escape(said)}.</p>"


def _cases_section(report: ReportLike, ranked: pd.DataFrame, details: Sequence[CaseDetail]) -> str:
    fixed = {"row", "case", "evaluator", "model", "status", "outcome", "score", "test_pass", "precision", "recall"}
    fixed |= {"f1", "tp", "fn", "fa", "fd", "tn", "reason", "errors"}
    field_names = [c for c in ranked.columns if c not in fixed]
    shown_fields = field_names if len(field_names) <= FIELD_COLUMNS_LIMIT else []
    # A scored row's reason names its weakest fields, which the coloured field columns already show: when
    # every row was scored and those columns are there, the reason lives in each case's detail instead.
    reason_shown = not shown_fields or bool((ranked["status"] != "scored").any())
    columns = [*_CASE_COLUMNS, *(Column(name, kind="score") for name in shown_fields)]
    columns += [Column("reason")] if reason_shown else []
    frame, constants = page.drop_constant(
        ranked, only=["evaluator", "model", "status", "fn", "fa", "fd"] + list(shown_fields)
    )
    columns = [c for c in columns if c.key in frame.columns]
    by_row = {d.row: d for d in details}
    limit = DETAILS_LIMIT
    entries = [
        _detail(by_row[row]) if position < limit and row in by_row else None
        for position, row in enumerate(frame["row"])
    ]
    labels = {c.key: c.label or c.key for c in _CASE_COLUMNS}
    note = _constants_note(constants, labels)
    if len(frame) > limit:
        note += (
            f"<p class='ss-constants'>Truth and prediction are embedded for the {limit:,} worst rows; "
            "open the others with report.explore() or report.cases.</p>"
        )
    intro = (
        "Errors first, then unreadable, failed, passed; lowest score first. Click a header to sort, "
        "&#9656; to see the truth beside the prediction with the failing paths highlighted."
    )
    if not shown_fields and field_names:
        intro += f" The {len(field_names)} field scores are in each case's detail."
    if not reason_shown:
        intro += " Each case's reason is in its detail."
    body = page.table(frame, columns, anchor="cases", noun=("case", "cases"), details=entries)
    return page.section("Cases, worst first", note + body, anchor="cases-section", intro=intro)


def _fields_section(fields: pd.DataFrame | None, problem: str) -> str:
    if fields is None:
        return page.section("Fields", f"<p class='ss-muted'>{html.escape(problem)}</p>", anchor="fields-section")
    fields = fields.assign(
        failing=[
            {
                "text": f"{errors:,} non-match{'es' if errors != 1 else ''}",
                "target": {"table": "non-matches", "column": "field", "value": path},
            }
            if errors
            else None
            for path, errors in zip(fields["path"], fields["errors"], strict=True)
        ]
    )
    columns = [
        Column("path", "field", kind="path", indent_by="depth"),
        Column("depth", hidden=True),
        Column("fn", "missed", kind="integer", help="fn: a value in the truth left blank"),
        Column("fa", "invented", kind="integer", help="fa: a value where the truth has none"),
        Column("fd", "wrong", kind="integer", help="fd: both have a value and they differ"),
        Column("tp", "right", kind="integer", help="tp: values that match"),
        Column("tn", "blank", kind="integer", help="tn: blank on both sides"),
        Column("precision", kind="number"),
        Column("recall", kind="number"),
        Column("f1", kind="score"),
        Column(
            "mean_score", "mean score", kind="score", help="mean field score over the cases (none for list children)"
        ),
        Column("failing", "non-matches", kind="link", help="show this field's non-matches below"),
    ]
    intro = (
        "Worst first, each list field followed by its children (indented). Children of a list count only elements "
        "that paired up, so a child can read perfect while its parent does not."
    )
    body = page.table(fields, columns, anchor="fields", noun=("field", "fields"), page_size=50)
    return page.section("Fields, worst first", body, anchor="fields-section", intro=intro)


def _non_matches_section(report: ReportLike) -> str:
    try:
        misses = report.non_matches_frame()
    except ValueError as exc:
        return page.section("Non-matches", f"<p class='ss-muted'>{html.escape(str(exc))}</p>", anchor="nm-section")
    misses = misses.assign(field=[field_of(str(path)) for path in misses["path"]])
    columns = [
        Column("case", wrap=False),
        Column("evaluator", filter=True),
        Column("path", kind="path"),
        Column("field", filter=True, hidden=True),
        Column("kind", kind="badge", filter=True),
        Column("expected", kind="json"),
        Column("predicted", kind="json"),
        Column("similarity", kind="number"),
        Column("reason"),
    ]
    misses, constants = page.drop_constant(misses, only=["evaluator"])
    columns = [c for c in columns if c.key in misses.columns]
    intro = (
        f"{_plural(len(misses), 'value')} missed, invented or wrong, in case order. Values are JSON; "
        "a wrong list element shows both objects."
    )
    body = page.table(misses, columns, anchor="non-matches", noun=("non-match", "non-matches"), empty="Nothing failed.")
    return page.section("Non-matches", _constants_note(constants, {}) + body, anchor="non-matches-section", intro=intro)


def report_page(report: ReportLike, *, title: str = "structsim-nb report") -> str:
    """The whole page: summary, glossary, charts, cases worst first, fields worst first, non-matches.

    Args:
        report: The report.
        title: The page title. Default "structsim-nb report".

    Returns:
        A self-contained HTML document (inline CSS, script and PNG charts; nothing from the network).
        Truth and prediction are embedded for the `DETAILS_LIMIT` worst rows.
    """
    summary = report.summary()
    cases = report.cases_frame()
    ranked = ranked_cases(report, cases=cases)
    # Truth, prediction and marks only for the rows whose detail the page embeds (the worst ones).
    details = case_details(report, ranked["row"].head(DETAILS_LIMIT).tolist(), cases=cases)
    fields, problem = _fields(report)
    models = sorted({str(m) for m in ranked["model"].dropna().unique()})
    evaluators = report.evaluators()
    subtitle = f"{_plural(summary['cases'], 'row')} scored by {', '.join(evaluators) or 'no evaluator'}" + (
        f" as {', '.join(models)}" if models else ""
    )
    summary_body = page.tiles(_summary_tiles(summary, evaluators=len(evaluators))) + _per_evaluator(report, evaluators)
    summary_body += "<h3>Reading the counts</h3>" + page.glossary(GLOSSARY)
    charts = _charts(report, cases, fields)
    parts = [page.section("Summary", summary_body, anchor="summary")]
    if charts:
        parts.append(page.section("Charts", f"<div class='ss-charts'>{''.join(charts)}</div>", anchor="charts"))
    parts += [_cases_section(report, ranked, details), _fields_section(fields, problem), _non_matches_section(report)]
    contents = [("summary", "Summary"), ("charts", "Charts"), ("cases-section", "Cases")]
    contents += [("fields-section", "Fields"), ("non-matches-section", "Non-matches")]
    return page.document(
        title, "".join(parts), subtitle=subtitle, contents=contents if charts else contents[:1] + contents[2:]
    )


#: Rows of the worst cases the notebook display shows.
FRAGMENT_ROWS = 5

_REST = (
    "<p class='ss-muted'>The rest: <code>report.to_html()</code> (every case, sortable, with truth beside "
    "prediction), <code>report.explore()</code> (pick a case or a field), <code>report.plot.scores()</code>, "
    "<code>report.cases_frame()</code>, <code>report.fields_frame()</code>, "
    "<code>report.non_matches_frame()</code>{more}.</p>"
)


def _worst(ranked: pd.DataFrame, *, evaluator: str | None) -> str:
    """The first `FRAGMENT_ROWS` rows of `ranked`: constant columns said once, each reason on a line of its own.

    Under an evaluator's own heading (`evaluator` set) its name is not repeated.
    """
    if evaluator is not None:
        ranked = ranked.drop(columns=["evaluator"])
    _, constants = page.drop_constant(ranked, only=["evaluator", "model", "status"])
    worst = ranked.head(FRAGMENT_ROWS).drop(columns=list(constants))
    columns = [c for c in _CASE_COLUMNS if c.key in worst.columns]
    heading = f"<h3>Worst {min(FRAGMENT_ROWS, len(ranked))} of {_plural(len(ranked), 'row')}</h3>"
    note = _constants_note(constants, {c.key: c.label or c.key for c in _CASE_COLUMNS})
    return heading + note + page.static_table(worst, columns, note=Column("reason"))


def _fragment_block(report: ReportLike, ranked: pd.DataFrame, *, evaluator: str | None, evaluators: int) -> str:
    """Tiles, one chart and the worst rows of one evaluator (or of the whole report when `evaluator` is None)."""
    from .. import plot

    summary = report.summary(evaluator=evaluator)
    fields: pd.DataFrame | None
    try:
        fields = report.fields_frame(evaluator=evaluator)
    except ValueError:  # nothing scored field by field, or several schemas
        fields = None
    call = f"evaluator={evaluator!r}" if evaluator is not None else ""
    # The score chart draws rows scored by a field-level evaluator (or that failed to be); without any it is empty.
    drawable = bool(ranked["status"].isin(["scored", "unreadable", "error"]).any())
    chart = (
        _chart(
            lambda: plot.fields(fields),
            alt="Errors per field path, worst first",
            caption=f"report.plot.fields({call})",
            png=True,
        )
        if fields is not None
        else None
    ) or (
        _chart(
            lambda: plot.scores(report, evaluator=evaluator),
            alt="Score distribution by outcome",
            caption=f"report.plot.scores({call})",
            png=True,
        )
        if drawable
        else None
    )
    tiles = page.tiles(_summary_tiles(summary, evaluators=1 if evaluator is not None else evaluators))
    return tiles + (chart or "") + _worst(ranked, evaluator=evaluator)


def report_fragment(report: ReportLike) -> str:
    """The notebook display: summary tiles, the fields chart, the five worst cases, how to get the rest.

    Its size does not grow with the number of cases (one chart and five rows per evaluator shown).
    The chart is a PNG, so notebook viewers that drop SVG images show it. Each case's reason sits
    on a line of its own under its row, so it reads as a sentence in a narrow notebook too.

    With several evaluators in one report (say `Equals` beside `StructuredOutputSimilarity`), their
    rows are not mixed: each evaluator that scores field by field gets its own tiles, chart and worst
    rows, first; then every evaluator is summarised in one table, as on the page (`to_html`).
    """
    cases = report.cases_frame()
    ranked = ranked_cases(report, cases=cases)
    names = report.evaluators()
    shown = [name for name in names if name in _field_level(cases)]
    if len(names) < 2 or not shown:
        body = _fragment_block(report, ranked, evaluator=None, evaluators=len(names))
        body += _per_evaluator(report, names)
        return page.fragment(body + _REST.format(more=""))
    others = [name for name in names if name not in shown]
    said = f"{', '.join(shown)} scored field by field"
    if others:
        verb = "is" if len(others) == 1 else "are"
        said += f"; {', '.join(others)} scored the whole output and {verb} summarised below"
    body = (
        f"<p>{len(names)} evaluators scored these cases ({html.escape(said)}). "
        "Their rows are shown apart, field-level first.</p>"
    )
    for name in shown:
        body += f"<h3>{html.escape(name)}</h3>"
        body += _fragment_block(report, ranked[ranked["evaluator"].astype(str) == name], evaluator=name, evaluators=1)
    body += _per_evaluator(report, names)
    more = ", each with <code>evaluator=</code> for one evaluator's rows"
    return page.fragment(body + _REST.format(more=more))
