"""Found trying three schemas the project never saw.

An admissions office: 'how many offers were declined' was a fall in the number of offers between two periods
(the response column's value 'declined' taken for a change), and 'applicants never interviewed' kept only
applications in status 'interview'. A museum: 'how many exhibitions are open right now' was clear with every
exhibition (opening and closing days are a validity period, its current rows those open today), and its readings
without deleted visitors dropped every donation with no visitor at all. A farm co-op: 'the total value of rejected
deliveries' counted them, 'which village has the most active growers' ranked growers, each with one, and
'kilograms harvested' summed the kilograms delivered."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _admissions(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE programs (program_id INTEGER PRIMARY KEY, program_name VARCHAR(20))")
        conn.exec_driver_sql("CREATE TABLE admission_offers (offer_id INTEGER PRIMARY KEY, program_id INTEGER "
                             "REFERENCES programs(program_id), offered_on DATE, response VARCHAR(10))")
        conn.exec_driver_sql("CREATE TABLE applicants (applicant_id INTEGER PRIMARY KEY, full_name VARCHAR(20))")
        conn.exec_driver_sql("CREATE TABLE applications (application_id INTEGER PRIMARY KEY, applicant_id INTEGER "
                             "REFERENCES applicants(applicant_id), submitted_at TIMESTAMP, status VARCHAR(12))")
        conn.exec_driver_sql("CREATE TABLE interviews (interview_id INTEGER PRIMARY KEY, application_id INTEGER "
                             "REFERENCES applications(application_id), scheduled_at TIMESTAMP)")
        conn.exec_driver_sql("INSERT INTO applicants VALUES (1, 'ann'), (2, 'bo'), (3, 'cy')")
        # ann was interviewed; bo's application is in status 'interview' but has none yet; cy has none either
        conn.exec_driver_sql("INSERT INTO applications VALUES (1, 1, '2025-01-01 10:00:00', 'offer'), "
                             "(2, 2, '2025-01-02 10:00:00', 'interview'), (3, 3, '2025-01-03 10:00:00', 'rejected')")
        conn.exec_driver_sql("INSERT INTO interviews VALUES (1, 1, '2025-01-10 10:00:00')")
        conn.exec_driver_sql("INSERT INTO programs VALUES (1, 'nursing'), (2, 'law')")
        # more offers in May than in April, three of them declined in all
        conn.exec_driver_sql("INSERT INTO admission_offers VALUES (1, 1, '2025-04-02', 'accepted'), "
                             "(2, 1, '2025-05-02', 'declined'), (3, 2, '2025-05-03', 'declined'), "
                             "(4, 2, '2025-05-04', 'accepted'), (5, 1, '2025-03-05', 'declined')")
    engine.dispose()


def _museum(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE galleries (gallery_id INTEGER PRIMARY KEY, gallery_name VARCHAR(20))")
        conn.exec_driver_sql("CREATE TABLE exhibitions (exhibition_id INTEGER PRIMARY KEY, title VARCHAR(30), "
                             "gallery_id INTEGER REFERENCES galleries(gallery_id), opens_on DATE, closes_on DATE)")
        conn.exec_driver_sql("CREATE TABLE ticket_sales (sale_id INTEGER PRIMARY KEY, exhibition_id INTEGER "
                             "REFERENCES exhibitions(exhibition_id), sold_at TIMESTAMP, amount_paid NUMERIC(8,2))")
        conn.exec_driver_sql("INSERT INTO galleries VALUES (1, 'east'), (2, 'west')")
        # the data's last day is 2024-09-30: one exhibition is on then, three closed before
        conn.exec_driver_sql("INSERT INTO exhibitions VALUES (1, 'egypt', 1, '2023-01-01', '2023-06-30'), "
                             "(2, 'gardens', 2, '2024-05-01', '2024-12-31'), (3, 'light', 1, '2024-01-01', "
                             "'2024-03-31'), (4, 'cities', 2, '2024-08-01', '2024-08-15')")
        conn.exec_driver_sql("CREATE TABLE visitors (visitor_id INTEGER PRIMARY KEY, full_name VARCHAR(20), "
                             "deleted_at TIMESTAMP)")
        conn.exec_driver_sql("CREATE TABLE donations (donation_id INTEGER PRIMARY KEY, visitor_id INTEGER "
                             "REFERENCES visitors(visitor_id), donated_on DATE, amount NUMERIC(8,2))")
        conn.exec_driver_sql("INSERT INTO visitors VALUES (1, 'ann', NULL), (2, 'bo', '2024-01-01 00:00:00')")
        # a walk-in's donation has no visitor: it is money given all the same, whoever was deleted since
        conn.exec_driver_sql("INSERT INTO donations VALUES (1, 1, '2024-09-05', 100), (2, 2, '2024-09-06', 1000), "
                             "(3, NULL, '2024-09-07', 50)")
        conn.exec_driver_sql("INSERT INTO ticket_sales VALUES (1, 1, '2023-02-01 10:00:00', 20), "
                             "(2, 2, '2024-09-30 11:00:00', 25), (3, 3, '2024-02-01 12:00:00', 15)")
    engine.dispose()


def _farm(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE growers (grower_id INTEGER PRIMARY KEY, full_name VARCHAR(20), "
                             "village VARCHAR(20), membership_status VARCHAR(10))")
        conn.exec_driver_sql("CREATE TABLE deliveries (delivery_id INTEGER PRIMARY KEY, grower_id INTEGER "
                             "REFERENCES growers(grower_id), delivered_at TIMESTAMP, delivered_kg NUMERIC(8,1), "
                             "invoice_amount NUMERIC(10,2), delivery_status VARCHAR(10))")
        conn.exec_driver_sql("CREATE TABLE harvests (harvest_id INTEGER PRIMARY KEY, grower_id INTEGER REFERENCES "
                             "growers(grower_id), harvested_on DATE, weight_kg NUMERIC(8,1))")
        conn.exec_driver_sql("INSERT INTO harvests VALUES (1, 3, '2023-02-01', 400), (2, 4, '2023-03-01', 600), "
                             "(3, 5, '2024-03-01', 900)")
        # ashby has more growers, elmstead more active ones
        conn.exec_driver_sql("INSERT INTO growers VALUES (1, 'anna', 'ashby', 'left'), (2, 'bo', 'ashby', 'left'), "
                             "(3, 'cy', 'ashby', 'active'), (4, 'di', 'elmstead', 'active'), "
                             "(5, 'ed', 'elmstead', 'active')")
        conn.exec_driver_sql("INSERT INTO deliveries VALUES (1, 3, '2023-03-01 08:00:00', 100, 250.5, 'rejected'), "
                             "(2, 4, '2023-04-01 08:00:00', 50, 100, 'rejected'), "
                             "(3, 5, '2023-05-01 08:00:00', 70, 175, 'delivered'), "
                             "(4, 5, '2024-05-01 08:00:00', 70, 999, 'rejected')")
    engine.dispose()


@pytest.fixture
def admissions(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "admissions.sqlite", _admissions) as connected:
        yield connected


@pytest.fixture
def museum(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "museum.sqlite", _museum) as connected:
        yield connected


@pytest.fixture
def farm(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "farm.sqlite", _farm) as connected:
        yield connected


def test_a_response_declined_is_a_state_not_a_fall(admissions: Connected) -> None:
    assert complete_answers(admissions, "How many offers were declined?") == ["[[3]]"]


def test_exhibitions_open_right_now_are_those_between_their_days(museum: Connected) -> None:
    assert complete_answers(museum, "How many exhibitions are open right now?") == ["[[1]]"]


def test_the_value_of_rows_is_their_money(farm: Connected) -> None:
    assert complete_answers(farm, "What was the total value of rejected deliveries in 2023?") == ["[[350.5]]"]


def test_which_village_has_the_most_active_growers_ranks_villages(farm: Connected) -> None:
    answers = complete_answers(farm, "Which village has the most active growers?")
    assert answers and all("elmstead" in a and "2" in a for a in answers), answers


def test_rows_with_no_parent_stay_when_deleted_parents_are_left_out(museum: Connected) -> None:
    # without deleted visitors: ann's 100 and the walk-in's 50 (never 100 alone); with them: 1150
    assert sorted(complete_answers(museum, "What is the total amount of donations?")) == ["[[1150]]", "[[150]]"]


def test_kilograms_harvested_are_the_harvests_weight(farm: Connected) -> None:
    # 1000 kg harvested in 2023 (never the 220 kg delivered)
    assert complete_answers(farm, "How many kilograms were harvested in 2023?") == ["[[1000]]"]


def test_never_interviewed_is_no_interview_not_a_status(admissions: Connected) -> None:
    # bo and cy have no interview (never only bo, whose status is 'interview')
    assert complete_answers(admissions, "How many applicants have never been interviewed?") == ["[[2]]"]
