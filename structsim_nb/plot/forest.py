"""A forest plot: per-field differences between two runs with their confidence intervals.

Generic over where the frame comes from: a comparison of two runs (`compare`) builds it, one row
per field with `FOREST_COLUMNS`. Reach it as `structsim_nb.plot.forest`.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import pandas as pd

from .figures import COLOURS, new_axes

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["FOREST_COLUMNS", "VERDICTS", "forest"]

#: The verdicts `forest` colours.
VERDICTS = ("better", "worse", "no evidence")
#: The columns `forest` needs.
FOREST_COLUMNS = ("path", "delta", "ci_low", "ci_high", "verdict", "n_cases")


def forest(
    frame: pd.DataFrame,
    *,
    ax: Axes | None = None,
    title: str | None = None,
    xlabel: str = "difference in field score (candidate minus baseline)",
) -> Axes:
    """Per-field differences between two runs with their confidence intervals (a forest plot).

    One row per field, in the frame's order, top to bottom: a dot at `delta` (candidate minus
    baseline), a line from `ci_low` to `ci_high`, coloured by `verdict` (`better` green, `worse`
    vermillion, `no evidence` grey), and the number of cases the difference rests on at the right.
    A dashed line marks zero (no difference).

    Args:
        frame: One row per field with `FOREST_COLUMNS`: `path`, `delta`, `ci_low`, `ci_high`,
            `verdict` and `n_cases`. A NaN interval draws the dot alone; a NaN delta reads "no estimate".
        ax: Draw here. Default None: a new figure sized to the number of rows.
        title: Axes title. Default: "Candidate minus baseline, per field".
        xlabel: What `delta` measures. Default: a difference in field score.

    Returns:
        The `Axes`: one point collection per verdict present (labelled with the verdict), one
        interval line per row with a finite interval (in row order).

    Raises:
        ValueError: If a column is missing, the frame is empty, or a verdict is not one of
            `better`, `worse`, `no evidence`.
    """
    missing = [column for column in FOREST_COLUMNS if column not in frame.columns]
    if missing:
        raise ValueError(
            f"forest needs a frame with the columns {', '.join(FOREST_COLUMNS)}; it lacks {', '.join(missing)}"
        )
    if frame.empty:
        raise ValueError("forest needs at least one row; the frame is empty")
    unknown = sorted(set(map(str, frame["verdict"])) - set(VERDICTS))
    if unknown:
        raise ValueError(f"verdict must be one of {', '.join(VERDICTS)}; got {', '.join(map(repr, unknown))}")
    if ax is None:
        ax = new_axes(7.5, 1.2 + 0.34 * len(frame))
    positions = list(range(len(frame)))
    for position, row in zip(positions, frame.itertuples(index=False), strict=True):
        low, high = float(row.ci_low), float(row.ci_high)
        if math.isfinite(low) and math.isfinite(high):
            ax.plot(
                [low, high],
                [position, position],
                color=COLOURS[str(row.verdict)],
                linewidth=2,
                solid_capstyle="butt",
                zorder=1,
            )
    for verdict in VERDICTS:
        chosen = [
            (p, float(d))
            for p, d, v in zip(positions, frame["delta"], frame["verdict"], strict=True)
            if v == verdict and math.isfinite(float(d))
        ]
        if chosen:
            ax.scatter(
                [d for _, d in chosen],
                [p for p, _ in chosen],
                color=COLOURS[verdict],
                s=40,
                zorder=2,
                label=verdict,
                edgecolor="white",
                linewidth=0.8,
            )
    for position, delta in zip(positions, frame["delta"], strict=True):
        if not math.isfinite(float(delta)):
            ax.text(0.0, position, "  no estimate", va="center", ha="left", fontsize=8, color="#666666")
    ax.axvline(0.0, color="#222222", linestyle="--", linewidth=0.9, zorder=0)
    ax.set_yticks(positions, [str(path) for path in frame["path"]], fontsize=9)
    ax.set_ylim(len(frame) - 0.5, -0.5)
    counts = ax.secondary_yaxis("right")
    counts.set_yticks(positions, [f"n={int(n)}" for n in frame["n_cases"]], fontsize=8)
    counts.tick_params(length=0)
    ax.set_xlabel(xlabel)
    ax.set_title(title or "Candidate minus baseline, per field", loc="left", fontsize=11, pad=22)
    ax.legend(loc="lower left", bbox_to_anchor=(0.0, 1.0), fontsize=8, frameon=False, ncols=3, borderaxespad=0.2)
    ax.grid(axis="x", color="#EEEEEE")
    ax.spines[["top"]].set_visible(False)
    return ax
