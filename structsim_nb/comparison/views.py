"""The views of a comparison, computed once from two `Run`s: summary, overall, cases, fields, non-matches, regressions.

Pure: runs in, DataFrames and a dict out. `structsim_nb.comparison.core` states what is compared.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from pydantic_core import to_jsonable_python

from .._surrogates import text_frame
from . import paired as _paired
from .runs import Run

__all__ = [
    "CASE_COLUMNS",
    "FIELD_COLUMNS",
    "NON_MATCH_COLUMNS",
    "OVERALL_COLUMNS",
    "REGRESSION_COLUMNS",
    "build",
]

#: The columns of `Comparison.overall_frame()`.
OVERALL_COLUMNS = [
    "measure",
    "baseline",
    "candidate",
    "delta",
    "ci_low",
    "ci_high",
    "verdict",
    "n_cases",
    "n_changed",
    "improved",
    "worsened",
    "p_value",
]
#: The columns of `Comparison.fields_frame()`; a forest plot reads `path, delta, ci_low, ci_high, verdict, n_cases`.
FIELD_COLUMNS = [
    "path",
    "measure",
    "n_cases",
    "n_changed",
    "mean_before",
    "mean_after",
    "delta",
    "ci_low",
    "ci_high",
    "verdict",
    "fn_before",
    "fn_after",
    "fa_before",
    "fa_after",
    "fd_before",
    "fd_after",
    "f1_before",
    "f1_after",
]
#: The columns of `Comparison.cases_frame()`.
CASE_COLUMNS = [
    "case",
    "run",
    "status_before",
    "status_after",
    "score_before",
    "score_after",
    "delta",
    "pass_before",
    "pass_after",
    "flip",
    "appeared",
    "fixed",
    "changed",
    "reason_before",
    "reason_after",
]
#: The columns of `Comparison.non_matches_frame()`.
NON_MATCH_COLUMNS = [
    "case",
    "path",
    "change",
    "kind_before",
    "kind_after",
    "expected",
    "predicted_before",
    "predicted_after",
]
#: The columns of `Comparison.regressions()`.
REGRESSION_COLUMNS = ["kind", "name", "before", "after", "delta", "ci_low", "ci_high", "n_cases", "detail"]

_FN, _FA, _FD = 1, 2, 3  # positions in `runs.COUNTS` (tp, fn, fa, fd, tn)


def _f1(counts: np.ndarray) -> float:
    tp, fn, fa, fd = (int(value) for value in counts[:4])
    denominator = 2 * tp + fn + fa + fd
    return 2 * tp / denominator if denominator else math.nan


def _lookup(actual: Any, path: str) -> Any:
    """The value at a dotted path without list indexes, when the output is held as a dict; else None.

    A list element's path is indexed as in the ground truth, not the prediction, so it is not looked up.
    The value is in its JSON form (a date as ISO text), as the report file holds it and as stickler's
    non-match records give values, so a report compares the same in memory and from its file.
    """
    if "[" in path or not isinstance(actual, dict):
        return None
    value: Any = actual
    for part in path.split("."):
        if not isinstance(value, dict) or part not in value:
            return None
        value = value[part]
    return to_jsonable_python(value, fallback=str)


def _plain(value: Any) -> Any:
    """numpy scalars as Python values, NaN as None: what a DataFrame of mixed records should hold."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def _overall(
    base: Run, cand: Run, bi: np.ndarray, ci: np.ndarray, settings: dict[str, Any]
) -> tuple[pd.DataFrame, dict[str, Any]]:
    confidence = settings["confidence"]
    before_score, after_score = base.score[bi], cand.score[ci]
    before_pass, after_pass = base.passed[bi].astype(float), cand.passed[ci].astype(float)
    deltas = np.vstack([after_score - before_score, after_pass - before_pass])
    mean, low, high = _paired.intervals(
        deltas, confidence=confidence, n_resamples=settings["n_resamples"], seed=settings["seed"]
    )
    fixed, broken = int((deltas[1] > 0).sum()), int((deltas[1] < 0).sum())
    rows = []
    for row, (measure, before, after) in enumerate(
        (("score", before_score, after_score), ("pass rate", before_pass, after_pass))
    ):
        changed = int((deltas[row] != 0).sum())
        rows.append(
            {
                "measure": measure,
                "baseline": float(before.mean()) if len(bi) else math.nan,
                "candidate": float(after.mean()) if len(bi) else math.nan,
                "delta": float(mean[row]),
                "ci_low": float(low[row]),
                "ci_high": float(high[row]),
                "verdict": _paired.verdict(low[row], high[row], changed, confidence=confidence),
                "n_cases": len(bi),
                "n_changed": changed,
                "improved": int((deltas[row] > 0).sum()),
                "worsened": int((deltas[row] < 0).sum()),
                "p_value": _paired.mcnemar_p(fixed, broken) if measure == "pass rate" else math.nan,
            }
        )
    frame = pd.DataFrame(rows, columns=OVERALL_COLUMNS)  # (our measure names and numbers only)
    score, rate = rows
    headline = {
        "score_baseline": score["baseline"],
        "score_candidate": score["candidate"],
        "delta": score["delta"],
        "ci_low": score["ci_low"],
        "ci_high": score["ci_high"],
        "verdict": score["verdict"],
        "pass_rate_baseline": rate["baseline"],
        "pass_rate_candidate": rate["candidate"],
        "fixed": fixed,
        "broken": broken,
        "mcnemar_p": rate["p_value"],
    }
    return frame, headline


