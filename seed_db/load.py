"""Bulk loaders, one per engine, each using the fastest path its driver offers.

All three follow the same shape: drop the seed tables, create them, stream every table except
``seed_info`` in, build indexes (and, where the engine allows, foreign keys) after the data is in,
then write ``seed_info`` last. ``seed_info`` is the "load completed" marker the idempotency check
trusts, so it must never exist next to half-loaded tables.

* PostgreSQL: one transaction (DDL is transactional); ``COPY ... FROM STDIN`` through psycopg's
  ``write_row``; indexes and FK constraints added after the copy; ANALYZE.
* MySQL/MariaDB: DDL commits implicitly, so per-table commits; ``executemany`` with batches of
  5,000 rows, which PyMySQL rewrites into multi-row INSERTs; foreign-key and unique checks off for
  the session; indexes and FKs added after the load (in place, since checks are off).
* SQLite: one transaction of ``executemany``; TIMESTAMP stored as ``'YYYY-MM-DD HH:MM:SS'`` and
  DATE as ``'YYYY-MM-DD'`` text so ``date()``/``strftime()`` work; money as a NUMERIC value (REAL,
  or INTEGER when whole). SQLite cannot add constraints later, so FKs are inline (not enforced
  unless ``PRAGMA foreign_keys=ON``); indexes are built after the load.

Each loader returns the number of rows written per table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import date, datetime
from decimal import Decimal
from itertools import islice
from typing import Any, Protocol

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.schema import AddConstraint, CreateIndex, CreateTable

from .connect import backend_of

MYSQL_BATCH_ROWS = 5_000
_MARKER_TABLE = "seed_info"


class Source(Protocol):
    """What a loader needs from a generator: the schema (tables in creation order, the ``seed_info``
    marker last) and the rows of each table in column order."""

    def metadata(self) -> sa.MetaData: ...

    def rows(self, table: str) -> Iterator[tuple]: ...


def load_dataset(engine: Engine, dataset: Source) -> dict[str, int]:
    """Drop and rebuild all of ``dataset``'s tables behind ``engine``."""
    loaders: dict[str, Callable[[Engine, Source], dict[str, int]]] = {
        "sqlite": load_sqlite,
        "postgresql": load_postgresql,
        "mysql": load_mysql,
    }
    return loaders[backend_of(engine.url)](engine, dataset)


# ---- PostgreSQL --------------------------------------------------------------------------------


def load_postgresql(engine: Engine, dataset: Source) -> dict[str, int]:
    md = dataset.metadata()
    ddl = _Compiler(engine)
    raw = engine.raw_connection()
    conn: Any = raw.driver_connection  # psycopg.Connection (typed Any | None by SQLAlchemy)
    try:
        with conn.cursor() as cur:
            counts = _rebuild(cur, md, ddl, dataset, drop_suffix=" CASCADE", inline_foreign_keys=False,
                              insert=lambda table, rows: _copy(cur, ddl, table, rows))
            for name in md.tables:
                cur.execute(f"ANALYZE {ddl.quote(name)}")
        conn.commit()
    except BaseException:
        conn.rollback()
        raise
    finally:
        raw.close()
    return counts


def _copy(cur: Any, ddl: _Compiler, table: sa.Table, rows: Iterable[tuple]) -> int:
    columns = ", ".join(ddl.quote(c.name) for c in table.columns)
    n = 0
    with cur.copy(f"COPY {ddl.quote(table.name)} ({columns}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)
            n += 1
    return n


# ---- MySQL / MariaDB ---------------------------------------------------------------------------


def load_mysql(engine: Engine, dataset: Source) -> dict[str, int]:
    md = dataset.metadata()
    ddl = _Compiler(engine)
    raw = engine.raw_connection()
    conn: Any = raw.driver_connection  # pymysql.Connection
    try:
        cur = conn.cursor()
        cur.execute("SET SESSION foreign_key_checks = 0")
        cur.execute("SET SESSION unique_checks = 0")
        counts = _rebuild(cur, md, ddl, dataset, drop_suffix="", inline_foreign_keys=False,
                          insert=lambda table, rows: _insert_batches(conn, cur, ddl, table, rows))
        cur.execute("SET SESSION unique_checks = 1")
        cur.execute("SET SESSION foreign_key_checks = 1")
        cur.close()
    except BaseException:
        conn.rollback()
        raise
    finally:
        raw.close()
    return counts


def _insert_batches(conn: Any, cur: Any, ddl: _Compiler, table: sa.Table, rows: Iterable[tuple]) -> int:
    columns = ", ".join(ddl.quote(c.name) for c in table.columns)
    marks = ", ".join(["%s"] * len(table.columns))
    sql = f"INSERT INTO {ddl.quote(table.name)} ({columns}) VALUES ({marks})"
    n = 0
    for batch in _batches(rows, MYSQL_BATCH_ROWS):
        cur.executemany(sql, batch)
        n += len(batch)
    conn.commit()
    return n


# ---- SQLite ------------------------------------------------------------------------------------


def load_sqlite(engine: Engine, dataset: Source) -> dict[str, int]:
    md = dataset.metadata()
    ddl = _Compiler(engine)
    raw = engine.raw_connection()
    conn: Any = raw.driver_connection  # sqlite3.Connection
    try:
        cur = conn.cursor()
        if not conn.in_transaction:
            cur.execute("BEGIN")
        counts = _rebuild(cur, md, ddl, dataset, drop_suffix="", inline_foreign_keys=True,
                          insert=lambda table, rows: _executemany_sqlite(cur, ddl, table, rows))
        cur.execute("ANALYZE")
        conn.commit()
        cur.close()
    except BaseException:
        conn.rollback()
        raise
    finally:
        raw.close()
    return counts


def _executemany_sqlite(cur: Any, ddl: _Compiler, table: sa.Table, rows: Iterable[tuple]) -> int:
    columns = ", ".join(ddl.quote(c.name) for c in table.columns)
    marks = ", ".join(["?"] * len(table.columns))
    counter = _Counter(_sqlite_rows(table, rows))
    cur.executemany(f"INSERT INTO {ddl.quote(table.name)} ({columns}) VALUES ({marks})", counter)
    return counter.count


def _sqlite_value(value: object) -> object:
    """The SQLite storage form: text for DATE/TIMESTAMP, float for NUMERIC, the rest unchanged."""
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, Decimal):
        return float(value)
    return value


