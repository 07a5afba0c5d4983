"""SIGTERM and SIGINT around work on worker processes: stop the workers, then stop as the signal asked.

By default SIGTERM (what a CI cancel, `kill` or a kernel restart sends) ends Python at once: no
`finally` runs, so the worker processes of a pool are left running with nobody to collect their
results. Four helpers close that gap:

- `sigterm_raises()`: inside it, SIGTERM raises `Terminated` (a `KeyboardInterrupt`) in the main
  thread, so the same cleanup as Ctrl-C runs. When the block ends with it and SIGTERM had its
  default action, the default action is then taken (the process ends by SIGTERM, exit status
  143), so a caller sees what SIGTERM always did, only after the cleanup. A handler of the
  caller's own is left in place and keeps the last word.
- `stop_workers(pool)`: terminate a `ProcessPoolExecutor`'s processes now, rather than letting
  them finish the chunks they hold.
- `deferred_signals()`: hold SIGINT and SIGTERM during a short step that must not be cut in half
  (moving a reports folder into place), then deliver them.
- `held_for_fork()`: around a pool submit that may start worker processes. Besides holding the
  signals in the parent (so a worker is never started without the pool recording it), it blocks
  them at the OS level while the workers are forked: a forked worker inherits the parent's Python
  handlers, and until `worker_init` replaces them a SIGTERM from `stop_workers` would raise
  `Terminated` inside the fork machinery, where it is swallowed ("Exception ignored"), and the
  worker would live on; with the signals blocked they wait, and `worker_init` unblocks them.

`worker_init()` is the pool initializer: workers ignore Ctrl-C (the parent handles it), end at
once on SIGTERM and, on Linux, are sent SIGTERM by the kernel if the parent dies without cleaning
up (`kill -9`); a forkserver's workers, whose parent is the forkserver, watch the pool's process
for that themselves. Signal handlers can only be set from the main thread; elsewhere the helpers do
nothing extra.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import logging
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor
from types import FrameType
from typing import Any

logger = logging.getLogger(__name__)

__all__ = [
    "Terminated",
    "clear_terminated",
    "deferred_signals",
    "held_for_fork",
    "raise_if_terminated",
    "raise_terminated",
    "sigterm_raises",
    "stop_workers",
    "worker_init",
]

_PR_SET_PDEATHSIG = 1
_STOPPING = frozenset({signal.SIGINT, signal.SIGTERM})


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived; raised so cleanup runs as for Ctrl-C. `signum` is the signal number."""

    def __init__(self, signum: int = signal.SIGTERM) -> None:
        super().__init__(f"terminated by signal {signum}")
        self.signum = signum


# The signal a handler raised `Terminated` for, until it is handled. A handler's exception can be
# swallowed ("Exception ignored in ...") when it lands in an at-fork hook or a finalizer, so loops
# also check this flag between steps (`raise_if_terminated`).
_pending: list[int] = []


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def raise_terminated(signum: int, frame: FrameType | None = None) -> None:
    """A SIGTERM handler: note the signal, and raise `Terminated`."""
    if signum not in _pending:
        _pending.append(signum)
    raise Terminated(signum)


def raise_if_terminated() -> None:
    """Raise `Terminated` again if a SIGTERM handler's exception was swallowed; call between steps."""
    if _pending:
        raise Terminated(_pending[0])


def clear_terminated() -> None:
    """Forget a SIGTERM once its `Terminated` has been handled."""
    _pending.clear()


_raise_terminated = raise_terminated


@contextlib.contextmanager
def sigterm_raises() -> Iterator[None]:
    """Inside the block, SIGTERM raises `Terminated`; see the module docstring."""
    if not _main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous is not signal.SIG_DFL:  # ignored, or a handler of the caller's (maybe an outer one of ours)
        yield
        return
    signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
        raise_if_terminated()
    except Terminated:
        clear_terminated()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        logger.debug("pid=<%s> | cleaned up after SIGTERM, ending the process as SIGTERM does", os.getpid())
        sys.stdout.flush()
        sys.stderr.flush()
        os.kill(os.getpid(), signal.SIGTERM)
        raise  # only if the signal is blocked in this thread
    finally:
        if signal.getsignal(signal.SIGTERM) is _raise_terminated:
            signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """Hold SIGINT and SIGTERM until the block ends, then deliver them (at most one of each)."""
    if not _main_thread():
        yield
        return
    held: list[int] = []
    previous: dict[int, Any] = {int(wanted): signal.getsignal(wanted) for wanted in (signal.SIGINT, signal.SIGTERM)}

    def hold(signum: int, frame: FrameType | None) -> None:
        if signum not in held:
            held.append(signum)

    try:
        signal.signal(signal.SIGINT, hold)
        signal.signal(signal.SIGTERM, hold)  # a caller's SIGTERM handler raising before this: SIGINT is put back
        yield
    finally:
        _restore(previous)
        for number in held:
            logger.debug("signal=<%s> | delivering a signal held during a step that must not be cut", number)
            handler = previous[number]
            if callable(handler):
                handler(number, None)
            elif handler == signal.SIG_DFL:
                if number == signal.SIGINT:
                    raise KeyboardInterrupt
                os.kill(os.getpid(), number)


def _restore(previous: dict[int, Any]) -> None:
    """Put both handlers back, the second even if the first one's signal arrives (and raises) in between."""
    try:
        signal.signal(signal.SIGINT, previous[int(signal.SIGINT)])
    finally:
        signal.signal(signal.SIGTERM, previous[int(signal.SIGTERM)])


