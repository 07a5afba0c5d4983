"""FCC political-advertising invoices: the dataset loader and the cases.

The documents are `amazon-agi/RealKIE-FCC-Verified` on the HuggingFace hub: one split, `test`
(about 75 rows), with the columns `id`, `text` (the OCR text), `json_response` (the label: Agency,
Advertiser, GrossTotal, PaymentTerms, AgencyCommission, NetAmountDue and LineItems) and
`json_schema` (the JSON Schema the label follows). On the hub `json_response` and `json_schema`
are Parquet structs, which `datasets` reads as dicts; amounts are floats or null, dates printed
strings (`10/05/16`). `data/README.md` says where each of these facts comes from.

`load_fcc` reads the rows through `datasets`, from any of:

- `"hub"` (or the dataset id): the hub dataset;
- `"sample"`: the bundled sample (`SAMPLE_PATH`, eight invented invoices in the hub's format);
- a local file in a format `datasets` reads (`FORMATS`: Parquet, JSON Lines, JSON, CSV/TSV,
  Arrow), or a folder `datasets` loads (a hub snapshot: `data/test-*.parquet` with its card);
- a `datasets.Dataset`, or a `DatasetDict` (the split is taken from it).

A label may be a dict or JSON text. It is validated as the model (`FCCInvoice` by default, or one
built from the `json_schema` column with `model="json_schema"`); a label that does not validate
is kept with the reason (`FCCDocument.problem`), and the evaluator reads it leniently, so one odd
value costs only its own field. A label key the model has no field for would be ignored silently
by the model: it is reported instead, naming the key and the document (`unknown_keys`, a warning).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from pydantic import AliasChoices, BaseModel, ValidationError

from ..errors import DatasetFormatError
from .models import FCCInvoice

logger = logging.getLogger(__name__)

__all__ = [
    "COLUMNS",
    "FORMATS",
    "HUB_DATASET",
    "SAMPLE_PATH",
    "FCCDocument",
    "fcc_cases",
    "load_fcc",
]

HUB_DATASET = "amazon-agi/RealKIE-FCC-Verified"
#: The bundled offline sample: eight invented invoices in the hub's Parquet format (see data/README.md).
SAMPLE_PATH = Path(__file__).resolve().parent / "data" / "fcc_sample.parquet"
COLUMNS = ("id", "text", "json_response")
#: File suffix -> the `datasets` builder that reads it (and its options).
FORMATS: dict[str, tuple[str, dict[str, Any]]] = {
    ".parquet": ("parquet", {}),
    ".jsonl": ("json", {}),
    ".ndjson": ("json", {}),
    ".json": ("json", {}),
    ".csv": ("csv", {}),
    ".tsv": ("csv", {"sep": "\t"}),
    ".arrow": ("arrow", {}),
}
_ACCEPTED = (
    "'hub', 'sample', a datasets.Dataset or DatasetDict, a folder datasets can load (a hub snapshot), "
    f"or a file ending in {', '.join(FORMATS)}"
)

# -- documents ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FCCDocument:
    """One invoice as loaded: the OCR text, the label, and what (if anything) is odd about it.

    Attributes:
        id: The row's `id`.
        text: The OCR text.
        label: The label validated as `model`, or None when it did not validate.
        raw_label: The label as read (a dict when it was a struct or JSON, else the raw value).
        problem: Why the label did not validate as `model`, or None.
        n_line_items: Line items in the raw label (0 when it has none, null, or is unreadable).
        unknown_keys: Paths of label keys `model` has no field for (`LineItems[0].Station`);
            the model would ignore them, so they are reported here and logged.
        json_schema: The row's `json_schema`, normalized to standard JSON Schema; None when the
            rows have no such column.
        model: The model the label was validated as.
    """

    id: str
    text: str
    label: BaseModel | None
    raw_label: Any
    problem: str | None
    n_line_items: int
    unknown_keys: tuple[str, ...] = ()
    json_schema: dict[str, Any] | None = None
    model: type[BaseModel] = field(default=FCCInvoice, compare=False)

    @property
    def expected(self) -> Any:
        """What a case expects: the validated label, else the raw one (the evaluator reads it leniently)."""
        return self.label if self.label is not None else self.raw_label


def _describe(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    where = ".".join(map(str, first["loc"])) or "(root)"
    more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
    got = repr(first.get("input"))
    shown = "" if got in first["msg"] else f"; got {got}"
    return f"{where}: {first['msg']}{shown}{more}"


def _inner(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """`(model, is_list)` for a field holding a model or a list of models (Optional and Annotated unwrapped)."""
    for _ in range(4):
        args = [arg for arg in get_args(annotation) if arg is not type(None)]
        origin = get_origin(annotation)
        if origin in (list, Sequence) and args:
            element = args[0]
            for _ in range(3):
                inner = [arg for arg in get_args(element) if arg is not type(None)]
                if get_origin(element) is None or not inner:
                    break
                element = inner[0]
            if isinstance(element, type) and issubclass(element, BaseModel):
                return element, True
            return None, False
        if origin is not None and len(args) == 1:
            annotation = args[0]
            continue
        break
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    return None, False


def _keys(model: type[BaseModel]) -> dict[str, str]:
    """Every key a label may use for a field of `model` (name or alias) -> the field name."""
    keys: dict[str, str] = {}
    for name, info in model.model_fields.items():
        keys[name] = name
        alias = info.validation_alias if info.validation_alias is not None else info.alias
        for choice in alias.choices if isinstance(alias, AliasChoices) else [alias]:
            if isinstance(choice, str):
                keys[choice] = name
    return keys


def unknown_keys(label: Any, model: type[BaseModel], prefix: str = "") -> list[str]:
    """Paths of the keys in `label` that `model` has no field for, at every depth.

    Args:
        label: A label (a dict; anything else has no keys).
        model: The model it is read as.
        prefix: Path of `label` inside the whole label. Default "" (the root).

    Returns:
        Paths such as `Station` or `LineItems[2].Spots`, in the label's order.

    Examples:
        >>> unknown_keys({"Agency": "A", "Station": "KXNB", "LineItems": [{"Spots": 5}]}, FCCInvoice)
        ['Station', 'LineItems[0].Spots']
    """
    if not isinstance(label, Mapping):
        return []
    known = _keys(model)
    found: list[str] = []
    for key, value in label.items():
        path = f"{prefix}.{key}" if prefix else str(key)
        if key not in known:
            found.append(path)
            continue
        child, is_list = _inner(model.model_fields[known[key]].annotation)
        if child is None:
            continue
        if is_list and isinstance(value, list):
            for index, item in enumerate(value):
                found += unknown_keys(item, child, f"{path}[{index}]")
        elif not is_list:
            found += unknown_keys(value, child, path)
    return found


def _rows_of_columns(label: Any, model: type[BaseModel]) -> Any:
    """A list of objects that `datasets` returned as a dict of columns, back as a list of objects.

    Older `datasets` versions (and a `Sequence` feature over a dict) read a Parquet list of
    structs as `{"LineItemRate": [350.0, 600.0], ...}`; the model wants `[{"LineItemRate": 350.0}, ...]`.
    """
    if not isinstance(label, dict):
        return label
    out = dict(label)
    keys = _keys(model)
    for key, value in label.items():
        if key not in keys:
            continue
        child, is_list = _inner(model.model_fields[keys[key]].annotation)
        if child is None:
            continue
        columns = isinstance(value, dict) and value and all(isinstance(column, list) for column in value.values())
        if is_list and columns:
            lengths = {len(column) for column in value.values()}
            if len(lengths) == 1:
                (count,) = lengths
                value = [{name: column[i] for name, column in value.items()} for i in range(count)]
        if is_list and isinstance(value, list):
            out[key] = [_rows_of_columns(item, child) for item in value]
        elif not is_list:
            out[key] = _rows_of_columns(value, child)
    return out


def _document(row: Mapping[str, Any], model: type[BaseModel], json_schema: dict[str, Any] | None) -> FCCDocument:
    doc_id = str(row["id"])
    text = str(row["text"] or "")
    raw = row["json_response"]
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError as exc:
            problem: str | None = f"json_response is not JSON ({exc.msg} at char {exc.pos})"
            logger.warning("document=<%s> | label is not JSON, scored 0 as unreadable: %s", doc_id, problem)
            return FCCDocument(doc_id, text, None, raw, problem, 0, (), json_schema, model)
    raw = _rows_of_columns(raw, model)
    items = raw.get("LineItems") if isinstance(raw, dict) else None
    n_items = len(items) if isinstance(items, list) else 0
    unknown = tuple(unknown_keys(raw, model))
    if unknown:
        logger.warning(
            "document=<%s>, keys=<%s> | label keys %s has no field for; they are not compared",
            doc_id,
            ", ".join(unknown),
            model.__name__,
        )
    try:
        label: BaseModel | None = model.model_validate(raw)
        problem = None
    except ValidationError as exc:
        label, problem = None, _describe(exc)
        logger.warning(
            "document=<%s> | label does not validate as %s; the evaluator reads it leniently: %s",
            doc_id,
            model.__name__,
            problem,
        )
    if label is not None and not getattr(label, "LineItems", True):
        logger.info("document=<%s> | label has no line items; LineItems is scored as an empty list", doc_id)
    return FCCDocument(doc_id, text, label, raw, problem, n_items, unknown, json_schema, model)


# -- reading the rows ------------------------------------------------------------------------


def _load_dataset() -> Any:
    # optional extra: datasets
    try:
        from datasets import load_dataset
    except ImportError as exc:
        raise ImportError(
            f'loading FCC invoices needs the datasets extra: pip install "structsim-nb[datasets]" ({exc})'
        ) from exc
    return load_dataset


def _pick_split(rows: Any, split: str, where: str) -> Any:
    """The `split` of a `DatasetDict`, or the error naming the splits it has."""
    if split not in rows:
        raise ValueError(f"split must be one of {sorted(rows)} for {where}; got {split!r}")
    return rows[split]


def _dataset(source: Any, split: str, cache_dir: str | None) -> tuple[Any, str]:
    """The rows of `source` as a `datasets.Dataset`, and a name for it in messages."""
    try:
        from datasets import Dataset, DatasetDict
    except ImportError:  # pragma: no cover - the datasets extra is missing; _load_dataset says so
        Dataset = DatasetDict = ()  # type: ignore[assignment,misc]
    if Dataset and isinstance(source, DatasetDict):
        return _pick_split(source, split, "the DatasetDict"), "the DatasetDict"
    if Dataset and isinstance(source, Dataset):
        return source, "the Dataset"
    if not isinstance(source, (str, os.PathLike)):
        raise TypeError(f"source must be {_ACCEPTED}; got {type(source).__name__}")
    load_dataset = _load_dataset()
    if str(source) in ("hub", HUB_DATASET):
        try:
            return load_dataset(HUB_DATASET, split=split, cache_dir=cache_dir), HUB_DATASET
        except (ConnectionError, OSError) as exc:
            from ..errors import DatasetUnavailableError

            raise DatasetUnavailableError(
                f"the dataset {HUB_DATASET!r} must be reachable on the HuggingFace hub; loading it failed: "
                f"{type(exc).__name__}: {exc}. Check your network (or HF_TOKEN, HF_HUB_OFFLINE), or run offline "
                f"on the bundled sample with load_fcc('sample'), or on a local copy (a snapshot folder or "
                f"its Parquet file) with load_fcc('path/to/copy')"
            ) from exc
    path = SAMPLE_PATH if str(source) == "sample" else Path(source)
    if path.is_dir():
        return _read(lambda: load_dataset(str(path), split=split, cache_dir=cache_dir), path, split), str(path)
    if not path.is_file():
        raise FileNotFoundError(f"source must be {_ACCEPTED}; {str(path)!r} does not exist")
    suffix = next((s for s in FORMATS if path.name.lower().endswith(s)), None)
    if suffix is None:
        raise DatasetFormatError(
            f"FCC rows must be in a format datasets reads ({', '.join(FORMATS)}); {str(path)!r} is not. "
            "Convert it, or pass a datasets.Dataset"
        )
    builder, options = FORMATS[suffix]
    # A local file is one split; it is given the name asked for.
    files = {split: str(path)}
    return (
        _read(
            lambda: load_dataset(builder, data_files=files, split=split, cache_dir=cache_dir, **options), path, split
        ),
        str(path),
    )


def _read(load: Any, path: Path, split: str) -> Any:
    """Run `load`, turning what `datasets` raises on a bad file into an error naming the file."""
    try:
        return load()
    except ValueError as exc:
        if "split" in str(exc).lower():
            raise ValueError(f"split {split!r} is not in {str(path)!r}: {exc}") from exc
        raise DatasetFormatError(_unreadable(path, exc)) from exc
    except Exception as exc:  # datasets raises DatasetGenerationError, ArrowInvalid, EmptyDatasetError...
        if isinstance(exc, (FileNotFoundError, PermissionError)) and not path.exists():
            raise
        raise DatasetFormatError(_unreadable(path, exc)) from exc


def _unreadable(path: Path, exc: Exception) -> str:
    cause = exc.__cause__ if exc.__cause__ is not None and str(exc.__cause__) != str(exc) else None
    first = str(exc).splitlines()[0] if str(exc) else ""
    why = f" ({type(cause).__name__}: {str(cause).splitlines()[0][:200]})" if cause is not None else ""
    return (
        f"FCC rows could not be read from {str(path)!r}: {type(exc).__name__}: {first}{why}. "
        f"Accepted: {_ACCEPTED}; the rows need the columns {list(COLUMNS)}"
    )


@contextlib.contextmanager
def _progress_bars(show: bool) -> Iterator[None]:
    """`datasets`' and the hub client's progress bars, hidden for the block unless `show`.

    Both libraries keep the switch as a global; it is put back as it was after the block. An
    environment variable that forces the bars on (`HF_DATASETS_DISABLE_PROGRESS_BARS=0`,
    `HF_HUB_DISABLE_PROGRESS_BARS=0`) still wins: the libraries would warn, and the warning is
    swallowed, since the user asked for the bars.
    """
    try:
        # optional extra: datasets (without it, loading fails below with the install command)
        import datasets
        from huggingface_hub import utils as hub
    except ImportError:
        show = True
    if show:
        yield
        return
    hidden = (datasets.are_progress_bars_disabled(), hub.are_progress_bars_disabled())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        datasets.disable_progress_bars()
        hub.disable_progress_bars()
    try:
        yield
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if not hidden[0]:
                datasets.enable_progress_bars()
            if not hidden[1]:
                hub.enable_progress_bars()


def _schema_of(dataset: Any, where: str) -> dict[str, Any] | None:
    """The rows' `json_schema` (normalized), checking every row carries the same one; None without the column."""
    from .schema import normalize_json_schema

    if "json_schema" not in dataset.column_names:
        return None
    schemas = [normalize_json_schema(value) for value in dataset["json_schema"] if value is not None]
    if not schemas:
        return None
    first = schemas[0]
    differing = sum(1 for schema in schemas if schema != first)
    if differing:
        logger.warning(
            "source=<%s>, rows=<%d> | rows carry different json_schema values; the first is used", where, differing
        )
    return first


