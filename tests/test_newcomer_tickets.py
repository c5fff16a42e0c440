"""Found trying an event-ticketing schema the project never saw (ticket types of a tier with a price and a currency,
orders of lines with a quantity): 'which comedian sold the most tickets' summed everything with 'comedian' counted
as read, 'which tier sells more, vip or general' listed the two tiers (marked clear), 'which tier is more popular,
vip or general' crashed, 'tickets' was never read as the quantity sold, and 'how many events does each venue have'
left out the venue with none, and 'refund rate for dublin events' built nothing."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _tickets(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE venues (venue_id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL, "
                             "city VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE events (event_id INTEGER PRIMARY KEY, venue_id INTEGER NOT NULL "
                             "REFERENCES venues(venue_id), title VARCHAR(40) NOT NULL, category VARCHAR(12) NOT NULL, "
                             "starts_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE ticket_types (ticket_type_id INTEGER PRIMARY KEY, event_id INTEGER NOT NULL "
                             "REFERENCES events(event_id), tier VARCHAR(10) NOT NULL, price NUMERIC(8,2) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE buyers (buyer_id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, buyer_id INTEGER NOT NULL REFERENCES "
                             "buyers(buyer_id), created_at TIMESTAMP NOT NULL, status VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE order_lines (line_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL "
                             "REFERENCES orders(order_id), ticket_type_id INTEGER NOT NULL REFERENCES "
                             "ticket_types(ticket_type_id), quantity INTEGER NOT NULL, price_paid NUMERIC(8,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO venues VALUES (1, 'Roundhouse', 'London'), (2, 'Vicar Street', 'Dublin'), "
                             "(3, 'Brixton Academy', 'London')")
        conn.exec_driver_sql("INSERT INTO events VALUES (1, 1, 'Bicep', 'concert', '2024-03-01 20:00:00'), "
                             "(2, 2, 'Tommy Tiernan', 'comedy', '2024-03-02 20:00:00')")
        conn.exec_driver_sql("INSERT INTO ticket_types VALUES (1, 1, 'General', 40), (2, 1, 'VIP', 120), "
                             "(3, 2, 'General', 30), (4, 2, 'VIP', 90)")
        conn.exec_driver_sql("INSERT INTO buyers VALUES (1, 'Ann'), (2, 'Bo')")
        conn.exec_driver_sql("INSERT INTO orders VALUES (1, 1, '2024-02-01 10:00:00', 'paid'), "
                             "(2, 2, '2024-02-02 10:00:00', 'refunded'), (3, 1, '2024-02-03 10:00:00', 'paid')")
        # General sells more tickets (9 against 3); VIP brings in more money (330 against 320)
        conn.exec_driver_sql("INSERT INTO order_lines VALUES (1, 1, 1, 5, 40), (2, 2, 3, 4, 30), (3, 3, 2, 2, 120), "
                             "(4, 3, 4, 1, 90)")
    engine.dispose()


@pytest.fixture
def tickets(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "tickets.sqlite", _tickets) as connected:
        yield connected


def test_a_noun_of_no_table_before_a_ranking_is_not_read(tickets: Connected) -> None:
    analysis = tickets.analyse("Which comedian sold the most tickets?")
    assert "comedian" in [i.text for i in analysis.understood.ignored], analysis.understood


@pytest.mark.parametrize("question", ["Which tier sells more, VIP or General?",
                                      "Which tier is more popular, VIP or General?"])
def test_two_values_compared_are_measured_side_by_side(tickets: Connected, question: str) -> None:
    analysis = tickets.analyse(question)  # (the second crashed on an ORDER BY with no figure)
    assert len(analysis.interpretations) > 1, analysis.interpretations  # never the two tiers listed, one reading
    answers = [str(tickets.run(i).rows) for i in analysis.interpretations]
    assert any("'General', 9" in a for a in answers), answers  # the tickets sold of each, among the readings


def test_tickets_sold_are_the_quantity(tickets: Connected) -> None:
    answers = complete_answers(tickets, "How many tickets did we sell?")
    assert "[(12,)]" in answers or "[[12]]" in answers, answers  # every order, or the paid ones (8)


def test_a_rate_filtered_far_from_its_rows_is_built(tickets: Connected) -> None:
    """'refund rate for dublin events' built nothing ('needs a clarification'): the orders reach the venue's city
    only through their lines; one of Dublin's two orders was refunded."""
    answers = complete_answers(tickets, "What's the refund rate for Dublin events?")
    assert answers and all("0.5" in a for a in answers), answers


def test_each_one_asked_counts_those_with_none(tickets: Connected) -> None:
    answers = complete_answers(tickets, "How many events does each venue have?")
    assert any("('Brixton Academy', 0)" in a or "['Brixton Academy', 0]" in a for a in answers), answers
