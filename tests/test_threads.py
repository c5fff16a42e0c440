"""DaemonPool starts its workers as tasks arrive (a check's first statement does not wait for eight
threads to start), never more than its size, and they end once shut down."""
from __future__ import annotations

import threading
import time
import uuid

from adapters.threads import DaemonPool


def _workers(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith(f"{name}-")]


def _until(condition, seconds: float = 5.0) -> bool:
    ends = time.monotonic() + seconds
    while time.monotonic() < ends:
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def test_workers_start_with_the_tasks_and_never_exceed_the_size() -> None:
    name = f"pool{uuid.uuid4().hex[:6]}"
    pool = DaemonPool(3, name)
    assert _workers(name) == []  # nothing started before the first task
    release = threading.Event()
    first = pool.submit(release.wait, 5)
    assert len(_workers(name)) == 1 and all(t.daemon for t in _workers(name))
    futures = [first] + [pool.submit(release.wait, 5) for _ in range(4)]
    assert len(_workers(name)) == 3  # five tasks, three workers: two wait for one
    release.set()
    assert all(f.result(timeout=5) for f in futures)
    pool.shutdown()
    assert _until(lambda: _workers(name) == [])


def test_the_first_task_runs_before_the_next_is_submitted() -> None:
    """The worker of a task is started (running) when submit returns: it can take the task at once."""
    name = f"pool{uuid.uuid4().hex[:6]}"
    pool = DaemonPool(8, name)
    started = threading.Event()
    future = pool.submit(started.set)
    assert _until(started.is_set, 2.0)
    assert future.result(timeout=2) is None
    assert len(_workers(name)) <= 1
    pool.shutdown()
    assert _until(lambda: _workers(name) == [])


def test_a_task_after_shutdown_starts_no_worker() -> None:
    name = f"pool{uuid.uuid4().hex[:6]}"
    pool = DaemonPool(2, name)
    assert pool.submit(lambda: 7).result(timeout=5) == 7
    pool.shutdown()
    assert _until(lambda: _workers(name) == [])
    pool.submit(lambda: 8)
    time.sleep(0.05)
    assert _workers(name) == []


def test_a_worker_serves_the_next_pool_but_not_while_stuck() -> None:
    """A pool's worker, once the pool is shut down, serves the next pool (no thread started for it); one
    stuck in a task stays with its pool, and the next pool gets another thread."""
    first = DaemonPool(1, f"pool{uuid.uuid4().hex[:6]}")
    ident = first.submit(threading.get_ident).result(timeout=5)
    first.shutdown()
    assert _until(lambda: not _workers(first._name))
    second = DaemonPool(1, f"pool{uuid.uuid4().hex[:6]}")
    release = threading.Event()
    assert second.submit(threading.get_ident).result(timeout=5) == ident  # the same thread, not a new one
    assert [t.ident for t in _workers(second._name)] == [ident]
    stuck = second.submit(release.wait, 5)
    second.shutdown()
    third = DaemonPool(1, f"pool{uuid.uuid4().hex[:6]}")
    assert third.submit(threading.get_ident).result(timeout=5) != ident  # still waiting with `second`
    third.shutdown()
    release.set()
    assert stuck.result(timeout=5) is True
