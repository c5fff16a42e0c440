"""Python's cyclic garbage collector set for a long run of checks (`batch`).

A sqlglot tree is a cycle (every node points to its parent), so the trees a check builds, copies and writes
are freed by the cyclic collector, not by reference counts. With Python's default thresholds (a young
collection every 700 new objects) many of them lived through a collection while their check was still
running, moved to the oldest generation, and died there, so full collections ran over everything the batch
kept (the profiles, the value vocabularies, up to 128 analyses with their trees): 200 distinct demo
questions spent 2.5 to 3.3 s collecting, 12 full collections of about 0.12 s each, every one of them holding
the interpreter lock. Young collections every 5,000 objects let most trees die young, and the objects made
for the first question (the profiles, vocabularies and modules it loaded) are frozen out of every
collection: 1.4 to 1.7 s over the same batch (measured with `gc.callbacks`, load 5 to 6). Larger thresholds
made each young collection slower than the ones they saved. The settings are restored when the run ends.
"""
from __future__ import annotations

import contextlib
import gc
from collections.abc import Callable, Iterator

THRESHOLDS = (5000, 10, 10)


@contextlib.contextmanager
def fewer_collections() -> Iterator[Callable[[], None]]:
    """The collector's thresholds for a long run; yields `settle`, to call once the first check has loaded
    what every later one uses: it collects, then freezes what is left out of later collections (what the
    first check made and later drops, an evicted analysis, is then never freed: one question's worth)."""
    before = gc.get_threshold()
    frozen = False

    def settle() -> None:
        nonlocal frozen
        if not frozen:
            gc.collect()
            gc.freeze()
            frozen = True

    gc.set_threshold(*THRESHOLDS)
    try:
        yield settle
    finally:
        gc.set_threshold(*before)
        if frozen:
            gc.unfreeze()
