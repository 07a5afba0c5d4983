"""Long tables: per-document cost against list length, before and after vectorised matching.

Times `evaluate()` per document on generated invoices (`structsim_nb.demo.synthetic_invoice_pairs`,
seeded, with the realistic extraction errors it documents) at each list length, for:

- `upstream`: Strands Evals' `StructuredOutputSimilarity` (stickler's engine; no records);
- `before`: this project's evaluator as it was before vectorised matching: one stickler
  `compare_with(document_non_matches=True)` per document, whose collector matches every list a
  second time (kept here as `_StockDocumentingSpec`, the old `_DocumentingSpec`);
- `engine`: `StructuredOutputSimilarity(fast_matching=False)`: the engine's per-pair path, each
  list matched once, records read off that matching;
- `ours`: `StructuredOutputSimilarity` with the defaults (vectorised matching, non-matches on);
- `ours-off`: `StructuredOutputSimilarity(non_matches=False)` (vectorised, no records).

Before timing, every document is scored by every approach and the rows are compared: `ours`,
`engine` and `before` must give identical rows (score, pass, reason, label and the whole
metadata, records included, as JSON), and `ours-off` the `upstream` row. Approaches are timed
in rotating order over all documents of a length, `--runs` times; the table prints the median
ms per document, its ratio to `upstream` and `ours / ours-off`, then the growth exponent of each
approach between the shortest and longest length of at least 10 items (the slope of log time
against log length: 2 is quadratic, 1 linear).

Run: `python bench/list_matching.py` (lengths 1 5 10 20 50 100 200, about 15 minutes on two
cores, mostly the engine's own paths at 100 and 200 items), or
`--lengths 10 100 --runs 5 --skip before engine` for the vectorised paths only. `--odd` writes
one value a model refuses into a line item of each predicted document (`ODD_VALUES`: real
extraction output holds such values), so every document is read leniently; `before` is then the
lenient path as it was until 2026-12-02 (stickler's `compare_with`, every list matched twice) and
`upstream` scores the document 0.0 without comparing it (its time is shown, not its rows).
`--nested` scores `PricedInvoice`, whose line items hold their price as an object: `ours` pairs the
items from vectorised similarities and compares each matched pair with the engine (`paired` in
`explain()`), `engine` pairs them pair by pair. `--serials` scores `SerialInvoice`, whose line items hold
a list of serial numbers: `ours` pairs the items from vectorised similarities (each pair of serial-number
lists scored as the engine scores it, `innerlists`), `engine` pairs them pair by pair. `--taxes` scores
`TaxedInvoice`, whose line items hold a list of tax objects: `ours` pairs the items the same way (each pair
of tax lists matched as the engine matches them), `engine` pairs them pair by pair. `--deep` scores
`DeepInvoice`, whose line items' prices hold their converted amount as an object of its own: `ours` pairs
the items from vectorised similarities through both levels (`fastmatch.NestedPlan`). `--tags` scores
`ProductInvoice`, whose line items hold a product object holding a list of tags: paired the same way.
`--breakdown` scores `BrokenDownInvoice`, whose line items hold a tax object holding a list of tax objects:
paired the same way (the tax lists matched as the engine matches them, one level down).
Timing is printed, never asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from importlib.metadata import version
from typing import Any

from pydantic import BaseModel
from stickler.auto.facade import EvalResult, EvalSpec, _dump
from strands_evals.evaluators.deterministic.structured_output import (
    StructuredOutputSimilarity as UpstreamSimilarity,
)
from strands_evals.types.evaluation import EvaluationData, EvaluationOutput

from structsim_nb import StructuredOutputSimilarity
from structsim_nb.demo import Invoice, synthetic_invoice_pairs

Approach = Callable[[EvaluationData[Any, Any]], list[EvaluationOutput]]


class Price(BaseModel):
    """A line item's price as an object (`--nested`): many real schemas nest money this way."""

    amount: float | None = None
    currency: str | None = None


class PricedLineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: Price | None = None


class PricedInvoice(BaseModel):
    """`demo.Invoice` with each line item's `unit_price` nested (`--nested`)."""

    invoice_id: str
    vendor_name: str
    invoice_date: str | None = None
    total_amount: float | None = None
    line_items: list[PricedLineItem] = []


class Converted(BaseModel):
    amount: float | None = None
    currency: str | None = None