def _fields(base: Run, cand: Run, fb: np.ndarray, fc: np.ndarray, settings: dict[str, Any]) -> pd.DataFrame:
    """One row per path of either run, over the cases compared field by field (`fb`, `fc` index them)."""
    confidence = settings["confidence"]
    paths = list(dict.fromkeys([*base.paths, *cand.paths]))
    column_b = {path: i for i, path in enumerate(base.paths)}
    column_c = {path: i for i, path in enumerate(cand.paths)}
    missing = np.full(len(fb), np.nan)
    rows: list[dict[str, Any]] = []
    groups: dict[bytes, list[tuple[int, np.ndarray]]] = {}
    for row, path in enumerate(paths):
        before = base.values[fb, column_b[path]] if path in column_b else missing
        after = cand.values[fc, column_c[path]] if path in column_c else missing
        present = ~np.isnan(before) & ~np.isnan(after)
        delta = after[present] - before[present]
        counts_b = base.counts[fb, column_b[path]].sum(axis=0) if path in column_b else np.zeros(5, dtype=np.int64)
        counts_c = cand.counts[fc, column_c[path]].sum(axis=0) if path in column_c else np.zeros(5, dtype=np.int64)
        measures = {base.measures.get(path), cand.measures.get(path)} - {None}
        rows.append(
            {
                "path": path,
                "measure": "accuracy" if "accuracy" in measures else "score",
                "n_cases": int(present.sum()),
                "n_changed": int((delta != 0).sum()),
                "mean_before": float(before[present].mean()) if present.any() else math.nan,
                "mean_after": float(after[present].mean()) if present.any() else math.nan,
                "delta": math.nan,
                "ci_low": math.nan,
                "ci_high": math.nan,
                "verdict": "no evidence",
                "fn_before": int(counts_b[_FN]),
                "fn_after": int(counts_c[_FN]),
                "fa_before": int(counts_b[_FA]),
                "fa_after": int(counts_c[_FA]),
                "fd_before": int(counts_b[_FD]),
                "fd_after": int(counts_c[_FD]),
                "f1_before": _f1(counts_b) if path in column_b else math.nan,
                "f1_after": _f1(counts_c) if path in column_c else math.nan,
            }
        )
        if present.any():
            # Paths measured on the same cases share one bootstrap call (and its resampled indices).
            groups.setdefault(np.packbits(present).tobytes(), []).append((row, delta))
    for members in groups.values():
        mean, low, high = _paired.intervals(
            np.vstack([delta for _, delta in members]),
            confidence=confidence,
            n_resamples=settings["n_resamples"],
            seed=settings["seed"],
        )
        for (row, _), m, lo, hi in zip(members, mean, low, high, strict=True):
            rows[row].update(
                delta=float(m),
                ci_low=float(lo),
                ci_high=float(hi),
                verdict=_paired.verdict(lo, hi, rows[row]["n_changed"], confidence=confidence),
            )
    rows.sort(key=lambda r: (math.isnan(r["delta"]), 0.0 if math.isnan(r["delta"]) else r["delta"], r["path"]))
    return text_frame(pd.DataFrame, rows, columns=FIELD_COLUMNS)


