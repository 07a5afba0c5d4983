"""young_collections_only: collections inside skip what existed before and start no full collection by themselves;
both undone after; the caller's own freeze (or a disabled collector) is left alone."""

from __future__ import annotations

import ast
import functools
import gc
import os

import pytest

from structsim_nb import _heap
from structsim_nb._heap import young_collections_only


@pytest.fixture(autouse=True)
def _collector_as_found():
    enabled, frozen, thresholds = gc.isenabled(), gc.get_freeze_count(), gc.get_threshold()
    yield
    assert _heap._held is None  # no test leaves a block holding the collector
    gc.set_threshold(*thresholds)
    gc.unfreeze()
    if frozen:
        gc.freeze()
    (gc.enable if enabled else gc.disable)()


def test_objects_from_before_are_frozen_inside_and_back_after() -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    with young_collections_only():
        assert gc.get_freeze_count() > 0
    assert gc.get_freeze_count() == 0


def test_garbage_from_before_is_skipped_inside_and_collected_after() -> None:
    import weakref

    gc.unfreeze()

    class Cycle:
        other: Cycle

    a, b = Cycle(), Cycle()
    a.other, b.other = b, a
    ref = weakref.ref(a)
    holder = [a]  # reachable until the block has frozen it: no collection on the way can take it first
    del a, b
    with young_collections_only():
        del holder  # now an unreachable cycle made before the block
        gc.collect()
        assert ref() is not None  # frozen: the collection inside did not walk it
    gc.collect()
    assert ref() is None


def test_the_frozen_objects_are_never_counted(monkeypatch) -> None:
    """Counting walks every frozen object (18 ms for 300,000): the block counts only at its start, when none is."""
    gc.unfreeze()
    counted: list[int] = []
    real = gc.get_freeze_count

    def counting() -> int:
        counted.append(real())
        return counted[-1]

    monkeypatch.setattr(gc, "get_freeze_count", counting)
    with young_collections_only():
        pass
    assert counted == [0]


def test_a_freeze_made_inside_the_block_is_undone_with_ours() -> None:
    gc.unfreeze()
    with young_collections_only():
        gc.freeze()  # code the block runs, freezing what it has
    assert gc.get_freeze_count() == 0


def test_what_a_collection_freezes_by_itself_is_no_callers_freeze() -> None:
    # CPython 3.12's collector moves the runtime's immortal objects (375 on 3.12.1) to the permanent generation, so
    # after any full collection the freeze count is not 0 there: the block took that for a caller's freeze and
    # never acted on 3.12 (found by the whole suite on 3.12.1).
    gc.unfreeze()
    gc.collect()
    with young_collections_only():
        assert _heap._held is not None and _held_out_of_reach(gc.get_threshold()[2])
    assert _heap._held is None


def test_a_callers_freeze_and_a_disabled_collector_are_left_as_they_are() -> None:
    before = gc.get_threshold()
    gc.freeze()
    count = gc.get_freeze_count()
    with young_collections_only():
        assert gc.get_threshold() == before
    assert gc.get_threshold() == before
    # Not unfrozen by us (that would empty the frozen set); frozen objects that die in between only shrink it.
    assert 0 < gc.get_freeze_count() <= count
    gc.unfreeze()
    gc.disable()
    with young_collections_only():
        assert gc.get_freeze_count() == 0 and gc.get_threshold() == before
    assert not gc.isenabled() and gc.get_threshold() == before


def _collections_while(make, generation: int) -> int:
    """How many collections of `generation` start by themselves while `make()` runs."""
    started: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start" and info["generation"] == generation:
            started.append(1)

    gc.callbacks.append(note)
    try:
        make()
    finally:
        gc.callbacks.remove(note)
    return len(started)


def _full_collections_while(make) -> int:
    """How many full collections start by themselves while `make()` runs."""
    return _collections_while(make, 2)


def _long_lived(count: int = 200_000) -> list:
    """`count` small containers kept alive: what a run's results are to the collector."""
    return [[index] for index in range(count)]