def _sqlite_rows(table: sa.Table, rows: Iterable[tuple]) -> Iterator[tuple]:
    converted = [
        i for i, c in enumerate(table.columns) if isinstance(c.type, (sa.DateTime, sa.Date, sa.Numeric))
    ]
    if not converted:
        yield from rows
        return
    for row in rows:
        values = list(row)
        for i in converted:
            values[i] = _sqlite_value(values[i])
        yield tuple(values)


# ---- shared ------------------------------------------------------------------------------------


class _Compiler:
    """Compiles DDL elements and quotes identifiers for one engine's dialect."""

    def __init__(self, engine: Engine) -> None:
        self.dialect = engine.dialect

    def __call__(self, element: sa.schema.ExecutableDDLElement) -> str:
        return str(element.compile(dialect=self.dialect)).strip()

    def quote(self, name: str) -> str:
        return self.dialect.identifier_preparer.quote(name)


class _Counter:
    """Wraps an iterable and counts what was drawn from it (executemany reports no total)."""

    def __init__(self, rows: Iterable[tuple]) -> None:
        self._rows = iter(rows)
        self.count = 0

    def __iter__(self) -> _Counter:
        return self

    def __next__(self) -> tuple:
        row = next(self._rows)
        self.count += 1
        return row


def _rebuild(cur: Any, md: sa.MetaData, ddl: _Compiler, dataset: Source, *, drop_suffix: str,
             inline_foreign_keys: bool, insert: Callable[[sa.Table, Iterable[tuple]], int]) -> dict[str, int]:
    """The shape every loader shares: drop, create, stream the data, index (and add foreign keys where the
    engine can add them later), then write the ``seed_info`` marker last. Returns rows per table."""
    for name in reversed(tuple(md.tables)):
        cur.execute(f"DROP TABLE IF EXISTS {ddl.quote(name)}{drop_suffix}")
    for table in md.sorted_tables:
        create = CreateTable(table) if inline_foreign_keys else CreateTable(table, include_foreign_key_constraints=[])
        cur.execute(ddl(create))
    counts = {name: insert(table, dataset.rows(name)) for name, table in md.tables.items() if name != _MARKER_TABLE}
    for statement in _index_and_fk_ddl(md, ddl, foreign_keys=not inline_foreign_keys):
        cur.execute(statement)
    counts[_MARKER_TABLE] = insert(md.tables[_MARKER_TABLE], dataset.rows(_MARKER_TABLE))
    return counts


def _index_and_fk_ddl(md: sa.MetaData, ddl: _Compiler, *, foreign_keys: bool = True) -> list[str]:
    """CREATE INDEX for every index, then (optionally) ADD CONSTRAINT for every foreign key."""
    statements = []
    for table in md.sorted_tables:
        for index in sorted(table.indexes, key=lambda ix: ix.name or ""):
            statements.append(ddl(CreateIndex(index)))
    if foreign_keys:
        for table in md.sorted_tables:
            for fk in sorted(table.foreign_key_constraints, key=lambda c: str(c.name or "")):
                statements.append(ddl(AddConstraint(fk)))
    return statements


def _batches(rows: Iterable[tuple], size: int) -> Iterator[list[tuple]]:
    iterator = iter(rows)
    while batch := list(islice(iterator, size)):
        yield batch