class DeepPrice(BaseModel):
    """A price with its amount in the buyer's currency nested inside it (`--deep`): an object in an object."""

    amount: float | None = None
    currency: str | None = None
    converted: Converted | None = None


class DeepLineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: DeepPrice | None = None


class DeepInvoice(BaseModel):
    """`demo.Invoice` with each line item's `unit_price` an object holding an object (`--deep`)."""

    invoice_id: str
    vendor_name: str
    invoice_date: str | None = None
    total_amount: float | None = None
    line_items: list[DeepLineItem] = []


class Product(BaseModel):
    name: str | None = None
    tags: list[str] = []


class ProductLineItem(BaseModel):
    sku: str | None = None
    quantity: int | None = None
    unit_price: float | None = None
    product: Product | None = None


class ProductInvoice(BaseModel):
    """`demo.Invoice` with each line item's description a product object holding a list of tags (`--tags`)."""

    invoice_id: str
    vendor_name: str
    invoice_date: str | None = None
    total_amount: float | None = None
    line_items: list[ProductLineItem] = []


TAGS = ["steel", "brass", "coated", "bulk", "spare", "import"]


class SerialLineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None
    serial_numbers: list[str] = []


class SerialInvoice(BaseModel):
    """`demo.Invoice` with each line item's serial numbers (`--serials`): a list inside every element."""

    invoice_id: str
    vendor_name: str
    invoice_date: str | None = None
    total_amount: float | None = None
    line_items: list[SerialLineItem] = []


class Tax(BaseModel):
    kind: str | None = None
    rate: float | None = None
    amount: float | None = None


class TaxedLineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None
    taxes: list[Tax] = []


class TaxedInvoice(BaseModel):
    """`demo.Invoice` with each line item's taxes (`--taxes`): a list of objects inside every element."""

    invoice_id: str
    vendor_name: str
    invoice_date: str | None = None
    total_amount: float | None = None
    line_items: list[TaxedLineItem] = []


class TaxBreakdown(BaseModel):
    total: float | None = None
    lines: list[Tax] = []


class BrokenDownLineItem(BaseModel):
    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None
    tax: TaxBreakdown | None = None


class BrokenDownInvoice(BaseModel):
    """`demo.Invoice` with each line item's tax an object holding its total and a list of tax lines (`--breakdown`):
    a list of objects inside a nested object inside every element."""

    invoice_id: str
    vendor_name: str
    invoice_date: str | None = None
    total_amount: float | None = None
    line_items: list[BrokenDownLineItem] = []


LENGTHS = [1, 5, 10, 20, 50, 100, 200]


class _StockDocumentingSpec(EvalSpec):  # type: ignore[misc]
    """The evaluator's spec before vectorised matching: stickler's one-call `document_non_matches`."""

    def evaluate(self, ground_truth: Any, prediction: Any) -> EvalResult:
        gt = self.eval_model.from_json(_dump(self._coerce(ground_truth)))
        pred = self.eval_model.from_json(_dump(self._coerce(prediction)))
        raw = gt.compare_with(pred, include_confusion_matrix=True, add_derived_metrics=True, document_non_matches=True)
        return EvalResult(raw, self, ground_truth=gt, prediction=pred)


def _before(model: type[BaseModel]) -> Approach:
    evaluator = StructuredOutputSimilarity(model, fast_matching=False)
    spec = evaluator._spec.inner  # (inside the wrapper that sends a side read leniently to `lenient.compare`)
    # The stock spec has no `compare_models`, so `lenient.compare` calls stickler's `compare_with` for it, as it
    # did for every document with an odd value before 2026-12-02.
    evaluator._spec.inner = _StockDocumentingSpec(
        spec.source_cls, spec.eval_model, weight_hints=spec._weight_hints, match_threshold=spec._match_threshold
    )
    return evaluator.evaluate  # type: ignore[no-any-return]


def approaches(skip: Sequence[str], model: type[BaseModel] = Invoice) -> dict[str, Approach]:
    named: dict[str, Callable[[], Approach]] = {
        "upstream": lambda: UpstreamSimilarity(model).evaluate,
        "before": lambda: _before(model),
        "engine": lambda: StructuredOutputSimilarity(model, fast_matching=False).evaluate,
        "ours": lambda: StructuredOutputSimilarity(model).evaluate,
        "ours-off": lambda: StructuredOutputSimilarity(model, non_matches=False).evaluate,
    }
    return {name: make() for name, make in named.items() if name not in skip}


