"""Calls due later, all on one daemon thread: SQLite's time limit without a thread per statement.

A `threading.Timer` per statement started a thread and waited for it to run, then ended it: on two busy
cores that hand-over cost about a millisecond of every SQLite statement's wall time (more than the
statement itself for most of the checker's). Here one thread, started with the first call, sleeps until
the earliest call is due. A cancelled call never runs once `cancel` has returned (a call being made holds
the lock that `cancel` takes), so a statement's interrupt cannot land on the connection's next statement.
"""
from __future__ import annotations

import heapq
import itertools
import threading
import time
from collections.abc import Callable


class Pending:
    """One call due at `due` (a `time.monotonic` value); `cancel` removes it."""

    __slots__ = ("_watchdog", "due", "function", "cancelled")

    def __init__(self, watchdog: Watchdog, due: float, function: Callable[[], object]) -> None:
        self._watchdog = watchdog
        self.due = due
        self.function = function
        self.cancelled = False

    def cancel(self) -> None:
        with self._watchdog.lock:
            self.cancelled = True


class Watchdog:
    """Runs each scheduled call at its time, one after another, on one daemon thread."""

    def __init__(self, name: str = "watchdog") -> None:
        self.lock = threading.Lock()
        self._wake = threading.Condition(self.lock)
        self._heap: list[tuple[float, int, Pending]] = []
        self._order = itertools.count()
        self._name = name
        self._thread: threading.Thread | None = None

    def call_later(self, seconds: float, function: Callable[[], object]) -> Pending:
        pending = Pending(self, time.monotonic() + max(0.0, seconds), function)
        with self.lock:
            heapq.heappush(self._heap, (pending.due, next(self._order), pending))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            elif self._heap[0][2] is pending:
                self._wake.notify()  # due before the one the thread sleeps for
        return pending

    def _run(self) -> None:
        with self.lock:
            while True:
                while self._heap and self._heap[0][2].cancelled:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait()
                    continue
                delay = self._heap[0][0] - time.monotonic()
                if delay > 0:
                    self._wake.wait(delay)
                    continue
                _, _, pending = heapq.heappop(self._heap)
                try:
                    pending.function()  # under the lock: cancel() waits for it, and never sees it run afterwards
                except Exception:  # noqa: BLE001 - a failed interrupt leaves the statement to its own end
                    pass


_shared = Watchdog("statement-limits")


def call_later(seconds: float, function: Callable[[], object]) -> Pending:
    """`function()` in `seconds` on the process's one watchdog thread, unless cancelled first."""
    return _shared.call_later(seconds, function)
