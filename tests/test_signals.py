"""The signal helpers: SIGTERM runs the cleanup, then ends the process as SIGTERM does; held signals wait."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from typing import Any

import pytest
from helpers import communicate_or_kill, still_alive

from structsim_nb._signals import Terminated, deferred_signals, held_for_fork, sigterm_raises, stop_workers, worker_init

_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys, time
    from structsim_nb._signals import sigterm_raises
    {setup}
    with sigterm_raises():
        try:
            print("ready", flush=True)
            for _ in range(1200):  # work in steps, as a run does: a signal that lands between the interpreter's
                time.sleep(0.05)  # last check and a blocking call waits for that call (60 s in one sleep, 3.14)
        finally:
            print("cleaned up", flush=True)  # the work's own cleanup: stopping workers, removing staging
    print("not reached", flush=True)
    """
)


def _run(setup: str) -> tuple[int, str]:
    process = subprocess.Popen(
        [sys.executable, "-c", _SCRIPT.format(setup=setup)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    process.send_signal(signal.SIGTERM)
    out, _ = communicate_or_kill(process, 30)
    return process.returncode, out


def test_sigterm_cleans_up_then_ends_the_process_by_sigterm() -> None:
    code, out = _run("")
    assert code == -signal.SIGTERM and out.strip() == "cleaned up"  # died by the signal, after the cleanup


def test_a_handler_of_the_callers_keeps_the_last_word() -> None:
    code, out = _run("signal.signal(signal.SIGTERM, lambda *a: sys.exit(7))")
    assert code == 7 and out.strip() == "cleaned up"


def test_outside_the_main_thread_it_does_nothing() -> None:
    import threading

    errors: list[BaseException] = []

    def work() -> None:
        try:
            with sigterm_raises(), deferred_signals():
                pass
        except BaseException as exc:  # noqa: BLE001 - collected for the assertion
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == []


def test_terminated_is_a_keyboard_interrupt_and_stop_workers_takes_any_executor() -> None:
    from concurrent.futures import ThreadPoolExecutor

    assert issubclass(Terminated, KeyboardInterrupt) and Terminated().signum == signal.SIGTERM
    pool = ThreadPoolExecutor(1)
    stop_workers(pool)
    with pytest.raises(RuntimeError):
        pool.submit(print)
    stop_workers(None)


def _blocked_in_child(queue: Any) -> None:
    before = signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    worker_init()
    after = signal.SIGTERM in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    queue.put((before, after))


@pytest.mark.skipif(
    not hasattr(signal, "pthread_sigmask") or sys.platform != "linux", reason="POSIX signal masks, fork"
)
def test_a_worker_forked_while_held_starts_with_the_signals_blocked_until_worker_init() -> None:
    import multiprocessing

    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    mask_before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    with held_for_fork():
        assert {signal.SIGINT, signal.SIGTERM} <= signal.pthread_sigmask(signal.SIG_BLOCK, [])
        child = context.Process(target=_blocked_in_child, args=(queue,))
        child.start()
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask_before  # the parent's mask is restored
    assert queue.get(timeout=30) == (True, False)
    child.join(timeout=30)


def test_a_signal_during_held_for_fork_is_delivered_after_it() -> None:
    import os

    steps = []
    with pytest.raises(KeyboardInterrupt):
        with held_for_fork():
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("the block ran on")
        steps.append("not reached")
    assert steps == ["the block ran on"]


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_held_for_a_pool_that_does_not_fork_leaves_the_mask_alone_and_still_defers() -> None:
    import os

    mask_before = signal.pthread_sigmask(signal.SIG_BLOCK, [])
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with held_for_fork(forking=False):
            assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == mask_before
            os.kill(os.getpid(), signal.SIGINT)
            steps.append("the block ran on")
    assert steps == ["the block ran on"]


_HALF_WRITTEN_RESULT = textwrap.dedent(
    """
    import concurrent.futures, multiprocessing, os, struct, time
    from structsim_nb._signals import stop_workers, worker_init

    context = multiprocessing.get_context("fork")
    pool = concurrent.futures.ProcessPoolExecutor(1, mp_context=context, initializer=worker_init)
    pool.submit(int).result()  # the worker is up, and so is the pool's thread
    thread = pool._executor_manager_thread
    # Half a result message, as a worker killed in the middle of writing its result leaves it: a header
    # announcing a megabyte, then ten bytes. The pool's thread reads the header and waits for the rest.
    os.write(pool._result_queue._writer.fileno(), struct.pack("!i", 1_000_000) + b"x" * 10)
    time.sleep(0.5)
    stop_workers(pool)
    thread.join(timeout=20)
    print("stuck" if thread.is_alive() else "ended", flush=True)
    os._exit(0)  # a stuck thread would hold the interpreter's exit
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers")
def test_stop_workers_ends_the_pool_thread_waiting_for_the_rest_of_a_result() -> None:
    """A worker killed mid-write left the pool's thread reading for ever, and the interpreter hung at exit."""
    out = subprocess.run([sys.executable, "-c", _HALF_WRITTEN_RESULT], capture_output=True, text=True, timeout=120)
    assert out.stdout.strip() == "ended", out.stderr


def test_a_ctrl_c_between_the_two_restores_still_puts_sigterms_handler_back(monkeypatch) -> None:
    """The handlers are put back one after the other; a Ctrl-C landing right after SIGINT's must not leave
    SIGTERM held (silently swallowed) for the rest of the process."""
    import os

    real = signal.signal

    def ctrl_c_after_sigint_is_back(number: int, handler: Any) -> Any:
        previous = real(number, handler)
        if number == signal.SIGINT and handler is signal.default_int_handler:
            os.kill(os.getpid(), signal.SIGINT)  # lands before the next line runs
        return previous

    sigterm_before = signal.getsignal(signal.SIGTERM)
    monkeypatch.setattr(signal, "signal", ctrl_c_after_sigint_is_back)
    with pytest.raises(KeyboardInterrupt):
        with deferred_signals():
            pass
    monkeypatch.undo()
    assert signal.getsignal(signal.SIGTERM) is sigterm_before
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


_FULL_WORK_PIPE = textwrap.dedent(
    """
    import os, signal, sys, threading, time
    from structsim_nb._pool import map_ordered

    def slow(item):
        time.sleep(30)
        return len(item)

    if __name__ == "__main__":
        threading.Timer(2.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
        try:  # 160 kB chunks: what is queued for the two workers fills the work pipe
            for _ in map_ordered(slow, [bytes([i % 256]) * 20_000 for i in range(200)], workers=2, chunk_size=8):
                pass
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """
)


@pytest.mark.skipif(sys.platform != "linux", reason="forked workers")
def test_an_interrupt_with_the_work_pipe_full_still_exits(tmp_path) -> None:
    """Before Python 3.11 the pool never closed its end of the work pipe, so a feeder thread blocked on a full
    pipe kept the interpreter from exiting after the workers were stopped."""
    script = tmp_path / "full_pipe.py"
    script.write_text(_FULL_WORK_PIPE, encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stdout, stderr = communicate_or_kill(process, 60)
    assert stdout.strip() == "interrupted", stderr


_WHO_FOLLOWS = """
import sys
from structsim_nb import _signals

calls = []
_signals._follow_pool_process = lambda: calls.append(True)
sys.platform = sys.argv[1]
_signals.worker_init(parent_started_me=sys.argv[2] == "started")
print(bool(calls))
"""


@pytest.mark.parametrize(
    ("platform", "started", "follows"),
    [("linux", "started", False), ("linux", "forkserver", True), ("darwin", "started", True)],
)
def test_a_worker_follows_the_pool_process_wherever_no_parent_death_signal_does(platform, started, follows) -> None:
    """Linux's parent-death signal follows the parent, which is the pool's process unless a forkserver started the
    worker; macOS has no such signal, so its workers (spawn by default) follow the sentinel whatever started them.
    Run apart: worker_init sets this process's signal handlers."""
    done = subprocess.run(
        [sys.executable, "-c", _WHO_FOLLOWS, platform, started], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == str(follows)


_SENTINEL_ONLY = """
import concurrent.futures, multiprocessing, os, time
from structsim_nb import _signals

# Spawned workers with nothing but the sentinel to follow the pool's process: as on macOS (no prctl).
pool = concurrent.futures.ProcessPoolExecutor(
    2, mp_context=multiprocessing.get_context("spawn"), initializer=_signals._follow_pool_process
)
pids = [pool.submit(os.getpid).result(timeout=120) for _ in range(4)]
naps = [pool.submit(time.sleep, 120) for _ in range(2)]
print(" ".join(str(pid) for pid in sorted(set(pids))), flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_spawned_workers_end_with_a_pool_process_killed_outright_through_the_sentinel_alone() -> None:
    """What a kill -9 leaves on macOS, shown on any POSIX system: without `_follow_pool_process` these workers live
    on until their two-minute naps end, then wait for work forever."""
    import psutil

    process = subprocess.Popen([sys.executable, "-c", _SENTINEL_ONLY], stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    workers = [psutil.Process(int(pid)) for pid in process.stdout.readline().split()]
    assert workers
    process.kill()
    process.wait(timeout=30)
    assert still_alive(workers) == []
