"""Schema profiles per connection: introspected once, cached on the Database, reused by every question."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from adapters import CheckerError, Database, SchemaInfo, introspect

if TYPE_CHECKING:
    from archetypes import SchemaProfile


class LookupFailed(CheckerError):
    """A query the rules built to read the data (latest timestamp, live options) did not run."""


def lookup_for(db: Database) -> Callable[[exp.Query], list[tuple[Any, ...]]]:
    """Run an archetype's query on `db` (rendered in its dialect, read-only, time-limited)."""

    def lookup(query: exp.Query) -> list[tuple[Any, ...]]:
        result = db.run(query.sql(dialect=db.dialect))
        if not result.ok:
            message = result.error.message if result.error else result.status
            raise LookupFailed(f"{db.name}: {message}")
        return [tuple(row) for row in result.rows]

    return lookup


def load_schema(db: Database) -> SchemaInfo:
    return db.cached("schema", lambda: introspect(db.engine, dialect=db.dialect))


def load_profile(db: Database, overrides: Path | None = None) -> SchemaProfile:
    """The archetypes' profile of `db`, built once per connection (and per overrides file)."""
    from archetypes import build_profile, load_profile_overrides

    key = f"profile:{overrides or ''}"
    data = load_profile_overrides(overrides) if overrides else None
    return db.cached(key, lambda: build_profile(load_schema(db), lookup_for(db), data))
