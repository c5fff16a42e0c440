"""Archetypes on SQLite, PostgreSQL and MariaDB side by side: every candidate statement runs on its engine,
and the same question gives the same readings (matched by `choices`) and the same top rows everywhere."""
from __future__ import annotations

import sqlite3
import statistics
from contextlib import closing
from typing import Any

import pytest

from adapters.results import comparable, same_rows
from tests.support import BACKENDS, Connected, connect

DEMO_QUESTIONS = [
    "What is the top-selling product?",
    "Show me revenue for Acme",
    "How are sales trending?",
    "Revenue by month",
    "What were sales yesterday?",
    "Total revenue in dollars",
    "Build me an interactive sankey of customer journeys",
    "Show daily order counts for June 2025",
    "How many orders per week in the first half of 2025?",
    "Top product by revenue in 2025",
    "Revenue in dollars for the Toronto store in 2024",
    "Which category has the highest refund rate?",
    "Revenue by category and store",
    "How many orders had more than 5 items?",
    "Was May better than April?",
    "What percent of our customers ordered something in 2024?",
    "What was the pound exchange rate on 2024-03-05?",
    "List the stores that sell in usd",
    "Which currency does our London store sell in?",
    "What % of orders get refunded?",
    "customers who ordered in 2024 but not in 2025",
    "how many laptops do we have",
    "orders per month last year",
]


@pytest.fixture(scope="session")
def demo(demo_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in demo_urls.items()}


@pytest.fixture(scope="session")
def chinook(chinook_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in chinook_urls.items()}


def _answers(connected: Connected, question: str, **kwargs) -> dict[str, list[list[Any]]]:
    """{interpretation id: rows}, after checking every statement runs on its engine."""
    analysis = connected.analyse(question, **kwargs)
    assert analysis.interpretations, (connected.dialect, question, analysis.notes)
    return {i.id: connected.run(i).rows for i in analysis.interpretations}


def _agree(a: dict[str, list[list[Any]]], b: dict[str, list[list[Any]]]) -> bool:
    """Same readings with the same rows, in order, at the precision of the values' types."""
    return list(a) == list(b) and all(same_rows(a[k], b[k], ordered=True) for k in a)


def test_profiles_agree_across_engines(demo, chinook) -> None:
    for engines in (demo, chinook):
        shapes = {b: {f.table.lower(): [m.value for m in f.measures] for f in c.profile.facts.values()}
                  for b, c in engines.items()}
        snake = {b: {t.replace("_", ""): v for t, v in s.items()} for b, s in shapes.items()}
        assert len({repr(sorted(s.items())) for s in snake.values()}) == 1, shapes
        assert len({c.profile.as_of for c in engines.values()}) == 1


@pytest.mark.parametrize("question", DEMO_QUESTIONS)
def test_demo_candidates_run_and_agree_on_every_engine(demo, question: str) -> None:
    results = {backend: _answers(demo[backend], question) for backend in BACKENDS}
    ids = {backend: list(answers) for backend, answers in results.items()}
    assert ids["sqlite"] == ids["postgresql"] == ids["mysql"], ids
    for interpretation in ids["sqlite"]:
        first = {backend: results[backend][interpretation][:3] for backend in BACKENDS}
        assert same_rows(first["sqlite"], first["postgresql"], ordered=True), (question, interpretation, first)
        assert same_rows(first["sqlite"], first["mysql"], ordered=True), (question, interpretation, first)


def test_top_selling_product_on_every_engine(demo) -> None:
    for backend in BACKENDS:
        analysis = demo[backend].analyse("What is the top-selling product?")
        tops = {i.choices["ranking_metric"]: demo[backend].run(i).rows[0][0] for i in analysis.interpretations}
        assert tops == {"revenue": "MacBook Pro", "units": "USB-C Cable", "orders": "Phone Case"}, backend


