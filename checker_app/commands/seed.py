"""`ambiguity-checker seed --db URL [--scale N] [--schema demo|history]`: create and load a generated database."""
from __future__ import annotations

import click

from adapters import parse_db_option
from checker_app.commands.common import fail


@click.command("seed")
@click.option("--db", "db", required=True, metavar="[NAME=]URL", help="Where to create the demo database.")
@click.option("--scale", type=click.IntRange(1, 1000), default=1, show_default=True,
              help="1 is about 20,000 order items; 50 is over 1,000,000.")
@click.option("--seed", "seed", type=int, default=42, show_default=True)
@click.option("--force", is_flag=True, help="Rebuild even when the same seed and scale are loaded.")
@click.option("--schema", type=click.Choice(["demo", "history"]), default="demo", show_default=True,
              help="demo: the orders database; history: subscriptions, price history, statuses, soft deletes "
                   "(scale 1 is about 105,000 rows, 30 over 3,000,000).")
def seed(db: str, scale: int, seed: int, force: bool, schema: str) -> None:
    """Create and load a generated database on SQLite, PostgreSQL or MySQL/MariaDB."""
    from seed_db import SeedError, seed_database

    try:
        config = parse_db_option(db)
        report = seed_database(config.url.render_as_string(hide_password=False), scale=scale, seed=seed, force=force,
                               schema=schema)
    except SeedError as err:
        fail(str(err))
        return
    except Exception as err:  # noqa: BLE001 - ConfigError
        fail(str(err))
        return
    verb = "already loaded" if report.skipped else f"loaded in {report.seconds:.1f} s"
    total = sum(report.rows.values())
    click.echo(f"{report.url_display}: {schema} seed {report.seed} scale {report.scale} {verb} ({total:,} rows)")
