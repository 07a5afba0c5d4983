"""Write `fcc_sample.parquet`: eight invented FCC invoices in the row format of the hub dataset.

The rows below are the source of the bundled sample; `data/README.md` says which facts about the
format come from public sources and which values are invented. Run from the repository root
(needs pyarrow, which the `datasets` extra brings):

    python structsim_nb/fcc/data/build_sample.py

The file is written as the hub stores its split: one Parquet file whose `json_response` and
`json_schema` columns are Arrow structs (dicts when read), amounts as float64 or null, dates as
printed strings. Writing is deterministic: the same rows give the same bytes.
"""

from __future__ import annotations

import hashlib
import io
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "fcc_sample.parquet"

NOTE = "Political file copy. (fictional station; invoice written for structsim-nb, not a real filing)"


def _id(number: int) -> str:
    """A hash-like id ending in `.pdf`, like the hub's (see data/README.md); derived, so it is stable."""
    return hashlib.sha256(f"structsim-nb synthetic FCC invoice {number}".encode()).hexdigest()[:32] + ".pdf"


def _line(description: str, start: str | None, end: str | None, days: str | None, rate: float | None) -> dict:
    return {
        "LineItemDescription": description,
        "LineItemStartDate": start,
        "LineItemEndDate": end,
        "LineItemDays": days,
        "LineItemRate": rate,
    }


def _label(
    agency: str | None,
    advertiser: str | None,
    gross: float | None,
    terms: str | None,
    commission: float | None,
    net: float | None,
    lines: list[dict] | None,
) -> dict:
    return {
        "Agency": agency,
        "Advertiser": advertiser,
        "GrossTotal": gross,
        "PaymentTerms": terms,
        "AgencyCommission": commission,
        "NetAmountDue": net,
        "LineItems": lines,
    }


_HEADER = " Ln  Start      End        Days     Description                  Spt        Rate       Amount"


def _text(station: str, number: int, date: str, advertiser: str, agency: str, terms: str | None, body: str) -> str:
    terms_line = f"Terms: {terms}\n" if terms else ""
    return (
        f"{station}\nPOLITICAL ADVERTISING INVOICE\nInvoice # {number}    Invoice Date: {date}\n"
        f"Contract # C-{number}\nAdvertiser: {advertiser}\nAgency: {agency}\n{terms_line}{body}\n{NOTE}"
    )


