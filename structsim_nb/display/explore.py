"""`report.explore()`: pick a case or a field and see what went wrong, in a notebook (ipywidgets).

Two tabs, built from small widgets:

- **Cases**: filters (outcome, field path, kind of error) narrow a list of cases, worst first;
  picking one shows its truth beside its prediction with the differing paths highlighted, its
  non-matches and its field scores.
- **Fields**: pick a field path (worst first) and see every case that fails it; picking one of
  those opens it in the Cases tab.

State changes go through `observe` callbacks that are plain methods (`_on_filter`, `_on_case`,
`_on_field`, `_on_field_case`), so tests drive the explorer by setting a widget's `.value` and
reading what the HTML widgets show.

The explorer reads an `ExploreSource`, not a report: `from_report` builds one from a report. A
comparison of two runs plugs in the same way (its cases ranked by how much they changed, `render`
showing the truth beside both predictions); `comparison.explore()` only has to build the source.

Static pictures (`report.plot`) and the page (`report.to_html()`) show everything this does; the
explorer is the quicker way to walk through cases in a live kernel, never the only way.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pandas as pd

from .._protocols import ReportLike
from .._surrogates import text_frame
from . import page
from .case_view import CaseDetail, case_details, non_match_rows, ranked_cases
from .page import Column

logger = logging.getLogger(__name__)

__all__ = ["INSTALL", "LIST_LIMIT", "ExploreSource", "Explorer", "explore", "from_report", "render_case"]

INSTALL = 'the explorer needs ipywidgets: pip install "structsim-nb[notebooks]"'
#: Cases listed at once; narrow the filters to reach the others.
LIST_LIMIT = 500
#: Kinds of error the kind filter offers.
KINDS = ("missed", "invented", "wrong")


def _widgets() -> Any:
    try:
        import ipywidgets  # optional extra: notebooks
    except ImportError as exc:
        raise ImportError(INSTALL) from exc
    return ipywidgets


@dataclass(frozen=True)
class ExploreSource:
    """What the explorer shows, whatever produced it.

    Attributes:
        cases: One row per case, in the order to list them (worst first), with `row` (a unique
            key), `case` (its name), `outcome` (what the outcome filter offers), `score`,
            `passed` (bool) and `errors` (non-matches).
        failures: One row per non-match: `row` (the case's key), `case`, `path`, `field` (the path
            without list indexes), `kind` (missed, invented, wrong), `expected`, `predicted`,
            `similarity`.
        render: HTML for one case's detail, by its `row`.
        title: A line above the explorer.
        kinds: The values of `failures["kind"]` the kind filter offers. Default missed, invented, wrong.
        outcome_label: The outcome filter's label. Default "outcome".
        description: What the explorer shows, as the start of a sentence, for a viewer without a
            running kernel (a committed notebook on a code host, or opened before its kernel runs);
            see `Explorer.text`. Default "structsim-nb explorer".
        static: The call that shows the same cases without a kernel. Default "report.to_html()".
    """

    cases: pd.DataFrame
    failures: pd.DataFrame
    render: Callable[[int], str]
    title: str = ""
    kinds: tuple[str, ...] = ("missed", "invented", "wrong")
    outcome_label: str = "outcome"
    description: str = "structsim-nb explorer"
    static: str = "report.to_html()"


def render_case(detail: CaseDetail) -> str:
    """One case's detail as HTML: its outcome and reason, truth beside prediction, non-matches, field scores."""
    verdict = "pass" if detail.passed else "fail"
    head = (
        f"<h3>{html.escape(detail.case)} <span class='ss-badge {verdict}'>{verdict}</span> "
        f"<span class='ss-muted'>score {detail.score:.3f} · {html.escape(detail.status)} · "
        f"{html.escape(detail.evaluator)}</span></h3>"
    )
    reason = f"<p class='ss-reason'><b>Reason:</b> {html.escape(detail.reason or '')}</p>" if detail.reason else ""
    panes = (
        "<div class='ss-panes'>"
        f"<div class='ss-pane'><h4>truth (expected)</h4>{page.json_html(detail.truth, detail.marks['truth'])}</div>"
        f"<div class='ss-pane'><h4>prediction (actual)</h4>"
        f"{page.json_html(detail.prediction, detail.marks['prediction'])}</div></div>"
    )
    tables = []
    if detail.non_matches:
        frame = text_frame(pd.DataFrame, detail.non_matches)
        columns = [
            Column("path", kind="path"),
            Column("kind", kind="badge"),
            Column("expected", kind="json"),
            Column("predicted", kind="json"),
            Column("similarity", kind="number"),
        ]
        tables.append(f"<div><h4>Non-matches ({len(frame)})</h4>{page.static_table(frame, columns)}</div>")
    if detail.field_scores:
        scores = pd.DataFrame({"field": list(detail.field_scores), "score": list(detail.field_scores.values())})
        tables.append(
            "<div><h4>Field scores</h4>"
            + page.static_table(scores, [Column("field", kind="path"), Column("score", kind="score")])
            + "</div>"
        )
    return f"<div class='ss'>{head}{reason}{panes}<div class='ss-detail-tables'>{''.join(tables)}</div></div>"


