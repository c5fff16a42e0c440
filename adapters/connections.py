"""Named connections: `--db name=URL` parsing, backend to sqlglot dialect, engine creation.

A connection's URL may hold a password; only `display_url` (password hidden) ever leaves this module.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError

from adapters.errors import ConfigError

# SQLAlchemy backend name -> (sqlglot dialect, default connection name)
BACKENDS: dict[str, tuple[str, str]] = {
    "sqlite": ("sqlite", "sqlite"),
    "postgresql": ("postgres", "postgres"),
    "mysql": ("mysql", "mysql"),
    "mariadb": ("mysql", "mysql"),
}
CONNECT_TIMEOUT_S = 3
_NAME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9_-]{0,39}$")


def hide_password(url: URL) -> str:
    return url.render_as_string(hide_password=True)


def scrub(text: str, url: URL) -> str:
    """Remove the URL's password from any text (driver messages sometimes echo the DSN)."""
    if url.password:
        text = text.replace(str(url.password), "***")
    return text


@dataclass(frozen=True)
class DatabaseConfig:
    """One configured connection: a name the user sees, and the URL it uses."""

    name: str
    url: URL = field(repr=False)

    @property
    def backend(self) -> str:
        backend = self.url.get_backend_name()
        return "mysql" if backend == "mariadb" else backend

    @property
    def dialect(self) -> str:
        return BACKENDS[self.backend][0]

    @property
    def display_url(self) -> str:
        return hide_password(self.url)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "backend": self.backend, "dialect": self.dialect, "url": self.display_url}


def parse_url(text: str) -> URL:
    try:
        url = make_url(text.strip())
    except ArgumentError:
        # the text itself may hold a password: never echo it back
        raise ConfigError("not a database URL (expected e.g. sqlite:///file.db or postgresql+psycopg://user@host/db)") from None
    backend = url.get_backend_name()
    if backend not in BACKENDS:
        raise ConfigError(f"unsupported backend {backend!r}: use sqlite, postgresql or mysql/mariadb")
    if backend == "postgresql" and url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    if backend in ("mysql", "mariadb") and "+" not in url.drivername:
        url = url.set(drivername=f"{backend}+pymysql")
    return url


def parse_db_option(value: str) -> DatabaseConfig:
    """`name=URL` or a bare URL (the name then defaults to the backend)."""
    name, sep, rest = value.partition("=")
    if sep and _NAME_RE.match(name) and "://" in rest:
        url = parse_url(rest)
        return DatabaseConfig(name=name, url=url)
    url = parse_url(value)
    return DatabaseConfig(name=BACKENDS[url.get_backend_name()][1], url=url)


def parse_db_options(values: list[str] | tuple[str, ...]) -> list[DatabaseConfig]:
    """Parse several `--db` values; repeated default names get a numeric suffix."""
    configs: list[DatabaseConfig] = []
    seen: set[str] = set()
    for value in values:
        config = parse_db_option(value)
        name, n = config.name, 2
        while name in seen:
            name, n = f"{config.name}{n}", n + 1
        seen.add(name)
        configs.append(DatabaseConfig(name=name, url=config.url))
    return configs


def sqlite_readonly_url(url: URL) -> URL:
    """A file SQLite URL opened through the URI form with mode=ro (plain mode=ro is ignored)."""
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return url
    path = Path(database).expanduser().resolve()
    return URL.create("sqlite", database=f"file:{path}", query={"mode": "ro", "uri": "true"})


def create_engine(config: DatabaseConfig, *, read_only: bool = True, pool_size: int = 5) -> Engine:
    """An engine for checking: read-only where the URL allows it, short connect timeout."""
    url = config.url
    kwargs: dict[str, Any] = {"pool_pre_ping": True}
    connect_args: dict[str, Any] = {}
    if config.backend == "sqlite":
        if read_only:
            url = sqlite_readonly_url(url)
        connect_args["check_same_thread"] = False
        kwargs["poolclass"] = sa.pool.QueuePool
        kwargs["pool_size"] = pool_size
    elif config.backend == "postgresql":
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        connect_args["application_name"] = "ambiguity-checker"
        kwargs["pool_size"] = pool_size
    else:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        connect_args["charset"] = "utf8mb4"
        kwargs["pool_size"] = pool_size
    return sa.create_engine(url, connect_args=connect_args, **kwargs)
