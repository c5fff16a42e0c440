"""Per-table checksums that are equal across engines when the stored rows are equal.

Drivers return different Python types for the same stored value (SQLite gives REAL/INTEGER and
text for money and timestamps, PostgreSQL and MySQL give ``Decimal`` and ``datetime``), so each
value is normalised by its column's declared type before hashing: NUMERIC -> ``f"{float(v):.6f}"``,
INTEGER -> decimal digits, DATE -> ``YYYY-MM-DD``, TIMESTAMP -> ``YYYY-MM-DD HH:MM:SS``, NULL -> "",
text as is. Rows are read in primary-key order, unit-separated and newline-terminated, and streamed
into SHA-256 so a million-row table is never held in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL

from adapters import urls

from .connect import display_url, make_engine, parse_url
from .errors import SeedError, translate_errors
from .schema import primary_key_columns
from .schemas import schema_named

_FETCH_ROWS = 10_000


def table_checksums(url: str | URL, schema: str = "demo") -> dict[str, str]:
    """SHA-256 hex digest per table of ``schema`` (in creation order) of its normalised rows."""
    target = parse_url(url)
    shown = display_url(target)
    md = schema_named(schema).metadata()
    with translate_errors(f"cannot checksum {shown}", urls.secrets_of(target), shown):
        engine = make_engine(target)
        try:
            with engine.connect() as conn:
                present = set(sa.inspect(conn).get_table_names())
                missing = [name for name in md.tables if name not in present]
                if missing:
                    raise SeedError(f"{shown} is not seeded: missing tables {', '.join(missing)}")
                return {name: _table_digest(conn, table) for name, table in md.tables.items()}
        finally:
            engine.dispose()


def _table_digest(conn: sa.Connection, table: sa.Table) -> str:
    # Untyped columns: no SQLAlchemy result processing, so normalisation sees the driver's values.
    columns: list[sa.ColumnClause[Any]] = [sa.column(c.name) for c in table.columns]
    order: list[sa.ColumnClause[Any]] = [sa.column(name) for name in primary_key_columns(table)]
    query = sa.select(*columns).select_from(sa.table(table.name)).order_by(*order)
    normalisers = [_normaliser(c.type) for c in table.columns]
    digest = hashlib.sha256()
    result = conn.execution_options(stream_results=True).execute(query)
    for rows in result.partitions(_FETCH_ROWS):
        for row in rows:
            line = "\x1f".join("" if v is None else f(v) for f, v in zip(normalisers, row))
            digest.update(line.encode())
            digest.update(b"\n")
    return digest.hexdigest()


def _normaliser(column_type: sa.types.TypeEngine) -> Callable[[object], str]:
    if isinstance(column_type, sa.Numeric):
        return lambda v: f"{float(v):.6f}"  # type: ignore[arg-type]
    if isinstance(column_type, sa.Integer):
        return lambda v: str(int(v))  # type: ignore[call-overload]
    if isinstance(column_type, sa.DateTime):
        return _timestamp_text
    if isinstance(column_type, sa.Date):
        return _date_text
    return str


def _timestamp_text(value: object) -> str:
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M:%S")
    return str(value).replace("T", " ")[:19]


def _date_text(value: object) -> str:
    if isinstance(value, (date, datetime)):
        return value.strftime("%Y-%m-%d")
    return str(value)[:10]