def test_acme_options_are_live_rows_on_every_engine(demo) -> None:
    for backend in BACKENDS:
        detection = next(d for d in demo[backend].analyse("Show me revenue for Acme").detections
                         if d.archetype == "entity")
        assert detection.clarification.type == "query_choice"
        assert [o.value for o in detection.clarification.options] == [
            "Acme Corp", "Acme Industries", "ACME Logistics", "all_matches"], backend
        totals = _answers(demo[backend], "Show me revenue for Acme", answers={"unit": "only_usd", "record_scope": "all"})
        assert len(totals) == 4


@pytest.mark.parametrize("value", ["O'Brien & Sons", "Acme'; DROP TABLE customers;--"])
def test_literals_are_quoted_on_every_engine(demo, value: str) -> None:
    for backend in BACKENDS:
        connected = demo[backend]
        analysis = connected.analyse("Show me revenue for Acme", answers={"entity": value, "unit": "per_currency",
                                                                          "record_scope": "all"})
        (only,) = analysis.interpretations
        rows = connected.run(only).rows
        assert bool(rows) == value.startswith("O'Brien"), (backend, rows)
        assert connected.db.run("SELECT COUNT(*) FROM customers").rows[0][0] == 500
    for backend in BACKENDS:  # the string as a whole question: no crash, every statement runs
        for interpretation in demo[backend].analyse(value).interpretations:
            demo[backend].run(interpretation)


def test_chinook_top_selling_artist_on_every_engine(chinook) -> None:
    readings = {}
    tops = {}
    for backend in BACKENDS:
        connected = chinook[backend]
        analysis = connected.analyse("Who is the top-selling artist?")
        assert [d.archetype for d in analysis.detections] == ["ranking_metric"], backend
        assert len(analysis.interpretations) >= 2
        readings[backend] = [i.choices["ranking_metric"] for i in analysis.interpretations]
        tops[backend] = {i.choices["ranking_metric"]: comparable(connected.run(i).rows[0][0])
                         for i in analysis.interpretations}
        revenue = next(i for i in analysis.interpretations if i.choices["ranking_metric"] == "revenue")
        sql = revenue.sql(connected.dialect).lower().replace("_", "")
        for table in ("invoiceline", "track", "album", "artist"):
            assert table in sql, (backend, table)
    assert readings["sqlite"] == readings["postgresql"] == readings["mysql"] == ["revenue", "units", "invoices"]
    assert tops["sqlite"] == tops["postgresql"] == tops["mysql"]
    assert tops["sqlite"]["revenue"] == "Iron Maiden"


def test_chinook_time_questions_on_every_engine(chinook) -> None:
    for question in ("How are invoice totals trending?", "Invoice totals by week in 2024",
                     "How many invoices were issued yesterday?"):
        results = {backend: _answers(chinook[backend], question) for backend in BACKENDS}
        assert _agree(results["sqlite"], results["postgresql"]) and _agree(results["sqlite"], results["mysql"]), question


def test_northwind_on_postgres(northwind_urls) -> None:
    connected = connect(northwind_urls["postgresql"])
    for question in ("Which products are our top sellers?", "Orders per week in 1997",
                     "How much Queso did we sell in 1997?"):
        analysis = connected.analyse(question)
        assert analysis.detections, question
        for interpretation in analysis.interpretations:
            connected.run(interpretation)


def test_timestamptz_on_postgres_whatever_the_session_zone(servers) -> None:
    """A timestamptz column compared with UTC-offset literals: the session's TimeZone does not shift days."""
    import sqlalchemy as sa

    url = servers.create("postgresql")
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        name = conn.exec_driver_sql("SELECT current_database()").scalar()
        conn.exec_driver_sql(f"ALTER DATABASE {name} SET timezone TO 'Asia/Tokyo'")
        conn.exec_driver_sql("CREATE TABLE shop (shop_id INTEGER PRIMARY KEY, shop_name TEXT, tz TEXT)")
        conn.exec_driver_sql("CREATE TABLE sale (sale_id INTEGER PRIMARY KEY, shop_id INTEGER REFERENCES shop, "
                             "sold_at TIMESTAMPTZ NOT NULL, amount NUMERIC NOT NULL)")
        conn.exec_driver_sql("INSERT INTO shop VALUES (1, 'Harbour', 'America/New_York'), (2, 'Ginza', 'Asia/Tokyo')")
        conn.exec_driver_sql("INSERT INTO sale VALUES "
                             "(1, 1, '2025-06-29 02:00:00+00', 10),"   # 28 Jun in New York, 29 Jun UTC
                             "(2, 2, '2025-06-29 16:00:00+00', 20),"   # 30 Jun in Tokyo, 29 Jun UTC
                             "(3, 1, '2025-06-30 12:00:00+00', 40)")
    engine.dispose()
    connected = connect(url)
    assert next(iter(connected.profile.facts.values())).time.with_zone
    analysis = connected.analyse("What was the total amount yesterday?")
    totals = {i.choices["timezone"]: comparable(connected.run(i).rows[0][0]) for i in analysis.interpretations}
    assert totals["UTC"] == 30.0 and totals["America/New_York"] == 20.0 and totals["local"] == 0.0
    assert "+00:00" in analysis.interpretations[0].sql("postgres")
    connected.db.dispose()


