"""How the page learns its connections and limits: environment set by `serve`, or secrets.toml.

`serve` passes `--db` values as CHECKER_DB (a JSON list of `name=URL`), CHECKER_TIMEOUT and
CHECKER_MAX_ROWS. Without CHECKER_DB the page reads Streamlit's convention,
`[connections.NAME] url = "..."` in `.streamlit/secrets.toml`; without either, the embedded demo
database. A URL (and so a password) only ever travels through the environment or secrets: never a query
parameter, page text or log line (`redact` scrubs any text shown against every configured password).
"""
from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.engine import URL, make_url

from adapters import ConfigError, Limits
from adapters.urls import scrub, secrets_in_texts
from checker_app.settings import (
    DEFAULT_MAX_ROWS,
    DEFAULT_TIMEOUT_S,
    ENV_DB,
    ENV_MAX_ROWS,
    ENV_PROFILE,
    ENV_SOURCE,
    ENV_TIMEOUT,
)


@dataclass(frozen=True)
class AppConfig:
    """What the page connects to and with which limits."""

    db_values: tuple[str, ...] = ()        # `--db`-style values; empty: the embedded demo database
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_rows: int = DEFAULT_MAX_ROWS
    source: str = "demo"                   # --db | demo command | secrets | demo (the embedded database)
    problems: tuple[str, ...] = field(default=())  # configuration that was ignored, safe to show
    profile: str | None = None             # a profile file `serve --profile` checked and passed

    @property
    def limits(self) -> Limits:
        return Limits(time_limit_s=self.timeout_s, row_cap=self.max_rows)


def _url_from_fields(fields: Mapping[str, Any]) -> str:
    """Streamlit's SQLConnection keys (dialect, driver, username, password, host, port, database)."""
    dialect = str(fields.get("dialect") or "").strip()
    if not dialect:
        raise ConfigError("needs `url` or `dialect`")
    driver = str(fields.get("driver") or "").strip()
    port = fields.get("port")
    url = URL.create(
        f"{dialect}+{driver}" if driver else dialect,
        username=fields.get("username") or None,
        password=fields.get("password") or None,
        host=fields.get("host") or None,
        port=int(port) if port not in (None, "") else None,
        database=fields.get("database") or None,
    )
    return url.render_as_string(hide_password=False)


def db_values_from_secrets(secrets: Mapping[str, Any]) -> tuple[list[str], list[str]]:
    """`--db` values from `[connections.NAME]` tables, and problems (never echoing a URL)."""
    values: list[str] = []
    problems: list[str] = []
    connections = secrets.get("connections") if isinstance(secrets, Mapping) else None
    if connections is None:
        return values, problems
    if not isinstance(connections, Mapping):
        return values, ["secrets: [connections] is not a table"]
    for name, entry in connections.items():
        if not isinstance(entry, Mapping):
            problems.append(f"secrets: connections.{name} is not a table")
            continue
        try:
            url = str(entry["url"]).strip() if entry.get("url") else _url_from_fields(entry)
            make_url(url)
        except Exception as err:  # noqa: BLE001 - any bad entry is reported, never raised
            reason = str(err) if isinstance(err, ConfigError) else "not a database URL"
            problems.append(f"secrets: connections.{name}: {reason}")
            continue
        values.append(f"{name}={url}")
    return values, problems


def _number(environ: Mapping[str, str], key: str, default: float, kind: type, problems: list[str]) -> Any:
    raw = environ.get(key)
    if raw in (None, ""):
        return kind(default)
    try:
        value = kind(float(raw)) if kind is int else kind(raw)
    except ValueError:
        problems.append(f"{key} is not a number; using {default}")
        return kind(default)
    if value <= 0:
        problems.append(f"{key} must be positive; using {default}")
        return kind(default)
    return value


def load_config(environ: Mapping[str, str] | None = None, secrets: Mapping[str, Any] | None = None) -> AppConfig:
    """CHECKER_DB wins, then secrets.toml connections, then the embedded demo database."""
    from dataclasses import replace

    environ = os.environ if environ is None else environ
    profile = environ.get(ENV_PROFILE, "").strip() or None
    config = _load_config(environ, secrets)
    return replace(config, profile=profile) if profile else config


def _load_config(environ: Mapping[str, str], secrets: Mapping[str, Any] | None = None) -> AppConfig:
    problems: list[str] = []
    timeout = _number(environ, ENV_TIMEOUT, DEFAULT_TIMEOUT_S, float, problems)
    max_rows = _number(environ, ENV_MAX_ROWS, DEFAULT_MAX_ROWS, int, problems)
    raw_db = environ.get(ENV_DB, "").strip()
    if raw_db:
        try:
            values = json.loads(raw_db)
        except json.JSONDecodeError:
            values = None
        if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
            # `demo` passes the engines it found and seeded the same way `serve --db` does
            source = "demo command" if environ.get(ENV_SOURCE) == "demo" else "--db"
            return AppConfig(tuple(values), timeout, max_rows, source, tuple(problems))
        problems.append(f"{ENV_DB} is not a JSON list of name=URL strings; ignored")
    secret_values, secret_problems = db_values_from_secrets(secrets or {})
    problems.extend(secret_problems)
    if secret_values:
        return AppConfig(tuple(secret_values), timeout, max_rows, "secrets", tuple(problems))
    return AppConfig((), timeout, max_rows, "demo", tuple(problems))


def passwords_of(db_values: tuple[str, ...] | list[str]) -> list[str]:
    """Every credential in the configured URLs (to scrub them from anything shown)."""
    return secrets_in_texts(db_values)


def redact(text: str, secrets: list[str] | tuple[str, ...]) -> str:
    """`text` with every configured credential (and any URL's password) replaced by ***."""
    return scrub(text, secrets)
