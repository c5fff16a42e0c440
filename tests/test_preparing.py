"""Each engine's profile and privilege check (`checker_app.preparing`), on the three real engines: the
statements are sent without waiting for the privilege checks, and the warnings still reach the report, in
the same place among its notes and on its engines."""
from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from adapters import Database, Limits, parse_db_option
from checker_app.pipeline import check
from checker_app.preparing import prepare
from tests.support import BACKENDS

QUESTION = "What is the top-selling product?"


@pytest.fixture
def fresh(demo_urls) -> Iterator[list[Database]]:
    """New connections (nothing read or checked yet), as a new CLI call makes them."""
    databases = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits()) for b in BACKENDS]
    yield databases
    for db in databases:
        db.dispose()


def test_statements_are_sent_before_the_privilege_checks_end(fresh) -> None:
    sent = threading.Event()
    for db in fresh:
        run, warning = db.run, db.privilege_warning

        def running(sql, limits=None, _run=run):
            sent.set()
            return _run(sql, limits)

        def held(_warning=warning) -> str | None:
            # a check that waited for this before sending anything would wait here until the timeout
            assert sent.wait(timeout=60), "no statement was sent while the privilege checks were held"
            return _warning()

        db.run = running  # type: ignore[method-assign]
        db.privilege_warning = held  # type: ignore[method-assign]
    report = check(QUESTION, fresh)
    assert sent.is_set()
    assert all(result.ok for reading in report.interpretations for result in reading.results.values())


def test_the_warnings_reach_the_report_in_their_place(fresh, demo_databases) -> None:
    """The same notes, in the same order, and the same engines (with their warnings) as a check whose
    privileges were read before it began."""
    for db in demo_databases:
        db.privilege_warning()
    checked_first = check(QUESTION, demo_databases).to_dict()
    report = check(QUESTION, fresh).to_dict()
    assert report["notes"] == checked_first["notes"]
    assert report["engines"] == checked_first["engines"]
    warnings = {db.name: db.privilege_warning() for db in fresh}
    for line in (w for w in warnings.values() if w):
        assert line in report["notes"]  # connected as superuser / ALL PRIVILEGES on this machine's servers


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_engine_whose_profile_cannot_be_read_gets_no_privilege_check(tmp_path, backend, demo_urls) -> None:
    broken = Database(parse_db_option(f"broken=sqlite:///{tmp_path / 'missing.sqlite'}"), Limits(time_limit_s=2))
    db = Database(parse_db_option(f"{backend}={demo_urls[backend]}"), Limits())
    try:
        prepared = prepare([db, broken], None)
        assert not isinstance(prepared.profiles[db.name](), Exception)
        assert isinstance(prepared.profiles["broken"](), Exception)
        assert prepared.privileges["broken"]() is None
        assert prepared.privileges[db.name]() == db.privilege_warning()
    finally:
        db.dispose()
        broken.dispose()
