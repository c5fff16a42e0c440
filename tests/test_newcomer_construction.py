"""Found trying a construction company's schema the project never saw: 'change orders' (a table) were read as a
change between periods, every question about them a comparison; 'which client paid us the most' counted the paid
invoices; 'the current foundation budget' counted the budget rows, not their amount."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _builder(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE clients (client_id INTEGER PRIMARY KEY, client_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE projects (project_id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL "
                             "REFERENCES clients(client_id), project_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE change_orders (change_order_id INTEGER PRIMARY KEY, project_id INTEGER NOT "
                             "NULL REFERENCES projects(project_id), submitted_at TIMESTAMP NOT NULL, amount NUMERIC(12,2) "
                             "NOT NULL, co_status VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL "
                             "REFERENCES projects(project_id), issued_on DATE NOT NULL, amount NUMERIC(12,2) NOT NULL, "
                             "invoice_status VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE phase_budgets (budget_id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL "
                             "REFERENCES projects(project_id), phase VARCHAR(20) NOT NULL, budget_amount NUMERIC(12,2) "
                             "NOT NULL, valid_from DATE NOT NULL, valid_to DATE)")
        conn.exec_driver_sql("INSERT INTO clients VALUES (1, 'County Health'), (2, 'Riverside Schools')")
        conn.exec_driver_sql("INSERT INTO projects VALUES (1, 1, 'Harbor Ferry Terminal'), (2, 2, 'Maple Court')")
        conn.exec_driver_sql("INSERT INTO change_orders VALUES (1, 1, '2024-03-01 10:00:00', 5000, 'approved'), "
                             "(2, 1, '2025-05-01 10:00:00', 7000, 'approved'), (3, 1, '2025-05-02 10:00:00', 900, "
                             "'rejected'), (4, 2, '2024-06-01 10:00:00', 300, 'approved')")
        # Riverside: three small paid invoices (more of them); County Health: one large one (more money)
        conn.exec_driver_sql("INSERT INTO invoices VALUES (1, 1, '2025-01-01', 90000, 'paid'), (2, 2, '2025-01-02', "
                             "1000, 'paid'), (3, 2, '2025-01-03', 1000, 'paid'), (4, 2, '2025-01-04', 1000, 'paid'), "
                             "(5, 1, '2025-01-05', 500, 'void')")
        conn.exec_driver_sql("INSERT INTO phase_budgets VALUES (1, 2, 'foundation', 600000, '2024-01-01', '2024-12-31'), "
                             "(2, 2, 'foundation', 686305, '2025-01-01', NULL), (3, 2, 'framing', 400000, '2024-01-01', "
                             "NULL), (4, 1, 'foundation', 120000, '2024-01-01', NULL)")
    engine.dispose()


@pytest.fixture
def builder(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "builder.sqlite", _builder) as connected:
        yield connected


def test_change_orders_are_a_table_not_a_change(builder: Connected) -> None:
    answers = complete_answers(builder, "Total amount of approved change orders for Harbor Ferry Terminal")
    assert answers == ["[[12000]]"], answers
    assert set(complete_answers(builder, "How many change orders were submitted in 2024?")) == {"[[2]]"}


def test_paid_us_is_money(builder: Connected) -> None:
    answers = complete_answers(builder, "Which client paid us the most?")
    assert answers and all(a.startswith("[['County Health'") for a in answers), answers


def test_a_budget_is_its_amount(builder: Connected) -> None:
    answers = complete_answers(builder, "What is the current foundation budget for Maple Court?")
    assert answers and all("686305" in a for a in answers), answers
