"""`ambiguity-checker batch FILE`: one JSON report per question, profiles loaded once, each statement sent once."""
from __future__ import annotations

import json
from pathlib import Path

import click

from adapters import CheckerError
from checker_app.commands.check import check_options, parse_answers, parse_as_of
from checker_app.commands.common import EXIT_ENGINE_ERROR, EXIT_OK, emit_json, fail, limits_from, shown
from checker_app.long_run import fewer_collections
from checker_app.pipeline import CheckOptions, analyse_ahead, check
from checker_app.profiles import refresh_profiles
from checker_app.settings import databases_from_options


def _record(line: str, number: int, path: Path) -> str:
    """The question on one line: plain text, or a JSON object's string field `q`; CheckerError otherwise."""
    if not line.startswith("{"):
        return line
    try:
        value = json.loads(line)
    except json.JSONDecodeError:
        raise CheckerError(f"{path}:{number}: not a JSON object") from None
    except RecursionError:
        raise CheckerError(f"{path}:{number}: JSON nested too deeply") from None
    if not isinstance(value, dict):
        raise CheckerError(f"{path}:{number}: not a JSON object")
    question = value.get("q")
    if not isinstance(question, str):
        raise CheckerError(f"{path}:{number}: JSON line has no string field 'q'")
    return question


def read_questions(path: Path) -> list[tuple[int, str | CheckerError]]:
    """(line number, question or why that line cannot be one) from plain lines or JSONL with a `q` field."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise CheckerError(f"{path}: not UTF-8 text") from None
    questions: list[tuple[int, str | CheckerError]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            questions.append((number, _record(line, number, path)))
        except CheckerError as err:
            questions.append((number, err))
    return questions


@click.command("batch")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@check_options
def batch(file: Path, answer: tuple[str, ...], as_of: str | None, profile: Path | None, cap: int,
          refresh_profile: bool, db: tuple[str, ...], timeout: float, max_rows: int) -> None:
    """Check every question in FILE (a question per line, or JSONL with a `q` field)."""
    # a statement answered once in the batch is not sent again: the questions are read as of one moment
    options = CheckOptions(answers=parse_answers(answer), as_of=parse_as_of(as_of), cap=cap,
                           limits=limits_from(timeout, max_rows), profile_overrides=profile, answered={})
    try:
        questions = read_questions(file)
        databases = databases_from_options(db, options.limits)
    except CheckerError as err:
        fail(str(err))
        return
    if refresh_profile:
        refresh_profiles(databases, profile)
    failures = 0
    ahead = None  # the next question, analysed while this one's statements run (`analyse_ahead`)
    with fewer_collections() as settle:  # the collector set for a long run (`checker_app.long_run`)
        for index, (number, question) in enumerate(questions):
            if index == 1:
                settle()  # the first check is done and nothing runs beside it: what it loaded stays
            if ahead is not None:
                ahead.result()  # one analysis at a time: the check below finds it made, or makes it
            following = next((q for _, q in questions[index + 1:index + 2] if isinstance(q, str)), None)
            ahead = analyse_ahead(following, databases, options) if following is not None and index else None
            if isinstance(question, CheckerError):
                failures += 1
                emit_json({"question": None, "line": number, "error": str(question)})
                continue
            try:
                emit_json(check(question, databases, options).to_dict())
            except Exception as err:  # noqa: BLE001 - one bad record never stops the batch
                failures += 1
                message = str(err) if isinstance(err, CheckerError) else f"internal: {type(err).__name__}: {err}"
                emit_json({"question": question, "line": number, "error": shown(message)})
    raise SystemExit(EXIT_ENGINE_ERROR if failures else EXIT_OK)
