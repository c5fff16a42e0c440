"""Top N per group (issue 11): 'top 3 products per category' ranks within each group on every engine, says so
in its explanation, and readings are compared on the set of (group, row) pairs, a tie at a group's cut on the
rows above it."""
from __future__ import annotations

from typing import Any

import pytest

from adapters import RunResult
from adapters.results import same_rows
from checker_app.answers import answer_of
from checker_app.verdict import readings_divergent, tie_words
from tests.support import BACKENDS, Connected, connect

COLUMNS = ["category", "product", "{m}", "rank_in_group", "tied_in_group"]


def _result(measure: str, rows: list[list[Any]]) -> RunResult:
    columns = [c.format(m=measure) for c in COLUMNS]
    return RunResult(engine="demo", dialect="sqlite", sql="SELECT 1", status="ok", columns=columns, rows=rows,
                     row_count=len(rows))


# (revenue rows, units rows, different answers?): rows are group, row, figure, rank, rows sharing the figure
CASES = [
    # the same pairs with other figures and in another order: one answer
    ([["A", "x", 9.0, 1, 1], ["A", "y", 5.0, 2, 1], ["B", "z", 4.0, 1, 1]],
     [["B", "z", 40, 1, 1], ["A", "y", 90, 1, 1], ["A", "x", 50, 2, 1]], False),
    # another row in one group
    ([["A", "x", 9.0, 1, 1], ["A", "y", 5.0, 2, 1], ["B", "z", 4.0, 1, 1]],
     [["A", "x", 90, 1, 1], ["A", "w", 50, 2, 1], ["B", "z", 40, 1, 1]], True),
    # a group only one reading has
    ([["A", "x", 9.0, 1, 1]], [["A", "x", 9, 1, 1], ["B", "z", 4, 1, 1]], True),
    # y is one pick of 3 tied at the cut; w may be another: undecided, not a difference
    ([["A", "x", 9.0, 1, 1], ["A", "y", 5.0, 2, 3]], [["A", "x", 90, 1, 1], ["A", "w", 50, 2, 1]], False),
    # the row above the tie differs: a difference whatever the tie holds
    ([["A", "x", 9.0, 1, 1], ["A", "y", 5.0, 2, 3]], [["A", "v", 90, 1, 1], ["A", "w", 50, 2, 1]], True),
    # both picked from ties at the cut
    ([["A", "x", 5.0, 1, 2]], [["A", "y", 5, 1, 4]], False),
    # a tie inside the rows shown is no tie at the cut: {x, y} against {x, w}
    ([["A", "x", 5.0, 1, 2], ["A", "y", 5.0, 2, 2]], [["A", "x", 9, 1, 1], ["A", "w", 5, 2, 1]], True),
]


@pytest.mark.parametrize(("revenue", "units", "different"), CASES)
def test_readings_compare_the_pairs_of_group_and_row(revenue, units, different: bool) -> None:
    divergent, distinct = readings_divergent([_result("revenue", revenue), _result("units", units)])
    assert divergent is different and distinct == (2 if different else 1)


def test_a_tie_at_a_cut_is_said_and_named_in_the_answer() -> None:
    tied = _result("revenue", [["A", "x", 9.0, 1, 1], ["A", "y", 5.0, 2, 3], ["B", "z", 4.0, 1, 1]])
    plain = _result("units", [["A", "x", 9, 1, 1], ["A", "y", 5, 2, 1], ["B", "z", 4, 1, 1]])
    assert tie_words([tied, plain]) == "a group ends in a tie at the cut, compared on the rows above it"
    assert tie_words([plain, plain]) == ""
    answer = answer_of(tied)
    assert answer.shape == "breakdown"
    assert answer.headline == "A: x, y (tied with 2 more) · B: z"
    assert answer.detail == "2 per category by revenue, 2 groups"


@pytest.fixture(scope="module")
def demo(demo_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in demo_urls.items()}


def _answers(connected: Connected, question: str) -> dict[str, list[list[Any]]]:
    analysis = connected.analyse(question)
    assert analysis.understood.complete, (question, analysis.understood.ignored)
    return {i.id: connected.run(i).rows for i in analysis.interpretations}


@pytest.mark.parametrize("question", ["top 2 sellers in each category by units, 2024",
                                      "biggest spender in each country"])
def test_demo_top_per_group_is_the_same_on_every_engine(demo, question: str) -> None:
    results = {backend: _answers(demo[backend], question) for backend in BACKENDS}
    assert list(results["sqlite"]) == list(results["postgresql"]) == list(results["mysql"])
    for reading, rows in results["sqlite"].items():
        for backend in ("postgresql", "mysql"):
            assert same_rows(rows, results[backend][reading]), (question, reading, backend)


def test_top_two_per_category_by_units(demo) -> None:
    """Computed apart with ROW_NUMBER per category over the 2024 lines (sqlite3): Accessories' two are AirTag
    (1,723 units) and Screen Protector (1,656); every reading keeps two rows per category and says so."""
    analysis = demo["sqlite"].analyse("top 2 sellers in each category by units, 2024")
    assert {d.archetype for d in analysis.detections} == {"record_scope"}
    every = next(i for i in analysis.interpretations if i.choices["record_scope"] == "all")
    assert every.explanation.endswith("per category, top 2 products in each, highest first")
    rows = demo["sqlite"].run(every).rows
    assert [r[:4] for r in rows[:2]] == [["Accessories", "AirTag", 1723, 1], ["Accessories", "Screen Protector", 1656, 2]]
    assert len(rows) == 2 * len({r[0] for r in rows})


def test_chinook_best_selling_track_per_genre_on_every_engine(chinook_urls) -> None:
    """Ties everywhere (most tracks sell one or two units): the key breaks them the same way on every engine."""
    engines = {backend: connect(url) for backend, url in chinook_urls.items()}
    results = {backend: _answers(engines[backend], "best selling track in each genre") for backend in BACKENDS}
    for reading, rows in results["sqlite"].items():
        assert len(rows) == len({r[0] for r in rows})  # one track per genre
        for backend in ("postgresql", "mysql"):
            assert same_rows(rows, results[backend][reading]), (reading, backend)


def test_northwind_top_three_per_category_on_postgres(northwind_urls) -> None:
    """Net of discount, computed apart (sqlite3): Beverages' top three of 1997 are Côte de Blaye, Ipoh Coffee
    and Lakkalikööri."""
    for backend in ("sqlite", "postgresql"):
        connected = connect(northwind_urls[backend])
        analysis = connected.analyse("top 3 products per category by revenue, 1997")
        net = next(i for i in analysis.interpretations if i.choices["ranking_metric"] == "revenue_net")
        rows = connected.run(net).rows
        assert [r[1] for r in rows[:3]] == ["Côte de Blaye", "Ipoh Coffee", "Lakkalikööri"], backend
