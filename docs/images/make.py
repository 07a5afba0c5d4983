"""Regenerate the README's chart image: `python docs/images/make.py` from the repository root.

The chart is `report.plot.fields()` on 500 synthetic invoices (`structsim_nb.demo.synthetic_invoice_pairs`,
1 to 8 line items, seed 7: made-up documents with the extraction errors that function documents, no model
output), scored with `score_dataset`. The same seed gives the same picture on every run and platform.
"""

from __future__ import annotations

from pathlib import Path

from structsim_nb import score_dataset
from structsim_nb.demo import Invoice, synthetic_invoice_pairs
from structsim_nb.plot import figure_png

HERE = Path(__file__).resolve().parent


def main() -> None:
    report = score_dataset(
        synthetic_invoice_pairs(500, line_items=(1, 8), seed=7), model_cls=Invoice, workers=1, progress=False
    )
    ax = report.plot.fields()
    png, _ = figure_png(ax.figure, scale=1.5)
    (HERE / "fields.png").write_bytes(png)
    print(f"wrote {HERE / 'fields.png'} ({len(png):,} bytes)")


if __name__ == "__main__":
    main()
