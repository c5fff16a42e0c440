"""`ambiguity-checker prompt`: the system prompt model mode sends, generated from the archetypes and the schema."""
from __future__ import annotations

import json
from pathlib import Path

import click

from adapters import CheckerError
from checker_app.commands.common import EXIT_OK, db_options, emit_json, fail, limits_from
from checker_app.profiles import load_profile
from checker_app.settings import databases_from_options


@click.command("prompt")
@click.option("--profile", "profile", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="YAML file correcting or extending the schema profile.")
@click.option("--tools", is_flag=True, help="Also print the render_ask_user_question tool and the readings schema.")
@click.option("--json", "as_json", is_flag=True, help="Print {system, tools, response_format} as JSON.")
@db_options
def prompt(profile: Path | None, tools: bool, as_json: bool, db: tuple[str, ...], timeout: float,
           max_rows: int) -> None:
    """Print the model-mode system prompt for the first --db (default: the demo database)."""
    from checker_app.llm.prompt import archetype_ids, system_prompt
    from checker_app.llm.readings import response_format
    from checker_app.llm.tool import tool_definition

    try:
        databases = databases_from_options(db, limits_from(timeout, max_rows))
        text = system_prompt(load_profile(databases[0], profile))
    except CheckerError as err:
        fail(str(err))
        return
    tool = tool_definition(archetype_ids())
    if as_json:
        emit_json({"system": text, "tools": [tool], "response_format": response_format(archetype_ids())})
    else:
        click.echo(text)
        if tools:
            click.echo("\n--- tool ---\n" + json.dumps(tool, indent=2))
            click.echo("\n--- readings (structured output) ---\n" + json.dumps(response_format(archetype_ids()), indent=2))
    raise SystemExit(EXIT_OK)