#: What `--odd` writes into each predicted document, in turn: values a model refuses, read leniently.
ODD_VALUES: list[tuple[str, Any]] = [
    ("quantity", "N/A"),
    ("unit_price", "$1,2O0.00"),
    ("quantity", "2 pcs"),
    ("unit_price", "see attached"),
]


def cases(
    count: int,
    items: int,
    seed: int,
    *,
    odd: bool = False,
    nested: bool = False,
    serials: bool = False,
    taxes: bool = False,
    deep: bool = False,
    tags: bool = False,
    breakdown: bool = False,
) -> list[EvaluationData[Any, Any]]:
    """Seeded invoice pairs; with `odd`, each predicted side is a dict with one line item value that does not
    validate (from `ODD_VALUES`, in a line item chosen by the seed), so the evaluator reads it leniently; with
    `nested`, both sides are `PricedInvoice` dicts (each unit price an object with its currency, the invoice's
    `USD`, or `EUR` for one line in seven of the prediction); with `serials`, `SerialInvoice` dicts (one to
    three serial numbers a line, the prediction missing the last of them in one line in five); with `taxes`,
    `TaxedInvoice` dicts (one or two taxes a line, the prediction missing the second in one line in five and
    with another rate in one in seven); with `deep`, `DeepInvoice` dicts (`nested`'s prices, each also
    holding its amount converted to EUR, the prediction's conversion off by a cent in one line in five); with
    `tags`, `ProductInvoice` dicts (each description moved into a product object with zero to three tags, the
    prediction missing the last tag in one line in five); with `breakdown`, `BrokenDownInvoice` dicts (`taxes`'
    tax lists, each inside a tax object with their total)."""
    out = []
    for index, pair in enumerate(synthetic_invoice_pairs(count, line_items=items, seed=seed)):
        expected: Any = pair["expected"]
        actual: Any = pair["actual"]
        if serials:
            expected, actual = expected.model_dump(mode="json"), actual.model_dump(mode="json")
            for side in (expected, actual):
                for line in side["line_items"]:
                    # Keyed by the line's SKU, so a reordered or altered prediction keeps its line's serials.
                    sku = str(line.get("sku"))
                    count_ = 1 + sum(map(ord, sku)) % 3
                    line["serial_numbers"] = [f"SN-{sku}-{k}" for k in range(count_)]
                    if side is actual and count_ > 1 and sum(map(ord, sku)) % 5 == 0:
                        line["serial_numbers"].pop()
        if taxes or breakdown:
            expected, actual = expected.model_dump(mode="json"), actual.model_dump(mode="json")
            for side in (expected, actual):
                for line in side["line_items"]:
                    # Keyed by the line's SKU, as the serial numbers are.
                    key = sum(map(ord, str(line.get("sku"))))
                    base = (line.get("unit_price") or 0.0) * (line.get("quantity") or 0)
                    rates = [("VAT", 0.2), ("ECO", 0.05)][: 1 + key % 2]
                    if side is actual and key % 7 == 0:
                        rates[0] = (rates[0][0], 0.19)
                    line["taxes"] = [{"kind": k, "rate": r, "amount": round(base * r, 2)} for k, r in rates]
                    if side is actual and len(rates) > 1 and key % 5 == 0:
                        line["taxes"].pop()
                    if breakdown:
                        lines = line.pop("taxes")
                        line["tax"] = {"total": round(sum(t["amount"] for t in lines), 2), "lines": lines}
        if tags:
            expected, actual = expected.model_dump(mode="json"), actual.model_dump(mode="json")
            for side in (expected, actual):
                for line in side["line_items"]:
                    # Keyed by the line's SKU, as the serial numbers are.
                    key = sum(map(ord, str(line.get("sku"))))
                    labels = [TAGS[(key + k) % len(TAGS)] for k in range(key % 4)]
                    if side is actual and labels and key % 5 == 0:
                        labels.pop()
                    line["product"] = {"name": line.pop("description"), "tags": labels}
        if nested or deep:
            expected, actual = expected.model_dump(mode="json"), actual.model_dump(mode="json")
            for side in (expected, actual):
                for number, line in enumerate(side["line_items"]):
                    money = "EUR" if side is actual and (number + index) % 7 == 3 else "USD"
                    amount = line["unit_price"]
                    line["unit_price"] = {"amount": amount, "currency": money}
                    if deep and amount is not None:
                        cent = 0.01 if side is actual and (number + index) % 5 == 1 else 0.0
                        line["unit_price"]["converted"] = {"amount": round(amount * 0.92 + cent, 2), "currency": "EUR"}
        if odd and (actual["line_items"] if isinstance(actual, dict) else actual.line_items):
            actual = actual if isinstance(actual, dict) else actual.model_dump(mode="json")
            key, value = ODD_VALUES[index % len(ODD_VALUES)]
            line = actual["line_items"][(seed * 7 + index * 13) % len(actual["line_items"])]
            if (nested or deep) and key == "unit_price":
                line[key]["amount"] = value
            else:
                line[key] = value
        out.append(EvaluationData(name=pair["name"], input="", expected_output=expected, actual_output=actual))
    return out


