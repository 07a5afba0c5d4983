"""Two runs of 40 synthetic invoices shared by the comparison tests: a baseline and a vendor-name regression."""

from __future__ import annotations

import hashlib

import pytest

from structsim_nb import score_dataset
from structsim_nb.demo import Invoice, synthetic_invoice_pairs

PAIRS = synthetic_invoice_pairs(40, line_items=(1, 3), seed=7)


def score(pairs, model_cls=Invoice):
    return score_dataset(pairs, model_cls=model_cls, workers=1, progress=False)


@pytest.fixture(scope="module")
def baseline_run():
    return score(PAIRS)


def vendor_regression(pairs):
    """`pairs` with the vendor name wrong in three cases of four, and every invoice date right."""
    return [
        {
            **pair,
            "actual": pair["actual"].model_copy(
                update={"invoice_date": pair["expected"].invoice_date} | ({} if i % 4 == 0 else {"vendor_name": "Zq"})
            ),
        }
        for i, pair in enumerate(pairs)
    ]


@pytest.fixture(scope="module")
def vendor_run():
    """The vendor name wrong in 30 of 40 cases, and every invoice date right; nothing else changed."""
    return score(vendor_regression(PAIRS))


@pytest.fixture(scope="module")
def long_named_runs():
    """Both runs with cases named as document files often are: a 32-digit hash and `.pdf`."""
    named = [{**pair, "name": hashlib.md5(pair["name"].encode()).hexdigest() + ".pdf"} for pair in PAIRS]
    return score(named), score(vendor_regression(named))
