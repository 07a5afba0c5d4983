"""Score a whole dataset of expected/actual pairs: in this process, on every core, or on a cluster.

`score_dataset` gives the report an `Experiment` with `StructuredOutputSimilarity` gives for the
same pairs (the same rows, metrics, non-matches, and bytes after `to_file`), but scoring is
CPU-bound Python, and an `Experiment` runs evaluators on threads, so it uses one core. Here the
pairs are sent in chunks to worker processes (a local pool, or any `concurrent.futures.Executor`,
such as a Dask client's), each worker builds the evaluator and stickler's compiled spec once,
and results come back in input order.

The equivalence, stated once: `score_dataset(pairs, model_cls=M, **settings)` equals

    Experiment(
        cases=[Case(name=name, input=input, expected_output=expected, metadata=metadata) ...],
        evaluators=[StructuredOutputSimilarity(M, **settings)],
        report_cls=StructuredOutputReport,
    ).run_evaluations(lambda case: {"output": actual_of[case.name]})

with the `Case` left unparametrized, so values reach the evaluator as given. A document whose
scoring raises, or that kills its worker process, becomes one error row (score 0.0,
`test_pass` False, `metadata["error"]` set, the reason naming the error); the rest of the run
is unaffected.
"""

from __future__ import annotations

import collections
import concurrent.futures
import contextlib
import functools
import importlib
import itertools
import json
import logging
import os
import warnings
from collections.abc import Callable, Generator, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from pydantic import BaseModel
from strands_evals.types.evaluation import EvaluationData, EvaluationOutput

from ._signals import raise_if_terminated, sigterm_raises, stop_workers, worker_init
from .errors import PairsFileError
from .evaluate import StructuredOutputSimilarity
from .report import StructuredOutputReport

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_CHUNK_SIZE", "MIN_PARALLEL_DOCS", "map_ordered", "read_pairs", "score_dataset"]

#: Documents per task sent to a worker. At ~10-100 ms a document, a chunk costs far more than
#: the ~1 ms of sending it, yet stays short enough to balance load and stop promptly.
DEFAULT_CHUNK_SIZE = 8
#: Below this many documents `workers=None` scores in this process: starting workers costs more.
MIN_PARALLEL_DOCS = 64
#: Chunks kept in flight per worker; bounds memory while keeping every worker busy.
_IN_FLIGHT_PER_WORKER = 2


class _Settings(NamedTuple):
    """Everything a worker needs to build the evaluator; hashable, so workers cache on it.

    `model_blob` is the model class itself, pickled by value with cloudpickle, when workers
    cannot import it by `model_path` (a class defined in a notebook, `__main__` or a function);
    the documents then travel by value too, so instances of that class reach the evaluator as
    the same class.
    """

    model_path: str
    match_threshold: float
    weight_hints: bool
    name: str | None
    non_matches: bool
    fast_matching: bool = True
    model_blob: bytes | None = None
    strict: bool = False


class _Pair(NamedTuple):
    name: str
    input: Any
    expected: Any
    actual: Any
    metadata: dict[str, Any] | None


class _Scored(NamedTuple):
    """One document's result, as the `Experiment` records it for one evaluator."""

    score: float
    test_pass: bool
    reason: str
    rows: list[EvaluationOutput]


# -- reading pairs ----------------------------------------------------------------------------


def read_pairs(path: str | os.PathLike[str]) -> Iterator[dict[str, Any]]:
    """Read a pairs file: JSON Lines, one JSON object per line.

    Each line is `{"expected": ..., "actual": ...}`, optionally with `"name"` (a string),
    `"input"` (any JSON) and `"metadata"` (an object). `expected` and `actual` are a JSON object
    or a string of JSON text; the evaluator reads either. Blank lines are skipped.

    The whole file is checked before the first pair is returned, so a bad line fails the run
    before any scoring rather than halfway through; pairs are then read again one at a time.

    Args:
        path: The file.

    Returns:
        An iterator of `{"name", "expected", "actual", "input", "metadata"}` dicts, in file
        order (`name` is None when the line has none).

    Raises:
        PairsFileError: If the file is missing or not UTF-8, or a line is not a JSON object
            with `expected` and `actual`; the message names the file and the line number.
    """
    source = Path(path)
    for _ in _parse_lines(source):
        pass
    return _parse_lines(source)