#: (what the row is for, OCR text, label). In this order in the file.
ROWS: list[tuple[str, str, dict]] = [
    (
        "a clean invoice, three lines",
        _text(
            "KXNB-TV  Channel 7",
            1037,
            "10/09/2016",
            "Friends of Dana Whitfield",
            "Harbor Line Media LLC",
            "Net 30",
            f"{_HEADER}\n"
            "  1  10/03/16   10/09/16   M-F      Morning News 6A-7A             5     $350.00    $1,750.00\n"
            "  2  10/03/16   10/09/16   M-F      Evening News 6P                4     $900.00    $3,600.00\n"
            "  3  10/10/16   10/16/16   M-Su     Late News 11P                  3     $600.00    $1,800.00\n"
            "Gross Total $7,150.00\nAgency Commission (15%) (1,072.50)\nNet Amount Due $6,077.50",
        ),
        _label(
            "Harbor Line Media LLC",
            "Friends of Dana Whitfield",
            7150.0,
            "Net 30",
            1072.5,
            6077.5,
            [
                _line("Morning News 6A-7A", "10/03/16", "10/09/16", "M-F", 350.0),
                _line("Evening News 6P", "10/03/16", "10/09/16", "M-F", 900.0),
                _line("Late News 11P", "10/10/16", "10/16/16", "M-Su", 600.0),
            ],
        ),
    ),
    (
        "five lines, one a single day whose date is printed with a month name (OCT 30 16)",
        _text(
            "WQRT-TV",
            1074,
            "10/23/2016",
            "Citizens for Clean Water PAC",
            "Prairie Street Strategies",
            "Due upon receipt",
            f"{_HEADER}\n"
            "  1  10/17/16   10/23/16   M-F      Early Morning 5A-6A           10     $120.00    $1,200.00\n"
            "  2  10/17/16   10/23/16   M-F      Today Show 7A-9A               6     $475.00    $2,850.00\n"
            "  3  10/17/16   10/23/16   M-F      Local News 5P                  5     $650.00    $3,250.00\n"
            "  4  10/24/16   10/30/16   Sa-Su    Prime Access 7P-8P             2   $1,100.00    $2,200.00\n"
            "  5  OCT 30 16  OCT 30 16  Su       Sunday Football Pre            1   $2,400.00    $2,400.00\n"
            "Gross Total $11,900.00\nAgency Commission (15%) (1,785.00)\nNet Amount Due $10,115.00",
        ),
        _label(
            "Prairie Street Strategies",
            "Citizens for Clean Water PAC",
            11900.0,
            "Due upon receipt",
            1785.0,
            10115.0,
            [
                _line("Early Morning 5A-6A", "10/17/16", "10/23/16", "M-F", 120.0),
                _line("Today Show 7A-9A", "10/17/16", "10/23/16", "M-F", 475.0),
                _line("Local News 5P", "10/17/16", "10/23/16", "M-F", 650.0),
                _line("Prime Access 7P-8P", "10/24/16", "10/30/16", "Sa-Su", 1100.0),
                _line("Sunday Football Pre", "OCT 30 16", "OCT 30 16", "Su", 2400.0),
            ],
        ),
    ),
    (
        "a summary invoice: LineItems is null",
        _text(
            "KLMV",
            1111,
            "10/31/2016",
            "Reyes for County Commissioner",
            "Blue Mesa Advertising",
            "Net 15",
            "Summary invoice: schedule detail billed on attached order (not included).\n"
            "Gross Total $4,860.00\nAgency Commission (15%) (729.00)\nNet Amount Due $4,131.00",
        ),
        _label("Blue Mesa Advertising", "Reyes for County Commissioner", 4860.0, "Net 15", 729.0, 4131.0, None),
    ),
    (
        "a label date that is no real day (09/31/16): the label does not validate as FCCInvoice",
        _text(
            "WBNX-TV",
            1148,
            "10/02/2016",
            "Committee to Elect Sam Ortiz",
            "Northgate Media Buying",
            "Net 30",
            f"{_HEADER}\n"
            "  1  09/26/16   09/31/16   M-F      Midday News 12P                5     $280.00    $1,400.00\n"
            "  2  09/26/16   10/02/16   M-F      Evening News 6P                3     $720.00    $2,160.00\n"
            "Gross Total $3,560.00\nAgency Commission (15%) (534.00)\nNet Amount Due $3,026.00",
        ),
        _label(
            "Northgate Media Buying",
            "Committee to Elect Sam Ortiz",
            3560.0,
            "Net 30",
            534.0,
            3026.0,
            [
                _line("Midday News 12P", "09/26/16", "09/31/16", "M-F", 280.0),
                _line("Evening News 6P", "09/26/16", "10/02/16", "M-F", 720.0),
            ],
        ),
    ),
    (
        "a direct buy: no agency, commission or terms (nulls)",
        _text(
            "KTWR-AM 1340 (radio)",
            1185,
            "11/06/2016",
            "Yes on Measure 12",
            "(direct)",
            None,
            f"{_HEADER}\n"
            "  1  10/24/16   11/06/16   M-F      Morning Drive 6A-10A          20      $85.00    $1,700.00\n"
            "  2  10/24/16   11/06/16   M-F      Afternoon Drive 3P-7P         20      $70.00    $1,400.00\n"
            "Gross Total $3,100.00\nNet Amount Due $3,100.00",
        ),
        _label(
            None,
            "Yes on Measure 12",
            3100.0,
            None,
            None,
            3100.0,
            [
                _line("Morning Drive 6A-10A", "10/24/16", "11/06/16", "M-F", 85.0),
                _line("Afternoon Drive 3P-7P", "10/24/16", "11/06/16", "M-F", 70.0),
            ],
        ),
    ),
    (
        "two lines with the same description in different weeks: list matching must pair by dates",
        _text(
            "WHLM-TV",
            1222,
            "10/16/2016",
            "Hollis for Congress",
            "Tidewater Political Media",
            "Net 30",
            f"{_HEADER}\n"
            "  1  10/10/16   10/16/16   M-F      Evening News 6P                5     $800.00    $4,000.00\n"
            "  2  10/17/16   10/23/16   M-F      Evening News 6P                5     $850.00    $4,250.00\n"
            "Gross Total $8,250.00\nAgency Commission (15%) (1,237.50)\nNet Amount Due $7,012.50",
        ),
        _label(
            "Tidewater Political Media",
            "Hollis for Congress",
            8250.0,
            "Net 30",
            1237.5,
            7012.5,
            [
                _line("Evening News 6P", "10/10/16", "10/16/16", "M-F", 800.0),
                _line("Evening News 6P", "10/17/16", "10/23/16", "M-F", 850.0),
            ],
        ),
    ),
    (
        "four lines; the last one's start date is labelled with the printed range (11/05/16 - 11/06/16)",
        _text(
            "KPVC-TV",
            1259,
            "11/06/2016",
            "Alliance for Rural Jobs",
            "Crossroads Media Group",
            "Net 45",
            f"{_HEADER}\n"
            "  1  10/31/16   11/06/16   M-F      Good Morning 6A-7A             5     $300.00    $1,500.00\n"
            "  2  10/31/16   11/06/16   M-F      Noon News                      5     $260.00    $1,300.00\n"
            "  3  10/31/16   11/06/16   M-F      Game Show Block 4P-5P          8     $180.00    $1,440.00\n"
            "  4  11/05/16 - 11/06/16   Sa-Su    Weekend News 10P               2     $410.00      $820.00\n"
            "Gross Total $5,060.00\nAgency Commission (15%) (759.00)\nNet Amount Due $4,301.00",
        ),
        _label(
            "Crossroads Media Group",
            "Alliance for Rural Jobs",
            5060.0,
            "Net 45",
            759.0,
            4301.0,
            [
                _line("Good Morning 6A-7A", "10/31/16", "11/06/16", "M-F", 300.0),
                _line("Noon News", "10/31/16", "11/06/16", "M-F", 260.0),
                _line("Game Show Block 4P-5P", "10/31/16", "11/06/16", "M-F", 180.0),
                _line("Weekend News 10P", "11/05/16 - 11/06/16", "11/06/16", "Sa-Su", 410.0),
            ],
        ),
    ),
    (
        "seven lines and the longest text: what max_line_items and max_text_chars skip",
        _text(
            "WCTN-TV  Channel 12",
            1296,
            "10/30/2016",
            "Morgan Lee for State Senate",
            "Lakeshore Campaign Media",
            "Net 30",
            f"{_HEADER}\n"
            "  1  10/03/16   10/30/16   M-F      Sunrise News 5A               20      $90.00    $1,800.00\n"
            "  2  10/03/16   10/30/16   M-F      Morning Show 7A-9A            12     $240.00    $2,880.00\n"
            "  3  10/03/16   10/30/16   M-F      Midday News 12P               10     $310.00    $3,100.00\n"
            "  4  10/03/16   10/30/16   M-F      Early News 5P                 10     $525.00    $5,250.00\n"
            "  5  10/03/16   10/30/16   M-F      Evening News 6P                8     $980.00    $7,840.00\n"
            "  6  10/08/16   10/29/16   Sa       Prime Time Movie 8P-10P        4   $1,250.00    $5,000.00\n"
            "  7  10/03/16   10/30/16   M-Su     Late News 11P                 12     $640.00    $7,680.00\n"
            "Make-goods, if any, will be billed separately.\n"
            + "Political advertising disclosure: this schedule was purchased by the advertiser named above; "
            "the station's political file holds the order.\n"
            * 3
            + "\nGross Total $33,550.00\nAgency Commission (15%) (5,032.50)\nNet Amount Due $28,517.50",
        ),
        _label(
            "Lakeshore Campaign Media",
            "Morgan Lee for State Senate",
            33550.0,
            "Net 30",
            5032.5,
            28517.5,
            [
                _line("Sunrise News 5A", "10/03/16", "10/30/16", "M-F", 90.0),
                _line("Morning Show 7A-9A", "10/03/16", "10/30/16", "M-F", 240.0),
                _line("Midday News 12P", "10/03/16", "10/30/16", "M-F", 310.0),
                _line("Early News 5P", "10/03/16", "10/30/16", "M-F", 525.0),
                _line("Evening News 6P", "10/03/16", "10/30/16", "M-F", 980.0),
                _line("Prime Time Movie 8P-10P", "10/08/16", "10/29/16", "Sa", 1250.0),
                _line("Late News 11P", "10/03/16", "10/30/16", "M-Su", 640.0),
            ],
        ),
    ),
]

