"""aggregate: the score summary's averages, read in one pass over the reports, are AssetOpsBench's per-metric means."""

from __future__ import annotations

import math

from hypothesis import given, settings
from hypothesis import strategies as st

from structsim_nb.trajectories.aggregate import SUMMARY_METRICS, _summary, build_aggregate


def _reference_averages(reports: list[dict]) -> dict:
    """Each metric's mean over the scored reports, one metric at a time (bools and non-numbers ignored)."""
    scored = [r["score"] for r in reports if r["status"] == "scored"]
    out = {}
    for metric in SUMMARY_METRICS:
        values = [
            float(v)
            for s in scored
            if isinstance(v := s["details"].get(metric), (int, float)) and not isinstance(v, bool)
        ]
        out[f"{metric}_avg"] = round(sum(values) / len(values), 4) if values else None
    return out


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(10**6), 10**6),
    st.floats(allow_nan=False, allow_infinity=False, width=64),
    st.text(max_size=3),
    st.lists(st.integers(), max_size=2),
)
_METRICS = st.sampled_from([*SUMMARY_METRICS, "not_a_metric"])
_REPORTS = st.lists(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(["scored", "scored", "error"]),
            "score": st.fixed_dictionaries(
                {"score": st.floats(0, 1), "details": st.dictionaries(_METRICS, _VALUES, max_size=8)}
            ),
        }
    ),
    max_size=12,
)


@settings(max_examples=400, deadline=None, derandomize=True)
@given(reports=_REPORTS)
def test_the_averages_are_each_metrics_mean_over_the_scored_reports(reports) -> None:
    summary = _summary(reports)
    expected = _reference_averages(reports)
    for key, value in expected.items():
        got = summary[key]
        assert got == value or (got is not None and value is not None and math.isnan(got) and math.isnan(value)), key


def test_each_metric_is_averaged_once() -> None:
    """The one pass appends each metric's values to its own list: a metric named twice would be read twice."""
    assert len(set(SUMMARY_METRICS)) == len(SUMMARY_METRICS) == 26


def test_a_summary_by_hand() -> None:
    reports = [
        {"status": "scored", "score": {"score": 1.0, "details": {"precision": 1, "recall": True, "f1": 0.5}}},
        {"status": "scored", "score": {"score": 0.5, "details": {"precision": 0.5, "recall": None, "f1": "x"}}},
        {"status": "error", "score": {"score": 0.0, "details": {"precision": 0.0}}},
    ]
    summary = _summary(reports)
    assert summary["scored_results"] == 2 and summary["score_avg"] == 0.75
    assert summary["precision_avg"] == 0.75  # the error entry is left out
    assert summary["recall_avg"] is None  # a bool is no number here
    assert summary["f1_avg"] == 0.5  # text is skipped
    assert summary["car_score_avg"] is None


def test_the_aggregate_keeps_summaries_unless_asked_for_every_report() -> None:
    report = {
        "status": "scored",
        "scenario_type": "iot",
        "runner": "r",
        "model": "m",
        "ops": {},
        "answer": "42",
        "score": {"scorer": "static_json", "passed": True, "score": 1.0, "rationale": "ok", "details": {"f1": 1.0}},
    }
    common = dict(
        scorer="static_json",
        options={},
        selected=None,
        generated_at=None,
        counts={},
        unmatched_trajectories=[],
        unmatched_scenarios=[],
        problems=[],
        skipped=[],
    )
    short = build_aggregate([report], ["a.json"], full_results=False, **common)
    assert short["results"][0]["report"] == "a.json" and "answer" not in short["results"][0]
    assert short["results"][0]["score"] == {"scorer": "static_json", "passed": True, "score": 1.0, "rationale": "ok"}
    full = build_aggregate([report], ["a.json"], full_results=True, **common)
    assert full["results"][0]["answer"] == "42" and full["results"][0]["score"]["details"] == {"f1": 1.0}
    assert full["totals"]["pass_rate"] == 1.0 and full["by_scenario_type"]["iot"]["passed"] == 1
    empty = build_aggregate([], [], full_results=False, **common)
    # No run: the pass rate is undefined, so null (AssetOpsBench writes 0.0, as if every run had failed).
    assert empty["totals"]["pass_rate"] is None and empty["totals"]["scenarios"] == 0
