"""Pooled sessions that leak nothing and stay few.

* Session state does not survive a check: a connection going back to the pool is reset (`DISCARD ALL`
  on PostgreSQL: advisory locks, prepared statements, settings; COM_RESET_CONNECTION on MariaDB: user
  variables, GET_LOCK locks, temporary tables), and one that cannot be reset is closed.
* Session defaults bound what runs outside `Database.run` (introspection): a statement timeout on
  PostgreSQL (in the connect options) and MariaDB, SQLite's longest string or blob.
* At most `MAX_PER_SERVER` connections per server in this process, whatever the number of Database objects.
* A connection is pinged before it is handed out only when it has sat in the pool for more than `PING_AFTER_S`
  (`install_ping`): one just reset on its return is known to be alive, and a ping on every checkout was one
  more round trip per statement on each engine (2,400 over a `batch` of 200 demo questions).
"""
from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

from adapters.errors import CheckerError, EngineErrorInfo
from adapters.fetch import RESULT_BUDGET_BYTES

MAX_PER_SERVER = 8
PING_AFTER_S = 1.0  # a connection idle in the pool longer than this is pinged before it is handed out
_IDLE_SINCE = "ambiguity_checker_idle_since"  # in the pool record's info: when it was last known alive
COM_RESET_CONNECTION = 0x1F
_slots: dict[tuple[str, str, int | None, str], threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


class TooManyConnections(CheckerError):
    """No connection slot for this server within the time left (under the one base, so a caller that catches
    CheckerError never lets it escape as an untyped crash)."""

    kind = "connection"


def server_key(url: sa.URL) -> tuple[str, str, int | None, str]:
    backend = url.get_backend_name()
    if backend == "sqlite":
        return (backend, "", None, url.database or "")
    return (backend, url.host or "localhost", url.port, "")


@contextlib.contextmanager
def connection_slot(url: sa.URL, timeout: float) -> Iterator[None]:
    """Hold one of the server's connection slots (raises TooManyConnections after `timeout`)."""
    key = server_key(url)
    with _slots_lock:
        slot = _slots.setdefault(key, threading.BoundedSemaphore(MAX_PER_SERVER))
    if not slot.acquire(timeout=max(0.0, timeout)):
        raise TooManyConnections(f"all {MAX_PER_SERVER} connections to this server are busy")
    try:
        yield
    finally:
        slot.release()


def too_many_info(err: TooManyConnections) -> EngineErrorInfo:
    return EngineErrorInfo("connection", None, str(err))


def install_reset(engine: sa.Engine, backend: str, time_limit_s: float) -> None:
    """Session defaults on connect, a reset on every return to the pool."""
    mariadb_seconds = f"{max(0.001, time_limit_s):.3f}"

    def prepare(dbapi_connection: Any) -> None:
        if backend == "sqlite":
            import sqlite3

            dbapi_connection.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, RESULT_BUDGET_BYTES)
        elif backend == "mysql":
            # one statement, one round trip (this runs again after every reset, so once per statement)
            setting = "SET NAMES utf8mb4"
            if "mariadb" in str(getattr(dbapi_connection, "server_version", "")).lower():
                setting += f", SESSION max_statement_time = {mariadb_seconds}"
            cursor = dbapi_connection.cursor()
            try:
                cursor.execute(setting)
            finally:
                cursor.close()

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, record: Any) -> None:
        prepare(dbapi_connection)
        record.info[_IDLE_SINCE] = time.monotonic()

    @event.listens_for(engine, "checkin")
    def _on_checkin(dbapi_connection: Any, record: Any) -> None:
        if dbapi_connection is None:
            return
        try:
            if backend == "postgresql":
                dbapi_connection.rollback()
                dbapi_connection.autocommit = True
                try:
                    dbapi_connection.execute("DISCARD ALL")
                finally:
                    dbapi_connection.autocommit = False
            elif backend == "mysql":
                dbapi_connection._execute_command(COM_RESET_CONNECTION, b"")
                dbapi_connection._read_ok_packet()
                prepare(dbapi_connection)
        except Exception:  # noqa: BLE001 - a session we cannot reset is not reused
            record.invalidate()
            return
        record.info[_IDLE_SINCE] = time.monotonic()  # the reset answered: alive now


def install_ping(engine: sa.Engine) -> None:
    """SQLAlchemy's `pool_pre_ping`, for connections idle in the pool for more than `PING_AFTER_S` only (the
    engine is created without `pool_pre_ping`): a connection that just answered its reset (`install_reset`)
    or was just opened is handed out as it is. A failed ping invalidates the pool, as the pre-ping does, and
    the pool opens a new connection (SQLAlchemy's pessimistic disconnect handling)."""
    dialect = engine.dialect

    @event.listens_for(engine, "checkout")
    def _on_checkout(dbapi_connection: Any, record: Any, proxy: Any) -> None:
        if time.monotonic() - record.info.get(_IDLE_SINCE, float("-inf")) <= PING_AFTER_S:
            return
        try:
            alive = dialect.do_ping(dbapi_connection)
        except Exception as err:
            error: Any = err  # the driver's error (DBAPI Error), as SQLAlchemy's own pre-ping reads it
            if not dialect.is_disconnect(error, dbapi_connection, None):
                raise
            alive = False
        if not alive:
            raise sa.exc.InvalidatePoolError("the pooled connection did not answer a ping")
