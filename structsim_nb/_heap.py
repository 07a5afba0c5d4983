"""Garbage collection around a long run: collections during it look only at young objects.

CPython's full collection walks every tracked object. A run that builds thousands of results in a
process holding a large heap (pandas, matplotlib, the engine: about 300,000 objects after
`import structsim_nb`) triggers several, and each walks that heap again, though none of it became
garbage because of the run: on 2,000 trajectories that was a fifth of `evaluate`'s time. The run's
own results are no garbage either, yet a full collection walks them too, and the collector
starts a new one each time the old objects have grown by a quarter: on 20,000 trajectories, eight
full collections took 1.0-1.2 s of a 5.1-5.4 s run (`bench/evaluate_share.py --runs-count 20000`).

`young_collections_only()` does two things for the length of the block, and undoes both at its end:

- what exists when the block starts is moved to the permanent generation (`gc.freeze`, undone by
  `gc.unfreeze`), so no collection inside walks it;
- no full collection starts by itself (the third threshold is set out of reach, then restored):
  the collections of the young generations still run as before, and they are where nearly all
  garbage cycles die (on 20,000 trajectories, 96% of the cyclic objects the full collections found;
  the rest waits for the block's end).

Nothing is lost: garbage among the older objects (made before the block, or dropped by other threads
during it) and cycles that lived long enough to leave the young generations wait for the first full
collection after the block. An explicit `gc.collect()` inside the block still collects everything
that is not frozen.

The block does nothing where the caller manages the collector itself: if it is disabled, or if
objects are already frozen (a pre-fork server's `gc.freeze()`: unfreezing would undo it). A freeze
made inside the block (code it runs calling `gc.freeze()`) is undone with ours when it ends: telling
the two apart would mean counting the frozen objects, and `gc.get_freeze_count()` walks them one by
one (18 ms for 300,000, more than a whole `evaluate` of a few runs costs). Thresholds the block's
code sets for the young generations are kept; the third is put back as it was. Freezing,
unfreezing and setting thresholds take constant time. Blocks running at once in several threads:
the first one acts, and its end undoes it. Where the collector ignores the third threshold (an
incremental collector, which reads it back as 0), only the freeze acts.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["young_collections_only"]

#: The third collection threshold inside the block: more collections of the middle generation than a run makes.
_OUT_OF_REACH = 1 << 30


@contextlib.contextmanager
def young_collections_only() -> Iterator[None]:
    """Inside the block, collections skip the objects that existed before it and no full collection
    starts by itself; see the module docstring."""
    if not gc.isenabled() or gc.get_freeze_count():  # (nothing frozen: an empty list, counted at once)
        yield
        return
    first, second, third = gc.get_threshold()
    gc.freeze()
    gc.set_threshold(first, second, _OUT_OF_REACH)
    try:
        yield
    finally:
        first, second, _ = gc.get_threshold()
        gc.set_threshold(first, second, third)
        gc.unfreeze()
