"""_pool: results in input order, a crashed worker's document named, and every worker stopped with the run."""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from helpers import communicate_or_kill, still_alive
from invoice_corpus import MODEL, assert_only_row_failed, experiment_report, head, make_pairs
from pydantic import BaseModel, PrivateAttr

from structsim_nb import StructuredOutputReport, score_dataset


@pytest.fixture(scope="module")
def pairs() -> list[dict[str, Any]]:
    return make_pairs()


@pytest.fixture(scope="module")
def reference(pairs: list[dict[str, Any]]) -> StructuredOutputReport:
    return experiment_report(pairs)


class TestOrder:
    def test_results_come_back_in_input_order(self, pairs, reference):
        # Heavy documents first, one per task, on four threads: they finish out of order.
        order = sorted(range(60), key=lambda index: -len(pairs[index]["expected"].line_items))
        shuffled = [pairs[index] for index in order]
        with concurrent.futures.ThreadPoolExecutor(4) as executor:
            report = score_dataset(shuffled, model_cls=MODEL, executor=executor, chunk_size=1)
        assert [case["name"] for case in report.cases] == [pair["name"] for pair in shuffled]
        assert report.scores == [reference.scores[index] for index in order]


class ExitOnUnpickle:
    """Kills the worker process that receives it: unpickling calls `os._exit`."""

    def __reduce__(self) -> tuple[Any, tuple[int]]:
        return (os._exit, (13,))


class Handle(BaseModel):
    """An extractor's result object carrying a live lock: it scores, but no process can receive it."""

    invoice_id: str
    vendor_name: str
    _lock: Any = PrivateAttr(default_factory=threading.Lock)


def _local_model() -> type[BaseModel]:
    class Local(BaseModel):  # defined in a function: workers get it by value (pydantic keeps this namespace)
        invoice_id: str
        vendor_name: str

    return Local


class TestBadDocuments:
    @pytest.mark.parametrize("sent", ["by path", "by value"])
    def test_a_document_no_worker_can_receive_is_scored_here(self, sent, caplog):
        # By path the pool's queue fails to pickle it (in its own thread); by value `wire` does, in this process.
        model: Any = MODEL if sent == "by path" else _local_model()
        pairs: list[Any] = [
            ({"invoice_id": str(i), "vendor_name": "Acme"}, {"invoice_id": str(i), "vendor_name": "Acme"})
            for i in range(6)
        ]
        pairs[3] = (pairs[3][0], Handle(invoice_id="3", vendor_name="Acme Ltd"))
        one = score_dataset(pairs, model_cls=model, workers=1, progress=False)
        with caplog.at_level("WARNING", logger="structsim_nb._pool"):
            two = score_dataset(pairs, model_cls=model, workers=2, chunk_size=2, progress=False)
        assert two.model_dump_json() == one.model_dump_json()
        assert "error" not in (two.detailed_results[3][0].metadata or {})
        assert "cannot be sent to a worker process; scoring it in this process" in caplog.text

    def test_a_document_that_kills_its_worker_is_one_error_row(self, pairs, reference):
        bad = [dict(pair) for pair in pairs[:100]]
        bad[37]["actual"] = ExitOnUnpickle()
        report = score_dataset(bad, model_cls=MODEL, workers=2, chunk_size=8)
        assert_only_row_failed(report, head(reference, 100), 37, "crashed", ["BrokenProcessPool", "scored alone"])

    def test_interrupt_stops_the_run_and_returns_nothing(self, pairs):
        def interrupted():
            yield from pairs[:70]
            raise KeyboardInterrupt

        with pytest.raises(KeyboardInterrupt):
            score_dataset(interrupted(), model_cls=MODEL, workers=2)
        # The pool was shut down: a new run works at once.
        assert len(score_dataset(pairs[:3], model_cls=MODEL, workers=2).cases) == 3


_INTERRUPTED_RUN = """
import sys
sys.path.insert(0, sys.argv[1])
from invoice_corpus import MODEL, make_pairs
from structsim_nb import score_dataset

pairs = make_pairs(4000)
print("scoring", flush=True)
try:
    report = score_dataset(pairs, model_cls=MODEL, workers=2, progress=False)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
report.to_file(sys.argv[2])
"""


