"""The subscription history schema on real engines: identical checksums, exact counts, the record-scope traps.

Expected values come from the generator (``HistoryDataset``) in Python and are compared with what each
engine returns, so a loader that drops, reorders or converts rows fails here.
"""
from __future__ import annotations

from collections.abc import Callable
from datetime import date
from functools import cache

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from seed_db import (
    CURRENT_SENTINEL,
    HISTORY_TABLES,
    HistoryDataset,
    SeedError,
    seed_database,
    table_checksums,
)
from seed_db.history import PLANS, price_rows
from tests.support import BACKENDS

DATASET = HistoryDataset(42, 1)
#: The invoice's calendar day per engine (SQLite stores timestamps as text; CAST AS DATE there gives a number).
INVOICE_DAY = {"sqlite": "date(i.issued_at)", "postgresql": "CAST(i.issued_at AS DATE)",
               "mysql": "CAST(i.issued_at AS DATE)"}


@cache
def _periods() -> list[tuple]:
    return list(DATASET.rows("subscriptions"))


@cache
def _customers() -> list[tuple]:
    return list(DATASET.rows("customers"))


@cache
def _invoice_mismatches() -> int:
    """Invoices whose amount is not the plan's price valid on the invoice day (0 by construction)."""
    plan_of = {row[0]: row[2] for row in _periods()}
    prices = price_rows()
    bad = 0
    for _, subscription_id, issued, amount, _ in DATASET.rows("invoices"):
        day = issued.date()
        valid = [p for p in prices if p[1] == plan_of[subscription_id] and p[3] <= day <= p[4]]
        bad += len(valid) != 1 or valid[0][2] != amount
    return bad


# (what, SQL run on every engine, the value the generator implies). Adding a check is adding a line.
CHECKS: list[tuple[str, str, Callable[[], object]]] = [
    ("one current price per plan", "SELECT COUNT(*) FROM plan_prices WHERE valid_to = '9999-12-31'", lambda: len(PLANS)),
    ("current periods", "SELECT COUNT(*) FROM subscriptions WHERE ended_on IS NULL",
     lambda: sum(p[4] is None for p in _periods())),
    ("active periods", "SELECT COUNT(*) FROM subscriptions WHERE status = 'active'",
     lambda: sum(p[5] == "active" for p in _periods())),
    ("soft-deleted customers", "SELECT COUNT(*) FROM customers WHERE deleted_at IS NOT NULL",
     lambda: sum(c[5] is not None for c in _customers())),
    ("customers with two current periods",
     ("SELECT COUNT(*) FROM (SELECT customer_id FROM subscriptions WHERE ended_on IS NULL "
      "GROUP BY customer_id HAVING COUNT(*) > 1) AS t"), lambda: 0),
    ("invoices not at the price valid that day",
     ("SELECT COUNT(*) FROM invoices i JOIN subscriptions s ON s.id = i.subscription_id "
      "LEFT JOIN plan_prices p ON p.plan_id = s.plan_id AND {day} BETWEEN p.valid_from AND p.valid_to "
      "WHERE p.price IS NULL OR p.price <> i.amount"), _invoice_mismatches),
    ("paid invoices", "SELECT COUNT(*) FROM invoices WHERE status = 'paid'",
     lambda: sum(r[4] == "paid" for r in DATASET.rows("invoices"))),
]


def test_default_scale_has_over_100k_rows_and_every_table():
    counts = DATASET.expected_counts()
    assert tuple(counts) == HISTORY_TABLES
    assert sum(counts.values()) >= 100_000
    assert counts == {name: sum(1 for _ in DATASET.rows(name)) for name in HISTORY_TABLES}


def test_generation_is_deterministic_per_seed():
    assert list(HistoryDataset(42, 1).rows("subscriptions")) == _periods()
    assert list(HistoryDataset(43, 1).rows("subscriptions")) != _periods()


def test_the_record_scope_traps_are_in_the_data():
    periods, customers = _periods(), _customers()
    assert {p[5] for p in periods} == {"active", "paused", "cancelled", "switched"}
    # "current" (ended_on NULL) and "active" (status) are different sets of rows
    assert sum(p[4] is None for p in periods) > sum(p[5] == "active" for p in periods)
    assert any(c[5] is not None for c in customers) and any(c[5] is None for c in customers)
    prices = price_rows()
    current = [p[2] for p in prices if p[4] == CURRENT_SENTINEL]
    assert len(current) == len(PLANS)
    assert sum(current) / len(current) != sum(p[2] for p in prices) / len(prices)
    assert max(p[3] for p in prices) < date(2025, 1, 1) < CURRENT_SENTINEL
    assert _invoice_mismatches() == 0
    assert price_rows()[0][3] <= min(p[3] for p in periods)  # the first price list covers the first sign-up


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("what", "sql", "expected"), CHECKS, ids=[c[0] for c in CHECKS])
def test_engine_holds_what_the_generator_made(history_urls, backend, what, sql, expected):
    sql = sql.format(day=INVOICE_DAY[backend])
    engine = sa.create_engine(history_urls[backend])
    try:
        with engine.connect() as conn:
            assert conn.execute(sa.text(sql)).scalar_one() == expected(), what
    finally:
        engine.dispose()


def test_checksums_match_across_engines(history_urls):
    sums = {backend: table_checksums(url, schema="history") for backend, url in history_urls.items()}
    assert list(sums["sqlite"]) == list(HISTORY_TABLES)
    assert sums["postgresql"] == sums["sqlite"]
    assert sums["mysql"] == sums["sqlite"]


def test_reseeding_is_skipped_and_a_demo_checksum_is_refused(history_urls):
    report = seed_database(history_urls["sqlite"], scale=1, seed=42, schema="history")
    assert report.skipped and report.rows == DATASET.expected_counts()
    with pytest.raises(SeedError, match="missing tables"):
        table_checksums(history_urls["sqlite"])  # the demo's tables are not there


def test_unknown_schema_is_one_line_error(tmp_path):
    with pytest.raises(SeedError, match="unknown schema 'nope'; choose one of demo, history"):
        seed_database(f"sqlite:///{tmp_path / 'x.sqlite'}", schema="nope")


def test_seed_command_builds_the_history_schema(tmp_path, history_urls):
    from checker_app.commands.seed import seed

    url = f"sqlite:///{tmp_path / 'history.sqlite'}"
    result = CliRunner().invoke(seed, ["--db", url, "--schema", "history"])
    assert result.exit_code == 0, result.output
    assert "history seed 42 scale 1 loaded" in result.output
    assert f"({sum(DATASET.expected_counts().values()):,} rows)" in result.output
    assert table_checksums(url, schema="history") == table_checksums(history_urls["sqlite"], schema="history")
    refused = CliRunner().invoke(seed, ["--db", url, "--schema", "nope"])
    assert refused.exit_code == 2 and "nope" in refused.output