def _parse_lines(source: Path) -> Iterator[dict[str, Any]]:
    try:
        handle = source.open("rb")
    except FileNotFoundError:
        raise PairsFileError(f"pairs file must exist; {str(source)!r} was not found") from None
    except OSError as exc:
        raise PairsFileError(f"pairs file {str(source)!r} could not be opened: {exc}") from exc
    with handle:
        # Bytes, decoded a line at a time, so a bad byte is reported on the line that holds it.
        for lineno, raw in enumerate(handle, start=1):
            try:
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise PairsFileError(
                    f"pairs file {str(source)!r} must be UTF-8 text; line {lineno} is not: {exc.reason} at byte "
                    f"{exc.start + 1} of the line"
                ) from exc
            if not line.strip():
                continue
            yield _parse_line(source, lineno, line)


def _parse_line(source: Path, lineno: int, line: str) -> dict[str, Any]:
    where = f"pairs file {str(source)!r}, line {lineno}"
    try:
        record = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PairsFileError(
            f"{where} must be one JSON object; column {exc.colno}: {exc.msg}. "
            'Write one {"name", "expected", "actual"} object per line (JSON Lines)'
        ) from exc
    except RecursionError:
        raise PairsFileError(f"{where} nests too deeply to read; keep expected and actual under 100 levels") from None
    except ValueError as exc:  # a number with more digits than Python converts
        raise PairsFileError(f"{where} cannot be read: {exc}") from None
    if not isinstance(record, dict):
        raise PairsFileError(f"{where} must be a JSON object; got a JSON {type(record).__name__}")
    missing = [key for key in ("expected", "actual") if key not in record]
    if missing:
        raise PairsFileError(
            f"{where} must have keys 'expected' and 'actual'; it lacks {', '.join(map(repr, missing))} "
            f"(it has: {', '.join(map(repr, record)) or 'none'})"
        )
    name = record.get("name")
    if name is not None and not isinstance(name, str):
        raise PairsFileError(f"{where}: 'name' must be a string; got {name!r}")
    metadata = record.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise PairsFileError(f"{where}: 'metadata' must be a JSON object; got {metadata!r}")
    return {
        "name": name,
        "expected": record["expected"],
        "actual": record["actual"],
        "input": record.get("input"),
        "metadata": metadata,
    }


def _pair(index: int, item: Any) -> _Pair:
    """One input item as a `_Pair`; unnamed pairs are named `case_<index>` as an Experiment shows them."""
    if isinstance(item, Mapping):
        if "expected" not in item or "actual" not in item:
            raise TypeError(
                f"pairs[{index}] must have keys 'expected' and 'actual'; it has: {', '.join(map(repr, item))}"
            )
        name, payload = item.get("name"), (item.get("input"), item["expected"], item["actual"], item.get("metadata"))
    elif isinstance(item, (tuple, list)) and len(item) in (2, 3):
        name = item[0] if len(item) == 3 else None
        payload = (None, item[-2], item[-1], None)
    else:
        raise TypeError(
            f"pairs[{index}] must be a mapping with 'expected' and 'actual', an (expected, actual) pair "
            f"or a (name, expected, actual) triple; got {type(item).__name__}"
        )
    if name is not None and not isinstance(name, str):
        raise TypeError(f"pairs[{index}] name must be a string; got {name!r}")
    return _Pair(name if name is not None else f"case_{index}", *payload)