def test_ctrl_c_stops_a_pool_run_without_writing_a_report(tmp_path):
    import signal
    import time

    out = tmp_path / "report.json"
    process = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED_RUN, str(Path(__file__).parent), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
    time.sleep(1.5)  # workers are busy scoring
    process.send_signal(signal.SIGINT)
    stdout, stderr = communicate_or_kill(process, 60)
    assert process.returncode == 130, stderr
    assert "interrupted" in stdout
    assert not out.exists() and list(tmp_path.iterdir()) == []


def _workers_of(process_id: int, count: int, timeout: float = 60.0) -> list[Any]:
    """The worker processes of `process_id` once there are `count` of them (psutil).

    Its descendants but multiprocessing's helpers: the forkserver (the default start method on Linux from Python
    3.14), whose children the workers are, and the resource tracker. Both live as long as `process_id`, by design.
    """
    import time

    import psutil

    def helper(process: Any) -> bool:
        try:
            command = " ".join(process.cmdline())
            return process.ppid() == process_id and any(
                f"multiprocessing.{name} import main" in command for name in ("forkserver", "resource_tracker")
            )
        except psutil.Error:
            return False

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        workers = [child for child in psutil.Process(process_id).children(recursive=True) if not helper(child)]
        if len(workers) >= count:
            return workers
        time.sleep(0.1)
    raise AssertionError(f"process {process_id} never started {count} workers")


