"""Every text-scanning path on adversarial input at 10 kB, 100 kB and 1 MB: does the cost grow linearly?

Run: `.venv/bin/python bench/adversarial.py [--sizes 10000 100000 1000000] [--repeat 3] [--budget 20]`

Each shape is input built to make one scanning path misbehave: brackets that nest and fail late (so
every candidate is re-parsed), whitespace that a leading `\\s*` re-scans, capital runs that a nested
quantifier retries, thousands of terms searched in a long answer, huge numbers, deep nesting. For every
path and shape it prints the median seconds over `--repeat` runs at each size and the growth ratio from
one size to the next: about 10 per 10x input is linear, about 100 quadratic, about 1,000 cubic.

A size is skipped (`skip`) when the previous one took so long that this one would pass `--budget`
seconds at the growth seen so far; the projected time is printed instead, so the script finishes on
code that is still quadratic. No assertion: read the ratios. Outcome column: what the path returned
at the largest size run (a form, `passed`, an error class name), so a shape that raises shows it.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from structsim_nb.answers import parse_answer, strip_think
from structsim_nb.json_match import contains_json, json_diff, json_field_match
from structsim_nb.trajectories.static_json import evaluate_static_json, extract_choice

Make = Callable[[int], Callable[[], Any]]
_X = {"clarification": "x"}


def _parse(make_text: Callable[[int], str]) -> Make:
    def make(n: int) -> Callable[[], Any]:
        text = make_text(n)
        return lambda: parse_answer(text).form

    return make


def _ladder(n: int) -> str:
    """99 nested lists, each holding a long run of numbers then its inner list then a bad token."""
    levels = 99
    run = "1," * max((n // levels - 5) // 2, 1)
    return "".join("[" + run for _ in range(levels)) + "1" + "] x" * levels


def _nested_late(n: int, item: str = "1,", depth: int = 99) -> str:
    """`depth` nested lists around a long run of `item`, failing at a bad token just before the closers."""
    return "[" * depth + item * max((n - 2 * depth - 1) // len(item), 1) + "x" + "]" * depth


def _fences(n: int) -> str:
    return "".join("```\n" + _nested_late(n // 5, depth=20) + "\n```\n" for _ in range(5))


def _cut_answer(n: int) -> str:
    """A long JSON answer of line items, cut mid-value the way a token limit cuts it."""
    item = '{"LineItemDescription": "NEWS 6PM", "LineItemRate": 350.0, "LineItemDays": "MTWTF"}, '
    text = '{"Agency": "Harbor Line", "LineItems": [' + item * max(n // len(item), 1)
    return text[: max(n, 40)]


def _call(make_text: Callable[[int], str], fn: Callable[[str], Any]) -> Make:
    def make(n: int) -> Callable[[], Any]:
        text = make_text(n)
        return lambda: fn(text)

    return make


def _static(gold: Callable[[int], Any], model: Callable[[int], Any], meta: Callable[[int], Any] | None = None) -> Make:
    def make(n: int) -> Callable[[], Any]:
        g, m = gold(n), model(n)
        md = meta(n) if meta else None
        return lambda: evaluate_static_json(g, m, evaluation_metadata=md).passed

    return make


def _words(count: int, prefix: str = "w") -> list[str]:
    return [f"{prefix}{index:x}" for index in range(count)]


def _car_terms_meta(n: int) -> dict[str, Any]:
    return {"mode": "clarification", "required_terms": _words(max(n // 16, 1), "term")}


def _pairs_file(n: int) -> Callable[[], Any]:
    from structsim_nb.dataset import read_pairs

    folder = Path(tempfile.mkdtemp(prefix="adversarial-"))
    line = json.dumps({"expected": {"a": "x" * 80}, "actual": {"a": "y" * 80}}) + "\n"
    path = folder / "pairs.jsonl"
    path.write_text(line * max(n // len(line), 1), encoding="utf-8")
    return lambda: sum(1 for _ in read_pairs(path))


def _report_file(n: int) -> Callable[[], Any]:
    from structsim_nb import StructuredOutputReport

    folder = Path(tempfile.mkdtemp(prefix="adversarial-"))
    count = max(n // 200, 1)
    data = {
        "overall_score": 0.5,
        "scores": [0.5] * count,
        "test_passes": [True] * count,
        "cases": [{"name": f"c{i}", "evaluator": "e"} for i in range(count)],
        "reasons": ["r" * 100] * count,
        "detailed_results": [[]] * count,
    }
    path = folder / "report.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return lambda: len(StructuredOutputReport.from_file(path).scores)


def _json_diff_wide(n: int) -> Callable[[], Any]:
    gold = {f"k{i}": i for i in range(max(n // 12, 1))}
    model = {f"k{i}": i + (i % 2) for i in range(max(n // 12, 1))}
    return lambda: json_diff(model, gold).score


def _json_field_wide(n: int) -> Callable[[], Any]:
    count = max(n // 12, 1)
    gold = {f"k{i}": i for i in range(count)}
    fields = [f"k{i}" for i in range(0, count, max(count // 50, 1))]
    return lambda: json_field_match(json.dumps(gold), gold, fields=fields).score


def _contains(make_text: Callable[[int], str]) -> Make:
    def make(n: int) -> Callable[[], Any]:
        text = make_text(n)
        return lambda: contains_json(text).passed

    return make


def _scrub(make_text: Callable[[int], str]) -> Make:
    def make(n: int) -> Callable[[], Any]:
        from structsim_nb.replay.scrub import default_scrub_rules, scrub_text

        text, rules = make_text(n), default_scrub_rules()
        return lambda: len(scrub_text(text, rules))

    return make


#: (path, shape, make): `make(n)` builds the input of about `n` characters and returns the call to time.
SHAPES: list[tuple[str, str, Make]] = [
    ("parse_answer", "nested 99 deep, fails late", _parse(_nested_late)),
    ("parse_answer", "two nested groups", _parse(lambda n: _nested_late(n // 2, depth=50) * 2)),
    ("parse_answer", "ladder [..[..] x] x]", _parse(_ladder)),
    ("parse_answer", "five fences, nested", _parse(_fences)),
    ("parse_answer", "python literal, fails late", _parse(lambda n: _nested_late(n, "'a',"))),
    ("parse_answer", "unclosed {", _parse(lambda n: "{" * n)),
    ("parse_answer", "nested [[..]] too deep", _parse(lambda n: "[" * (n // 2) + "]" * (n // 2))),
    ("parse_answer", "nested ((..))", _parse(lambda n: "(" * (n // 2) + ")" * (n // 2))),
    ("parse_answer", "many [] pairs", _parse(lambda n: "[]" * (n // 2))),
    ("parse_answer", "many {x}", _parse(lambda n: "{x}" * (n // 3))),
    ("parse_answer", "many [1,x] (each read)", _parse(lambda n: "[1,x]" * (n // 5))),
    ("parse_answer", 'repeated {"a":', _parse(lambda n: '{"a":' * (n // 5))),
    ("parse_answer", "quotes only", _parse(lambda n: '"' * n)),
    ("parse_answer", "apostrophes in [", _parse(lambda n: "[a'" * (n // 3))),
    ("parse_answer", "fence marks ```", _parse(lambda n: "```" * (n // 3))),
    ("parse_answer", "answer markers", _parse(lambda n: "Answer:\n" * (n // 8))),
    ("parse_answer", "marker + spaces", _parse(lambda n: "answer:" + " " * n + "x")),
    ("parse_answer", "'answer is' runs", _parse(lambda n: "answer is " * (n // 10))),
    ("parse_answer", "<think> unclosed", _parse(lambda n: "<think>" * (n // 7))),
    ("parse_answer", "prose then final JSON", _parse(lambda n: "The pump ran. " * (n // 14) + '{"energy": 14}')),
    ("parse_answer", "one huge number", _parse(lambda n: "7" * n)),
    ("parse_answer", "last line: label, spaces", _parse(lambda n: "notes\nanswer" + " " * n + "x")),
    ("parse_answer", "last line: number, spaces", _parse(lambda n: "notes\n34" + " " * n + "x")),
    # Cut off by a token limit: read as `repaired` (structsim_nb.repair, then json-repair).
    ("parse_answer", "cut-off JSON answer", _parse(lambda n: _cut_answer(n))),
    ("parse_answer", "cut-off, 99 open levels", _parse(lambda n: '{"a": [' * 99 + '"' + "x" * n)),
    ("parse_answer", "cut-off, many open strings", _parse(lambda n: '{"a": ["' + '", "' * (n // 4))),
    ("strip_think", "closed blocks", _call(lambda n: "<think>x</think>y" * (n // 17), lambda t: len(strip_think(t)))),
    ("extract_choice", "letter, spaces, word", _call(lambda n: "B" + " " * n + "x", extract_choice)),
    ("static_json MCQ", "letter, spaces, word", _static(lambda n: "A", lambda n: "B" + " " * n + "x")),
    ("static_json MCQ", "answer + spaces", _static(lambda n: "A", lambda n: "answer" + " " * n + "B")),
    ("static_json CAR", "gold of capitals", _static(lambda n: {"clarification": "A" * n}, lambda n: _X)),
    (
        "static_json CAR",
        "gold of quoted phrases",
        _static(lambda n: {"clarification": " ".join(f'"{w}"' for w in _words(n // 9))}, lambda n: _X),
    ),
    (
        "static_json CAR",
        "many terms, long answer",
        _static(
            lambda n: {"clarification": "x"},
            lambda n: {"clarification": " ".join(_words(n // 16, "term"))},
            _car_terms_meta,
        ),
    ),
    (
        "static_json",
        "wide dict",
        _static(lambda n: {f"k{i}": i for i in range(n // 12)}, lambda n: {f"k{i}": i + 1 for i in range(n // 12)}),
    ),
    ("static_json", "huge number leaf", _static(lambda n: {"a": 1}, lambda n: {"a": "9" * n})),
    ("static_json", "range-like leaf", _static(lambda n: {"a": "min: 1" + " " * n + "max: 2"}, lambda n: {"a": 1})),
    ("static_json", "quoted whole answer", _static(lambda n: "x", lambda n: '"' + "y" * n + '"')),
    ("json_diff", "wide dict", _json_diff_wide),
    ("json_field_match", "wide dict as text", _json_field_wide),
    ("contains_json", "nested 99 deep, fails late", _contains(_nested_late)),
    ("read_pairs", "JSON Lines file", _pairs_file),
    ("from_file", "report file", _report_file),
    ("scrub_text", "ARN-like runs", _scrub(lambda n: "arn:aws:" * (n // 8))),
    ("scrub_text", "account ids", _scrub(lambda n: "account id 123456789012 " * (n // 24))),
]


def _time(call: Callable[[], Any], repeat: int) -> tuple[float, str]:
    times, outcome = [], ""
    for _ in range(repeat):
        start = time.perf_counter()
        try:
            outcome = str(call())
        except Exception as exc:  # noqa: BLE001 - a bench reports what a path raised
            outcome = f"raises {type(exc).__name__}"
        times.append(time.perf_counter() - start)
        if times[-1] > 5:  # one slow run is enough to read the growth
            break
    return statistics.median(times), outcome


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--repeat", type=int, default=3, help="runs per size, median taken (default: %(default)s)")
    parser.add_argument("--budget", type=float, default=20.0, help="skip a size projected over this many seconds")
    parser.add_argument("--only", help="run only paths or shapes containing this text")
    args = parser.parse_args()
    sizes = sorted(args.sizes)
    head = "".join(f"{f'{size:,} s':>13}" for size in sizes)
    growth = "".join(f"{'x' + str(i + 1):>8}" for i in range(len(sizes) - 1))
    print(f"median of {args.repeat} runs; growth xN = time at size N+1 / time at size N (linear: ~10 per 10x)")
    print(f"{'path':18} {'shape':30}{head}{growth}  outcome")
    for path, shape, make in SHAPES:
        if args.only and args.only not in path and args.only not in shape:
            continue
        medians: list[float | None] = []
        outcome = ""
        for index, size in enumerate(sizes):
            previous = [m for m in medians if m is not None]
            if previous and index >= 1:
                step = size / sizes[index - 1]
                rate = previous[-1] / previous[-2] if len(previous) >= 2 and previous[-2] > 0 else step
                projected = previous[-1] * max(rate, step)
                if medians[-1] is None or projected > args.budget:
                    medians.append(None)
                    outcome = outcome or f"projected {projected:,.0f} s at {size:,}"
                    continue
            median, outcome = _time(make(size), args.repeat)
            medians.append(median)
        cells = "".join(f"{'skip':>13}" if m is None else f"{m:13.4f}" for m in medians)
        ratios = "".join(
            f"{b / a:8.1f}" if a is not None and b is not None and a > 0 else f"{'-':>8}"
            for a, b in zip(medians, medians[1:], strict=False)
        )
        print(f"{path:18} {shape:30}{cells}{ratios}  {outcome}", flush=True)


if __name__ == "__main__":
    main()
