"""Garbage collection around a long run: collections during it look only at young objects.

CPython's full collection walks every tracked object. A run that builds thousands of results in a
process holding a large heap (pandas, matplotlib, the engine: about 300,000 objects after
`import structsim_nb`) triggers several, and each walks that heap again, though none of it became
garbage because of the run: on 2,000 trajectories that was a fifth of `evaluate`'s time. The run's
own results are no garbage either, yet a full collection walks them too, and the collector
starts a new one each time the old objects have grown by a quarter: on 20,000 trajectories it
started eight, and the collector took 1.0-1.2 s of a 5.1-5.4 s run (0.10-0.15 s without them;
`bench/evaluate_share.py --runs-count 20000`).

`young_collections_only()` does two things for the length of the block, and undoes both at its end:

- what exists when the block starts is moved to the permanent generation (`gc.freeze`, undone by
  `gc.unfreeze`), so no collection inside walks it;
- no full collection starts by itself (the third threshold is set out of reach, then restored):
  the collections of the young generations still run as before, and they are where nearly all
  garbage cycles die (on 20,000 trajectories, 96% of the cyclic objects the full collections found;
  the rest waits for the block's end).

`young_collections_only(freeze=False)` does only the second, for a block too short to need the
first: one `evaluate()` of a document. A 200-line invoice whose line items hold lists of objects
builds thousands of result dicts that live until the comparison ends; the collector started a full
collection two or three times during it, each walking the whole heap, a third of the document's
time (`bench/README.md`, "Lists of objects inside elements, lists of values anywhere"). The full
collection it would have started runs at the first young collection after the block instead, once.

`young_collections_only(freeze=False, hold_middle=True)`, which `evaluate()` uses, also holds the
middle generation for the block: only the youngest generation is collected. Without it, each
collection of the middle generation moves what survived it (the comparison's results, alive until
it ends) to the oldest, and CPython counts every object moved there: once they reach a quarter of
the oldest generation it starts a full collection, though most of them died (by reference count)
as soon as the comparison ended. So the full collection the block put off still came, once every
two or three documents in a loop over 200-line invoices, each walking the whole heap (about 0.1 s
for 270,000 objects), a fifth of their time. Held, the survivors wait in the middle generation and
the first collection of it after the block walks only those still alive. Cycles that become
garbage after outliving a youngest collection wait for that collection too: at most what one
comparison makes (the peak memory of a 200- and a 1,000-line document's comparison was the same
either way). Not for long blocks: a whole run would keep such cycles to its end.

Nothing is lost: garbage among the older objects (made before the block, or dropped by other threads
during it) and cycles that lived long enough to leave the young generations wait for the first full
collection after the block. An explicit `gc.collect()` inside the block still collects everything
that is not frozen.

Edge cases:

- The block does nothing where the caller manages the collector itself: if it is disabled, or if
  objects are already frozen (a pre-fork server's `gc.freeze()`: unfreezing would undo it; with
  `freeze=False` frozen objects are left alone, so only a disabled collector stops the block). On
  CPython 3.12, whose collector puts the runtime's immortal objects there itself (a few hundred),
  up to `_INTERPRETERS_OWN` frozen objects count as none: the block's unfreeze hands them back to
  the oldest generation, and the next full collection moves them again.
- A freeze made inside the block (code it runs calling `gc.freeze()`) is undone with ours when it
  ends: telling the two apart would mean counting the frozen objects, and `gc.get_freeze_count()`
  walks them one by one (18 ms for 300,000, more than a whole `evaluate` of a few runs costs).
- Thresholds the block's code sets for the young generations are kept; the third is put back as it
  was before the block, and so is the second when the block held it.
- One block acts at a time: a block inside another, or in another thread while one is open, does
  nothing, and the open one's end undoes everything (deciding, acting and undoing happen under a
  lock, so two threads cannot both act, or put back each other's setting).
- It is undone also when the block is left by an exception, Ctrl-C or SIGTERM (`_signals`), when one
  of those arrives while the block starts, and when one arrives while it is being undone (the undo is
  finished, then the interrupt raised). One that arrives in the few instructions between the block's end
  and its undo still leaves the thresholds held and the next blocks doing nothing (a test firing SIGALRM
  every 200 us into empty blocks saw that for 3 of 130 interrupts; a block's body, a document's
  comparison, is far longer than that gap).
- A process forked inside the block (a `fork` worker pool) gets the thresholds back at once,
  so a long-lived worker collects as usual, and (when the block froze) everything it inherits is
  frozen in it: its full collections walk only what it makes itself, and never touch (so never
  copy) the parent's pages.
- Where the collector ignores the third threshold (an incremental collector reads it back as 0, as
  some Python 3.14 releases have), only the freeze acts.

Freezing, unfreezing and setting thresholds take constant time.
"""

