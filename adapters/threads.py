"""Worker threads that can never keep the process alive.

`concurrent.futures.ThreadPoolExecutor` joins its workers at interpreter exit, so one worker blocked on
a server that accepted TCP and never answered kept `run` alive after it printed its result. These
workers are daemon threads, run in a copy of the submitter's context (the check's deadline goes with
them) and exit as soon as the queue is drained.
"""
from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")


class DaemonPool:
    """At most `workers` tasks at once on daemon threads; `shutdown` never waits for a stuck one."""

    def __init__(self, workers: int, name: str = "worker") -> None:
        self._tasks: queue.SimpleQueue[tuple[Future[Any], contextvars.Context, Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._threads = [threading.Thread(target=self._work, name=f"{name}-{n}", daemon=True) for n in range(max(1, workers))]
        for thread in self._threads:
            thread.start()

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        future: Future[T] = Future()
        self._tasks.put((future, contextvars.copy_context(), fn, args))
        return future

    def shutdown(self) -> None:
        """Cancel what has not started; workers end after their current task (never joined)."""
        for _ in self._threads:
            self._tasks.put(None)

    def _work(self) -> None:
        while True:
            task = self._tasks.get()
            if task is None:
                return
            future, context, fn, args = task
            if not future.set_running_or_notify_cancel():
                continue
            try:
                future.set_result(context.run(fn, *args))
            except BaseException as err:  # noqa: BLE001 - handed to the waiting caller
                future.set_exception(err)


def call_with_timeout(fn: Callable[[], T], seconds: float, name: str = "bounded") -> T:
    """fn() on a daemon thread; TimeoutError when it has not returned within `seconds`."""
    pool = DaemonPool(1, name)
    try:
        return pool.submit(fn).result(timeout=max(0.0, seconds))
    finally:
        pool.shutdown()
