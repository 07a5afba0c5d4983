"""The JSON evaluators against Agenta's own algorithms, on the same inputs.

`agenta_*` below are Agenta's four deterministic JSON evaluators written from their description
in `/work/shared/reference/json_match_evaluators.md` (auto_exact_match, auto_contains_json,
json_multi_field_match with dot-notation paths, auto_json_diff): the reference algorithm, with
none of this project's reading, reasons or per-field detail. Each workload is scored by both
sides; the script checks they give the same score (the inputs avoid the cases where this
project deliberately differs: nulls, missing-on-both paths, case folding), then times each
call, interleaved, and prints the median microseconds per call and ours / Agenta (the median of
each round's own ratio: the two sides of a ratio run seconds apart, so the machine's drift cancels).

Three figures for ours: the scoring function (`json_diff(...)`, returning a `JsonMatchResult`:
score, pass, reason and notes; diff and exact match make their per-leaf `FieldResult`s when
`fields` is first read), the function with every field read (`list(result.fields)`), and the
Strands Evals row (`JsonDiff().evaluate(case)`, which also writes every field into the row's
metadata, as a report stores it). Agenta returns a score and nothing else.

Run: `python bench/json_match_speed.py [--runs 7]`. Timing is printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from strands_evals.types.evaluation import EvaluationData

from structsim_nb.json_match import (
    ContainsJson,
    ExactMatch,
    JsonDiff,
    JsonFieldMatch,
    contains_json,
    exact_match,
    json_diff,
    json_field_match,
)

# -- Agenta's algorithms (reference behaviour, §1-§5 of the reference document) ----------------


def agenta_exact_match(output: Any, gt: Any) -> float:
    if isinstance(output, str) and isinstance(gt, str):
        return float(output == gt)
    if isinstance(output, dict) and isinstance(gt, dict):
        return float(json.dumps(output, sort_keys=True) == json.dumps(gt, sort_keys=True))
    return 0.0


def agenta_contains_json(output: Any) -> float:
    if isinstance(output, dict):
        output = json.dumps(output)
    try:
        json.loads(output[output.index("{") : output.rindex("}") + 1])
    except Exception:  # noqa: BLE001 - Agenta: any failure is False
        return 0.0
    return 1.0


def _agenta_resolve(expr: str, data: Any) -> Any:
    """`resolve_any` for dot notation: a literal top-level key first, then `.`-separated steps."""
    if not expr:
        raise KeyError(expr)
    if "[" in expr or "]" in expr:
        raise ValueError(expr)
    if isinstance(data, dict) and expr in data:
        return data[expr]
    current = data
    for token in (t for t in expr.split(".") if t):
        if isinstance(current, list) and token.isdigit():
            current = current[int(token)]
        elif isinstance(current, dict) and token in current:
            current = current[token]
        else:
            raise KeyError(token)
    return current


def _agenta_value(expr: str, data: Any) -> Any:
    try:
        return _agenta_resolve(expr, data)
    except (KeyError, IndexError, ValueError, TypeError):
        return None


def agenta_multi_field(output: Any, gt: Any, fields: Sequence[str]) -> float:
    expected = json.loads(gt) if isinstance(gt, str) else gt
    if isinstance(output, str):
        try:
            output = json.loads(output)
        except json.JSONDecodeError:
            return 0.0
    if not isinstance(output, dict):
        return 0.0
    matched = sum(1 for f in fields if _agenta_value(f, expected) == _agenta_value(f, output))
    return matched / len(fields)


def _agenta_flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    flat: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            flat.update(_agenta_flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            flat.update(_agenta_flatten(item, f"{prefix}.{index}" if prefix else str(index)))
    elif prefix:
        flat[prefix] = value
    return flat


def agenta_json_diff(output: Any, gt: Any) -> float:
    expected = json.loads(gt) if isinstance(gt, str) else gt
    produced = json.loads(output) if isinstance(output, str) else output
    g, o = _agenta_flatten(expected), _agenta_flatten(produced)
    keys = list(g)
    if not keys:
        return 0.0
    hits = sum(1 for k in keys if g.get(k) is not None and o.get(k) is not None and g[k] == o[k])
    return hits / len(keys)


# -- workloads ------------------------------------------------------------------------------


def invoice(items: int, rng: random.Random) -> dict[str, Any]:
    return {
        "invoice_id": f"INV-{rng.randrange(10**6)}",
        "vendor": {"name": "Acme Corporation", "address": {"city": "Springfield", "zip": "01101"}},
        "currency": "USD",
        "total": round(rng.uniform(10, 10_000), 2),
        "line_items": [
            {
                "sku": f"SKU-{i:04d}",
                "description": f"Item number {i}",
                "quantity": rng.randrange(1, 20),
                "unit_price": round(rng.uniform(1, 500), 2),
                "tags": ["a", "b"],
            }
            for i in range(items)
        ],
    }


def altered(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    out = json.loads(json.dumps(doc))
    out["vendor"]["address"]["zip"] = "01102"
    for item in out["line_items"]:
        if rng.random() < 0.2:
            item["quantity"] += 1
    return out


FIELDS = [
    "invoice_id",
    "vendor.name",
    "vendor.address.city",
    "vendor.address.zip",
    "currency",
    "total",
    "line_items.0.sku",
    "line_items.0.quantity",
    "line_items.1.unit_price",
    "line_items.2.description",
]


def workloads(rng: random.Random) -> list[tuple[str, Callable[[], Any], Callable[[], Any], Callable[[], Any]]]:
    """`(name, agenta call, our function, our evaluator row)` per workload."""
    small, large = invoice(3, rng), invoice(198, rng)  # ~35 and ~1,000 leaves
    small_p, large_p = altered(small, rng), altered(large, rng)
    large_text, large_p_text = json.dumps(large), json.dumps(large_p)
    prose = f"Here is the extraction:\n```json\n{large_p_text}\n```\nDone."
    indented = f"Here is the extraction:\n```json\n{json.dumps(large_p, indent=2)}\n```\nDone."
    accented = json.loads(large_p_text)  # real invoices name people and places in their own letters
    accented["vendor"]["name"], accented["vendor"]["address"]["city"] = "Café Müller — Straße 5", "Zürich"
    indented_utf8 = f"Here is the extraction:\n```json\n{json.dumps(accented, indent=2, ensure_ascii=False)}\n```"
    indented_escaped = f"Here is the extraction:\n```json\n{json.dumps(accented, indent=2)}\n```\nDone."
    large_one_off = json.loads(large_text)
    large_one_off["line_items"][-1]["quantity"] += 1
    field_eval, diff_eval, exact_eval, contains_eval = JsonFieldMatch(FIELDS), JsonDiff(), ExactMatch(), ContainsJson()

    def row(evaluator: Any, actual: Any, expected: Any) -> Callable[[], Any]:
        case = EvaluationData(input="", actual_output=actual, expected_output=expected)
        return lambda: evaluator.evaluate(case)

    return [
        (
            "json_field_match, 10 fields, ~35 leaves",
            lambda: agenta_multi_field(small_p, small, FIELDS),
            lambda: json_field_match(small_p, small, fields=field_eval._paths),
            row(field_eval, small_p, small),
        ),
        (
            "json_field_match, 10 fields, ~1,000 leaves",
            lambda: agenta_multi_field(large_p, large, FIELDS),
            lambda: json_field_match(large_p, large, fields=field_eval._paths),
            row(field_eval, large_p, large),
        ),
        (
            "json_field_match, 10 fields, ~1,000 leaves, text",
            lambda: agenta_multi_field(large_p_text, large_text, FIELDS),
            lambda: json_field_match(large_p_text, large_text, fields=field_eval._paths),
            row(field_eval, large_p_text, large_text),
        ),
        (
            "json_diff, ~35 leaves",
            lambda: agenta_json_diff(small_p, small),
            lambda: json_diff(small_p, small),
            row(diff_eval, small_p, small),
        ),
        (
            "json_diff, ~1,000 leaves",
            lambda: agenta_json_diff(large_p, large),
            lambda: json_diff(large_p, large),
            row(diff_eval, large_p, large),
        ),
        (
            "json_diff, ~1,000 leaves, JSON text",
            lambda: agenta_json_diff(large_p_text, large_text),
            lambda: json_diff(large_p_text, large_text),
            row(diff_eval, large_p_text, large_text),
        ),
        (
            "exact_match, ~1,000 leaves, equal dicts",
            lambda: agenta_exact_match(large, json.loads(large_text)),
            lambda: exact_match(large, json.loads(large_text)),
            row(exact_eval, large, json.loads(large_text)),
        ),
        (
            "exact_match, ~1,000 leaves, one value differs",
            lambda: agenta_exact_match(large, large_one_off),
            lambda: exact_match(large, large_one_off),
            row(exact_eval, large, large_one_off),
        ),
    ] + [
        (
            f"contains_json, ~1,000 leaves, {name}",
            partial(agenta_contains_json, text),
            partial(contains_json, text),
            row(contains_eval, text, None),
        )
        for name, text in [
            ("fenced block", prose),
            ("indented, fenced", indented),
            ("indented, accents", indented_utf8),
            ("indented, \\u escapes", indented_escaped),
        ]
    ]


def per_call(call: Callable[[], Any], seconds: float) -> float:
    """Microseconds per call: as many calls as fit in `seconds`, at least three."""
    count, start = 0, time.perf_counter()
    while count < 3 or time.perf_counter() - start < seconds:
        call()
        count += 1
    return (time.perf_counter() - start) / count * 1e6


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="interleaved rounds; the median is printed (default 7)")
    parser.add_argument("--seconds", type=float, default=0.2, help="time per measurement (default 0.2)")
    args = parser.parse_args(argv)
    named = workloads(random.Random(17))
    for name, agenta, ours, row in named:
        theirs, got = agenta(), ours()
        if abs(theirs - got.score) > 1e-12:
            raise SystemExit(
                f"{name}: Agenta scores {theirs}, ours {got.score}; the timings would compare different work"
            )
        row_score = row()[0].score
        if abs(row_score - got.score) > 1e-12:
            raise SystemExit(f"{name}: the evaluator row scores {row_score}, the function {got.score}")
    print(
        f"JSON evaluators against Agenta's algorithms: median us per call over {args.runs} interleaved rounds, "
        "and the median of each round's ratio "
        f"(python {sys.version.split()[0]}); load average {os.getloadavg()[0]:.2f}"
    )
    print(
        f"{'workload':<48} {'Agenta':>8} {'ours':>8} {'+fields':>8} {'row':>8} "
        f"{'ours/A':>7} {'+fields/A':>9} {'row/A':>6}"
    )
    for name, agenta, ours, row in named:
        figures: dict[str, list[float]] = {"agenta": [], "ours": [], "fields": [], "row": []}

        def with_fields(call: Callable[[], Any] = ours) -> Any:
            result = call()
            return list(result.fields)

        for index in range(args.runs):
            calls = [("agenta", agenta), ("ours", ours), ("fields", with_fields), ("row", row)]
            for key, call in calls[index % 4 :] + calls[: index % 4]:
                figures[key].append(per_call(call, args.seconds))
        a, o, f, r = (statistics.median(figures[key]) for key in ("agenta", "ours", "fields", "row"))
        # Each ratio is the median of the rounds' own ratios (paired: the machine's drift between rounds cancels).
        o_a, f_a, r_a = (
            statistics.median(mine / theirs for mine, theirs in zip(figures[key], figures["agenta"], strict=True))
            for key in ("ours", "fields", "row")
        )
        print(f"{name:<48} {a:>8.1f} {o:>8.1f} {f:>8.1f} {r:>8.1f} {o_a:>6.2f}x {f_a:>8.2f}x {r_a:>5.2f}x")
    print(f"scores identical to Agenta's on every workload: yes; load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