def load_fcc(
    source: Any = "hub",
    *,
    split: str = "test",
    model: type[BaseModel] | Literal["json_schema"] = FCCInvoice,
    n_docs: int | None = None,
    max_line_items: int | None = None,
    max_text_chars: int | None = None,
    cache_dir: str | os.PathLike[str] | None = None,
    progress: bool = True,
) -> list[FCCDocument]:
    """Load FCC invoices through `datasets`, filtered and capped.

    Args:
        source: Where the rows are; see the module docstring. `"hub"` (default: `HUB_DATASET`),
            `"sample"` (`SAMPLE_PATH`), a path to a file (`FORMATS`) or folder, or a
            `datasets.Dataset` / `DatasetDict`.
        split: The split to read. Default `"test"`, the hub's only split. A local file is one
            split, named so; a folder or `DatasetDict` must have it.
        model: The model labels are validated as. Default `FCCInvoice`. `"json_schema"` builds
            one from the rows' `json_schema` column (`schema.model_from_json_schema`); every
            document then carries it as `FCCDocument.model`.
        n_docs: Keep at most this many documents, the first that pass the filters, in dataset
            order. Default None (all).
        max_line_items: Skip documents whose label has more line items than this (a label is
            never truncated: the text would then hold lines the label lacks). Default None.
        max_text_chars: Skip documents whose OCR text is longer than this (text is never cut:
            the label would then hold values the text lacks). Default None.
        cache_dir: Where `datasets` caches what it loads. Default None (its own default,
            `~/.cache/huggingface/datasets`). Unused for a `Dataset` passed in.
        progress: Show the progress bars `datasets` draws while it reads (downloads, "Generating
            test split"). Default True. False hides them for this call only, so a notebook's saved
            outputs hold no bar frozen at its first state; the libraries' own setting is restored
            afterwards, and an environment variable forcing the bars on still wins.

    Returns:
        The documents, in dataset order. Labels that do not validate are kept (with
        `problem`), and count towards `n_docs`.

    Raises:
        DatasetUnavailableError: If the hub cannot be reached; the message says how to run offline.
        DatasetFormatError: If a file is in no format `datasets` reads, or `datasets` cannot
            read it; the message names the file and the accepted formats.
        FileNotFoundError: If `source` is a path that does not exist.
        TypeError: If `source` is none of the accepted kinds.
        ValueError: If a cap is negative, the split is missing, the rows lack a column of
            `COLUMNS`, or `model="json_schema"` and the rows have no usable `json_schema`.
    """
    for name, cap in (("n_docs", n_docs), ("max_line_items", max_line_items), ("max_text_chars", max_text_chars)):
        if cap is not None and (not isinstance(cap, int) or isinstance(cap, bool) or cap < 0):
            raise ValueError(f"{name} must be a non-negative integer or None; got {cap!r}")
    if model != "json_schema" and not (isinstance(model, type) and issubclass(model, BaseModel)):
        raise TypeError(f"model must be a Pydantic model class or 'json_schema'; got {model!r}")
    with _progress_bars(progress):
        dataset, where = _dataset(source, split, None if cache_dir is None else str(cache_dir))
    missing = [name for name in COLUMNS if name not in dataset.column_names]
    if missing:
        raise ValueError(
            f"FCC rows must have the columns {list(COLUMNS)}; {where} lacks {missing} (it has {dataset.column_names})"
        )
    json_schema = _schema_of(dataset, where)
    if model == "json_schema":
        if json_schema is None:
            raise ValueError(
                f"model='json_schema' needs a json_schema column with a schema in it; {where} has none "
                f"(its columns: {dataset.column_names}). Pass a model class instead"
            )
        from .schema import model_from_json_schema

        model = model_from_json_schema(json_schema)
    kept: list[FCCDocument] = []
    skipped = {"line_items": 0, "text": 0}
    for row in dataset:
        if n_docs is not None and len(kept) >= n_docs:
            break
        doc = _document(row, model, json_schema)
        if max_line_items is not None and doc.n_line_items > max_line_items:
            skipped["line_items"] += 1
            continue
        if max_text_chars is not None and len(doc.text) > max_text_chars:
            skipped["text"] += 1
            continue
        kept.append(doc)
    logger.info(
        "source=<%s>, kept=<%d>, skipped_line_items=<%d>, skipped_text=<%d> | fcc documents loaded",
        where,
        len(kept),
        skipped["line_items"],
        skipped["text"],
    )
    return kept