def _as_in_a_small_process() -> None:
    """A full collection while everything is frozen: the collector then counts no long-lived objects, so a
    quarter more of them (its condition for the next full collection) is few, whatever this process holds."""
    gc.unfreeze()
    gc.freeze()
    gc.collect()
    gc.unfreeze()


def _third_threshold_counts() -> bool:
    """Whether this collector keeps a third threshold (an incremental one ignores it and reads back 0)."""
    first, second, third = gc.get_threshold()
    gc.set_threshold(first, second, third + 1)
    kept = gc.get_threshold()[2] == third + 1
    gc.set_threshold(first, second, third)
    return kept


THIRD_THRESHOLD_COUNTS = _third_threshold_counts()


def _held_out_of_reach(third: int) -> bool:
    """Whether a third threshold read inside a block is the block's (any value where the collector ignores it)."""
    return third == _heap._OUT_OF_REACH or not THIRD_THRESHOLD_COUNTS


needs_a_third_threshold = pytest.mark.skipif(
    not THIRD_THRESHOLD_COUNTS, reason="this collector ignores the third threshold (only the freeze acts)"
)


@needs_a_third_threshold
def test_no_full_collection_starts_inside_and_the_threshold_is_back_after() -> None:
    before = gc.get_threshold()
    # The control, frozen as the block freezes: as many objects outside the block do start one (how many it
    # takes depends on the Python version's thresholds: 200,000 on 3.10-3.12, more on 3.13).
    for count in (200_000, 1_000_000):
        _as_in_a_small_process()
        gc.freeze()
        if _full_collections_while(functools.partial(_long_lived, count)) > 0:
            break
    else:
        pytest.fail("no full collection started outside the block for a million long-lived objects")
    _as_in_a_small_process()
    with young_collections_only():
        assert gc.get_threshold()[:2] == before[:2]
        assert _full_collections_while(functools.partial(_long_lived, count)) == 0
    assert gc.get_threshold() == before


def test_young_cycles_are_still_collected_inside() -> None:
    import weakref

    gc.unfreeze()

    class Cycle:
        other: Cycle

    with young_collections_only():
        a, b = Cycle(), Cycle()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        _long_lived(5_000)  # allocations enough for collections of the young generation to run by themselves
        assert ref() is None


@needs_a_third_threshold
def test_thresholds_the_block_sets_for_the_young_generations_are_kept() -> None:
    gc.unfreeze()
    first, second, third = gc.get_threshold()
    with young_collections_only():
        gc.set_threshold(first + 1, second + 1)
    assert gc.get_threshold() == (first + 1, second + 1, third)


@needs_a_third_threshold
def test_a_callers_own_third_threshold_comes_back() -> None:
    gc.unfreeze()
    first, second, _ = gc.get_threshold()
    gc.set_threshold(first, second, 25)
    with young_collections_only():
        assert gc.get_threshold()[2] == _heap._OUT_OF_REACH
    assert gc.get_threshold() == (first, second, 25)


def test_everything_is_undone_when_the_block_raises() -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), young_collections_only():
        raise RuntimeError("scoring failed")
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


@pytest.mark.parametrize("hold_middle", [False, True])
@pytest.mark.parametrize("where", ["get_threshold", "freeze", "set_threshold"])
def test_an_interrupt_while_the_block_starts_is_undone(monkeypatch, where: str, hold_middle: bool) -> None:
    """Ctrl-C (or SIGTERM, raised by `_signals`) between the steps that start the block: nothing stays set."""
    gc.unfreeze()
    before = gc.get_threshold()
    real = getattr(gc, where)
    calls = {"n": 0}

    def interrupted(*args):
        calls["n"] += 1
        if where == "get_threshold" and calls["n"] == 1:  # the read, before anything was set
            raise KeyboardInterrupt
        result = real(*args)
        if where != "get_threshold":
            raise KeyboardInterrupt  # right after the step took effect
        return result

    monkeypatch.setattr(gc, where, interrupted)
    with pytest.raises(KeyboardInterrupt), young_collections_only(hold_middle=hold_middle):
        pytest.fail("the block's body must not run")
    monkeypatch.undo()
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


