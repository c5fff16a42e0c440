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
        self._size = max(1, workers)
        self._name = name
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue `fn(*args)`; a worker is started with each task until there are `workers` of them.

        Workers start as tasks arrive, not all when the pool is made: a thread's start waits for it to run,
        and eight of them started before the first task (the runner's pool) kept a check's first statement
        waiting several milliseconds on a loaded machine, twice as long on two busy cores."""
        future: Future[T] = Future()
        self._tasks.put((future, contextvars.copy_context(), fn, args))
        with self._lock:
            thread = None
            if not self._closed and len(self._threads) < self._size:
                thread = threading.Thread(target=self._work, name=f"{self._name}-{len(self._threads)}", daemon=True)
                self._threads.append(thread)
        if thread is not None:
            thread.start()
        return future

    def shutdown(self) -> None:
        """Cancel what has not started; workers end after their current task (never joined)."""
        with self._lock:
            self._closed, started = True, len(self._threads)
        for _ in range(started):
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