@contextlib.contextmanager
def held_for_fork(*, forking: bool = True) -> Iterator[None]:
    """Hold SIGINT and SIGTERM while the block may start worker processes; see the module docstring.

    In the parent the signals are delivered when the block ends (as `deferred_signals`). With
    `forking` (default True: the workers are forked), a worker started inside begins with both
    blocked at the OS level (the signal mask is inherited) until `worker_init` has set its own
    handlers. Pass False for a spawn or forkserver pool: its workers start a fresh interpreter with
    no handler of ours, and a forkserver started inside would keep the mask for its whole life.
    Where `pthread_sigmask` is missing (Windows) only the parent-side hold applies.
    """
    mask = getattr(signal, "pthread_sigmask", None) if forking else None
    with deferred_signals():
        previous = mask(signal.SIG_BLOCK, _STOPPING) if mask is not None else None
        try:
            yield
        finally:
            if mask is not None and previous is not None:
                mask(signal.SIG_SETMASK, previous)


def stop_workers(pool: Executor | None) -> None:
    """Terminate a process pool's worker processes now (SIGTERM), and shut it down without waiting.

    The pool cannot be used afterwards (its result pipe is closed on this side; see the comment below).

    Another kind of executor is only shut down (its pending work cancelled).
    """
    if pool is None:
        return
    if not isinstance(pool, ProcessPoolExecutor):
        pool.shutdown(wait=False, cancel_futures=True)
        return
    # Read before shutdown() drops them (private, as below): the pipe the workers write their results into,
    # and the one they read their work from.
    results_writer = getattr(getattr(pool, "_result_queue", None), "_writer", None)
    calls_reader = getattr(getattr(pool, "_call_queue", None), "_reader", None)
    terminate: Callable[[], None] | None = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        with contextlib.suppress(Exception):
            terminate()
    else:
        # Before 3.14 the executor keeps its processes in a private dict (pid -> Process).
        for process in list((getattr(pool, "_processes", None) or {}).values()):
            with contextlib.suppress(Exception):
                process.terminate()
    # A worker killed while writing a result leaves half a message in that pipe, and the pool's thread
    # waits for the rest for ever: this process holds the pipe's write end too (it never writes there),
    # so no end of file comes, and the interpreter waits for that thread at exit. With our end closed,
    # the workers' deaths close the last ones and the thread sees end of file: the pool is broken, and
    # its thread ends.
    if results_writer is not None:
        with contextlib.suppress(Exception):
            results_writer.close()
    # Before 3.11 the pool's clean-up does not close its own end of the work pipe either (gh-94777): work
    # queued for the dead workers can fill that pipe, its feeder thread then waits in a write for ever,
    # and so do the pool's thread and the interpreter's exit. From 3.11 the pool's thread closes it
    # itself; closing it here too could close a descriptor number already reused.
    if sys.version_info < (3, 11) and calls_reader is not None:
        with contextlib.suppress(Exception):
            calls_reader.close()
    pool.shutdown(wait=False, cancel_futures=True)


def worker_init(parent_started_me: bool = True) -> None:
    """Pool worker initializer: ignore Ctrl-C (the parent's to handle), end at once on SIGTERM (a forked
    worker inherits the parent's handler, whose exception the pool would catch and carry on), and
    die with the pool's process: on Linux by the parent-death signal when that process started
    this one, otherwise (a forkserver's worker, or any worker on macOS, which has no such signal)
    with `_follow_pool_process`.

    A worker started inside `held_for_fork` has both signals blocked until here; they are unblocked
    once the handlers above are set, so a SIGTERM that arrived in between ends the worker now. SIGTERM
    is unblocked even if the caller had blocked it: it is how a worker is stopped (`stop_workers`,
    and the parent-death signal), so a worker that blocked it could outlive its pool.

    Args:
        parent_started_me: Whether the pool's process started this one itself (fork and spawn; the
            default). False for a forkserver pool (the default start method on Linux from Python
            3.14): the forkserver is this process's parent, so the parent-death signal follows the
            forkserver, and the forkserver outlives the pool's process for as long as any process it
            started is alive (each holds its pipe, so it can start processes too). Such a worker
            follows the pool's process instead with `_follow_pool_process`.
    """
    linux = sys.platform.startswith("linux")
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    clear_terminated()
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, _STOPPING)
    if linux:
        with contextlib.suppress(Exception):  # only a safety net: without it a kill -9 leaves orphans
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
            parent = multiprocessing.parent_process()
            if parent_started_me and parent is not None and parent.pid != os.getppid():  # it died first
                os.kill(os.getpid(), signal.SIGTERM)
    if not (linux and parent_started_me):  # (spawn on macOS: the pool's process is the parent, but no signal)
        _follow_pool_process()


def _follow_pool_process() -> None:
    """End this worker (SIGTERM, whose action is the default here) as soon as the pool's process is gone.

    For a worker its pool's process did not start itself (forkserver), and for every worker where
    there is no parent-death signal (macOS: spawn, its default, and fork): multiprocessing gives it a
    sentinel of the process that asked for it (`parent_process().sentinel`, the read end of a pipe
    that process holds open), readable once that process has ended, however it ended (`kill -9`
    included). A daemon thread waits on it. Without it a forkserver's workers outlive a killed pool's
    process for good: their parent, the forkserver, waits for them to end before it ends. Edge case:
    a child the pool's process forked without `exec` after the workers started holds a copy of that
    pipe end, so the workers then end when that child does.
    """
    parent = multiprocessing.parent_process()
    if parent is None or getattr(parent, "sentinel", None) is None:
        return

    def follow() -> None:
        parent.join()  # (waits on the sentinel; returns at once if the pool's process is already gone)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=follow, name="structsim-nb-follow-pool", daemon=True).start()
