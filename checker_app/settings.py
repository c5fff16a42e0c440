"""Where the embedded demo database lives, the connections a command uses, and the default limits.

`serve` hands its `--db` values and limits to the page through the environment (`serve_environment`);
the page reads them back in checker_app.ui.config.
"""
from __future__ import annotations

import json
import os
from pathlib import Path

from adapters import Database, DatabaseConfig, Limits, parse_db_options

DEMO_SEED = 42
DEMO_SCALE = 1
DEFAULT_TIMEOUT_S = 5.0   # per statement
DEFAULT_MAX_ROWS = 1000   # row cap per statement
ENV_DB = "CHECKER_DB"             # a JSON list of `name=URL` values
ENV_TIMEOUT = "CHECKER_TIMEOUT"
ENV_MAX_ROWS = "CHECKER_MAX_ROWS"
ENV_SOURCE = "CHECKER_SOURCE"     # which command configured the connections: "demo" when `demo` did
ENV_PROFILE = "CHECKER_PROFILE"   # the path of a profile file (`serve --profile`), read like `check --profile`


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


def serve_environment(db_values: list[str] | tuple[str, ...], timeout_s: float, max_rows: int,
                      command: str = "serve", profile: Path | None = None) -> dict[str, str]:
    """The environment variables `serve` (or `demo`, which finds its engines itself) hands to the Streamlit
    process; `command` lets the sidebar say where the connections came from."""
    env = {ENV_TIMEOUT: repr(float(timeout_s)), ENV_MAX_ROWS: str(int(max_rows)), ENV_SOURCE: command}
    if db_values:
        env[ENV_DB] = json.dumps(list(db_values))
    if profile is not None:
        env[ENV_PROFILE] = str(profile.resolve())
    return env