@pytest.mark.parametrize("hold_middle", [False, True])
@pytest.mark.parametrize("where", ["get_threshold", "set_threshold", "unfreeze"])
def test_an_interrupt_while_the_block_is_undone_is_raised_once_it_is_undone(monkeypatch, where, hold_middle) -> None:
    """Ctrl-C landing in the undo (right after one of its steps took effect) used to leave the thresholds held for
    the rest of the process: the undo is finished, then the interrupt raised."""
    gc.unfreeze()
    before = gc.get_threshold()
    real = getattr(gc, where)
    state = {"ending": False, "raised": 0}

    def interrupted(*args):
        result = real(*args)
        if state["ending"] and not state["raised"]:
            state["raised"] += 1
            raise KeyboardInterrupt
        return result

    monkeypatch.setattr(gc, where, interrupted)
    with pytest.raises(KeyboardInterrupt), young_collections_only(hold_middle=hold_middle):
        state["ending"] = True  # from here on, only the undo runs
    monkeypatch.undo()
    assert state["raised"] == 1
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    assert _heap._held is None and _heap._held_middle is None


def test_an_undo_that_keeps_failing_raises_instead_of_trying_for_ever(monkeypatch) -> None:
    gc.unfreeze()
    calls: list[tuple] = []
    real = gc.set_threshold
    ending = {"now": False}

    def failing(*args):
        if ending["now"]:
            calls.append(args)
            raise RuntimeError("set_threshold failed")
        return real(*args)

    monkeypatch.setattr(gc, "set_threshold", failing)
    with pytest.raises(RuntimeError, match="set_threshold failed"), young_collections_only(freeze=False):
        ending["now"] = True
    assert len(calls) == _heap._UNDO_ATTEMPTS and _heap._held is None and _heap._held_middle is None


def test_a_block_inside_a_block_does_nothing_and_the_outer_end_undoes_all() -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    with young_collections_only():
        inside = gc.get_threshold()
        with young_collections_only():
            assert gc.get_threshold() == inside
        assert gc.get_threshold() == inside and gc.get_freeze_count() > 0  # the inner end undid nothing
    assert gc.get_threshold() == before and gc.get_freeze_count() == 0