def _source(pairs: Any) -> tuple[Iterator[_Pair], int | None]:
    """The pairs as an iterator of `_Pair`, and how many there are when that is known up front."""
    if isinstance(pairs, (str, os.PathLike)):
        source = Path(pairs)
        total = sum(1 for _ in read_pairs(source))
        return (_pair(index, item) for index, item in enumerate(_parse_lines(source))), total
    if isinstance(pairs, Mapping) or not isinstance(pairs, Iterable):
        raise TypeError(
            "pairs must be an iterable of pairs (mappings with 'expected' and 'actual', or tuples) "
            f"or the path of a JSON Lines file; got {type(pairs).__name__}"
        )
    if isinstance(pairs, Sequence):
        for index, item in enumerate(pairs):  # fail before any scoring, naming the item
            _pair(index, item)
        return (_pair(index, item) for index, item in enumerate(pairs)), len(pairs)
    return (_pair(index, item) for index, item in enumerate(pairs)), None


# -- the worker side --------------------------------------------------------------------------


@functools.lru_cache(maxsize=8)
def _evaluator(settings: _Settings) -> StructuredOutputSimilarity:
    """The evaluator for `settings`, built (and stickler's spec compiled) once per process."""
    logger.debug("model=<%s>, pid=<%s> | building evaluator", settings.model_path, os.getpid())
    model: type[BaseModel] | str = settings.model_path
    if settings.model_blob is not None:
        import cloudpickle

        model = cloudpickle.loads(settings.model_blob)
    return StructuredOutputSimilarity(
        model,
        match_threshold=settings.match_threshold,
        weight_hints=settings.weight_hints,
        name=settings.name,
        non_matches=settings.non_matches,
        fast_matching=settings.fast_matching,
        strict=settings.strict,
    )


def _error(model_name: str, kind: str, reason: str) -> _Scored:
    """The error row for a document that could not be scored; `cases_frame` shows it as `error`."""
    row = EvaluationOutput(score=0.0, test_pass=False, reason=reason, label=model_name, metadata={"error": kind})
    return _Scored(0.0, False, reason, [row])


def _score_one(evaluator: StructuredOutputSimilarity, name: str, expected: Any, actual: Any) -> _Scored:
    """Score one document as `Experiment._run_evaluator` does, turning an exception into an error row."""
    try:
        outputs = evaluator.evaluate(
            EvaluationData(input=None, name=name, expected_output=expected, actual_output=actual)
        )
        score, passed, reason = evaluator.aggregator(outputs)
        return _Scored(float(score), passed, reason or "", outputs)
    except Exception as exc:  # noqa: BLE001 - isolated per document, reported on its row
        return _error(evaluator.model_cls.__name__, "raised", f"Evaluator error: {type(exc).__name__}: {exc}")


def _score_chunk(settings: _Settings, chunk: list[tuple[str, Any, Any]] | bytes) -> list[_Scored]:
    """Worker entry point: score `(name, expected, actual)` triples with the cached evaluator.

    With a model sent by value the chunk arrives as cloudpickle bytes (see `_wire`); the
    evaluator is built first, so the documents load as instances of its very class.
    """
    evaluator = _evaluator(settings)
    if isinstance(chunk, bytes):
        import cloudpickle

        triples: list[tuple[str, Any, Any]] = cloudpickle.loads(chunk)
    else:
        triples = chunk
    return [_score_one(evaluator, name, expected, actual) for name, expected, actual in triples]


# -- the parent side --------------------------------------------------------------------------


def _dotted_path(model_cls: type[BaseModel]) -> str | None:
    """`model_cls`'s dotted path when another process can import it by that path, else None."""
    path = f"{model_cls.__module__}.{model_cls.__qualname__}"
    if model_cls.__module__ in ("__main__", "__mp_main__") or "<locals>" in model_cls.__qualname__:
        return None
    try:
        resolved: Any = importlib.import_module(model_cls.__module__)
        for part in model_cls.__qualname__.split("."):
            resolved = getattr(resolved, part)
    except (ImportError, AttributeError):
        return None
    return path if resolved is model_cls else None


