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

Its parts: `_pairs` reads the pairs, `_workers` is what a worker process does, and `_pool` runs
the workers (chunks in flight, the quarantine, Ctrl-C and SIGTERM). `read_pairs`, `map_ordered`
and `DEFAULT_CHUNK_SIZE` are offered here.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import itertools
import logging
import os
import warnings
from collections.abc import Iterable
from typing import Any

from pydantic import BaseModel
from strands_evals.types.evaluation import EvaluationData, EvaluationOutput

from ._heap import young_collections_only
from ._pairs import Pair, pair_source, read_pairs
from ._pool import DEFAULT_CHUNK_SIZE, cores, map_ordered, score_in_parallel
from ._signals import sigterm_raises
from ._workers import Scored, WorkerSettings, by_value, fingerprint, score_in_process, score_one, sent_by_value
from .evaluate import StructuredOutputSimilarity, importable
from .report import StructuredOutputReport

logger = logging.getLogger(__name__)

__all__ = ["DEFAULT_CHUNK_SIZE", "MIN_PARALLEL_DOCS", "map_ordered", "read_pairs", "score_dataset"]

#: Below this many documents `workers=None` scores in this process: starting workers costs more.
MIN_PARALLEL_DOCS = 64


def _dotted_path(model_cls: type[BaseModel]) -> str | None:
    """`model_cls`'s dotted path when another process can import it by that path, else None."""
    if sent_by_value(model_cls) or not importable(model_cls):
        return None
    return f"{model_cls.__module__}.{model_cls.__qualname__}"


def _score_here(evaluator: StructuredOutputSimilarity, pair: Pair) -> Scored:
    """One pair scored in this process (a document no worker can receive, or every pair when no worker can load
    the model)."""
    return score_one(evaluator, pair.name, pair.expected, pair.actual)


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
            `UserWarning` saying so. The same holds for a model the workers cannot load (one that
            uses a module only this process has), or that they import as another class (its file
            was edited after this process imported it, and the workers are spawned, as on macOS):
            each worker checks it has this process's model (`_workers.fingerprint`: its fields, their
            types, `explain()` and each comparator's settings) before it scores.
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
            A pool of our own starts at most `_pool.MOST_WORKERS_PER_CORE` a core (more is lowered,
            with a warning: they could not score faster, and each costs memory).
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
            pickled by value, or does not load in them as this process's class (the message says why).
        ValueError: If `workers`, `chunk_size` or `match_threshold` is out of range.
        PairsFileError: If `pairs` is a file with a line that is not a pair (naming the line).
        WorkerStartError: If workers were asked for and none can start (checked when the pool
            fails before any chunk came back): a script read from standard input, or one that
            scores at its top level without `if __name__ == "__main__":`, under spawn or
            forkserver. The message says which. With `workers=None` a `UserWarning` says so and
            this process scores everything instead. No document is blamed either way.
        KeyboardInterrupt: On Ctrl-C; pending work is cancelled, the worker processes are
            terminated, and nothing is returned, so no partial report can be saved. SIGTERM
            does the same, then ends the process as SIGTERM would (`_signals.sigterm_raises`);
            a SIGTERM handler the caller installed is left to decide.

    Notes:
        A document whose scoring raises, or whose worker process dies, becomes an error row:
        score 0.0, `test_pass` False, `metadata["error"]` `"raised"` or `"crashed"`, and the
        reason naming the exception; `cases_frame()` shows it with status `error`. A document
        that cannot be sent to a worker (it does not pickle: a lock or a live client inside it)
        is scored in this process, with a logged warning, so it gets the row `workers=1` gives. Rows the
        `Experiment` records for an evaluator error carry no detail row at all; this is the
        one place the two differ.

        While the rows come in, Python's garbage collector skips the objects that exist when they
        start and starts no full collection by itself: the rows piling up are no garbage, and each
        full collection would walk them all again. A process-wide setting, put back when the call
        returns or raises, left alone when the collector is disabled or objects are already frozen
        (`structsim_nb._heap`); worker processes forked meanwhile collect as usual.

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
    source, total = pair_source(pairs)
    path = _dotted_path(evaluator.model_cls)
    large = total is None or total >= MIN_PARALLEL_DOCS
    asked = executor is not None or (workers or 1) > 1
    if executor is None and workers is None:
        if total is None:
            head = list(itertools.islice(source, MIN_PARALLEL_DOCS))
            large = len(head) >= MIN_PARALLEL_DOCS
            source = itertools.chain(head, source)
        workers = cores() if large else 1
    blob = None
    if path is None and (executor is not None or workers > 1):  # type: ignore[operator]
        try:
            blob = by_value(evaluator.model_cls)
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
    model_name = evaluator.model_cls.__name__
    if executor is None and workers == 1:
        results = score_in_process(evaluator, source)
    else:
        settings = WorkerSettings(
            path or "",
            match_threshold,
            weight_hints,
            name,
            non_matches,
            fast_matching,
            blob,
            strict,
            fingerprint(evaluator),
        )
        results = score_in_parallel(
            source,
            settings=settings,
            model_name=model_name,
            executor=executor,
            workers=workers,
            chunk_size=chunk_size,
            local=functools.partial(_score_here, evaluator),
            fall_back=not asked,
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
        young_collections_only(),  # the rows piling up here are no garbage: no full collection walks them (`_heap`)
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
