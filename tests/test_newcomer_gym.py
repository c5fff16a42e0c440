"""Found trying a gym's schema the project never saw (members, bookings whose status may be 'booked', a member's own
cancellation date): 'members who never booked a class' was marked clear while it read 'booked' as the bookings'
status (members with no booking in status booked); 'how many active members' left 'active' unread although a
member with no cancellation date is the active one; 'which city brings in the most money', with payments in pounds
and euros and no rates to convert by, ranked the pounds alone and said 'clear'; 'how much did york members pay'
counted the members, 'how many members have paid' the members who booked."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, connect

# (member, cancelled on, booking statuses): member 1 only ever cancelled, member 3 never booked at all
MEMBERS = [(1, "2025-03-01", ("cancelled",)), (2, None, ("attended", "booked")), (3, None, ()), (4, "2025-05-01",
                                                                                                  ("no_show",))]


def _gym(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE members (id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "city VARCHAR(20) NOT NULL, joined_on DATE NOT NULL, cancelled_on DATE)")
        conn.exec_driver_sql("CREATE TABLE payments (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL "
                             "REFERENCES members(id), amount NUMERIC(8,2) NOT NULL, currency CHAR(3) NOT NULL, "
                             "paid_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE bookings (id INTEGER PRIMARY KEY, member_id INTEGER NOT NULL "
                             "REFERENCES members(id), booked_at TIMESTAMP NOT NULL, status VARCHAR(20) NOT NULL)")
        conn.execute(sa.text("INSERT INTO members VALUES (:i, :n, :t, '2024-01-01', :c)"),
                     [{"i": i, "n": f"Member {i}", "t": "Leeds" if i % 2 else "York", "c": c} for i, c, _ in MEMBERS])
        # Leeds pays the most pounds, York the most euros
        conn.exec_driver_sql("INSERT INTO payments VALUES (1, 1, 100, 'GBP', '2025-06-01 10:00:00'), "
                             "(2, 2, 30, 'GBP', '2025-06-01 10:00:00'), (3, 2, 90, 'EUR', '2025-06-02 10:00:00'), "
                             "(4, 3, 20, 'EUR', '2025-06-03 10:00:00')")
        rows = [(member, status) for member, _, statuses in MEMBERS for status in statuses]
        conn.execute(sa.text("INSERT INTO bookings VALUES (:i, :m, '2025-06-10 09:00:00', :s)"),
                     [{"i": i, "m": m, "s": s} for i, (m, s) in enumerate(rows, 1)])
    engine.dispose()


@pytest.fixture
def gym(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "gym.sqlite", _gym) as connected:
        yield connected


def test_the_events_verb_is_never_their_status(gym: Connected) -> None:
    connected = gym
    analysis = connected.analyse("members who never booked a class")
    assert not analysis.understood.complete, analysis.understood  # 'class': no such table here
    assert [i.text for i in analysis.understood.ignored] == ["class"], analysis.understood
    assert not any("status is booked" in i.explanation for i in analysis.interpretations)
    # the verb's own events are looked for, never the payments
    assert all("Members with no bookings" in i.explanation for i in analysis.interpretations), analysis.interpretations
    assert {str(r[0]) for r in connected.run(analysis.interpretations[-1]).rows} == {"Member 3"}
    ranked = connected.analyse("which member booked the most")  # their bookings counted, no status filter
    assert ranked.understood.complete and [i.explanation for i in ranked.interpretations] == [
        "Number of bookings, per member, highest first, top 10"], ranked.interpretations
    counted = connected.analyse("how many bookings are booked")  # the status, where it is one
    assert counted.understood.complete and "status is booked" in counted.interpretations[0].explanation


def test_active_members_have_no_cancellation_date(gym: Connected) -> None:
    connected = gym
    analysis = connected.analyse("how many active members do we have")
    assert analysis.understood.complete, analysis.understood
    assert [int(connected.run(i).rows[0][0]) for i in analysis.interpretations] == [2]
    every = connected.analyse("how many members do we have")  # not said: current ones, or every one ever
    assert sorted(int(connected.run(i).rows[0][0]) for i in every.interpretations) == [2, 4]


def test_a_ranking_in_two_currencies_with_no_rates_is_asked(gym: Connected) -> None:
    connected = gym
    analysis = connected.analyse("which city brings in the most money")
    assert "unit" in [d.archetype for d in analysis.detections], analysis.detections
    winners = {i.explanation.split("only amounts in ")[1][:3]: str(connected.run(i).rows[0][0])
               for i in analysis.interpretations}
    assert winners == {"GBP": "Leeds", "EUR": "York"}, winners


def test_an_average_in_two_currencies_with_no_rates_is_asked_per_currency(gym: Connected) -> None:
    """'average payment amount' with pounds and euros and nothing to convert by: the average in each currency,
    each a reading (only the euros' was offered, beside one figure per currency)."""
    analysis = gym.analyse("average payment amount")
    kept = sorted(i.explanation.split("only amounts in ")[1][:3] for i in analysis.interpretations
                  if "only amounts in " in i.explanation)
    assert kept == ["EUR", "GBP"], analysis.interpretations


def test_how_much_people_paid_is_money_not_a_count_of_them(gym: Connected) -> None:
    connected = gym
    analysis = connected.analyse("how much did york members pay")
    assert analysis.interpretations and all("Sum of amount over the payments where city is York" in i.explanation
                                            for i in analysis.interpretations), analysis.interpretations
    answers = sorted(str(connected.run(i).rows) for i in analysis.interpretations)
    assert any("30" in a for a in answers) and any("90" in a for a in answers), answers  # pounds; euros
    paid = connected.analyse("how many members have paid")  # the payers, not the members who booked
    assert paid.interpretations and all("with payments" in i.explanation for i in paid.interpretations)
    said = connected.analyse("which members booked yoga")  # a verb after its subject: never the status
    assert not any("status is booked" in i.explanation for i in said.interpretations)


def test_who_paid_in_a_currency_lists_the_payers_in_it(gym: Connected) -> None:
    """'which members paid in euros' listed every member, the currency passed over: the payers in euros, and a
    currency no row is in is said unread."""
    connected = gym
    euros = connected.analyse("which members paid in euros")
    assert euros.understood.complete and euros.interpretations, euros.understood
    assert {str(row[0]) for i in euros.interpretations for row in connected.run(i).rows} == {"Member 2", "Member 3"}
    dollars = connected.analyse("which members paid in USD")  # no payment in dollars: never every member
    assert "USD" in [i.text for i in dollars.understood.ignored], dollars.understood
    when = connected.analyse("members who paid in june 2025")
    assert when.understood.complete and all("payments dated 2025-06-01" in i.explanation for i in when.interpretations)


def test_money_asked_where_no_money_reaches_is_said(tmp_path) -> None:
    """'how much revenue did each instructor bring in' summed the classes' capacity, marked clear: no payment
    reaches an instructor, so the money word is said unread."""
    url = f"sqlite:///{tmp_path / 'studio.sqlite'}"
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE instructors (id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE classes (id INTEGER PRIMARY KEY, instructor_id INTEGER NOT NULL "
                             "REFERENCES instructors(id), starts_at TIMESTAMP NOT NULL, capacity INTEGER NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE payments (id INTEGER PRIMARY KEY, amount NUMERIC(8,2) NOT NULL, "
                             "paid_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO instructors VALUES (1, 'Maya Cole'), (2, 'Tom Reed')")
        conn.exec_driver_sql("INSERT INTO classes VALUES (1, 1, '2025-06-01 09:00:00', 20), "
                             "(2, 2, '2025-06-02 09:00:00', 12)")
        conn.exec_driver_sql("INSERT INTO payments VALUES (1, 49, '2025-06-01 10:00:00'), (2, 29, '2025-06-02 10:00:00')")
    engine.dispose()
    connected = connect(url)
    analysis = connected.analyse("how much revenue did each instructor bring in?")
    assert not analysis.understood.complete and "revenue" in [i.text for i in analysis.understood.ignored]
    seats = connected.analyse("total capacity per instructor")  # the figure named, summed: read
    assert seats.understood.complete and "Sum of capacity" in seats.interpretations[0].explanation
    connected.db.dispose()
