"""`ambiguity-checker check "QUESTION"`: every reading of a question, run side by side, with a verdict."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import click

from adapters import CheckerError
from checker_app.commands.common import EXIT_OK, db_options, emit_json, fail, limits_from
from checker_app.commands.render import table_text
from checker_app.pipeline import CheckOptions, check
from checker_app.profiles import as_of_date, refresh_profiles
from checker_app.report import Report
from checker_app.settings import databases_from_options


def parse_answers(values: tuple[str, ...]) -> dict[str, str]:
    answers: dict[str, str] = {}
    for value in values:
        archetype, sep, choice = value.partition("=")
        if not sep or not archetype.strip() or not choice.strip():
            raise click.BadParameter(f"expected ARCHETYPE=VALUE, got {value!r}", param_hint="--answer")
        answers[archetype.strip()] = choice.strip()
    return answers


def parse_as_of(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return as_of_date(value)
    except CheckerError as err:
        fail(str(err))


def check_options(f):  # noqa: ANN001, ANN201 - click decorator stack
    f = click.option("--answer", "answer", multiple=True, metavar="ARCHETYPE=VALUE",
                     help="Resolve an archetype (narrows the readings to the anchored SQL).")(f)
    f = click.option("--as-of", "as_of", default=None, metavar="YYYY-MM-DD",
                     help="Anchor for relative windows (default: the latest timestamp in the data).")(f)
    f = click.option("--profile", "profile", type=click.Path(exists=True, dir_okay=False, path_type=Path),
                     default=None, help="YAML file correcting or extending the schema profile.")(f)
    f = click.option("--cap", type=click.IntRange(1, 64), default=8, show_default=True,
                     help="Most readings to run.")(f)
    f = click.option("--refresh-profile", "refresh_profile", is_flag=True,
                     help="Rebuild the stored schema profile even if the schema and data look unchanged.")(f)
    return db_options(f)


def report_text(report: Report) -> str:
    lines = [f"Question: {report.question}", f"Verdict:  {report.verdict_text}",
             f"As of:    {report.as_of or '-'}"]
    for archetype in report.archetypes:
        name = archetype.get("id") or archetype.get("archetype")
        lines.append(f"\n* {name}: \"{archetype['evidence']}\" -> {archetype['ask']}")
        lines.append(f"  why: {archetype['reason']}")
    if report.capped:
        lines.append(f"\n(showing {len(report.interpretations)} of {report.total_readings} readings)")
    for n, reading in enumerate(report.interpretations, 1):
        lines.append(f"\n[{n}] {reading.label}" + (" (model)" if reading.source == "model" else ""))
        first_sql = next(iter(reading.sql.values()), "") or next((r.sql for r in reading.results.values()), "")
        lines.append("    " + first_sql.replace("\n", "\n    "))
        for engine, result in reading.results.items():
            if result.ok:
                lines.append(f"    {engine}: {result.row_count} row(s) in {result.elapsed_ms:.0f} ms")
                lines.append("      " + table_text(result.columns, result.rows, limit=3).replace("\n", "\n      "))
            else:
                err = result.error
                lines.append(f"    {engine}: {result.status}: {err.kind if err else ''} {err.message if err else ''}")
            for repair in result.repairs:
                lines.append(f"      repair ({repair.get('rule')}): {repair.get('sql') or 'choose a candidate'}")
        if reading.engines_agree is False:
            lines.append("    ! the engines disagree on this reading")
    if report.extra.get("model"):
        from checker_app.llm.text import model_lines

        lines.extend(model_lines(report.extra))
    for note in report.notes:
        lines.append(f"note: {note}")
    return "\n".join(lines)


@click.command("check")
@click.argument("question")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON report.")
@click.option("--engine", type=click.Choice(["rules", "model", "both"]), default="rules", show_default=True,
              help="Who reads the question: the offline rules, a model (OPENAI_API_KEY, OPENAI_BASE_URL, "
                   "CHECKER_MODEL), or both side by side. The model part fails open to the rules.")
@click.option("--reply", default=None, metavar="TEXT",
              help="Answer the model's clarification in plain text (model mode).")
@check_options
def check_command(question: str, as_json: bool, engine: str, reply: str | None, answer: tuple[str, ...],
                  as_of: str | None, profile: Path | None, cap: int, refresh_profile: bool, db: tuple[str, ...],
                  timeout: float, max_rows: int) -> None:
    """Show which ambiguities a question has and run every reading side by side."""
    options = CheckOptions(answers=parse_answers(answer), as_of=parse_as_of(as_of), cap=cap,
                           limits=limits_from(timeout, max_rows), profile_overrides=profile, engine=engine,
                           reply=reply)
    try:
        databases = databases_from_options(db, options.limits)
        if refresh_profile:
            refresh_profiles(databases, profile)
        report = check(question, databases, options)
    except CheckerError as err:
        fail(str(err))
        return
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(report_text(report))
    raise SystemExit(EXIT_OK)
