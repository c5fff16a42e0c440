"""Stored schema profiles on the three engines: reused across connections, rebuilt when schema, data or code
change, never holding a password; catalog estimates bound introspection of large tables."""
from __future__ import annotations

import pickle
import time
from pathlib import Path

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from adapters import Database, parse_db_option
from adapters.catalog import CatalogSnapshot, snapshot
from adapters.schema import LARGE_TABLE_ROWS, introspect
from checker_app import profile_store
from checker_app.profiles import age_text, profile_age, stored_profile
from tests.support import BACKENDS

# (what is done to the database after the profile was stored, what changed: data or structure)
CHANGES = [
    ("INSERT INTO things (id, status, made_at) VALUES (99, 'new', '2025-01-09 10:00:00')", "data"),
    ("ALTER TABLE things ADD COLUMN note VARCHAR(20)", "structure"),
]
# what the rebuild reason names for a data change: the table's counters, or SQLite's file
DATA_MARKER = {"sqlite": "file", "postgresql": "things", "mysql": "things"}


def _make_things(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.execute(sa.text("CREATE TABLE things (id INTEGER PRIMARY KEY, status VARCHAR(10), made_at TIMESTAMP)"))
        for n in range(1, 6):
            conn.execute(sa.text("INSERT INTO things VALUES (:n, :s, :t)"),
                         {"n": n, "s": "open" if n % 2 else "closed", "t": f"2025-01-0{n} 12:00:00"})
    engine.dispose()


def _write(url: str, sql: str) -> None:
    engine = sa.create_engine(url, poolclass=sa.pool.NullPool)  # the session ends: PostgreSQL flushes its counters
    with engine.begin() as conn:
        conn.execute(sa.text(sql))
    engine.dispose()


def _fresh(url: str) -> Database:
    return Database(parse_db_option(url))


def _entry_after_change(url: str, expected_reason: str):
    """Profile again from a new connection until the change is seen (PostgreSQL publishes counters within ~1 s)."""
    for _ in range(30):
        entry = stored_profile(_fresh(url))
        if not entry.reused:
            return entry
        time.sleep(0.5)
    pytest.fail(f"the stored profile was reused after a change ({expected_reason})")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("change", "reason"), CHANGES, ids=[c[1] for c in CHANGES])
def test_a_stored_profile_is_reused_until_the_database_changes(servers, backend, change, reason):
    url = servers.create(backend)
    _make_things(url)
    first = stored_profile(_fresh(url))
    assert not first.reused and first.reason == "no entry"
    assert profile_store.entry_path(_fresh(url), None).exists()
    again = stored_profile(_fresh(url))
    assert again.reused and again.built_at == first.built_at
    assert again.profile.to_dict() == first.profile.to_dict()
    assert [t.to_dict() for t in again.schema.tables] == [t.to_dict() for t in first.schema.tables]
    _write(url, change)
    rebuilt = _entry_after_change(url, reason)
    assert rebuilt.reason == "changed: " + (reason if reason == "structure" else DATA_MARKER[backend])
    assert rebuilt.built_at > first.built_at
    if reason == "structure":
        assert rebuilt.schema.table("things").column("note") is not None
    else:
        assert rebuilt.schema.table("things").row_count == 6
    assert stored_profile(_fresh(url)).reused


def test_refresh_rebuilds_and_a_code_change_or_torn_file_is_a_miss(servers):
    url = servers.create("sqlite")
    _make_things(url)
    db = _fresh(url)
    first = stored_profile(db)
    assert stored_profile(db) is first  # the same connection keeps it in memory
    refreshed = stored_profile(db, refresh=True)
    assert not refreshed.reused and refreshed.reason == "refresh" and refreshed.built_at >= first.built_at
    path = profile_store.entry_path(db, None)
    with path.open("rb") as handle:
        header, payload = pickle.load(handle), pickle.load(handle)
    with path.open("wb") as out:
        pickle.dump({**header, "code": "an older checker"}, out)
        pickle.dump(payload, out)
    assert stored_profile(_fresh(url)).reason == "code changed"
    path.write_bytes(b"\x80\x05 torn")
    assert stored_profile(_fresh(url)).reason.startswith("unreadable entry")
    assert stored_profile(_fresh(url)).reused


