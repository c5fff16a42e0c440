"""Found trying a ride-hailing schema the project never saw (trips in two currencies with a fare, a tip, a distance
in km and a duration in minutes; drivers active or suspended; ratings in stars): 'top riders by spend' and 'sales
yesterday' summed minutes, 'distance in km' filtered on the driver whose initials are K. M., 'avg rating per
driver' divided the number of ratings by the drivers, 'trips cancelled by riders' was broken down per rider, the
trips' own status (cancelled_by_rider, no_show) was never asked about while the drivers' was, and 'compare the
trips in february and march' compared two months with the two before them."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _rides(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE drivers (id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL, "
                             "vehicle_type VARCHAR(10) NOT NULL, status VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE riders (id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE trips (id INTEGER PRIMARY KEY, rider_id INTEGER NOT NULL REFERENCES "
                             "riders(id), driver_id INTEGER NOT NULL REFERENCES drivers(id), requested_at TIMESTAMP "
                             "NOT NULL, status VARCHAR(20) NOT NULL, distance_km NUMERIC(6,2), duration_min "
                             "NUMERIC(6,1), fare NUMERIC(8,2), tip NUMERIC(8,2), currency VARCHAR(3) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE ratings (id INTEGER PRIMARY KEY, trip_id INTEGER NOT NULL REFERENCES "
                             "trips(id), stars INTEGER NOT NULL, rated_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO drivers VALUES (1, 'Kwame Mensah', 'sedan', 'active'), "
                             "(2, 'Lena Fischer', 'suv', 'suspended'), (3, 'Tom Baker', 'ev', 'active')")
        conn.exec_driver_sql("INSERT INTO riders VALUES (1, 'Ann Hall'), (2, 'Uwe Berg'), (3, 'Ida Roth')")
        # Ann spends most money, Uwe rides longest (minutes); two trips were cancelled by the rider, one no-show
        conn.exec_driver_sql(
            "INSERT INTO trips VALUES "
            "(1, 1, 1, '2025-01-10 08:00:00', 'completed', 10, 20, 90, 5, 'EUR'), "
            "(2, 2, 2, '2025-02-03 09:00:00', 'completed', 30, 95, 40, 2, 'EUR'), "
            "(3, 2, 3, '2025-02-14 10:00:00', 'cancelled_by_rider', 0, 0, 0, 0, 'EUR'), "
            "(4, 3, 1, '2025-03-02 11:00:00', 'completed', 8, 15, 30, 1, 'GBP'), "
            "(5, 3, 3, '2025-03-09 12:00:00', 'cancelled_by_rider', 0, 0, 5, 0, 'GBP'), "
            "(6, 1, 2, '2025-03-20 13:00:00', 'no_show', 0, 0, 5, 0, 'GBP'), "
            "(7, 1, 3, '2025-03-31 14:00:00', 'completed', 12, 25, 60, 6, 'EUR')")
        conn.exec_driver_sql("INSERT INTO ratings VALUES (1, 1, 5, '2025-01-10 09:00:00'), "
                             "(2, 2, 3, '2025-02-03 11:00:00'), (3, 4, 4, '2025-03-02 12:00:00'), "
                             "(4, 7, 2, '2025-03-31 15:00:00')")
    engine.dispose()


@pytest.fixture
def rides(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "rides.sqlite", _rides) as connected:
        yield connected


@pytest.mark.parametrize("question", ["top 5 riders by spend", "What were sales yesterday?"])
def test_money_words_sum_the_money_never_the_minutes(rides: Connected, question: str) -> None:
    analysis = rides.analyse(question)
    assert analysis.interpretations, question
    assert all("duration" not in i.explanation for i in analysis.interpretations), analysis.interpretations
    assert all("fare" in i.explanation or "tip" in i.explanation for i in analysis.interpretations), \
        analysis.interpretations


def test_a_unit_after_a_column_is_no_persons_initials(rides: Connected) -> None:
    analysis = rides.analyse("average distance in km")
    assert not any(d.archetype == "entity" for d in analysis.detections), analysis.detections
    # 60 km over 7 trips, over the 5 not cancelled, over the 4 completed: never one driver's trips
    assert set(complete_answers(rides, "average distance in km")) == {"[[8.571428571428571]]", "[[12.0]]", "[[15.0]]"}


def test_an_average_rating_averages_the_stars(rides: Connected) -> None:
    answers = complete_answers(rides, "what's the avg rating per driver")
    # Kwame 4.5 (5 and 4), Lena 3, Tom 2: each one's mean, not ratings over drivers
    assert any("4.5" in a and "'Lena Fischer', 3" in a for a in answers), answers


def test_a_state_that_names_who_did_it_is_no_breakdown(rides: Connected) -> None:
    answers = complete_answers(rides, "How many trips were cancelled by riders?")
    assert answers and all(a in ("[(2,)]", "[[2]]") for a in answers), answers


def test_the_trips_own_status_says_which_trips_count(rides: Connected) -> None:
    """The fare of a cancelled trip or a no-show is in the average unless someone says otherwise; the drivers'
    status today (one suspended) says nothing of which past trips count."""
    analysis = rides.analyse("What is the average fare?")
    explained = [i.explanation for i in analysis.interpretations]
    assert any("status is completed" in e for e in explained), explained
    assert not any("driver's status" in e for e in explained), explained
    assert any(d.archetype == "unit" for d in analysis.detections), analysis.detections


def test_a_tip_is_money_in_its_trips_currency(rides: Connected) -> None:
    analysis = rides.analyse("average tip")
    assert any(d.archetype == "unit" for d in analysis.detections), analysis.detections


def test_comparing_two_months_named_with_and_compares_them(rides: Connected) -> None:
    analysis = rides.analyse("compare the number of trips in February and March")
    assert analysis.interpretations
    assert all("2025-03-01 to 2025-03-31 against 2025-02-01 to 2025-02-28" in i.explanation
               for i in analysis.interpretations), [i.explanation for i in analysis.interpretations]


def test_the_pages_examples_sell_no_rider(rides: Connected) -> None:
    """The page offered 'What is the top-selling rider?' and 'What were sales yesterday?' (which summed minutes)."""
    from checker_app.ui.display import examples_for

    examples = examples_for([rides.profile])
    assert examples and not any("top-selling" in e for e in examples), examples
