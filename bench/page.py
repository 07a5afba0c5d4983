"""Report page size and render time at 1,000 and 10,000 cases, against the page it replaced.

The reference is the report page as it was before issue 12 (`legacy_page` below, the old
`StructuredOutputReport.to_html` reproduced verbatim: three unstyled pandas tables, every row of
every table in the HTML). The new page is `report.to_html()`: tiles, four SVG charts, and tables
drawn from embedded JSON one page (25 rows) at a time, with truth and prediction embedded for the
`report_page.DETAILS_LIMIT` worst rows.

For each corpus size (synthetic invoices from `structsim_nb.demo.synthetic_invoice_pairs`, 1 to 8
line items, seeded, scored once with `score_dataset`), it times building each page in Python
(median of `--runs`, the two pages interleaved) and records its size; with `--browser` (Debian's
chromium through playwright) it also opens each page from a file and records the time until the
page is ready (the `load` event; for the new page also its tables drawn), the number of DOM
elements, and the page height in 900-pixel screens. Then the notebook display (`_repr_html_`)
size, old against new.

Run: `python bench/page.py` (1,000 and 10,000 cases, 3 runs, with the browser: about five minutes on
two cores), or `--sizes 200 1000 --runs 5`, `--no-browser`.
"""

from __future__ import annotations

import argparse
import html
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from structsim_nb import StructuredOutputReport, score_dataset
from structsim_nb.demo import Invoice, synthetic_invoice_pairs

LINE_ITEMS = (1, 8)
SEED = 7


def legacy_body(report: StructuredOutputReport, *, top_fields: int | None) -> str:
    """The report HTML body before issue 12 (`_html_body` at commit 42930ef), unchanged."""
    summary = report.summary()
    evaluators = sorted({str(case.get("evaluator")) for case in report.cases})
    parts = [
        f"<p>{html.escape(name)}: <b>{figures['cases']}</b> rows, {figures['scored']} scored, "
        f"{figures['unreadable']} unreadable, {figures['not_applicable']} not applicable"
        + (f", {figures['errors']} error{'s' if figures['errors'] != 1 else ''}" if figures["errors"] else "")
        + f"; {figures['passed']} passed; overall score <b>{figures['overall_score']:.3f}</b></p>"
        for name, figures in ((name, report.summary(evaluator=name)) for name in evaluators)
    ]
    parts += [
        "<h4>Cases</h4>",
        report.cases_frame().to_html(index=False, float_format=lambda value: f"{value:.3f}", na_rep=""),
    ]
    if summary["scored"]:
        try:
            fields = report.fields_frame()
        except ValueError:
            fields = None
        if fields is not None:
            shown = fields if top_fields is None else fields.head(top_fields)
            title = "Fields, worst first" + ("" if top_fields is None else f" (top {len(shown)} of {len(fields)})")
            parts += [f"<h4>{title}</h4>", shown.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep="")]
        try:
            misses = report.non_matches_frame()
        except ValueError:
            misses = None
        if misses is not None:
            parts += [
                f"<h4>Non-matches ({len(misses)})</h4>",
                misses.to_html(index=False, float_format=lambda v: f"{v:.3f}", na_rep=""),
            ]
    return "\n".join(parts)


def legacy_page(report: StructuredOutputReport, *, title: str = "structsim-nb report") -> str:
    """The standalone page before issue 12 (`to_html` at commit 42930ef), unchanged."""
    return (
        "<!DOCTYPE html>\n<html><head><meta charset='utf-8'>"
        f"<title>{html.escape(title)}</title>"
        "<style>body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;font-size:13px}"
        "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}</style></head><body>"
        f"<h2>{html.escape(title)}</h2>\n{legacy_body(report, top_fields=None)}\n</body></html>\n"
    )


def _timed(build: Any, *args: Any) -> tuple[float, str]:
    start = time.perf_counter()
    text = build(*args)
    return time.perf_counter() - start, text


