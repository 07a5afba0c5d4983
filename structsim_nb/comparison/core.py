"""Compare two runs of the same cases: did the change make it better or worse, per field, with uncertainty.

`compare(baseline, candidate)` pairs the two runs' cases by name and measures the change case by
case, so a document that is hard in both runs cancels out. Every difference comes with a
bootstrap confidence interval over cases (see `structsim_nb.comparison.paired`), and a verdict that says
`better` or `worse` only when the interval excludes zero; otherwise `no evidence`. Each interval
says how many cases it rests on.

What is compared, stated once:

- **Overall and per case**: every case present in both runs and applicable in both (it had
  ground truth), at the score its report gives it. An unreadable output or a row whose scoring
  failed scores 0.0, as in the report's `overall_score`, and shows with its status.
- **Per field**: the cases scored field by field in both runs (an unreadable output has no
  fields to compare), and of those, the ones where the field has a value on both sides.
- **Cases in one run only** are listed (`cases_frame()`, `summary()`), never compared.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pandas as pd

from .._owned import owned_cells
from ..errors import ComparisonError
from . import paired as _paired
from .render import render_json, render_page, render_repr
from .runs import Run, read_run
from .views import CASE_COLUMNS, FIELD_COLUMNS, NON_MATCH_COLUMNS, OVERALL_COLUMNS, REGRESSION_COLUMNS, build

if TYPE_CHECKING:
    from ..plot import ComparisonPlots

logger = logging.getLogger(__name__)

__all__ = [
    "CASE_COLUMNS",
    "FIELD_COLUMNS",
    "NON_MATCH_COLUMNS",
    "OVERALL_COLUMNS",
    "REGRESSION_COLUMNS",
    "Comparison",
    "compare",
]

#: Default bootstrap resamples: the 2.5% and 97.5% points are the 50th value from each end.
DEFAULT_RESAMPLES = 1999


class Comparison:
    """Two runs compared case by case: overall, per case, per field, and the regressions.

    Build one with `compare`. Views are pandas DataFrames (copies; change them freely):

    - `overall_frame()`: mean score and pass rate of each run, the paired difference with its
      interval and verdict, the pass/fail flips and McNemar's exact p-value.
    - `cases_frame()`: one row per case of either run, with both scores and statuses.
    - `fields_frame()`: one row per field path, with the paired difference of its mean score.
    - `non_matches_frame()`: the field values that became wrong, got fixed, or changed.
    - `regressions()`: what got worse, worst first. Read this first.

    `summary()` has the headline figures, `to_html()` a standalone page, `to_json()` all of it.
    In Jupyter the comparison renders itself.
    """

    def __init__(
        self,
        *,
        summary: dict[str, Any],
        overall: pd.DataFrame,
        cases: pd.DataFrame,
        fields: pd.DataFrame,
        non_matches: pd.DataFrame,
        regressions: pd.DataFrame,
        notes: list[str],
        reports: tuple[Any, Any] = (None, None),
    ) -> None:
        self._summary = summary
        self._overall = overall
        self._cases = cases
        self._fields = fields
        self._non_matches = non_matches
        self._regressions = regressions
        self._notes = list(notes)
        self._reports = reports  # (baseline, candidate) reports, for the explorer's side-by-side cases

    def summary(self) -> dict[str, Any]:
        """The headline figures as plain values.

        Returns:
            `baseline`, `candidate` (labels, with the file when read from one), `evaluator`,
            `cases_baseline`, `cases_candidate`, `paired`, `compared` (paired and applicable in
            both), `only_baseline`, `only_candidate`, `field_cases` (compared field by field),
            `score_baseline`, `score_candidate`, `delta`, `ci_low`, `ci_high`, `verdict`,
            `pass_rate_baseline`, `pass_rate_candidate`, `fixed`, `broken`, `mcnemar_p`,
            `fields_better`, `fields_worse`, and the settings: `confidence`, `n_resamples`,
            `seed`, `method`, `min_changes`.
        """
        return dict(self._summary)

    @property
    def notes(self) -> list[str]:
        """What the reader should know that the tables do not say (unjoined runs, renamed evaluators)."""
        return list(self._notes)

    def overall_frame(self) -> pd.DataFrame:
        """Two rows, `score` and `pass rate`, with `OVERALL_COLUMNS`.

        `baseline`/`candidate` are the means over the compared cases; `delta` is the mean paired
        difference (candidate minus baseline) with `ci_low`/`ci_high` and `verdict`; `n_cases`
        the cases it rests on and `n_changed` how many of them changed. `improved`/`worsened`
        count cases whose score rose/fell (for `pass rate`: fixed and broken cases), and
        `p_value` is McNemar's exact test on the flips (pass rate only).
        """
        return self._overall.copy()

    def cases_frame(self) -> pd.DataFrame:
        """One row per case of either run, with `CASE_COLUMNS`, baseline order first.

        `run` is `both`, `baseline only` or `candidate only`. `delta` is NaN unless the case was
        compared. `flip` is `fixed` (failed, now passes), `broken` (passed, now fails) or empty.
        `appeared`, `fixed` and `changed` count the case's rows in `non_matches_frame()`.
        Statuses are the report's (`scored`, `unreadable`, `error`, `not applicable`), with the
        reasons beside them.
        """
        return self._cases.copy()

    def fields_frame(self) -> pd.DataFrame:
        """One row per field path, most negative difference first, with `FIELD_COLUMNS`.

        `mean_before`/`mean_after` are the field's mean per-case value over the `n_cases` cases
        where it has a value on both sides, and `delta` their paired difference with
        `ci_low`/`ci_high`. `measure` is `score` (stickler's per-field score, as the report's
        `fields_frame()` averages it) or `accuracy` (for fields of list elements, which have no
        per-case score). `fn`/`fa`/`fd` (missed, invented, wrong) and `f1` sum over the cases
        compared field by field. A path present in one run only has `n_cases` 0 and NaN figures.
        """
        return self._fields.copy()

    def non_matches_frame(self) -> pd.DataFrame:
        """One row per field path whose non-match `appeared`, was `fixed`, or `changed`, with `NON_MATCH_COLUMNS`.

        Cases compared field by field only. `predicted_before` of an appeared non-match and
        `predicted_after` of a fixed one are the matching value where the output holds it as a
        plain path (a list element's value is left empty: its index is the ground truth's).
        `changed`: wrong on both sides, but differently (another value, or missed vs wrong). An object
        or list value is the frame's own copy: changing it changes neither the comparison nor the reports.
        """
        return owned_cells(self._non_matches.copy(), ("expected", "predicted_before", "predicted_after"))

    def regressions(self) -> pd.DataFrame:
        """What got worse, worst first, with `REGRESSION_COLUMNS`.

        First the fields whose verdict is `worse` (most negative difference first), then the
        cases: broken ones (passed, now fail), then every other case whose score fell (largest
        fall first), then cases missing from the candidate run. Empty when nothing got worse.
        """
        return self._regressions.copy()

    def _frames(self) -> dict[str, pd.DataFrame]:
        return {
            "overall": self._overall,
            "regressions": self._regressions,
            "fields": self._fields,
            "cases": self._cases,
            "non_matches": self._non_matches,
        }

    @property
    def plot(self) -> ComparisonPlots:
        """The comparison's charts: `comparison.plot.fields()` draws the per-field forest plot."""
        from ..plot import ComparisonPlots

        return ComparisonPlots(self)

    def explore(self) -> Any:
        """An interactive explorer (ipywidgets): pick a case, see both runs side by side.

        Cases are listed broken first, then by how far their score fell; filter them by flip (fixed,
        broken), by field and by what happened to a field value (appeared, fixed, changed). A picked
        case shows its score and reason in each run, the field values that changed, and its truth
        beside each run's prediction with the failing paths highlighted (when the runs were given as
        reports or report files). The Fields tab lists every case where a field changed.

        Raises:
            ImportError: Without ipywidgets; the message names `pip install "structsim-nb[notebooks]"`.
        """
        from .explore import explore

        return explore(self, *self._reports)

    def to_json(self) -> str:
        """Every view (as lists of records), the summary and the notes as JSON: sorted keys, NaN as null.

        The same inputs and seed give the same bytes.
        """
        return render_json(self._summary, self._notes, self._frames())

    def to_html(self, *, title: str = "structsim-nb comparison") -> str:
        """A standalone HTML page (no external files): every view, the notes, and how to read them."""
        return render_page(self._summary, self._notes, self._frames(), title=title)

    def _repr_html_(self) -> str:
        """Jupyter's rich display: the headline, regressions and the fields, each cut to its first rows."""
        return render_repr(self._summary, self._notes, self._frames())

    def __repr__(self) -> str:
        s = self._summary
        if s["compared"] == 0:
            return f"<Comparison {s['paired']} paired cases, none with ground truth in both runs>"
        return (
            f"<Comparison {s['compared']} cases: score {s['score_baseline']:.3f} -> {s['score_candidate']:.3f} "
            f"({s['delta']:+.3f}, {s['verdict']}); {s['fixed']} fixed, {s['broken']} broken>"
        )


