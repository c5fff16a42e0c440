"""`ambiguity-checker run "SQL"`: one statement, rendered per dialect, side by side on every engine."""
from __future__ import annotations

from collections.abc import Callable

import click

from adapters import Job, UnparseableStatementError, UnsafeStatementError
from adapters.results import RunResult
from checker_app.commands.common import (
    EXIT_REJECTED,
    EXIT_USAGE,
    db_options,
    emit_json,
    exit_code,
    fail,
    limits_from,
    require_sqlite_files,
)
from checker_app.commands.render import result_text
from checker_app.settings import databases_from_options
from checker_app.statements import render_for, run_statements
from checker_app.verdict import engines_agree


def run_everywhere(sql: str, read: str | None, db: tuple[str, ...], timeout: float, max_rows: int,
                   repair: bool = True) -> list[RunResult]:
    """One statement rendered per engine and run side by side; exits with a one-line error on bad input
    (SQL that does not parse is bad input, exit 2; a statement refused as unsafe exits 3)."""
    limits = limits_from(timeout, max_rows)
    try:
        require_sqlite_files(db)
        databases = databases_from_options(db, limits)
        rendered = render_for(sql, read, databases)
    except UnparseableStatementError as err:
        fail(str(err), EXIT_USAGE)
    except UnsafeStatementError as err:
        fail(f"rejected: {err}", EXIT_REJECTED)
    except Exception as err:  # noqa: BLE001 - ConfigError, InputError, seeding the demo database: one line
        fail(str(err))
    return list(run_statements([Job("sql", rendered)], databases, limits, repair)["sql"].values())


def agreement_line(results: list[RunResult]) -> str:
    """Whether the engines agree, in one line."""
    answered = [r for r in results if r.ok]
    agree = engines_agree(results)
    if agree is None:
        if len(results) < 2:
            return f"One engine ({', '.join(r.engine for r in results) or 'none'}): nothing to compare"
        if not answered:
            return "No engine answered: nothing to compare"
        return f"Engines: only {answered[0].engine} answered, nothing to compare"
    if agree:
        return "Engines agree: same rows on " + ", ".join(r.engine for r in answered)
    return "Engines disagree: " + "; ".join(f"{r.engine}: {r.row_count} rows" for r in answered)


def emit(sql: str, results: list[RunResult], as_json: bool, text: Callable[[RunResult], str]) -> None:
    """The outcome of `run` or `repair`: JSON, or one block per engine and whether the engines agree."""
    if as_json:
        emit_json({"sql": sql, "results": {r.engine: r.to_dict() for r in results},
                   "engines_agree": engines_agree(results)})
    else:
        for result in results:
            click.echo(text(result) + "\n")
        click.echo(agreement_line(results))
    raise SystemExit(exit_code(results))


@click.command("run")
@click.argument("sql")
@click.option("--dialect", "read", default=None, help="Dialect the SQL is written in (default: generic).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result instead of tables.")
@click.option("--repair/--no-repair", default=True, show_default=True,
              help="Run an engine's ambiguous-column error through the repair pass (its log is shown); "
                   "--no-repair shows the engine's own error.")
@db_options
def run(sql: str, read: str | None, as_json: bool, repair: bool, db: tuple[str, ...], timeout: float,
        max_rows: int) -> None:
    """Run one read-only SQL statement on every configured engine at once."""
    emit(sql, run_everywhere(sql, read, db, timeout, max_rows, repair=repair), as_json, result_text)
