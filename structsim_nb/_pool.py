"""Worker processes that stop with the run: chunks in flight, results in input order.

Work goes in chunks to a process pool of our own (`workers` processes, every core by default, at most
`MOST_WORKERS_PER_CORE` a core) or
to a caller's executor (any `concurrent.futures.Executor`, or a Dask `distributed.Client`), at
most `_IN_FLIGHT_PER_WORKER` chunks per worker ahead of the one being collected, so memory does
not grow with the input. On Ctrl-C or SIGTERM (`_signals`) the workers of a pool of our own are
terminated at once and a caller's executor has its pending chunks cancelled.

`map_ordered` is the general form, for per-item functions that never raise for bad data;
`score_in_parallel` is `score_dataset`'s, where a chunk that fails as a whole (its worker died)
is rescored document by document in a one-process quarantine, so a crash names its document. A
document that cannot be sent to a worker (it does not pickle) is scored in this process, as with
one worker; a model the workers cannot load (`_workers.ModelNotLoaded`) ends the run with a
`TypeError`, or moves the rest of it into this process when the caller allows it. Workers that
cannot start at all (a pool of our own broke, or failed to start a worker, before any work came
back, and a fresh worker cannot run even `_ready`) end the run at once with a `WorkerStartError`
saying why, or move it into this process when the caller allows it: no document is blamed for it.
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import logging
import multiprocessing
import os
import pickle
import sys
import warnings
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any

from ._pairs import Pair
from ._signals import held_for_fork, raise_if_terminated, sigterm_raises, stop_workers, worker_init
from ._workers import ModelNotLoaded, Scored, WorkerSettings, error_row, score_chunk, wire
from .errors import WorkerStartError

logger = logging.getLogger(__name__)

__all__ = [
    "DEFAULT_CHUNK_SIZE",
    "MOST_WORKERS_PER_CORE",
    "cores",
    "executor_capacity",
    "map_ordered",
    "pool_size",
    "score_in_parallel",
]

#: Documents per task sent to a worker. At ~10-100 ms a document, a chunk costs far more than
#: the ~1 ms of sending it, yet stays short enough to balance load and stop promptly.
DEFAULT_CHUNK_SIZE = 8
#: Chunks kept in flight per worker; bounds memory while keeping every worker busy.
_IN_FLIGHT_PER_WORKER = 2


def executor_capacity(executor: Any, workers: int | None) -> int:
    """How many chunks `executor` runs at once: `workers` if given (for a pool of our own, as `pool_size` lowers
    it), else a Dask client's threads, else the cores.

    Only public APIs are read: `distributed.Client.nthreads()` when the executor is a Client.
    A plain `concurrent.futures` executor does not say its size publicly, so this machine's
    cores stand in; pass `workers=` to size the work sent to a larger one.
    """
    if workers is not None:
        return workers if executor is not None else pool_size(workers, warn=False)
    nthreads = getattr(executor, "nthreads", None)  # distributed.Client: {worker address: threads}
    if callable(nthreads):
        try:
            return max(1, sum(nthreads().values()))
        except Exception:  # noqa: BLE001 - only a sizing hint
            logger.debug("executor=<%r> | could not read the cluster size; using the cores", executor)
    return cores()


def _submitter(executor: Any) -> concurrent.futures.Executor:
    """The `concurrent.futures` face of `executor`: a Dask `Client`'s `get_executor()`, else itself."""
    get_executor = getattr(executor, "get_executor", None)
    return get_executor() if callable(get_executor) else executor  # type: ignore[no-any-return]


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the platform reports it)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


#: Most worker processes a pool of our own starts per core. Scoring is CPU-bound, so more processes than cores
#: score no faster; each one costs its memory (it imports the engine) and, forked, is started at once: a
#: mistyped `--workers 100000` would otherwise fork until the system kills the run.
MOST_WORKERS_PER_CORE = 4


