"""`ambiguity-checker schema [--batch]`: the JSON Schema of the report (or of a `batch` line)."""
from __future__ import annotations

import click

from checker_app.contract import schema_text


@click.command("schema")
@click.option("--batch", "batch", is_flag=True, help="The schema of a `batch` line (a report or an error).")
def schema(batch: bool) -> None:
    """Print the JSON Schema of `check --json` reports (docs/report.schema.json)."""
    click.echo(schema_text("batch" if batch else "report"), nl=False)