from __future__ import annotations

import contextlib
import gc
import os
import sys
import threading
from collections.abc import Iterator

__all__ = ["young_collections_only"]

#: Frozen objects taken for the interpreter's own rather than a caller's freeze. CPython 3.12's collector moves
#: the immortal objects it comes across (the runtime's static ones: 375 on 3.12.1, however much is imported) to the
#: permanent generation (gh-137110; 3.13 untracks them instead), so there a count of a few hundred is no freeze;
#: a caller freezing a heap freezes hundreds of thousands (306,844 after `import structsim_nb`).
_INTERPRETERS_OWN = 10_000 if sys.version_info[:2] == (3, 12) else 0
#: The third collection threshold inside the block: more collections of the middle generation than a run makes.
_OUT_OF_REACH = 1 << 30
#: Held while a block decides whether it acts, and while it undoes what it did.
_lock = threading.Lock()
#: The third threshold from before the open block that acted, to put back; None when no block holds the collector.
_held: int | None = None
#: Whether the open block that acted froze the heap.
_froze = False
#: The second threshold from before the open block, when it held the middle generation; else None.
_held_middle: int | None = None


@contextlib.contextmanager
def young_collections_only(*, freeze: bool = True, hold_middle: bool = False) -> Iterator[None]:
    """Inside the block no full collection starts by itself and, with `freeze` (the default), collections
    skip the objects that existed before it; see the module docstring (its edge cases: nested blocks,
    threads, forks). `freeze=False` leaves frozen objects alone and never counts them. `hold_middle`
    (default False) also holds the middle generation, for a block as short as one comparison."""
    global _held, _froze, _held_middle
    mine = False
    try:
        with _lock:
            # (`get_freeze_count` is asked only when freezing, and with nothing frozen it counts at once)
            if _held is None and gc.isenabled() and not (freeze and gc.get_freeze_count() > _INTERPRETERS_OWN):
                mine = True  # first: an interrupt from here on is undone below, whatever was done
                first, second, _held = gc.get_threshold()
                _froze, _held_middle = freeze, second if hold_middle else None
                if freeze:
                    gc.freeze()
                gc.set_threshold(first, _OUT_OF_REACH if hold_middle else second, _OUT_OF_REACH)
        yield
    finally:
        if mine:
            _undo(unfreeze=_froze)


#: Attempts `_undo` makes at putting the collector back before it gives up and raises.
_UNDO_ATTEMPTS = 3


def _undo(*, unfreeze: bool) -> None:
    """`_put_back` under the lock, finished even when an interrupt (Ctrl-C, or SIGTERM raised by `_signals`) lands
    in the middle of it: the interrupt is raised again once the collector is as it was.

    Cut halfway, the undo left the thresholds held for the rest of the process: with the middle generation held,
    cycles that outlive a young collection would never be freed. `_put_back` can run again from any point (it
    clears the block's state last), so it is run again, up to `_UNDO_ATTEMPTS` times in all; if every attempt
    fails, the block is forgotten all the same (and unfrozen) and the last failure raised. What remains is the
    few instructions between the block's end and this call.
    """
    global _held, _froze, _held_middle
    interrupted: BaseException | None = None
    for attempt in range(_UNDO_ATTEMPTS):
        try:
            with _lock:
                _put_back(unfreeze=unfreeze)
            break
        except BaseException as exc:  # noqa: BLE001 - the collector first; raised below
            interrupted = interrupted or exc
            if attempt == _UNDO_ATTEMPTS - 1:
                try:
                    if unfreeze:
                        gc.unfreeze()
                finally:
                    _held, _froze, _held_middle = None, False, None
                raise
    if interrupted is not None:
        raise interrupted


def _put_back(*, unfreeze: bool) -> None:
    """The third threshold as it was, and the second when the block held it (the first as it is now), then
    unfreeze, then forget the block; call with `_lock` held. Safe to run again from any point."""
    global _held, _froze, _held_middle
    if _held is not None:
        first, second, _ = gc.get_threshold()
        gc.set_threshold(first, second if _held_middle is None else _held_middle, _held)
    if unfreeze:
        gc.unfreeze()
    _held, _froze, _held_middle = None, False, None


def _after_fork_in_child() -> None:
    """A child forked inside a block: a fresh lock (another thread may have held the parent's), the
    thresholds back, and everything it inherited frozen, so that its full collections walk only what it
    makes (a walk of the parent's objects would take time and touch, so copy, their pages)."""
    global _lock
    _lock = threading.Lock()
    if _held is not None:
        froze = _froze
        _put_back(unfreeze=False)
        if froze:
            gc.freeze()


if hasattr(os, "register_at_fork"):  # POSIX; Windows has no fork
    os.register_at_fork(after_in_child=_after_fork_in_child)
