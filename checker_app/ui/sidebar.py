"""What the sidebar shows: connections (names and engines, never passwords) with health, the schema."""
from __future__ import annotations

from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from adapters import Database
from checker_app.profiles import age_text, load_schema, profile_age
from checker_app.ui.config import redact


@dataclass(frozen=True)
class ConnectionStatus:
    name: str
    backend: str
    dialect: str
    where: str            # host/port/database or file, password hidden
    ok: bool
    message: str = ""     # why not, when not ok (scrubbed)

    @property
    def badge(self) -> str:
        return "up" if self.ok else "down"


@dataclass(frozen=True)
class TableSummary:
    name: str
    row_count: int
    columns: list[tuple[str, str]] = field(default_factory=list)  # (name, type)


def where_of(db: Database) -> str:
    """Where a connection points, without user or password."""
    url = db.config.url
    if db.backend == "sqlite":
        return (url.database or ":memory:").split("/")[-1] or url.database or ":memory:"
    host = url.host or "localhost"
    port = f":{url.port}" if url.port else ""
    return f"{host}{port}/{url.database or ''}"


def _status(db: Database, secrets: Sequence[str]) -> ConnectionStatus:
    try:
        problem = db.ping()
        message = "" if problem is None else f"{problem.kind}: {problem.message}"
    except Exception as err:  # noqa: BLE001 - health must never break the page
        problem, message = True, f"cannot connect: {type(err).__name__}"
    return ConnectionStatus(db.name, db.backend, db.dialect, where_of(db), problem is None,
                            redact(message, list(secrets)))


def connection_health(databases: Sequence[Database], secrets: Sequence[str] = ()) -> list[ConnectionStatus]:
    """Ping every connection at once (a dead server costs its connect timeout, not the sum)."""
    if not databases:
        return []
    with ThreadPoolExecutor(max_workers=min(8, len(databases))) as pool:
        return list(pool.map(lambda db: _status(db, secrets), databases))


def schema_summary(db: Database) -> list[TableSummary]:
    """Tables and columns of one connection (introspected once per connection, cached on it)."""
    schema = load_schema(db)
    return [TableSummary(t.name, t.row_count, [(c.name, c.type) for c in t.columns]) for t in schema.tables]


def profile_age_text(db: Database) -> str:
    """How old the profile in use is ('profile built 4 min ago'; '' before one is loaded)."""
    return age_text(profile_age(db))