# questions whose rows are reached through a table linking two others, or filtered by a figure said in words:
# every engine gives the same answer, and the one counted by hand
LINKED_AND_SAID = [
    ("how many tracks are on the grunge playlist?", 15),   # Track <- PlaylistTrack -> Playlist, no repeated rows
    ("list the metal albums", None),                       # Album <- Track -> Genre
    ("how many tracks cost 1.99", 213),
    ("how many tracks are longer than 10 min", 260),       # 600,000 ms
    ("% of tracks that were never bought", 1519),          # the part: tracks with no invoice line, of 3,503
    ("how many people report to andrew adams", None),      # direct reports (2) or everyone below (7): WITH RECURSIVE
    ("who manages the most people", None),
]


@pytest.mark.parametrize(("question", "expected"), LINKED_AND_SAID)
def test_chinook_linked_and_said_on_every_engine(chinook, question: str, expected: int | None) -> None:
    results = {backend: _answers(chinook[backend], question) for backend in BACKENDS}
    assert results["sqlite"], question
    assert _agree(results["sqlite"], results["postgresql"]) and _agree(results["sqlite"], results["mysql"]), question
    if expected is not None:
        analysis = chinook["sqlite"].analyse(question)
        assert [comparable(chinook["sqlite"].run(i).rows[0][0]) for i in analysis.interpretations] == [expected]


# absences whose entity has rows that never had anything: every row, or only those that could have had the
# events (record_scope), counted by hand; a catalogue row with no sale in a year asks nothing
# database | question | rows (or count) per reading, in order: every row first
WHICH_ABSENT_ROWS_COUNT = [
    ("chinook", "how many artists have never sold a single track", [110, 39]),  # 71 artists have no album
    ("northwind", "which customers haven't ordered since 1997", [12, 8]),        # 4 never ordered at all
    ("chinook", "how many albums had zero sales in 2025?", None),
]


@pytest.mark.parametrize(("database", "question", "expected"), WHICH_ABSENT_ROWS_COUNT)
def test_which_absent_rows_count_on_every_engine(chinook_urls, northwind_urls, database: str, question: str,
                                                 expected: list[int] | None) -> None:
    urls = chinook_urls if database == "chinook" else northwind_urls
    engines = {backend: connect(url) for backend, url in urls.items()}  # Northwind: SQLite and PostgreSQL
    results = {backend: _answers(connected, question) for backend, connected in engines.items()}
    # Northwind's PostgreSQL copy lacks the two test customer rows ('IT') of the SQLite script: same readings, and
    # the same rows but those
    assert all(list(rows) == list(results["sqlite"]) for rows in results.values()), question
    if database == "chinook":
        assert all(_agree(results["sqlite"], rows) for rows in results.values()), question
    analysis = engines["sqlite"].analyse(question)
    scope = next((d for d in analysis.detections if d.archetype == "record_scope"), None)
    if expected is None:
        assert scope is None, question
    else:
        assert scope is not None and [r.value for r in scope.readings][0] == "all", question
        sizes = [len(rows) if len(rows) != 1 or len(rows[0]) != 1 else comparable(rows[0][0])
                 for rows in results["sqlite"].values()]
        assert sizes == expected, (question, sizes)
    for connected in engines.values():
        connected.db.dispose()


