"""`ambiguity-checker serve [--port N] [--address HOST] [--db ...]`: the checker page in a browser (Streamlit).

Configuration reaches the page through the environment (CHECKER_DB, CHECKER_TIMEOUT, CHECKER_MAX_ROWS),
never through the command line of the Streamlit process or a URL, so a password in `--db` is not
visible in `ps` or the address bar. The Streamlit server runs as a child process whose real PID we
keep (`subprocess.Popen`), and it is stopped with this command.

Reinstalling the package in the same environment must not break a running page: the app script and its
pages are served from a copy under CHECKER_HOME (`app/<content hash>/`), and the server process loads
every module of the application before it serves (`python -m checker_app.serve_main`), so files that a
reinstall removes or moves are never read again by the running page.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import click

from adapters import CheckerError, parse_db_options
from checker_app.commands.common import db_options, fail, limits_from
from checker_app.settings import home_dir, serve_environment

PACKAGE = Path(__file__).resolve().parent.parent
APP_FILES = ("streamlit_app.py",)
DEFAULT_ADDRESS = "localhost"
VIEWS = "views"  # the copied pages: not `pages/`, which Streamlit would also list as pages of its own


def app_copy(home: Path | None = None) -> Path:
    """A copy of the app script and its pages under CHECKER_HOME, named by their content (reused when
    unchanged); returns the copied entry script."""
    sources = [PACKAGE / name for name in APP_FILES] + sorted((PACKAGE / "pages").glob("*.py"))
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    target = (home or home_dir()) / "app" / digest.hexdigest()[:16]
    if not (target / APP_FILES[0]).exists():
        staging = target.with_name(target.name + f".tmp{os.getpid()}")
        (staging / VIEWS).mkdir(parents=True, exist_ok=True)
        for path in sources:
            shutil.copy2(path, staging / (VIEWS if path.parent.name == "pages" else "") / path.name)
        try:
            staging.rename(target)
        except OSError:  # another serve made the same copy first
            shutil.rmtree(staging, ignore_errors=True)
    return target / APP_FILES[0]


def streamlit_command(port: int, headless: bool, address: str | None = DEFAULT_ADDRESS,
                      script: Path | None = None) -> list[str]:
    command = [sys.executable, "-m", "checker_app.serve_main", "run", str(script or PACKAGE / APP_FILES[0]),
               "--server.port", str(port), "--server.headless", "true" if headless else "false",
               "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
               "--client.toolbarMode", "viewer", "--server.address", address or DEFAULT_ADDRESS]
    return command


def run_streamlit(port: int, address: str, headless: bool, env: dict[str, str]) -> None:
    """Start the page and wait for it; Ctrl+C and SIGTERM stop it. Exits with its exit code."""
    shown = f"[{address}]" if ":" in address else address
    click.echo(f"ambiguity-checker: http://{shown}:{port}/  (Ctrl+C to stop)", err=True)
    process = subprocess.Popen(streamlit_command(port, headless, address, app_copy()), env=env)

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


def page_options(f):  # click decorator stack
    f = click.option("--headless/--no-headless", default=True, show_default=True,
                     help="Do not open a browser window.")(f)
    f = click.option("--address", default=DEFAULT_ADDRESS, show_default=True, metavar="HOST",
                     help="Address to listen on; 0.0.0.0 for every interface (others on the network can "
                          "then open the page).")(f)
    f = click.option("--port", type=click.IntRange(1, 65535), default=8501, show_default=True,
                     help="Port to listen on.")(f)
    return f


@click.command("serve")
@page_options
@click.option("--profile", "profile", type=click.Path(exists=True, dir_okay=False, path_type=Path), default=None,
              help="YAML file correcting or extending the schema profile (as for check), read by the page.")
@db_options
def serve(port: int, address: str, headless: bool, profile: Path | None, db: tuple[str, ...], timeout: float,
          max_rows: int) -> None:
    """Start the checker page (with no --db: the embedded demo database)."""
    limits_from(timeout, max_rows)
    values = list(db)
    try:
        if profile is not None:
            from archetypes import load_profile_overrides
            from checker_app.profiles import checked_overrides

            checked_overrides(load_profile_overrides(profile), profile)  # a bad file fails here, in one line
        if values:
            parse_db_options(values)  # fail here, with a message that never echoes a password
        else:
            from checker_app.settings import ensure_demo_database

            ensure_demo_database()    # seeded before the page opens, so the first question is fast
    except CheckerError as err:
        fail(str(err))
    except Exception as err:  # noqa: BLE001 - seeding the demo database
        fail(f"embedded demo database: {err}")
    run_streamlit(port, address, headless, {**os.environ, **serve_environment(values, timeout, max_rows,
                                                                            profile=profile)})
