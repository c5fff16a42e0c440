"""Found trying a B2B SaaS billing schema the project never saw (companies, plans, subscriptions with an end date,
invoices with a status, users with a deactivation date, support tickets with a closing date): 'how many companies
are on the Free plan' counted the companies with invoices on it (0: free plans send none), 'how many active users'
counted the users of companies with an 'active' subscription (the users' own deactivation ignored), and 'how many
open tickets' built nothing at all ('open' matched an invoice status no ticket reaches)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _saas(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        for ddl in (
                "CREATE TABLE companies (id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL)",
                "CREATE TABLE plans (id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL, price_per_seat NUMERIC(8,2))",
                "CREATE TABLE subscriptions (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL REFERENCES "
                "companies(id), plan_id INTEGER NOT NULL REFERENCES plans(id), started_at DATE NOT NULL, "
                "ended_at DATE, seats INTEGER NOT NULL)",
                "CREATE TABLE invoices (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL REFERENCES companies(id), "
                "subscription_id INTEGER NOT NULL REFERENCES subscriptions(id), issued_at TIMESTAMP NOT NULL, "
                "amount NUMERIC(10,2) NOT NULL, status VARCHAR(12) NOT NULL)",
                "CREATE TABLE users (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL REFERENCES companies(id), "
                "email VARCHAR(40) NOT NULL, created_at TIMESTAMP NOT NULL, deactivated_at TIMESTAMP)",
                "CREATE TABLE support_tickets (id INTEGER PRIMARY KEY, company_id INTEGER NOT NULL REFERENCES "
                "companies(id), opened_at TIMESTAMP NOT NULL, priority VARCHAR(10) NOT NULL, closed_at TIMESTAMP)",
                "CREATE TABLE feature_events (id INTEGER PRIMARY KEY, user_id INTEGER NOT NULL REFERENCES users(id), "
                "feature VARCHAR(20) NOT NULL, occurred_at TIMESTAMP NOT NULL)"):
            conn.exec_driver_sql(ddl)
        conn.exec_driver_sql("INSERT INTO companies VALUES (1, 'Acme'), (2, 'Hooli'), (3, 'Initech')")
        conn.exec_driver_sql("INSERT INTO plans VALUES (1, 'Free', 0), (2, 'Team', 10)")
        # Acme and Initech are on Free (never invoiced); Hooli moved from Free to Team
        conn.exec_driver_sql("INSERT INTO subscriptions VALUES (1, 1, 1, '2024-01-01', NULL, 3), "
                             "(2, 2, 1, '2024-01-01', '2024-06-30', 2), (3, 2, 2, '2024-07-01', NULL, 5), "
                             "(4, 3, 1, '2024-03-01', NULL, 1)")
        conn.exec_driver_sql("INSERT INTO invoices VALUES (1, 2, 3, '2024-08-01 09:00:00', 50, 'paid'), "
                             "(2, 2, 3, '2024-09-08 09:00:00', 50, 'open')")
        conn.exec_driver_sql("INSERT INTO users VALUES (1, 1, 'a@acme.io', '2024-01-02 10:00:00', NULL), "
                             "(2, 1, 'b@acme.io', '2024-01-03 10:00:00', '2024-05-01 10:00:00'), "
                             "(3, 2, 'c@hooli.io', '2024-01-04 10:00:00', NULL)")
        conn.exec_driver_sql("INSERT INTO support_tickets VALUES (1, 1, '2024-09-01 10:00:00', 'urgent', NULL), "
                             "(2, 2, '2024-09-02 10:00:00', 'low', '2024-09-03 10:00:00'), "
                             "(3, 2, '2024-09-05 10:00:00', 'low', NULL), (4, 1, '2024-09-08 08:00:00', 'low', NULL)")
        # the last week (to 9 September): users 1 and 3 used a feature, user 1 twice; user 2 only in August
        conn.exec_driver_sql("INSERT INTO feature_events VALUES (1, 1, 'export', '2024-09-03 10:00:00'), "
                             "(2, 1, 'export', '2024-09-04 10:00:00'), (3, 3, 'api', '2024-09-08 10:00:00'), "
                             "(4, 2, 'api', '2024-08-01 10:00:00')")
    engine.dispose()


@pytest.fixture
def saas(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "saas.sqlite", _saas) as connected:
        yield connected


def test_companies_on_a_plan_are_counted_by_their_plans(saas: Connected) -> None:
    # 3 companies were ever on Free (2 still are); no invoice names the Free plan
    answers = complete_answers(saas, "How many companies are on the Free plan?")
    assert "[[0]]" not in answers and ("[[3]]" in answers or "[[2]]" in answers), answers


def test_active_rows_are_their_own_not_deactivated_ones(saas: Connected) -> None:
    assert complete_answers(saas, "How many active users do we have?") == ["[[2]]"]


def test_open_rows_are_those_not_closed(saas: Connected) -> None:
    assert complete_answers(saas, "How many open tickets are there?") == ["[[3]]"]


def test_rows_valid_on_a_day_include_those_begun_that_day(saas: Connected) -> None:
    # valid on 8 September: the three open ones, one opened that morning (a timestamp against a day's date)
    answers = complete_answers(saas, "How many support tickets are there?")
    assert "[[2]]" not in answers and "[[3]]" in answers, answers


def test_active_in_a_time_is_having_used_it_then(saas: Connected) -> None:
    """'weekly active users' counted the users signed up per week; 'users active in the last 7 days' those who
    signed up in the last 7 days."""
    assert complete_answers(saas, "How many weekly active users do we have?") == ["[[2]]"]
    assert complete_answers(saas, "how many users were active in the last 7 days") == ["[[2]]"]