def _browse(pages: dict[str, Path], runs: int) -> dict[str, dict[str, float]]:
    """Per page: median seconds to ready, DOM elements, height in 900-px screens (Debian's chromium)."""
    from playwright.sync_api import sync_playwright

    found: dict[str, dict[str, list[float]]] = {name: {"ready": [], "elements": [], "screens": []} for name in pages}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
        )
        for _ in range(runs):
            for name, path in pages.items():
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                start = time.perf_counter()
                page.goto(path.as_uri(), wait_until="load", timeout=600_000)
                if name == "new":
                    page.wait_for_function("() => window.ssTables && window.ssTables['cases']", timeout=600_000)
                found[name]["ready"].append(time.perf_counter() - start)
                found[name]["elements"].append(page.evaluate("() => document.getElementsByTagName('*').length"))
                found[name]["screens"].append(page.evaluate("() => document.documentElement.scrollHeight / 900"))
                page.close()
        browser.close()
    return {
        name: {key: statistics.median(values) for key, values in figures.items()} for name, figures in found.items()
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-browser", dest="browser", action="store_false")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="structsim-page-bench-"))
    rows = []
    for size in args.sizes:
        print(f"scoring {size} documents", file=sys.stderr)
        report = score_dataset(
            synthetic_invoice_pairs(size, line_items=LINE_ITEMS, seed=SEED), model_cls=Invoice, progress=False
        )
        times: dict[str, list[float]] = {"legacy": [], "new": []}
        texts: dict[str, str] = {}
        for run in range(args.runs):
            order = ["legacy", "new"] if run % 2 == 0 else ["new", "legacy"]
            for name in order:
                seconds, text = _timed(legacy_page, report) if name == "legacy" else _timed(report.to_html)
                times[name].append(seconds)
                texts[name] = text
            print(f"  run {run + 1}/{args.runs}", file=sys.stderr)
        paths = {name: folder / f"{name}-{size}.html" for name in texts}
        for name, path in paths.items():
            path.write_text(texts[name], encoding="utf-8")
        browsed = _browse(paths, args.runs) if args.browser else {}
        fragments = {
            "legacy": len(legacy_body(report, top_fields=10).encode()),
            "new": len(report._repr_html_().encode()),
        }
        rows.append((size, times, texts, browsed, fragments))

    print(
        f"report page, median of {args.runs} runs (python {sys.version.split()[0]}; synthetic invoices, "
        f"{LINE_ITEMS[0]}-{LINE_ITEMS[1]} line items, seed {SEED})"
    )
    header = f"{'cases':>6}  {'page':<7}{'MB':>7}{'build s':>9}"
    header += f"{'ready s':>9}{'elements':>10}{'screens':>9}" if args.browser else ""
    header += f"{'repr KB':>9}"
    print(header)
    print("-" * len(header))
    for size, times, texts, browsed, fragments in rows:
        for name in ("legacy", "new"):
            line = f"{size:>6}  {name:<7}{len(texts[name].encode()) / 1e6:>7.2f}{statistics.median(times[name]):>9.2f}"
            if browsed:
                figures = browsed[name]
                line += f"{figures['ready']:>9.2f}{figures['elements']:>10,.0f}{figures['screens']:>9.1f}"
            line += f"{fragments[name] / 1e3:>9.1f}"
            print(line)
        build = statistics.median(times["new"]) / statistics.median(times["legacy"])
        line = f"{size:>6}  {'new/old':<7}{len(texts['new']) / len(texts['legacy']):>6.2f}x{build:>8.2f}x"
        if browsed:
            line += f"{browsed['new']['ready'] / browsed['legacy']['ready']:>8.2f}x"
            line += f"{browsed['new']['elements'] / browsed['legacy']['elements']:>9.3f}x"
            line += f"{browsed['new']['screens'] / browsed['legacy']['screens']:>8.3f}x"
        line += f"{fragments['new'] / fragments['legacy']:>8.2f}x"
        print(line)
        print()
    print(f"pages written to {folder}", file=sys.stderr)


if __name__ == "__main__":
    main()
