"""Progress of a check while it runs: which engines have answered and which are still running.

`tracked(db, progress)` is the same connection (it shares the Database's state: engine, pool, caches)
whose `run` reports to `progress`; the page runs the check in a worker thread and redraws
`progress.lines()` until it is done. No streamlit here.
"""
from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters import Database


@dataclass
class EngineProgress:
    running: int = 0
    answered: int = 0
    failed: int = 0


@dataclass
class Progress:
    engines: list[str]
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _by_engine: dict[str, EngineProgress] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._by_engine = {name: EngineProgress() for name in self.engines}

    def started(self, engine: str) -> None:
        with self._lock:
            self._by_engine.setdefault(engine, EngineProgress()).running += 1

    def finished(self, engine: str, ok: bool) -> None:
        with self._lock:
            entry = self._by_engine.setdefault(engine, EngineProgress())
            entry.running = max(0, entry.running - 1)
            if ok:
                entry.answered += 1
            else:
                entry.failed += 1

    def snapshot(self) -> dict[str, EngineProgress]:
        with self._lock:
            return {k: EngineProgress(v.running, v.answered, v.failed) for k, v in self._by_engine.items()}

    def lines(self) -> list[str]:
        """One line per engine: answered so far, still running, or waiting to start."""
        out = []
        for name, entry in self.snapshot().items():
            done = entry.answered + entry.failed
            if entry.running:
                state = f"running {entry.running} statement{'s' if entry.running != 1 else ''}"
            elif done:
                state = "answered"
            else:
                state = "waiting"
            counts = f"{entry.answered} answered" + (f", {entry.failed} without an answer" if entry.failed else "")
            out.append(f"{name}: {state} ({counts})" if done else f"{name}: {state}")
        return out

    def summary(self) -> str:
        snap = self.snapshot()
        running = [n for n, e in snap.items() if e.running]
        answered = [n for n, e in snap.items() if not e.running and e.answered + e.failed]
        parts = []
        if answered:
            parts.append("answered: " + ", ".join(answered))
        if running:
            parts.append("still running: " + ", ".join(running))
        return " · ".join(parts) or "starting…"


def tracked(db: Database, progress: Progress) -> Database:
    """`db` whose runs report to `progress` (same state: nothing is reconnected or re-profiled)."""
    base: type[Database] = type(db)
    inner_run: Callable[..., Any] = base.run

    class Tracked(base):  # type: ignore[valid-type, misc]
        def run(self, sql: str, limits: Any = None) -> Any:
            progress.started(self.name)
            ok = False
            try:
                result = inner_run(self, sql, limits)
                ok = bool(getattr(result, "ok", False))
                return result
            finally:
                progress.finished(self.name, ok)

    clone = Tracked.__new__(Tracked)
    clone.__dict__ = db.__dict__  # shared, not copied
    return clone


def track_all(databases: Sequence[Database]) -> tuple[list[Database], Progress]:
    progress = Progress([db.name for db in databases])
    return [tracked(db, progress) for db in databases], progress
