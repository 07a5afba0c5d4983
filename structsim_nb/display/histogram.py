"""The score distribution as the page's own HTML: stacked bars by outcome, a bar per score bin, each a filter.

`structsim_nb.plot.scores` draws the same bins with matplotlib, for notebooks and the report page.
The `evaluate` page draws them here instead, as HTML and CSS, for three reasons:

- **Cost.** matplotlib takes 0.1-0.2 s to lay out and write one chart, whatever the number of runs:
  as long as scoring 1,000 saved answers with `static_json`. This takes about a millisecond.
- **Explore.** Each bar is a button: it filters the page's runs table to the runs in its bin (the
  table's `filterRange`, in `assets/page.js`), and its tooltip gives the bin's counts by outcome.
- **Read.** The text is the page's own (its font, selectable, sharp at any zoom); the colours are
  `plot.COLOURS`, so the chart matches the matplotlib ones.

The bins are `structsim_nb.plot.bins`: the same cases land in the same bins as in `plot.scores`.
"""

from __future__ import annotations

import html
import json

import pandas as pd

from ..plot.bins import DRAWN_STATUSES, OUTCOMES, bin_counts, score_groups
from ..plot.figures import COLOURS

__all__ = ["compact_count", "score_histogram"]

#: Where the axis is labelled, as fractions of [0, 1].
_TICKS = (0.0, 0.25, 0.5, 0.75, 1.0)


def compact_count(count: int) -> str:
    """A count in at most four characters, for the label over a bar: 999, 4.8k, 12k, 1.2M (the exact count
    is in the bar's tooltip).

    Examples:
        >>> [compact_count(n) for n in (7, 999, 1000, 4_789, 9_960, 12_345, 999_999, 1_250_000)]
        ['7', '999', '1k', '4.8k', '10k', '12k', '1M', '1.2M']
    """
    if count < 1000:
        return str(count)
    for size, suffix in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "G")):
        if round(count / size, 1) < 10:
            return f"{count / size:.1f}".removesuffix(".0") + suffix
        if round(count / size) < 1000:
            return f"{round(count / size)}{suffix}"
    return f"{round(count / 1_000_000_000)}G"


def _bin_label(index: int, bins: int) -> str:
    low, high = index / bins, (index + 1) / bins
    return f"{low:.2f} to {high:.2f}" + (" (both included)" if index == bins - 1 else "")


def score_histogram(
    cases: pd.DataFrame,
    *,
    bins: int = 20,
    noun: tuple[str, str] = ("case", "cases"),
    title: str = "Score distribution",
    caption: str | None = None,
    table: str | None = None,
    column: str = "score",
    status_column: str = "status",
) -> str:
    """How scores spread, stacked by outcome (passed, failed, not scored), as a `<figure>` of HTML bars.

    Args:
        cases: A frame shaped like `report.cases_frame()`: `status`, `score`, `test_pass`. Rows whose
            status is none of scored, unreadable and error are left out; a blank score counts at 0.
        bins: Equal-width bins over [0, 1], each closed on the left, the last also on the right (see
            `plot.bins.bin_index`). Default 20. Must be at least 1.
        noun: The singular and plural for the title and tooltips. Default ("case", "cases").
        title: The chart's title; the count of what it shows is added. Default "Score distribution".
        caption: A line under the chart. Default None.
        table: The `id` of a table on the same page (`page.table`'s `anchor`) that a click on a bar
            filters to the rows in its bin, by the column `column` (a second click, or the chip the
            table then shows, lists every row again). When `cases` holds rows the chart leaves out (not
            applicable), the filter also keeps to the statuses it draws, by `status_column`, if the
            table has that column. Default None: the bars are not buttons.
        column: The table's score column. Default "score".
        status_column: The table's status column. Default "status".

    Returns:
        The HTML, styled by the page's stylesheet (`.ss-hist`). Each non-empty bar has a tooltip with
        its bin and its counts by outcome; every bar is as tall as its count over the tallest bar's,
        with the count above it (`compact_count`; left out on screens under 520 px wide). Empty string
        when no row is left to show.

    Raises:
        ValueError: If `bins` is less than 1.
    """
    if bins < 1:
        raise ValueError(f"bins must be a whole number of at least 1; got {bins!r}. Pass bins=20, say")
    groups = score_groups(cases)
    shown = sum(len(values) for values in groups.values())
    if not shown:
        return ""
    counts = {name: [int(count) for count in bin_counts(values, bins)] for name, values in groups.items()}
    totals = [sum(counts[name][at] for name in OUTCOMES) for at in range(bins)]
    tallest = max(totals)
    singular, plural = (html.escape(word, quote=True) for word in noun)
    drawn_only = bool((~cases["status"].isin(DRAWN_STATUSES)).any())
    bars = []
    for at, total in enumerate(totals):
        if not total:
            bars.append("<span class='ss-hist-bin' aria-hidden='true'></span>")
            continue
        parts = [f"{counts[name][at]:,} {name}" for name in OUTCOMES if counts[name][at]]
        label = f"{_bin_label(at, bins)}: {total:,} {noun[0] if total == 1 else noun[1]} ({', '.join(parts)})"
        segments = "".join(
            f"<i style='flex-grow:{counts[name][at]};background:{COLOURS[name]}'></i>"
            for name in OUTCOMES
            if counts[name][at]
        )
        body = (
            f"<span class='ss-hist-stack' style='height:{100 * total / tallest:.2f}%'>"
            f"<span class='ss-hist-count'>{compact_count(total)}</span>{segments}</span>"
        )
        escaped = html.escape(label, quote=True)
        if table is None:
            bars.append(f"<span class='ss-hist-bin' title='{escaped}' role='img' aria-label='{escaped}'>{body}</span>")
        else:
            spec: dict[str, object] = {"table": table, "column": column, "bin": at, "bins": bins}
            if drawn_only:
                spec.update(statusColumn=status_column, statuses=list(DRAWN_STATUSES))
            target = html.escape(json.dumps(spec), quote=True)
            bars.append(
                f"<button type='button' class='ss-hist-bin' aria-pressed='false' data-ss-range='{target}' "
                f"title='{escaped}; click to list them' "
                f"aria-label='{escaped}; show these {plural} in the table'>{body}</button>"
            )
    legend = "".join(
        f"<li><i style='background:{COLOURS[name]}'></i>{name} ({len(groups[name]):,})</li>"
        for name in OUTCOMES
        if len(groups[name])
    )
    ticks = "".join(f"<span style='left:{100 * tick:g}%'>{tick:g}</span>" for tick in _TICKS)
    caption_html = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
    return (
        f"<figure class='ss-hist'><div class='ss-hist-title'>{html.escape(title)} ({shown:,} "
        f"{singular if shown == 1 else plural})</div><ul class='ss-hist-legend'>{legend}</ul>"
        f"<div class='ss-hist-plot'>{''.join(bars)}</div><div class='ss-hist-axis'>{ticks}</div>"
        f"<div class='ss-hist-xlabel'>{singular} score</div>{caption_html}</figure>"
    )
