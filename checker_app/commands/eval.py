"""`ambiguity-checker eval FILE`: precision and recall per archetype on a labelled question set, or the
gold-answer scores of the rules' readings, the model's (`--engine model`) or both side by side."""
from __future__ import annotations

import click

from adapters import Database, parse_db_options
from checker_app.commands.common import EXIT_ENGINE_ERROR, EXIT_OK, emit_json, fail, limits_from
from checker_app.evaluation.labelled import CaseFileError, detector_for, evaluate, load_cases, report_text


@click.command("eval")
@click.argument("file", type=click.Path(exists=True, dir_okay=True, path_type=str))
@click.option("--db", "db", multiple=True, metavar="NAME=URL",
              help="Connection for cases whose db is NAME, repeatable; `demo` defaults to the embedded demo "
                   "database, other names must be given.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.option("--strict", is_flag=True,
              help="Exit 1 when any case was skipped (database not configured) or could not be evaluated.")
@click.option("--timeout", "timeout", type=float, default=10.0, show_default=True,
              help="Time limit in seconds for each query the detectors run on a database.")
@click.option("--engine", type=click.Choice(["rules", "model", "both"]), default="rules", show_default=True,
              help="Gold files: whose readings are scored, the rules', a model's (OPENAI_API_KEY, "
                   "OPENAI_BASE_URL, CHECKER_MODEL) or both side by side.")
@click.option("--limit", type=click.IntRange(min=1), default=None, metavar="N",
              help="Only the first N cases (a quick sample against a slow local model).")
def eval_command(file: str, db: tuple[str, ...], as_json: bool, strict: bool, timeout: float, engine: str,
                 limit: int | None) -> None:
    """Score the checker on labelled questions (a .jsonl file or a directory of them).

    Archetype labels: precision and recall per archetype, false positives on clear questions. Gold readings
    (cases with "readings"): gold found, all found, precision, false clear and partial per database, for the
    rules' readings or the model's (--engine model|both: also how often it asked, tokens and seconds per
    question, and its failures per case)."""
    limits = limits_from(timeout, 1000)
    from checker_app.evaluation.gold import GoldFileError, evaluate_gold, is_gold_file, load_gold
    from checker_app.evaluation.gold import report_text as gold_text

    gold = is_gold_file(file)
    try:
        cases = load_gold(file) if gold else load_cases(file)
    except (CaseFileError, GoldFileError) as err:
        fail(str(err))
        return
    if limit is not None:
        cases = cases[:limit]
    settings = None
    if engine != "rules":
        from checker_app.llm.settings import ModelSettings

        if not gold:
            fail(f"--engine {engine} scores gold-answer files (cases with \"readings\"); {file} holds archetype labels")
        try:
            settings = ModelSettings.from_env()
        except Exception as err:  # noqa: BLE001 - ConfigError: a bad CHECKER_MODEL_* value
            fail(str(err))
        if not settings.enabled:
            fail(f"--engine {engine}: {settings.off_reason} (a local server takes any key)")
    try:
        configs = parse_db_options(list(db))
    except Exception as err:  # noqa: BLE001 - ConfigError: a bad URL
        fail(str(err))
        return
    databases = {config.name: Database(config, limits) for config in configs}
    wanted = {case.db for case in cases}
    if "demo" in wanted and "demo" not in databases:
        from adapters import parse_db_option
        from checker_app.settings import ensure_demo_database

        try:
            databases["demo"] = Database(parse_db_option(f"demo={ensure_demo_database()}"), limits)
        except Exception as err:  # noqa: BLE001 - seeding the embedded demo database failed
            fail(f"embedded demo database: {err}")
            return
    for name in sorted(set(databases) - wanted):
        click.echo(f"note: no case uses --db {name}", err=True)
    try:
        if gold and engine != "rules":
            from checker_app.llm.scoring import engines_text, evaluate_engines

            rules, model = evaluate_engines(cases, databases, engine, settings, limits=limits)
            assert model is not None
            payload = {"engine": engine, "model": model.to_dict()}
            if rules is not None:
                payload["rules"] = rules.to_dict()
            text = engines_text(rules, model)
            incomplete = any(bool(r.skipped) or any(c.errors for c in r.results)
                             for r in (rules, model.report) if r is not None) or bool(model.failed)
        elif gold:
            scored = evaluate_gold(cases, databases)
            payload, text = scored.to_dict(), gold_text(scored)
            incomplete = bool(scored.skipped) or any(r.errors for r in scored.results)
        else:
            report = evaluate(cases, detector_for(databases), skip_dbs=wanted - set(databases))
            payload, text = report.to_dict(), report_text(report)
            incomplete = bool(report.skipped) or bool(report.errors)
    finally:
        for database in databases.values():
            database.dispose()
    if as_json:
        emit_json(payload)
    else:
        click.echo(text)
    raise SystemExit(EXIT_ENGINE_ERROR if strict and incomplete else EXIT_OK)
