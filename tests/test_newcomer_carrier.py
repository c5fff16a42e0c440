"""Found trying a phone carrier's schema the project never saw: 'the monthly fee of Smart 10 in 2023' summed the
price rows that began in 2023 (none: 0.00, three readings agreeing), not the row in force then; 'the total call
revenue per region' was one figure, the total over the number of regions; 'the monthly data usage' counted the
usage rows, not the megabytes."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _carrier(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE regions (region_id INTEGER PRIMARY KEY, region_name VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE tariff_plans (plan_id INTEGER PRIMARY KEY, plan_name VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE plan_price_history (price_id INTEGER PRIMARY KEY, plan_id INTEGER NOT NULL "
                             "REFERENCES tariff_plans(plan_id), monthly_fee NUMERIC(8,2) NOT NULL, valid_from DATE NOT "
                             "NULL, valid_to DATE)")
        conn.exec_driver_sql("CREATE TABLE subscribers (subscriber_id INTEGER PRIMARY KEY, msisdn VARCHAR(12) NOT NULL, "
                             "region_id INTEGER NOT NULL REFERENCES regions(region_id))")
        conn.exec_driver_sql("CREATE TABLE call_records (call_id INTEGER PRIMARY KEY, subscriber_id INTEGER NOT NULL "
                             "REFERENCES subscribers(subscriber_id), call_start TIMESTAMP NOT NULL, duration_sec INTEGER "
                             "NOT NULL, charge_amount NUMERIC(8,2) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE data_usage (usage_id INTEGER PRIMARY KEY, subscriber_id INTEGER NOT NULL "
                             "REFERENCES subscribers(subscriber_id), usage_date DATE NOT NULL, mb_used NUMERIC(10,1) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO regions VALUES (1, 'North'), (2, 'South')")
        conn.exec_driver_sql("INSERT INTO tariff_plans VALUES (1, 'Smart 10'), (2, 'Basic Talk')")
        # Smart 10 cost 19.99 from 2022 to the end of 2023, then 21.99; no price row began in 2023
        conn.exec_driver_sql("INSERT INTO plan_price_history VALUES (1, 1, 19.99, '2022-01-01', '2023-12-31'), "
                             "(2, 1, 21.99, '2024-01-01', NULL), (3, 2, 9.99, '2022-01-01', NULL)")
        conn.exec_driver_sql("INSERT INTO subscribers VALUES (1, '447700900001', 1), (2, '447700900002', 2)")
        conn.exec_driver_sql("INSERT INTO call_records VALUES (1, 1, '2024-01-05 10:00:00', 60, 5.00), "
                             "(2, 1, '2024-02-05 10:00:00', 60, 7.00), (3, 2, '2024-02-06 10:00:00', 60, 3.00)")
        # January 2024: 3 usage rows of 10 MB; February: 1 row of 500 MB
        conn.exec_driver_sql("INSERT INTO data_usage VALUES (1, 1, '2024-01-03', 10), (2, 1, '2024-01-04', 10), "
                             "(3, 2, '2024-01-05', 10), (4, 2, '2024-02-01', 500)")
    engine.dispose()


@pytest.fixture
def carrier(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "carrier.sqlite", _carrier) as connected:
        yield connected


def test_a_price_in_a_year_is_the_row_in_force_then(carrier: Connected) -> None:
    answers = complete_answers(carrier, "What was the monthly fee of Smart 10 in 2023?")
    assert answers and all("19.99" in a and "21.99" not in a for a in answers), answers


def test_the_total_per_region_is_each_regions(carrier: Connected) -> None:
    answers = complete_answers(carrier, "What is the total call revenue per region?")
    assert answers and all("'North'" in a and "'South'" in a for a in answers), answers


def test_usage_is_the_amount_used(carrier: Connected) -> None:
    analysis = carrier.analyse("What is the monthly data usage in 2024?")
    assert analysis.understood.complete and analysis.interpretations
    assert all("Sum of mb used" in i.explanation for i in analysis.interpretations), analysis.interpretations
