"""`ambiguity-checker run "SQL"`: one statement, rendered per dialect, side by side on every engine."""
from __future__ import annotations

import click
import sqlglot
from sqlglot.errors import SqlglotError

from adapters import Database, Job, UnsafeStatementError, parse_query, run_side_by_side
from adapters.results import RunResult
from adapters.runner import RunOne
from checker_app.commands.common import (
    EXIT_ENGINE_ERROR, EXIT_OK, EXIT_REJECTED, EXIT_USAGE, db_options, emit_json, fail, limits_from,
    require_sqlite_files,
)
from checker_app.commands.render import result_text
from checker_app.settings import databases_from_options
from checker_app.verdict import engines_agree


def render_for(sql: str, read: str | None, databases: list[Database]) -> dict[str, str]:
    """The statement in each engine's dialect (checked once, rendered per engine)."""
    query = parse_query(sql, read)
    rendered: dict[str, str] = {}
    for db in databases:
        try:
            rendered[db.name] = query.sql(dialect=db.dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)
        except SqlglotError as err:
            raise UnsafeStatementError(f"cannot render for {db.dialect}: {str(err).splitlines()[0]}") from None
    return rendered


def exit_code(results: list[RunResult]) -> int:
    if any(r.status == "rejected" for r in results):
        return EXIT_REJECTED
    return EXIT_OK if all(r.ok for r in results) else EXIT_ENGINE_ERROR


def run_everywhere(sql: str, read: str | None, db: tuple[str, ...], timeout: float, max_rows: int,
                   run_one: RunOne | None = None) -> list[RunResult]:
    """One statement rendered per engine and run side by side; exits with a one-line error on bad input
    (SQL that does not parse is bad input, exit 2; a statement refused as unsafe exits 3)."""
    limits = limits_from(timeout, max_rows)
    try:
        require_sqlite_files(db)
        databases = databases_from_options(db, limits)
        rendered = render_for(sql, read, databases)
    except UnsafeStatementError as err:
        if str(getattr(err, "reason", err)).startswith("cannot parse"):
            fail(str(err), EXIT_USAGE)
        fail(f"rejected: {err}", EXIT_REJECTED)
    except Exception as err:  # ConfigError, InputError, seeding the demo database
        fail(str(err))
    extra = {"run_one": run_one} if run_one else {}
    return list(run_side_by_side([Job("sql", rendered)], databases, limits, **extra)["sql"].values())


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
    results = run_everywhere(sql, read, db, timeout, max_rows, run_one=default_run_one(repair))
    if as_json:
        emit_json({"sql": sql, "results": {r.engine: r.to_dict() for r in results},
                   "engines_agree": engines_agree(results)})
    else:
        for result in results:
            click.echo(result_text(result) + "\n")
        click.echo(agreement_line(results))
    raise SystemExit(exit_code(results))


def default_run_one(repair: bool) -> RunOne:
    """The repair pass, or a plain run."""
    if repair:
        from adapters.repair import run_with_repair

        return run_with_repair
    return lambda db, sql, limits: db.run(sql, limits)
