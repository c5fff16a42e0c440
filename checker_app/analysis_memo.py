"""Analyses kept with the profile they were made on, so a question asked again is not analysed again.

`batch` repeats questions and the page re-runs one after each answer; on the demo an analysis costs 3 to
330 ms of CPU and its statements as much again to write (`Interpretation.sql` keeps each text it wrote).
An analysis depends on the question, the options, the day (relative windows) and the profile, whose
lookups are already kept in the profile's own memo; so the analyses live in that memo too
(``profile.cache``): a refreshed or rebuilt profile starts without them, and the stored profile never
holds them (``profile_store.write`` empties the memo). At most `SIZE` analyses per profile.
"""
from __future__ import annotations

import threading
from typing import Any

from adapters.memo import BoundedMemo

SIZE = 128
_KEY = "checker_app.analyses"
_lock = threading.Lock()


def analysis_memo(profile: Any) -> BoundedMemo[Any]:
    """The memo of analyses made on `profile` (an archetypes.SchemaProfile)."""
    with _lock:
        memo = profile.cache.get(_KEY)
        if memo is None:
            memo = profile.cache[_KEY] = BoundedMemo(SIZE)
        return memo
