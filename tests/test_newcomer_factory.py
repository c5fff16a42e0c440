"""Found trying a factory's schema the project never saw (production runs with a produced, a good and a defect
quantity on a day or a night shift; material receipts with a 'cost' that is the line's total beside a quantity in
kilos): 'good units per plant' summed kilos of material received, 'how many units did a plant make' too, 'spend
on materials' multiplied each line's cost by its kilos and called it revenue, and 'night runs' summed the days
each shift lasted (a hotel's nights); 'done work orders' dropped 'done' (clear), 'downtime hours by reason' counted
machines, and 'the highest defect qty per run' ranked totals, 'per run' unsaid."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _factory(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE plants (plant_id INTEGER PRIMARY KEY, name VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE work_orders (work_order_id INTEGER PRIMARY KEY, plant_id INTEGER NOT NULL "
                             "REFERENCES plants(plant_id), planned_qty INTEGER NOT NULL, started_at TIMESTAMP NOT NULL, "
                             "status VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE downtime_events (event_id INTEGER PRIMARY KEY, plant_id INTEGER NOT NULL "
                             "REFERENCES plants(plant_id), started_at TIMESTAMP NOT NULL, ended_at TIMESTAMP, "
                             "reason VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE production_runs (run_id INTEGER PRIMARY KEY, work_order_id INTEGER NOT NULL "
                             "REFERENCES work_orders(work_order_id), run_date DATE NOT NULL, shift VARCHAR(5) NOT NULL, "
                             "shift_start TIMESTAMP NOT NULL, shift_end TIMESTAMP NOT NULL, produced_qty INTEGER NOT NULL, "
                             "good_qty INTEGER NOT NULL, defect_qty INTEGER NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE material_receipts (receipt_id INTEGER PRIMARY KEY, plant_id INTEGER NOT NULL "
                             "REFERENCES plants(plant_id), received_on DATE NOT NULL, quantity_kg NUMERIC(10,1) NOT NULL, "
                             "cost NUMERIC(10,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO plants VALUES (1, 'Lyon'), (2, 'Ohio Line')")
        conn.exec_driver_sql("INSERT INTO work_orders VALUES (1, 1, 500, '2025-03-01 06:00:00', 'done'), "
                             "(2, 2, 300, '2025-03-02 06:00:00', 'in_progress'), (3, 2, 200, '2025-03-02 07:00:00', "
                             "'planned')")
        conn.exec_driver_sql("INSERT INTO downtime_events VALUES (1, 1, '2025-03-01 08:00:00', '2025-03-01 10:00:00', "
                             "'jam'), (2, 2, '2025-03-02 08:00:00', '2025-03-02 09:30:00', 'jam'), "
                             "(3, 2, '2025-03-02 12:00:00', '2025-03-02 13:00:00', 'maintenance')")
        conn.exec_driver_sql(
            "INSERT INTO production_runs VALUES "
            "(1, 1, '2025-03-01', 'day', '2025-03-01 06:00:00', '2025-03-01 18:00:00', 100, 90, 10), "
            "(2, 1, '2025-03-01', 'night', '2025-03-01 18:00:00', '2025-03-02 06:00:00', 80, 75, 5), "
            "(3, 2, '2025-03-02', 'night', '2025-03-02 18:00:00', '2025-03-03 06:00:00', 60, 60, 0)")
        conn.exec_driver_sql("INSERT INTO material_receipts VALUES (1, 1, '2025-03-01', 1000, 250), "
                             "(2, 2, '2025-03-02', 2000, 400)")
    engine.dispose()


@pytest.fixture
def factory(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "factory.sqlite", _factory) as connected:
        yield connected


def test_good_units_are_the_good_quantity(factory: Connected) -> None:
    answers = complete_answers(factory, "total good units per plant")
    assert answers and all("165" in a and "60" in a for a in answers), answers  # Lyon 90 + 75, Ohio Line 60


def test_units_made_are_never_kilos_received(factory: Connected) -> None:
    answers = complete_answers(factory, "How many units did the Ohio Line make?")
    assert answers and all(a in ("[(60,)]", "[[60]]") for a in answers), answers


def test_a_lines_cost_is_its_total(factory: Connected) -> None:
    analysis = factory.analyse("How much did we spend on materials?")
    assert analysis.interpretations and not any("×" in i.explanation or "revenue" in i.explanation.lower()
                                                for i in analysis.interpretations), analysis.interpretations
    assert any(str(factory.run(i).rows) in ("[(650,)]", "[[650]]", "[(650.0,)]", "[[650.0]]")
               for i in analysis.interpretations)


def test_night_runs_are_counted_not_timed(factory: Connected) -> None:
    analysis = factory.analyse("Number of night runs in March by plant")
    assert analysis.interpretations and all(i.explanation.startswith("Number of production runs")
                                            for i in analysis.interpretations), analysis.interpretations


def test_a_part_of_the_day_that_is_a_value_is_read(factory: Connected) -> None:
    """'night' of 'the night shift' is the shift's value, applied: never an hour of the day left unread."""
    assert complete_answers(factory, "How many runs were on the night shift?") in (["[(2,)]"], ["[[2]]"])


def test_a_state_before_a_two_word_table_noun_is_its_value(factory: Connected) -> None:
    assert complete_answers(factory, "how many done work orders") in (["[(1,)]"], ["[[1]]"])
    # the orders' state, never a date of the runs ('done' is no shift end)
    answers = complete_answers(factory, "Total good qty of done work orders in March 2025")
    assert answers in (["[(165,)]"], ["[[165]]"]), answers


def test_hours_of_rows_are_their_spans_added_up(factory: Connected) -> None:
    analysis = factory.analyse("Downtime hours by reason")
    assert analysis.understood.complete and analysis.interpretations, analysis.understood
    for reading in analysis.interpretations:
        hours = {str(row[0]): float(row[1]) for row in factory.run(reading).rows}
        assert hours.keys() == {"jam", "maintenance"} and abs(hours["jam"] - 3.5) < 1e-3 and \
            abs(hours["maintenance"] - 1.0) < 1e-3, hours  # (julianday's float days, in hours)


@pytest.mark.parametrize(("question", "unread"), [("Which plant had the highest defect qty per run?", "per run"),
                                                  ("average downtime hours per plant", "downtime hours")])
def test_a_figure_per_row_no_reading_divides_by_is_said_unread(factory: Connected, question: str,
                                                                unread: str) -> None:
    analysis = factory.analyse(question)
    assert unread in [i.text for i in analysis.understood.ignored], analysis.understood
