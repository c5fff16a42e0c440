"""Found trying a freight broker's schema the project never saw: 'loads from Laredo to Dallas' counted the loads
whose origin was either city (or whose destination was), and 'our on-time delivery rate' was marked clear with no
date due anywhere to be on time for ('on' and 'time' taken for a time expression)."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _broker(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE cities (city_id INTEGER PRIMARY KEY, city_name VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE lanes (lane_id INTEGER PRIMARY KEY, origin_city_id INTEGER REFERENCES "
                             "cities(city_id), dest_city_id INTEGER REFERENCES cities(city_id), lane_miles INTEGER)")
        conn.exec_driver_sql("CREATE TABLE loads (load_id INTEGER PRIMARY KEY, lane_id INTEGER REFERENCES "
                             "lanes(lane_id), pickup_date DATE NOT NULL, weight_lbs INTEGER NOT NULL, "
                             "created_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO cities VALUES (1, 'Laredo'), (2, 'Dallas'), (3, 'Chicago')")
        # lanes: Laredo to Dallas, Dallas to Laredo, Laredo to Chicago, Chicago to Dallas
        conn.exec_driver_sql("INSERT INTO lanes VALUES (1, 1, 2, 430), (2, 2, 1, 430), (3, 1, 3, 1400), (4, 3, 2, 970)")
        conn.exec_driver_sql("INSERT INTO loads VALUES (1, 1, '2025-05-01', 100, '2025-04-30 10:00:00'), "
                             "(2, 1, '2025-05-02', 100, '2025-04-30 11:00:00'), (3, 2, '2025-05-03', 100, "
                             "'2025-04-30 12:00:00'), (4, 3, '2025-05-04', 100, '2025-04-30 13:00:00'), "
                             "(5, 4, '2025-05-05', 100, '2025-04-30 14:00:00'), (6, 4, '2025-05-06', 100, "
                             "'2025-04-30 15:00:00'), (7, 4, '2025-05-07', 100, '2025-04-30 16:00:00')")
    engine.dispose()


@pytest.fixture
def broker(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "broker.sqlite", _broker) as connected:
        yield connected


def test_from_one_city_to_another_is_a_lane(broker: Connected) -> None:
    # origin Laredo and destination Dallas: 2 loads (never 4 from Laredo, nor 5 into either city)
    assert complete_answers(broker, "How many loads went from Laredo to Dallas?") == ["[[2]]"]
    assert complete_answers(broker, "How many loads went from Dallas to Laredo?") == ["[[1]]"]


def test_on_time_with_no_date_due_is_not_read(broker: Connected) -> None:
    analysis = broker.analyse("What share of loads were delivered on time?")
    assert not analysis.understood.complete
    assert any("on time" in i.text for i in analysis.understood.ignored), analysis.understood
    analysis = broker.analyse("What was our on-time delivery rate in May 2025?")
    assert any("on-time" in i.text for i in analysis.understood.ignored), analysis.understood
