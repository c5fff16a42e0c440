"""`batch` sets the collector for a long run and gives Python's settings back afterwards."""
from __future__ import annotations

import gc

from checker_app.long_run import THRESHOLDS, fewer_collections


def test_thresholds_and_freezing_are_restored() -> None:
    before, frozen_before = gc.get_threshold(), gc.get_freeze_count()
    with fewer_collections() as settle:
        assert gc.get_threshold() == THRESHOLDS
        kept = [object() for _ in range(10)]
        settle()
        assert gc.get_freeze_count() > frozen_before  # what the first check left is out of later collections
        settle()  # once only
    assert gc.get_threshold() == before and gc.get_freeze_count() == frozen_before
    assert len(kept) == 10


def test_restored_when_the_run_fails() -> None:
    before = gc.get_threshold()
    try:
        with fewer_collections():
            raise RuntimeError("a failing run")
    except RuntimeError:
        pass
    assert gc.get_threshold() == before
