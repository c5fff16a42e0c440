"""One live database behind a small interface: run a statement safely, read its schema.

Every statement is checked by `safety.parse_query` first, and only the SQL re-rendered from the checked
tree is sent (never the caller's text, so no comment the parser skipped can reach the engine). A statement
the checker built itself (`adapters.built.BuiltStatement`) brings its tree: the same checks walk that tree
(`safety.check_query`) and the SQL is written from it, without writing it as text and parsing it again. The
engine enforces read-only and a time limit itself (scoped to the transaction or statement, never to the
pooled session), the row cap is pushed into the SQL so no more than cap + 1 rows ever cross the wire,
and rows are read incrementally under a byte budget (`adapters.fetch`). Each statement gets at most
what is left of the check's deadline (`adapters.deadline`) and one of the server's connection slots.
"""
from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy.engine import Connection, Engine
from sqlalchemy.exc import SQLAlchemyError
from sqlglot import exp

from adapters import deadline, watchdog
from adapters.built import BuiltStatement
from adapters.classify import classify
from adapters.connections import READ_GRACE_S, DatabaseConfig, scrub, shared_engine
from adapters.dialects import sqlglot_dialect, writing_dialect
from adapters.errors import CheckerError, EngineErrorInfo, IntrospectionError
from adapters.fetch import Fetched, batches_of, bounded_rows, stream_batches
from adapters.memo import BoundedMemo
from adapters.privileges import privilege_warning
from adapters.results import RunResult
from adapters.safety import check_query, decode_input, parse_query
from adapters.schema import SchemaInfo, introspect
from adapters.sessions import TooManyConnections, connection_slot, too_many_info
from adapters.threads import call_with_timeout

INTROSPECTION_S = 20.0
SENT_MEMO_SIZE = 1024
T = TypeVar("T")


@dataclass(frozen=True)
class Limits:
    """Per-statement limits; defaults are the documented ones."""

    time_limit_s: float = 5.0
    row_cap: int = 1000


def _literal_count(node: exp.Expr | None) -> int | None:
    return int(node.this) if isinstance(node, exp.Literal) and node.is_int else None


def cap_rows(query: exp.Query, row_cap: int, *, copy: bool = True) -> exp.Query:
    """The query with LIMIT row_cap + 1 (the extra row tells us it was truncated), unless it already
    has a literal LIMIT / TOP / FETCH FIRST at or below that. A FETCH FIRST above it becomes the LIMIT;
    one sqlglot cannot simply replace (PERCENT, WITH TIES, an expression) is wrapped in a capped subquery.
    `copy=False`: a plain LIMIT is added to `query` itself (the caller owns it)."""
    limit = query.args.get("limit")
    if isinstance(limit, exp.Limit):
        count = _literal_count(limit.expression)
        if count is not None and count <= row_cap + 1 and not limit.args.get("offset"):
            return query
    elif isinstance(limit, exp.Fetch):
        count = _literal_count(limit.args.get("count"))
        options = limit.args.get("limit_options")
        plain = options is None or not (options.args.get("percent") or options.args.get("with_ties"))
        if count is not None and plain:
            if count <= row_cap + 1:
                return query
            capped = query.copy()
            capped.set("limit", None)
            return capped.limit(_limit(row_cap + 1))
        return exp.select("*").from_(query.copy().subquery("capped")).limit(_limit(row_cap + 1))
    return query.limit(_limit(row_cap + 1), copy=copy)


def _limit(count: int) -> exp.Limit:
    """`LIMIT count` as a node: given an int, sqlglot's `limit()` parses the text "LIMIT count"."""
    return exp.Limit(expression=exp.Literal.number(count))


def sent_text(query: exp.Query, dialect: str, limits: Limits, *, owned: bool = False) -> str:
    """What `Database.run` sends for a checked query: re-rendered from the tree, capped, no comments.
    `owned`: the caller hands the tree over, so it is capped and written in place, not copied first."""
    return cap_rows(query, limits.row_cap, copy=not owned).sql(dialect=writing_dialect(dialect), comments=False,
                                                               copy=not owned)


def checked_text(sql: str, dialect: str, limits: Limits, allow_functions: frozenset[str]) -> str:
    """The text to send for `sql`, checked: a statement the checker built (`BuiltStatement`, in this
    dialect) through its own tree, any other text parsed first."""
    if isinstance(sql, BuiltStatement) and sql.dialect == sqlglot_dialect(dialect):
        decode_input(sql.text(), what="SQL")  # the same size and NUL limits as a text
        tree, as_written = sql.tree_as_written()
        tree = check_query(tree, dialect, allow_functions=allow_functions)
        capped = capped_as_written(tree, sql.text(), limits.row_cap) if as_written else None
        return capped if capped is not None else sent_text(tree, dialect, limits, owned=True)
    return sent_text(parse_query(sql, dialect, allow_functions=allow_functions), dialect, limits)


_AFTER_LIMIT = ("offset", "locks", "sample", "for_", "options")  # what sqlglot writes after a query's LIMIT


