"""The explorer for a comparison: pick a case and see both runs side by side.

It feeds the report explorer (`structsim_nb.display.explore.Explorer`) a comparison's cases and
changed field values, so both explorers look and behave alike. A case's detail shows its score,
pass and reason in each run, the field values that appeared, were fixed or changed, and, when the
runs came as reports or report files, the truth beside each run's prediction with the failing paths
highlighted (the report page's view of the case).
"""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from ..display.explore import Explorer
    from .core import Comparison

__all__ = ["CHANGES", "explore"]

#: What happened to a field value between the runs: the kind filter's choices.
CHANGES = ("appeared", "fixed", "changed")
#: How the cases are ordered: broken first, then by how far the score fell.
_FLIP_ORDER = {"broken": 0, "fixed": 2}


def _outcome(row: pd.Series) -> str:
    if isinstance(row["flip"], str) and row["flip"]:
        return str(row["flip"])
    if row["run"] != "both":
        return f"only {row['run']}" if not str(row["run"]).startswith("only") else str(row["run"])
    delta = row["delta"]
    if pd.isna(delta) or delta == 0:
        return "unchanged"
    return "worse" if delta < 0 else "better"


def _cases(comparison: Comparison) -> pd.DataFrame:
    cases = comparison.cases_frame().reset_index(drop=True)
    cases["row"] = range(len(cases))
    cases["outcome"] = cases.apply(_outcome, axis=1)
    cases["errors"] = cases[["appeared", "fixed", "changed"]].fillna(0).sum(axis=1).astype(int)
    cases["score"] = cases["score_after"].fillna(cases["score_before"])
    cases["passed"] = cases["pass_after"].fillna(False).astype(bool)
    order = cases["outcome"].map(lambda outcome: _FLIP_ORDER.get(outcome, 1))
    ranked = cases.assign(_order=order, _delta=cases["delta"].fillna(0)).sort_values(
        ["_order", "_delta", "errors"], ascending=[True, True, False], kind="stable"
    )
    return ranked.drop(columns=["_order", "_delta"]).reset_index(drop=True)


def _failures(comparison: Comparison, rows: dict[str, int]) -> pd.DataFrame:
    changes = comparison.non_matches_frame()
    frame = pd.DataFrame(
        {
            "row": changes["case"].map(rows),
            "case": changes["case"],
            "path": changes["path"],
            "field": changes["path"].str.replace(r"\[\d+\]", "", regex=True),
            "kind": changes["change"],
            "expected": changes["expected"],
            "predicted": changes["predicted_after"].where(
                changes["predicted_after"].notna(), changes["predicted_before"]
            ),
            "similarity": float("nan"),
        }
    )
    return frame.dropna(subset=["row"]).astype({"row": int})


def _side(report: Any, evaluator: str) -> dict[str, int]:
    """Case name -> position in `report.cases_frame()` for `evaluator`'s rows."""
    if report is None:
        return {}
    cases = report.cases_frame()
    return {
        str(name): position for position, name in enumerate(cases["case"]) if cases["evaluator"][position] == evaluator
    }


