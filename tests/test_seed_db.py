"""seed_db on real engines: identical checksums, the demo's traps, idempotency, error hygiene.

PostgreSQL and MariaDB databases are created per test module (``ac_seedtest_<hex>``) and dropped
afterwards; SQLite lives in pytest's tmp dir. An unreachable server skips its cases, or fails them
when CHECKER_STRICT_TESTS=1.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest
import sqlalchemy as sa
from sqlalchemy.pool import NullPool

from seed_db import (
    LAST_DAY,
    SEED_TABLES,
    Dataset,
    SeedError,
    build_metadata,
    expected_counts,
    seed_database,
    table_checksums,
)
from seed_db.fiscal import fiscal_periods, fiscal_year_start
from tests.support import BACKENDS, MYSQL_ADMIN_URL, PG_ADMIN_URL, server_reachable, unavailable

SERVER_URLS = {"postgresql": PG_ADMIN_URL, "mysql": MYSQL_ADMIN_URL}


def _server_engine(backend: str) -> sa.Engine:
    return sa.create_engine(
        SERVER_URLS[backend], poolclass=NullPool, isolation_level="AUTOCOMMIT", connect_args={"connect_timeout": 3}
    )


def _probe(backend: str) -> str | None:
    """None if the server answers, else the reason it does not."""
    problem = server_reachable(SERVER_URLS[backend])
    return f"{backend} server unreachable: {problem}" if problem else None


def _drop_database(backend: str, name: str) -> None:
    engine = _server_engine(backend)
    with engine.connect() as conn:
        if backend == "postgresql":
            conn.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        else:
            conn.execute(sa.text(f"DROP DATABASE IF EXISTS `{name}`"))
    engine.dispose()


def _database_url(backend: str, name: str) -> str:
    return sa.make_url(SERVER_URLS[backend]).set(database=name).render_as_string(hide_password=False)


@pytest.fixture(scope="module")
def databases(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """backend -> URL of a fresh database name (not yet seeded), or an 'unavailable: ...' reason."""
    name = f"ac_seedtest_{uuid.uuid4().hex[:10]}"
    urls = {"sqlite": f"sqlite:///{tmp_path_factory.mktemp('seed') / 'nested' / 'dir' / 'demo.sqlite'}"}
    created = []
    for backend in ("postgresql", "mysql"):
        reason = _probe(backend)
        urls[backend] = f"unavailable: {reason}" if reason else _database_url(backend, name)
        if not reason:
            created.append(backend)
    yield urls
    for backend in created:
        _drop_database(backend, name)


@pytest.fixture(scope="module")
def seeded(databases: dict[str, str]) -> dict[str, object]:
    """backend -> SeedReport of the first scale-1 seed (or the unavailable reason)."""
    return {b: (u if u.startswith("unavailable") else seed_database(u, scale=1, seed=42)) for b, u in databases.items()}


@pytest.fixture(scope="module")
def checksums(seeded: dict[str, object], databases: dict[str, str]) -> dict[str, dict[str, str]]:
    return {b: table_checksums(databases[b]) for b, r in seeded.items() if not isinstance(r, str)}


def _url(backend: str, databases: dict[str, str], seeded: dict[str, object]) -> str:
    if isinstance(seeded[backend], str):
        unavailable(str(seeded[backend]))
    return databases[backend]


def _query(url: str, sql: str) -> list[tuple]:
    engine = sa.create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(sa.text(sql))]
    finally:
        engine.dispose()


def _ts(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


# ---- generator (no database) -------------------------------------------------------------------


def test_rows_match_schema_and_counts() -> None:
    dataset = Dataset(seed=42, scale=1)
    md = build_metadata()
    for name in SEED_TABLES:
        if name in ("orders", "order_items"):
            continue  # streamed below and on every engine
        rows = list(dataset.rows(name))
        assert len(rows) == dataset.expected_counts()[name], name
        assert {len(r) for r in rows} == {len(md.tables[name].columns)}, name
    assert expected_counts(50)["order_items"] >= 1_000_000
    assert expected_counts(1)["orders"] == 6_000 and expected_counts(1)["order_items"] == 20_400


def test_generation_is_deterministic_per_seed() -> None:
    first = list(Dataset(42, 1).rows("customers"))
    assert first == list(Dataset(42, 1).rows("customers"))
    assert first != list(Dataset(43, 1).rows("customers"))
    assert Dataset(42, 1).orders_of_day(0) == Dataset(42, 1).orders_of_day(0)


def test_fiscal_calendar_is_445_from_first_sunday_of_february() -> None:
    periods = fiscal_periods(date(2024, 1, 1), LAST_DAY)
    assert periods[0].start_date <= date(2024, 1, 1) and periods[-1].end_date >= LAST_DAY
    for earlier, later in zip(periods, periods[1:]):
        assert later.start_date == earlier.end_date + timedelta(days=1)
    for p in periods:
        weeks = ((p.end_date - p.start_date).days + 1) / 7
        assert weeks == (5 if p.fiscal_period % 3 == 0 else 4) or (p.fiscal_period == 12 and weeks == 6)
        assert p.start_date.weekday() == 6  # Sunday
    assert fiscal_year_start(2024) == date(2024, 2, 4) and fiscal_year_start(2025) == date(2025, 2, 2)


# ---- seeded engines ----------------------------------------------------------------------------


def test_checksums_identical_across_engines(seeded: dict[str, object], checksums: dict[str, dict[str, str]]) -> None:
    for backend, report in seeded.items():
        if isinstance(report, str):
            unavailable(report)
        assert report.rows == expected_counts(1) and not report.skipped and report.backend == backend
    assert list(checksums["sqlite"]) == list(SEED_TABLES)
    for table in SEED_TABLES:
        assert len({c[table] for c in checksums.values()}) == 1, table


REVENUE_SQL = """
SELECT p.name, SUM(oi.unit_price * oi.quantity) AS metric
FROM order_items oi JOIN products p ON oi.product_id = p.id
GROUP BY p.name ORDER BY metric DESC LIMIT 1"""
USD_REVENUE_SQL = """
SELECT p.name, SUM(oi.unit_price * oi.quantity * er.usd_per_unit) AS metric
FROM order_items oi
JOIN orders o ON o.id = oi.order_id
JOIN products p ON p.id = oi.product_id
JOIN exchange_rates er ON er.currency_code = o.currency_code AND er.rate_date = DATE(o.ordered_at)
GROUP BY p.name ORDER BY metric DESC LIMIT 1"""
UNITS_SQL = """
SELECT p.name, SUM(oi.quantity) AS metric
FROM order_items oi JOIN products p ON oi.product_id = p.id
GROUP BY p.name ORDER BY metric DESC LIMIT 1"""
ORDERS_SQL = """
SELECT p.name, COUNT(DISTINCT oi.order_id) AS metric
FROM order_items oi JOIN products p ON oi.product_id = p.id
GROUP BY p.name ORDER BY metric DESC LIMIT 1"""


@pytest.mark.parametrize("backend", BACKENDS)
def test_top_selling_product_depends_on_metric(backend: str, databases, seeded) -> None:
    url = _url(backend, databases, seeded)
    assert _query(url, REVENUE_SQL)[0][0] == "MacBook Pro"
    assert _query(url, USD_REVENUE_SQL)[0][0] == "MacBook Pro"
    assert _query(url, UNITS_SQL)[0][0] == "USB-C Cable"
    assert _query(url, ORDERS_SQL)[0][0] == "Phone Case"
    assert _query(url, "SELECT COUNT(*) FROM exchange_rates WHERE currency_code = 'USD' AND usd_per_unit <> 1") == [(0,)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_entities_countries_and_currencies(backend: str, databases, seeded) -> None:
    url = _url(backend, databases, seeded)
    acme = _query(url, "SELECT name FROM customers WHERE LOWER(name) LIKE '%acme%' ORDER BY id")
    assert [r[0] for r in acme] == ["Acme Corp", "Acme Industries", "ACME Logistics"]
    assert _query(url, "SELECT COUNT(*) FROM customers WHERE name = 'O''Brien & Sons'") == [(1,)]
    acme_orders = _query(
        url,
        "SELECT c.name, COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
        "WHERE LOWER(c.name) LIKE '%acme%' GROUP BY c.name",
    )
    assert len(acme_orders) == 3 and all(n > 0 for _, n in acme_orders)
    by_store_country = dict(
        _query(url, "SELECT co.code, COUNT(*) FROM orders o JOIN stores s ON s.id = o.store_id "
                    "JOIN countries co ON co.id = s.country_id GROUP BY co.code")
    )
    by_customer_country = dict(
        _query(url, "SELECT co.code, COUNT(*) FROM orders o JOIN customers c ON c.id = o.customer_id "
                    "JOIN countries co ON co.id = c.country_id GROUP BY co.code")
    )
    for counts in (by_store_country, by_customer_country):
        assert counts.get("US", 0) > 0 and counts.get("PR", 0) > 0
    currencies = _query(url, "SELECT COUNT(DISTINCT currency_code) FROM orders")[0][0]
    assert currencies >= 4
    mismatched = _query(
        url, "SELECT COUNT(*) FROM orders o JOIN stores s ON s.id = o.store_id WHERE o.currency_code <> s.currency_code"
    )
    assert mismatched == [(0,)]


def _count_between(url: str, start: datetime, end: datetime) -> int:
    sql = f"SELECT COUNT(*) FROM orders WHERE ordered_at >= '{_ts(start)}' AND ordered_at < '{_ts(end)}'"
    return _query(url, sql)[0][0]


def _local_day_in_utc(day: date, zone: str) -> tuple[datetime, datetime]:
    tz = ZoneInfo(zone)
    bounds = [datetime.combine(d, time(), tzinfo=tz).astimezone(UTC).replace(tzinfo=None)
              for d in (day, day + timedelta(days=1))]
    return bounds[0], bounds[1]


@pytest.mark.parametrize("backend", BACKENDS)
def test_yesterday_differs_between_utc_and_los_angeles(backend: str, databases, seeded) -> None:
    url = _url(backend, databases, seeded)
    last = _query(url, "SELECT MAX(ordered_at) FROM orders")[0][0]
    assert str(last).startswith(LAST_DAY.isoformat())
    for yesterday in (LAST_DAY, LAST_DAY - timedelta(days=1)):  # "today" = the day after, or LAST_DAY
        utc = _count_between(url, *_local_day_in_utc(yesterday, "UTC"))
        los_angeles = _count_between(url, *_local_day_in_utc(yesterday, "America/Los_Angeles"))
        assert utc > 0 and los_angeles > 0 and utc != los_angeles, yesterday
    # Los Angeles evening orders land on the next UTC day.
    la_orders = _query(url, "SELECT o.ordered_at FROM orders o JOIN stores s ON s.id = o.store_id "
                            "WHERE s.time_zone = 'America/Los_Angeles'")
    la = ZoneInfo("America/Los_Angeles")
    shifted = 0
    for (value,) in la_orders:
        utc = value if isinstance(value, datetime) else datetime.fromisoformat(value)
        shifted += utc.replace(tzinfo=UTC).astimezone(la).date() != utc.date()
    assert shifted > len(la_orders) // 10


@pytest.mark.parametrize("backend", BACKENDS)
def test_fiscal_month_differs_from_calendar_month(backend: str, databases, seeded) -> None:
    url = _url(backend, databases, seeded)
    rows = _query(url, "SELECT start_date, end_date FROM fiscal_periods WHERE period_name = 'FY2024 P02 Mar'")
    start, end = (date.fromisoformat(str(v)[:10]) for v in rows[0])
    assert (start, end) == (date(2024, 3, 3), date(2024, 3, 30))

    def revenue(lo: date, hi_exclusive: date) -> float:
        sql = ("SELECT SUM(oi.unit_price * oi.quantity) FROM order_items oi JOIN orders o ON o.id = oi.order_id "
               f"WHERE o.ordered_at >= '{lo} 00:00:00' AND o.ordered_at < '{hi_exclusive} 00:00:00'")
        return float(_query(url, sql)[0][0])

    calendar = revenue(date(2024, 3, 1), date(2024, 4, 1))
    fiscal = revenue(start, end + timedelta(days=1))
    assert calendar > 0 and fiscal > 0 and abs(calendar - fiscal) > 1.0


def test_sqlite_stores_text_timestamps_and_dates(databases, seeded) -> None:
    url = _url("sqlite", databases, seeded)
    (ordered_at, kind), = _query(url, "SELECT ordered_at, typeof(ordered_at) FROM orders WHERE id = 1")
    assert kind == "text" and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", ordered_at)
    assert _query(url, "SELECT date(ordered_at), typeof(rate_date) FROM orders, exchange_rates "
                       "WHERE orders.id = 1 AND exchange_rates.id = 1") == [(ordered_at[:10], "text")]


@pytest.mark.parametrize("backend", BACKENDS)
def test_second_seed_skips_and_force_rebuilds_identically(backend: str, databases, seeded, checksums) -> None:
    url = _url(backend, databases, seeded)
    again = seed_database(url, scale=1, seed=42)
    assert again.skipped and again.rows == expected_counts(1)
    forced = seed_database(url, scale=1, seed=42, force=True)
    assert not forced.skipped
    assert table_checksums(url) == checksums[backend]


def test_other_seed_or_damaged_table_triggers_rebuild(tmp_path, checksums, databases, seeded) -> None:
    _url("sqlite", databases, seeded)
    url = f"sqlite:///{tmp_path / 'other.sqlite'}"
    assert not seed_database(url, seed=7).skipped
    seven = table_checksums(url)
    assert seven["orders"] != checksums["sqlite"]["orders"]
    assert not seed_database(url, seed=42).skipped
    assert table_checksums(url) == checksums["sqlite"]
    engine = sa.create_engine(url, poolclass=NullPool)
    with engine.begin() as conn:
        conn.execute(sa.text("DELETE FROM order_items WHERE id = 5"))
    engine.dispose()
    report = seed_database(url, seed=42)
    assert not report.skipped and table_checksums(url) == checksums["sqlite"]


def test_report_hides_password(databases, seeded) -> None:
    url = sa.make_url(_url("postgresql", databases, seeded)).set(password="dummy-pw-123")
    try:
        report = seed_database(url.render_as_string(hide_password=False))
    except SeedError as err:  # the server checks passwords: still must not leak it
        assert "dummy-pw-123" not in str(err)
        pytest.skip("server rejects passwords for this user")
    assert report.skipped and "***" in report.url_display and "dummy-pw-123" not in report.url_display


@pytest.mark.parametrize(
    "url",
    [
        "postgresql+psycopg://u:s3cret@127.0.0.1:1/x",
        "mysql+pymysql://u:s3cret@127.0.0.1:1/x",
        "definitely not a url s3cret",
        "oracle://u:s3cret@127.0.0.1:1/x",
    ],
)
def test_errors_are_one_line_without_password(url: str) -> None:
    for call in (lambda: seed_database(url), lambda: table_checksums(url)):
        with pytest.raises(SeedError) as info:
            call()
        message = str(info.value)
        assert "s3cret" not in message and "\n" not in message and message
        assert info.value.__cause__ is None
        assert info.value.__context__ is None or info.value.__suppress_context__


def test_bad_scale_is_a_seed_error(tmp_path) -> None:
    with pytest.raises(SeedError, match="scale"):
        seed_database(f"sqlite:///{tmp_path / 'x.sqlite'}", scale=0)