def _row(row: EvaluationOutput) -> str:
    return json.dumps([row.score, row.test_pass, row.reason, row.label, row.metadata], default=str)


def check_identical(named: dict[str, Approach], docs: Sequence[EvaluationData[Any, Any]], *, odd: bool = False) -> int:
    """Score every document every way; fail loudly where rows that must agree do not. Returns the count.

    With `odd` documents the upstream evaluator cannot read the predicted side (it scores it 0.0), so
    `ours-off` is compared with nothing; every row of ours must note the lenient reading."""
    groups = [[n for n in ("ours", "engine", "before") if n in named]]
    if not odd:
        groups.append([n for n in ("ours-off", "upstream") if n in named])
    for case in docs:
        with contextlib.redirect_stdout(io.StringIO()):
            rows = {name: _row(approach(case)[0]) for name, approach in named.items()}
        for group in groups:
            if len({rows[name] for name in group}) > 1:
                raise SystemExit(f"{case.name}: rows of {group} differ")
        if odd and "ours" in named and '"reading"' not in rows["ours"]:
            raise SystemExit(f"{case.name}: --odd made a document that was not read leniently")
    return len(docs)


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def per_document(approach: Approach, docs: Sequence[EvaluationData[Any, Any]], clock: Callable[[], float]) -> float:
    # stickler prints a warning to stdout for every list over 10,000 pairs; keep the table readable.
    with contextlib.redirect_stdout(io.StringIO()):
        start = clock()
        for case in docs:
            approach(case)
        return (clock() - start) / len(docs)


