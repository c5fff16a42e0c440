"""`ambiguity-checker demo`: the headline in one command. Seeds the demo orders database on every local
engine it can reach (SQLite always; PostgreSQL and MariaDB/MySQL on their default local ports), says which
it found, and serves the page on all of them, so the side-by-side run is the first thing a newcomer sees.

Seeding is idempotent (`seed_db.seed_database`): a second `demo` finds the data in place and starts at once.
"""
from __future__ import annotations

import os
from dataclasses import dataclass

import click
import sqlalchemy as sa

from adapters import CheckerError
from adapters.connections import parse_url
from adapters.urls import display_url
from checker_app.commands.common import db_options, fail, limits_from
from checker_app.commands.serve import page_options, run_streamlit
from checker_app.settings import DEMO_SCALE, DEMO_SEED, ensure_demo_database, serve_environment

# the URLs as the README shows them and `check --db` takes them (parse_url picks psycopg and pymysql); they are
# printed as given, so what `demo` prints can be pasted into `--db`
POSTGRES = "postgresql://postgres@127.0.0.1:5432/ambiguity_checker_demo"
MARIADB = "mysql://root@127.0.0.1:3306/ambiguity_checker_demo"
REACH_S = 3


@dataclass(frozen=True)
class Found:
    name: str
    url: str
    reached: bool
    why: str = ""    # why not, when not reached
    seeded: str = ""  # "loaded" | "already there"


def _server_url(url: str) -> sa.URL:
    """The server of `url` without its database (reachable even before the database exists)."""
    parsed = parse_url(url)
    return parsed._replace(database="postgres" if parsed.get_backend_name() == "postgresql" else None)


def reachable(url: str, timeout_s: float = REACH_S) -> str | None:
    """None when the server answers, else why not (one line, no password)."""
    parsed = _server_url(url)
    args = {"connect_timeout": int(max(1, timeout_s))}
    if parsed.get_backend_name() == "mysql":
        args["read_timeout"] = int(max(1, timeout_s))
    engine = sa.create_engine(parsed, connect_args=args, poolclass=sa.pool.NullPool)
    try:
        with engine.connect() as connection:
            connection.execute(sa.text("SELECT 1"))
        return None
    except Exception as err:  # noqa: BLE001 - any failure means "not here"
        first = (str(getattr(err, "orig", None) or err).splitlines() or [type(err).__name__])[0]
        return first.replace(parsed.password or "\0", "***")[:160]
    finally:
        engine.dispose()


def find_engines(postgres: str | None, mysql: str | None, scale: int = DEMO_SCALE) -> list[Found]:
    """SQLite, then each server that answers, with the demo database seeded on it."""
    from seed_db import seed_database

    found = [Found("sqlite", ensure_demo_database(), True, seeded="ready")]
    for name, url in (("postgresql", postgres), ("mariadb", mysql)):
        if not url:
            continue
        why = reachable(url)
        if why is not None:
            found.append(Found(name, url, False, why))
            continue
        try:
            report = seed_database(parse_url(url), scale=scale, seed=DEMO_SEED)  # with its driver (mysql://)
        except CheckerError as err:
            found.append(Found(name, url, False, f"cannot seed: {err}"))
            continue
        found.append(Found(name, url, True, seeded="already there" if report.skipped else
                           f"loaded in {report.seconds:.1f} s"))
    return found


@click.command("demo")
@page_options
@click.option("--postgres", default=POSTGRES, show_default=True, metavar="URL",
              help="Where to seed the demo on PostgreSQL ('' to leave it out).")
@click.option("--mysql", default=MARIADB, show_default=True, metavar="URL",
              help="Where to seed the demo on MariaDB/MySQL ('' to leave it out).")
@click.option("--no-serve", is_flag=True, help="Seed and report the engines, then exit (no page).")
@db_options
def demo(port: int, address: str, headless: bool, postgres: str, mysql: str, no_serve: bool, db: tuple[str, ...],
         timeout: float, max_rows: int) -> None:
    """Seed the demo database on every local engine it can reach, then serve the page on all of them."""
    limits_from(timeout, max_rows)
    if db:
        fail("demo finds its engines itself: use --postgres/--mysql, or `serve --db ...`")
    try:
        found = find_engines(postgres or None, mysql or None)
    except Exception as err:  # noqa: BLE001 - the embedded SQLite demo itself failed
        fail(f"embedded demo database: {err}")
    for engine in found:
        where = display_url(engine.url)  # as given (no driver added), its password scrubbed
        if engine.reached:
            click.echo(f"  found {engine.name:<10} {where}  (demo data {engine.seeded})", err=True)
        else:
            click.echo(f"  no    {engine.name:<10} {where}  ({engine.why})", err=True)
    values = [f"{e.name}={e.url}" for e in found if e.reached]
    click.echo(f"ambiguity-checker demo: {len(values)} engine(s): " + ", ".join(e.name for e in found if e.reached),
               err=True)
    if no_serve:
        return
    run_streamlit(port, address, headless, {**os.environ, **serve_environment(values, timeout, max_rows, "demo")})