def capped_as_written(tree: exp.Query, text: str, row_cap: int) -> str | None:
    """What `sent_text` writes for `tree`, given `text`, the tree's own writing in the same dialect (None:
    write it): the text itself where the cap leaves the tree as it is (a LIMIT at or below it), the text
    and `LIMIT cap+1` where the cap adds a plain LIMIT to a SELECT or a set operation with nothing written
    after its LIMIT. A statement the checker wrote was written twice, once for the report and once to be
    sent, for an identical text. Text with a comment is written again (it is sent without)."""
    if "/*" in text or "--" in text or not isinstance(tree, (exp.Select, exp.SetOperation)) or \
            any(tree.args.get(key) for key in _AFTER_LIMIT):
        return None
    limit = tree.args.get("limit")
    if limit is None:
        return f"{text} LIMIT {row_cap + 1}"
    count = _literal_count(limit.expression) if isinstance(limit, exp.Limit) else None
    if count is not None and count <= row_cap + 1 and not limit.args.get("offset"):
        return text
    return None


class Database:
    """A named connection. Thread-safe: the runner calls `run` from several threads at once."""

    def __init__(self, config: DatabaseConfig, limits: Limits | None = None) -> None:
        self.config = config
        self.limits = limits or Limits()
        self._engine: Engine | None = None
        self._lock = threading.Lock()
        self._cache: dict[str, Any] = {}
        self.allow_functions: frozenset[str] = frozenset()  # user-defined functions the profile allows
        # checked statement -> the text sent: a statement sent again (the same check re-run, a reading two
        # questions share) is not parsed and written again; refused ones are checked each time
        self._sent: BoundedMemo[str] = BoundedMemo(SENT_MEMO_SIZE)

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
                self._engine = shared_engine(self.config, time_limit_s=self.limits.time_limit_s)
            return self._engine

    def cached(self, key: str, build: Any) -> Any:
        """Per-connection memo (schema, profile): built once, reused by every question."""
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        value = build()
        with self._lock:
            return self._cache.setdefault(key, value)

    def bounded(self, build: Callable[[], T], what: str) -> T:
        """build() under the same limits as a statement (each catalog query has the session's statement
        timeout): it ends within `INTROSPECTION_S` (or what is left of the check's deadline), on a daemon
        thread that cannot keep the process alive, holding one of the server's connection slots."""
        def held() -> T:
            with connection_slot(self.config.url, self.limits.time_limit_s + READ_GRACE_S):
                return build()

        seconds = deadline.remaining(max(INTROSPECTION_S, 4 * self.limits.time_limit_s))
        try:
            return call_with_timeout(held, seconds, "introspect")
        except TimeoutError:
            raise IntrospectionError(f"{self.name}: {what} took more than {seconds:.0f} s") from None
        except TooManyConnections as err:
            raise IntrospectionError(f"{self.name}: {err}") from None
        except IntrospectionError as err:
            raise IntrospectionError(scrub(str(err), self.config.url)) from None

    def schema(self) -> SchemaInfo:
        """The introspected schema, read once, bounded (`bounded`)."""
        return self.cached("schema", lambda: self.bounded(lambda: introspect(self.engine, dialect=self.dialect),
                                                          "reading the schema"))

    def privilege_warning(self) -> str | None:
        """Once per engine: a line when the connection is a superuser or can read server files."""
        def check() -> str | None:
            def query() -> str | None:
                with self.engine.connect() as conn:
                    try:
                        return privilege_warning(conn, self.backend, self.name)
                    finally:
                        conn.rollback()
            try:
                return call_with_timeout(query, deadline.remaining(self.limits.time_limit_s), "privileges")
            except Exception:  # noqa: BLE001 - no answer is no warning; the statements say what failed
                return None

        return self.cached("privileges", check)

    def describe(self) -> dict[str, str]:
        """The engine as the report lists it; `warning` when it is connected with too many privileges."""
        described = self.config.describe()
        warning = self._cache.get("privileges")
        if warning:
            described["warning"] = warning
        return described

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
        result = RunResult(engine=self.name, dialect=self.dialect, sql=str(sql), status="ok")
        started = time.perf_counter()
        try:
            built = isinstance(sql, BuiltStatement)  # kept apart: a text is checked as a text
            text = self._sent.get((str(sql), built, limits.row_cap, self.allow_functions), lambda: checked_text(
                sql, self.dialect, limits, self.allow_functions))
        except CheckerError as err:  # refused before it ran: the error's own kind (syntax, read_only; other for input)
            result.status = "rejected"
            result.error = EngineErrorInfo(err.kind, None, str(err))
            return result
        except Exception as err:  # noqa: BLE001 - run never raises: a parser crash is a one-line rejection
            result.status = "rejected"
            result.error = EngineErrorInfo("other", None, str(err).splitlines()[0] if str(err) else type(err).__name__)
            return result
        seconds = deadline.remaining(limits.time_limit_s)
        if seconds <= 0.05:
            result.status = "timeout"
            result.error = EngineErrorInfo("timeout", None, "not run: the check's overall deadline passed")
            return result
        try:
            with connection_slot(self.config.url, seconds), self.engine.connect() as conn:
                with self._guard(conn, seconds) as prepare:
                    fetched = self._fetch(conn, prepare(text), limits.row_cap)
                if fetched.complete:
                    conn.rollback()
                else:
                    conn.invalidate()  # unread rows stay on the wire: close rather than drain them
        except TooManyConnections as err:
            return self._failed(result, too_many_info(err), started)
        except (SQLAlchemyError, self._driver_error()) as err:
            info = classify(err, self.backend)
            info = EngineErrorInfo(info.kind, info.code, scrub(self._explain(info), self.config.url), info.position)
            return self._failed(result, info, started)
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        if self.backend == "mysql" and result.elapsed_ms >= 0.98 * seconds * 1000:
            # MariaDB's max_statement_time stops BENCHMARK() or a lock wait with an answer (0, NULL), not an error
            return self._failed(result, EngineErrorInfo("timeout", "1969", f"stopped after {seconds:g} s (the time limit)"), started)
        result.columns = fetched.columns
        result.truncated = fetched.truncated_reason is not None
        result.truncated_reason = fetched.truncated_reason
        result.rows = fetched.rows[: limits.row_cap]
        result.row_count = len(result.rows)
        return result

    def _failed(self, result: RunResult, info: EngineErrorInfo, started: float) -> RunResult:
        result.status = "timeout" if info.kind == "timeout" else "error"
        result.error = info
        result.elapsed_ms = (time.perf_counter() - started) * 1000
        return result

    def _fetch(self, conn: Connection, text: str, row_cap: int) -> Fetched:
        """Rows read incrementally from a streaming cursor (the DBAPI's own: with no parameters no driver
        reads '%' or ':' as a placeholder)."""
        raw: Any = conn.connection.dbapi_connection  # the driver's connection (never None while checked out)
        if self.backend == "postgresql":
            cursor = raw.cursor()
            stream = cursor.stream(text)
            try:
                first = next(stream, None)
                columns = [d[0] for d in cursor.description or ()]
                fetched = bounded_rows(stream_batches(_chain(first, stream)) if first is not None else iter(()), row_cap)
            finally:
                stream.close()  # stops (cancels) a query whose rows were not all read
            if first is None:
                # a stream with no rows forgets its columns: describe them (LIMIT 0 evaluates no row)
                cursor.execute(f"SELECT * FROM ({text}) AS described LIMIT 0")
                columns = [d[0] for d in cursor.description or ()]
            cursor.close()
            fetched.columns = columns
            return fetched
        if self.backend == "mysql":
            import pymysql.cursors

            cursor = raw.cursor(pymysql.cursors.SSCursor)
            cursor.execute(text)
            fetched = bounded_rows(batches_of(cursor), row_cap)
            fetched.columns = [d[0] for d in cursor.description or ()]
            if fetched.complete:
                cursor.close()
            else:
                pending = getattr(cursor, "_result", None)
                if pending is not None:
                    pending.unbuffered_active = False  # the connection is closed instead of drained
                cursor._result = None
            return fetched
        cursor = raw.cursor()
        try:
            cursor.execute(text)
            fetched = bounded_rows(batches_of(cursor), row_cap)
            fetched.columns = [d[0] for d in cursor.description or ()]
            return fetched
        finally:
            cursor.close()

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
    def _guard(self, conn: Connection, limit: Limits | float) -> Iterator[Any]:
        """Read-only and time limit for one statement; yields a function that prepares its text."""
        seconds = limit.time_limit_s if isinstance(limit, Limits) else limit
        ms = max(1, int(seconds * 1000))
        if self.backend == "postgresql":
            # no JIT: a statement of the checker runs for seconds at most, and compiling a long expression (a
            # series' CASE tree) cost more than the query itself (7 s of a 10 s run on 2.8M rows). The three
            # settings go in one round trip (without parameters psycopg sends the text as one simple query)
            conn.exec_driver_sql(f"SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = {ms}; SET LOCAL jit = off")
            yield lambda text: text
        elif self.backend == "mysql":
            conn.exec_driver_sql("START TRANSACTION READ ONLY")
            if getattr(conn.dialect, "is_mariadb", False):
                limit_s = f"{ms / 1000:.3f}"
                yield lambda text: f"SET STATEMENT max_statement_time={limit_s} FOR {text}"
            else:
                conn.exec_driver_sql(f"SET SESSION max_execution_time = {ms}")
                yield lambda text: text
        else:
            # a timer calling interrupt(), not a progress handler: a Python callback every few
            # thousand VM steps must take the GIL each time, which stalls every other engine's thread;
            # the process's one watchdog thread, not a thread per statement (`adapters.watchdog`)
            raw: Any = conn.connection.driver_connection
            conn.exec_driver_sql("PRAGMA query_only = ON")
            timer = watchdog.call_later(seconds, raw.interrupt)
            try:
                yield lambda text: text
            finally:
                timer.cancel()

    def ping(self) -> EngineErrorInfo | None:
        """None when the engine answers `SELECT 1`, else what went wrong."""
        result = self.run("SELECT 1", Limits(time_limit_s=3.0, row_cap=1))
        return None if result.ok else result.error


def _chain(first: Any, rest: Iterator[Any]) -> Iterator[Any]:
    yield first
    yield from rest