def _capacity(executor: Any, workers: int | None) -> int:
    """How many chunks `executor` runs at once: `workers` if given, else a Dask client's threads, else the cores.

    Only public APIs are read: `distributed.Client.nthreads()` when the executor is a Client.
    A plain `concurrent.futures` executor does not say its size publicly, so this machine's
    cores stand in; pass `workers=` to size the work sent to a larger one.
    """
    if workers is not None:
        return workers
    nthreads = getattr(executor, "nthreads", None)  # distributed.Client: {worker address: threads}
    if callable(nthreads):
        try:
            return max(1, sum(nthreads().values()))
        except Exception:  # noqa: BLE001 - only a sizing hint
            logger.debug("executor=<%r> | could not read the cluster size; using the cores", executor)
    return _cores()


def _submitter(executor: Any) -> concurrent.futures.Executor:
    """The `concurrent.futures` face of `executor`: a Dask `Client`'s `get_executor()`, else itself."""
    get_executor = getattr(executor, "get_executor", None)
    return get_executor() if callable(get_executor) else executor  # type: ignore[no-any-return]


def _cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _chunks(source: Iterator[_Pair], size: int) -> Iterator[list[_Pair]]:
    while chunk := list(itertools.islice(source, size)):
        yield chunk


def _wire(chunk: list[_Pair], settings: _Settings) -> list[tuple[str, Any, Any]] | bytes:
    """What a worker needs of each pair: the case record (input, metadata) stays in the parent.

    With the model sent by value, the documents are pickled by value too (they may be instances
    of that class, which the worker could not import by name).
    """
    triples = [(pair.name, pair.expected, pair.actual) for pair in chunk]
    if settings.model_blob is None:
        return triples
    import cloudpickle

    return cloudpickle.dumps(triples)  # type: ignore[no-any-return]


def _by_value(model_cls: type[BaseModel]) -> bytes:
    """`model_cls` pickled by value (cloudpickle), for workers that cannot import it by name.

    Raises:
        TypeError: If it cannot be pickled, naming why (a class that holds a lock, an open file
            or a live client in its namespace, say).
    """
    import cloudpickle

    where = f"{model_cls.__module__}.{model_cls.__qualname__}"
    try:
        blob: bytes = cloudpickle.dumps(model_cls)
        cloudpickle.loads(blob)
    except Exception as exc:  # noqa: BLE001 - any failure means the workers cannot have the model
        raise TypeError(
            f"model_cls must be importable by dotted path or picklable by value to score on worker processes; "
            f"{where} is neither (defined in __main__, a notebook or a function, and cloudpickle failed: "
            f"{type(exc).__name__}: {exc}). Move the model to a module, or pass workers=1"
        ) from exc
    return blob


def _new_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    # Workers ignore Ctrl-C (the parent stops them) and die with the parent (`_signals.worker_init`).
    return concurrent.futures.ProcessPoolExecutor(max_workers=workers, initializer=worker_init)


