"""Found trying an energy utility's schema the project never saw (customers of a segment, meters, readings in kWh,
outages per region kept on a table no other points at): 'how does business kwh compare to residential kwh' dropped
'business' (also a word for money) without a word, comparing residential kWh between two months, and 'how many
outages in scotland' built nothing (the region was read as the customers', the outages' own region dropped)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _utility(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE customers (customer_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "region VARCHAR(20) NOT NULL, segment VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE meters (meter_id INTEGER PRIMARY KEY, customer_id INTEGER NOT NULL "
                             "REFERENCES customers(customer_id), fuel VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE meter_readings (reading_id INTEGER PRIMARY KEY, meter_id INTEGER NOT NULL "
                             "REFERENCES meters(meter_id), read_at TIMESTAMP NOT NULL, kwh NUMERIC(10,2))")
        conn.exec_driver_sql("CREATE TABLE outages (outage_id INTEGER PRIMARY KEY, region VARCHAR(20) NOT NULL, "
                             "started_at TIMESTAMP NOT NULL, ended_at TIMESTAMP)")
        conn.exec_driver_sql("INSERT INTO customers VALUES (1, 'Ada Shaw', 'Scotland', 'business'), "
                             "(2, 'Ben Cole', 'Wales', 'residential'), (3, 'Cat Moss', 'Scotland', 'residential')")
        conn.exec_driver_sql("INSERT INTO meters VALUES (1, 1, 'electricity'), (2, 2, 'gas'), (3, 3, 'electricity')")
        conn.exec_driver_sql("INSERT INTO meter_readings VALUES (1, 1, '2026-10-01 08:00:00', 500), "
                             "(2, 2, '2026-10-01 08:00:00', 120), (3, 3, '2026-11-01 08:00:00', 80), "
                             "(4, 1, '2026-11-01 08:00:00', 450)")
        # three outages in Scotland, one in Wales, one customer only in Wales's region
        conn.exec_driver_sql("INSERT INTO outages VALUES (1, 'Scotland', '2026-02-01 10:00:00', '2026-02-01 12:00:00'), "
                             "(2, 'Scotland', '2026-05-01 10:00:00', NULL), (3, 'Wales', '2026-06-01 10:00:00', NULL), "
                             "(4, 'Scotland', '2026-07-01 10:00:00', '2026-07-02 10:00:00')")
    engine.dispose()


@pytest.fixture
def utility(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "utility.sqlite", _utility) as connected:
        yield connected


def test_a_kind_before_a_figures_name_is_a_value(utility: Connected) -> None:
    # business 950 kWh against residential 200: both sides, never residential against itself in time
    answers = complete_answers(utility, "How does business kwh compare to residential kwh?")
    assert answers and all("business" in a and "residential" in a for a in answers), answers


def test_a_counted_tables_own_column_holds_the_value(utility: Connected) -> None:
    # every outage in Scotland (3), or those still going (1): the outages' own region, whichever records count
    answers = complete_answers(utility, "How many outages in Scotland?")
    assert "[[3]]" in answers and set(answers) <= {"[[3]]", "[[1]]"}, answers


def test_two_figures_side_by_side_are_no_change_between_periods(utility: Connected) -> None:
    """'total billed vs paid in 2024' compared the paid sum of 2024 with 2023's, marked clear, 'billed' unread."""
    analysis = utility.analyse("Total kwh vs readings in 2026")
    assert not analysis.understood.complete and "vs" in [i.text for i in analysis.understood.ignored], \
        analysis.understood
    assert not any("against" in i.explanation for i in analysis.interpretations), analysis.interpretations


def test_a_window_bounds_a_standalone_tables_start_date(utility: Connected) -> None:
    """'how many outages this year' counted every outage (the window, 'this year', applied nowhere and not
    said): the outages' start, not their end, is the date a window bounds."""
    analysis = utility.analyse("How many outages this year?")
    assert analysis.understood.complete and analysis.interpretations
    assert all("started at 2026-01-01" in i.explanation for i in analysis.interpretations), analysis.interpretations


def test_a_breakdown_uses_the_counted_rows_own_column(utility: Connected) -> None:
    """'outages by region' left 'region' unread: the customers' region was taken, no path leads to it."""
    answers = complete_answers(utility, "Outages by region")
    assert any("('Scotland', 3)" in a or "['Scotland', 3]" in a for a in answers), answers
