"""A change against an empty earlier period says so (issue 11, bad input): its relative change is empty, not
0 %, and the answer says the earlier period holds nothing instead of a bare 'before = 0'; on the three engines."""
from __future__ import annotations

import datetime as dt

import pytest

from adapters import Database, Limits, RunResult, parse_db_option
from checker_app.answers import answer_of
from checker_app.pipeline import CheckOptions, check
from checker_app.readout import reading_answer
from tests.support import BACKENDS

CHANGE = ["before", "after", "change", "relative_change"]
EMPTY = "nothing in the earlier period"


def result(columns: list[str], rows: list[list]) -> RunResult:
    return RunResult(engine="t", dialect="sqlite", sql="", status="ok", columns=columns, rows=rows,
                     row_count=len(rows))


def test_a_ranking_of_changes_answers_with_its_first_row() -> None:
    """The rows come ranked by the change: the winner is the first row, not the group with most before."""
    rows = [["Los Angeles", 195937.55, 247667.66, 51730.11, 0.264], ["New York", 244711.54, 278078.59, 33367.05, 0.136]]
    answer = answer_of(result(["store", *CHANGE], rows), "USD")
    assert answer.headline == "Los Angeles", answer.text
    assert answer.detail == "change = USD 51,730.11, relative_change = 26.4%, first of 2 rows"


def test_one_change_with_an_empty_earlier_period() -> None:
    answer = answer_of(result(CHANGE, [[0, 120.5, 120.5, None]]), "USD")
    assert answer.text == f"{EMPTY}, so no relative change (before = USD 0.00, after = USD 120.50)"
    assert EMPTY not in answer_of(result(CHANGE, [[100, 120.5, 20.5, 0.205]]), "USD").text
    # one change: the change and its percentage lead (the page's headline), the two figures follow
    one = answer_of(result(CHANGE, [[100, 120.5, 20.5, 0.205]]), "USD")
    assert (one.headline, one.detail) == ("change = USD 20.50, +20.5%", "before = USD 100.00, after = USD 120.50")
    assert answer_of(result(CHANGE, [[100, 90.5, -9.5, -0.095]])).headline == "change = -9.50, -9.5%"
    assert answer_of(result(CHANGE, [[42.62, 37.62, -5.000000000000004, -0.117]])).headline == "change = -5.00, -11.7%"


def test_a_ranking_of_changes_counts_its_groups_with_an_empty_earlier_period() -> None:
    columns = ["store", *CHANGE]
    some = answer_of(result(columns, [["Berlin", 10, 50, 40, 4.0], ["Tokyo", None, 30, 30, None]]))
    assert some.headline == "Berlin" and some.detail.endswith(f"1 of 2 with {EMPTY} (no relative change)")
    new_store = answer_of(result(columns, [["Tokyo", 0, 90, 90, None], ["Berlin", 10, 50, 40, 4.0]]))
    assert new_store.headline == "Tokyo" and "no relative change (nothing before)" in new_store.detail
    every = answer_of(result(columns, [["Berlin", 0, 50, 50, None], ["Tokyo", 0, 30, 30, None]]))
    assert every.text == f"{EMPTY} for any of them, so no relative change (2 rows)"


@pytest.fixture(scope="module")
def engines(demo_urls) -> list[Database]:
    dbs = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits(time_limit_s=20)) for b in BACKENDS]
    yield dbs
    for db in dbs:
        db.dispose()


@pytest.mark.parametrize("question, as_of", [
    ("is revenue up on last month?", dt.date(2024, 1, 20)),    # December 2023: before the data starts
    ("which store grew most between 2023 and 2024?", None),    # 2023, per store
])
def test_every_engine_says_the_earlier_period_is_empty(engines, question, as_of) -> None:
    for db in engines:
        report = check(question, [db], CheckOptions(as_of=as_of))
        assert report.interpretations, db.name
        assert any("earlier period" in note and "has no rows" in note for note in report.notes), (db.name, report.notes)
        for reading in report.interpretations:
            assert reading.results[db.name].ok, (db.name, reading.label)
            assert EMPTY in reading_answer(reading).text, (db.name, reading.label, reading_answer(reading).text)


def test_an_earlier_period_inside_the_data_but_empty_for_the_filter(history_urls) -> None:
    """The data starts in January 2016 but the Enterprise plan's first invoice is in March: no note from the
    profile can know that, the answer read from the rows does, on every engine."""
    for backend in BACKENDS:
        db = Database(parse_db_option(f"{backend}={history_urls[backend]}"), Limits(time_limit_s=20))
        try:
            report = check("is enterprise revenue in march 2016 up on february 2016?", [db])
        finally:
            db.dispose()
        assert report.interpretations, backend
        for reading in report.interpretations:
            assert EMPTY in reading_answer(reading).text, (backend, reading.label, reading_answer(reading).text)
