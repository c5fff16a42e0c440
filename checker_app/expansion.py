"""Other statements for the same question: what the compare page shows next to a pasted (or model-written)
statement, so a prompt author sees that it was one of several readings the schema allows.

    alternatives_for(sql, database)            -> [archetypes.expand.Alternative(label, sql, mapping), ...]
    with_alternatives(statements, database)    -> the statements, each followed by its alternatives

The schema is the connection's cached profile (the same one `check` uses); the alternatives are written in the
dialect the statements were pasted in (`read`, default the connection's own), so the compare page renders and
runs them on every engine like any pasted statement. No streamlit here.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from adapters import CheckerError, Database
from adapters.dialects import sqlglot_dialect
from archetypes.expand import MAX_ALTERNATIVES, Alternative, expand_sql

S = TypeVar("S")


def alternatives_for(sql: str, database: Database, read: str | None = None, *,
                     profile_overrides: Path | None = None, limit: int = MAX_ALTERNATIVES) -> list[Alternative]:
    """The statements that answer the same question through the schema's other mappings (split-off columns,
    precomputed aggregate tables, twin tables, duplicate columns). Raises `adapters.UnsafeStatementError`
    (a CheckerError) when `sql` is not one read-only query; an empty list when there is nothing else."""
    from checker_app.profiles import load_profile

    profile = load_profile(database, profile_overrides)
    dialect = sqlglot_dialect(read or database.dialect)
    return expand_sql(sql, profile, dialect, read=dialect, limit=limit)


def with_alternatives(statements: Sequence[S], database: Database, read: str | None = None, *,
                      limit: int = 12, label: str = "{label} / {alternative}") -> list[S]:
    """Each statement followed by its alternatives, as statements of the same kind (anything with `label`
    and `sql`, a dataclass or a NamedTuple, e.g. checker_app.ui.compare.Statement). Every given statement is
    kept; alternatives fill up to `limit` statements in all, in order. A statement that cannot be parsed is
    kept as it is (the compare page reports it when it runs)."""
    room = max(0, limit - len(statements))
    expanded: list[S] = []
    for statement in statements:
        expanded.append(statement)
        if room <= 0:
            continue
        try:
            found = alternatives_for(statement.sql, database, read, limit=room)
        except CheckerError:
            continue
        for alternative in found[:room]:
            expanded.append(_copy(statement, label.format(label=statement.label,
                                                          alternative=alternative.label), alternative.sql))
        room -= min(room, len(found))
    return expanded


def _copy(statement: Any, label: str, sql: str) -> Any:
    if hasattr(statement, "_replace"):
        return statement._replace(label=label, sql=sql)
    return replace(statement, label=label, sql=sql)