def _check_comparable(base: Run, cand: Run, *, allow_schema_change: bool) -> list[str]:
    notes: list[str] = []
    if base.kind != cand.kind:
        raise ComparisonError(
            f"both runs must be scored by the same evaluator; {base.label} was scored by {base.kind} and "
            f"{cand.label} by {cand.kind}. Their scores are on different scales. Score both runs with one evaluator"
        )
    if base.schemas and cand.schemas and base.schemas != cand.schemas and not allow_schema_change:
        raise ComparisonError(
            f"both runs must be scored against the same schema; {base.label} used {', '.join(sorted(base.schemas))} "
            f"and {cand.label} used {', '.join(sorted(cand.schemas))}. If the schema change is the change you are "
            "measuring (same field paths, other comparators), pass allow_schema_change=True (--allow-schema-change)"
        )
    if base.schemas != cand.schemas and base.schemas and cand.schemas:
        notes.append(
            f"the schema changed: {', '.join(sorted(base.schemas))} -> {', '.join(sorted(cand.schemas))}; "
            "the difference includes the change of comparators"
        )
    if base.evaluator != cand.evaluator:
        notes.append(f"evaluator names differ ({base.evaluator!r} -> {cand.evaluator!r}); both are {base.kind}")
    return notes


def compare(
    baseline: Any,
    candidate: Any,
    *,
    evaluator: str | None = None,
    confidence: float = 0.95,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    allow_schema_change: bool = False,
) -> Comparison:
    """Compare a candidate run with a baseline run of the same cases.

    Args:
        baseline: The run before the change: a `StructuredOutputReport`, the path of a saved
            report file (`report.to_file`), or a `structsim-nb evaluate` reports folder.
        candidate: The run after the change, in any of the same forms.
        evaluator: The evaluator whose rows to compare, when the reports carry several.
            Default None: each report's only evaluator.
        confidence: Level of every interval. Default 0.95.
        n_resamples: Bootstrap resamples per interval. Default 1999. More gives steadier ends
            at a linear cost in time.
        seed: Seed of the resampling; the same inputs and seed give the same intervals. Default 0.
        allow_schema_change: Compare runs scored against different schemas (say, a schema with
            tuned comparators against the plain one). Default False: that is an error.

    Returns:
        A `Comparison`.

    Raises:
        ComparisonError: If the runs were scored by different evaluators or (unless allowed)
            schemas, if a run repeats or lacks case names, or if they share no case.
        ReportFileError: If a file is missing, truncated or not a report; the message names it.
        ValueError: If `confidence` is not in (0, 1) or `n_resamples` is not a whole number of
            at least 1.

    Notes:
        The interval is a paired bootstrap over cases, percentile method at Hesterberg's
        expanded level; a verdict also needs `min_changes` changed cases (6 at 95%), since
        fewer cannot tell a change from chance. See `structsim_nb.comparison.paired` for why (and why
        not BCa: its jackknife grows with the square of the cases). With identical runs every
        difference is exactly 0 and nothing flips.

    Examples:
        >>> from structsim_nb import compare, score_dataset
        >>> from structsim_nb.demo import Invoice, synthetic_invoice_pairs
        >>> pairs = synthetic_invoice_pairs(20, line_items=2, seed=1)
        >>> before = score_dataset(pairs, model_cls=Invoice, workers=1, progress=False)
        >>> fixed = [{**p, "actual": p["expected"]} for p in pairs]
        >>> after = score_dataset(fixed, model_cls=Invoice, workers=1, progress=False)
        >>> result = compare(before, after)
        >>> result.summary()["broken"], result.summary()["delta"] > 0
        (0, True)
    """
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be a number between 0 and 1 (exclusive), such as 0.95; got {confidence!r}")
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, int) or n_resamples < 1:
        raise ValueError(f"n_resamples must be a whole number of at least 1, such as 1999; got {n_resamples!r}")
    base = read_run(baseline, which="baseline", evaluator=evaluator)
    cand = read_run(candidate, which="candidate", evaluator=evaluator)
    notes = base.notes + cand.notes + _check_comparable(base, cand, allow_schema_change=allow_schema_change)
    settings = {
        "confidence": float(confidence),
        "n_resamples": n_resamples,
        "seed": seed,
        "method": _paired.METHOD,
        "min_changes": _paired.min_changes(float(confidence)),
    }
    parts = build(base, cand, settings)
    if parts["summary"]["paired"] == 0:
        raise ComparisonError(
            f"the runs must share cases to be compared (cases pair by name); {base.label} and {cand.label} share "
            f"none (baseline names start {base.names[:3]}, candidate names {cand.names[:3]})"
        )
    logger.debug(
        "paired=<%d>, delta=<%s>, verdict=<%s> | runs compared",
        parts["summary"]["paired"],
        parts["summary"]["delta"],
        parts["summary"]["verdict"],
    )
    return Comparison(notes=notes, reports=(base.report, cand.report), **parts)
