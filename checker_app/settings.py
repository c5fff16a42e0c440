"""Where the embedded demo database lives, and the connections a command uses."""
from __future__ import annotations

import os
from pathlib import Path

from adapters import Database, DatabaseConfig, Limits, parse_db_options

DEMO_SEED = 42
DEMO_SCALE = 1


def home_dir() -> Path:
    """CHECKER_HOME, or ~/.cache/ambiguity-checker."""
    return Path(os.environ.get("CHECKER_HOME", Path.home() / ".cache" / "ambiguity-checker"))


def demo_url() -> str:
    return f"sqlite:///{home_dir() / 'demo.sqlite'}"


def ensure_demo_database() -> str:
    """The embedded SQLite demo database, created on first use (seconds, no server)."""
    from seed_db import seed_database

    url = demo_url()
    seed_database(url, scale=DEMO_SCALE, seed=DEMO_SEED)
    return url


def databases_from_options(db_options: tuple[str, ...] | list[str], limits: Limits | None = None) -> list[Database]:
    """`--db` values as Database objects; with none, the embedded demo database."""
    if not db_options:
        db_options = [f"demo={ensure_demo_database()}"]
    configs: list[DatabaseConfig] = parse_db_options(list(db_options))
    return [Database(config, limits) for config in configs]
