"""Charts of a report: which fields fail, how scores spread, what a stricter pass rule would do.

Why matplotlib, and how it is used here:

- A static image is the one chart format that renders everywhere a notebook is read: JupyterLab,
  a committed `.ipynb` on a code host, nbconvert HTML and the standalone report page, with no
  kernel and no network. JavaScript charting (plotly, bokeh, altair) needs its library loaded in
  the reader's browser, which a code host's notebook viewer does not do.
- The object-oriented API only: every function draws on the `Axes` it is given (`ax=`) or on a
  new `matplotlib.figure.Figure` it makes, and never touches pyplot's global state (no current
  figure, no figure registry, no `plt.show()`). That makes the functions safe on the Agg backend
  in a server or a test, in threads, and inside a caller's own `subplots` grid.
- A figure made here (no `ax=`; see `figures`) draws on `ReportAxes`, a plain `Axes` subclass whose only
  addition is `_repr_png_`, so the returned `Axes` shows as a picture when it is the last value
  of a notebook cell. A figure that pyplot does not know about would otherwise display as the
  text `<Axes: >`. Restyle it as any `Axes`; `ax.figure` is the `Figure` to save.

Shape (pandas / seaborn): data first, options keyword-only, `ax=None`, the `Axes` returned.
Reach them as `report.plot.fields()` and friends (`ReportPlots`), or call the module functions on
a report or on the frame they read (`fields(report.fields_frame())`).

Colours are the Okabe-Ito palette, which stays distinct under the common colour-vision
deficiencies; each kind of error also has its own legend entry.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._protocols import ReportLike
from . import whatif
from .bins import bin_counts, score_groups
from .figures import (
    COLOURS,
    ERROR_KINDS,
    figure_png,
    figure_svg,
    integer_locator,
    new_axes,
    percent_formatter,
)
from .forest import FOREST_COLUMNS, VERDICTS, forest

if TYPE_CHECKING:
    from matplotlib.axes import Axes


logger = logging.getLogger(__name__)

__all__ = [
    "COLOURS",
    "FOREST_COLUMNS",
    "PR_OFFSET",
    "VERDICTS",
    "ComparisonPlots",
    "ReportPlots",
    "fields",
    "figure_png",
    "figure_svg",
    "forest",
    "precision_recall",
    "scores",
    "threshold",
]


def _fields_frame(data: Any, evaluator: str | None) -> pd.DataFrame:
    if isinstance(data, pd.DataFrame):
        missing = {"path", "depth", "tp", "fn", "fa", "fd"} - set(data.columns)
        if missing:
            raise ValueError(
                "a fields frame must have the columns of report.fields_frame(); "
                f"it lacks {', '.join(sorted(missing))}. Pass the report or report.fields_frame()"
            )
        return data
    if hasattr(data, "fields_frame"):
        return data.fields_frame(evaluator=evaluator)
    raise TypeError(f"data must be a ReportLike or its fields_frame(); got {type(data).__name__}")


def _group_rules(ax: Axes, frame: pd.DataFrame) -> None:
    """A faint line between top-level groups, so children read as belonging to the row above."""
    for position, depth in enumerate(frame["depth"]):
        if position and int(depth) == 0:
            ax.axhline(position - 0.5, color="#DDDDDD", linewidth=0.8, zorder=0)


def fields(
    data: ReportLike | pd.DataFrame,
    *,
    ax: Axes | None = None,
    evaluator: str | None = None,
    normalize: bool = True,
    right: bool | None = None,
    top: int | None = None,
) -> Axes:
    """Per field path, the values missed, invented and wrong (and right), worst field on top.

    One horizontal stacked bar per row of `report.fields_frame()`, in its order: top-level fields
    worst first (f1), each followed by its children (in grey). Segments, left to right: missed
    (fn), invented (fa), wrong (fd), then right (tp) in a pale colour when drawn, so the errors
    start at zero and line up. Each bar ends with the field's error count: `12 of 300 (4.0%)`,
    out of the values compared (tp + fn + fa + fd; blank on both sides, tn, is not counted).

    Args:
        data: A report, or a frame shaped like `report.fields_frame()`.
        ax: Draw here. Default None: a new figure sized to the number of rows.
        evaluator: For a report with several evaluators, which one (as `fields_frame`).
        normalize: Bar lengths as a share of the values compared, so a field compared 4,000 times
            (a list element's child) reads on the scale of one compared 1,000 times. Default True.
            False: counts.
        right: Draw the right (tp) segment. Default None: only for counts (`normalize=False`),
            where it shows how many values each field had; with shares it would fill every bar.
        top: Only the first `top` rows (whole groups are not kept together). Default None: all.

    Returns:
        The `Axes`. Its bar containers are labelled `missed (fn)`, `invented (fa)`, `wrong (fd)`
        (and `right (tp)`), one bar per field in the frame's order. A field with nothing compared
        has zero-length bars.

    Raises:
        ValueError: If the frame lacks the count columns, or has no rows.
    """
    frame = _fields_frame(data, evaluator)
    if top is not None:
        frame = frame.head(top)
    if frame.empty:
        raise ValueError("there are no field rows to draw; the report scored no fields")
    if right is None:
        right = not normalize
    if ax is None:
        ax = new_axes(8.0, 1.3 + 0.34 * len(frame))
    errors = frame["fn"] + frame["fa"] + frame["fd"]
    compared = (errors + frame["tp"]).astype(float)
    scale = compared.where(compared > 0, 1.0) if normalize else pd.Series(1.0, index=frame.index)
    positions = list(range(len(frame)))
    left = pd.Series(0.0, index=frame.index)
    kinds = [*ERROR_KINDS, *((("right", "tp"),) if right else ())]
    for kind, column in kinds:
        values = frame[column].astype(float) / scale
        ax.barh(positions, values, left=left, color=COLOURS[kind], label=f"{kind} ({column})", height=0.7)
        left = left + values
    end = float(left.max()) or 1.0
    for position, (error_count, total, length) in enumerate(zip(errors, compared, left, strict=True)):
        share = f" ({error_count / total:.1%})" if total else " (nothing compared)"
        ax.text(
            float(length) + end * 0.01,
            position,
            f"{int(error_count)} of {int(total)}{share}",
            va="center",
            fontsize=8,
            color="#444444",
        )
    ax.set_yticks(positions, [str(path) for path in frame["path"]], fontsize=9)
    for label, depth in zip(ax.get_yticklabels(), frame["depth"], strict=True):
        if int(depth):
            label.set_color("#666666")
    ax.invert_yaxis()
    ax.set_xlim(0, end * 1.3)
    if normalize:
        ax.xaxis.set_major_formatter(percent_formatter())
        ax.set_xlabel("share of the values compared" + ("" if right else " that were missed, invented or wrong"))
    else:
        ax.set_xlabel("values compared" if right else "values missed, invented or wrong")
    ax.set_title("Where the errors are, worst field first", loc="left", fontsize=11, pad=22)
    _group_rules(ax, frame)
    ax.legend(
        loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8, frameon=False, ncols=len(kinds), borderaxespad=0.2
    )
    ax.spines[["top", "right"]].set_visible(False)
    logger.debug("rows=<%d>, normalize=<%s>, right=<%s> | drew fields chart", len(frame), normalize, right)
    return ax


def scores(
    data: ReportLike | pd.DataFrame,
    *,
    ax: Axes | None = None,
    evaluator: str | None = None,
    match_threshold: float | None = 0.7,
    bins: int = 20,
) -> Axes:
    """How case scores spread, stacked by outcome, with the pass threshold marked.

    Args:
        data: A report, or a frame shaped like `report.cases_frame()` (needs `status`, `score`,
            `test_pass`).
        ax: Draw here. Default None: a new figure.
        evaluator: Keep only this evaluator's rows (as `cases_frame`). Default None: all rows.
        match_threshold: Where to draw the pass line. Default 0.7 (the evaluator's default);
            None draws no line. A case passes on score *and* recall, so a failed case can sit
            right of the line: its recall fell short.
        bins: Equal-width bins over [0, 1]. Default 20.

    Returns:
        The `Axes`. Its bar containers are labelled `passed (n)`, `failed (n)` and `not scored (n)`
        (unreadable or error rows, score 0), in that stacking order, each only when it has cases;
        a bin is closed on the left, so a case exactly on the pass line counts right of it.
        Not-applicable rows and other evaluators' rows are left out.
    """
    cases = data if isinstance(data, pd.DataFrame) else data.cases_frame(evaluator=evaluator)
    groups = score_groups(cases)
    if ax is None:
        ax = new_axes(5.9, 3.4)
    edges = [index / bins for index in range(bins + 1)]
    bottom = np.zeros(bins)
    for name, values in groups.items():
        counts = bin_counts(values, bins)
        if not counts.sum():
            continue
        ax.bar(
            edges[:-1],
            counts,
            width=1 / bins,
            bottom=bottom,
            align="edge",
            color=COLOURS[name],
            label=f"{name} ({len(values):,})",
            edgecolor="white",
            linewidth=0.5,
        )
        bottom = bottom + counts
    for left_edge, total in zip(edges[:-1], bottom, strict=True):
        if total:
            ax.text(
                left_edge + 0.5 / bins, total, f"{int(total):,}", ha="center", va="bottom", fontsize=7, color="#444444"
            )
    if match_threshold is not None:
        ax.axvline(match_threshold, color="#222222", linestyle="--", linewidth=1)
        ax.text(
            match_threshold,
            1.0,
            f" pass line {match_threshold:g}",
            transform=ax.get_xaxis_transform(),
            va="top",
            ha="left",
            fontsize=8,
        )
    ax.set_xlim(0, 1)
    # Headroom over the tallest bar for its count and the pass line's label.
    ax.set_ylim(0, max(float(np.max(bottom)), 1.0) * 1.2)
    ax.set_xlabel("case score")
    ax.set_ylabel("cases")
    ax.yaxis.set_major_locator(integer_locator())
    shown = sum(len(values) for values in groups.values())
    ax.set_title(f"Score distribution ({shown:,} cases)", loc="left", fontsize=11, pad=22)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8, frameon=False, ncols=3, borderaxespad=0.2)
    ax.spines[["top", "right"]].set_visible(False)
    return ax


#: How far above (precision) and below (recall) its row each dot sits, so equal values both show.
PR_OFFSET = 0.14


def precision_recall(
    data: ReportLike | pd.DataFrame,
    *,
    ax: Axes | None = None,
    evaluator: str | None = None,
    top: int | None = None,
    zoom: bool = True,
) -> Axes:
    """Precision and recall per field path: two dots a row, worst field on top.

    Precision falls with invented and wrong values (fa and fd count against it, as in stickler);
    recall falls with missed values (fn). A ratio with nothing to count (a field blank on both
    sides everywhere) has no dot and the row reads `n/a`.

    Args:
        data: A report, or a frame shaped like `report.fields_frame()`.
        ax: Draw here. Default None: a new figure sized to the number of rows.
        evaluator: For a report with several evaluators, which one.
        top: Only the first `top` rows. Default None: all.
        zoom: Start the axis just below the lowest value (at a multiple of 0.05) so close values
            stay apart. Default True. False: 0 to 1.

    Returns:
        The `Axes`. Two point collections labelled `precision` and `recall`; a field's row is its
        position in the frame (0 at the top), precision drawn `PR_OFFSET` above it and recall below.
    """
    frame = _fields_frame(data, evaluator)
    if top is not None:
        frame = frame.head(top)
    if frame.empty:
        raise ValueError("there are no field rows to draw; the report scored no fields")
    if ax is None:
        ax = new_axes(5.9, 1.3 + 0.3 * len(frame))
    known_values = pd.concat([frame["precision"], frame["recall"]]).astype(float).dropna()
    low = 0.0
    if zoom and len(known_values):
        low = max(0.0, math.floor(float(known_values.min()) * 20 - 1e-9) / 20 - 0.05)
    positions = list(range(len(frame)))
    for position, (p, r) in enumerate(zip(frame["precision"], frame["recall"], strict=True)):
        known = [v for v in (p, r) if not pd.isna(v)]
        if len(known) == 2:
            ax.plot([p, r], [position - PR_OFFSET, position + PR_OFFSET], color="#BBBBBB", linewidth=1.5, zorder=1)
        if not known:
            ax.text(
                (low + 1.0) / 2,
                position,
                "n/a (blank on both sides)",
                va="center",
                ha="center",
                fontsize=8,
                color="#666666",
            )
    for name, marker, shift in (("precision", "o", -PR_OFFSET), ("recall", "s", PR_OFFSET)):
        values = frame[name].astype(float)
        shown = values.notna()
        ax.scatter(
            values[shown],
            [p + shift for p, s in zip(positions, shown, strict=True) if s],
            marker=marker,
            s=36,
            color=COLOURS[name],
            label=name,
            zorder=2,
        )
    ax.set_yticks(positions, [str(path) for path in frame["path"]], fontsize=9)
    for label, depth in zip(ax.get_yticklabels(), frame["depth"], strict=True):
        if int(depth):
            label.set_color("#666666")
    ax.invert_yaxis()
    pad = (1.0 - low) * 0.02
    ax.set_xlim(low - pad, 1.0 + pad)
    ax.set_xlabel("precision: lowered by invented and wrong values\nrecall: lowered by missed values")
    ax.set_title("Precision and recall per field", loc="left", fontsize=11, pad=22)
    _group_rules(ax, frame)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8, frameon=False, ncols=2, borderaxespad=0.2)
    ax.grid(axis="x", color="#EEEEEE")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


def threshold(
    data: ReportLike | pd.DataFrame,
    *,
    ax: Axes | None = None,
    evaluator: str | None = None,
    match_threshold: float = 0.7,
    thresholds: Sequence[float] | None = None,
) -> Axes:
    """What-if: the pass rate as `match_threshold` moves, from the scores already in the report.

    Draws `whatif.pass_rates` (see there for the rule): the pass rate under the full rule (score
    and recall at least the threshold), the rate on the score alone (dashed), and a dot at the
    threshold the report was scored with, where the curve must meet the report's own pass rate.

    What it can predict: how many of these cases would pass if only the pass bar moved, which is
    exact at the threshold the cases were scored with and answers "how strict is this bar".
    What it cannot: the outcome of rescoring at another threshold. `match_threshold` also decides
    which list elements pair up (an element below it becomes one wrong value) and so changes the
    scores and recall of documents with lists; those are held as scored here. Per-field thresholds
    set in the schema do not move, and rows of other evaluators (json_match, `Equals`) follow
    their own rules and are left out.

    Args:
        data: A report, or a frame shaped like `report.cases_frame()` for one evaluator.
        ax: Draw here. Default None: a new figure.
        evaluator: Which evaluator's rows. Default None: the report's one similarity evaluator.
        match_threshold: The threshold the report was scored with. Default 0.7 (the default).
        thresholds: The thresholds to evaluate. Default None: 0.00 to 1.00 in steps of 0.01.

    Returns:
        The `Axes`; its lines are labelled `score and recall` and `score only`.
    """
    cases = data if isinstance(data, pd.DataFrame) else whatif.similarity_cases(data, evaluator=evaluator)
    rates = whatif.pass_rates(cases, thresholds=thresholds)
    predicted = whatif.pass_rates(cases, thresholds=[match_threshold]).iloc[0]
    applicable = cases[cases["status"].isin(whatif.APPLICABLE)]
    recorded = float(applicable["test_pass"].astype(bool).mean()) if len(applicable) else math.nan
    if ax is None:
        ax = new_axes(5.9, 3.4)
    # A case passes at t when its score is at least t: the rate holds from one grid point to the next.
    ax.plot(
        rates["threshold"],
        rates["pass_rate"],
        color=COLOURS["passed"],
        linewidth=2,
        label="score and recall",
        drawstyle="steps-post",
    )
    ax.plot(
        rates["threshold"],
        rates["score_only_rate"],
        color="#555555",
        linestyle="--",
        linewidth=1,
        label="score only",
        drawstyle="steps-post",
    )
    ax.scatter([match_threshold], [recorded], color="#222222", zorder=3, s=30, label="as scored")
    note = f"as scored at {match_threshold:g}: {recorded:.1%} pass"
    if not math.isclose(recorded, float(predicted["pass_rate"]), abs_tol=1e-9):
        # The recorded outcome is off the curve: the report was scored with another bar.
        note += f"\n(the rule gives {predicted['pass_rate']:.1%}: scored at another match_threshold?)"
        logger.warning(
            "match_threshold=<%s>, recorded=<%.4f>, predicted=<%.4f> | the report's pass/fail does not follow "
            "this threshold; pass the one it was scored with",
            match_threshold,
            recorded,
            predicted["pass_rate"],
        )
    ax.annotate(note, (match_threshold, recorded), xytext=(8, -14), textcoords="offset points", fontsize=8, va="top")
    ax.set_xlim(0, 1)
    ax.set_ylim(-0.02, 1.04)
    ax.yaxis.set_major_formatter(percent_formatter())
    ax.set_xlabel("match_threshold (pass bar)")
    ax.set_ylabel("cases passing")
    ax.set_title(f"Pass rate if the bar moved ({int(predicted['cases'])} cases, scores held)", loc="left", fontsize=11)
    ax.legend(loc="lower left", fontsize=8, frameon=False)
    ax.grid(color="#EEEEEE")
    ax.spines[["top", "right"]].set_visible(False)
    return ax


class ReportPlots:
    """The charts of one report, as `report.plot.<chart>()` (like pandas' `DataFrame.plot`).

    Each method calls the module function of the same name on the report; see those for the
    arguments. Every method returns the `Axes` it drew on.

    Examples:
        >>> from structsim_nb.demo import run_reference
        >>> ax = run_reference().plot.fields()
        >>> [container.get_label() for container in ax.containers]
        ['missed (fn)', 'invented (fa)', 'wrong (fd)']
    """

    def __init__(self, report: ReportLike) -> None:
        self._report = report

    def fields(self, **kwargs: Any) -> Axes:
        """Errors per field path, worst first; see `structsim_nb.plot.fields`."""
        return fields(self._report, **kwargs)

    def scores(self, **kwargs: Any) -> Axes:
        """The score distribution by outcome; see `structsim_nb.plot.scores`."""
        return scores(self._report, **kwargs)

    def precision_recall(self, **kwargs: Any) -> Axes:
        """Precision and recall per field; see `structsim_nb.plot.precision_recall`."""
        return precision_recall(self._report, **kwargs)

    def threshold(self, **kwargs: Any) -> Axes:
        """The pass rate as the pass bar moves; see `structsim_nb.plot.threshold`."""
        return threshold(self._report, **kwargs)


class ComparisonPlots:
    """The charts of a comparison of two runs, as `comparison.plot.<chart>()`.

    Examples:
        >>> from structsim_nb import compare
        >>> from structsim_nb.demo import run_reference
        >>> ax = compare(run_reference(), run_reference()).plot.fields()
        >>> ax.get_xlabel()
        'difference in field score (candidate minus baseline)'
    """

    def __init__(self, comparison: Any) -> None:
        self._comparison = comparison

    def fields(self, *, top: int | None = None, **kwargs: Any) -> Axes:
        """Per-field differences with their confidence intervals (a forest plot); see `structsim_nb.plot.forest`.

        Args:
            top: Draw only the first `top` fields (most negative difference first). Default None: every
                field that has a difference.
            **kwargs: Passed to `forest` (`ax`, `title`, `xlabel`).
        """
        frame = self._comparison.fields_frame().dropna(subset=["delta"])
        return forest(frame if top is None else frame.head(top), **kwargs)