def exponent(lengths: Sequence[int], seconds: Sequence[float]) -> float:
    """Least-squares slope of log(seconds) against log(length)."""
    xs, ys = [math.log(n) for n in lengths], [math.log(s) for s in seconds]
    mx, my = statistics.mean(xs), statistics.mean(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sum((x - mx) ** 2 for x in xs)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", type=int, nargs="+", default=LENGTHS, help="line items per document")
    parser.add_argument("--docs", type=int, default=20, help="documents per length, fewer at long lengths (default 20)")
    parser.add_argument("--runs", type=int, default=3, help="timed runs per approach (default 3)")
    parser.add_argument(
        "--budget", type=int, default=400, help="line items per length across its documents (default 400)"
    )
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument(
        "--nested",
        action="store_true",
        help="line items hold their price as an object (PricedInvoice): pairs from vectorised similarities, "
        "each matched pair compared by the engine",
    )
    parser.add_argument(
        "--deep",
        action="store_true",
        help="line items hold their price as an object holding its converted amount as an object (DeepInvoice): "
        "pairs from vectorised similarities, each matched pair compared by the engine",
    )
    parser.add_argument(
        "--tags",
        action="store_true",
        help="line items hold a product object holding a list of tags (ProductInvoice): pairs from vectorised "
        "similarities, each matched pair compared by the engine",
    )
    parser.add_argument(
        "--serials",
        action="store_true",
        help="line items hold a list of serial numbers (SerialInvoice): pairs from vectorised similarities, "
        "each matched pair compared by the engine",
    )
    parser.add_argument(
        "--taxes",
        action="store_true",
        help="line items hold a list of tax objects (TaxedInvoice): pairs from vectorised similarities, "
        "each matched pair compared by the engine",
    )
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="line items hold a tax object holding a list of tax objects (BrokenDownInvoice): pairs from "
        "vectorised similarities, each matched pair compared by the engine",
    )
    parser.add_argument(
        "--odd",
        action="store_true",
        help="one line item value in each predicted document does not validate (read leniently); "
        "upstream scores such a document 0.0 without comparing it",
    )
    parser.add_argument("--skip", nargs="*", default=[], choices=["upstream", "before", "engine", "ours", "ours-off"])
    parser.add_argument(
        "--clock",
        choices=sorted(CLOCKS),
        default="wall",
        help="wall time (default) or this process's CPU time, which a busy shared machine skews less",
    )
    args = parser.parse_args(argv)
    models = {
        "nested": PricedInvoice,
        "deep": DeepInvoice,
        "tags": ProductInvoice,
        "serials": SerialInvoice,
        "taxes": TaxedInvoice,
        "breakdown": BrokenDownInvoice,
    }
    if sum(bool(getattr(args, flag)) for flag in models) > 1:
        parser.error("--nested, --deep, --tags, --serials, --taxes and --breakdown are six schemas; choose one")
    model = next((cls for flag, cls in models.items() if getattr(args, flag)), Invoice)
    named = approaches(args.skip, model)
    print(
        f"list matching{', prices nested' if args.nested else ''}{', prices nested twice' if args.deep else ''}"
        f"{', products with tags' if args.tags else ''}"
        f"{', serial numbers' if args.serials else ''}"
        f"{', taxes' if args.taxes else ''}"
        f"{', tax breakdowns' if args.breakdown else ''}"
        f"{', one odd value a document' if args.odd else ''}: "
        f"median ms per document ({args.clock} clock) over {args.runs} runs "
        f"(python {platform.python_version()}, "
        f"stickler-eval {version('stickler-eval')}, munkres {version('munkres')}, rapidfuzz {version('rapidfuzz')}); "
        f"load average {os.getloadavg()[0]:.2f}"
    )
    header = f"{'items':>5} {'docs':>4}  " + "".join(f"{name:>10}" for name in named)
    # With --odd, upstream compares nothing (it cannot read the document): the ratio that says something is to the
    # lenient path as it was.
    reference = "before" if args.odd else "upstream"
    header += f"   {'ours/' + reference:>13}  ours/ours-off"
    print(header)
    medians: dict[str, list[float]] = {name: [] for name in named}
    checked = 0
    for length in args.lengths:
        count = max(3, min(args.docs, args.budget // max(length, 1)))
        docs = cases(
            count,
            length,
            args.seed + length,
            odd=args.odd,
            nested=args.nested,
            serials=args.serials,
            taxes=args.taxes,
            deep=args.deep,
            tags=args.tags,
            breakdown=args.breakdown,
        )
        checked += check_identical(named, docs, odd=args.odd)
        figures: dict[str, list[float]] = {name: [] for name in named}
        order = list(named)
        for index in range(args.runs):
            for name in order[index % len(order) :] + order[: index % len(order)]:
                figures[name].append(per_document(named[name], docs, CLOCKS[args.clock]))
        line = f"{length:>5} {count:>4}  "
        for name in named:
            medians[name].append(statistics.median(figures[name]))
            line += f"{medians[name][-1] * 1e3:>10.2f}"
        if {"ours", reference} <= set(named):
            line += f"   {medians['ours'][-1] / medians[reference][-1]:>13.3f}"
        if {"ours", "ours-off"} <= set(named):
            line += f"  {medians['ours'][-1] / medians['ours-off'][-1]:>13.2f}"
        print(line, flush=True)
        sys.stderr.write(f"length {length}: {count} documents x {args.runs} runs done\n")
    long_enough = [i for i, n in enumerate(args.lengths) if n >= 10]
    if len(long_enough) >= 2:
        lo, hi = args.lengths[long_enough[0]], args.lengths[long_enough[-1]]
        print(f"growth exponent, {lo} -> {hi} items (least squares over the lengths between):")
        for name in named:
            slope = exponent([args.lengths[i] for i in long_enough], [medians[name][i] for i in long_enough])
            print(f"  {name:<9} {slope:.2f}")
    print(f"rows identical where they must be, on all {checked} documents: yes")
    print(f"load average now {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