def test_blocks_in_many_threads_at_once_leave_the_collector_as_it_was() -> None:
    """Two threads could both see nothing frozen, and the last to end put back the other's setting: under
    the lock one block acts at a time, and its end undoes it."""
    import sys
    import threading

    gc.unfreeze()
    before = gc.get_threshold()

    def work() -> None:
        for _ in range(3_000):
            with young_collections_only():
                pass

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        for _ in range(5):
            threads = [threading.Thread(target=work) for _ in range(4)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            assert gc.get_threshold() == before and gc.get_freeze_count() == 0
    finally:
        sys.setswitchinterval(interval)


def _forked_inside(freeze: bool, hold_middle: bool = False) -> tuple[tuple[int, ...], bool]:
    """What a process forked inside a block sees: `(its thresholds, whether anything is frozen in it)`."""
    gc.unfreeze()
    before = gc.get_threshold()
    read, write = os.pipe()
    with young_collections_only(freeze=freeze, hold_middle=hold_middle):
        pid = os.fork()
        if pid == 0:  # the child: report and leave at once, running nothing of pytest's
            try:
                os.write(write, repr((gc.get_threshold(), gc.get_freeze_count() > 0)).encode())
            finally:
                os._exit(0)
        os.close(write)
        with os.fdopen(read) as pipe:
            seen = pipe.read()
        os.waitpid(pid, 0)
        assert gc.get_threshold()[2] == (_heap._OUT_OF_REACH if THIRD_THRESHOLD_COUNTS else before[2])
    thresholds, frozen = ast.literal_eval(seen)
    assert thresholds == before
    return thresholds, frozen


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_process_forked_inside_the_block_gets_the_threshold_back() -> None:
    """A `fork` pool's workers live as long as the run: they must collect as usual (the freeze they keep)."""
    assert _forked_inside(freeze=True)[1] is True


def test_an_evaluate_run_scores_with_young_collections_only(tmp_path, monkeypatch) -> None:
    from pathlib import Path

    from structsim_nb.trajectories import pairs, runner

    gc.unfreeze()
    seen: list[tuple[int, int]] = []
    original = pairs.get_scorer

    def counting(name: str):
        scorer = original(name)

        def wrapped(*args, **kwargs):
            seen.append((gc.get_freeze_count(), gc.get_threshold()[2]))
            return scorer(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(pairs, "get_scorer", counting)
    tree = Path(__file__).parent / "data" / "trajectories_tree"
    runner.run_evaluation(tree / "trajectories", tree / "scenarios", tmp_path / "r")
    assert seen and all(frozen > 0 and _held_out_of_reach(third) for frozen, third in seen)
    assert gc.get_freeze_count() == 0


def test_score_dataset_takes_its_rows_with_young_collections_only(monkeypatch) -> None:
    """The rows a dataset's report piles up are no garbage: no full collection walks them while they come."""
    from structsim_nb import dataset
    from structsim_nb.demo import Invoice, synthetic_invoice_pairs

    gc.unfreeze()
    seen: list[tuple[int, int]] = []
    original = dataset.score_in_process

    def watched(evaluator, source):
        for item in original(evaluator, source):
            seen.append((gc.get_freeze_count(), gc.get_threshold()[2]))
            yield item

    monkeypatch.setattr(dataset, "score_in_process", watched)
    before = gc.get_threshold()
    report = dataset.score_dataset(synthetic_invoice_pairs(3, line_items=2), model_cls=Invoice, workers=1)
    assert len(report.cases) == 3
    assert len(seen) == 3 and all(frozen > 0 and _held_out_of_reach(third) for frozen, third in seen)
    assert gc.get_freeze_count() == 0 and gc.get_threshold() == before


# -- freeze=False: only the third threshold, for a block as short as one document's comparison --------------------


@needs_a_third_threshold
def test_without_freezing_no_full_collection_starts_inside_and_nothing_is_frozen() -> None:
    before = gc.get_threshold()
    _as_in_a_small_process()
    with young_collections_only(freeze=False):
        assert gc.get_freeze_count() == 0 and gc.get_threshold()[:2] == before[:2]
        assert _full_collections_while(functools.partial(_long_lived, 1_000_000)) == 0
    assert gc.get_threshold() == before and _heap._held is None


def test_without_freezing_a_callers_freeze_is_neither_counted_nor_undone(monkeypatch) -> None:
    gc.freeze()
    frozen = gc.get_freeze_count()
    monkeypatch.setattr(gc, "get_freeze_count", lambda: pytest.fail("the frozen objects were counted"))
    with young_collections_only(freeze=False):
        assert _held_out_of_reach(gc.get_threshold()[2])
    monkeypatch.undo()
    # Not unfrozen (that would empty the frozen set). Not `== frozen`: frozen objects that die in between (a
    # pytest-xdist worker's I/O thread frees some) shrink it, which made this test fail once in CI.
    assert 0 < gc.get_freeze_count() <= frozen


def test_without_freezing_a_block_inside_a_freezing_one_does_nothing() -> None:
    gc.unfreeze()
    with young_collections_only():
        held = _heap._held
        with young_collections_only(freeze=False):
            assert _heap._held == held
        assert gc.get_freeze_count() > 0 and _held_out_of_reach(gc.get_threshold()[2])  # still the outer block's
    assert gc.get_freeze_count() == 0


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_process_forked_inside_a_block_without_freezing_freezes_nothing() -> None:
    assert _forked_inside(freeze=False)[1] is False


# -- hold_middle: the middle generation held too, for a block as short as one document's comparison --------------


@needs_a_third_threshold
def test_holding_the_middle_only_the_youngest_generation_is_collected_inside() -> None:
    """What outlives a youngest collection stays in the middle generation: nothing moves on to the oldest, where
    each object moved counts toward the next full collection."""
    gc.unfreeze()
    before = gc.get_threshold()
    assert _collections_while(functools.partial(_long_lived, 100_000), 1) > 0  # the control
    frozen = gc.get_freeze_count()  # (0, or on 3.12 the immortal objects its collections moved there)
    with young_collections_only(freeze=False, hold_middle=True):
        assert gc.get_threshold()[0] == before[0] and gc.get_freeze_count() == frozen
        assert gc.get_threshold()[1:] == (_heap._OUT_OF_REACH, _heap._OUT_OF_REACH)
        for generation in (1, 2):
            assert _collections_while(functools.partial(_long_lived, 100_000), generation) == 0
        assert _collections_while(functools.partial(_long_lived, 100_000), 0) > 0
    assert gc.get_threshold() == before and _heap._held is None and _heap._held_middle is None


def test_holding_the_middle_young_cycles_are_still_collected_inside() -> None:
    import weakref

    class Cycle:
        other: Cycle

    with young_collections_only(freeze=False, hold_middle=True):
        a, b = Cycle(), Cycle()
        a.other, b.other = b, a
        ref = weakref.ref(a)
        del a, b
        _long_lived(5_000)
        assert ref() is None


@needs_a_third_threshold
def test_holding_the_middle_a_callers_second_threshold_comes_back_and_a_first_set_inside_is_kept() -> None:
    first, second, third = gc.get_threshold()
    gc.set_threshold(first, second + 3, third)
    with young_collections_only(freeze=False, hold_middle=True):
        gc.set_threshold(first + 1, 2)  # code inside setting both young thresholds: only the first is its own
    assert gc.get_threshold() == (first + 1, second + 3, third)


def test_holding_the_middle_inside_a_block_that_does_not_does_nothing() -> None:
    gc.unfreeze()
    before = gc.get_threshold()
    with young_collections_only():
        with young_collections_only(freeze=False, hold_middle=True):
            assert gc.get_threshold()[1] == before[1] and _heap._held_middle is None
    assert gc.get_threshold() == before


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_process_forked_inside_a_block_holding_the_middle_gets_both_thresholds_back() -> None:
    assert _forked_inside(freeze=False, hold_middle=True)[1] is False  # (`_forked_inside` checks the thresholds)


def test_each_evaluate_compares_with_no_full_collection(monkeypatch) -> None:
    """A document's comparison builds results that live until it ends: no full collection walks the heap for them."""
    from strands_evals.types.evaluation import EvaluationData

    from structsim_nb import evaluate
    from structsim_nb.demo import Invoice, synthetic_invoice_pairs
    from structsim_nb.engine import listmatch

    gc.unfreeze()
    seen: list[tuple[int, int]] = []
    original = listmatch.compare

    def watched(*args, **kwargs):
        seen.append((gc.get_freeze_count(), gc.get_threshold()[2]))
        return original(*args, **kwargs)

    monkeypatch.setattr(listmatch, "compare", watched)
    before = gc.get_threshold()
    pair = synthetic_invoice_pairs(1, line_items=3)[0]
    case = EvaluationData(name="x", input="", expected_output=pair["expected"], actual_output=pair["actual"])
    rows = evaluate.StructuredOutputSimilarity(Invoice).evaluate(case)
    assert len(rows) == 1 and len(seen) == 1
    assert seen[0][0] == 0 and _held_out_of_reach(seen[0][1])  # nothing frozen: only the thresholds held
    assert gc.get_threshold() == before and _heap._held is None


@needs_a_third_threshold
def test_an_evaluate_of_a_long_table_moves_nothing_to_the_oldest_generation() -> None:
    """Its results outlive many youngest collections; moved on to the oldest generation, they made CPython start
    a full collection every two or three such documents, though they died when the comparison ended."""
    from strands_evals.types.evaluation import EvaluationData

    from structsim_nb import evaluate
    from structsim_nb.demo import Invoice, synthetic_invoice_pairs

    pair = synthetic_invoice_pairs(1, line_items=120)[0]
    case = EvaluationData(name="x", input="", expected_output=pair["expected"], actual_output=pair["actual"])
    evaluator = evaluate.StructuredOutputSimilarity(Invoice)
    first, second, third = gc.get_threshold()
    gc.set_threshold(50, second, third)  # youngest collections often enough for the middle one to come by itself
    assert _collections_while(lambda: evaluator.evaluate(case), 0) > 3 * second
    assert _collections_while(lambda: evaluator.evaluate(case), 1) == 0
