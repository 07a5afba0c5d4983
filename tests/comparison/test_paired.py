"""Tests for `structsim_nb.comparison.paired`: the intervals cover the true difference, and the rules around them."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from structsim_nb.comparison.paired import expanded_level, intervals, mcnemar_p, min_changes, verdict

# -- coverage ---------------------------------------------------------------------------------

#: Simulated paired runs per regime. With 400 runs the empirical coverage has a standard error of
#: about 1.1 points, so the stated tolerance (2.5 points either side of 95%) is over 2 standard errors.
SIMULATIONS = 400
TOLERANCE = 0.025


def _scores(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Continuous per-case scores; every case moves, by 0.05 on average."""
    before = rng.uniform(0.3, 0.85, n)
    return before, before + 0.05 + rng.uniform(-0.15, 0.15, n), 0.05


def _sparse(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Most cases unchanged (as most fields are); a fifth move by 0.25, up 60% of the time: true mean 0.01."""
    before = rng.uniform(0.5, 0.7, n)
    changed = rng.random(n) < 0.2
    return before, before + changed * np.where(rng.random(n) < 0.6, 0.25, -0.25), 0.2 * (0.6 - 0.4) * 0.25


def _flips(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Pass/fail as 1/0: 15% of cases fixed, 5% broken: the pass rate rises by 0.10."""
    u = rng.random(n)
    return np.zeros(n), np.where(u < 0.15, 1.0, np.where(u < 0.20, -1.0, 0.0)), 0.10


def _null(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, float]:
    """No true difference: scores move by noise only. Coverage of 0 is 1 minus the false-alarm rate."""
    before = rng.uniform(0.3, 0.9, n)
    return before, before + rng.normal(0.0, 0.1, n), 0.0


@pytest.mark.parametrize(
    ("regime", "n"),
    [(_scores, 12), (_sparse, 200), (_flips, 100), (_null, 50)],
    ids=["scores-12", "sparse-200", "flips-100", "null-50"],
)
def test_the_95_percent_interval_covers_the_true_difference_95_percent_of_the_time(regime, n):
    rng = np.random.default_rng(2024)
    covered = 0
    for run in range(SIMULATIONS):
        before, after, true = regime(rng, n)
        _, low, high = intervals((after - before)[None, :], confidence=0.95, n_resamples=999, seed=run)
        covered += bool(low[0] <= true <= high[0])
    coverage = covered / SIMULATIONS
    assert abs(coverage - 0.95) <= TOLERANCE, f"coverage {coverage:.3f} on {regime.__name__} with {n} cases"


def test_the_plain_percentile_interval_is_too_narrow_on_few_cases_which_is_why_it_is_expanded():
    # The same simulation as scores-12, at the nominal level: the undercoverage the expansion corrects.
    rng = np.random.default_rng(2024)
    plain = expanded = 0
    for run in range(SIMULATIONS):
        before, after, true = _scores(rng, 12)
        d = after - before
        narrow = stats.bootstrap((d,), np.mean, n_resamples=999, method="percentile", rng=np.random.default_rng(run))
        plain += bool(narrow.confidence_interval.low <= true <= narrow.confidence_interval.high)
        _, low, high = intervals(d[None, :], confidence=0.95, n_resamples=999, seed=run)
        expanded += bool(low[0] <= true <= high[0])
    assert plain / SIMULATIONS < 0.93 < expanded / SIMULATIONS


# -- the interval itself ----------------------------------------------------------------------


def test_resampling_the_differences_is_scipys_paired_bootstrap():
    rng = np.random.default_rng(3)
    before, after = rng.random(60), rng.random(60)
    _, low, high = intervals((after - before)[None, :], confidence=0.95, n_resamples=999, seed=11)
    paired = stats.bootstrap(
        (before, after),
        lambda b, a, axis: np.mean(a - b, axis=axis),
        paired=True,
        vectorized=True,
        n_resamples=999,
        method="percentile",
        confidence_level=expanded_level(0.95, 60),
        rng=np.random.default_rng(11),
    )
    assert low[0] == pytest.approx(paired.confidence_interval.low, abs=1e-12)
    assert high[0] == pytest.approx(paired.confidence_interval.high, abs=1e-12)


def test_identical_runs_give_exactly_zero_without_resampling():
    mean, low, high = intervals(np.zeros((3, 500)), confidence=0.95, n_resamples=999, seed=0)
    assert mean.tolist() == low.tolist() == high.tolist() == [0.0, 0.0, 0.0]


def test_a_row_interval_does_not_depend_on_the_other_rows():
    rng = np.random.default_rng(5)
    rows = rng.normal(0.0, 0.1, (4, 300))
    _, low_all, high_all = intervals(rows, confidence=0.9, n_resamples=499, seed=7)
    _, low_one, high_one = intervals(rows[2:3], confidence=0.9, n_resamples=499, seed=7)
    assert low_all[2] == pytest.approx(low_one[0], abs=1e-12)
    assert high_all[2] == pytest.approx(high_one[0], abs=1e-12)


def test_one_case_has_no_interval_and_the_seed_fixes_the_interval():
    mean, low, high = intervals(np.array([[0.5]]), confidence=0.95, n_resamples=99, seed=0)
    assert mean[0] == 0.5 and np.isnan(low[0]) and np.isnan(high[0])
    d = np.random.default_rng(1).normal(size=(1, 80))
    first = intervals(d, confidence=0.95, n_resamples=199, seed=4)
    assert [x.tolist() for x in first] == [x.tolist() for x in intervals(d, confidence=0.95, n_resamples=199, seed=4)]
    assert first[1][0] != intervals(d, confidence=0.95, n_resamples=199, seed=5)[1][0]


def test_the_expanded_level_is_wider_on_few_cases_and_nominal_on_many():
    assert expanded_level(0.95, 20) == pytest.approx(0.968, abs=0.001)
    assert 0.95 < expanded_level(0.95, 10_000) < 0.9501


# -- verdicts and tests -----------------------------------------------------------------------


def test_min_changes_is_where_an_exact_sign_test_first_can_call_a_change():
    assert min_changes(0.95) == 6
    assert stats.binomtest(5, 5, 0.5).pvalue > 0.05 >= stats.binomtest(6, 6, 0.5).pvalue
    assert min_changes(0.99) == 8


def test_verdict_needs_the_interval_to_exclude_zero_and_enough_changed_cases():
    assert verdict(0.01, 0.05, 6, confidence=0.95) == "better"
    assert verdict(-0.05, -0.01, 6, confidence=0.95) == "worse"
    assert verdict(-0.01, 0.05, 600, confidence=0.95) == "no evidence"
    assert verdict(0.01, 0.05, 5, confidence=0.95) == "no evidence"  # five cases all improving: 1 in 16 by chance
    assert verdict(float("nan"), float("nan"), 50, confidence=0.95) == "no evidence"


def test_mcnemar_is_the_exact_binomial_test_on_the_flips():
    assert mcnemar_p(0, 0) == 1.0
    assert mcnemar_p(8, 1) == pytest.approx(stats.binomtest(8, 9, 0.5).pvalue)
    assert mcnemar_p(8, 1) == pytest.approx(0.0390625)
    assert mcnemar_p(1, 8) == mcnemar_p(8, 1)
