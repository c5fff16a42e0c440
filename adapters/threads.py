"""Worker threads that can never keep the process alive.

`concurrent.futures.ThreadPoolExecutor` joins its workers at interpreter exit, so one worker blocked on
a server that accepted TCP and never answered kept `run` alive after it printed its result. These
workers are daemon threads, run in a copy of the submitter's context (the check's deadline goes with
them) and leave their pool once it is shut down and its queue drained.

A worker that left its pool waits, idle, for the next pool that needs one (up to `IDLE_WORKERS` of them
in the process), rather than ending: every check made a runner pool of up to eight threads, and `batch`
one more to analyse ahead, so 200 questions started about 2,000 threads, each start a wait for the new
thread to run on busy cores. A worker stuck in a task stays with its pool and is never handed out.
"""
from __future__ import annotations

import contextvars
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

IDLE_WORKERS = 16  # workers kept waiting for a pool, at most
_IDLE_NAME = "idle-worker"
_idle: list[tuple[threading.Thread, queue.SimpleQueue[DaemonPool]]] = []  # idle workers and their inboxes
_idle_lock = threading.Lock()


def _serve(inbox: queue.SimpleQueue[DaemonPool]) -> None:
    """A worker's life: serve a pool until it is shut down, then wait idle for another (or end when enough
    wait). The pool that takes a worker names it before handing itself over (`DaemonPool.submit`)."""
    thread = threading.current_thread()
    while True:
        inbox.get()._work()
        with _idle_lock:
            if len(_idle) >= IDLE_WORKERS:
                return
            thread.name = _IDLE_NAME
            _idle.append((thread, inbox))


class DaemonPool:
    """At most `workers` tasks at once on daemon threads; `shutdown` never waits for a stuck one."""

    def __init__(self, workers: int, name: str = "worker") -> None:
        self._tasks: queue.SimpleQueue[tuple[Future[Any], contextvars.Context, Callable[..., Any], tuple[Any, ...]] | None] = queue.SimpleQueue()
        self._size = max(1, workers)
        self._name = name
        self._threads: list[str] = []  # the names of the workers it was given
        self._lock = threading.Lock()
        self._closed = False

    def submit(self, fn: Callable[..., T], *args: Any) -> Future[T]:
        """Queue `fn(*args)`; a worker joins with each task until there are `workers` of them (an idle one
        when there is one, else a new thread).

        Workers join as tasks arrive, not all when the pool is made: a thread's start waits for it to run,
        and eight of them started before the first task (the runner's pool) kept a check's first statement
        waiting several milliseconds on a loaded machine, twice as long on two busy cores."""
        future: Future[T] = Future()
        self._tasks.put((future, contextvars.copy_context(), fn, args))
        with self._lock:
            thread = None
            if not self._closed and len(self._threads) < self._size:
                name = f"{self._name}-{len(self._threads)}"
                self._threads.append(name)
                with _idle_lock:
                    idle = _idle.pop() if _idle else None
                if idle is None:
                    inbox: queue.SimpleQueue[DaemonPool] = queue.SimpleQueue()
                    thread = threading.Thread(target=_serve, args=(inbox,), name=name, daemon=True)
                else:
                    idle[0].name, inbox = name, idle[1]  # named as this pool's before it takes a task
                inbox.put(self)
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
        """Run this pool's tasks until `shutdown`'s end mark."""
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