class _Quarantine:
    """Scores suspect documents one at a time on a private one-process pool, so a crash names its document.

    Used when a chunk could not be scored as a whole (its worker died, or the executor failed
    it). Documents queue in order on a single worker, so when that pool breaks, the first
    unfinished document is the one that killed it: it becomes an error row, and a new pool
    scores the rest.
    """

    def __init__(self, settings: _Settings, model_name: str) -> None:
        self._settings = settings
        self._model_name = model_name
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def score(self, chunk: list[_Pair], cause: BaseException) -> list[_Scored]:
        """Score `chunk` document by document; `cause` is why the chunk as a whole failed."""
        logger.warning(
            "cases=<%s..%s>, error=<%s: %s> | chunk failed outside the evaluator, rescoring its documents one by one",
            chunk[0].name,
            chunk[-1].name,
            type(cause).__name__,
            cause,
        )
        results: list[_Scored] = []
        while len(results) < len(chunk):
            if self._pool is None:
                self._pool = _new_pool(1)
            pending = chunk[len(results) :]
            futures = [
                self._pool.submit(_score_chunk, self._settings, _wire([pair], self._settings)) for pair in pending
            ]
            for pair, future in zip(pending, futures, strict=True):
                try:
                    results.extend(future.result())
                    continue
                except Exception as exc:  # noqa: BLE001 - this document alone failed outside the evaluator
                    logger.warning("case=<%s>, error=<%s> | document could not be scored", pair.name, exc)
                    results.append(_failed(self._model_name, exc, cause))
                    broken = isinstance(exc, concurrent.futures.BrokenExecutor)
                if broken:
                    self.close()
                    break
        return results

    def close(self, *, now: bool = False) -> None:
        """Stop the private pool, if one is running; `now` terminates its worker mid-document."""
        if self._pool is not None:
            if now:
                stop_workers(self._pool)
            else:
                self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _failed(model_name: str, exc: BaseException, cause: BaseException) -> _Scored:
    detail = str(exc) or "no message"
    return _error(
        model_name,
        "crashed",
        f"Scoring error: {type(exc).__name__}: {detail}. The chunk holding this document failed "
        f"({type(cause).__name__}), and scored alone this document failed again, so it is the cause",
    )


def _in_process(
    evaluator: StructuredOutputSimilarity, source: Iterator[_Pair]
) -> Generator[tuple[_Pair, _Scored], None, None]:
    for pair in source:
        yield pair, _score_one(evaluator, pair.name, pair.expected, pair.actual)


def _parallel(
    source: Iterator[_Pair],
    *,
    settings: _Settings,
    model_name: str,
    executor: Any,
    workers: int | None,
    chunk_size: int,
) -> Generator[tuple[_Pair, _Scored], None, None]:
    """Score `source` in chunks on `executor` (or a pool of `workers` processes), yielding in order.

    At most `_IN_FLIGHT_PER_WORKER` chunks per worker are submitted ahead of the one being
    collected, so memory does not grow with the dataset. A chunk that fails as a whole is
    rescored document by document in `_Quarantine`; a pool of our own that broke is replaced.
    """
    own = executor is None
    pool: concurrent.futures.Executor = _new_pool(workers or _cores()) if own else _submitter(executor)
    capacity = (workers or _cores() if own else _capacity(executor, workers)) * _IN_FLIGHT_PER_WORKER
    quarantine = _Quarantine(settings, model_name)
    inflight: collections.deque[tuple[list[_Pair], concurrent.futures.Future[list[_Scored]], Any]] = collections.deque()

    def replace_pool(broken: Any) -> None:
        nonlocal pool
        if own and pool is broken:
            logger.warning("workers=<%s> | a worker process died; starting a new pool", workers)
            pool.shutdown(wait=False, cancel_futures=True)
            pool = _new_pool(workers or _cores())

    def submit(chunk: list[_Pair]) -> None:
        target = pool
        try:
            future = target.submit(_score_chunk, settings, _wire(chunk, settings))
        except (concurrent.futures.BrokenExecutor, RuntimeError) as exc:
            if not own:
                # A broken executor of the caller's: its chunks go to the quarantine instead.
                future = concurrent.futures.Future()
                future.set_exception(exc)
            else:
                replace_pool(target)
                target = pool
                future = target.submit(_score_chunk, settings, _wire(chunk, settings))
        inflight.append((chunk, future, target))

    def collect() -> Iterator[tuple[_Pair, _Scored]]:
        chunk, future, target = inflight.popleft()
        try:
            results = future.result()
        except Exception as exc:  # noqa: BLE001 - the worker function never raises; this is the executor
            if isinstance(exc, concurrent.futures.BrokenExecutor):
                replace_pool(target)
            results = quarantine.score(chunk, exc)
        if len(results) != len(chunk):
            raise RuntimeError(f"a chunk of {len(chunk)} documents came back with {len(results)} results")
        yield from zip(chunk, results, strict=True)

    interrupted = True
    try:
        with sigterm_raises():  # SIGTERM stops the workers below, as Ctrl-C does
            for chunk in _chunks(source, chunk_size):
                raise_if_terminated()
                submit(chunk)
                while len(inflight) >= capacity:
                    yield from collect()
            while inflight:
                raise_if_terminated()
                yield from collect()
        interrupted = False
    finally:
        for _, future, _ in inflight:  # only left over when interrupted
            future.cancel()
        quarantine.close(now=interrupted)
        if own and interrupted:
            stop_workers(pool)  # terminated now, not after the chunks they hold
        elif own:
            pool.shutdown(wait=False, cancel_futures=True)