def _signalled_run(script: str, signal_name: str, *args: str) -> tuple[str, list[Any]]:
    """Run `script` (which prints "scoring" and then scores on 2 workers), send `signal_name` once both
    workers exist, and check it ended as that signal asks: by SIGTERM itself, or exit 130 after printing
    "interrupted" on Ctrl-C. Returns its stderr and the workers it had."""
    import signal

    process = subprocess.Popen(
        [sys.executable, "-c", script, str(Path(__file__).parent), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
    workers = _workers_of(process.pid, 2)
    process.send_signal(getattr(signal, signal_name))
    stdout, stderr = communicate_or_kill(process, 60)
    if signal_name == "SIGTERM":
        assert process.returncode == -signal.SIGTERM, stderr  # ended by SIGTERM, as without us
    else:
        assert process.returncode == 130 and "interrupted" in stdout, stderr
    return stderr, workers


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_stops_every_worker_of_a_pool_run(tmp_path, signal_name):
    """SIGTERM (a CI cancel, a kernel restart) and Ctrl-C stop the workers with the run: none survives."""
    out = tmp_path / "report.json"
    _, workers = _signalled_run(_INTERRUPTED_RUN, signal_name, str(out))
    assert still_alive(workers) == []
    assert not out.exists() and list(tmp_path.iterdir()) == []


_SLOW_STARTING_RUN = """
import os, sys, time
os.register_at_fork(after_in_child=lambda: time.sleep(1.0))  # a worker takes 1 s to reach worker_init
sys.path.insert(0, sys.argv[1])
from invoice_corpus import MODEL, make_pairs
from structsim_nb import score_dataset

pairs = make_pairs(400)
print("scoring", flush=True)
try:
    score_dataset(pairs, model_cls=MODEL, workers=2, progress=False)
except KeyboardInterrupt:
    print("interrupted", flush=True)
    sys.exit(130)
print("finished", flush=True)
"""


@pytest.mark.parametrize("signal_name", ["SIGTERM", "SIGINT"])
def test_a_signal_while_workers_are_starting_stops_them_cleanly(signal_name):
    """Workers just forked (not yet in `worker_init`) still die at once, and nothing is printed.

    A forked worker inherits the parent's handlers; without `held_for_fork` the SIGTERM sent to it
    raised inside the fork hooks ("Exception ignored"), the worker lived on, and the interpreter could
    wait for it at exit. Cancelling the broken pool's futures also printed InvalidStateError (< 3.12).
    """
    stderr, workers = _signalled_run(_SLOW_STARTING_RUN, signal_name)
    assert still_alive(workers, timeout=10) == []
    assert "Traceback" not in stderr and "Exception ignored" not in stderr, stderr


_KILLED_RUN = """
import multiprocessing, sys
sys.path.insert(0, sys.argv[1])
from invoice_corpus import MODEL, make_pairs
from structsim_nb import score_dataset

if __name__ == "__main__":
    multiprocessing.set_start_method(sys.argv[2])
    print("scoring", flush=True)
    score_dataset(make_pairs(4000), model_cls=MODEL, workers=2, progress=False)
"""


@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_workers_die_with_a_parent_killed_outright(tmp_path, method):
    """kill -9 runs no cleanup at all; on Linux forked workers still follow their parent (PR_SET_PDEATHSIG). A
    forkserver's workers (the default from Python 3.14) are the forkserver's children, and it waits for them: they
    follow the pool's process through multiprocessing's parent sentinel instead."""
    import signal

    import psutil

    if not sys.platform.startswith("linux"):
        pytest.skip("parent-death signals are Linux only")
    process = subprocess.Popen(
        [sys.executable, "-c", _KILLED_RUN, str(Path(__file__).parent), method], stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
    workers = _workers_of(process.pid, 2)
    everything = psutil.Process(process.pid).children(recursive=True)  # the forkserver and resource tracker too
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    assert still_alive(workers) == []
    # With its workers gone, multiprocessing's helpers end too: nothing is orphaned.
    assert still_alive(everything) == []


def test_only_a_forking_pool_is_marked_for_the_signal_mask(monkeypatch):
    """A spawn or forkserver pool's workers start a fresh interpreter: no mask (a forkserver would keep it)."""
    import multiprocessing

    from structsim_nb import _pool

    if "fork" in multiprocessing.get_all_start_methods():
        forking = _pool._new_pool(1)
        assert _pool._OURS[forking] == (multiprocessing.get_start_method() == "fork")
        forking.shutdown()
    spawn = multiprocessing.get_context("spawn")
    monkeypatch.setattr(_pool.multiprocessing, "get_context", lambda: spawn)
    spawning = _pool._new_pool(1)
    assert _pool._OURS[spawning] is False
    spawning.shutdown()


_SLOW_STARTING_SLOW_WORK = """
import multiprocessing, os, sys, time
from structsim_nb._pool import map_ordered

def slow(item):
    time.sleep(30)
    return item

if __name__ == "__main__":
    multiprocessing.set_start_method(sys.argv[1])
    os.register_at_fork(after_in_child=lambda: time.sleep(1.0))  # a forked worker takes 1 s to reach worker_init
    print("scoring", flush=True)
    try:
        list(map_ordered(slow, range(40), workers=2, chunk_size=1))
    except KeyboardInterrupt:
        print("interrupted", flush=True)
        time.sleep(30)  # the parent lives on: a worker that survived the interrupt would keep working
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forked workers, and the parent-death signal")
@pytest.mark.parametrize("method", ["fork", "forkserver"])
def test_workers_interrupted_while_starting_are_gone_while_the_parent_lives(tmp_path, method):
    """Forked with SIGINT and SIGTERM blocked, a worker still starting dies as soon as `worker_init` unblocks
    them; without the mask it inherited the parent's handlers, lived through the SIGTERM, and took work. Workers
    a forkserver starts (the default from Python 3.14) are gone too, the forkserver itself living on with the parent;
    they are not slowed here (the at-fork hook runs in the pool's process; the forkserver does the forking)."""
    import select
    import signal

    script = tmp_path / "slow_start.py"
    script.write_text(_SLOW_STARTING_SLOW_WORK, encoding="utf-8")
    process = subprocess.Popen(
        [sys.executable, str(script), method], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "scoring"
        workers = _workers_of(process.pid, 2)
        process.send_signal(signal.SIGINT)
        assert select.select([process.stdout], [], [], 30)[0], "the parent never reported the interrupt"
        assert process.stdout.readline().strip() == "interrupted"
        assert still_alive(workers, timeout=5) == []
    finally:
        process.kill()
        process.communicate()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, and the parent-death signal")
def test_a_forkserver_pool_runs_its_work(monkeypatch, pairs, reference):
    """A forkserver worker's parent is the forkserver, not the pool's process (the Linux default from 3.14)."""
    import multiprocessing

    from structsim_nb import _pool

    forkserver = multiprocessing.get_context("forkserver")
    monkeypatch.setattr(_pool.multiprocessing, "get_context", lambda: forkserver)
    pool = _pool._new_pool(1)
    try:
        worker = pool.submit(os.getpid).result(timeout=60)
        assert worker != os.getpid()
    finally:
        pool.shutdown()
    report = score_dataset(pairs[:40], model_cls=MODEL, workers=2, chunk_size=5)
    assert report.scores == head(reference, 40).scores


@pytest.mark.skipif(not hasattr(__import__("signal"), "pthread_sigmask"), reason="POSIX signal masks")
def test_workers_of_a_caller_that_blocked_sigterm_can_still_be_stopped():
    """SIGTERM is how a worker is stopped (stop_workers, the parent-death signal): workers always unblock it."""
    import signal
    import time

    from structsim_nb import _pool, _signals

    before = signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])
    try:
        pool = _pool._new_pool(1)
        future = _pool._submit(pool, time.sleep, 30)
        deadline = time.monotonic() + 30
        while not future.running() and time.monotonic() < deadline:
            time.sleep(0.05)
        processes = list(pool._processes.values())
        _signals.stop_workers(pool)
        # A process's sentinel is ready once it has ended, whoever reaps it: the pool's own thread may reap it
        # first, and `is_alive()` then reads a dead worker as alive (its waitpid finds no child), about one run
        # in 25.
        from multiprocessing.connection import wait

        for process in processes:
            assert wait([process.sentinel], timeout=15) == [process.sentinel], f"worker {process.pid} still runs"
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def test_a_huge_workers_count_starts_at_most_the_cap_with_a_warning(monkeypatch, caplog):
    """`workers=100000` forked every process at once until the system killed the run; it now starts the cap."""
    from structsim_nb import _pool

    monkeypatch.setattr(_pool, "cores", lambda: 1)
    made: list[int] = []
    original = _pool._new_pool

    def counted(workers: int) -> concurrent.futures.ProcessPoolExecutor:
        made.append(workers)
        return original(workers)

    monkeypatch.setattr(_pool, "_new_pool", counted)
    with caplog.at_level("WARNING", logger="structsim_nb._pool"):
        absolute = list(_pool.map_ordered(abs, range(-30, 0), workers=100_000, chunk_size=3))
    assert absolute == list(range(30, 0, -1))
    assert made == [_pool.MOST_WORKERS_PER_CORE]
    assert caplog.text.count("workers=<100000>, cores=<1>") == 1  # warned once
    assert f"starting {_pool.MOST_WORKERS_PER_CORE}" in caplog.text
    assert _pool.executor_capacity(None, 100_000) == _pool.MOST_WORKERS_PER_CORE
    assert _pool.pool_size(None) == 1 and _pool.pool_size(3) == 3


def test_a_caller_executor_is_sized_by_the_workers_it_is_given():
    from structsim_nb import _pool

    with concurrent.futures.ThreadPoolExecutor(2) as executor:
        assert _pool.executor_capacity(executor, 1000) == 1000


_PRELOADED = """
import multiprocessing, sys
from structsim_nb import _pool

if __name__ == "__main__":
    multiprocessing.set_start_method("forkserver")
    multiprocessing.set_forkserver_preload(["colorsys"])  # the caller's own: kept
    pool = _pool._new_pool(1)
    names = ('colorsys', 'stickler', 'pandas', 'structsim_nb._workers')
    check = f"[name in __import__('sys').modules for name in {names!r}]"
    print(pool.submit(eval, check).result(timeout=120))
    pool.shutdown()
"""


@pytest.mark.skipif("forkserver" not in multiprocessing.get_all_start_methods(), reason="forkserver")
def test_a_forkserver_starts_its_workers_with_the_engine_loaded():
    """Without it each forkserver worker imported the engine afresh (about 1.4 s): on 3.14 in Jupyter, where nothing
    else is preloaded, score_dataset's default scored 600 small documents slower than one process."""
    done = subprocess.run([sys.executable, "-c", _PRELOADED], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[True, True, True, True]"


# Workers that cannot start. Spawn and forkserver workers run the main module again; a script read from standard
# input cannot be run again, and one that scores at its top level without the `__main__` guard fails in each worker.
# Before, every chunk broke, the quarantine started a worker per document, and every row blamed its document:
# 166 s for 40 documents under spawn. `argv`: the start method, then what to do ("guarded", "unguarded" or
# "preload").
_START_FAILURE = """
import multiprocessing, sys, time
from pydantic import BaseModel
from structsim_nb import score_dataset
from structsim_nb.errors import WorkerStartError

class Item(BaseModel):
    name: str

def run():
    if sys.argv[2] == "preload":  # a module the forkserver imports first, failing: the forkserver ends
        multiprocessing.set_forkserver_preload(["structsim_nb_boom"])  # the test writes it: it raises
    pairs = [({"name": "a"}, {"name": "a" if i % 2 else "b"}) for i in range(80)]
    start = time.perf_counter()
    try:
        report = score_dataset(pairs, model_cls=Item, workers=2, progress=False)
    except WorkerStartError as exc:
        print("WorkerStartError:", exc)
    else:
        print("scored", report.scores.count(1.0), "of", len(report.scores))
    print(f"seconds {time.perf_counter() - start:.1f}")

multiprocessing.set_start_method(sys.argv[1], force=True)
if sys.argv[2] == "unguarded" or __name__ == "__main__":
    run()
"""


def _start_failure(
    tmp_path: Path, method: str, how: str, *, stdin: bool = False, env: dict[str, str] | None = None
) -> tuple[str, str]:
    if stdin:
        command, given = [sys.executable, "-", method, how], _START_FAILURE
    else:
        script = tmp_path / "score.py"
        script.write_text(_START_FAILURE, encoding="utf-8")
        command, given = [sys.executable, str(script), method, how], None
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path, env=env
    )
    if given is not None:
        assert process.stdin is not None
        process.stdin.write(given)
    process.stdin.close()  # type: ignore[union-attr]
    process.stdin = None
    return communicate_or_kill(process, timeout=240)


_NON_FORK = [m for m in ("forkserver", "spawn") if m in multiprocessing.get_all_start_methods()]


@pytest.mark.parametrize("method", _NON_FORK)
def test_a_script_read_from_standard_input_gets_one_error_naming_it(tmp_path, method):
    out, err = _start_failure(tmp_path, method, "guarded", stdin=True)
    line = next(line for line in out.splitlines() if line.startswith("WorkerStartError:"))
    assert f"start method {method!r}" in line
    assert "'<stdin>' is not a file" in line.replace(str(tmp_path) + os.sep, "")
    assert "pass workers=1" in line
    assert "scored alone" not in out + err  # no document is blamed


def test_a_script_scoring_at_its_top_level_is_told_to_guard_it(tmp_path):
    method = _NON_FORK[0]
    out, _ = _start_failure(tmp_path, method, "unguarded")
    line = next(line for line in out.splitlines() if line.startswith("WorkerStartError:"))
    assert f"main module ({tmp_path / 'score.py'})" in line  # 3.14's forkserver runs it first: the forkserver ends
    assert '(score_dataset, multiprocessing.set_start_method) must sit under `if __name__ == "__main__":`' in line


@pytest.mark.skipif("forkserver" not in _NON_FORK, reason="forkserver")
def test_a_forkserver_that_ends_while_starting_names_its_preloaded_modules(tmp_path):
    """On Python 3.14 the forkserver runs the main script first; a script from standard input ends it at once, and
    the pool's submit raised a bare ConnectionResetError. A preloaded module that raises does the same on 3.11."""
    (tmp_path / "structsim_nb_boom.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    out, err = _start_failure(tmp_path, "forkserver", "preload", env={**os.environ, "PYTHONPATH": str(tmp_path)})
    line = next(line for line in out.splitlines() if line.startswith("WorkerStartError:"))
    assert "The forkserver, which starts the workers, ended while it started: it first imports" in line
    assert "structsim_nb_boom" in line
    assert "RuntimeError: boom" in err  # the workers' own error, on standard error as the message says


def test_a_document_killing_the_first_worker_is_not_taken_for_workers_that_cannot_start(pairs, reference):
    """The pool breaks before anything came back, as it does when workers cannot start; the check starts a worker
    with no document, it runs, and the quarantine names the document."""
    bad = [dict(pair) for pair in pairs[:24]]
    bad[0]["actual"] = ExitOnUnpickle()
    report = score_dataset(bad, model_cls=MODEL, workers=2, chunk_size=8)
    assert_only_row_failed(report, head(reference, 24), 0, "crashed", ["BrokenProcessPool", "scored alone"])


def test_map_ordered_raises_one_error_when_workers_cannot_start(tmp_path):
    script = """
import multiprocessing, sys
from structsim_nb._pool import map_ordered
from structsim_nb.errors import WorkerStartError
multiprocessing.set_start_method(sys.argv[1], force=True)
try:
    print(list(map_ordered(abs, range(-20, 0), workers=2)))
except WorkerStartError as exc:
    print("WorkerStartError:", exc)
"""
    done = subprocess.run(
        [sys.executable, "-", _NON_FORK[0]], input=script, capture_output=True, text=True, timeout=240, cwd=tmp_path
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("WorkerStartError:"))
    assert "is not a file" in line


# The fall-back when workers cannot start, where the failure first shows: a broken pool met while submitting a
# later chunk (a source read slowly), and a first chunk failing for a document that does not pickle. Run from
# standard input, so that no worker can start; printed: whether each run equals the one-process run, rows in order.
_FALL_BACK = """
import multiprocessing, sys, threading, time
from typing import Any
from pydantic import BaseModel, PrivateAttr
from structsim_nb import score_dataset

class Item(BaseModel):
    name: str
    qty: int

class Locked(Item):  # scores, but no process can receive it (a live lock)
    _lock: Any = PrivateAttr(default_factory=threading.Lock)

multiprocessing.set_start_method(sys.argv[1], force=True)
pairs = [
    {"name": f"case_{i:03d}", "expected": {"name": "a", "qty": i}, "actual": {"name": "a", "qty": i + i % 3}}
    for i in range(140)
]

def slowly():  # the pool breaks while the second chunk is still being read: submit() meets it
    for index, pair in enumerate(pairs):
        if index >= 64:
            time.sleep(0.01)
        yield pair

def same(report, reference):
    return report.model_dump_json() == reference.model_dump_json()

one = score_dataset(pairs, model_cls=Item, workers=1, progress=False)
print("slow source", same(score_dataset(slowly(), model_cls=Item, chunk_size=64, progress=False), one))
locked = [dict(pair) for pair in pairs]
locked[3]["actual"] = Locked(name="a", qty=3)
one = score_dataset(locked, model_cls=Item, workers=1, progress=False)
print("unpicklable first", same(score_dataset(locked, model_cls=Item, chunk_size=8, progress=False), one))
"""


def test_the_fall_back_when_workers_cannot_start_gives_the_one_process_report(tmp_path):
    """`workers=None` did not ask for workers: as for a model the workers cannot load, a warning says so and this
    process scores everything. Rows came back out of order (the chunk being submitted went before those in flight),
    and a first chunk that failed for a document that does not pickle went to the quarantine, whose worker could not
    start either: its other documents were blamed as crashed."""
    done = subprocess.run(
        [sys.executable, "-", _NON_FORK[0]], input=_FALL_BACK, capture_output=True, text=True, timeout=300, cwd=tmp_path
    )
    assert done.stdout.split("\n")[:2] == ["slow source True", "unpicklable first True"], done.stderr[-3000:]
    warned = [line for line in done.stderr.splitlines() if "UserWarning: worker processes must start" in line]
    assert len(warned) == 2 and all(line.endswith("Scoring in this process, on one core.") for line in warned)