def _agreed_and_by_hand(chinook: dict[str, Connected], question: str,
                        by_hand: str) -> tuple[dict[str, dict[str, list[list[Any]]]], float]:
    """Every engine's readings (checked to agree) and the figure the hand-written SQL gives on SQLite."""
    results = {backend: _answers(chinook[backend], question) for backend in BACKENDS}
    assert _agree(results["sqlite"], results["postgresql"]) and _agree(results["sqlite"], results["mysql"]), question
    hand = chinook["sqlite"].db.run(by_hand)
    assert hand.ok, hand.error
    return results, float(hand.rows[0][0])


# a series of averages or ratios computes them per period (it summed the row values, labelled an average), and an
# empty period is empty, not 0: some reading's first period's figure, by hand
# question | the first period's figure, by hand on SQLite Chinook
SERIES_OF_AVERAGES = [
    ("average invoice total per month in 2025",
     "SELECT AVG(Total) FROM Invoice WHERE InvoiceDate >= '2025-01-01' AND InvoiceDate < '2025-02-01'"),
    ("average unit price per month in 2025",
     "SELECT AVG(il.UnitPrice) FROM InvoiceLine il JOIN Invoice i ON i.InvoiceId = il.InvoiceId "
     "WHERE i.InvoiceDate >= '2025-01-01' AND i.InvoiceDate < '2025-02-01'"),
]


@pytest.mark.parametrize(("question", "by_hand"), SERIES_OF_AVERAGES)
def test_series_of_averages_on_every_engine(chinook, question: str, by_hand: str) -> None:
    results, expected = _agreed_and_by_hand(chinook, question, by_hand)
    firsts = [rows[0] for rows in results["sqlite"].values()]
    assert any(str(row[0]) == "2025-01" and abs(float(comparable(row[-1])) - expected) < 0.005 for row in firsts), \
        (question, firsts, expected)


# 'average monthly revenue' is also the mean of the monthly totals, one figure (it was only each month's revenue
# per invoice, clear): some reading's figure is the year's total over its twelve months, on every engine
PERIOD_MEANS = [
    ("average monthly revenue in 2024",
     "SELECT SUM(Total) / 12.0 FROM Invoice WHERE InvoiceDate >= '2024-01-01' AND InvoiceDate < '2025-01-01'"),
    ("avg daily invoices in june 2025",
     "SELECT COUNT(*) / 30.0 FROM Invoice WHERE InvoiceDate >= '2025-06-01' AND InvoiceDate < '2025-07-01'"),
]


@pytest.mark.parametrize(("question", "by_hand"), PERIOD_MEANS)
def test_period_means_on_every_engine(chinook, question: str, by_hand: str) -> None:
    results, expected = _agreed_and_by_hand(chinook, question, by_hand)
    for backend, readings in results.items():
        singles = [float(comparable(rows[0][0])) for rows in readings.values() if len(rows) == 1 and len(rows[0]) == 1]
        assert any(abs(value - expected) < 0.005 for value in singles), (backend, question, readings, expected)


def test_every_customer_in_a_country_divides_by_that_countrys_customers(demo) -> None:
    """'average revenue per customer in Canada', over every one of them: the Canadian customers, not all 500 (the
    country reached through the customers is theirs); the revenue of those in USD, by hand."""
    answers = {"ranking_metric": "every_row", "unit": "only_usd", "record_scope": "all"}
    question = "Average revenue per customer in Canada"
    results = {backend: _answers(demo[backend], question, answers=answers) for backend in BACKENDS}
    assert _agree(results["sqlite"], results["postgresql"]) and _agree(results["sqlite"], results["mysql"])
    hand = demo["sqlite"].db.run(
        "SELECT SUM(i.unit_price * i.quantity) / (SELECT COUNT(*) FROM customers c JOIN countries k ON "
        "k.id = c.country_id WHERE k.name = 'Canada') FROM orders o JOIN order_items i ON i.order_id = o.id "
        "JOIN customers c ON c.id = o.customer_id JOIN countries k ON k.id = c.country_id "
        "WHERE k.name = 'Canada' AND o.currency_code = 'USD'")
    assert hand.ok, hand.error
    figures = [float(comparable(rows[0][0])) for rows in results["sqlite"].values()]
    assert figures and all(abs(f - float(hand.rows[0][0])) < 0.005 for f in figures), (figures, hand.rows)