def _non_match_changes(base: Run, cand: Run, i: int, j: int) -> list[dict[str, Any]]:
    before, after = base.non_matches[i], cand.non_matches[j]
    records = []
    for key in dict.fromkeys([*before, *after]):
        old, new = before.get(key), after.get(key)
        if old is not None and new is not None:
            if (old.get("kind"), old.get("predicted")) == (new.get("kind"), new.get("predicted")):
                continue
            change = "changed"
        else:
            change = "fixed" if new is None else "appeared"
        path = str((old or new or {}).get("path", key))
        records.append(
            {
                "case": base.names[i],
                "path": path,
                "change": change,
                "kind_before": old.get("kind") if old else None,
                "kind_after": new.get("kind") if new else None,
                "expected": (old or new or {}).get("expected"),
                "predicted_before": old.get("predicted") if old else _lookup(base.actual[i], path),
                "predicted_after": new.get("predicted") if new else _lookup(cand.actual[j], path),
            }
        )
    return records


def _case_row(run: str, case: str, before: tuple[Any, ...] | None, after: tuple[Any, ...] | None) -> dict[str, Any]:
    status_b, score_b, pass_b, reason_b = before or (None, math.nan, None, None)
    status_a, score_a, pass_a, reason_a = after or (None, math.nan, None, None)
    return {
        "case": case,
        "run": run,
        "status_before": status_b,
        "status_after": status_a,
        "score_before": score_b,
        "score_after": score_a,
        "delta": math.nan,
        "pass_before": pass_b,
        "pass_after": pass_a,
        "flip": None,
        "appeared": 0,
        "fixed": 0,
        "changed": 0,
        "reason_before": reason_b,
        "reason_after": reason_a,
    }


def _side(run: Run, index: int) -> tuple[Any, ...]:
    return run.status[index], float(run.score[index]), bool(run.passed[index]), run.reason[index]


def _regressions(fields: pd.DataFrame, cases: pd.DataFrame, changes: pd.DataFrame) -> pd.DataFrame:
    rows: list[dict[str, Any]] = []
    for record in fields[fields["verdict"] == "worse"].to_dict("records"):
        rows.append(
            {
                "kind": "field",
                "name": record["path"],
                "before": record["mean_before"],
                "after": record["mean_after"],
                "delta": record["delta"],
                "ci_low": record["ci_low"],
                "ci_high": record["ci_high"],
                "n_cases": record["n_cases"],
                "detail": f"{record['n_changed']} of {record['n_cases']} cases changed; "
                f"wrong {record['fd_before']} -> {record['fd_after']}, missed {record['fn_before']} -> "
                f"{record['fn_after']}, invented {record['fa_before']} -> {record['fa_after']}",
            }
        )
    appeared = changes[changes["change"] != "fixed"].groupby("case", sort=False)["path"].agg(list).to_dict()
    worse = cases[(cases["run"] == "both") & ((cases["delta"] < 0) | (cases["flip"] == "broken"))]
    worse = worse.assign(_broken=worse["flip"] != "broken").sort_values(["_broken", "delta", "case"], kind="stable")
    for record in worse.to_dict("records"):
        parts = []
        if record["flip"] == "broken":
            parts.append("broken: passed, now fails")
        if record["status_after"] != record["status_before"]:
            parts.append(f"now {record['status_after']}: {record['reason_after']}")
        paths = appeared.get(record["case"], [])
        if paths:
            listed = ", ".join(paths[:4]) + (f" (+{len(paths) - 4} more)" if len(paths) > 4 else "")
            parts.append(f"newly wrong: {listed}")
        rows.append(
            {
                "kind": "case",
                "name": record["case"],
                "before": record["score_before"],
                "after": record["score_after"],
                "delta": record["delta"],
                "ci_low": math.nan,
                "ci_high": math.nan,
                "n_cases": 1,
                "detail": "; ".join(parts) or "score fell; no field became wrong (partial scores or weights moved)",
            }
        )
    for record in cases[cases["run"] == "baseline only"].to_dict("records"):
        rows.append(
            {
                "kind": "case",
                "name": record["case"],
                "before": record["score_before"],
                "after": math.nan,
                "delta": math.nan,
                "ci_low": math.nan,
                "ci_high": math.nan,
                "n_cases": 0,
                "detail": "missing from the candidate run: not compared",
            }
        )
    frame = text_frame(pd.DataFrame, rows, columns=REGRESSION_COLUMNS)
    frame["n_cases"] = frame["n_cases"].astype("Int64")
    return frame