def fcc_cases(docs: Sequence[FCCDocument], *, output_model: type[BaseModel] | None = None) -> list[Any]:
    """One Strands Evals `Case` per document: name the id, input the OCR text, expected the label.

    Args:
        docs: From `load_fcc`.
        output_model: The class the labels are read as. Default None: each document's
            `model` (what `load_fcc` validated it as). Pass `FCCInvoiceTuned` for the
            configured-comparator run (its dates stay as printed).

    Returns:
        The cases, in document order. A label that does not validate as the model is expected
        as is (the raw dict), which `StructuredOutputSimilarity` reads leniently;
        `metadata["problem"]` says why it did not validate, `metadata["unknown_keys"]` lists
        the label keys the model has no field for.
    """
    from strands_evals import Case

    cases = []
    for doc in docs:
        expected, problem = doc.expected, doc.problem
        unknown = doc.unknown_keys
        if output_model is not None and output_model is not doc.model:
            unknown = tuple(unknown_keys(doc.raw_label, output_model))
            try:
                expected, problem = output_model.model_validate(doc.raw_label), None
            except ValidationError as exc:
                expected, problem = doc.raw_label, _describe(exc)
        cases.append(
            Case[str, Any](
                name=doc.id,
                input=doc.text,
                expected_output=expected,
                metadata={"problem": problem, "line_items": doc.n_line_items, "unknown_keys": list(unknown)},
            )
        )
    return cases