def test_no_password_reaches_the_store(servers):
    url = sa.make_url(servers.create("postgresql")).set(password="s3cret-Pw")  # trust auth ignores it
    plain = url.render_as_string(hide_password=False)
    _make_things(plain)
    db = _fresh(plain)
    stored_profile(db)
    path = profile_store.entry_path(db, None)
    assert "s3cret" not in str(path) and b"s3cret" not in path.read_bytes()
    assert path == profile_store.entry_path(_fresh(url.set(password="other").render_as_string(hide_password=False)),
                                            None)


def test_overrides_have_their_own_entry(servers, tmp_path):
    url = servers.create("sqlite")
    _make_things(url)
    overrides = tmp_path / "profile.yaml"
    overrides.write_text("business_time_zone: Europe/Berlin\n")
    db = _fresh(url)
    assert stored_profile(db, overrides).profile.business_time_zone == "Europe/Berlin"
    assert stored_profile(db).profile.business_time_zone is None
    assert profile_store.entry_path(db, overrides) != profile_store.entry_path(db, None)
    assert stored_profile(_fresh(url), overrides).reused


@pytest.mark.parametrize("backend", BACKENDS)
def test_catalog_estimates_are_near_the_real_counts(history_urls, backend):
    from seed_db import HistoryDataset

    expected = HistoryDataset(42, 1).expected_counts()
    engine = sa.create_engine(history_urls[backend])
    with engine.connect() as conn:
        found = snapshot(conn)
    engine.dispose()
    assert set(found.rows) <= set(expected) and "invoices" in found.rows
    assert abs(found.rows["invoices"] - expected["invoices"]) <= 0.5 * expected["invoices"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_large_table_is_estimated_and_sampled_not_scanned(history_urls, backend):
    engine = sa.create_engine(history_urls[backend])
    with engine.connect() as conn:
        real = snapshot(conn)
    claimed = LARGE_TABLE_ROWS + 50_000
    catalog = CatalogSnapshot(real.structure, {**real.rows, "invoices": claimed}, real.versions)
    schema = introspect(engine, catalog=catalog)
    engine.dispose()
    invoices = schema.table("invoices")
    assert invoices.estimated and invoices.row_count == claimed
    assert set(invoices.column("status").samples) == {"paid", "failed", "refunded"}
    assert not schema.table("plans").estimated and schema.table("plans").row_count == 6


def test_a_large_tables_sample_is_the_same_values_on_every_engine(history_urls):
    """Every table claimed large, so every text column is sampled: the same rows and the same order on the
    three engines (a block sample or storage order gave PostgreSQL other values, and other detections)."""
    found = {}
    for backend in BACKENDS:
        engine = sa.create_engine(history_urls[backend])
        with engine.connect() as conn:
            real = snapshot(conn)
        claimed = dict.fromkeys(real.rows, LARGE_TABLE_ROWS + 50_000)
        schema = introspect(engine, catalog=CatalogSnapshot(real.structure, claimed, real.versions))
        engine.dispose()
        assert all(t.estimated for t in schema.tables if t.name in claimed)
        found[backend] = {(t.name, c.name): c.samples for t in schema.tables for c in t.columns if c.family == "text"}
    first = found[BACKENDS[0]]
    assert first[("invoices", "status")] and first[("plans", "name")], first
    for backend in BACKENDS[1:]:
        assert found[backend] == first, backend


def test_the_sidebar_says_how_old_the_profile_is(servers):
    from checker_app.ui.sidebar import profile_age_text

    url = servers.create("sqlite")
    _make_things(url)
    db = _fresh(url)
    assert profile_age_text(db) == "" and profile_age(db) is None
    stored_profile(db)
    assert profile_age_text(db) == "profile built just now"
    assert [age_text(s) for s in (30, 125, 7_300, 90_000, 200_000)] == [
        "profile built 30 s ago", "profile built 2 min ago", "profile built 2 h ago", "profile built 1 day ago",
        "profile built 2 days ago"]


def test_refresh_profile_option_rebuilds_the_stored_entry(servers):
    from checker_app.commands.check import check_command

    url = servers.create("sqlite")
    _make_things(url)
    path: Path = profile_store.entry_path(_fresh(url), None)
    args = ["How many things are there?", "--db", url, "--json"]
    assert CliRunner().invoke(check_command, args).exit_code == 0
    built = pickle.load(path.open("rb"))["built_at"]
    assert CliRunner().invoke(check_command, args).exit_code == 0
    assert pickle.load(path.open("rb"))["built_at"] == built
    assert CliRunner().invoke(check_command, [*args, "--refresh-profile"]).exit_code == 0
    assert pickle.load(path.open("rb"))["built_at"] > built
