"""Found trying a property-rental schema the project never saw (properties in two currencies, units, tenants,
leases with an end date, maintenance requests that may have no vendor): 'the total monthly rent of active leases'
added dollars and pounds, marked clear (a rent was no money); 'requests with no vendor' listed the vendors with
no requests; 'what share of requests are open' divided by the unfinished ones alone; 'when did X move in' summed
X's payments; 'leases terminated in 2024' said no date records it (the end date does); a profile synonym of a
table with no name column was taken as read and counted nothing."""
from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers, connect

# (lease, unit, tenant, start, end, rent, status): unit 1 is in the US property, unit 2 in the UK one
LEASES = [(1, 1, 1, "2022-07-18", None, 1000, "active"), (2, 2, 2, "2023-03-01", None, 800, "active"),
          (3, 1, 2, "2021-01-01", "2022-06-30", 900, "ended"), (4, 2, 1, "2021-05-01", "2024-03-31", 700, "terminated")]
# (request, unit, vendor, status): two never had a vendor
REQUESTS = [(1, 1, 1, "open"), (2, 1, None, "in_progress"), (3, 2, None, "resolved"), (4, 2, 1, "resolved")]


def _rentals(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE properties (property_id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL, "
                             "currency CHAR(3) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE units (unit_id INTEGER PRIMARY KEY, property_id INTEGER NOT NULL "
                             "REFERENCES properties(property_id), unit_number VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE tenants (tenant_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE leases (lease_id INTEGER PRIMARY KEY, unit_id INTEGER NOT NULL "
                             "REFERENCES units(unit_id), tenant_id INTEGER NOT NULL REFERENCES tenants(tenant_id), "
                             "start_date DATE NOT NULL, end_date DATE, monthly_rent NUMERIC(10,2) NOT NULL, "
                             "status VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE vendors (vendor_id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE maintenance_requests (request_id INTEGER PRIMARY KEY, unit_id INTEGER "
                             "NOT NULL REFERENCES units(unit_id), vendor_id INTEGER REFERENCES vendors(vendor_id), "
                             "status VARCHAR(12) NOT NULL, opened_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO properties VALUES (1, 'Harbour View', 'USD'), (2, 'Kings Court', 'GBP')")
        conn.exec_driver_sql("INSERT INTO units VALUES (1, 1, '1A'), (2, 2, '2B')")
        conn.exec_driver_sql("INSERT INTO tenants VALUES (1, 'Alfie Anderson'), (2, 'Maria Garcia')")
        conn.exec_driver_sql("INSERT INTO vendors VALUES (1, 'Property Care Ltd')")
        conn.execute(sa.text("INSERT INTO leases VALUES (:i, :u, :t, :s, :e, :r, :x)"),
                     [dict(zip("iutserx", row, strict=True)) for row in LEASES])
        conn.execute(sa.text("INSERT INTO maintenance_requests VALUES (:i, :u, :v, :s, '2024-06-01 10:00:00')"),
                     [dict(zip("iuvs", row, strict=True)) for row in REQUESTS])
    engine.dispose()


@pytest.fixture
def rentals(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "rentals.sqlite", _rentals) as connected:
        yield connected


def _answers(connected: Connected, question: str) -> set[str]:
    return set(complete_answers(connected, question))


def test_rent_in_two_currencies_is_never_added_up(rentals: Connected) -> None:
    analysis = rentals.analyse("What is the total monthly rent of all active leases?")
    assert "unit" in [d.archetype for d in analysis.detections], analysis.detections
    assert "[[1800.0]]" not in _answers(rentals, "What is the total monthly rent of all active leases?")


def test_rows_with_no_key_to_a_table_are_counted(rentals: Connected) -> None:
    for question in ("How many maintenance requests have no vendor?",
                     "how many maintenance requests never got a vendor?"):
        assert _answers(rentals, question) == {"[[2]]"}, question


def test_the_share_of_rows_still_under_way_divides_by_all(rentals: Connected) -> None:
    # open alone 1 of 4, open or in progress 2 of 4: never 1 of the 2 unfinished
    shares = {round(float(row[-1]), 4) for row in (
        rentals.run(i).rows[0] for i in rentals.analyse("What percentage of maintenance requests are open?")
        .interpretations)}
    assert shares == {0.25, 0.5} or shares == {25.0, 50.0}, shares


def test_when_a_row_began_is_its_first_related_start(rentals: Connected) -> None:
    assert _answers(rentals, "When did Alfie Anderson move in?") == {"[['2021-05-01']]"}


def test_a_closing_state_is_dated_by_the_end_date(rentals: Connected) -> None:
    analysis = rentals.analyse("How many leases were terminated in 2024?")
    assert all("with end date 2024-01-01 to 2024-12-31" in i.explanation for i in analysis.interpretations)
    assert _answers(rentals, "How many leases were terminated in 2024?") == {"[[1]]"}


def test_a_synonym_of_a_table_counts_its_rows(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'rentals.sqlite'}"
    _rentals(url)
    connected = connect(url, {"synonyms": {"jobs": "maintenance_requests"}})
    analysis = connected.analyse("How many jobs are there?")
    assert analysis.understood.complete and [str(connected.run(i).rows) for i in analysis.interpretations] == [
        "[[4]]"], analysis.interpretations
    unknown = connect(url, {"synonyms": {"gigs": "no_such_table"}})  # a synonym of nothing stays unread
    assert not unknown.analyse("How many gigs are there?").understood.complete
    connected.db.dispose()
    unknown.db.dispose()


def test_the_page_examples_say_plurals_right(rentals: Connected) -> None:
    """The page's examples asked 'How many propertys are there?'."""
    from checker_app.ui import display

    examples = display.examples_for([rentals.profile])
    assert examples and not any(re.search(r"\b\w+ys are there\b", e) for e in examples), examples
