"""URL handling, target-database creation and engine construction for the three backends.

Seeding is usually the first thing that touches a fresh server, so the database named in the URL
may not exist yet: it is created from the server's maintenance database (``postgres`` for
PostgreSQL, no database for MySQL/MariaDB); for SQLite the parent directory is created. Engines
use ``NullPool`` because a seed run is one-shot and should leave no pooled sessions behind.
"""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine
from sqlalchemy.pool import NullPool

from adapters import urls
from adapters.connections import BACKENDS  # the one list of engines

from .errors import SeedError

_CONNECT_TIMEOUT_SECONDS = 10


def parse_url(url: str | URL) -> URL:
    """Parse ``url``; the error message never echoes the input (it may hold a password)."""
    if isinstance(url, URL):
        return url
    try:
        parsed = urls.repair_userinfo(url, sa.make_url(url))
        parsed.port  # noqa: B018 - parsed lazily: ValueError for a port like "abc"
        return parsed
    except Exception:  # noqa: BLE001 - ArgumentError / ValueError; both echo the raw URL
        raise SeedError("not a valid SQLAlchemy database URL (expected e.g. sqlite:///path.sqlite)") from None


def display_url(url: URL) -> str:
    return urls.display_url(url)


def backend_of(url: URL) -> str:
    """'sqlite', 'postgresql' or 'mysql' (MariaDB URLs count as mysql); SeedError otherwise."""
    name = url.get_backend_name()
    if name not in BACKENDS:
        raise SeedError(f"unsupported backend {name!r}; use sqlite, postgresql or mysql/mariadb")
    return "mysql" if name == "mariadb" else name


def ensure_database(url: URL) -> None:
    """Create the database named in ``url`` (or the SQLite file's directory) if it is missing."""
    backend = backend_of(url)
    if backend == "sqlite":
        path = url.database
        if path and path != ":memory:" and not path.startswith("file:"):
            Path(path).expanduser().parent.mkdir(parents=True, exist_ok=True)
        return
    name = url.database
    if not name:
        raise SeedError(f"{display_url(url)} names no database")
    # URL.set() ignores None, so _replace is the way to drop the database for MySQL.
    maintenance = url.set(database="postgres") if backend == "postgresql" else url._replace(database=None)
    engine = make_engine(maintenance, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            quoted = conn.dialect.identifier_preparer.quote(name)
            if backend == "postgresql":
                exists = conn.execute(sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}).first()
                if not exists:
                    try:
                        conn.execute(sa.text(f"CREATE DATABASE {quoted}"))
                    except sa.exc.ProgrammingError:
                        # Lost a race with another creator: fine if it exists now.
                        if not conn.execute(
                            sa.text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name}
                        ).first():
                            raise
            else:
                conn.execute(sa.text(f"CREATE DATABASE IF NOT EXISTS {quoted} CHARACTER SET utf8mb4"))
    finally:
        engine.dispose()


def make_engine(url: URL, **kwargs: object) -> Engine:
    """An engine without pooling and with a connect timeout for the network backends."""
    backend = backend_of(url)
    connect_args: dict[str, object] = {}
    if backend in ("postgresql", "mysql") and "connect_timeout" not in url.query:
        connect_args["connect_timeout"] = _CONNECT_TIMEOUT_SECONDS
    return sa.create_engine(url, poolclass=NullPool, connect_args=connect_args, **kwargs)
