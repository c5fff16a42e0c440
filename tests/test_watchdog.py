"""The watchdog runs each call at its time, in the order they fall due, on one thread; a cancelled call
never runs; SQLite statements are interrupted through it without a thread of their own."""
from __future__ import annotations

import sqlite3
import threading

from adapters import Database, Limits, parse_db_option
from adapters.watchdog import Watchdog


def test_calls_run_in_the_order_they_fall_due_on_one_thread() -> None:
    watchdog = Watchdog("test-watchdog")
    ran: list[tuple[str, str]] = []
    done = threading.Event()

    def record(label: str):
        def call() -> None:
            ran.append((label, threading.current_thread().name))
            if len(ran) == 3:
                done.set()
        return call

    watchdog.call_later(0.30, record("third"))
    watchdog.call_later(0.10, record("first"))  # due before the one the thread already sleeps for
    watchdog.call_later(0.20, record("second"))
    assert done.wait(5)
    assert [label for label, _ in ran] == ["first", "second", "third"]
    assert {name for _, name in ran} == {"test-watchdog"}


def test_a_cancelled_call_never_runs() -> None:
    watchdog = Watchdog("test-watchdog-cancel")
    ran: list[str] = []
    later = threading.Event()
    cancelled = watchdog.call_later(0.05, lambda: ran.append("cancelled"))
    cancelled.cancel()
    watchdog.call_later(0.20, later.set)  # runs after the cancelled one was due
    assert later.wait(5)
    assert ran == []


def test_a_failing_call_does_not_stop_the_others() -> None:
    watchdog = Watchdog("test-watchdog-fail")
    after = threading.Event()
    watchdog.call_later(0.01, lambda: 1 / 0)
    watchdog.call_later(0.05, after.set)
    assert after.wait(5)


def test_sqlite_statements_start_no_thread_and_still_time_out(tmp_path) -> None:
    path = tmp_path / "w.sqlite"
    sqlite3.connect(path).close()
    db = Database(parse_db_option(f"sqlite:///{path}"), Limits(time_limit_s=5))
    assert db.run("SELECT 1").ok  # the pool and the watchdog thread exist from here on
    before = threading.active_count()
    for i in range(20):
        assert db.run(f"SELECT {i}").rows == [[i]]
    assert threading.active_count() == before
    slow = db.run("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c",
                  Limits(time_limit_s=0.2))
    assert slow.status == "timeout", slow.error
    assert db.run("SELECT 2").rows == [[2]]  # the interrupt does not reach the next statement