def pool_size(workers: int | None, *, warn: bool = True) -> int:
    """The processes a pool of our own starts: `workers`, default every core, at most `MOST_WORKERS_PER_CORE` a
    core (a larger number is lowered to that, with a warning unless `warn` is False)."""
    most = MOST_WORKERS_PER_CORE * cores()
    if workers is None:
        return cores()
    if workers > most:
        if not warn:
            return most
        logger.warning(
            "workers=<%d>, cores=<%d> | more worker processes than %d a core cannot score faster; starting %d",
            workers,
            cores(),
            MOST_WORKERS_PER_CORE,
            most,
        )
        return most
    return workers


def _chunks(source: Iterator[Pair], size: int) -> Iterator[list[Pair]]:
    while chunk := list(itertools.islice(source, size)):
        yield chunk


def _submit(pool: concurrent.futures.Executor, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
    """`pool.submit(fn, *args)`; on a pool of our own (`_new_pool`) with the signals held, as it may start workers.

    See `_signals.held_for_fork`: without it, a Ctrl-C during the submit could leave a worker the pool
    never recorded (and the interpreter waits for it at exit), and a SIGTERM reaching a just-forked
    worker before `worker_init` would be swallowed. Only our pools: their `worker_init` unblocks the
    signals, which a caller's executor's workers would never do.
    """
    forking = _OURS.get(pool)
    if forking is None:
        return pool.submit(fn, *args)
    with held_for_fork(forking=forking):
        return pool.submit(fn, *args)


#: Our pools (`_new_pool`), each with whether its workers are forked (the start method when it was made).
_OURS: weakref.WeakKeyDictionary[concurrent.futures.Executor, bool] = weakref.WeakKeyDictionary()


#: What a worker imports before it scores, loaded once in a forkserver so the workers it forks start with it.
FORKSERVER_PRELOAD = ("structsim_nb._workers", "stickler", "pandas")


def _preload_in_forkserver() -> None:
    """Add `FORKSERVER_PRELOAD` to the modules the forkserver imports when it starts.

    Forked workers inherit the engine from this process, but a forkserver's workers start from the
    forkserver, which imports only `__main__` (when it has a file): in a Jupyter kernel each worker
    imported the engine afresh (about 1.4 s), and on Python 3.14, where forkserver is the default,
    `score_dataset`'s default took 1.5 s for 600 small documents that one process scores in 0.35 s.
    The modules the caller asked for (`multiprocessing.set_forkserver_preload`) are kept. A
    forkserver already running keeps what it preloaded. The modules start no threads (forking a
    threaded forkserver is what forkserver exists to avoid).
    """
    current = _forkserver_preload()
    wanted = current + [name for name in FORKSERVER_PRELOAD if name not in current]
    if wanted != current:
        multiprocessing.set_forkserver_preload(wanted)


def _forkserver_preload() -> list[str]:
    """The modules the forkserver imports when it starts (`multiprocessing.set_forkserver_preload`'s list).

    The list is private, and set_forkserver_preload replaces it, so it is read here to add to it and to name it.
    """
    from multiprocessing import forkserver

    return list(getattr(getattr(forkserver, "_forkserver", None), "_preload_modules", None) or ["__main__"])


def _new_pool(workers: int) -> concurrent.futures.ProcessPoolExecutor:
    # Workers ignore Ctrl-C (the parent stops them) and die with the parent (`_signals.worker_init`).
    context = multiprocessing.get_context()  # the start method in force now, named so the pool keeps it
    method = context.get_start_method()  # forkserver: the default on Linux from Python 3.14
    if method == "forkserver":
        _preload_in_forkserver()
    pool = concurrent.futures.ProcessPoolExecutor(
        max_workers=workers, mp_context=context, initializer=worker_init, initargs=(method != "forkserver",)
    )
    _OURS[pool] = method == "fork"
    return pool


def _ready() -> bool:
    """What a worker runs to show it started: nothing."""
    return True


#: How a pool of our own fails when its workers cannot start: the pool breaks (a worker died before it
#: took any work), or starting a worker raises (a forkserver that died while starting: `EOFError`, or
#: `ConnectionResetError` on Python 3.14, where the forkserver runs the main script first).
_START_FAILURES = (concurrent.futures.BrokenExecutor, OSError, EOFError)


def _raise_if_workers_cannot_start(cause: BaseException) -> None:
    """Raise `WorkerStartError` (from `cause`) when a fresh one-worker pool cannot run `_ready`.

    Called when a pool of our own failed before any work came back from it: that is a document
    that killed its worker, or workers that never start. No document goes to this pool, so its
    failure is the workers' own. Returns when the worker starts (the documents are then at fault,
    and the quarantine finds which). It costs one worker's start, once a run.
    """
    pool = None
    interrupted = True
    try:
        pool = _new_pool(1)
        _submit(pool, _ready).result()
        interrupted = False
    except _START_FAILURES as exc:
        interrupted = False
        raise WorkerStartError(_start_message(exc)) from cause
    finally:
        if pool is not None:
            if interrupted:  # Ctrl-C or SIGTERM: its worker ends now, not once it has started
                stop_workers(pool)
            else:
                pool.shutdown(wait=False, cancel_futures=True)


class _StartCheck:
    """Until work comes back from a pool of our own, a failure of it may be workers that cannot start.

    `pending` holds until then (never for a caller's executor). `check` runs
    `_raise_if_workers_cannot_start` once: after it returns, the workers are known to start.
    """

    def __init__(self, own: bool) -> None:
        self.pending = own

    def came_back(self) -> None:
        self.pending = False

    def check(self, cause: BaseException) -> None:
        """Raise `WorkerStartError` if no worker can start, while `pending`; otherwise return."""
        if self.pending:
            _raise_if_workers_cannot_start(cause)
            self.pending = False


def _start_message(failure: BaseException) -> str:
    """Why no worker starts: the start method, what failed, and the likely cause with its fix."""
    method = multiprocessing.get_start_method()
    advice = ""
    if method != "fork":  # spawn and forkserver workers run this process's main module again
        from multiprocessing import spawn

        try:
            data = spawn.get_preparation_data("structsim-nb")  # what a new worker is told to prepare
        except Exception:  # noqa: BLE001 - the advice is a courtesy; the error stands without it
            data = {}
        path, name = data.get("init_main_from_path"), data.get("init_main_from_name")
        main = path or name
        guard = (
            "so code at its top level that starts processes or sets the start method (score_dataset, "
            'multiprocessing.set_start_method) must sit under `if __name__ == "__main__":`.'
        )
        if path is not None and not os.path.isfile(path):
            advice = (
                f" Each worker runs this process's main script again, and {path!r} is not a file: a script read "
                "from standard input cannot be run again. Save it to a file and run that."
            )
        elif method == "forkserver" and not isinstance(failure, concurrent.futures.BrokenExecutor):
            preload = _forkserver_preload()
            # (Python 3.14 runs the main module in the forkserver; 3.10-3.13 list it but skip it)
            named = [module for module in preload if module != "__main__" or sys.version_info >= (3, 14)]
            advice = (
                " The forkserver, which starts the workers, ended while it started: it first imports "
                f"{', '.join(named)} (`multiprocessing.set_forkserver_preload`), and one of them failed."
            )
            if "__main__" in named and main is not None:
                advice += f" Among them is this process's main module ({main}), {guard}"
        elif main is not None:
            advice = f" Each worker imports this process's main module ({main}) again, {guard}"
    what = str(failure).rstrip(".") or "no message"
    return (
        "worker processes must start to score on them; a new one could not run even a function that does nothing "
        f"(start method {method!r}; {type(failure).__name__}: {what}).{advice} A worker's own traceback, if it got "
        "that far, is printed on this process's standard error. To score in this process instead, pass workers=1 "
        "(--workers 1 on the command line)."
    )


def _close(pool: concurrent.futures.Executor, futures: Iterable[Any], *, own: bool, interrupted: bool) -> None:
    """End a run's use of `pool`: a pool of our own, interrupted, has its workers terminated now (not after the
    chunks they hold), and fails its own `futures` (cancelling them too makes it raise InvalidStateError before
    Python 3.12); otherwise the `futures` left over are cancelled, and a pool of our own is shut down."""
    if own and interrupted:
        stop_workers(pool)
        return
    for future in futures:
        future.cancel()
    if own:
        pool.shutdown(wait=False, cancel_futures=True)


class _Quarantine:
    """Scores suspect documents one at a time on a private one-process pool, so a crash names its document.

    Used when a chunk could not be scored as a whole (its worker died, the executor failed it, or
    it could not be sent). Documents queue in order on a single worker, so when that pool breaks,
    the first unfinished document is the one that killed it: it becomes an error row, and a new
    pool scores the rest. A document that cannot be sent to a worker at all (it does not pickle:
    a live lock or client inside it) is scored by `local`, in this process, as with one worker.
    """

    def __init__(self, settings: WorkerSettings, model_name: str, local: Callable[[Pair], Scored]) -> None:
        self._settings = settings
        self._model_name = model_name
        self._local = local
        self._pool: concurrent.futures.ProcessPoolExecutor | None = None

    def score(self, chunk: list[Pair], cause: BaseException) -> list[Scored]:
        """Score `chunk` document by document; `cause` is why the chunk as a whole failed.

        Raises:
            ModelNotLoaded: If the worker cannot build the evaluator (the model, not a document, is at fault).
        """
        logger.warning(
            "cases=<%s..%s>, error=<%s: %s> | chunk failed outside the evaluator, rescoring its documents one by one",
            chunk[0].name,
            chunk[-1].name,
            type(cause).__name__,
            cause,
        )
        results: list[Scored] = []
        while len(results) < len(chunk):
            if self._pool is None:
                self._pool = _new_pool(1)
            pending = chunk[len(results) :]
            futures = [self._send(pair) for pair in pending]
            for pair, future in zip(pending, futures, strict=True):
                if future is None:
                    results.append(self._local(pair))
                    continue
                try:
                    results.extend(future.result())
                    continue
                except ModelNotLoaded:
                    raise
                except Exception as exc:  # noqa: BLE001 - this document alone failed outside the evaluator
                    logger.warning("case=<%s>, error=<%s> | document could not be scored", pair.name, exc)
                    results.append(_failed(self._model_name, exc, cause))
                    broken = isinstance(exc, concurrent.futures.BrokenExecutor)
                if broken:
                    self.close()
                    break
        return results

    def _send(self, pair: Pair) -> concurrent.futures.Future[list[Scored]] | None:
        """`pair` submitted alone to the private pool, or None when it cannot be sent (it is scored here)."""
        assert self._pool is not None
        try:
            payload = wire([pair], self._settings)
            if not isinstance(payload, bytes):  # (sent by value it is pickled already)
                pickle.dumps(payload)  # what the pool's queue does to it, in its own thread
        except Exception as exc:  # noqa: BLE001 - any failure to pickle means no worker can have it
            logger.warning(
                "case=<%s>, error=<%s: %s> | document cannot be sent to a worker process; scoring it in this process",
                pair.name,
                type(exc).__name__,
                exc,
            )
            return None
        return _submit(self._pool, score_chunk, self._settings, payload)

    def close(self, *, now: bool = False) -> None:
        """Stop the private pool, if one is running; `now` terminates its worker mid-document."""
        if self._pool is not None:
            if now:
                stop_workers(self._pool)
            else:
                self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None


def _failed(model_name: str, exc: BaseException, cause: BaseException) -> Scored:
    detail = str(exc) or "no message"
    return error_row(
        model_name,
        "crashed",
        f"Scoring error: {type(exc).__name__}: {detail}. The chunk holding this document failed "
        f"({type(cause).__name__}), and scored alone this document failed again, so it is the cause",
    )


class _Refused(Exception):  # noqa: N818 - internal: carries the chunks left when the workers refused the run
    """The workers refused the model (`ModelNotLoaded`), or cannot start at all (`WorkerStartError`)."""

    def __init__(self, chunk: list[Pair], cause: ModelNotLoaded | WorkerStartError) -> None:
        super().__init__(str(cause))
        self.chunk, self.cause = chunk, cause


def score_in_parallel(
    source: Iterator[Pair],
    *,
    settings: WorkerSettings,
    model_name: str,
    executor: Any,
    workers: int | None,
    chunk_size: int,
    local: Callable[[Pair], Scored],
    fall_back: bool = False,
) -> Generator[tuple[Pair, Scored], None, None]:
    """Score `source` in chunks on `executor` (or a pool of `workers` processes), yielding in order.

    At most `_IN_FLIGHT_PER_WORKER` chunks per worker are submitted ahead of the one being
    collected, so memory does not grow with the dataset. A chunk that fails as a whole is
    rescored document by document in `_Quarantine`; a pool of our own that broke is replaced.
    A pool of our own that fails before any chunk came back is first checked for workers that
    cannot start (`_raise_if_workers_cannot_start`), so that no document is blamed for them.
    `local` scores one pair in this process: a document that cannot be sent to a worker, and,
    with `fall_back`, every pair from the first chunk the workers could not score because the
    model does not load there or they do not start.

    Raises:
        TypeError: If the workers cannot build the evaluator (`_workers.ModelNotLoaded`: the model
            does not load there, or they import another class by its path) and `fall_back` is
            False. With `fall_back`, a `UserWarning` says so and the rest is scored by `local`.
        WorkerStartError: If the workers of a pool of our own cannot start, and `fall_back` is
            False. With `fall_back`, as for `TypeError`.
    """
    own = executor is None
    size = pool_size(workers) if own else 0  # (asked once: a lowered count is warned about once)
    pool: concurrent.futures.Executor = _new_pool(size) if own else _submitter(executor)
    capacity = (size if own else executor_capacity(executor, workers)) * _IN_FLIGHT_PER_WORKER
    quarantine = _Quarantine(settings, model_name, local)
    inflight: collections.deque[tuple[list[Pair], concurrent.futures.Future[list[Scored]], Any]] = collections.deque()
    start = _StartCheck(own)

    def replace_pool(broken: Any) -> None:
        nonlocal pool
        if own and pool is broken:
            logger.warning("workers=<%s> | a worker process died; starting a new pool", workers)
            pool.shutdown(wait=False, cancel_futures=True)
            pool = _new_pool(size)

    def submit(chunk: list[Pair]) -> None:
        target = pool
        try:
            payload = wire(chunk, settings)
        except Exception as exc:  # noqa: BLE001 - a document that does not pickle: the quarantine scores it here
            future: concurrent.futures.Future[list[Scored]] = concurrent.futures.Future()
            future.set_exception(exc)
            inflight.append((chunk, future, target))
            return
        try:
            future = _submit(target, score_chunk, settings, payload)
        except (*_START_FAILURES, RuntimeError) as exc:
            if not own or start.pending:
                # Queued as failed, for collect() in input order: a caller's broken executor's chunks go to the
                # quarantine; a pool of our own with nothing back yet is first checked for workers that cannot start.
                future = concurrent.futures.Future()
                future.set_exception(exc)
            else:
                replace_pool(target)
                target = pool
                future = _submit(target, score_chunk, settings, payload)
        inflight.append((chunk, future, target))

    def collect() -> Iterator[tuple[Pair, Scored]]:
        chunk, future, target = inflight.popleft()
        try:
            try:
                results = future.result()
            except ModelNotLoaded:
                raise
            except Exception as exc:  # noqa: BLE001 - the worker function never raises; this is the executor
                # Nothing back yet from a pool of our own: whatever failed (a broken pool, a document that does not
                # pickle), the quarantine's worker could not start either if no worker can.
                start.check(exc)
                if isinstance(exc, concurrent.futures.BrokenExecutor):
                    replace_pool(target)
                results = quarantine.score(chunk, exc)
            else:
                start.came_back()
        except (ModelNotLoaded, WorkerStartError) as exc:
            raise _Refused(chunk, exc) from exc
        if len(results) != len(chunk):
            raise RuntimeError(f"a chunk of {len(chunk)} documents came back with {len(results)} results")
        yield from zip(chunk, results, strict=True)

    refused: _Refused | None = None
    left: list[list[Pair]] = []
    interrupted = True
    try:
        with sigterm_raises():  # SIGTERM stops the workers below, as Ctrl-C does
            try:
                for chunk in _chunks(source, chunk_size):
                    raise_if_terminated()
                    submit(chunk)
                    while len(inflight) >= capacity:
                        yield from collect()
                while inflight:
                    raise_if_terminated()
                    yield from collect()
            except _Refused as exc:
                refused, left = exc, [chunk for chunk, _, _ in inflight]
        interrupted = False
    finally:
        quarantine.close(now=interrupted)
        _close(pool, (future for _, future, _ in inflight), own=own, interrupted=interrupted)
    if refused is None:
        return
    if isinstance(refused.cause, WorkerStartError):
        message = str(refused.cause)
        if not fall_back:
            raise refused.cause
    else:
        message = f"model_cls must load in the worker processes to score there; {model_name} did not: {refused.cause}"
        if not fall_back:
            raise TypeError(message) from refused.cause
    # stacklevel 3: the line that called score_dataset (2 is score_dataset's loop over this generator).
    warnings.warn(f"{message}. Scoring in this process, on one core.", UserWarning, stacklevel=3)
    for pair in itertools.chain(refused.chunk, *left, source):
        yield pair, local(pair)


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
        workers: Processes of a pool of our own (at most `MOST_WORKERS_PER_CORE` a core: `pool_size`).
            Default None: every core. With `executor`,
            how many chunks it runs at once (default: a Dask `Client`'s threads, else the cores).
        executor: A `distributed.Client`, or any `concurrent.futures.Executor`; used, not shut down.
        chunk_size: Items per task. Default `DEFAULT_CHUNK_SIZE`.

    Raises:
        Exception: Whatever `fn` or the executor raised for a chunk (a crashed worker gives
            `BrokenProcessPool`); on a caller's executor the pending chunks are cancelled first, on a
            pool of our own its workers are terminated (what they held fails with the pool).
        WorkerStartError: If the workers of a pool of our own cannot start (checked when the pool
            fails before any chunk came back, so a crashed worker is not mistaken for it).
        KeyboardInterrupt: On Ctrl-C, or `_signals.Terminated` on SIGTERM: the worker processes
            of a pool of our own are terminated at once (a caller's executor only has its
            pending chunks cancelled). Under SIGTERM's default action the process then ends by
            SIGTERM, as it would have (see `_signals.sigterm_raises`).
    """
    own = executor is None
    size = pool_size(workers) if own else 0  # (asked once: a lowered count is warned about once)
    pool = _new_pool(size) if own else _submitter(executor)
    capacity = (size if own else executor_capacity(executor, workers)) * _IN_FLIGHT_PER_WORKER
    inflight: collections.deque[concurrent.futures.Future[list[Any]]] = collections.deque()
    source = iter(items)
    start = _StartCheck(own)

    def result() -> list[Any]:
        try:
            out = inflight.popleft().result()
        except concurrent.futures.BrokenExecutor as exc:
            start.check(exc)
            raise
        start.came_back()
        return out

    interrupted = True
    try:
        with sigterm_raises():
            while chunk := list(itertools.islice(source, chunk_size)):
                raise_if_terminated()
                try:
                    inflight.append(_submit(pool, _apply_chunk, fn, chunk))
                except _START_FAILURES as exc:
                    start.check(exc)
                    raise
                while len(inflight) >= capacity:
                    yield from result()
            while inflight:
                raise_if_terminated()
                yield from result()
        interrupted = False
    finally:
        _close(pool, inflight, own=own, interrupted=interrupted)