def _apply_chunk(fn: Callable[[Any], Any], chunk: list[Any]) -> list[Any]:
    return [fn(item) for item in chunk]


def map_ordered(
    fn: Callable[[Any], Any],
    items: Iterable[Any],
    *,
    workers: int | None = None,
    executor: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
) -> Iterator[Any]:
    """`fn(item)` for every item, computed in chunks on worker processes, yielded in input order.

    The general form of what `score_dataset` does, for per-item functions that never raise
    for bad data (such as `trajectories.score_pair`). At most two chunks per worker are in
    flight, so the input is read as the results are consumed.

    Args:
        fn: A picklable function (module level, or a `functools.partial` of one).
        items: Picklable items.
        workers: Processes of a pool of our own. Default None: every core. With `executor`,
            how many chunks it runs at once (default: a Dask `Client`'s threads, else the cores).
        executor: A `distributed.Client`, or any `concurrent.futures.Executor`; used, not shut down.
        chunk_size: Items per task. Default `DEFAULT_CHUNK_SIZE`.

    Raises:
        Exception: Whatever `fn` or the executor raised for a chunk (a crashed worker gives
            `BrokenProcessPool`); pending chunks are cancelled first.
        KeyboardInterrupt: On Ctrl-C, or `_signals.Terminated` on SIGTERM: the worker processes
            of a pool of our own are terminated at once (a caller's executor only has its
            pending chunks cancelled). Under SIGTERM's default action the process then ends by
            SIGTERM, as it would have (see `_signals.sigterm_raises`).
    """
    own = executor is None
    pool = _new_pool(workers or _cores()) if own else _submitter(executor)
    capacity = (workers or _cores() if own else _capacity(executor, workers)) * _IN_FLIGHT_PER_WORKER
    inflight: collections.deque[concurrent.futures.Future[list[Any]]] = collections.deque()
    source = iter(items)
    interrupted = True
    try:
        with sigterm_raises():
            while chunk := list(itertools.islice(source, chunk_size)):
                raise_if_terminated()
                inflight.append(pool.submit(_apply_chunk, fn, chunk))
                while len(inflight) >= capacity:
                    yield from inflight.popleft().result()
            while inflight:
                raise_if_terminated()
                yield from inflight.popleft().result()
        interrupted = False
    finally:
        for future in inflight:  # only left over on an error or an interrupt
            future.cancel()
        if own and interrupted:
            stop_workers(pool)
        elif own:
            pool.shutdown(wait=False, cancel_futures=True)


# -- the public function ----------------------------------------------------------------------


