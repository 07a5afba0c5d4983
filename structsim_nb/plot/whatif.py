"""Pass-rule what-if: how many cases would pass at another `match_threshold`, without rescoring.

`StructuredOutputSimilarity` passes a case when its score reaches `match_threshold` *and* it found
what there was to find: recall at least `match_threshold`, or, when the ground truth had nothing to
find (tp + fn + fd == 0), nothing was invented (fa == 0). The rule is the upstream `_passed`. Every
input it reads (score, recall, the counts) is on each row of `report.cases_frame()`, so the pass
rate can be recomputed at any threshold from the report alone.

What that predicts and what it does not is stated once, on `pass_rates`.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from .._protocols import ReportLike

__all__ = ["pass_rates", "passes", "similarity_cases"]

#: The statuses a what-if counts: scored rows, and rows that could not be scored (they fail at any bar).
APPLICABLE = ("scored", "unreadable", "error")


def similarity_cases(report: ReportLike, *, evaluator: str | None = None) -> pd.DataFrame:
    """The rows of `report.cases_frame()` that `StructuredOutputSimilarity`'s pass rule decided.

    Args:
        report: The report.
        evaluator: Which evaluator. Default None: the report's one `StructuredOutputSimilarity`
            evaluator.

    Returns:
        `cases_frame(evaluator=...)`: scored, unreadable, error and not-applicable rows of that evaluator.

    Raises:
        ValueError: If the report has no such evaluator, or several and `evaluator` is None.
    """
    names = report.similarity_evaluators()
    if evaluator is None:
        if len(names) != 1:
            found = ", ".join(sorted(names)) or "none"
            raise ValueError(
                "the pass-rule what-if needs one StructuredOutputSimilarity evaluator; the report has "
                f"{found}. Pass evaluator=<name>"
            )
        (evaluator,) = names
    elif evaluator not in names:
        raise ValueError(
            f"evaluator must name a StructuredOutputSimilarity evaluator of this report; got {evaluator!r}, "
            f"which are: {', '.join(sorted(names)) or '(none)'}"
        )
    return report.cases_frame(evaluator=evaluator)


def passes(cases: pd.DataFrame, match_threshold: float) -> pd.Series:
    """Whether each applicable row would pass at `match_threshold`, scores held as scored.

    Args:
        cases: Rows shaped like `report.cases_frame()` (`status`, `score`, `recall`, `tp`, `fn`,
            `fd`, `fa`) of one `StructuredOutputSimilarity` evaluator.
        match_threshold: The bar, between 0 and 1.

    Returns:
        A boolean Series over the rows whose status is in `APPLICABLE` (not-applicable rows are
        left out): unreadable and error rows are False at any bar.
    """
    rows = cases[cases["status"].isin(APPLICABLE)]
    scored = (rows["status"] == "scored").to_numpy()
    score = rows["score"].astype(float).to_numpy()
    recall = rows["recall"].astype(float).to_numpy()
    counts = {name: rows[name].astype("Float64").fillna(0).to_numpy(dtype=float) for name in ("tp", "fn", "fd", "fa")}
    findable = counts["tp"] + counts["fn"] + counts["fd"]
    found = np.where(findable == 0, counts["fa"] == 0, np.nan_to_num(recall, nan=-1.0) >= match_threshold)
    return pd.Series(scored & (score >= match_threshold) & found, index=rows.index)


def pass_rates(cases: pd.DataFrame, *, thresholds: Sequence[float] | None = None) -> pd.DataFrame:
    """The pass rate at each threshold, recomputed from the rows (no rescoring).

    What it can predict: how many of these cases would pass if only the pass bar moved. At the
    threshold the cases were scored with it reproduces each row's `test_pass` exactly (a test checks
    this), so it answers "how strict is this bar, and how close are the failures to it".

    What it cannot predict: the outcome of rescoring at another threshold. `match_threshold` also
    decides which list elements pair up (an element scoring below it counts as one wrong value, and
    its fields drop out), so rescoring changes the score and recall of documents with lists; here
    they are held as scored. Per-field thresholds in the schema do not move, and rows of other
    evaluators (json_match, `Equals`) follow their own rules and must not be passed in.

    Args:
        cases: Rows of one `StructuredOutputSimilarity` evaluator, shaped like `report.cases_frame()`.
        thresholds: Where to evaluate. Default None: 0.00 to 1.00 in steps of 0.01.

    Returns:
        One row per threshold: `threshold`, `cases` (applicable rows: scored, unreadable, error),
        `passed`, `pass_rate` (NaN with no applicable rows) and `score_only_rate` (the rate on the
        score alone, recall ignored).
    """
    grid = [round(step / 100, 2) for step in range(101)] if thresholds is None else [float(t) for t in thresholds]
    rows = cases[cases["status"].isin(APPLICABLE)]
    scored = (rows["status"] == "scored").to_numpy()
    score = rows["score"].astype(float).to_numpy()
    recall = np.nan_to_num(rows["recall"].astype(float).to_numpy(), nan=-1.0)
    counts = {name: rows[name].astype("Float64").fillna(0).to_numpy(dtype=float) for name in ("tp", "fn", "fd", "fa")}
    nothing_to_find = (counts["tp"] + counts["fn"] + counts["fd"]) == 0
    nothing_invented = counts["fa"] == 0
    total = len(rows)
    table = []
    for bar in grid:
        # The rule of `passes`, on arrays read once.
        found = np.where(nothing_to_find, nothing_invented, recall >= bar)
        passed = int((scored & (score >= bar) & found).sum())
        score_only = int((scored & (score >= bar)).sum())
        table.append(
            {
                "threshold": bar,
                "cases": total,
                "passed": passed,
                "pass_rate": passed / total if total else float("nan"),
                "score_only_rate": score_only / total if total else float("nan"),
            }
        )
    return pd.DataFrame(table, columns=["threshold", "cases", "passed", "pass_rate", "score_only_rate"])