# a currency's exchange rate is the rate table's own column (it summed revenue, 'exchange rate' unread): every
# reading's figure on every engine is one the hand-written SQL gives, as stored or inverted
# question | the rate (as stored) by hand on SQLite demo
EXCHANGE_RATES = [
    ("what was the pound exchange rate on 2024-03-05",
     "SELECT usd_per_unit FROM exchange_rates WHERE currency_code = 'GBP' AND rate_date = '2024-03-05'"),
    ("average eur to usd rate in march 2025",
     "SELECT AVG(usd_per_unit) FROM exchange_rates WHERE currency_code = 'EUR' AND rate_date >= '2025-03-01' "
     "AND rate_date < '2025-04-01'"),
    ("usd value of 500 euros on 2025-01-15",
     "SELECT 500 * usd_per_unit FROM exchange_rates WHERE currency_code = 'EUR' AND rate_date = '2025-01-15'"),
]


@pytest.mark.parametrize(("question", "by_hand"), EXCHANGE_RATES)
def test_exchange_rates_on_every_engine(demo, question: str, by_hand: str) -> None:
    results = {backend: _answers(demo[backend], question) for backend in BACKENDS}
    assert _agree(results["sqlite"], results["postgresql"]) and _agree(results["sqlite"], results["mysql"]), question
    hand = demo["sqlite"].db.run(by_hand)
    assert hand.ok, hand.error
    rate = float(hand.rows[0][0])
    for backend, readings in results.items():
        figures = [float(comparable(rows[0][0])) for rows in readings.values()]
        assert figures and all(abs(f - rate) < 1e-4 * max(1.0, rate) or abs(f * rate - 1) < 1e-4 for f in figures), \
            (backend, question, figures, rate)


# a median is the middle value, not the mean ('median' was reported as not read): the same window-function
# statement on every engine, checked against Python's median of the values, by hand on SQLite Chinook
# question | the values the median is of
MEDIANS = [
    ("median track length", "SELECT Milliseconds FROM Track"),
    ("median number of tracks per album", "SELECT COUNT(*) FROM Track GROUP BY AlbumId"),
    ("median invoice total in 2025", "SELECT Total FROM Invoice WHERE InvoiceDate >= '2025-01-01' "
                                     "AND InvoiceDate < '2026-01-01'"),
    ("typical invoice amount", "SELECT SUM(UnitPrice * Quantity) FROM InvoiceLine GROUP BY InvoiceId"),
]


@pytest.mark.parametrize(("question", "values"), MEDIANS)
def test_medians_on_every_engine(chinook, chinook_urls, question: str, values: str) -> None:
    results = {backend: _answers(chinook[backend], question) for backend in BACKENDS}
    assert _agree(results["sqlite"], results["postgresql"]) and _agree(results["sqlite"], results["mysql"]), question
    # every value, read straight from the file (the checker's own fetch is bounded)
    with closing(sqlite3.connect(chinook_urls["sqlite"].removeprefix("sqlite:///"))) as raw:
        middle = statistics.median(float(row[0]) for row in raw.execute(values))
    for backend, readings in results.items():
        figures = [float(comparable(rows[0][0])) for rows in readings.values()]
        assert any(abs(f - middle) < 0.005 for f in figures), (backend, question, figures, middle)


# an average or a ratio in each of two periods: (question, the earlier period's figure, the later's, straight SQL)
AVERAGES_COMPARED = [
    ("avg invoice total 2024 vs 2025",
     "SELECT AVG(Total) FROM Invoice WHERE InvoiceDate >= '{0}-01-01' AND InvoiceDate < '{1}-01-01'"),
    ("average invoice 2024 vs 2025",
     "SELECT SUM(il.UnitPrice * il.Quantity) * 1.0 / COUNT(DISTINCT il.InvoiceId) FROM InvoiceLine il "
     "JOIN Invoice i ON i.InvoiceId = il.InvoiceId WHERE i.InvoiceDate >= '{0}-01-01' AND i.InvoiceDate < '{1}-01-01'"),
]


