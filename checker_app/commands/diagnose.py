"""`ambiguity-checker diagnose FILE`: flag saved conversation traces where the clarification loop broke."""
from __future__ import annotations

from pathlib import Path

import click

from adapters import CheckerError
from checker_app.commands.common import EXIT_ENGINE_ERROR, EXIT_OK, db_options, emit_json, fail, limits_from, shown
from checker_app.profiles import load_profile, lookup_for
from checker_app.settings import databases_from_options

EXIT_FINDINGS = EXIT_ENGINE_ERROR  # 1: the trace shows at least one finding


@click.command("diagnose")
@click.argument("files", nargs=-1, type=click.Path(dir_okay=False, path_type=Path))
@click.option("--samples", is_flag=True, help="Diagnose the sample traces shipped with the checker.")
@click.option("--profile", "profile", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="YAML file correcting or extending the schema profile.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON report per file.")
@db_options
def diagnose(files: tuple[Path, ...], samples: bool, profile: Path | None, as_json: bool, db: tuple[str, ...],
             timeout: float, max_rows: int) -> None:
    """Read saved traces (JSON or JSONL chat messages with tool calls) and flag, by pattern code:
    D001 SQL after an ambiguous question with no clarification call (judged by the rules on the --db
    schema, default the demo database), D002 SQL with placeholders, D003 a clarification call left
    pending, D004 a malformed clarification call. Exit 1 when anything is flagged."""
    from checker_app.diagnose import diagnose_path, rules_classifier, sample_traces

    paths = list(files) + (sample_traces() if samples else [])
    if not paths:
        fail("give a trace FILE (or --samples)")
        return
    try:
        database = databases_from_options(db, limits_from(timeout, max_rows))[0]
        classify = rules_classifier(load_profile(database, profile), lookup_for(database))
    except CheckerError as err:
        fail(str(err))
        return
    flagged = False
    for path in paths:
        try:
            report = diagnose_path(path, classify)
        except (CheckerError, RecursionError, ValueError) as err:  # one bad trace never stops the others
            flagged = True
            message = "JSON nested too deeply" if isinstance(err, RecursionError) else str(err)
            if as_json:
                emit_json({"source": path.name, "error": shown(message)})
            else:
                click.echo(f"{path.name}: error: {shown(message)}")
            continue
        flagged = flagged or bool(report.findings)
        if as_json:
            emit_json(report.to_dict())
        else:
            click.echo(report.text())
    raise SystemExit(EXIT_FINDINGS if flagged else EXIT_OK)
