"""Worst-case timing of `structsim_nb.answers.parse_answer` on adversarial text.

Run: `/tmp/venv/bin/python bench/parser_worst_case.py [--chars 200000] [--repeat 5]`

Prints, per input shape, the median seconds over `--repeat` runs, the microseconds per
thousand characters, and the ratio of the median at `--chars` to the median at a tenth of
it (about 10 for linear growth, about 100 for quadratic). No assertion: read the numbers.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

from structsim_nb.answers import parse_answer

SHAPES: dict[str, Callable[[int], str]] = {
    "unclosed {": lambda n: "{" * n,
    "unclosed (": lambda n: "(" * n,
    "nested [[..]] (too deep)": lambda n: "[" * (n // 2) + "]" * (n // 2),
    "nested ((..))": lambda n: "(" * (n // 2) + ")" * (n // 2),
    "many [] pairs": lambda n: "[]" * (n // 2),
    "many {x} (unparseable)": lambda n: "{x}" * (n // 3),
    'repeated {"a":': lambda n: '{"a":' * (n // 5),
    "quotes only": lambda n: '"' * n,
    "apostrophes in [": lambda n: "[a'" * (n // 3),
    "tuple prefixes [(1,": lambda n: "[(1," * (n // 4),
    "fence marks ```": lambda n: "```" * (n // 3),
    "answer markers": lambda n: "Answer:\n" * (n // 8),
    "'answer is' runs": lambda n: "answer is " * (n // 10),
    "marker + spaces": lambda n: "answer:" + " " * n + "x",
    "prose then final JSON": lambda n: "The pump ran. " * (n // 14) + '{"energy": 14, "material": 48}',
    "mixed {[( then )]}": lambda n: "{[(" * (n // 6) + ")]}" * (n // 6),
    # A long answer cut off by a token limit: read as `repaired` (one more scan, then json-repair).
    "cut-off JSON answer": lambda n: ('{"items": [' + '{"a": "xxxxxxxx", "b": 1.5, "c": null}, ' * n)[:n],
}


def _median(text: str, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        parse_answer(text)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=200_000, help="input size (default: %(default)s)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per shape (default: %(default)s)")
    args = parser.parse_args()
    small = max(args.chars // 10, 1)
    print(f"parse_answer worst cases: median of {args.repeat} runs; ratio = median at {args.chars:,} / at {small:,}")
    print(f"{'shape':28} {'median s':>10} {'us/kchar':>10} {'ratio':>7}  form")
    for name, make in SHAPES.items():
        text = make(args.chars)
        median = _median(text, args.repeat)
        small_median = _median(make(small), args.repeat)
        ratio = median / small_median if small_median > 0 else float("nan")
        form = parse_answer(text).form
        print(f"{name:28} {median:10.4f} {median * 1e9 / max(len(text), 1):10.2f} {ratio:7.1f}  {form}")


if __name__ == "__main__":
    main()
