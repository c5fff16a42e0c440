"""Throwaway databases for benchmarks: a temp SQLite file, or a fresh database on the local servers.

Benchmarks import this module by path (they run as scripts from the repo root or anywhere).
"""
from __future__ import annotations

import contextlib
import os
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.pool import NullPool

SERVERS = {
    "postgresql": os.environ.get("CHECKER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"),
    "mysql": os.environ.get("CHECKER_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3306/"),
}


def url_for(backend: str, name: str, tmp: Path) -> str:
    """Where a throwaway database called `name` lives (seed_database creates it)."""
    if backend == "sqlite":
        return f"sqlite:///{tmp / f'{name}.sqlite'}"
    return sa.make_url(SERVERS[backend]).set(database=name).render_as_string(hide_password=False)


def drop(backend: str, name: str) -> None:
    if backend == "sqlite":
        return
    admin = sa.create_engine(SERVERS[backend], poolclass=NullPool, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        if backend == "postgresql":
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        else:
            conn.exec_driver_sql(f"DROP DATABASE IF EXISTS `{name}`")
    admin.dispose()


@contextlib.contextmanager
def seeded_demo(scale: int = 1, backends: tuple[str, ...] = ("sqlite", "postgresql", "mysql"),
                schema: str = "demo") -> Iterator[dict[str, str]]:
    """The demo database (or another generated `schema`) seeded on each backend: {backend: URL}; dropped afterwards."""
    from seed_db import seed_database

    name = f"ac_bench_{uuid.uuid4().hex[:8]}"
    with tempfile.TemporaryDirectory(prefix="ac_bench_") as tmp:
        urls = {backend: url_for(backend, name, Path(tmp)) for backend in backends}
        try:
            for url in urls.values():
                seed_database(url, scale=scale, schema=schema)
            yield urls
        finally:
            for backend in backends:
                drop(backend, name)
