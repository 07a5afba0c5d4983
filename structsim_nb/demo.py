"""The offline reference evaluation: six invoices, each broken a different way.

These are written for this project (no real vendor, no model output): each prediction is
what an extractor *might* return, built to exercise one failure mode. `structsim-nb demo` and
the reference notebook both run them, so the figures in both come from the same cases.
"""

from __future__ import annotations

import datetime
from typing import Any

from pydantic import BaseModel
from strands_evals import Case, Experiment
from strands_evals.evaluators import Equals

from .evaluate import StructuredOutputSimilarity
from .report import StructuredOutputReport

__all__ = ["Invoice", "LineItem", "reference_cases", "reference_predictions", "run_reference"]


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
    return experiment.run_evaluations(task)