def explore(comparison: Comparison, baseline_report: Any = None, candidate_report: Any = None) -> Explorer:
    """The explorer for `comparison` (what `comparison.explore()` returns).

    Args:
        comparison: The comparison.
        baseline_report, candidate_report: The runs' reports, for the truth-beside-prediction view of
            each case. Default None: the detail shows scores, reasons and changed values only.

    Raises:
        ImportError: Without ipywidgets; the message names `pip install "structsim-nb[notebooks]"`.
    """
    from ..display import page
    from ..display.case_view import case_details
    from ..display.explore import Explorer, ExploreSource, _widgets

    _widgets()  # fail before any work when the extra is missing
    summary = comparison.summary()
    cases = _cases(comparison)
    rows = {str(name): int(row) for name, row in zip(cases["case"], cases["row"], strict=True)}
    failures = _failures(comparison, rows)
    changes = comparison.non_matches_frame()
    evaluator = str(summary["evaluator"])
    sides = [
        (label, report, _side(report, evaluator))
        for label, report in (("baseline", baseline_report), ("candidate", candidate_report))
    ]

    def render(row: int) -> str:
        case = cases.loc[cases["row"] == row].iloc[0]
        name = str(case["case"])
        head = (
            f"<h3>{html.escape(name)} <span class='ss-badge {html.escape(str(case['outcome']).replace(' ', '-'))}'>"
            f"{html.escape(str(case['outcome']))}</span></h3>"
            "<table class='ss-static'><thead><tr><th></th><th>baseline</th><th>candidate</th></tr></thead><tbody>"
            + "".join(
                f"<tr><th>{label}</th><td>{html.escape(_text(case[before]))}</td>"
                f"<td>{html.escape(_text(case[after]))}</td></tr>"
                for label, before, after in (
                    ("score", "score_before", "score_after"),
                    ("passed", "pass_before", "pass_after"),
                    ("status", "status_before", "status_after"),
                    ("reason", "reason_before", "reason_after"),
                )
            )
            + "</tbody></table>"
        )
        changed = changes[changes["case"] == name]
        columns = [
            page.Column("path", kind="path"),
            page.Column("change", kind="badge"),
            page.Column("kind_before", label="before", kind="badge"),
            page.Column("kind_after", label="after", kind="badge"),
            page.Column("expected", kind="json"),
            page.Column("predicted_before", label="predicted before", kind="json"),
            page.Column("predicted_after", label="predicted after", kind="json"),
        ]
        body = head + (
            f"<h4>Field values that changed ({len(changed)})</h4>" + page.static_table(changed, columns)
            if len(changed)
            else "<p class='ss-muted'>No field value changed between the runs.</p>"
        )
        details = {
            label: case_details(report, [positions[name]])[0]
            for label, report, positions in sides
            if report is not None and name in positions
        }
        if details:
            body += _documents(details)
            body += _field_scores(details)
        return f"<div class='ss'>{body}</div>"

    title = (
        f"{summary['candidate']} against {summary['baseline']}: {summary['compared']:,} cases compared, "
        f"{summary['fixed']} fixed, {summary['broken']} broken; cases are listed broken first, then by how far "
        "their score fell"
    )
    description = (
        f"structsim-nb comparison explorer ({summary['candidate']} against {summary['baseline']}: "
        f"{summary['compared']:,} cases compared, {summary['fixed']} fixed, {summary['broken']} broken): pick a case "
        "to see both runs side by side, or a field to see every case where its value changed"
    )
    source = ExploreSource(
        cases=cases[["row", "case", "outcome", "score", "passed", "errors"]],
        failures=failures,
        render=render,
        title=title,
        kinds=CHANGES,
        outcome_label="change",
        description=description,
        static="comparison.to_html()",
    )
    return Explorer(source)


def _documents(details: dict[str, Any]) -> str:
    """Truth beside each run's prediction, the failing paths of each highlighted (truth: the candidate's)."""
    from ..display import page

    truth_from = details.get("candidate") or details["baseline"]
    panes = [("truth (expected)", truth_from.truth, truth_from.marks["truth"])]
    panes += [
        (f"{label} prediction", detail.prediction, detail.marks["prediction"]) for label, detail in details.items()
    ]
    cells = "".join(
        f"<div class='ss-pane'><h4>{html.escape(title)}</h4>{page.json_html(value, marks)}</div>"
        for title, value, marks in panes
    )
    return f"<h4>Truth beside each run's prediction</h4><div class='ss-panes'>{cells}</div>"


def _field_scores(details: dict[str, Any]) -> str:
    """Each top-level field's score in each run, as one table."""
    from ..display import page

    fields = list(dict.fromkeys(f for detail in details.values() for f in (detail.field_scores or {})))
    if not fields:
        return ""
    frame = pd.DataFrame(
        {"field": fields, **{label: [d.field_scores.get(f) for f in fields] for label, d in details.items()}}
    )
    columns = [page.Column("field", kind="path"), *(page.Column(label, kind="score") for label in details)]
    return "<h4>Field scores</h4>" + page.static_table(frame, columns)


def _text(value: Any) -> str:
    if hasattr(value, "item") and not isinstance(value, str):  # numpy scalars
        value = value.item()
    if value is None or (isinstance(value, float) and pd.isna(value)):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)
