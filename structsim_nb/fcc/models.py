"""The FCC political-advertising invoice schema, in two variants.

- `FCCInvoice` / `FCCLineItem`: plain Pydantic, what most users write. Every field is
  nullable, amounts are floats and dates are `datetime.date`, so `StructuredOutputSimilarity`
  infers a numeric comparator for amounts and stickler's `DateComparator` for dates.
- `FCCInvoiceTuned` / `FCCLineItemTuned`: stickler `StructuredModel` subclasses for users who
  tuned comparators by hand. Dates stay strings, as printed on the invoice ("10/03/16"), and
  are still compared as dates, with `DateComparator`; left to inference a `str` field would get
  Levenshtein edit distance, which scores "2016-10-03" against "10/03/16" lower than against
  "2016-10-08" (a different day). The notebook measures that.

Field names are those of the dataset's `json_response` labels (PascalCase), so a label
validates as is. The hub's labels hold amounts as floats (or null) and dates as printed strings;
both are also parsed from the forms invoices print them in: `"$1,234.50"`, `"(1,875.00)"` and
`"-$1,875.00"` are amounts, `"10/03/16"`, `"10/03/2016"`, `"2016-10-03"`, `"Oct 3, 2016"`,
`"OCT 03 16"` and `"10.03.16"` are dates. `LineItems: null` (a summary invoice) is an empty list.
A value that parses as neither raises, so a label that does not validate is reported rather than
read as a blank; `StructuredOutputSimilarity` then reads it leniently (`structsim_nb.lenient`):
that value is compared as its printed text and the rest of the label as parsed.
"""

from __future__ import annotations

import datetime
import re
from typing import Annotated, Any, ClassVar

from pydantic import BaseModel, BeforeValidator, Field
from stickler.comparators import DateComparator, ExactComparator, LevenshteinComparator, NumericComparator
from stickler.structured_object_evaluator.models.comparable_field import ComparableField
from stickler.structured_object_evaluator.models.structured_model import StructuredModel

__all__ = [
    "FCCInvoice",
    "FCCInvoiceTuned",
    "FCCLineItem",
    "FCCLineItemTuned",
    "parse_amount",
    "parse_date",
]

#: Date layouts tried in order; US month-first, as FCC invoices print them. A month name matches in
#: any case (`Oct`, `OCT`).
DATE_FORMATS = (
    "%m/%d/%y",
    "%m/%d/%Y",
    "%Y-%m-%d",
    "%b %d, %Y",
    "%B %d, %Y",
    "%b %d %y",
    "%b %d %Y",
    "%m-%d-%Y",
    "%m-%d-%y",
    "%m.%d.%y",
    "%m.%d.%Y",
)

_AMOUNT = re.compile(r"^(?P<neg>-)?\$?(?P<num>\d[\d,]*(?:\.\d+)?|\.\d+)$")


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def parse_amount(value: Any) -> float | None:
    """A money amount as a float; None for a blank.

    Args:
        value: A number, or a string such as `"$1,234.50"`, `"-$1,875.00"` or `"(1,875.00)"`
            (parentheses mean negative, as accountants print it). Surrounding spaces and a
            trailing `CR` are tolerated.

    Returns:
        The amount, or None when `value` is None or blank.

    Raises:
        ValueError: If `value` is text that is not an amount (`"N/A"`, `"see above"`).

    Examples:
        >>> parse_amount("$1,234.50"), parse_amount("(75.00)"), parse_amount("  ")
        (1234.5, -75.0, None)
    """
    if _blank(value):
        return None
    if isinstance(value, bool):
        raise ValueError(f"an amount must be a number or text like '$1,234.50'; got {value!r}")
    if isinstance(value, (int, float)):
        return float(value)
    if not isinstance(value, str):
        raise ValueError(f"an amount must be a number or text like '$1,234.50'; got {type(value).__name__}")
    text = value.strip().replace(" ", "")
    negative = False
    if text.startswith("(") and text.endswith(")"):
        negative, text = True, text[1:-1]
    if text.upper().endswith("CR"):
        negative, text = True, text[:-2]
    if text.startswith("$-"):
        text = "-" + text[2:]
    match = _AMOUNT.match(text)
    if match is None:
        raise ValueError(f"an amount must look like '$1,234.50' or '(75.00)'; got {value!r}")
    amount = float(match["num"].replace(",", ""))
    return -amount if negative or match["neg"] else amount


def parse_date(value: Any) -> datetime.date | None:
    """A calendar date; None for a blank.

    Args:
        value: A `date` (a `datetime` is cut to its day), or text in one of `DATE_FORMATS`:
            `"10/03/16"`, `"10/03/2016"`, `"2016-10-03"`, `"Oct 3, 2016"`, `"OCT 03 16"`,
            `"10.03.16"`, `"10-03-2016"`. A range (`"10/03/16 - 10/09/16"`) is not one day.

    Returns:
        The date, or None when `value` is None or blank.

    Raises:
        ValueError: If `value` is text in none of those layouts, or not a real day (`"02/30/16"`).

    Examples:
        >>> parse_date("10/03/16"), parse_date("Oct 3, 2016") == parse_date("2016-10-03")
        (datetime.date(2016, 10, 3), True)
    """
    if _blank(value):
        return None
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    if not isinstance(value, str):
        raise ValueError(f"a date must be text like '10/03/16' or '2016-10-03'; got {type(value).__name__}")
    text = value.strip()
    for layout in DATE_FORMATS:
        try:
            return datetime.datetime.strptime(text, layout).date()
        except ValueError:
            continue
    raise ValueError(f"a date must be a real day written like '10/03/16', '10/03/2016' or '2016-10-03'; got {value!r}")


