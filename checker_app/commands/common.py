"""Options and output helpers shared by commands."""
from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any, NoReturn

import click

from adapters import Limits, RunResult
from adapters.urls import scrub, secrets_in_texts
from checker_app.settings import DEFAULT_MAX_ROWS, DEFAULT_TIMEOUT_S

# Exit codes (documented in the README)
EXIT_OK = 0            # ran; for run/check: every engine answered
EXIT_ENGINE_ERROR = 1  # ran, but at least one engine returned an error or timed out
EXIT_USAGE = 2         # bad input or options (click uses 2 too)
EXIT_REJECTED = 3      # the statement was refused as unsafe before reaching any engine


def exit_code(results: list[RunResult]) -> int:
    """3 when a statement was refused, 0 when every engine answered, else 1."""
    if any(r.status == "rejected" for r in results):
        return EXIT_REJECTED
    return EXIT_OK if all(r.ok for r in results) else EXIT_ENGINE_ERROR


def db_options(fn: Callable[..., Any]) -> Callable[..., Any]:
    fn = click.option("--db", "db", multiple=True, metavar="[NAME=]URL",
                      help="SQLAlchemy URL, repeatable; default: the embedded demo database.")(fn)
    fn = click.option("--timeout", "timeout", type=float, default=DEFAULT_TIMEOUT_S, show_default=True,
                      help="Per-statement time limit in seconds.")(fn)
    fn = click.option("--max-rows", "max_rows", type=int, default=DEFAULT_MAX_ROWS, show_default=True,
                      help="Row cap per statement.")(fn)
    return fn


def limits_from(timeout: float, max_rows: int) -> Limits:
    if timeout <= 0 or max_rows <= 0:
        fail("--timeout and --max-rows must be positive")
    return Limits(time_limit_s=timeout, row_cap=max_rows)


def shown(text: str) -> str:
    """Text safe to print: one line, without any credential of the URLs on the command line."""
    line = " ".join(str(text).split())
    return scrub(line, secrets_in_texts(sys.argv[1:]))


def fail(message: str, code: int = EXIT_USAGE) -> NoReturn:
    """One line on stderr (credentials scrubbed), then exit."""
    click.echo(f"error: {shown(message)}", err=True)
    sys.exit(code)


def emit_json(payload: Any) -> None:
    """One JSON line; text that is not valid Unicode (a lone surrogate) is printed as its escape."""
    text = json.dumps(payload, ensure_ascii=False, default=str)
    click.echo(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def require_sqlite_files(db_values: tuple[str, ...] | list[str]) -> None:
    """Fail with the file's name when a `--db` SQLite URL points at no file (SQLite alone would say only
    "unable to open database file"; read-only connections never create one). The values are read by the one
    `--db` parser, `parse_db_option`."""
    from pathlib import Path

    from adapters import ConfigError, parse_db_option

    for value in db_values:
        try:
            url = parse_db_option(value).url
        except ConfigError:
            continue  # reported, in its one line and without echoing it, when the connections are made
        database = url.database or ""
        if url.get_backend_name() == "sqlite" and database not in ("", ":memory:") and not database.startswith("file:"):
            path = Path(database).expanduser().resolve()
            if not path.exists():
                fail(f"no SQLite file at {path}")
