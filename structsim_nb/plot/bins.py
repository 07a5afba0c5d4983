"""Score bins: which outcome each case has and which of the equal bins over [0, 1] its score falls in.

Shared by the matplotlib chart (`structsim_nb.plot.scores`) and the page's own histogram
(`structsim_nb.display.histogram`), so a case lands in the same bin in both. No matplotlib here.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["DRAWN_STATUSES", "OUTCOMES", "bin_counts", "bin_index", "score_groups"]

#: The outcomes in stacking order, bottom first.
OUTCOMES = ("passed", "failed", "not scored")
#: The case statuses a score chart draws; the rest (not applicable) are left out.
DRAWN_STATUSES = ("scored", "unreadable", "error")

#: Added before rounding down, so a score a float's rounding puts a hair under a bin edge (0.7 * 20 is
#: 13.999999999999998) lands in the bin the edge opens. The page's script adds the same.
EDGE_SLACK = 1e-9


def score_groups(cases: pd.DataFrame) -> dict[str, pd.Series]:
    """Scores by outcome, in `OUTCOMES` order: passed, failed (scored), not scored (unreadable or error).

    Rows of another status (not applicable) are left out. `cases` needs the columns `status`,
    `score` and `test_pass`, as `report.cases_frame()` has them.
    """
    applicable = cases[cases["status"].isin(DRAWN_STATUSES)]
    scored = applicable["status"] == "scored"
    passed = applicable["test_pass"].astype(bool)
    return {
        "passed": applicable.loc[scored & passed, "score"].astype(float),
        "failed": applicable.loc[scored & ~passed, "score"].astype(float),
        "not scored": applicable.loc[~scored, "score"].astype(float),
    }


def bin_index(values: pd.Series, bins: int) -> np.ndarray:
    """Each score's bin among `bins` equal bins over [0, 1]: closed on the left ([0.70, 0.75)), the last
    also on the right, so a case exactly on the pass line lands right of it, as it passes.

    Scores outside [0, 1] count in the end bins; a blank (NaN) or infinite score counts at 0, as the
    page's script counts JSON's null (the page writes an infinity as null).
    """
    scores = values.to_numpy(dtype=float, na_value=np.nan)  # (pandas' nullable floats hold NA, not NaN)
    scores = np.clip(np.where(np.isfinite(scores), scores, 0.0), 0.0, 1.0)
    return np.clip(np.floor(scores * bins + EDGE_SLACK), 0, bins - 1).astype(int)


def bin_counts(values: pd.Series, bins: int) -> np.ndarray:
    """How many of `values` fall in each of `bins` equal bins over [0, 1] (see `bin_index`), as floats."""
    return np.bincount(bin_index(values, bins), minlength=bins).astype(float)
