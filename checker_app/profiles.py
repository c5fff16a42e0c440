"""Schema profiles per connection: built once, kept on disk (``profile_store``) and on the Database.

The first check on a connection reads the catalog (one or two queries) and reuses the stored profile
when the schema, its data and the code are unchanged; otherwise it introspects, profiles and stores.
Every later question on the same ``Database`` (``batch``, the page) reuses it from memory.
"""
from __future__ import annotations

import datetime as dt
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import SQLAlchemyError
from sqlglot import exp

from adapters import CheckerError, Database, InputError, SchemaInfo, introspect
from adapters.built import BuiltStatement
from adapters.catalog import snapshot
from adapters.connections import scrub
from adapters.errors import IntrospectionError
from checker_app import profile_store
from checker_app.profile_store import StoredProfile

AS_OF_RANGE = (dt.date(1900, 1, 1), dt.date(2999, 12, 31))
_FUNCTION_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")

if TYPE_CHECKING:
    from archetypes import SchemaProfile


class LookupFailed(CheckerError):
    """A query the rules built to read the data (latest timestamp, live options) did not run."""


def lookup_for(db: Database) -> Callable[[exp.Query], list[tuple[Any, ...]]]:
    """Run an archetype's query on `db` (rendered in its dialect, read-only, time-limited), sent from the
    tree it is written from (`adapters.built`: checked as that tree, not parsed again)."""
    from archetypes.query import lookup_statement

    def lookup(query: exp.Query) -> list[tuple[Any, ...]]:
        text, tree = lookup_statement(query, db.dialect)
        result = db.run(BuiltStatement(text, db.dialect, lambda: lookup_statement(query, db.dialect)[1], tree))
        if not result.ok:
            message = result.error.message if result.error else result.status
            raise LookupFailed(f"{db.name}: {message}")
        return [tuple(row) for row in result.rows]

    return lookup


def as_of_date(value: object, what: str = "--as-of") -> dt.date:
    """A YYYY-MM-DD date between 1900 and 2999 (relative windows are computed from it), else InputError."""
    try:
        day = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value).strip())
    except ValueError:
        raise InputError(f"{what}: expected a date YYYY-MM-DD, got {str(value)[:40]!r}") from None
    day = day.date() if isinstance(day, dt.datetime) else day
    if not AS_OF_RANGE[0] <= day <= AS_OF_RANGE[1]:
        raise InputError(f"{what}: {day.isoformat()} is outside {AS_OF_RANGE[0].year}..{AS_OF_RANGE[1].year}")
    return day


def checked_overrides(data: dict[str, Any], path: Path) -> dict[str, Any]:
    """The overrides with `as_of` validated and `allow_functions` (user-defined functions the safety
    check may let through, by name) checked; the archetypes read the rest."""
    data = dict(data)
    if data.get("as_of"):
        data["as_of"] = as_of_date(data["as_of"], f"{path}: as_of")
    names = data.get("allow_functions") or []
    if not isinstance(names, list) or not all(isinstance(n, str) and _FUNCTION_NAME.match(n) for n in names):
        raise InputError(f"{path}: allow_functions: expected a list of function names")
    data["allow_functions"] = [n.lower() for n in names]
    return data


def allowed_functions(overrides: Path | None) -> frozenset[str]:
    from archetypes import load_profile_overrides

    return frozenset(checked_overrides(load_profile_overrides(overrides), overrides)["allow_functions"]) if overrides else frozenset()


def load_schema(db: Database) -> SchemaInfo:
    """The introspected schema of the profile in use (stored, or built now once per connection)."""
    return stored_profile(db).schema


def load_profile(db: Database, overrides: Path | None = None, *, refresh: bool = False) -> SchemaProfile:
    """The archetypes' profile of `db`, built once per connection and overrides file, reused across calls.

    ``refresh`` rebuilds it (and the stored entry) even when nothing changed.
    """
    return stored_profile(db, overrides, refresh=refresh).profile


def stored_profile(db: Database, overrides: Path | None = None, *, refresh: bool = False) -> StoredProfile:
    """The profile of `db` with when and how it was built (one build at a time per connection and overrides)."""
    slot: _Slot = db.cached(f"profile:{overrides or ''}", _Slot)
    db.allow_functions = allowed_functions(overrides)
    with slot.lock:
        if slot.entry is None or refresh:
            # under the statement limits and the check's deadline, on a thread that cannot keep the process alive
            slot.entry = db.bounded(lambda: _load_or_build(db, overrides, refresh), "reading the schema")
            schema = slot.entry.schema
            db.cached("schema", lambda: schema)  # the repair pass reads columns from the same introspection
        return slot.entry


def refresh_profiles(databases: list[Database], overrides: Path | None = None) -> None:
    """Rebuild the profile of every connection now (``--refresh-profile``); a failure is left to the check."""
    for db in databases:
        try:
            stored_profile(db, overrides, refresh=True)
        except CheckerError:
            pass  # the check reports the same error in its place


def profile_age(db: Database, overrides: Path | None = None) -> float | None:
    """Seconds since the profile in use on `db` was built; None before any check loaded it."""
    entry = db.cached(f"profile:{overrides or ''}", _Slot).entry
    return entry.age_s if entry is not None else None


def age_text(seconds: float | None) -> str:
    """'profile built 4 min ago' (what the page's sidebar shows); '' when no profile is loaded yet."""
    if seconds is None:
        return ""
    for unit, size in (("day", 86_400), ("h", 3_600), ("min", 60)):
        if seconds >= size:
            count = int(seconds // size)
            return f"profile built {count} {unit}{'s' if unit == 'day' and count > 1 else ''} ago"
    return "profile built just now" if seconds < 5 else f"profile built {int(seconds)} s ago"


class _Slot:
    """The profile a connection uses, replaceable by a refresh (the Database memo itself is write-once)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.entry: StoredProfile | None = None


def _load_or_build(db: Database, overrides: Path | None, refresh: bool) -> StoredProfile:
    from archetypes import build_profile, load_profile_overrides

    # a bad file fails before any work
    data = checked_overrides(load_profile_overrides(overrides), overrides) if overrides else None
    try:
        with db.engine.connect() as conn:
            current = snapshot(conn)
            conn.rollback()
    except SQLAlchemyError as err:
        message = str(getattr(err, "orig", err)).splitlines()[0] if str(err) else type(err).__name__
        raise IntrospectionError(f"cannot read the schema: {scrub(message, db.config.url)}") from None
    path = profile_store.entry_path(db, overrides)
    entry, reason = (None, "refresh") if refresh else profile_store.read(path, current)
    if entry is not None:
        return StoredProfile(entry["schema"], entry["profile"], entry["built_at"], current, reused=True)
    built_at = time.time()
    schema = introspect(db.engine, dialect=db.dialect, catalog=current)  # never the memo: it may be stale
    profile = build_profile(schema, lookup_for(db), data)
    profile_store.write(path, schema, profile, current, built_at)
    return StoredProfile(schema, profile, built_at, current, reused=False, reason=reason)
