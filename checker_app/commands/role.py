"""`ambiguity-checker role --db URL`: the statements that create a least-privilege role for the checker."""
from __future__ import annotations

import click

from adapters import CheckerError, parse_db_option
from adapters.privileges import role_statements
from checker_app.commands.common import fail


@click.command("role")
@click.option("--db", "db", required=True, metavar="[NAME=]URL", help="The database the role may read.")
@click.option("--name", "name", default="checker_ro", show_default=True, help="The role (user) to create.")
@click.option("--schema", "schema", default="public", show_default=True, help="PostgreSQL schema to grant SELECT on.")
def role(db: str, name: str, schema: str) -> None:
    """Print the SQL (run it as an administrator) that creates a login role that can only read the
    database: PostgreSQL SELECT per schema (or pg_read_all_data), no superuser, pg_read_server_files or
    pg_signal_backend; MariaDB SELECT on the one database, no FILE. Then use that role in --db."""
    try:
        config = parse_db_option(db)
        database = config.url.database or ""
        if config.backend != "sqlite" and not database:
            raise CheckerError("the URL names no database")
        statements = role_statements(config.backend, database, name, schema)
    except (CheckerError, ValueError) as err:
        fail(str(err))
        return
    click.echo("\n".join(statements))
