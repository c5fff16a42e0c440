"""The verdict: one tolerance for comparing answers, what ran and what did not, partial and answered."""
from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from adapters import Database, Limits, RunResult, parse_db_option
from adapters.results import same_rows, same_value
from checker_app.pipeline import CheckOptions, check
from checker_app.report import IgnoredWords, ReadAsWord, ReadingResult, Report, Understood
from tests.support import BACKENDS, assert_valid

# (a, b, the same answer?): floats to a relative 1e-11, exact decimals to half a unit of their last place
VALUES = [
    (15360815.010000004, Decimal("15360815.01"), True),   # SQLite's float sum vs PostgreSQL's numeric
    (33.333333333333336, Decimal("33.3333"), True),       # MariaDB's AVG keeps 4 decimals
    (33.333333333333336, Decimal("33.3333333333333333"), True),
    (3, Decimal("3.5000"), False),                        # integer division on one engine is a real difference
    (Decimal("12"), 12.4, False),                         # an integral decimal is exact
    (1.0, 1.0000001, False),
    (0.1 + 0.2, 0.3, True),
    (True, 1, True),
    ("2025-06-30 00:00:00", dt.datetime(2025, 6, 30), True),
    ("Laptops", "Laptops", True),
    ("Laptops", "laptops", False),
    (None, None, True),
    (None, 0, False),
]


@pytest.mark.parametrize(("a", "b", "same"), VALUES)
def test_values_compare_at_the_precision_of_their_types(a, b, same: bool) -> None:
    assert same_value(a, b) is same and same_value(b, a) is same


def test_rows_compare_as_a_multiset_unless_ordered() -> None:
    a = [["Laptops", 15360815.010000004], ["Phones", 9.5]]
    b = [["Phones", Decimal("9.50")], ["Laptops", Decimal("15360815.01")]]
    assert same_rows(a, b) and not same_rows(a, b, ordered=True)
    assert not same_rows(a, b[:1]) and not same_rows(a, [["Phones", 9.5], ["Laptops", 15360815.02]])


def _result(status: str = "ok", rows: list[list] | None = None) -> RunResult:
    rows = rows or []
    return RunResult(engine="demo", dialect="sqlite", sql="SELECT 1", status=status,  # type: ignore[arg-type]
                     columns=["product", "revenue"][: len(rows[0])] if rows else ["product", "revenue"],
                     rows=rows, row_count=len(rows))


def _report(*results: RunResult, understood: Understood | None = None, answers: dict | None = None) -> Report:
    from checker_app.verdict import divergence
    from tests.support import detection

    readings = [ReadingResult(id=f"r{n}", label=f"R{n}", results={"demo": r}) for n, r in enumerate(results)]
    divergent, distinct = divergence(readings)
    return Report(question="What is the top-selling product?", as_of=None, divergent=divergent,
                  distinct_answers=distinct, engines=[], archetypes=[detection({"id": "ranking_metric"})],
                  interpretations=readings, understood=understood or Understood(), answers=answers or {})


MACBOOK, CABLE = [["MacBook Pro", 9.5]], [["USB-C Cable", 84]]
# (results per reading, verdict, verdict_text)
VERDICTS = [
    ((_result(rows=MACBOOK), _result(rows=CABLE)), "material", "2 readings, 2 different answers"),
    ((_result(rows=MACBOOK), _result(rows=MACBOOK)), "benign", "ambiguous wording, same answer (2 readings agree)"),
    ((_result(), _result(), _result()), "unanswered", "3 readings, nothing to compare: 3 returned no rows"),
    ((_result(rows=MACBOOK), _result(rows=MACBOOK), _result()), "unanswered",
     "2 of 3 readings agree; 1 returned no rows: not enough to call the answers the same"),
    ((_result(rows=MACBOOK), _result(rows=CABLE), *[_result("timeout")] * 4), "material",
     "6 readings, 2 different answers; 4 did not finish (timeout)"),
    ((_result(rows=MACBOOK), _result("timeout"), _result("error")), "unanswered",
     "3 readings, nothing to compare: 2 did not finish (error, timeout)"),
]


@pytest.mark.parametrize(("results", "kind", "text"), VERDICTS)
def test_empty_and_unfinished_readings_never_count_as_agreeing(results, kind: str, text: str) -> None:
    report = _report(*results)
    assert (report.verdict, report.verdict_text) == (kind, text)
    assert_valid(report.to_dict())