def build(base: Run, cand: Run, settings: dict[str, Any]) -> dict[str, Any]:
    """Every view of the comparison of `cand` against `base`: the keyword arguments of `Comparison`."""
    where = {name: j for j, name in enumerate(cand.names)}
    in_base = set(base.names)
    pairs = [(i, where[name]) for i, name in enumerate(base.names) if name in where]
    compared = [(i, j) for i, j in pairs if base.status[i] != "not applicable" and cand.status[j] != "not applicable"]
    bi = np.asarray([i for i, _ in compared], dtype=np.int64)
    ci = np.asarray([j for _, j in compared], dtype=np.int64)
    overall, headline = _overall(base, cand, bi, ci, settings)
    detailed = base.detailed[bi] & cand.detailed[ci] if len(bi) else np.zeros(0, dtype=bool)
    fields = _fields(base, cand, bi[detailed], ci[detailed], settings)

    compared_set = set(compared)
    detailed_set = {(int(i), int(j)) for i, j in zip(bi[detailed], ci[detailed], strict=True)}
    case_rows: list[dict[str, Any]] = []
    change_rows: list[dict[str, Any]] = []
    for i, j in pairs:
        row = _case_row("both", base.names[i], _side(base, i), _side(cand, j))
        if (i, j) in compared_set:
            row["delta"] = float(cand.score[j] - base.score[i])
            if base.passed[i] != cand.passed[j]:
                row["flip"] = "fixed" if cand.passed[j] else "broken"
        if (i, j) in detailed_set:
            changes = _non_match_changes(base, cand, i, j)
            change_rows.extend(changes)
            for kind in ("appeared", "fixed", "changed"):
                row[kind] = sum(1 for change in changes if change["change"] == kind)
        case_rows.append(row)
    case_rows += [
        _case_row("baseline only", name, _side(base, i), None) for i, name in enumerate(base.names) if name not in where
    ]
    case_rows += [
        _case_row("candidate only", name, None, _side(cand, j))
        for j, name in enumerate(cand.names)
        if name not in in_base
    ]
    cases = text_frame(pd.DataFrame, case_rows, columns=CASE_COLUMNS)
    for column in ("appeared", "fixed", "changed"):
        cases[column] = cases[column].astype("Int64")
    changes_frame = text_frame(pd.DataFrame, change_rows, columns=NON_MATCH_COLUMNS)
    summary = {
        "baseline": base.label,
        "candidate": cand.label,
        "evaluator": base.evaluator if base.evaluator == cand.evaluator else f"{base.evaluator} -> {cand.evaluator}",
        "cases_baseline": len(base.names),
        "cases_candidate": len(cand.names),
        "paired": len(pairs),
        "compared": len(compared),
        "only_baseline": len(base.names) - len(pairs),
        "only_candidate": len(cand.names) - len(pairs),
        "field_cases": int(detailed.sum()),
        **headline,
        "fields_better": int((fields["verdict"] == "better").sum()),
        "fields_worse": int((fields["verdict"] == "worse").sum()),
        **settings,
    }
    return {
        "summary": {key: _plain(value) for key, value in summary.items()},
        "overall": overall,
        "cases": cases,
        "fields": fields,
        "non_matches": changes_frame,
        "regressions": _regressions(fields, cases, changes_frame),
    }
