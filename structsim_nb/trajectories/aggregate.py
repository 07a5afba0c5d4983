"""`_aggregate.json`: what a run of `run_evaluation` adds up to, built from its per-run reports.

`build_aggregate` takes the per-run reports (plain dicts, in order) and the lists the runner
collected, and returns the aggregate as written: a `format_version`, the totals, AssetOpsBench's
`by_scenario_type`, runners, models, `ops` and `score_summary`, the `results`, and every record
that did not join, was a problem or was left out.
"""

from __future__ import annotations

import math
from typing import Any

from .ops import finite_sum

__all__ = ["REPORT_FORMAT_VERSION", "SUMMARY_FIELDS", "SUMMARY_METRICS", "build_aggregate"]

#: The format of `_aggregate.json` and the per-run reports (their `format_version`).
REPORT_FORMAT_VERSION = 1
#: The fields of a per-run report the aggregate's `results` keep by default (besides `report`).
SUMMARY_FIELDS = (
    "scenario_id",
    "scenario_type",
    "scenario_folder",
    "run_id",
    "runner",
    "model",
    "question",
    "trajectory_file",
    "joined_by",
    "status",
    "error",
    "ops",
)
#: The metrics `score_summary` averages (`<metric>_avg`), as AssetOpsBench's report does.
SUMMARY_METRICS: tuple[str, ...] = (
    "partial_match_accuracy",
    "partial_exact_match_accuracy",
    "strict_exact_match_accuracy",
    "partial_similarity_score",
    "partial_numeric_match_accuracy",
    "range_match_accuracy",
    "delta_1_match_accuracy",
    "precision",
    "recall",
    "f1",
    "total_gold_keys",
    "total_model_keys",
    "matched_keys",
    "accepted_value_matches",
    "exact_value_matches",
    "numeric_gold_keys",
    "numeric_value_matches",
    "range_eligible_keys",
    "range_value_matches",
    "delta_1_eligible_keys",
    "delta_1_value_matches",
    "mode_key_match",
    "mode_exactly_one_key",
    "mode_term_coverage",
    "mode_optional_term_coverage",
    "car_score",
)


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 4) if values else None