def score_dataset(
    pairs: Iterable[Any] | str | os.PathLike[str],
    *,
    model_cls: type[BaseModel] | str,
    match_threshold: float = 0.7,
    weight_hints: bool = False,
    non_matches: bool = True,
    fast_matching: bool = True,
    strict: bool = False,
    name: str | None = None,
    workers: int | None = None,
    executor: Any = None,
    chunk_size: int = DEFAULT_CHUNK_SIZE,
    progress: bool | None = None,
) -> StructuredOutputReport:
    """Score every expected/actual pair with `StructuredOutputSimilarity`, on as many cores as asked.

    The report is the one a Strands Evals `Experiment` returns for the same pairs and settings
    (see the module docstring): the same rows in the same order, so `metrics()`, `per_case()`,
    the non-matches and `to_file` bytes agree. Only where scoring runs differs.

    Args:
        pairs: The dataset, as an iterable of mappings `{"expected", "actual"}` (optionally with
            `"name"`, `"input"` and `"metadata"`), of `(expected, actual)` pairs or of
            `(name, expected, actual)` triples; or the path of a JSON Lines file (see
            `read_pairs`). Each side is a `model_cls` instance, a dict, or JSON text, read as the
            evaluator reads it. Unnamed pairs are named `case_<index>`. A list is checked up front;
            another iterable is read lazily, so a bad item there fails when reached.
        model_cls: The Pydantic model both sides are read as, or its dotted path. A model that
            workers cannot import by name (defined in a notebook, `__main__` or a function) is
            sent to them by value with cloudpickle, documents included, so a notebook's model
            scores on every core too. One that cannot be pickled either raises `TypeError` when
            workers were asked for, and with `workers=None` scores in this process with a
            `UserWarning` saying so.
        match_threshold: Forwarded to `StructuredOutputSimilarity`. Default 0.7.
        weight_hints: Forwarded to `StructuredOutputSimilarity`. Default False.
        non_matches: Forwarded to `StructuredOutputSimilarity`. Default True.
        fast_matching: Forwarded to `StructuredOutputSimilarity`. Default True.
        strict: Forwarded to `StructuredOutputSimilarity`: True scores a side that does not validate
            0.0 as unreadable (upstream's reading). Default False (read leniently).
        name: Evaluator name, as on `StructuredOutputSimilarity`. Default None.
        workers: Worker processes. 1 scores in this process (a document that crashes the
            interpreter then ends the run, and a crash is only isolated with 2 or more).
            Default None: every core when there are at least `MIN_PARALLEL_DOCS` pairs, else 1.
            With `executor`, how many chunks it runs at once (default: a Dask `Client`'s
            threads, else this machine's cores).
        executor: A `distributed.Client` (its `get_executor()` is used and its size read from
            `nthreads()`), or any `concurrent.futures.Executor` whose workers can import this
            package and `model_cls`. It is used, not shut down. Default None (a process pool
            of our own).
        chunk_size: Pairs per task sent to a worker. Default `DEFAULT_CHUNK_SIZE` (8).
        progress: Show a progress bar (`tqdm.auto`: a terminal bar, or a widget in Jupyter).
            Default None: shown for runs of `MIN_PARALLEL_DOCS` pairs or more, when stderr is a
            terminal or in a notebook.

    Returns:
        A `StructuredOutputReport` with one case per pair, in input order.

    Raises:
        TypeError: If `pairs` or one of its items has the wrong shape (the message names the
            item), or workers were asked for and `model_cls` can be neither imported by them nor
            pickled by value (the message says why).
        ValueError: If `workers`, `chunk_size` or `match_threshold` is out of range.
        PairsFileError: If `pairs` is a file with a line that is not a pair (naming the line).
        KeyboardInterrupt: On Ctrl-C; pending work is cancelled, the worker processes are
            terminated, and nothing is returned, so no partial report can be saved. SIGTERM
            does the same, then ends the process as SIGTERM would (`_signals.sigterm_raises`);
            a SIGTERM handler the caller installed is left to decide.

    Notes:
        A document whose scoring raises, or whose worker process dies, becomes an error row:
        score 0.0, `test_pass` False, `metadata["error"]` `"raised"` or `"crashed"`, and the
        reason naming the exception; `cases_frame()` shows it with status `error`. Rows the
        `Experiment` records for an evaluator error carry no detail row at all; this is the
        one place the two differ.

    Examples:
        >>> from structsim_nb.demo import Invoice
        >>> pairs = [{"name": "a", "expected": {"invoice_id": "1", "vendor_name": "Acme"},
        ...           "actual": {"invoice_id": "1", "vendor_name": "ACME"}}]
        >>> report = score_dataset(pairs, model_cls=Invoice, workers=1)
        >>> report.cases[0]["name"], report.scores[0]
        ('a', 1.0)
    """
    evaluator = StructuredOutputSimilarity(
        model_cls,
        match_threshold=match_threshold,
        weight_hints=weight_hints,
        name=name,
        non_matches=non_matches,
        fast_matching=fast_matching,
        strict=strict,
    )
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise ValueError(f"workers must be a whole number of at least 1, or None for every core; got {workers!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, int) or chunk_size < 1:
        raise ValueError(f"chunk_size must be a whole number of at least 1; got {chunk_size!r}")
    if executor is not None and not (
        isinstance(executor, concurrent.futures.Executor) or callable(getattr(executor, "get_executor", None))
    ):
        raise TypeError(
            "executor must be a concurrent.futures.Executor or a distributed.Client (for Dask: "
            f"Client(address)); got {executor!r}"
        )
    source, total = _source(pairs)
    path = _dotted_path(evaluator.model_cls)
    large = total is None or total >= MIN_PARALLEL_DOCS
    asked = executor is not None or (workers or 1) > 1
    if executor is None and workers is None:
        if total is None:
            head = list(itertools.islice(source, MIN_PARALLEL_DOCS))
            large = len(head) >= MIN_PARALLEL_DOCS
            source = itertools.chain(head, source)
        workers = _cores() if large else 1
    blob = None
    if path is None and (executor is not None or workers > 1):  # type: ignore[operator]
        try:
            blob = _by_value(evaluator.model_cls)
        except TypeError as exc:
            if asked:
                raise
            warnings.warn(f"{exc}. Scoring in this process, on one core.", UserWarning, stacklevel=2)
            workers = 1
        else:
            logger.info(
                "model=<%s> | model is not importable by dotted path | sending it to the workers by value",
                evaluator.model_cls.__qualname__,
            )
    settings = _Settings(path or "", match_threshold, weight_hints, name, non_matches, fast_matching, blob, strict)
    model_name = evaluator.model_cls.__name__
    if executor is None and workers == 1:
        results = _in_process(evaluator, source)
    else:
        results = _parallel(
            source, settings=settings, model_name=model_name, executor=executor, workers=workers, chunk_size=chunk_size
        )
    logger.debug("pairs=<%s>, workers=<%s>, executor=<%s> | scoring dataset", total, workers, type(executor).__name__)

    from tqdm.auto import tqdm

    show = None if progress is None and large else bool(progress)
    evaluator_name, evaluator_type = evaluator.get_name(), evaluator.get_type_name()
    cases: list[dict[str, Any]] = []
    scores: list[float] = []
    passes: list[bool] = []
    reasons: list[str] = []
    detailed: list[list[EvaluationOutput]] = []
    with (
        sigterm_raises(),
        contextlib.closing(results),  # on Ctrl-C or SIGTERM here, the pool's workers are stopped before we go
        tqdm(total=total, unit="doc", desc="scoring", disable=None if show is None else not show) as bar,
    ):
        for pair, scored in results:
            if scored.rows and (scored.rows[0].metadata or {}).get("error") in ("raised", "crashed"):
                logger.warning("case=<%s>, reason=<%s> | document could not be scored", pair.name, scored.reason)
            case = EvaluationData(
                name=pair.name,
                input=pair.input,
                expected_output=pair.expected,
                actual_output=pair.actual,
                metadata=pair.metadata,
            ).model_dump()
            cases.append({**case, "evaluator": evaluator_name, "evaluator_type": evaluator_type})
            scores.append(scored.score)
            passes.append(scored.test_pass)
            reasons.append(scored.reason)
            detailed.append(scored.rows)
            bar.update(1)
    # As `Experiment.run_evaluations_async` builds it, so the report is the same, field for field.
    return StructuredOutputReport(
        overall_score=StructuredOutputReport.calculate_overall_score(scores, detailed),
        scores=scores,
        test_passes=passes,
        cases=cases,
        reasons=reasons,
        detailed_results=detailed,
        diagnoses=[None] * len(cases),
        recommendations=[None] * len(cases),
    )
