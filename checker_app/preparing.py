"""Every engine's profile and privilege check, read at once before a check sends anything.

A new connection reads its catalog (and a stored profile its header) first, and one engine after another
their waits added up: each engine gets a thread that reads its profile, hands it over as soon as it is read
(the primary is analysed while the others are still being read), then checks the connection's privileges
on the same thread and pooled connection. The privilege check only adds a note to the report, so nothing
waits for it before the statements are sent: the report asks for it when it is assembled.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from adapters import CheckerError, Database
from adapters.threads import DaemonPool
from checker_app.profiles import load_profile


@dataclass(frozen=True)
class Prepared:
    """Per engine name: a call that waits for its profile (or the CheckerError that read raised), and one
    that waits for its privilege warning (None without one, or when its profile could not be read)."""

    profiles: dict[str, Callable[[], Any]]
    privileges: dict[str, Callable[[], str | None]]


def prepare(databases: Sequence[Database], overrides: Path | None) -> Prepared:
    """Start reading every engine's profile, then its privileges (with one engine, each is read when asked)."""
    if len(databases) < 2:
        return Prepared({db.name: partial(_profile, db, overrides) for db in databases},
                        {db.name: partial(_privileges_after, db, overrides) for db in databases})
    pool = DaemonPool(len(databases), "prepare")
    profiles: dict[str, Callable[[], Any]] = {}
    privileges: dict[str, Callable[[], str | None]] = {}
    for db in databases:
        profile: Future[Any] = Future()
        profiles[db.name] = profile.result
        privileges[db.name] = pool.submit(_read, db, overrides, profile).result
    pool.shutdown()  # the workers end once these tasks are done; nothing waits for them here
    return Prepared(profiles, privileges)


def _profile(db: Database, overrides: Path | None) -> Any:
    try:
        return load_profile(db, overrides)
    except CheckerError as err:
        return err


def _privileges_after(db: Database, overrides: Path | None) -> str | None:
    return None if isinstance(_profile(db, overrides), CheckerError) else db.privilege_warning()


def _read(db: Database, overrides: Path | None, profile: Future[Any]) -> str | None:
    """The profile handed over through `profile`, then the privilege warning returned (none when the profile
    could not be read: that engine is a note already). A crash reaches both waiting callers."""
    try:
        read = _profile(db, overrides)
    except BaseException as err:
        profile.set_exception(err)
        raise
    profile.set_result(read)
    return None if isinstance(read, CheckerError) else db.privilege_warning()