def from_report(report: ReportLike) -> ExploreSource:
    """The explorer's view of a report: its rows worst first, every non-match, each case on demand."""
    ranked = ranked_cases(report)
    cases = ranked.rename(columns={"test_pass": "passed"})[["row", "case", "outcome", "score", "passed", "errors"]]
    cases = cases.assign(passed=cases["passed"].astype(bool))
    failures = non_match_rows(report)

    def render(row: int) -> str:
        [detail] = case_details(report, [row])
        return render_case(detail)

    summary = report.summary()
    counts = f"{summary['cases']:,} rows, {summary['passed']:,} passed, overall score {summary['overall_score']:.3f}"
    description = (
        f"structsim-nb report explorer ({counts}): pick a case to see its truth beside its prediction with the "
        "differences marked, or a field to see every case that fails it"
    )
    return ExploreSource(
        cases=cases.reset_index(drop=True),
        failures=failures,
        render=render,
        title=f"{counts}; cases are listed worst first",
        description=description,
    )


def _label(row: pd.Series) -> str:
    mark = "\u2713" if row["passed"] else "\u2717"
    errors = int(row["errors"])
    return f"{mark} {row['score']:.3f}  {row['case']}" + (
        f"  ({errors} non-match{'es' if errors != 1 else ''})" if errors else ""
    )


