"""Rankings grouped by key give exactly the answers that grouping by the name expression gave, on every engine.

A grouped aggregate ("top product", "revenue by store", "customers with more than 5 orders") now groups the
fact rows by the foreign key they hold and joins the names to the grouped rows afterwards
(`archetypes.query._keyed_ranking`). The reference is the former statement, grouped by the name and the
key over an inner join of the entity's table, which the builder still writes when `keyed_route` finds no
key to group by (forced here by patching it). Each question's readings are built both ways and run on
SQLite, PostgreSQL and MariaDB; the rows must be the same, in the same order. Adding a case is a line.
"""
from __future__ import annotations

import pytest

import archetypes.query as query_module
from adapters.results import comparable, same_rows
from tests.support import BACKENDS, Connected, connect

# (what the case exercises, question, answers that pin the readings)
DEMO: list[tuple[str, str, dict[str, str]]] = [
    ("top N by each metric, scope and currency", "What is the top-selling product?", {}),
    ("a ranking in a window", "Top product by revenue in 2025", {}),
    ("lowest first", "What are the 3 worst-selling products?", {}),
    ("two steps away (products -> categories)", "Which category sells the most?", {}),
    ("grouped, no limit, per currency", "Revenue by store", {}),
    ("HAVING on units", "Which products sold more than 100 units?", {}),
    ("HAVING on a distinct count", "Which customers placed more than 5 orders?", {}),
    ("a ratio per group", "Revenue per order by store", {}),
    ("counted on the fact table itself", "Which store had the most orders?", {}),
]
CHINOOK: list[tuple[str, str, dict[str, str]]] = [
    ("through albums to artists", "Which artist has the most tracks?", {}),
    ("first and last name concatenated", "Which customer spent the most?", {}),
    ("three steps, concatenated name", "Which employee sold the most?", {}),
    ("a title as the name", "Which album sold the most?", {}),
]


@pytest.fixture(scope="module")
def demo(demo_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in demo_urls.items()}


@pytest.fixture(scope="module")
def chinook(chinook_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in chinook_urls.items()}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("case", "question", "answers"), DEMO, ids=[c[0] for c in DEMO])
def test_demo_rankings_are_unchanged(demo, monkeypatch, backend, case, question, answers):
    _compare(demo[backend], monkeypatch, question, answers)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("case", "question", "answers"), CHINOOK, ids=[c[0] for c in CHINOOK])
def test_chinook_rankings_are_unchanged(chinook, monkeypatch, backend, case, question, answers):
    _compare(chinook[backend], monkeypatch, question, answers)


def _rows(connected: Connected, question: str, answers: dict[str, str]) -> dict[str, tuple[str, list]]:
    analysis = connected.analyse(question, answers=answers or None)
    return {i.id: (i.sql(connected.dialect), [[comparable(v) for v in row] for row in connected.run(i).rows])
            for i in analysis.interpretations}


def _compare(connected: Connected, monkeypatch, question: str, answers: dict[str, str]) -> None:
    new = _rows(connected, question, answers)
    with monkeypatch.context() as patch:
        patch.setattr(query_module, "keyed_route", lambda spec, profile: None)
        old = _rows(connected, question, answers)
    assert list(new) == list(old) and new, (question, list(new), list(old))
    quote = "`" if connected.dialect == "mysql" else '"'
    keyed = [r for r, (sql, _) in new.items() if f"_key{quote}" in sql]
    assert keyed, f"{question!r}: no reading grouped by key"
    for reading in new:
        new_sql, new_rows = new[reading]
        old_sql, old_rows = old[reading]
        # SQLite sums floats in scan order, and the two statements scan in different orders
        assert same_rows(new_rows, old_rows, ordered=True), (reading, connected.dialect, new_rows, old_rows, new_sql)
        if reading in keyed:
            assert new_rows, (reading, "an empty ranking proves nothing")
            # the name is computed after grouping, never grouped on
            group_by = new_sql.split("GROUP BY", 1)[1].split(")", 1)[0]
            assert f"{quote}n{quote}." not in group_by and "GROUP BY" in old_sql, (reading, new_sql)
            assert old_sql.count("GROUP BY") == 1 and new_sql.count("GROUP BY") == 1
