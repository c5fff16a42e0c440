"""A column's type family (numeric | temporal | text | boolean | other) from SQLAlchemy's type objects.

The family decides what the archetypes may do with a column: sum or average it (numeric), window it by
time (temporal), match its values against the question (text), and nothing at all (other). Reading it
from substrings of the type's name put INTERVAL, POINT and INT4RANGE among the numbers ("INT"), so the
reflected type object is read instead, through ordered tables below (data: adding a type is adding a line).

* ``family_of_type``: a reflected SQLAlchemy type (PostgreSQL, MariaDB, anything SQLAlchemy reflects).
* ``family_of_name``: a type written as text (a CAST in SQL, a type SQLAlchemy does not know), read by
  sqlglot's type parser, which knows the names of every dialect it speaks.
* ``sqlite_family``: SQLite keeps the declared name and gives it an affinity; SQLAlchemy resolves names it
  does not know by SQLite's affinity rules (``INTERVAL`` and ``POINT`` contain "INT": INTEGER affinity),
  so an unknown declared name is read as a type name first and by its affinity only when nothing knows it.
"""
from __future__ import annotations

import re
from functools import lru_cache
from typing import Any, Literal

import sqlalchemy as sa
from sqlalchemy.dialects import mysql, postgresql
from sqlalchemy.types import TypeEngine
from sqlglot import exp
from sqlglot.errors import ParseError

Family = Literal["numeric", "temporal", "text", "boolean", "other"]

# First match wins: the specific types come before the generic classes they subclass (a MariaDB SET is a
# String whose values are comma-joined member lists, so an equality on one member misses rows).
_BY_CLASS: tuple[tuple[type[TypeEngine], Family], ...] = (
    (sa.types.NullType, "other"),          # a type SQLAlchemy could not reflect (PostgreSQL POINT, XML)
    (sa.types.Boolean, "boolean"),
    (sa.types.Interval, "other"),          # a duration, not a moment and not a summable figure
    (postgresql.INTERVAL, "other"),
    (postgresql.ranges.AbstractRange, "other"),   # INT4RANGE, TSRANGE, DATERANGE, multiranges
    (sa.types.JSON, "other"),              # JSON, JSONB
    (sa.types.ARRAY, "other"),
    (sa.types.Uuid, "other"),              # an identifier: never a value a question names
    (sa.types.LargeBinary, "other"),
    (mysql.SET, "other"),
    (mysql.YEAR, "other"),                 # a year number: neither a moment to window nor a figure to sum
    (postgresql.MONEY, "numeric"),
    (sa.types.Date, "temporal"),
    (sa.types.DateTime, "temporal"),
    (sa.types.Time, "temporal"),
    (sa.types.Numeric, "numeric"),
    (sa.types.Float, "numeric"),
    (sa.types.Integer, "numeric"),
    (sa.types.String, "text"),             # VARCHAR, TEXT, CHAR, NVARCHAR, CITEXT, ENUM
)

_DT = exp.DataType.Type
# sqlglot's own groups of its type names, with the exceptions spelled out.
_BY_NAME: tuple[tuple[frozenset[Any], Family], ...] = (
    (frozenset({_DT.BOOLEAN}), "boolean"),
    (frozenset(exp.DataType.TEMPORAL_TYPES), "temporal"),
    (frozenset(exp.DataType.NUMERIC_TYPES - {_DT.BIT}), "numeric"),
    (frozenset(exp.DataType.TEXT_TYPES | {_DT.ENUM, _DT.ENUM8, _DT.ENUM16}), "text"),
)

# Names no sqlglot dialect parses as a type, by their base name.
_EXTRA_NAMES: dict[str, Family] = {"SERIAL": "numeric", "BIGSERIAL": "numeric", "SMALLSERIAL": "numeric",
                                   "CITEXT": "text"}

_SQLITE_NAME = re.compile(r"([\w ]+)(\(.*?\))?")
# Each dialect of sqlglot knows its own engine's names (MONEY in postgres, DATETIME2 in tsql): a name
# that is not the connection's own is looked up in these, in order.
_NAME_DIALECTS = ("postgres", "mysql", "tsql", "duckdb", "oracle", "snowflake")


def family_of_type(type_: TypeEngine) -> Family:
    """The family of a reflected SQLAlchemy type object."""
    if isinstance(type_, postgresql.DOMAIN):
        return family_of_type(type_.data_type)
    if isinstance(type_, (postgresql.BIT, mysql.BIT)):
        return "boolean" if (type_.length or 1) == 1 and not getattr(type_, "varying", False) else "other"
    if isinstance(type_, mysql.TINYINT) and type_.display_width == 1:
        return "boolean"                   # MariaDB's BOOLEAN is TINYINT(1)
    for kind, family in _BY_CLASS:
        if isinstance(type_, kind):
            return family
    return "other"


def family_of_name(text: str, dialect: str | None = None) -> Family:
    """The family of a type written as text; "other" for a name no dialect knows."""
    extra = _EXTRA_NAMES.get(_base_name(text))
    if extra is not None:
        return extra
    parsed = _parse_type(text, dialect)
    if parsed is None:
        return "other"
    if parsed.this == _DT.BIT:
        size = parsed.expressions[0].name if parsed.expressions else "1"
        return "boolean" if size == "1" else "other"
    return next((family for names, family in _BY_NAME if parsed.this in names), "other")


def sqlite_family(declared: str, reflected: TypeEngine, known: set[str] | frozenset[str]) -> Family:
    """The family of a SQLite column declared as `declared` that SQLAlchemy reflected as `reflected`.

    ``known``: the declared names SQLAlchemy's SQLite dialect maps to a type (``dialect.ischema_names``);
    any other name got a type from SQLite's affinity rules, which is a storage rule, not what the column holds.
    """
    base = _base_name(declared)
    if not base or base in known:
        return family_of_type(reflected)
    if base not in _EXTRA_NAMES and _parse_type(declared, "sqlite") is None:
        return family_of_type(reflected)   # 'UNSIGNED BIG INT': a name only SQLite's affinity rule reads
    return family_of_name(declared, "sqlite")


def _base_name(text: str) -> str:
    match = _SQLITE_NAME.match(text.strip().upper())
    return match.group(1).strip() if match else ""


@lru_cache(maxsize=4096)
def _parse_type(text: str, dialect: str | None) -> exp.DataType | None:
    """The type `text` names, read by sqlglot (in `dialect`, then the others); parsed once per text and
    dialect (the reading signature and the time columns ask for each column's type on every check, and a
    parse is 0.1 to 0.3 ms). Shared: the callers here only read it, and nothing else may receive it."""
    for name in dict.fromkeys((dialect, *_NAME_DIALECTS)):
        try:
            return exp.DataType.build(text, dialect=name)
        except (ParseError, ValueError):
            continue
    return None


# -- the grain of a temporal column, from its type's name (what the profile's time columns record) ---------

_DAYS = frozenset({_DT.DATE, _DT.DATE32})
_ZONED = frozenset({_DT.TIMESTAMPTZ, _DT.TIMESTAMPLTZ, _DT.TIMETZ})


def is_date_only(type_text: str, dialect: str | None = None) -> bool:
    """A day without a time of day (DATE): windows compare it with dates, not timestamps."""
    parsed = _parse_type(type_text, dialect)
    return parsed is not None and parsed.this in _DAYS


def has_zone(type_text: str, dialect: str | None = None) -> bool:
    """A moment stored with its zone (TIMESTAMP WITH TIME ZONE): compared with UTC-offset literals."""
    parsed = _parse_type(type_text, dialect)
    return parsed is not None and parsed.this in _ZONED
