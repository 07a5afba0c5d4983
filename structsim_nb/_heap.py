"""Garbage collection around a long run: collections during it skip what was alive before it.

CPython's full collection walks every tracked object. A run that builds thousands of results in a
process holding a large heap (pandas, matplotlib, the engine: about 300,000 objects after
`import structsim_nb`) triggers several, and each walks that heap again, though none of it became
garbage because of the run: on 2,000 trajectories that was a fifth of `evaluate`'s time.
`older_objects_frozen()` moves what exists when the block starts to the permanent generation
(`gc.freeze`) and puts it back (`gc.unfreeze`) when the block ends, so collections inside see
only what the run made. Nothing is lost: garbage among the older objects (made before the block, or
dropped by other threads during it) waits for the next full collection after the block.

The block does nothing extra where the caller manages the collector itself: if it is disabled, or
if objects are already frozen (a pre-fork server's `gc.freeze()`: unfreezing would undo it). A
freeze made inside the block (code it runs calling `gc.freeze()`) is undone with ours when it ends:
telling the two apart would mean counting the frozen objects, and `gc.get_freeze_count()` walks
them one by one (18 ms for 300,000, more than a whole `evaluate` of a few runs costs). Freezing
and unfreezing themselves take constant time. Blocks running at once in several threads: the first
one freezes, and its end unfreezes.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

__all__ = ["older_objects_frozen"]


@contextlib.contextmanager
def older_objects_frozen() -> Iterator[None]:
    """Inside the block, collections skip the objects that existed before it; see the module docstring."""
    if not gc.isenabled() or gc.get_freeze_count():  # (nothing frozen: an empty list, counted at once)
        yield
        return
    gc.freeze()
    try:
        yield
    finally:
        gc.unfreeze()
