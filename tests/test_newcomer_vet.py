"""Found trying a veterinary clinic's schema the project never saw: 'which vet did the most surgeries' ranked the
vets whose specialty is Surgery by the money of their invoice lines (benign: every reading agreed), and 'how many
surgeries did we do last month' summed money too. A kind of rows said in the plural after 'how many' or 'the most'
is what is counted: the appointments of type Surgery."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _clinic(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE vets (vet_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "specialty VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE appointments (appt_id INTEGER PRIMARY KEY, vet_id INTEGER NOT NULL "
                             "REFERENCES vets(vet_id), scheduled_at TIMESTAMP NOT NULL, visit_type VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE invoices (invoice_id INTEGER PRIMARY KEY, appt_id INTEGER NOT NULL "
                             "REFERENCES appointments(appt_id), issued_at TIMESTAMP NOT NULL, total_amount NUMERIC(10,2) "
                             "NOT NULL)")
        # the surgeon did one costly surgery; the general vet did three cheap ones
        conn.exec_driver_sql("INSERT INTO vets VALUES (1, 'Dr. Ben Lopez', 'Surgery'), (2, 'Dr. Tara Novak', "
                             "'General'), (3, 'Dr. Sam Cohen', 'Dentistry')")
        conn.exec_driver_sql("INSERT INTO appointments VALUES (1, 1, '2025-06-02 09:00:00', 'Surgery'), "
                             "(2, 2, '2025-06-03 09:00:00', 'Surgery'), (3, 2, '2025-06-04 09:00:00', 'Surgery'), "
                             "(4, 2, '2025-06-05 09:00:00', 'Surgery'), (5, 3, '2025-06-06 09:00:00', 'Checkup'), "
                             "(6, 3, '2025-06-07 09:00:00', 'Checkup')")
        conn.exec_driver_sql("INSERT INTO invoices VALUES (1, 1, '2025-06-02 12:00:00', 2000), (2, 2, "
                             "'2025-06-03 12:00:00', 100), (3, 3, '2025-06-04 12:00:00', 100), (4, 4, "
                             "'2025-06-05 12:00:00', 100), (5, 5, '2025-06-06 12:00:00', 50), (6, 6, "
                             "'2025-06-07 12:00:00', 50)")
    engine.dispose()


@pytest.fixture
def clinic(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "clinic.sqlite", _clinic) as connected:
        yield connected


def test_the_most_of_a_kind_counts_that_kind(clinic: Connected) -> None:
    answers = complete_answers(clinic, "Which vet did the most surgeries?")
    assert answers and all(a.startswith("[['Dr. Tara Novak', 3]") for a in answers), answers


def test_how_many_of_a_kind_counts_them(clinic: Connected) -> None:
    answers = complete_answers(clinic, "How many surgeries did we do in June 2025?")
    assert "[[4]]" in answers and not any("2300" in a for a in answers), answers
