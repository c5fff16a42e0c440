"""Identifier helpers: dialect names, case-insensitive comparison, qualifier text as the statement wrote it."""
from __future__ import annotations

from sqlglot import exp

from adapters.dialects import sqlglot_dialect

__all__ = ["key", "source_text", "sqlglot_dialect"]


def key(name: str) -> str:
    """Names compare case-insensitively (identifier case differs by engine)."""
    return name.lower()


def source_text(sql: str, identifier: exp.Expr | None, dialect: str) -> str | None:
    """An identifier exactly as written in `sql` (quotes included), else as sqlglot renders it."""
    if not isinstance(identifier, exp.Identifier):
        return None
    start, end = identifier.meta.get("start"), identifier.meta.get("end")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start <= end < len(sql):
        text = sql[start:end + 1]
        bare = text.strip('"`[]')
        if key(bare) == key(identifier.name):
            return text
    return identifier.sql(dialect=dialect or None)


def simple_identifier(name: str, dialect: str) -> str:
    """A schema spelling as an identifier, quoted only when needed."""
    return exp.to_identifier(name).sql(dialect=dialect or None)
