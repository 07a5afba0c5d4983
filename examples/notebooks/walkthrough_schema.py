"""The schema of the offline agent walkthrough (02_offline_agent_walkthrough.ipynb).

It lives in a file, not only in the notebook, so the re-record command can import it:
`structsim-nb record ... --schema examples/notebooks/walkthrough_schema.py:Invoice`.
The recording in `recordings/invoice_walkthrough.json` was made against exactly this class;
change a field or a docstring and replay reports the first difference.
"""

from __future__ import annotations

import datetime

from pydantic import BaseModel, Field


class LineItem(BaseModel):
    """One line of an invoice."""

    description: str
    quantity: int
    unit_price: float


class Invoice(BaseModel):
    """An invoice extracted from OCR text."""

    invoice_id: str = Field(description="The invoice number exactly as printed")
    vendor_name: str
    invoice_date: datetime.date | None = None
    total_amount: float | None = Field(default=None, description="The grand total, tax included")
    line_items: list[LineItem] = []
