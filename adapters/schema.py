"""Introspection into plain dataclasses: tables, columns, keys, row counts, sampled text values.

Works on any schema the engine reports (the demo database, Chinook, Northwind, anything else).
Bounded on large tables: a table the engine's statistics put above ``LARGE_TABLE_ROWS`` keeps that
estimate as its row count (no ``COUNT(*)``), and its text values are sampled from about
``SAMPLE_ROWS`` rows instead of a scan per column. Smaller tables are counted and sampled exactly.

The sample is the same rows on every engine holding the same data: ``SAMPLE_WINDOWS`` runs of consecutive
keys at evenly spaced points of a one-column integer key's range (an index range each), else the first
rows in key order; its values are counted and ordered in Python (by count, then by code point), never by
an engine's collation. A block sample (PostgreSQL ``TABLESAMPLE``) or storage order gave each engine other
values, so the same question could fire an archetype on one engine and not on another (two currency
codes seen on one, one on the other).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from sqlalchemy.exc import SQLAlchemyError

from adapters.catalog import CatalogSnapshot, snapshot
from adapters.column_types import family_of_name, family_of_type, sqlite_family
from adapters.errors import IntrospectionError

SAMPLE_VALUES = 50          # distinct values kept per text column
SAMPLE_MAX_LENGTH = 80      # longer texts are descriptions, not names: not sampled
LARGE_TABLE_ROWS = 50_000   # above this estimate: no COUNT(*), sampled text values
SAMPLE_ROWS = 20_000        # rows read for a large table's text values
SAMPLE_WINDOWS = 20         # runs of consecutive keys the sampled rows come in


def type_family(type_text: str, dialect: str | None = None) -> str:
    """numeric | temporal | text | boolean | other, from a type written as text (``adapters.column_types``)."""
    return family_of_name(type_text, dialect)


@dataclass
class ColumnInfo:
    name: str
    type: str
    family: str
    nullable: bool = True
    samples: list[str] = field(default_factory=list)  # distinct text values, bounded

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "type": self.type, "family": self.family, "nullable": self.nullable}


@dataclass
class ForeignKey:
    columns: list[str]
    ref_table: str
    ref_columns: list[str]


@dataclass
class TableInfo:
    name: str
    columns: list[ColumnInfo]
    primary_key: list[str] = field(default_factory=list)
    foreign_keys: list[ForeignKey] = field(default_factory=list)
    row_count: int = 0
    estimated: bool = False   # row_count is the engine's estimate (a large table)

    def column(self, name: str) -> ColumnInfo | None:
        lowered = name.lower()
        return next((c for c in self.columns if c.name.lower() == lowered), None)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "row_count": self.row_count,
            "primary_key": list(self.primary_key),
            "columns": [c.to_dict() for c in self.columns],
            "foreign_keys": [{"columns": fk.columns, "ref_table": fk.ref_table, "ref_columns": fk.ref_columns}
                             for fk in self.foreign_keys],
        }


@dataclass
class SchemaInfo:
    tables: list[TableInfo]
    dialect: str = ""

    def table(self, name: str) -> TableInfo | None:
        lowered = name.lower()
        return next((t for t in self.tables if t.name.lower() == lowered), None)

    def column_map(self) -> dict[str, dict[str, str]]:
        """{table: {column: type}} as sqlglot's optimizer wants it."""
        return {t.name: {c.name: c.type for c in t.columns} for t in self.tables}

    def to_dict(self) -> dict[str, Any]:
        return {"dialect": self.dialect, "tables": [t.to_dict() for t in self.tables]}


def introspect(engine: sa.Engine, *, dialect: str = "", sample_values: int = SAMPLE_VALUES,
               schema: str | None = None, catalog: CatalogSnapshot | None = None) -> SchemaInfo:
    """Read tables, columns, keys, row counts and text samples. Read-only catalog and SELECT queries.

    ``catalog`` (default: read here for the default schema) gives the row estimates that bound the work.
    """
    try:
        if catalog is None and schema is None:
            with engine.connect() as conn:
                catalog = snapshot(conn)
                conn.rollback()
        estimates = catalog.rows if catalog is not None else {}
        inspector = sa.inspect(engine)
        names = sorted(inspector.get_table_names(schema=schema))
        tables: list[TableInfo] = []
        declared = _sqlite_declared(engine, names, schema) if engine.dialect.name == "sqlite" else {}
        known = frozenset(getattr(engine.dialect, "ischema_names", {}))
        for name in names:
            columns = [
                ColumnInfo(name=c["name"], type=str(c["type"]), nullable=bool(c.get("nullable", True)),
                           family=sqlite_family(declared[(name, c["name"])], c["type"], known)
                           if (name, c["name"]) in declared else family_of_type(c["type"]))
                for c in inspector.get_columns(name, schema=schema)
            ]
            pk = inspector.get_pk_constraint(name, schema=schema).get("constrained_columns") or []
            fks = [
                ForeignKey(list(fk["constrained_columns"]), fk["referred_table"], list(fk["referred_columns"]))
                for fk in inspector.get_foreign_keys(name, schema=schema)
                if fk.get("referred_table")
            ]
            tables.append(TableInfo(name=name, columns=columns, primary_key=list(pk), foreign_keys=fks))
        with engine.connect() as conn:
            for table in tables:
                _count_and_sample(conn, table, sample_values, schema, estimates.get(table.name))
            conn.rollback()
    except SQLAlchemyError as err:
        message = str(getattr(err, "orig", err)).splitlines()[0] if str(err) else type(err).__name__
        raise IntrospectionError(f"cannot read the schema: {message}") from None
    return SchemaInfo(tables=tables, dialect=dialect)


