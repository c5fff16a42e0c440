"""`ambiguity-checker serve [--port N] [--db ...]`: the checker page in a browser (Streamlit).

Configuration reaches the page through the environment (CHECKER_DB, CHECKER_TIMEOUT, CHECKER_MAX_ROWS),
never through the command line of the Streamlit process or a URL, so a password in `--db` is not
visible in `ps` or the address bar. The Streamlit server runs as a child process whose real PID we
keep (`subprocess.Popen`), and it is stopped with this command.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import click

from adapters import CheckerError, parse_db_options
from checker_app.commands.common import db_options, fail, limits_from
from checker_app.ui.config import serve_environment

APP = Path(__file__).resolve().parent.parent / "streamlit_app.py"


def streamlit_command(port: int, headless: bool, address: str | None = None) -> list[str]:
    command = [sys.executable, "-m", "streamlit", "run", str(APP),
               "--server.port", str(port), "--server.headless", "true" if headless else "false",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none"]
    if address:
        command += ["--server.address", address]
    return command


@click.command("serve")
@click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True, help="Port to listen on.")
@click.option("--address", default=None, metavar="HOST", help="Address to bind (default: Streamlit's, all interfaces).")
@click.option("--headless/--no-headless", default=True, show_default=True,
              help="Do not open a browser window.")
@db_options
def serve(port: int, address: str | None, headless: bool, db: tuple[str, ...], timeout: float, max_rows: int) -> None:
    """Start the checker page (with no --db: the embedded demo database)."""
    limits_from(timeout, max_rows)
    values = list(db)
    try:
        if values:
            parse_db_options(values)  # fail here, with a message that never echoes a password
        else:
            from checker_app.settings import ensure_demo_database

            ensure_demo_database()    # seeded before the page opens, so the first question is fast
    except CheckerError as err:
        fail(str(err))
        return
    except Exception as err:  # seeding the demo database
        fail(f"embedded demo database: {err}")
        return
    env = {**os.environ, **serve_environment(values, timeout, max_rows)}
    click.echo(f"ambiguity-checker: http://{address or 'localhost'}:{port}/  (Ctrl+C to stop)", err=True)
    process = subprocess.Popen(streamlit_command(port, headless, address), env=env)

    def stop(signum: int, _frame: object) -> None:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM if signum != signal.SIGINT else signal.SIGINT)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = process.wait()
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
        if process.poll() is None:
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
    raise SystemExit(code if code >= 0 else 0)
