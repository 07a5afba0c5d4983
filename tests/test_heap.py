"""older_objects_frozen: collections inside skip what existed before; the caller's own freeze is left alone."""

from __future__ import annotations

import gc

import pytest

from structsim_nb._heap import older_objects_frozen


@pytest.fixture(autouse=True)
def _collector_as_found():
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    yield
    gc.unfreeze()
    if frozen:
        gc.freeze()
    (gc.enable if enabled else gc.disable)()


def test_objects_from_before_are_frozen_inside_and_back_after() -> None:
    gc.unfreeze()
    assert gc.get_freeze_count() == 0
    with older_objects_frozen():
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
    with older_objects_frozen():
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
    with older_objects_frozen():
        pass
    assert counted == [0]


def test_a_freeze_made_inside_the_block_is_undone_with_ours() -> None:
    gc.unfreeze()
    with older_objects_frozen():
        gc.freeze()  # code the block runs, freezing what it has
    assert gc.get_freeze_count() == 0


def test_a_callers_freeze_and_a_disabled_collector_are_left_as_they_are() -> None:
    gc.freeze()
    count = gc.get_freeze_count()
    with older_objects_frozen():
        pass
    # Not unfrozen by us (that would empty the frozen set); frozen objects that die in between only shrink it.
    assert 0 < gc.get_freeze_count() <= count
    gc.unfreeze()
    gc.disable()
    with older_objects_frozen():
        assert gc.get_freeze_count() == 0
    assert not gc.isenabled()


def test_an_evaluate_run_scores_with_the_older_objects_frozen(tmp_path, monkeypatch) -> None:
    from pathlib import Path

    from structsim_nb.trajectories import pairs, runner

    gc.unfreeze()
    seen: list[int] = []
    original = pairs.get_scorer

    def counting(name: str):
        scorer = original(name)

        def wrapped(*args, **kwargs):
            seen.append(gc.get_freeze_count())
            return scorer(*args, **kwargs)

        return wrapped

    monkeypatch.setattr(pairs, "get_scorer", counting)
    tree = Path(__file__).parent / "data" / "trajectories_tree"
    runner.run_evaluation(tree / "trajectories", tree / "scenarios", tmp_path / "r")
    assert seen and all(count > 0 for count in seen)
    assert gc.get_freeze_count() == 0