IDS = [_id(number) for number in range(1, len(ROWS) + 1)]


def _nullable(kind: str, description: str) -> dict:
    return {"anyOf": [{"type": kind}, {"type": "null"}], "description": description}


#: The `json_schema` every row carries: the shape public notebooks report for the hub's column
#: (nullable fields as two-branch `anyOf`, the non-standard type `float`, Agency and Advertiser
#: required strings); descriptions and line-item property types are invented.
JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "Agency": {"type": "string", "description": "Advertising agency that placed the order"},
        "Advertiser": {"type": "string", "description": "Advertiser the airtime is for"},
        "GrossTotal": _nullable("float", "Gross total of the invoice"),
        "PaymentTerms": _nullable("string", "Payment terms as printed"),
        "AgencyCommission": _nullable("float", "Agency commission"),
        "NetAmountDue": _nullable("float", "Net amount due"),
        "LineItems": {
            "type": "array",
            "description": "Broadcast lines in printed order",
            "items": {
                "type": "object",
                "properties": {
                    "LineItemDescription": _nullable("string", "Program or daypart"),
                    "LineItemStartDate": _nullable("string", "First air date as printed"),
                    "LineItemEndDate": _nullable("string", "Last air date as printed"),
                    "LineItemDays": _nullable("string", "Days of the week as printed"),
                    "LineItemRate": _nullable("float", "Rate per spot"),
                },
            },
        },
    },
    "required": ["Agency", "Advertiser"],
}


