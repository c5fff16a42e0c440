"""`ambiguity-checker check "QUESTION"`: every reading of a question, run side by side, with a verdict."""
from __future__ import annotations

import dataclasses
import datetime as dt
from pathlib import Path

import click

from adapters import CheckerError
from checker_app import format as fmt
from checker_app import readout
from checker_app.commands.common import EXIT_OK, db_options, emit_json, fail, limits_from, require_sqlite_files
from checker_app.commands.render import table_text
from checker_app.pipeline import CheckOptions, check
from checker_app.profiles import as_of_date, refresh_profiles
from checker_app.report import ReadingResult, Report, plain
from checker_app.settings import databases_from_options


def parse_answers(values: tuple[str, ...]) -> dict[str, str]:
    answers: dict[str, str] = {}
    for value in values:
        archetype, sep, choice = value.partition("=")
        if not sep or not archetype.strip() or not choice.strip():
            raise click.BadParameter(f"expected ARCHETYPE=VALUE, got {value!r}", param_hint="--answer")
        key = archetype.strip()
        # (two questions of one archetype, 'last month' and 'new' both timeframes: both answers kept)
        answers[key] = f"{answers[key]},{choice.strip()}" if key in answers else choice.strip()
    return answers


def parse_as_of(value: str | None) -> dt.date | None:
    if value is None:
        return None
    try:
        return as_of_date(value)
    except CheckerError as err:
        fail(str(err))


def check_options(f):  # click decorator stack
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


def answer_values(archetype: dict) -> list[str]:
    """The values `--answer ARCHETYPE=VALUE` accepts for one archetype (its readings, else its options)."""
    values = [str(r.get("value")) for r in archetype.get("readings") or [] if isinstance(r, dict)]
    if not values:
        options = (archetype.get("clarification") or {}).get("options") or []
        values = [str(o.get("value") or o.get("label")) for o in options if isinstance(o, dict)]
    return values


def _ignored_items(report: Report) -> list[dict]:
    return [i.model_dump() for i in report.understood.ignored]


def _ignored(report: Report) -> list[str]:
    return [str(i.get("text")) for i in _ignored_items(report)]


def _replaced(question: str, item: dict, replacement: str) -> str:
    span = item.get("span") or ()
    if len(span) == 2 and question[span[0]:span[1]] == item.get("text"):
        return question[: span[0]] + replacement + question[span[1]:]
    return question.replace(str(item.get("text")), replacement, 1)


def ignored_lines(report: Report) -> list[str]:
    """Each word the question had that no reading used: why, and the question with what was meant instead."""
    lines = []
    for item in _ignored_items(report):
        reason = str(item.get("reason") or "no column, value or phrase of this database matches it").rstrip(".")
        lines.append(f"  ~ {item.get('text')!r} not read: {reason}")
        for suggestion in [str(s) for s in item.get("suggestions") or []][:5]:
            lines.append(f"      did you mean {suggestion!r}? check {_replaced(report.question, item, suggestion)!r}")
    if lines:
        lines.append("    rephrase those words with the names the data uses")
    return lines


def _indent(text: str, by: str) -> str:
    return by + text.replace("\n", "\n" + by)


def _sql_text(reading: ReadingResult, engines: list[dict[str, str]]) -> tuple[str, str]:
    """(where it runs, the SQL pretty-printed with long calendars and CASE trees folded) for the first engine."""
    dialect_of = {e["name"]: e.get("dialect", "") for e in engines}
    for name, sql in reading.sql.items():
        folded = readout.fold_sql(sql, dialect_of.get(name) or "sqlite")
        parts = [f"the calendar {n} ({len(rows):,} rows)" for n, _, rows in folded.calendars]
        parts += [f"the CASE {c.name} ({len(c.rows):,} buckets of {c.subject})" for c in folded.cases]
        note = f"\n(folded: {', '.join(parts)}; --json has the full SQL)" if parts else ""
        return name, folded.text + note
    refused = next((r.sql for r in reading.results.values() if r.sql), "")
    return "refused", refused