def _summary(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """AssetOpsBench's `score_summary` over the scored reports (error entries are left out).

    `scored_results`, `score_avg/min/max`, `<metric>_avg` for each of `SUMMARY_METRICS` (mean
    rounded to 4 places, None when no report has the metric; bools ignored), and
    `missing_keys_total`, `extra_keys_total`, `detail_entries_total`.
    """
    scored = [r["score"] for r in reports if r["status"] == "scored"]
    scores = [float(s["score"]) for s in scored]
    summary: dict[str, Any] = {
        "scored_results": len(scored),
        "score_avg": _mean(scores),
        "score_min": round(min(scores), 4) if scores else None,
        "score_max": round(max(scores), 4) if scores else None,
    }
    # One pass over the reports for every metric, not one per metric: each report's details are read
    # while they are in the cache (on 20,000 runs, 3 us a run instead of 19). Each metric's values keep
    # the reports' order, so the sums are the same floats.
    columns: dict[str, list[float]] = {metric: [] for metric in SUMMARY_METRICS}
    appends = [(metric, columns[metric].append) for metric in SUMMARY_METRICS]
    for score in scored:
        read = score["details"].get
        for metric, append in appends:
            if isinstance(value := read(metric), (int, float)) and not isinstance(value, bool):
                append(float(value))
    for metric in SUMMARY_METRICS:
        summary[f"{metric}_avg"] = _mean(columns[metric])
    for key, name in (("missing_keys", "missing_keys_total"), ("extra_keys", "extra_keys_total")):
        summary[name] = sum(len(s["details"].get(key) or []) for s in scored)
    summary["detail_entries_total"] = sum(len(s["details"].get("details") or []) for s in scored)
    return summary


def _percentile(values: list[float], fraction: float) -> float | None:
    """Linear-interpolated percentile (numpy's default), rounded to 3 places; None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    position = (len(ordered) - 1) * fraction
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return round(ordered[low] + (ordered[high] - ordered[low]) * (position - low), 3)


def _ops_totals(reports: list[dict[str, Any]]) -> dict[str, Any]:
    """The aggregate `ops` block: sums and duration percentiles over every report (None when none recorded)."""
    ops = [r["ops"] for r in reports]

    def total(key: str) -> float | None:
        found = finite_sum([o.get(key) for o in ops])  # (None past the float range: no OverflowError stops the run)
        return round(found, 6) if found is not None else None

    durations = [float(o["duration_ms"]) for o in ops if o.get("duration_ms") is not None]
    return {
        "tokens_in_total": total("tokens_in"),
        "tokens_out_total": total("tokens_out"),
        "duration_ms_p50": _percentile(durations, 0.5),
        "duration_ms_p95": _percentile(durations, 0.95),
        "tool_calls_total": total("tool_call_count"),
        "est_cost_usd_total": total("est_cost_usd"),
    }


def _by_type(reports: list[dict[str, Any]]) -> dict[str, Any]:
    groups: dict[str, list[bool]] = {}
    for report in reports:
        groups.setdefault(report["scenario_type"] or "unknown", []).append(bool(report["score"]["passed"]))
    return {
        name: {"total": len(flags), "passed": sum(flags), "pass_rate": round(sum(flags) / len(flags), 4)}
        for name, flags in sorted(groups.items())
    }


def _summary_entry(name: str | None, report: dict[str, Any]) -> dict[str, Any]:
    """A run's entry in the aggregate's `results` without `full_results`: its summary, not its detail."""
    entry: dict[str, Any] = {"report": name}
    for key in SUMMARY_FIELDS:
        entry[key] = report.get(key)
    score = report["score"]
    entry["score"] = {key: score.get(key) for key in ("scorer", "passed", "score", "rationale")}
    return entry


def build_aggregate(
    reports: list[dict[str, Any]],
    names: list[str | None],
    *,
    scorer: str,
    options: dict[str, Any],
    selected: list[str] | None,
    generated_at: str | None,
    counts: dict[str, int],
    unmatched_trajectories: list[dict[str, Any]],
    unmatched_scenarios: list[dict[str, Any]],
    problems: list[dict[str, str]],
    skipped: list[dict[str, str]],
    full_results: bool,
) -> dict[str, Any]:
    """`_aggregate.json` for the per-run `reports` (in order) and their file `names` (None: not written).

    Totals, `by_scenario_type`, runners and models, `ops`, `score_summary`, the `results` (summaries,
    or every report with `full_results`), and everything that did not join, was a problem or was
    left out, as given.
    """
    passed = sum(1 for report in reports if report["score"]["passed"])
    errors = sum(1 for report in reports if report["status"] == "error")
    if full_results:
        results = [{**report, "report": name} for name, report in zip(names, reports, strict=True)]
    else:
        results = [_summary_entry(name, report) for name, report in zip(names, reports, strict=True)]
    return {
        "format_version": REPORT_FORMAT_VERSION,
        "generated_at": generated_at,
        "scorer": scorer,
        "options": options,
        "scenario_ids": selected,
        "full_results": full_results,
        "totals": {
            "scenarios": len(reports),
            "scored": len(reports) - errors,
            "passed": passed,
            "pass_rate": round(passed / len(reports), 4) if reports else None,
            "errors": errors,
            **counts,
        },
        "by_scenario_type": _by_type(reports),
        "runners": sorted({report["runner"] for report in reports if report.get("runner")}),
        "models": sorted({report["model"] for report in reports if report.get("model")}),
        "ops": _ops_totals(reports),
        "score_summary": _summary(reports),
        "results": results,
        "unmatched_trajectories": unmatched_trajectories,
        "unmatched_scenarios": unmatched_scenarios,
        "problems": problems,
        "skipped": skipped,
    }
