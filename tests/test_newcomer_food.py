"""Found trying a food-delivery schema the project never saw (eateries with a cuisine, menu items with yes/no diet
columns, orders with a status and a delivery fee): 'how many menu items are vegan' counted the items of the
eateries whose cuisine is 'Vegan' (12) instead of the items marked vegan (33), and 'the total delivery fee' kept
only the delivered orders, the word 'delivery' read as the state, marked clear."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _food(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE eateries (eatery_id INTEGER PRIMARY KEY, eatery_name VARCHAR(30) NOT NULL, "
                             "cuisine VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE menu_items (menu_item_id INTEGER PRIMARY KEY, eatery_id INTEGER NOT NULL "
                             "REFERENCES eateries(eatery_id), item_name VARCHAR(30) NOT NULL, "
                             "list_price NUMERIC(6,2) NOT NULL, is_vegan BOOLEAN NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE diners (diner_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "joined_on DATE NOT NULL)")
        # two joined in April, one in May (the last full month), three in June (the last 30 days)
        conn.exec_driver_sql("INSERT INTO diners VALUES (1, 'Ana', '2024-04-02'), (2, 'Ben', '2024-04-20'), "
                             "(3, 'Cleo', '2024-05-09'), (4, 'Dev', '2024-06-01'), (5, 'Eli', '2024-06-10'), "
                             "(6, 'Fay', '2024-06-15')")
        conn.exec_driver_sql("CREATE TABLE food_orders (order_id INTEGER PRIMARY KEY, eatery_id INTEGER NOT NULL "
                             "REFERENCES eateries(eatery_id), diner_id INTEGER REFERENCES diners(diner_id), "
                             "placed_at TIMESTAMP NOT NULL, "
                             "order_status VARCHAR(12) NOT NULL, subtotal NUMERIC(8,2) NOT NULL, "
                             "delivery_fee NUMERIC(6,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO eateries VALUES (1, 'Green Leaf', 'Vegan'), (2, 'Nonna Lucia', 'Italian')")
        # one item of the vegan place, three vegan items elsewhere
        conn.exec_driver_sql("INSERT INTO menu_items VALUES (1, 1, 'Tofu Bowl', 11, 1), (2, 2, 'Margherita', 9, 0), "
                             "(3, 2, 'Minestrone', 7, 1), (4, 2, 'Focaccia', 5, 1), (5, 2, 'Marinara', 8, 1)")
        conn.exec_driver_sql("INSERT INTO food_orders VALUES (1, 1, 1, '2024-05-01 12:00:00', 'delivered', 20, 2), "
                             "(2, 2, 3, '2024-05-02 12:00:00', 'delivered', 30, 3), "
                             "(3, 2, 4, '2024-06-30 12:00:00', 'cancelled', 25, 4)")
    engine.dispose()


@pytest.fixture
def food(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "food.sqlite", _food) as connected:
        yield connected


def test_the_rows_own_flag_beats_a_value_of_another_table(food: Connected) -> None:
    assert complete_answers(food, "How many menu items are vegan?") == ["[[4]]"]


def test_a_word_of_a_columns_name_is_no_state(food: Connected) -> None:
    # every order's fee (9), and the fee of the delivered ones only (5) as a reading of which records count
    assert "[[9]]" in complete_answers(food, "What is the total delivery fee?")


def test_two_questions_of_one_kind_keep_their_own_statements(food: Connected) -> None:
    """'new diners last month' asks two timeframes ('last month', 'new'): the last-30-days reading ran the previous
    full month's statement (both readings had the same choices), and its --answer was refused."""
    analysis = food.analyse("How many new diners did we get last month?")
    by_window = {i.id: food.run(i).rows for i in analysis.interpretations if "own_date" in i.id}
    assert by_window == {"timeframe=full_month|timeframe=own_date": [(1,)],
                         "timeframe=last_30_days|timeframe=own_date": [(3,)]} or \
        by_window == {"timeframe=full_month|timeframe=own_date": [[1]],
                      "timeframe=last_30_days|timeframe=own_date": [[3]]}, by_window
    answered = food.analyse("How many new diners did we get last month?",
                            answers={"timeframe": "last_30_days,own_date"})
    assert [food.run(i).rows for i in answered.interpretations] in ([[(3,)]], [[[3]]])


def test_the_check_runs_each_readings_own_statement(food: Connected) -> None:
    """The same through the whole check: each reading's rows are its own statement's (they were matched to the
    statements by their choices alone)."""
    from checker_app.pipeline import check

    report = check("How many new diners did we get last month?", [food.db])
    rows = {r.id: r.results["sqlite"].rows for r in report.interpretations if "own_date" in r.id}
    assert rows == {"timeframe=full_month|timeframe=own_date": [[1]],
                    "timeframe=last_30_days|timeframe=own_date": [[3]]}, rows
