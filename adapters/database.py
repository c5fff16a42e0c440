"""One live database behind a small interface: run a statement safely, read its schema.

Every statement is checked by `safety.parse_query` first, then the engine enforces read-only and a
time limit itself (scoped to the transaction or statement, never to the pooled session), and the
row cap is pushed into the SQL so no more than cap + 1 rows ever cross the wire.
"""
from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlglot import exp

from adapters.classify import classify
from adapters.connections import DatabaseConfig, create_engine, scrub
from adapters.errors import EngineErrorInfo, UnsafeStatementError
from adapters.results import RunResult
from adapters.safety import parse_query


@dataclass(frozen=True)
class Limits:
    """Per-statement limits; defaults are the documented ones."""

    time_limit_s: float = 5.0
    row_cap: int = 1000


def cap_rows(query: exp.Query, row_cap: int) -> exp.Query:
    """The query with LIMIT row_cap + 1 (the extra row tells us it was truncated), unless it already
    has a literal limit at or below that."""
    limit = query.args.get("limit")
    if isinstance(limit, exp.Limit):
        value = limit.expression
        if isinstance(value, exp.Literal) and value.is_int and int(value.this) <= row_cap + 1:
            return query
    elif isinstance(limit, exp.Fetch):
        return query
    return query.copy().limit(row_cap + 1)


class Database:
    """A named connection. Thread-safe: the runner calls `run` from several threads at once."""

    def __init__(self, config: DatabaseConfig, limits: Limits | None = None) -> None:
        self.config = config
        self.limits = limits or Limits()
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._cache: dict[str, Any] = {}

    @property
    def name(self) -> str:
        return self.config.name

    @property
    def dialect(self) -> str:
        return self.config.dialect

    @property
    def backend(self) -> str:
        return self.config.backend

    @property
    def engine(self) -> Engine:
        with self._lock:
            if self._engine is None:
                self._engine = create_engine(self.config)
            return self._engine

    def cached(self, key: str, build: Any) -> Any:
        """Per-connection memo (schema, profile): built once, reused by every question."""
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = build()
        with self._lock:
            return self._cache.setdefault(key, value)

    def forget(self) -> None:
        with self._lock:
            self._cache.clear()

    def dispose(self) -> None:
        with self._lock:
            if self._engine is not None:
                self._engine.dispose()
                self._engine = None

    # -- running -------------------------------------------------------------------------------

    def run(self, sql: str, limits: Limits | None = None) -> RunResult:
        """Run one read-only statement; never raises for engine or input problems."""
        limits = limits or self.limits
        result = RunResult(engine=self.name, dialect=self.dialect, sql=sql, status="ok")
        started = time.perf_counter()
        try:
            query = parse_query(sql, self.dialect)
        except UnsafeStatementError as err:
            result.status = "rejected"
            result.error = EngineErrorInfo("syntax" if err.reason.startswith("cannot parse") else "read_only", None, err.reason)
            return result
        except Exception as err:  # InputError
            result.status = "rejected"
            result.error = EngineErrorInfo("other", None, str(err))
            return result
        capped = cap_rows(query, limits.row_cap)
        text = sql if capped is query else capped.sql(dialect=self.dialect)
        try:
            with self.engine.connect() as conn, self._guard(conn, limits) as prepare:
                # the DBAPI cursor directly: with no parameters no driver reads '%' or ':' as a placeholder
                cursor = conn.connection.dbapi_connection.cursor()
                try:
                    cursor.execute(prepare(text))
                    columns = [d[0] for d in cursor.description or ()]
                    rows = [list(row) for row in cursor.fetchmany(limits.row_cap + 1)]
                finally:
                    cursor.close()
                conn.rollback()
        except (SQLAlchemyError, self._driver_error()) as err:
            info = classify(err, self.backend)
            info = EngineErrorInfo(info.kind, info.code, scrub(self._explain(info), self.config.url), info.position)
            result.status = "timeout" if info.kind == "timeout" else "error"
            result.error = info
            result.elapsed_ms = (time.perf_counter() - started) * 1000
            return result
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        result.columns = columns
        result.truncated = len(rows) > limits.row_cap
        result.rows = rows[: limits.row_cap]
        result.row_count = len(result.rows)
        return result

    def _explain(self, info: EngineErrorInfo) -> str:
        """SQLite says only "unable to open database file"; say which file is missing."""
        database = self.config.url.database or ""
        if self.backend == "sqlite" and info.kind == "connection" and database not in ("", ":memory:"):
            path = Path(database).expanduser().resolve()
            if not path.exists():
                return f"no SQLite file at {path}"
        return info.message

    def _driver_error(self) -> type[Exception]:
        return self.engine.dialect.loaded_dbapi.Error

    @contextlib.contextmanager
    def _guard(self, conn: Connection, limits: Limits) -> Iterator[Any]:
        """Read-only and time limit for one statement; yields a function that prepares its text."""
        ms = max(1, int(limits.time_limit_s * 1000))
        if self.backend == "postgresql":
            conn.exec_driver_sql("SET TRANSACTION READ ONLY")
            conn.exec_driver_sql(f"SET LOCAL statement_timeout = {ms}")
            yield lambda text: text
        elif self.backend == "mysql":
            conn.exec_driver_sql("START TRANSACTION READ ONLY")
            if getattr(conn.dialect, "is_mariadb", False):
                seconds = f"{ms / 1000:.3f}"
                yield lambda text: f"SET STATEMENT max_statement_time={seconds} FOR {text}"
            else:
                conn.exec_driver_sql(f"SET SESSION max_execution_time = {ms}")
                yield lambda text: text
        else:
            # a timer calling interrupt(), not a progress handler: a Python callback every few
            # thousand VM steps must take the GIL each time, which stalls every other engine's thread
            raw = conn.connection.driver_connection
            conn.exec_driver_sql("PRAGMA query_only = ON")
            timer = threading.Timer(limits.time_limit_s, raw.interrupt)
            timer.daemon = True
            timer.start()
            try:
                yield lambda text: text
            finally:
                timer.cancel()

    def ping(self) -> EngineErrorInfo | None:
        """None when the engine answers `SELECT 1`, else what went wrong."""
        result = self.run("SELECT 1", Limits(time_limit_s=3.0, row_cap=1))
        return None if result.ok else result.error