def _sqlite_declared(engine: sa.Engine, names: list[str], schema: str | None) -> dict[tuple[str, str], str]:
    """{(table, column): the type name as declared} (SQLAlchemy reflects the affinity, not the name)."""
    quote = engine.dialect.identifier_preparer.quote
    prefix = f"{quote(schema)}." if schema else ""
    found: dict[tuple[str, str], str] = {}
    with engine.connect() as conn:
        for name in names:
            for row in conn.exec_driver_sql(f"PRAGMA {prefix}table_info({quote(name)})"):
                found[(name, str(row[1]))] = str(row[2] or "")
        conn.rollback()
    return found


def _count_and_sample(conn: sa.Connection, table: TableInfo, limit: int, schema: str | None,
                      estimate: int | None) -> None:
    sa_table = sa.table(table.name, *[sa.column(c.name) for c in table.columns], schema=schema)
    if estimate is not None and estimate > LARGE_TABLE_ROWS:
        table.row_count, table.estimated = estimate, True
    else:
        table.row_count = int(conn.execute(sa.select(sa.func.count()).select_from(sa_table)).scalar() or 0)
    if limit <= 0 or table.row_count == 0:
        return
    texts = [c for c in table.columns if c.family == "text"]
    if not table.estimated:
        _sample_flags(conn, sa_table, table)
    if table.estimated and texts:
        _sample_large(conn, sa_table, table, texts, limit)
        return
    exact = conn.dialect.name in ("mysql", "mariadb")
    for column in texts:
        col = sa_table.c[column.name]
        # MariaDB's default collation folds accents and case: 'Maria Garcia' and 'María García' would group into
        # one value, so the profile would hold other values than the other engines'; grouped byte for byte there
        value: Any = sa.collate(sa.cast(col, sa.CHAR), "utf8mb4_bin") if exact else col
        query = (sa.select(value).where(col.is_not(None)).group_by(value)
                 .order_by(sa.func.count().desc(), value).limit(limit + 1))
        values = [str(v) for (v,) in conn.execute(query)]
        if any(len(v) > SAMPLE_MAX_LENGTH for v in values):
            continue
        column.samples = values[:limit]


# an integer column named like a yes/no ('paid', 'is_active', 'has_discount'): SQLite has no boolean type
_FLAG_NAME = re.compile(r"^(?:is|has|can|was)_[a-z_]+$|^[a-z]+ed$|^(?:paid|active|enabled|flag|deleted|archived|"
                        r"verified|overdue|late|open|closed|refunded|cancelled|canceled|discontinued|returned)$",
                        re.IGNORECASE)


def _sample_flags(conn: sa.Connection, sa_table: sa.TableClause, table: TableInfo) -> None:
    """The distinct values of integer columns named like a yes/no, kept when they are only 0 and 1 (so the
    question's 'unpaid fines' can be read as a condition on `paid`)."""
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    for column in table.columns:
        if column.family != "numeric" or column.name in keys or "int" not in column.type.lower() and \
                "bool" not in column.type.lower() or not _FLAG_NAME.match(column.name):
            continue
        col = sa_table.c[column.name]
        values = {str(v) for (v,) in conn.execute(sa.select(col).where(col.is_not(None)).group_by(col).limit(3))}
        if values and values <= {"0", "1"}:
            column.samples = sorted(values)


def _sample_large(conn: sa.Connection, sa_table: sa.TableClause, table: TableInfo, texts: list[ColumnInfo],
                  limit: int) -> None:
    """Every text column's most frequent values among the sampled rows (one read of the table)."""
    counts: list[Counter[str]] = [Counter() for _ in texts]
    for row in conn.execute(_sample_query(conn, sa_table, table, texts)):
        for counter, value in zip(counts, row):
            if value is not None:
                counter[str(value)] += 1
    for column, counter in zip(texts, counts):
        values = [v for v, _ in sorted(counter.items(), key=lambda item: (-item[1], item[0]))[: limit + 1]]
        if values and not any(len(v) > SAMPLE_MAX_LENGTH for v in values):
            column.samples = values[:limit]


def _sample_query(conn: sa.Connection, sa_table: sa.TableClause, table: TableInfo,
                  texts: list[ColumnInfo]) -> sa.Select[Any]:
    """About SAMPLE_ROWS rows, the same on every engine: key windows spread over the key's range, else the
    first rows in key order."""
    columns = [sa_table.c[c.name] for c in texts]
    key_info = table.column(table.primary_key[0]) if len(table.primary_key) == 1 else None
    if key_info is not None and key_info.family == "numeric" and "INT" in key_info.type.upper():
        key = sa_table.c[key_info.name]
        low, high = conn.execute(sa.select(sa.func.min(key), sa.func.max(key))).one()
        if low is not None and high is not None:
            low, high = int(low), int(high)
            width = max(1, SAMPLE_ROWS // SAMPLE_WINDOWS)
            step = max(width, (high - low + 1) // SAMPLE_WINDOWS)
            windows = [sa.select(*columns).where(key >= start, key < start + width)
                       for start in range(low, high + 1, step)][:SAMPLE_WINDOWS]
            return sa.union_all(*windows) if len(windows) > 1 else windows[0]  # type: ignore[return-value]
    order = [sa_table.c[name] for name in table.primary_key] or columns
    return sa.select(*columns).order_by(*order).limit(SAMPLE_ROWS)
