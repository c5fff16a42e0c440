"""Fixtures shared by the suite: live servers, throwaway databases, the demo database, datasets."""
from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.llm_server import ScriptedLLM

from adapters import Database, Limits, parse_db_option
from tests.support import (
    BACKENDS,
    DATASETS,
    ServerDatabases,
    assert_valid,
    each_engine,
    load_chinook,
    load_northwind,
    unavailable,
)


def _datasets_line() -> str:
    if DATASETS.is_dir():
        return f"datasets: {DATASETS}"
    return (f"datasets: {DATASETS} does not exist: the Chinook and Northwind tests skip (fail with "
            "CHECKER_STRICT_TESTS=1); set CHECKER_DATASETS to the folder holding chinook/ and northwind/")


def pytest_report_header() -> str:
    """Where the datasets are looked for, said before anything skips: a clone outside the shared workspace
    finds no `../shared/datasets`, and some 200 tests then skip one by one."""
    return _datasets_line()


def pytest_terminal_summary(terminalreporter) -> None:
    """The same line at the end when the datasets are missing (`-q`, the README's command, hides the header)."""
    if not DATASETS.is_dir():
        terminalreporter.write_line(_datasets_line(), yellow=True)


@pytest.fixture(autouse=True)
def reports_match_their_schema(monkeypatch) -> Iterator[None]:
    """Every report a test builds (through the pipeline, a command run in-process, the page under AppTest, or
    by hand) validates against docs/report.schema.json, checked after the test so later changes to the
    report count too. CLI tests in subprocesses validate their output with `assert_valid` themselves."""
    import json

    from checker_app.report import Report

    built: list[Report] = []
    original = Report.__init__

    def recording(self: Report, **fields: object) -> None:
        original(self, **fields)
        built.append(self)

    monkeypatch.setattr(Report, "__init__", recording)
    yield
    for report in built:
        assert_valid(json.loads(json.dumps(report.to_dict(), default=str)))


@pytest.fixture(scope="session", autouse=True)
def profile_store_dir(tmp_path_factory) -> Iterator[str]:
    """Stored schema profiles go to a session directory (inherited by CLI subprocesses), not the user's cache."""
    saved = os.environ.get("CHECKER_PROFILE_DIR")
    path = str(tmp_path_factory.mktemp("profiles"))
    os.environ["CHECKER_PROFILE_DIR"] = path
    yield path
    if saved is None:
        os.environ.pop("CHECKER_PROFILE_DIR", None)
    else:
        os.environ["CHECKER_PROFILE_DIR"] = saved


@pytest.fixture
def servers(tmp_path) -> Iterator[ServerDatabases]:
    """Per-test throwaway databases: `servers.create("postgresql")` returns a URL."""
    databases = ServerDatabases(tmp_path)
    yield databases
    databases.drop_all()


@pytest.fixture(scope="session")
def session_servers(tmp_path_factory) -> Iterator[ServerDatabases]:
    databases = ServerDatabases(tmp_path_factory.mktemp("session-dbs"))
    yield databases
    databases.drop_all()


@pytest.fixture(scope="module")
def demo_databases(demo_urls) -> Iterator[list[Database]]:
    """One Database per engine on the seeded demo, disposed after the module (its own profiles and memos)."""
    databases = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits()) for b in BACKENDS]
    yield databases
    for db in databases:
        db.dispose()


@pytest.fixture(scope="module")
def demo(demo_urls) -> Iterator[list[Database]]:
    """The seeded demo on every engine, 20 s per statement (a series' statement on a loaded machine); a module
    may define its own `demo`."""
    yield from each_engine(demo_urls)


@pytest.fixture(scope="module")
def history(history_urls) -> Iterator[list[Database]]:
    """The history schema on every engine, 20 s per statement."""
    yield from each_engine(history_urls)


@pytest.fixture(scope="session")
def demo_urls(session_servers) -> dict[str, str]:
    """The demo orders database (seed 42, scale 1) on every engine: {backend: URL}."""
    from seed_db import seed_database

    urls: dict[str, str] = {}
    for backend in BACKENDS:
        url = session_servers.create(backend, prefix="ac_demo")
        seed_database(url, scale=1, seed=42)
        urls[backend] = url
    return urls


@pytest.fixture(scope="session")
def history_urls(session_servers) -> dict[str, str]:
    """The subscription history schema (seed 42, scale 1, about 105,000 rows) on every engine: {backend: URL}."""
    from seed_db import seed_database

    urls: dict[str, str] = {}
    for backend in BACKENDS:
        url = session_servers.create(backend, prefix="ac_history")
        seed_database(url, scale=1, seed=42, schema="history")
        urls[backend] = url
    return urls


@pytest.fixture(scope="session")
def chinook_urls(session_servers) -> dict[str, str]:
    """Chinook on SQLite, PostgreSQL and MariaDB: {backend: URL}."""
    return {backend: load_chinook(backend, session_servers) for backend in BACKENDS}


@pytest.fixture(scope="session")
def northwind_urls(session_servers) -> dict[str, str]:
    """Northwind on SQLite and PostgreSQL: {backend: URL}."""
    return {backend: load_northwind(backend, session_servers) for backend in ("sqlite", "postgresql")}



@pytest.fixture(scope="module")
def demo_dbs(demo_urls) -> Iterator[list[Database]]:
    """The demo database on every engine, as Databases (model-mode tests)."""
    databases = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits(time_limit_s=10)) for b in BACKENDS]
    yield databases
    for db in databases:
        db.dispose()


@pytest.fixture
def llm_page(monkeypatch, tmp_path, demo_urls) -> Iterator[ScriptedLLM]:
    """The checker page pointed at the demo database (SQLite) and at a started scripted model server."""
    import json

    from checker_app.ui.config import ENV_DB, ENV_MAX_ROWS, ENV_TIMEOUT
    from tests.llm_server import ScriptedLLM

    server = ScriptedLLM().start()
    monkeypatch.setenv("CHECKER_HOME", str(tmp_path))
    monkeypatch.setenv(ENV_TIMEOUT, "5")
    monkeypatch.setenv(ENV_MAX_ROWS, "1000")
    monkeypatch.setenv(ENV_DB, json.dumps([f"demo={demo_urls['sqlite']}"]))
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
    monkeypatch.setenv("CHECKER_MODEL", "scripted-model")
    monkeypatch.setenv("CHECKER_MODEL_TIMEOUT", "5")
    monkeypatch.setenv("CHECKER_MODEL_RETRIES", "0")
    yield server
    server.stop()


__all__ = ["unavailable"]