@pytest.mark.parametrize(("question", "sql"), AVERAGES_COMPARED)
def test_an_average_compared_between_years_on_every_engine(chinook, chinook_urls, question: str, sql: str) -> None:
    """'avg invoice this year vs last' counted the invoices ('avg' unread): the average in each year (MariaDB
    averages decimals to 6 places and derives the change from those: compared to 4)."""
    results = {backend: _answers(chinook[backend], question) for backend in BACKENDS}
    assert len({tuple(r) for r in results.values()}) == 1, question  # the same readings on every engine
    with closing(sqlite3.connect(chinook_urls["sqlite"].removeprefix("sqlite:///"))) as raw:
        before = float(raw.execute(sql.format(2024, 2025)).fetchone()[0])
        after = float(raw.execute(sql.format(2025, 2026)).fetchone()[0])
    for backend, readings in results.items():
        pairs = [(float(comparable(rows[0][0])), float(comparable(rows[0][1]))) for rows in readings.values()]
        assert any(abs(b - before) < 0.0001 and abs(a - after) < 0.0001 for b, a in pairs), (backend, pairs, before, after)


# one figure as a percentage of another ('freight as % of sales'): each summed over the same window on its own
# rows, divided (it summed the freight alone, '%' unread); some reading equals the hand-written ratio
FIGURES_OVER_FIGURES = [
    ("freight as a % of sales in 1997",
     "SELECT 100.0 * (SELECT SUM(Freight) FROM Orders WHERE OrderDate >= '1997-01-01' AND OrderDate < '1998-01-01')"
     " / SUM(od.UnitPrice * od.Quantity) FROM \"Order Details\" od JOIN Orders o ON o.OrderID = od.OrderID"
     " WHERE o.OrderDate >= '1997-01-01' AND o.OrderDate < '1998-01-01'"),
]


@pytest.mark.parametrize(("question", "by_hand"), FIGURES_OVER_FIGURES)
def test_a_figure_over_another_on_every_engine(northwind_urls, question: str, by_hand: str) -> None:
    engines = {backend: connect(url) for backend, url in northwind_urls.items()}  # Northwind: SQLite and PostgreSQL
    try:
        hand = engines["sqlite"].db.run(by_hand)
        assert hand.ok, hand.error
        expected = float(hand.rows[0][0])
        for backend, connected in engines.items():
            analysis = connected.analyse(question)
            assert analysis.understood.complete, (backend, analysis.understood)
            assert all("as a percentage of" in i.explanation for i in analysis.interpretations), backend
            figures = [float(comparable(rows[0][0])) for rows in _answers(connected, question).values()]
            assert any(abs(f - expected) < 0.0001 for f in figures), (backend, figures, expected)
    finally:
        for connected in engines.values():
            connected.db.dispose()


def test_a_figure_over_another_on_mariadb_too(chinook) -> None:
    """The ratio's two scalar subqueries run alike on SQLite, PostgreSQL and MariaDB (Chinook: units over revenue)."""
    results = {backend: _answers(chinook[backend], "units sold as a percentage of revenue in 2024") for backend in BACKENDS}
    hand = chinook["sqlite"].db.run(
        "SELECT 100.0 * SUM(il.Quantity) / SUM(il.UnitPrice * il.Quantity) FROM InvoiceLine il JOIN Invoice i "
        "ON i.InvoiceId = il.InvoiceId WHERE i.InvoiceDate >= '2024-01-01' AND i.InvoiceDate < '2025-01-01'")
    assert hand.ok, hand.error
    for backend, readings in results.items():
        figures = [float(comparable(rows[0][0])) for rows in readings.values()]
        assert any(abs(f - float(hand.rows[0][0])) < 0.001 for f in figures), (backend, figures)