def table() -> Any:
    """The sample as a pyarrow Table with the hub's column types (structs, float64, strings)."""
    import pyarrow as pa

    line = pa.struct(
        [
            ("LineItemDescription", pa.string()),
            ("LineItemStartDate", pa.string()),
            ("LineItemEndDate", pa.string()),
            ("LineItemDays", pa.string()),
            ("LineItemRate", pa.float64()),
        ]
    )
    response = pa.struct(
        [
            ("Agency", pa.string()),
            ("Advertiser", pa.string()),
            ("GrossTotal", pa.float64()),
            ("PaymentTerms", pa.string()),
            ("AgencyCommission", pa.float64()),
            ("NetAmountDue", pa.float64()),
            ("LineItems", pa.list_(line)),
        ]
    )
    schema_type = pa.Table.from_pylist([{"json_schema": JSON_SCHEMA}]).schema.field("json_schema").type
    fields = pa.schema(
        [("id", pa.string()), ("text", pa.string()), ("json_response", response), ("json_schema", schema_type)]
    )
    rows = [
        {"id": row_id, "text": text, "json_response": label, "json_schema": JSON_SCHEMA}
        for row_id, (_, text, label) in zip(IDS, ROWS, strict=True)
    ]
    return pa.Table.from_pylist(rows, schema=fields)


def parquet_bytes() -> bytes:
    """The Parquet file's bytes (zstd, no timestamps, so the same rows give the same bytes)."""
    import pyarrow.parquet as pq

    buffer = io.BytesIO()
    pq.write_table(table(), buffer, compression="zstd", write_statistics=False)
    return buffer.getvalue()


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))
    from structsim_nb._io import write_bytes_atomic

    write_bytes_atomic(OUT, parquet_bytes())
    print(f"wrote {OUT} ({OUT.stat().st_size:,} bytes, {len(ROWS)} rows)")  # noqa: T201 - a script's report


if __name__ == "__main__":
    main()
