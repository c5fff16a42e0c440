"""Found trying a veterinary clinic's schema the project never saw (a newcomer's, on MariaDB and SQLite; here a
small copy on SQLite): 'how many cats vs dogs did we see in 2025' summed treatment revenue per species, marked
benign ('how many' unread); 'how many pets were born each year' counted every pet, marked clear ('each year'
unread)."""
from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from tests.support import connect

# (species, appointments in 2025, appointments in 2024): the counts the first question must give
PETS = [("cat", 3, 1), ("dog", 5, 2), ("rabbit", 1, 0)]


def _clinic(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE pets (pet_id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL, "
                             "species VARCHAR(20) NOT NULL, birth_date DATE NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE treatments (treatment_id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL, "
                             "unit_price NUMERIC(8,2) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE appointments (appointment_id INTEGER PRIMARY KEY, pet_id INTEGER NOT NULL "
                             "REFERENCES pets(pet_id), scheduled_at TIMESTAMP NOT NULL, status VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE appointment_treatments (id INTEGER PRIMARY KEY, appointment_id INTEGER "
                             "NOT NULL REFERENCES appointments(appointment_id), treatment_id INTEGER NOT NULL "
                             "REFERENCES treatments(treatment_id), quantity INTEGER NOT NULL, "
                             "unit_price NUMERIC(8,2) NOT NULL)")
        conn.execute(sa.text("INSERT INTO pets VALUES (:i, :n, :s, :b)"),
                     [{"i": i, "n": f"Pet {i}", "s": s, "b": dt.date(2015 + i, 3, 1)} for i, (s, _, _) in
                      enumerate(PETS, 1)])
        conn.exec_driver_sql("INSERT INTO treatments VALUES (1, 'Vaccination', 40), (2, 'Surgery', 900)")
        visits = [(pet, dt.datetime(year, 1 + n, 10, 9)) for pet, (_, now, before) in enumerate(PETS, 1)
                  for year, count in ((2025, now), (2024, before)) for n in range(count)]
        conn.execute(sa.text("INSERT INTO appointments VALUES (:i, :p, :t, 'completed')"),
                     [{"i": i, "p": pet, "t": at} for i, (pet, at) in enumerate(visits, 1)])
        # the dogs' visits cost little, the cats' a lot: a sum of money names the cats, a count the dogs
        conn.execute(sa.text("INSERT INTO appointment_treatments VALUES (:i, :i, :t, 1, :p)"),
                     [{"i": i, "t": 2 if pet == 1 else 1, "p": 900 if pet == 1 else 40}
                      for i, (pet, _) in enumerate(visits, 1)])
    engine.dispose()


def test_how_many_of_each_side_counts_the_visits(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'clinic.sqlite'}"
    _clinic(url)
    connected = connect(url)
    analysis = connected.analyse("how many cats vs dogs did we see in 2025?")
    assert analysis.understood.complete, analysis.understood
    assert analysis.interpretations
    for interpretation in analysis.interpretations:
        assert "Number of appointments" in interpretation.explanation, interpretation.explanation
        rows = {str(r[0]).lower(): int(r[-1]) for r in connected.run(interpretation).rows}
        assert rows == {"cat": 3, "dog": 5}, rows
    connected.db.dispose()


def test_a_breakdown_no_reading_makes_is_said_unread(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'clinic.sqlite'}"
    _clinic(url)
    connected = connect(url)
    understood = connected.analyse("how many pets were born each year").understood
    assert not understood.complete
    assert [i.text for i in understood.ignored] == ["each year"], understood.ignored
    connected.db.dispose()


def test_how_many_of_a_kind_had_events_counts_the_rows_not_the_events(tmp_path) -> None:
    """A second clinic trial: 'how many dogs had a completed appointment in 2025' counted the dogs' appointments
    (five here) and said clear; the dogs are counted (one)."""
    url = f"sqlite:///{tmp_path / 'clinic.sqlite'}"
    _clinic(url)
    connected = connect(url)
    analysis = connected.analyse("how many dogs had a completed appointment in 2025?")
    assert analysis.understood.complete and analysis.interpretations, analysis.understood
    for interpretation in analysis.interpretations:
        assert "distinct pets" in interpretation.explanation, interpretation.explanation
        assert int(connected.run(interpretation).rows[0][0]) == 1
    connected.db.dispose()


def _billing(url: str) -> None:
    """Owners and their invoices, paid on a day or not yet (paid_on empty): owner 1 paid, owner 2 has an unpaid
    invoice only, owner 3 has none."""
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE owners (owner_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, owner_id INTEGER NOT NULL "
                             "REFERENCES owners(owner_id), issued_on DATE NOT NULL, amount NUMERIC(8,2) NOT NULL, "
                             "paid_on DATE)")
        conn.exec_driver_sql("INSERT INTO owners VALUES (1, 'Ada Keller'), (2, 'Ben Roth'), (3, 'Cleo Marti')")
        conn.exec_driver_sql("INSERT INTO invoices VALUES (1, 1, '2025-01-05', 80, '2025-01-20'), "
                             "(2, 1, '2025-02-05', 40, '2025-02-11'), (3, 2, '2025-03-01', 120, NULL)")
    engine.dispose()


def test_paid_and_unpaid_are_the_rows_own_paid_date(tmp_path) -> None:
    """'how many invoices are unpaid' counted every invoice ('unpaid' unread), 'how many paid invoices' too, and
    'owners who have never paid an invoice' looked for owners with no invoice at all ('paid' passed over)."""
    url = f"sqlite:///{tmp_path / 'billing.sqlite'}"
    _billing(url)
    connected = connect(url)
    for question, expected in (("how many invoices are unpaid?", 1), ("how many paid invoices", 2)):
        analysis = connected.analyse(question)
        assert analysis.understood.complete and analysis.interpretations, (question, analysis.understood)
        assert {int(connected.run(i).rows[0][0]) for i in analysis.interpretations} == {expected}, question
    never = connected.analyse("which owners have never paid an invoice?")
    assert never.understood.complete and never.interpretations, never.understood
    assert {str(r[0]) for i in never.interpretations for r in connected.run(i).rows} == {"Ben Roth", "Cleo Marti"}
    connected.db.dispose()