def _text(value: Any) -> Any:
    """Blank text is a missing value, and numbers printed as text stay text."""
    if _blank(value):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return value


def _lines(value: Any) -> Any:
    """`LineItems: null` (a summary invoice, as hub labels hold it) is no lines."""
    return [] if value is None else value


Amount = Annotated[float | None, BeforeValidator(parse_amount)]
Day = Annotated[datetime.date | None, BeforeValidator(parse_date)]
Text = Annotated[str | None, BeforeValidator(_text)]


class FCCLineItem(BaseModel):
    """One broadcast line of an FCC political-advertising invoice."""

    LineItemDescription: Text = Field(default=None, description="Program or daypart the spot aired in, as printed")
    LineItemStartDate: Day = Field(default=None, description="First air date of the line")
    LineItemEndDate: Day = Field(default=None, description="Last air date of the line")
    LineItemDays: Text = Field(default=None, description="Days of the week the spot runs, as printed (e.g. 'M-F')")
    LineItemRate: Amount = Field(default=None, description="Rate per spot, in dollars")


class FCCInvoice(BaseModel):
    """An FCC political-advertising invoice: who bought airtime, for how much, and its lines."""

    Agency: Text = Field(default=None, description="Advertising agency that placed the order")
    Advertiser: Text = Field(default=None, description="Advertiser (campaign or committee) the airtime is for")
    GrossTotal: Amount = Field(default=None, description="Gross total of the invoice, in dollars")
    PaymentTerms: Text = Field(default=None, description="Payment terms, as printed (e.g. 'Net 30')")
    AgencyCommission: Amount = Field(default=None, description="Agency commission, in dollars (negative if printed so)")
    NetAmountDue: Amount = Field(default=None, description="Net amount due, in dollars")
    LineItems: Annotated[list[FCCLineItem], BeforeValidator(_lines)] = Field(
        default_factory=list, description="Broadcast lines, in printed order"
    )


# -- the tuned variant ---------------------------------------------------------------------


def _date_text(value: Any) -> Any:
    """Dates stay as printed; a `date` (from a plain label) is written ISO."""
    if isinstance(value, datetime.date):
        return value.isoformat()
    return _text(value)


DateText = Annotated[str | None, BeforeValidator(_date_text)]


class FCCLineItemTuned(StructuredModel):  # type: ignore[misc]
    """`FCCLineItem` with hand-set comparators; dates kept as printed and compared as dates."""

    match_threshold: ClassVar[float] = 0.7

    LineItemDescription: Text = ComparableField(
        default=None, comparator=LevenshteinComparator(), threshold=0.7, description="Program or daypart, as printed"
    )
    LineItemStartDate: DateText = ComparableField(
        default=None, comparator=DateComparator(), threshold=0.95, description="First air date, as printed"
    )
    LineItemEndDate: DateText = ComparableField(
        default=None, comparator=DateComparator(), threshold=0.95, description="Last air date, as printed"
    )
    LineItemDays: Text = ComparableField(
        default=None, comparator=ExactComparator(), threshold=1.0, description="Days of the week, as printed"
    )
    LineItemRate: Amount = ComparableField(
        default=None, comparator=NumericComparator(), threshold=0.99, description="Rate per spot, in dollars"
    )


class FCCInvoiceTuned(StructuredModel):  # type: ignore[misc]
    """`FCCInvoice` with hand-set comparators and weights; see the module docstring."""

    match_threshold: ClassVar[float] = 0.7

    Agency: Text = ComparableField(
        default=None, comparator=LevenshteinComparator(), threshold=0.8, description="Advertising agency"
    )
    Advertiser: Text = ComparableField(
        default=None, comparator=LevenshteinComparator(), threshold=0.8, weight=2.0, description="Advertiser"
    )
    GrossTotal: Amount = ComparableField(
        default=None, comparator=NumericComparator(), threshold=0.99, weight=2.0, description="Gross total, dollars"
    )
    PaymentTerms: Text = ComparableField(
        default=None, comparator=LevenshteinComparator(), threshold=0.7, description="Payment terms, as printed"
    )
    AgencyCommission: Amount = ComparableField(
        default=None, comparator=NumericComparator(), threshold=0.99, description="Agency commission, dollars"
    )
    NetAmountDue: Amount = ComparableField(
        default=None, comparator=NumericComparator(), threshold=0.99, weight=2.0, description="Net amount due, dollars"
    )
    # pydantic copies a mutable default per instance; ComparableField takes no default_factory.
    LineItems: Annotated[list[FCCLineItemTuned], BeforeValidator(_lines)] = ComparableField(
        default=[], weight=2.0, description="Broadcast lines, in printed order"
    )
