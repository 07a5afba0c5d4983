"""FCC political-advertising invoices: the dataset loader and the cases.

The documents are `amazon-agi/RealKIE-FCC-Verified` on the HuggingFace hub: one row per
invoice with `id`, the OCR `text` and the label `json_response` (Agency, Advertiser,
GrossTotal, PaymentTerms, AgencyCommission, NetAmountDue and LineItems). `load_fcc("hub")`
reads it through `datasets.load_dataset`; `load_fcc("sample")` reads the small JSON Lines file
shipped in this package (`SAMPLE_PATH`, written for this project, not real filings) through the
same `datasets` API, so everything here also runs offline.

Assumptions about the hub rows, since the hub cannot be reached from where this was written:
`json_response` is a JSON object or a string holding one (both are accepted); amounts may be
numbers or text as printed (`"$1,234.50"`); dates are text as printed (`"10/03/16"`). Any
other column (the sample's `provenance`) is ignored.

A label that does not validate, and a document without line items, are logged with the
document id and kept: the first becomes a case whose expected output is the raw label (the
evaluator scores it 0.0 as unreadable, so the report still counts it), the second a case whose
`LineItems` is an empty list.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .models import FCCInvoice

logger = logging.getLogger(__name__)

__all__ = [
    "HUB_DATASET",
    "SAMPLE_PATH",
    "FCCDocument",
    "fcc_cases",
    "load_fcc",
]

HUB_DATASET = "amazon-agi/RealKIE-FCC-Verified"
#: The bundled offline sample: eight invoices written for this project (see data/README.md).
SAMPLE_PATH = Path(__file__).resolve().parent / "data" / "fcc_sample.jsonl"
COLUMNS = ("id", "text", "json_response")

# -- documents ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FCCDocument:
    """One invoice as loaded: the OCR text, the label, and what (if anything) is wrong with it.

    Attributes:
        id: The row's `id`.
        text: The OCR text.
        label: The validated label, or None when it did not validate.
        raw_label: The label as read (a dict when it was JSON, else the raw value).
        problem: Why the label did not validate, or None.
        n_line_items: Line items in the raw label (0 when it has none or is unreadable).
    """

    id: str
    text: str
    label: FCCInvoice | None
    raw_label: Any
    problem: str | None
    n_line_items: int

    @property
    def expected(self) -> Any:
        """What a case expects: the validated label, else the raw one (scored 0.0, unreadable)."""
        return self.label if self.label is not None else self.raw_label


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    where = ".".join(map(str, first["loc"])) or "(root)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    got = repr(first.get("input"))
    shown = "" if got in first["msg"] else f"; got {got}"
    return f"{where}: {first['msg']}{shown}{more}"


def _document(row: dict[str, Any]) -> FCCDocument:
    doc_id = str(row["id"])
    raw = row["json_response"]
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            problem: str | None = f"json_response is not JSON ({exc.msg} at char {exc.pos})"
            logger.warning("document=<%s> | label does not validate, scored 0 as unreadable: %s", doc_id, problem)
            return FCCDocument(doc_id, str(row["text"] or ""), None, raw, problem, 0)
    items = raw.get("LineItems") if isinstance(raw, dict) else None
    n_items = len(items) if isinstance(items, list) else 0
    try:
        label: FCCInvoice | None = FCCInvoice.model_validate(raw)
        problem = None
    except ValidationError as exc:
        label, problem = None, _describe(exc)
        logger.warning("document=<%s> | label does not validate, scored 0 as unreadable: %s", doc_id, problem)
    if label is not None and not label.LineItems:
        logger.info("document=<%s> | label has no line items; LineItems is scored as an empty list", doc_id)
    return FCCDocument(doc_id, str(row["text"] or ""), label, raw, problem, n_items)


def _dataset(source: str | os.PathLike[str], split: str, cache_dir: str | None) -> Any:
    # optional extra: datasets
    try:
        from datasets import load_dataset
    except ImportError as exc:
        raise ImportError(
            f'loading FCC invoices needs the datasets extra: pip install "structsim-nb[datasets]" ({exc})'
        ) from exc
    if str(source) == "hub":
        try:
            return load_dataset(HUB_DATASET, split=split, cache_dir=cache_dir)
        except (ConnectionError, OSError) as exc:
            from ..errors import DatasetUnavailableError

            raise DatasetUnavailableError(
                f"the dataset {HUB_DATASET!r} must be reachable on the HuggingFace hub; loading it failed: "
                f"{type(exc).__name__}: {exc}. Check your network (or HF_TOKEN, HF_HUB_OFFLINE), or run offline "
                f"on the bundled sample with load_fcc('sample'), or on a local JSON Lines copy with "
                f"load_fcc('path/to/rows.jsonl')"
            ) from exc
    path = SAMPLE_PATH if str(source) == "sample" else Path(source)
    if not path.is_file():
        raise FileNotFoundError(
            f"source must be 'hub', 'sample' or an existing JSON Lines file; {str(path)!r} does not exist"
        )
    # A local file is one split; datasets names it "train" whatever the file holds.
    return load_dataset("json", data_files=str(path), split="train", cache_dir=cache_dir)


def load_fcc(
    source: str | os.PathLike[str] = "hub",
    *,
    split: str = "test",
    n_docs: int | None = None,
    max_line_items: int | None = None,
    max_text_chars: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
) -> list[FCCDocument]:
    """Load FCC invoices through `datasets`, filtered and capped.

    Args:
        source: `"hub"` (default: `HUB_DATASET` on the HuggingFace hub), `"sample"` (the bundled
            `SAMPLE_PATH`), or the path of a JSON Lines file with the hub's columns.
        split: The hub split. Default `"test"`. Ignored for a local file.
        n_docs: Keep at most this many documents, the first that pass the filters, in dataset
            order. Default None (all).
        max_line_items: Skip documents whose label has more line items than this (a label is
            never truncated: the text would then hold lines the label lacks). Default None.
        max_text_chars: Skip documents whose OCR text is longer than this (text is never cut:
            the label would then hold values the text lacks). Default None.
        cache_dir: Where `datasets` caches what it loads. Default None (its own default,
            `~/.cache/huggingface/datasets`).

    Returns:
        The documents, in dataset order. Labels that do not validate are kept (see the
        module docstring), and count towards `n_docs`.

    Raises:
        DatasetUnavailableError: If the hub cannot be reached; the message says how to run offline.
        FileNotFoundError: If `source` is a path that does not exist.
        ValueError: If a cap is negative, or the rows lack a column of `COLUMNS`.
    """
    for name, cap in (("n_docs", n_docs), ("max_line_items", max_line_items), ("max_text_chars", max_text_chars)):
        if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 0):
            raise ValueError(f"{name} must be a non-negative integer or None; got {cap!r}")
    dataset = _dataset(source, split, None if cache_dir is None else str(cache_dir))
    missing = [name for name in COLUMNS if name not in dataset.column_names]
    if missing:
        raise ValueError(
            f"FCC rows must have the columns {list(COLUMNS)}; {source!s} lacks {missing} "
            f"(it has {dataset.column_names})"
        )
    kept: list[FCCDocument] = []
    skipped = {"line_items": 0, "text": 0}
    for row in dataset:
        if n_docs is not None and len(kept) >= n_docs:
            break
        doc = _document(row)
        if max_line_items is not None and doc.n_line_items > max_line_items:
            skipped["line_items"] += 1
            continue
        if max_text_chars is not None and len(doc.text) > max_text_chars:
            skipped["text"] += 1
            continue
        kept.append(doc)
    logger.info(
        "source=<%s>, kept=<%d>, skipped_line_items=<%d>, skipped_text=<%d> | fcc documents loaded",
        source,
        len(kept),
        skipped["line_items"],
        skipped["text"],
    )
    return kept


def fcc_cases(docs: Sequence[FCCDocument], *, output_model: type[BaseModel] = FCCInvoice) -> list[Any]:
    """One Strands Evals `Case` per document: name the id, input the OCR text, expected the label.

    Args:
        docs: From `load_fcc`.
        output_model: The class the labels are read as. Default `FCCInvoice`; pass
            `FCCInvoiceTuned` for the configured-comparator run (its dates stay as printed).

    Returns:
        The cases, in document order. A label that does not validate as `output_model` is
        expected as is (the raw dict), which the evaluator scores 0.0 as unreadable;
        `metadata["problem"]` says why.
    """
    from strands_evals import Case

    cases = []
    for doc in docs:
        expected, problem = doc.expected, doc.problem
        if output_model is not FCCInvoice:
            try:
                expected, problem = output_model.model_validate(doc.raw_label), None
            except ValidationError as exc:
                expected, problem = doc.raw_label, _describe(exc)
        cases.append(
            Case[str, Any](
                name=doc.id,
                input=doc.text,
                expected_output=expected,
                metadata={"problem": problem, "line_items": doc.n_line_items},
            )
        )
    return cases
