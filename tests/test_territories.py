"""A country whose territories are rows of their own ('offices in france' beside one in Réunion; 'stores in the us'
beside San Juan, Puerto Rico): the country alone, or with its territories, asked; filtered through whichever table
the country was read with."""
from __future__ import annotations

import sqlalchemy as sa

from tests.support import built_sqlite, complete_answers


def _offices(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE offices (id INTEGER PRIMARY KEY, city VARCHAR(30) NOT NULL, "
                             "country VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE sales (id INTEGER PRIMARY KEY, office_id INTEGER NOT NULL "
                             "REFERENCES offices(id), amount NUMERIC(8,2) NOT NULL, sold_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO offices VALUES (1, 'Paris', 'France'), (2, 'Saint-Denis', 'Réunion'), "
                             "(3, 'Berlin', 'Germany')")
        conn.exec_driver_sql("INSERT INTO sales VALUES (1, 1, 100, '2025-01-01 10:00:00'), "
                             "(2, 2, 40, '2025-01-02 10:00:00'), (3, 3, 70, '2025-01-03 10:00:00')")
    engine.dispose()


def test_a_country_with_a_territory_asks_whether_it_counts(tmp_path) -> None:
    with built_sqlite(tmp_path, "offices.sqlite", _offices) as connected:
        analysis = connected.analyse("how many offices do we have in france")
        asked = [d for d in analysis.detections if d.archetype == "entity"]
        assert asked and "territories" in asked[0].clarification.question, analysis.detections
        assert sorted(complete_answers(connected, "how many offices do we have in france")) == ["[[1]]", "[[2]]"]
        # the sales of the offices in France: 100, or 140 with Réunion's
        assert sorted(complete_answers(connected, "total amount of sales in france")) == ["[[100]]", "[[140]]"]
        # a country with no territory among the rows asks nothing
        assert complete_answers(connected, "how many offices do we have in germany") == ["[[1]]"]
