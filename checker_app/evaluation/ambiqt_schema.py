"""An AmbiQT record's schema text, and the small SQLite database built from it.

The text lists each table's columns with three sample values (https://github.com/testzer0/AmbiQT, MIT)::

    department : creation ("1849", "1903", "1966"), budget_in_billions (21.5, 23.4, 44.6) | head : ...

`parse_schema` reads it: quoted values may hold commas, parentheses and stray quotes, and a column name may
carry its own parenthesised part (`weight (kg) (8.38, 7.39, 7.39)`). `build_database` writes one SQLite file
with SQLAlchemy metadata: a table per entry, column types from the values (INTEGER, REAL, else TEXT), row i
made of the i-th value of every column (NULL where a column lists fewer). No keys are declared: the samples
repeat key values, and the record names no foreign keys.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa

from adapters import CheckerError

_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_NAME = re.compile(r"[^(,|]*")
_BARE = re.compile(r"[^,)]*")
_VALUE_END = re.compile(r'\s*(?:,\s*(?=["\-\d.N])|\)\s*(?:,|\||\(|$))')
_TYPES: dict[str, Any] = {"INTEGER": sa.Integer, "REAL": sa.Float, "TEXT": sa.Text}


class AmbiqtError(CheckerError, ValueError):
    """A record or a schema text that cannot be read or built."""


@dataclass
class Column:
    name: str
    values: list[Any] = field(default_factory=list)   # str | int | float | None
    quoted: bool = False                              # at least one value was a quoted string

    @property
    def type(self) -> str:
        present = [v for v in self.values if v is not None]
        if self.quoted or not present:
            return "TEXT"
        if all(isinstance(v, int) for v in present):
            return "INTEGER"
        return "REAL"


@dataclass
class Table:
    name: str
    columns: list[Column] = field(default_factory=list)

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name.lower() == name.lower()), None)

    def rows(self) -> list[tuple[Any, ...]]:
        count = max((len(c.values) for c in self.columns), default=0)
        return [tuple(c.values[i] if i < len(c.values) else None for c in self.columns) for i in range(count)]


def parse_schema(text: str) -> list[Table]:
    """`t : c (v, v), c2 (v) | t2 : ...` as tables with their sample values."""
    if not isinstance(text, str) or " : " not in text:
        raise AmbiqtError("schema text: expected 'table : column (values), ... | table : ...'")
    reader = _Reader(text)
    tables: list[Table] = []
    while not reader.done():
        name = reader.until(" : ").strip()
        if not name:
            raise AmbiqtError(f"schema text: empty table name at {reader.pos}")
        table = Table(name)
        while True:
            column = reader.column()
            if column is not None:
                table.columns.append(column)
            if reader.take(", "):
                continue
            if reader.take(" | ") or reader.take(" |") or reader.done():
                break
            raise AmbiqtError(f"schema text: unexpected {reader.text[reader.pos:reader.pos + 20]!r} at {reader.pos}")
        if not table.name.lower().startswith("sqlite_"):  # SQLite's own tables cannot be created
            tables.append(table)
    return tables


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text.strip(), 0

    def done(self) -> bool:
        return self.pos >= len(self.text)

    def take(self, token: str) -> bool:
        if self.text.startswith(token, self.pos):
            self.pos += len(token)
            return True
        return False

    def until(self, token: str) -> str:
        end = self.text.find(token, self.pos)
        if end < 0:
            raise AmbiqtError(f"schema text: expected {token!r} after {self.pos}")
        value, self.pos = self.text[self.pos:end], end + len(token)
        return value

    def column(self) -> Column | None:
        """A column name and its values; a parenthesised group followed by another one is part of the name."""
        start = self.pos
        match = _NAME.match(self.text, self.pos)
        self.pos += len(match.group(0)) if match else 0
        while True:
            group = self.pos
            column = self.values(Column(self.text[start:group].strip()))
            if self.pos == group or not re.match(r"\s*\(", self.text[self.pos:]):
                break
            self.pos += len(self.text[self.pos:]) - len(self.text[self.pos:].lstrip())
        return column if column.name else None

    def values(self, column: Column) -> Column:
        if not self.take("("):
            return column
        while not self.take(")"):
            self.take(" ")
            if self.text.startswith('"', self.pos):
                column.values.append(self._quoted())
                column.quoted = True
            else:
                raw = _BARE.match(self.text, self.pos).group(0)  # type: ignore[union-attr]  # always matches
                self.pos += len(raw)
                column.values.append(_scalar(raw.strip()))
            self.take(",")
            if self.done():
                raise AmbiqtError(f"schema text: unclosed values of {column.name!r}")
        return column

    def _quoted(self) -> str:
        start = self.pos + 1
        search = start
        while True:
            end = self.text.find('"', search)
            if end < 0:
                raise AmbiqtError(f"schema text: unclosed string at {self.pos}")
            if _VALUE_END.match(self.text, end + 1) or end + 1 >= len(self.text):
                self.pos = end + 1
                return self.text[start:end]
            search = end + 1


def _scalar(raw: str) -> Any:
    if raw in ("", "None", "null", "NULL"):
        return None
    if _NUMBER.fullmatch(raw):
        number = float(raw)
        return int(number) if re.fullmatch(r"-?\d+", raw) else number
    return raw


def metadata_of(tables: Sequence[Table]) -> sa.MetaData:
    """The tables as SQLAlchemy metadata (names quoted by SQLAlchemy; a duplicate name is an AmbiqtError)."""
    metadata = sa.MetaData()
    for table in tables:
        columns = [sa.Column(c.name, _TYPES[c.type]) for c in table.columns] or [sa.Column("_", sa.Text)]
        try:
            sa.Table(table.name, metadata, *columns)
        except (sa.exc.ArgumentError, sa.exc.InvalidRequestError) as err:
            raise AmbiqtError(f"table {table.name!r}: {str(err).splitlines()[0]}") from None
    return metadata


def build_database(tables: Sequence[Table], path: str | Path) -> str:
    """Write `tables` into a new SQLite file at `path` (values bound as parameters); returns its URL."""
    path = Path(path)
    path.unlink(missing_ok=True)
    metadata = metadata_of(tables)
    url = f"sqlite:///{path}"
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            metadata.create_all(conn)
            for table in tables:
                rows = table.rows()
                if rows and table.columns:
                    target = metadata.tables[table.name]
                    keys = [c.key for c in target.columns]
                    conn.execute(target.insert(), [dict(zip(keys, row)) for row in rows])
    except sa.exc.SQLAlchemyError as err:
        raise AmbiqtError(f"cannot build the database: {str(err.orig if hasattr(err, 'orig') else err)}") from None
    finally:
        engine.dispose()
    return url