class Explorer:
    """The explorer widget: display it (it is the last value of a cell) or read its parts.

    Attributes:
        outcome, field, kind: The case filters (Dropdown, Dropdown, ToggleButtons); "" means any.
        case: The case list (Select), worst first; its value is a case's `row`.
        note: How many cases match and how many are listed.
        detail: The picked case (HTML).
        field_pick: The field list of the Fields tab (Dropdown), worst first.
        field_cases: The failing cases of that field (Select); picking one opens it in Cases.
        field_table: Every non-match of that field (HTML).
        tabs: The two tabs; `widget` is the whole explorer.
    """

    def __init__(self, source: ExploreSource) -> None:
        widgets = _widgets()
        self.source = source
        counts = source.cases["outcome"].value_counts()
        outcomes = [("any outcome", "")] + [(f"{name} ({count:,})", name) for name, count in counts.items()]
        by_field = source.failures["field"].value_counts() if len(source.failures) else pd.Series(dtype=int)
        fields = [(f"{name} ({count:,})", name) for name, count in by_field.items()]
        self.outcome = widgets.Dropdown(options=outcomes, value="", description=source.outcome_label)
        self.field = widgets.Dropdown(options=[("any field", ""), *fields], value="", description="field")
        self.kind = widgets.ToggleButtons(
            options=[("any", ""), *((k, k) for k in source.kinds)], value="", description="error"
        )
        self.kind.style.button_width = "80px"
        self.case = widgets.Select(options=[], rows=14, layout=widgets.Layout(width="100%"))
        self.note = widgets.HTML()
        self.detail = widgets.HTML()
        self.field_pick = widgets.Dropdown(options=fields, value=fields[0][1] if fields else None, description="field")
        self.field_cases = widgets.Select(options=[], rows=10, layout=widgets.Layout(width="100%"))
        self.field_table = widgets.HTML()
        style = widgets.HTML(f"<style>{page.stylesheet()}</style>")
        header = widgets.HTML(f"<div class='ss'><p class='ss-muted'>{html.escape(source.title)}</p></div>")
        cases_tab = widgets.VBox(
            [
                widgets.HBox([self.outcome, self.field]),
                self.kind,
                self.note,
                self.case,
                self.detail,
            ]
        )
        fields_tab = widgets.VBox([self.field_pick, self.field_cases, self.field_table])
        self.tabs = widgets.Tab(children=[cases_tab, fields_tab])
        self.tabs.set_title(0, "Cases")
        self.tabs.set_title(1, "Fields")
        self.widget = widgets.VBox([style, header, self.tabs])
        for control in (self.outcome, self.field, self.kind):
            control.observe(self._on_filter, names="value")
        self.case.observe(self._on_case, names="value")
        self.field_pick.observe(self._on_field, names="value")
        self.field_cases.observe(self._on_field_case, names="value")
        self._refresh_cases()
        self._on_field(None)

    # -- what the filters select ------------------------------------------------------

    def matching(self) -> pd.DataFrame:
        """The cases the filters let through, in list order (worst first)."""
        cases = self.source.cases
        if self.outcome.value:
            cases = cases[cases["outcome"] == self.outcome.value]
        if self.field.value or self.kind.value:
            failures = self.source.failures
            if self.field.value:
                failures = failures[failures["field"] == self.field.value]
            if self.kind.value:
                failures = failures[failures["kind"] == self.kind.value]
            cases = cases[cases["row"].isin(set(failures["row"]))]
        return cases

    def _refresh_cases(self) -> None:
        cases = self.matching()
        listed = cases.head(LIST_LIMIT)
        options = [(_label(row), int(row["row"])) for _, row in listed.iterrows()]
        previous = self.case.value
        self.case.options = options
        self.case.rows = min(14, max(4, len(options)))
        keys = [value for _, value in options]
        self.case.value = previous if previous in keys else (keys[0] if keys else None)
        more = (
            f"; the first {len(listed):,} are listed, narrow the filters for the rest"
            if len(cases) > len(listed)
            else ""
        )
        self.note.value = f"<span>{len(cases):,} of {len(self.source.cases):,} cases match{more}</span>"
        if not keys:
            self.detail.value = "<div class='ss'><p class='ss-muted'>No case matches these filters.</p></div>"

    # -- callbacks ----------------------------------------------------------------------

    def _on_filter(self, change: Any) -> None:
        self._refresh_cases()

    def _on_case(self, change: Any) -> None:
        row = self.case.value
        if row is None:
            return
        logger.debug("row=<%s> | explorer shows case", row)
        self.detail.value = self.source.render(int(row))

    def _on_field(self, change: Any) -> None:
        name = self.field_pick.value
        if name is None:
            self.field_table.value = "<div class='ss'><p class='ss-muted'>Nothing failed: no field to show.</p></div>"
            return
        failures = self.source.failures[self.source.failures["field"] == name]
        cases = self.source.cases[self.source.cases["row"].isin(set(failures["row"]))]
        self.field_cases.options = [(_label(row), int(row["row"])) for _, row in cases.head(LIST_LIMIT).iterrows()]
        self.field_cases.rows = min(10, max(3, len(self.field_cases.options)))
        self.field_cases.value = None
        columns = [
            Column("case", wrap=False),
            Column("path", kind="path"),
            Column("kind", kind="badge"),
            Column("expected", kind="json"),
            Column("predicted", kind="json"),
            Column("similarity", kind="number"),
        ]
        head = (
            f"<p><b>{html.escape(name)}</b> fails in {len(cases):,} case{'s' if len(cases) != 1 else ''} "
            f"({len(failures):,} non-match{'es' if len(failures) != 1 else ''}). Pick a case above to open it.</p>"
        )
        self.field_table.value = f"<div class='ss'>{head}{page.static_table(failures.head(LIST_LIMIT), columns)}</div>"

    def _on_field_case(self, change: Any) -> None:
        row = self.field_cases.value
        if row is not None:
            self.show(int(row))

    # -- actions ------------------------------------------------------------------------

    def show(self, row: int) -> None:
        """Open the case with this `row` in the Cases tab, clearing filters that would hide it."""
        if row not in set(self.matching()["row"]):
            for control in (self.outcome, self.field, self.kind):
                control.value = ""
        if row not in set(self.matching().head(LIST_LIMIT)["row"]):
            self.outcome.value = str(self.source.cases.loc[self.source.cases["row"] == row, "outcome"].iloc[0])
        self.case.value = row
        self.tabs.selected_index = 0

    def text(self) -> str:
        """What a viewer without a running kernel shows in place of the widget: what it is and what it needs.

        A committed notebook keeps this as the explorer's `text/plain`: a code host shows it, and so
        does JupyterLab before the kernel runs, instead of the widget's own repr (`VBox(children=...`).
        """
        return (
            f"{self.source.description}. It is an interactive widget and needs a running kernel: run this cell "
            f"to use it. Without one, {self.source.static} gives a page with the same cases."
        )

    def __repr__(self) -> str:
        return f"<Explorer: {self.source.description}>"

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget's view for a live kernel, with `text` as its `text/plain`."""
        bundle = dict(self.widget._repr_mimebundle_(**kwargs))
        bundle["text/plain"] = self.text()
        return bundle


def explore(report: ReportLike) -> Explorer:
    """The explorer for a report (what `report.explore()` returns).

    Raises:
        ImportError: Without ipywidgets; the message names `pip install "structsim-nb[notebooks]"`.
    """
    _widgets()  # fail before any work when the extra is missing
    return Explorer(from_report(report))