def report_text(report: Report) -> str:
    """The plain-text report: the verdict with its warnings, each archetype with the values --answer takes,
    then each reading's answer, what it computes, its SQL and its rows per engine."""
    ignored = _ignored(report)
    said = report.verdict_text.startswith("partly understood")  # the verdict names the words already
    verdict = report.verdict_text + (f" (not understood: {', '.join(repr(w) for w in ignored)})"
                                     if ignored and not said else "")
    lines = [f"Question: {report.question}", f"Verdict:  {verdict}"]
    warnings = readout.notes_to_show(report)
    if report.capped:
        warnings.insert(0, f"showing {len(report.interpretations)} of {report.total_readings} readings (capped), "
                           f"{readout.CAP_WORDS}")
    failed, runs = readout.unanswered(report.interpretations)
    if failed:
        warnings.append(f"{failed} of {runs} runs did not answer (an engine error or the time limit)")
    lines += ignored_lines(report)
    lines += [f"  ! {w}" for w in warnings]
    lines.append(f"As of:    {report.as_of or '-'} · engines: {', '.join(e.name for e in report.engines) or '-'}")
    for archetype in plain(report.archetypes):
        name = archetype["id"]
        on = readout.evidence_words(str(archetype.get("evidence", "")), report.question, ('"', '"'))
        lines.append(f"\n* {name} on {on}: {archetype.get('ask', '')}")
        lines.append(f"  why: {archetype.get('reason', '')}")
        values = answer_values(archetype)
        if values and name not in report.answers:
            lines.append(f"  answer with: --answer {name}=" + " | ".join(values))
    for n, reading in enumerate(report.interpretations, 1):
        choose = " ".join(f"--answer {k}={v}" for k, v in reading.choices.items() if k not in report.answers)
        lines.append(f"\n[{n}] {reading.label}" + (" (model)" if reading.source == "model" else "")
                     + (f"    {choose}" if choose and len(report.interpretations) > 1 else ""))
        lines.append(f"    Answer: {readout.top_answer(reading)}")
        explanation = readout.explanation_of(reading)
        if explanation:
            lines.append(f"    What it computes: {explanation}")
        where, sql = _sql_text(reading, plain(report.engines))
        lines.append(f"    SQL ({where}):")
        lines.append(_indent(sql, "      "))
        currency = readout.reading_currency(reading)
        for engine, result in reading.results.items():
            lines.append(f"    {engine}: {readout.result_caption(result)}")
            if result.ok and result.columns:
                lines.append(_indent(table_text(fmt.columns_of(result), result.rows, limit=3, currency=currency), "      "))
            for line in readout.repair_lines(result):
                lines.append(f"      repair: {line}")
        disagreement = readout.engine_disagreement(reading)
        if disagreement:
            lines.append("    ! the engines disagree on this reading: "
                         + "; ".join(f"{name}: {answer}" for name, answer in disagreement))
    if report.model is not None:
        from checker_app.llm.text import model_lines

        lines.extend(model_lines(report.model_dump(mode="json", include={"model", "comparison"}, exclude_none=True)))
    return "\n".join(lines)


def check_with_subject(question: str, databases: list, options: CheckOptions) -> Report:
    """The check; an `--answer insufficient_info=VALUE` names the subject the question lacked, so the
    question is read again with it (the other answers then apply to that reading)."""
    from archetypes import UnknownAnswerError

    subject = options.answers.get(readout.SUBJECT)
    if subject is None:
        return check(question, databases, options)
    rest = {k: v for k, v in options.answers.items() if k != readout.SUBJECT}
    first = check(question, databases, dataclasses.replace(options, answers={}))
    rewritten = readout.subject_question(question, first.archetypes, subject)
    if rewritten is None:
        raise UnknownAnswerError(readout.SUBJECT, subject, [])
    return check(rewritten, databases, dataclasses.replace(options, answers=rest))


def unknown_answer(err: Exception) -> str:
    """An --answer naming an archetype that does not exist or did not fire, or a value it does not take."""
    from archetypes.registry import BY_ID

    archetype, value, allowed = getattr(err, "archetype", ""), getattr(err, "value", ""), getattr(err, "allowed", [])
    if archetype not in BY_ID:
        return f"--answer: there is no archetype {archetype!r} (archetypes: {', '.join(BY_ID)})"
    if not allowed:
        return f"--answer: {archetype} did not fire on this question, so there is nothing to answer"
    return f"--answer: {archetype} takes one of {', '.join(allowed)}; got {value!r}"


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
    from archetypes import UnknownAnswerError

    try:
        require_sqlite_files(db)
        databases = databases_from_options(db, options.limits)
        if refresh_profile:
            refresh_profiles(databases, profile)
        report = check_with_subject(question, databases, options)
    except UnknownAnswerError as err:
        fail(unknown_answer(err))
    except CheckerError as err:
        fail(str(err))
    if as_json:
        emit_json(report.to_dict())
    else:
        click.echo(report_text(report))
    raise SystemExit(EXIT_OK)
