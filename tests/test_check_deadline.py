"""One deadline per check, against a real slow reading on each real engine.

The slow reading is real: another session holds a lock on the table the readings read (PostgreSQL
`LOCK TABLE ... ACCESS EXCLUSIVE`, MariaDB `LOCK TABLES ... WRITE`, SQLite `BEGIN EXCLUSIVE`), so every
statement of the check waits on the engine. The per-statement limit is set far above the check's deadline:
without the deadline the check would take that long; with it, it returns at the deadline with every reading
a `timeout`, and the engine stops the statement itself (its limit was what was left of the deadline).
"""
from __future__ import annotations

import sqlite3
import threading
import time

import pytest
import sqlalchemy as sa

from adapters import Database, Limits, deadline, parse_db_option
from checker_app.pipeline import CheckOptions, check
from tests.support import BACKENDS

STATEMENT_LIMIT_S = 25.0   # what one statement may take: far past the deadline below
DEADLINE_S = 3.0           # the check's deadline, shortened from check_budget_s(...) (>= 30 s) to keep the test short
SLACK_S = 4.0              # returning, building the report, a loaded machine: still far under STATEMENT_LIMIT_S
QUESTION = "How many orders are there?"


class Lock:
    """Another session holding a lock on `orders` until released."""

    def __init__(self, backend: str, url: str) -> None:
        self.backend, self.url = backend, url
        self.release = threading.Event()
        self.held = threading.Event()
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        if self.backend == "sqlite":
            conn = sqlite3.connect(sa.make_url(self.url).database, isolation_level=None)
            conn.execute("BEGIN EXCLUSIVE")
            self.held.set()
            self.release.wait()
            conn.execute("ROLLBACK")
            conn.close()
            return
        engine = sa.create_engine(self.url)
        with engine.connect() as conn:
            if self.backend == "postgresql":
                conn.exec_driver_sql("LOCK TABLE orders IN ACCESS EXCLUSIVE MODE")
            else:
                conn.exec_driver_sql("LOCK TABLES orders WRITE")
            self.held.set()
            self.release.wait()
            if self.backend == "mysql":
                conn.exec_driver_sql("UNLOCK TABLES")
            conn.rollback()
        engine.dispose()

    def __enter__(self) -> Lock:
        self.thread.start()
        assert self.held.wait(10), "the lock was not taken"
        return self

    def __exit__(self, *exc: object) -> None:
        self.release.set()
        self.thread.join(timeout=30)


def _active_statements(url: str) -> int:
    """Statements of other sessions still running on the PostgreSQL database (ours, past the deadline)."""
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return conn.exec_driver_sql(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND state = 'active' AND strpos(query, 'orders') > 0").scalar_one()
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_slow_reading_ends_at_the_checks_deadline(demo_urls, backend) -> None:
    url = demo_urls[backend]
    db = Database(parse_db_option(f"demo={url}"), Limits(time_limit_s=STATEMENT_LIMIT_S))
    options = CheckOptions(limits=Limits(time_limit_s=STATEMENT_LIMIT_S))
    warm = check(QUESTION, [db], options)  # profile and lookups read before the lock: only the readings wait
    assert warm.interpretations and all(r.status == "ok" for i in warm.interpretations for r in i.results.values())
    with Lock(backend, url):
        started = time.monotonic()
        with deadline.within(DEADLINE_S):
            report = check(QUESTION, [db], options)
        elapsed = time.monotonic() - started
        results = [r for i in report.interpretations for r in i.results.values()]
        assert results and all(r.status == "timeout" for r in results), [(r.status, r.error) for r in results]
        assert elapsed < DEADLINE_S + SLACK_S, f"the check took {elapsed:.1f} s past a {DEADLINE_S} s deadline"
        if backend == "postgresql":
            # the engine ended the statement itself: its statement_timeout was what was left of the deadline
            for _ in range(50):
                if _active_statements(url) == 0:
                    break
                time.sleep(0.1)
            assert _active_statements(url) == 0, "a reading still runs on PostgreSQL after the deadline"
    db.dispose()