def test_partial_wins_over_every_other_verdict() -> None:
    ignored = Understood(complete=False, ignored=[IgnoredWords(text="doing well", span=(20, 30))])
    for results in ((_result(rows=MACBOOK), _result(rows=CABLE)), (_result(rows=MACBOOK),)):
        report = _report(*results, understood=ignored, answers={"ranking_metric": "units"})
        assert report.verdict == "partial" and report.verdict_text == "partly understood: 'doing well' was not read"
    payload = report.to_dict()
    assert payload["understood"] == {"complete": False, "ignored": [
        {"text": "doing well", "span": [20, 30], "suggestions": [], "reason": ""}], "read_as": []}
    assert_valid(payload)


def test_a_misspelt_word_read_as_a_schema_word_is_said_on_the_verdict_line() -> None:
    read_as = Understood(read_as=[ReadAsWord(text="catgory", span=(11, 18), word="category")])
    for results, kind in (((_result(rows=MACBOOK), _result(rows=CABLE)), "material"), ((_result(rows=MACBOOK),),
                                                                                        "unanswered")):
        report = _report(*results, understood=read_as)
        assert report.verdict == kind, report.verdict_text
        assert report.verdict_text.endswith("('catgory' read as 'category')"), report.verdict_text
    assert report.to_dict()["understood"]["read_as"] == [{"text": "catgory", "span": [11, 18], "word": "category"}]
    assert_valid(report.to_dict())


def test_a_question_with_no_reading_built_is_never_clear() -> None:
    # nothing to run is not "one reading": the gold evaluation counted it as a confident (false) clear
    report = Report(question="Which employee has the highest average order value?", as_of=None, divergent=None,
                    distinct_answers=0, engines=[], archetypes=[], interpretations=[])
    assert (report.verdict, report.verdict_text) == ("unanswered", "no reading could be built for this question")
    assert_valid(report.to_dict())


@pytest.fixture
def demo_db(demo_urls) -> Database:
    db = Database(parse_db_option(f"demo={demo_urls['sqlite']}"), Limits())
    yield db
    db.dispose()


def test_an_answer_gives_one_verdict_in_text_and_json(demo_db) -> None:
    answers = {"ranking_metric": "units", "record_scope": "all"}   # every archetype that fired, answered
    report = check("What is the top-selling product?", [demo_db], CheckOptions(answers=answers))
    assert report.verdict == "answered"
    assert report.verdict_text == ("answered: one reading, anchored to your choice (ranking_metric = units, "
                                   "record_scope = all)")
    payload = report.to_dict()
    assert payload["verdict"] == "answered" and payload["verdict_text"] == report.verdict_text
    assert "explanation" in payload["interpretations"][0] and payload["understood"]["complete"] is True


def test_the_same_store_over_all_or_completed_orders_is_one_answer(demo_db) -> None:
    """'which store has the most orders' asks for a store: New York over all orders and over completed ones is
    one answer (it was '2 different answers', their counts compared)."""
    report = check("Which store has the most orders?", [demo_db], CheckOptions())
    assert report.verdict_text == "ambiguous wording, same answer (2 readings agree)", report.verdict_text
    listed = check("which stores have the most orders", [demo_db], CheckOptions())  # a list asked: every row
    assert listed.verdict_text == "2 readings, 2 different answers", listed.verdict_text


def test_engines_agree_on_float_and_decimal_sums(demo_urls) -> None:
    """SQLite sums money as floats, the servers as exact decimals: never a disagreement on the same rows."""
    databases = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits()) for b in BACKENDS]
    try:
        for question in ("What is the best category?", "What is the top-selling product?"):
            report = check(question, databases)
            for reading in report.interpretations:
                assert set(reading.results) == set(BACKENDS) and all(r.ok for r in reading.results.values())
                assert reading.engines_agree is True, (question, reading.label)
    finally:
        for db in databases:
            db.dispose()


def test_readings_that_return_no_rows_say_so(demo_db) -> None:
    report = check("What was the top-selling product last month?", [demo_db], CheckOptions(as_of=dt.date(2040, 1, 1)))
    assert len(report.interpretations) > 1
    assert all(not r.first_ok().rows for r in report.interpretations if r.first_ok() is not None)
    assert report.verdict == "unanswered" and "returned no rows" in report.verdict_text
    assert report.divergent is None


