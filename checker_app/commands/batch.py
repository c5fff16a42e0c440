"""`ambiguity-checker batch FILE`: one JSON report per question, profiles loaded once."""
from __future__ import annotations

import json
from pathlib import Path

import click

from adapters import CheckerError
from checker_app.commands.check import check_options, parse_answers, parse_as_of
from checker_app.commands.common import EXIT_ENGINE_ERROR, EXIT_OK, emit_json, fail, limits_from
from checker_app.pipeline import CheckOptions, check
from checker_app.profiles import refresh_profiles
from checker_app.settings import databases_from_options


def read_questions(path: Path) -> list[tuple[int, str]]:
    """(line number, question) from plain lines or JSONL objects with a `q` field."""
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise CheckerError(f"{path}: not UTF-8 text") from None
    questions: list[tuple[int, str]] = []
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("{"):
            try:
                value = json.loads(line).get("q")
            except (json.JSONDecodeError, AttributeError):
                raise CheckerError(f"{path}:{number}: not a JSON object") from None
            if not isinstance(value, str):
                raise CheckerError(f"{path}:{number}: JSON line has no string field 'q'")
            line = value
        questions.append((number, line))
    return questions


@click.command("batch")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@check_options
def batch(file: Path, answer: tuple[str, ...], as_of: str | None, profile: Path | None, cap: int,
          refresh_profile: bool, db: tuple[str, ...], timeout: float, max_rows: int) -> None:
    """Check every question in FILE (a question per line, or JSONL with a `q` field)."""
    options = CheckOptions(answers=parse_answers(answer), as_of=parse_as_of(as_of), cap=cap,
                           limits=limits_from(timeout, max_rows), profile_overrides=profile)
    try:
        questions = read_questions(file)
        databases = databases_from_options(db, options.limits)
    except CheckerError as err:
        fail(str(err))
        return
    if refresh_profile:
        refresh_profiles(databases, profile)
    failures = 0
    for number, question in questions:
        try:
            emit_json(check(question, databases, options).to_dict())
        except CheckerError as err:
            failures += 1
            emit_json({"question": question, "line": number, "error": str(err)})
    raise SystemExit(EXIT_ENGINE_ERROR if failures else EXIT_OK)
