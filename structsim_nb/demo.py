"""The offline reference evaluation, and synthetic invoice corpora with realistic errors.

The six reference cases are written for this project (no real vendor, no model output): each
prediction is what an extractor *might* return, built to exercise one failure mode.
`structsim-nb demo` and the reference notebook both run them, so the figures in both come from
the same cases.

`synthetic_invoice_pairs` generates as many ground-truth/prediction pairs as asked, from a seed,
with the errors an extractor makes at stated rates. It is synthetic data too (no model output);
the benchmarks in `bench/` and the `score_dataset` tests score it.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import datetime
import logging
import random
import string
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel
from strands_evals import Case, Experiment
from strands_evals.evaluators import Equals

from .evaluate import StructuredOutputSimilarity
from .report import StructuredOutputReport

__all__ = [
    "DOCUMENT_ERROR_RATES",
    "LINE_ITEM_ERROR_RATES",
    "Invoice",
    "LineItem",
    "reference_cases",
    "reference_predictions",
    "run_reference",
    "synthetic_invoice_pairs",
]

logger = logging.getLogger(__name__)


class LineItem(BaseModel):
    """One line of an invoice."""

    sku: str | None = None
    description: str | None = None
    quantity: int | None = None
    unit_price: float | None = None


class Invoice(BaseModel):
    """The schema the extractor emits as `structured_output_model`."""

    invoice_id: str
    vendor_name: str
    invoice_date: datetime.date | None = None
    total_amount: float | None = None
    line_items: list[LineItem] = []


def _truth() -> dict[str, Invoice]:
    d = datetime.date
    return {
        "perfect": Invoice(
            invoice_id="INV-1001",
            vendor_name="Acme Corporation",
            invoice_date=d(2024, 3, 1),
            total_amount=124.93,
            line_items=[
                LineItem(sku="WM-100", description="Widget machine", quantity=2, unit_price=49.99),
                LineItem(sku="UC-050", description="USB cable", quantity=5, unit_price=4.99),
            ],
        ),
        "case-only": Invoice(
            invoice_id="INV-1002",
            vendor_name="Blue Harbor Supplies",
            invoice_date=d(2024, 3, 4),
            total_amount=310.00,
            line_items=[LineItem(sku="PAPER-A4", description="Copy paper, 10 reams", quantity=1, unit_price=310.00)],
        ),
        "number-off": Invoice(
            invoice_id="INV-1003",
            vendor_name="Northwind Traders",
            invoice_date=d(2024, 3, 9),
            total_amount=1500.00,
            line_items=[
                LineItem(sku="CH-200", description="Office chair", quantity=4, unit_price=250.00),
                LineItem(sku="DSK-10", description="Standing desk", quantity=1, unit_price=500.00),
            ],
        ),
        "missed-field": Invoice(
            invoice_id="INV-1004",
            vendor_name="Contoso Ltd",
            invoice_date=d(2024, 3, 15),
            total_amount=89.50,
            line_items=[LineItem(sku="TN-12", description="Toner cartridge", quantity=1, unit_price=89.50)],
        ),
        "hallucinated-item": Invoice(
            invoice_id="INV-1005",
            vendor_name="Fabrikam Inc",
            invoice_date=d(2024, 3, 20),
            total_amount=60.00,
            line_items=[LineItem(sku="MS-01", description="Wireless mouse", quantity=2, unit_price=30.00)],
        ),
        "wrong-throughout": Invoice(
            invoice_id="INV-1006",
            vendor_name="Litware Systems",
            invoice_date=d(2024, 3, 28),
            total_amount=2400.00,
            line_items=[
                LineItem(sku="LAP-15", description="Laptop 15 inch", quantity=2, unit_price=1100.00),
                LineItem(sku="DOCK-3", description="Docking station", quantity=2, unit_price=100.00),
            ],
        ),
    }


def reference_predictions() -> dict[str, Invoice]:
    """What the (imaginary) extractor returned for each case, keyed by case name.

    - `perfect`: identical to the ground truth.
    - `case-only`: the vendor name in capitals, nothing else changed.
    - `number-off`: the total 1500.00 read as 1505.00.
    - `missed-field`: the invoice date left blank.
    - `hallucinated-item`: a second line item that is not on the invoice.
    - `wrong-throughout`: another vendor, date, total and line items.
    """
    truth = _truth()
    d = datetime.date
    return {
        "perfect": truth["perfect"].model_copy(deep=True),
        "case-only": truth["case-only"].model_copy(update={"vendor_name": "BLUE HARBOR SUPPLIES"}, deep=True),
        "number-off": truth["number-off"].model_copy(update={"total_amount": 1505.00}, deep=True),
        "missed-field": truth["missed-field"].model_copy(update={"invoice_date": None}, deep=True),
        "hallucinated-item": truth["hallucinated-item"].model_copy(
            update={
                "line_items": [
                    *truth["hallucinated-item"].line_items,
                    LineItem(sku="KB-07", description="Keyboard", quantity=1, unit_price=45.00),
                ]
            },
            deep=True,
        ),
        "wrong-throughout": Invoice(
            invoice_id="INV-6001",
            vendor_name="Litwire Sys.",
            invoice_date=d(2023, 8, 2),
            total_amount=240.00,
            line_items=[LineItem(sku="MON-27", description="Monitor", quantity=1, unit_price=240.00)],
        ),
    }


def reference_cases() -> list[Case[str, Invoice]]:
    """The six cases, in a fixed order; `input` is the invoice id, `expected_output` the truth."""
    return [
        Case[str, Invoice](name=name, input=f"invoice {invoice.invoice_id}", expected_output=invoice)
        for name, invoice in _truth().items()
    ]


def run_reference(*, with_equals: bool = False, non_matches: bool = True) -> StructuredOutputReport:
    """Run the six reference cases through a Strands Evals `Experiment`, offline.

    Args:
        with_equals: Also score with Strands Evals' `Equals`, in the same experiment, for the
            side-by-side comparison. Default False.
        non_matches: Forwarded to `StructuredOutputSimilarity`. Default True.

    Returns:
        The experiment's report, as `StructuredOutputReport`. With `with_equals`, its rows
        carry both evaluators (evaluator names `Equals` and `StructuredOutputSimilarity`).

    Notes:
        Works in Jupyter too: `Experiment.run_evaluations` starts its own event loop, which cannot
        run inside the one a notebook kernel runs, so there the experiment runs on a thread of its own.
    """
    predictions = reference_predictions()

    def task(case: Case[str, Invoice]) -> dict[str, Any]:
        # A dict passes through the task handler untouched; a bare model would be str()'d.
        return {"output": predictions[case.name]}

    evaluators: list[Any] = [StructuredOutputSimilarity(Invoice, non_matches=non_matches)]
    if with_equals:
        evaluators.insert(0, Equals())
    experiment = Experiment[str, Invoice](
        cases=reference_cases(), evaluators=evaluators, report_cls=StructuredOutputReport
    )
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # no event loop running here: the usual case in a script
        return experiment.run_evaluations(task)
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # a notebook kernel's loop is running
        return pool.submit(experiment.run_evaluations, task).result()


# -- synthetic corpora ----------------------------------------------------------------------

DOCUMENT_ERROR_RATES: Mapping[str, float] = MappingProxyType(
    {
        "vendor_case": 0.15,
        "vendor_typo": 0.10,
        "invoice_id_typo": 0.05,
        "date_missing": 0.10,
        "date_shifted": 0.05,
        "total_off": 0.10,
        "total_missing": 0.05,
        "items_reordered": 0.30,
        "item_invented": 0.10,
    }
)
"""Chance per document of each document-level error of `synthetic_invoice_pairs`."""

LINE_ITEM_ERROR_RATES: Mapping[str, float] = MappingProxyType(
    {
        "item_dropped": 0.03,
        "quantity_off": 0.04,
        "unit_price_off": 0.04,
        "description_shortened": 0.05,
        "description_typo": 0.03,
        "sku_typo": 0.02,
        "sku_missing": 0.02,
    }
)
"""Chance per ground-truth line item of each line-level error of `synthetic_invoice_pairs`."""

_VENDORS = (
    "Acme Corporation",
    "Blue Harbor Supplies",
    "Northwind Traders",
    "Contoso Ltd",
    "Fabrikam Inc",
    "Litware Systems",
    "Tailspin Toys",
    "Wide World Importers",
    "Proseware Inc",
    "Adventure Works Cycles",
)
_WORDS = (
    "widget cable adapter toner paper chair desk lamp monitor keyboard mouse dock charger battery "
    "bracket screw hinge panel filter valve pump sensor switch router license support service "
    "installation training consulting shipping handling"
).split()


def _typo(rng: random.Random, text: str) -> str:
    """`text` with two different adjacent characters swapped; with no such pair, its last character dropped."""
    spots = [i for i in range(len(text) - 1) if text[i] != text[i + 1]]
    if not spots:
        return text[:-1]
    i = rng.choice(spots)
    return text[:i] + text[i + 1] + text[i] + text[i + 2 :]


def _line_item(rng: random.Random) -> LineItem:
    return LineItem(
        sku="".join(rng.choices(string.ascii_uppercase, k=3)) + f"-{rng.randint(10, 999)}",
        description=" ".join(rng.sample(_WORDS, rng.randint(1, 3))).capitalize(),
        quantity=rng.randint(1, 20),
        unit_price=round(rng.uniform(0.5, 900.0), 2),
    )


def _ground_truth(rng: random.Random, index: int, items: int) -> Invoice:
    lines = [_line_item(rng) for _ in range(items)]
    return Invoice(
        invoice_id=f"INV-{index + 1:06d}",
        vendor_name=rng.choice(_VENDORS),
        invoice_date=datetime.date(2024, 1, 1) + datetime.timedelta(days=rng.randrange(366)),
        total_amount=round(sum((line.quantity or 0) * (line.unit_price or 0.0) for line in lines), 2),
        line_items=lines,
    )


def _wrong_total(rng: random.Random, total: float) -> float:
    if total > 0 and rng.random() < 0.2:
        return round(total * 10, 2)  # a misplaced decimal point
    return round(total + rng.choice([-5.0, -0.5, 0.5, 5.0]), 2)


def _extract(rng: random.Random, truth: Invoice) -> tuple[Invoice, tuple[str, ...]]:
    """An imperfect extraction of `truth`, and the kinds of error it got, in the order applied."""
    pred = truth.model_copy(deep=True)
    errors: list[str] = []

    def hit(kind: str) -> bool:
        rate = DOCUMENT_ERROR_RATES[kind] if kind in DOCUMENT_ERROR_RATES else LINE_ITEM_ERROR_RATES[kind]
        if rng.random() < rate:
            errors.append(kind)
            return True
        return False

    if hit("vendor_case"):
        pred.vendor_name = pred.vendor_name.upper()
    elif hit("vendor_typo"):
        pred.vendor_name = _typo(rng, pred.vendor_name)
    if hit("invoice_id_typo"):
        pred.invoice_id = _typo(rng, pred.invoice_id)
    if pred.invoice_date is not None:
        if hit("date_missing"):
            pred.invoice_date = None
        elif hit("date_shifted"):
            pred.invoice_date += datetime.timedelta(days=rng.choice([-31, -1, 1, 30]))
    if pred.total_amount is not None:
        if hit("total_off"):
            pred.total_amount = _wrong_total(rng, pred.total_amount)
        elif hit("total_missing"):
            pred.total_amount = None
    lines: list[LineItem] = []
    for line in pred.line_items:
        if hit("item_dropped"):
            continue
        if line.quantity is not None and hit("quantity_off"):
            line.quantity += rng.choice([-1, 1, 10])
        if line.unit_price is not None and hit("unit_price_off"):
            line.unit_price = round(line.unit_price * rng.choice([0.9, 1.1, 10.0]), 2)
        if line.description:
            if " " in line.description and hit("description_shortened"):
                line.description = line.description.split(" ")[0]
            elif hit("description_typo"):
                line.description = _typo(rng, line.description)
        if line.sku:
            if hit("sku_typo"):
                line.sku = _typo(rng, line.sku)
            elif hit("sku_missing"):
                line.sku = None
        lines.append(line)
    if len(lines) >= 2 and hit("items_reordered"):
        before = list(lines)
        while all(a is b for a, b in zip(lines, before, strict=True)):
            rng.shuffle(lines)
    if hit("item_invented"):
        lines.insert(rng.randint(0, len(lines)), _line_item(rng))
    pred.line_items = lines
    return pred, tuple(errors)


def synthetic_invoice_pairs(
    n: int, *, line_items: int | tuple[int, int] = (1, 50), seed: int = 0
) -> list[dict[str, Any]]:
    """Generate `n` synthetic invoices and an imperfect extraction of each, reproducibly.

    Synthetic data: made up from a seeded random generator (vendors, SKUs and descriptions
    are invented; nothing is model output). The same `n`, `line_items` and `seed` give the
    same pairs on every run and platform; the first `k` pairs of a larger `n` are the
    pairs of `n=k`.

    The ground truth is an `Invoice` with an id, a vendor, a 2024 date, line items and a
    total that is the sum of its lines. The prediction is a copy with errors drawn
    independently at these rates (`DOCUMENT_ERROR_RATES`, `LINE_ITEM_ERROR_RATES`):

    Per document:

    - `vendor_case` 0.15: vendor name in capitals; else `vendor_typo` 0.10: two adjacent
      characters swapped.
    - `invoice_id_typo` 0.05: two adjacent characters of the id swapped.
    - `date_missing` 0.10: date left blank; else `date_shifted` 0.05: off by -31, -1, 1 or
      30 days.
    - `total_off` 0.10: total off by 0.50 or 5.00 either way, or (1 in 5, when the total
      is positive) ten times too large; else `total_missing` 0.05: total left blank.
    - `items_reordered` 0.30 (documents with 2 or more lines left): the lines in another
      order.
    - `item_invented` 0.10: a line that is not on the invoice, at a random position.

    Per ground-truth line item:

    - `item_dropped` 0.03: the line is missing (and gets no other error).
    - `quantity_off` 0.04: quantity off by -1, +1 or +10.
    - `unit_price_off` 0.04: unit price times 0.9, 1.1 or 10.
    - `description_shortened` 0.05 (descriptions of several words): first word only; else
      `description_typo` 0.03: two adjacent characters swapped.
    - `sku_typo` 0.02: two adjacent characters swapped; else `sku_missing` 0.02: left blank.

    Every error recorded changes the prediction. With the defaults, about two in five
    one-line documents come out error-free, and nearly no 50-line document does.

    Args:
        n: How many pairs. 0 gives an empty list.
        line_items: Line items per ground-truth invoice: an exact count, or a `(low, high)`
            range drawn uniformly, both ends included. Default `(1, 50)`.
        seed: Seed of the generator. Default 0.

    Returns:
        `n` dicts `{"name", "expected", "actual", "errors"}`: the name `synthetic-<index>`
        (5 digits), the ground truth and the prediction as `Invoice` instances, and the
        tuple of error kinds applied to the prediction, in the order applied (a line-level
        kind once per line it hit; empty when the prediction equals the truth).
        `score_dataset` takes the list as it is (it reads `name`, `expected` and `actual`).

    Raises:
        ValueError: If `n` is negative, or `line_items` is not a count of 0 or more or a
            `(low, high)` pair with `0 <= low <= high`.

    Examples:
        >>> pairs = synthetic_invoice_pairs(3, line_items=2, seed=1)
        >>> [len(pair["expected"].line_items) for pair in pairs]
        [2, 2, 2]
        >>> pairs == synthetic_invoice_pairs(3, line_items=2, seed=1)
        True
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"n must be a count of 0 or more; got {n!r}. Pass e.g. 100")
    bounds = (line_items, line_items) if isinstance(line_items, int) else line_items
    if (
        not isinstance(bounds, tuple)
        or len(bounds) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in bounds)
        or not 0 <= bounds[0] <= bounds[1]
    ):
        raise ValueError(
            f"line_items must be a count of 0 or more or a (low, high) pair with 0 <= low <= high; "
            f"got {line_items!r}. Pass e.g. 5 or (1, 50)"
        )
    rng = random.Random(seed)
    pairs = []
    for index in range(n):
        truth = _ground_truth(rng, index, rng.randint(*bounds))
        actual, errors = _extract(rng, truth)
        pairs.append({"name": f"synthetic-{index:05d}", "expected": truth, "actual": actual, "errors": errors})
    logger.debug("n=<%d>, line_items=<%s>, seed=<%s> | synthetic invoice pairs generated", n, line_items, seed)
    return pairs