def _measured(measure: str, rows: list[list]) -> RunResult:
    return RunResult(engine="demo", dialect="sqlite", sql="SELECT 1", status="ok", columns=["period", measure],
                     rows=rows, row_count=len(rows))


# (rows of a revenue reading, rows of a units reading, different answers?): rankings of different measures
# name the same answer when the same row comes out on top; series (rows by period) are compared on every
# value, since their first row is the earliest period, which every reading shares
MEASURED = [
    ([["2025-01", 10.0], ["2025-02", 50.0]], [["2025-01", 10.0], ["2025-02", 50.0]], False),
    ([["2025-01", 10.0], ["2025-02", 50.0], ["2025-03", 20.0]], [["2025-01", 3], ["2025-02", 9], ["2025-03", 1]],
     True),
    ([["1997-01", 61258.07], ["1997-02", 38483.63]], [["1997-01", 66692.8], ["1997-02", 41207.2]], True),
    ([["Rock", 90.0], ["Jazz", 50.0], ["Metal", 20.0]], [["Rock", 300], ["Metal", 200], ["Jazz", 10]], False),
    ([["Rock", 90.0], ["Jazz", 50.0], ["Metal", 20.0]], [["Jazz", 300], ["Rock", 200], ["Metal", 10]], True),
    # a breakdown listed by name: its first row is first in the alphabet, the answer is its largest row
    ([["Accessories", 50.0], ["Audio", 90.0], ["Cables", 20.0]], [["Accessories", 900], ["Audio", 200], ["Cables", 10]],
     True),
    ([["Accessories", 50.0], ["Audio", 90.0], ["Cables", 20.0]], [["Accessories", 20], ["Audio", 200], ["Cables", 10]],
     False),
    # the same leader with the others in another order is another breakdown ('revenue by country and category')
    ([["Accessories", 50.0], ["Audio", 90.0], ["Cables", 20.0]], [["Accessories", 5], ["Audio", 200], ["Cables", 10]],
     True),
]


@pytest.mark.parametrize(("revenue", "units", "different"), MEASURED)
def test_readings_of_different_measures_compare_who_comes_out_on_top(revenue, units, different: bool) -> None:
    from checker_app.verdict import readings_divergent

    divergent, distinct = readings_divergent([_measured("revenue", revenue), _measured("units", units)])
    assert divergent is different and distinct == (2 if different else 1)


def _ranked(measure: str, rows: list[list], limit: int | None = 10) -> RunResult:
    sql = f"SELECT name, {measure} FROM t ORDER BY {measure} DESC" + (f" LIMIT {limit}" if limit else "")
    return RunResult(engine="demo", dialect="sqlite", sql=sql, status="ok", columns=["name", measure], rows=rows,
                     row_count=len(rows))


# (revenue rows and LIMIT, units rows and LIMIT, different answers?): a tie at the top is a set of winners,
# never its first row (the first in the alphabet); a tie filling the LIMIT is known only as far as its rows
TIES = [
    # the same two winners, listed in another order: one answer
    (([["B", 4.0], ["A", 4.0], ["C", 1.0]], 10), ([["A", 2], ["B", 2], ["C", 1]], 10), False),
    # a tie of A and B against A alone: the first rows agree, the winners do not
    (([["A", 4.0], ["B", 4.0], ["C", 1.0]], 10), ([["A", 3], ["B", 2], ["C", 1]], 10), True),
    # Chinook's top-selling track: 8 tie on revenue, every row returned ties on units (at least 3 here)
    (([["G", 3.98], ["H", 3.98], ["C", 1.99]], 3), ([["A", 2], ["B", 2], ["G", 2]], 3), True),
    # both fill their LIMIT with the same rows: nothing shows a difference (and the verdict says on what)
    (([["A", 3.98], ["B", 3.98]], 2), ([["A", 2], ["B", 2]], 2), False),
    # every row ties but the statement has no LIMIT: the tie is whole, and {A, B} is not {A, B, C}
    (([["A", 3.98], ["B", 3.98]], None), ([["A", 2], ["B", 2], ["C", 2]], None), True),
    # a tie filling its LIMIT whose rows are all among the other's tied winners: undecided, not a difference
    (([["A", 5.0], ["B", 5.0], ["C", 5.0], ["D", 1.0]], 10), ([["A", 2], ["B", 2]], 2), False),
]


@pytest.mark.parametrize(("revenue", "units", "different"), TIES)
def test_readings_whose_top_is_tied_compare_their_sets_of_winners(revenue, units, different: bool) -> None:
    from checker_app.verdict import readings_divergent

    results = [_ranked("revenue", *revenue), _ranked("units", *units)]
    divergent, distinct = readings_divergent(results)
    assert divergent is different and distinct == (2 if different else 1)
    report = _report(*results)
    assert "tie at the top, compared as sets of tied winners" in report.verdict_text
    filled = any(len(rows) == limit and len({r[1] for r in rows}) == 1 for rows, limit in (revenue, units))
    assert ("only on the rows returned" in report.verdict_text) is filled, report.verdict_text
    assert_valid(report.to_dict())


# (rows of two readings of one measure, top_n, different answers?): 'which store has the most orders' asks for one
# store (top_n 1): all orders or completed ones name the same store, the same answer, whatever the counts; a
# breakdown or a list of them (no winner asked, top_n 0) is compared on every row
ONE_WINNER = [
    ([["New York", 1470], ["Tokyo", 900]], [["New York", 1304], ["Tokyo", 801]], 1, False),
    ([["New York", 1470], ["Tokyo", 900]], [["Tokyo", 1304], ["New York", 801]], 1, True),
    ([["New York", 9], ["Tokyo", 9]], [["Tokyo", 5], ["New York", 5]], 1, False),   # the same tied pair
    ([["New York", 1470], ["Tokyo", 900]], [["New York", 1304], ["Tokyo", 801]], 0, True),
    # 'which five products earned the least' (here two): the same members, lowest first, whatever the figures
    ([["Cable", 10.5], ["Sleeve", 12.0], ["Case", 15.0]], [["Sleeve", 8.0], ["Cable", 9.5], ["Case", 11.0]], 3, False),
    ([["Cable", 10.5], ["Sleeve", 12.0], ["Case", 15.0]], [["Cable", 8.0], ["Sleeve", 9.5], ["Hub", 11.0]], 3, True),
]


@pytest.mark.parametrize(("first", "second", "top_n", "different"), ONE_WINNER)
def test_one_winner_asked_is_compared_on_the_winner(first, second, top_n: int, different: bool) -> None:
    from checker_app.verdict import readings_divergent

    divergent, distinct = readings_divergent([_ranked("orders", first), _ranked("orders", second)], top_n=top_n)
    assert divergent is different and distinct == (2 if different else 1)


def test_no_tie_no_tie_words() -> None:
    report = _report(_ranked("revenue", [["A", 4.0], ["B", 3.0]]), _ranked("units", [["B", 9], ["A", 2]]))
    assert report.verdict_text == "2 readings, 2 different answers"


def test_chinooks_top_selling_track_is_a_tie_on_every_engine(chinook_urls) -> None:
    """The page's first Chinook example: 8 tracks tie on revenue (3.98) and 256 on units (2), and each
    reading's LIMIT 10 shows only the first of them in the alphabet. No track is named as the answer; the
    revenue tie (8) is smaller than the units tie (at least 10), so those differ; units and invoices fill
    their rows with the same tracks, which is all the rows can show."""
    from checker_app.answers import answer_of

    databases = [Database(parse_db_option(f"{b}={chinook_urls[b]}"), Limits()) for b in BACKENDS]
    try:
        report = check("What is the top-selling track?", databases)
    finally:
        for db in databases:
            db.dispose()
    expected = {"revenue": "tied: 8 rows share revenue = 3.98", "units": "tied: at least 10 rows share units = 2",
                "invoices": "tied: at least 10 rows share invoices = 2"}
    for reading in report.interpretations:
        assert set(reading.results) == set(BACKENDS)
        for engine, result in reading.results.items():
            assert answer_of(result).headline == expected[reading.choices["ranking_metric"]], (engine, reading.label)
    assert report.verdict_text == ("3 readings, 2 different answers; all 3 tie at the top, compared as sets of tied "
                                   "winners (2 only on the rows returned)")
