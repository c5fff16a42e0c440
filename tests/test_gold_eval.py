"""Gold answers: the checker's readings against the analyst's SQL, compared by execution on the engines.

The floors are those of the development set the rules were tuned on (an upper bound, see the README); the
held-out set under tests/fixtures/gold/later2 is scored by the eval command and reported, not floored.
"""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from adapters import Database, Limits, RunResult, parse_db_option
from checker_app.commands.eval import eval_command
from checker_app.evaluation.gold import (
    SHAPES,
    CaseResult,
    GoldFileError,
    GoldReport,
    evaluate_gold,
    is_gold_file,
    load_gold,
    matches,
    parse_gold,
    report_text,
)
from tests.support import REPO

GOLD = REPO / "tests" / "fixtures" / "gold"
# development-set floors, a little below the figures measured when the rules were frozen (README)
FLOORS = {"gold_found": 0.55, "precision": 0.6, "false_clear": 0.04}


def result(columns: list[str], rows: list[list]) -> RunResult:
    return RunResult(engine="t", dialect="sqlite", sql="", status="ok", columns=columns, rows=rows,
                     row_count=len(rows))


@pytest.mark.parametrize("answer, gold, got, same", [
    ("top", [["MacBook Pro", 10.0]], [["MacBook Pro", 99.0], ["x", 1]], True),
    ("top", [["MacBook Pro", 10.0]], [["iPhone", 99.0]], False),
    ("top", [["Margaret", "Park", 6]], [["Margaret Park", 6]], True),   # a name split in two columns
    ("top", [["Margaret", "Park", 6]], [["Margaret Smith", 6]], False),
    ("top", [["2025-10-05"]], [["2025-10-05 00:00:00"]], True),        # a day asked, its moment returned
    ("top", [["2025-10-05"]], [["2025-10-06 00:00:00"]], False),
    ("value", [[0.25]], [[5, 20, 0.25, 25.0]], True),        # a share as a fraction or a percent
    ("value", [[0.25]], [[25.0]], True),
    ("value", [[12.5]], [[12.6]], False),
    ("rows", [["a"], ["b"]], [["b", 1], ["a", 2]], True),     # order-insensitive, columns matched by value
    ("rows", [["a"], ["b"]], [["a", 1]], False),
    ("rows", [["a", "x"]], [["x", "a"]], True),
    ("rows", [["Ann", "a@x"], ["Bo", "b@x"]], [["Bo"], ["Ann"]], True),   # the gold's email is a detail
    ("rows", [["Ann", "a@x"], ["Bo", "b@x"]], [["Bo"], ["Cy"]], False),
    ("rows", [["Ann", "a@x"], ["Ann", "c@x"]], [["Ann"]], False),         # as many rows, namesakes too
    ("rows", [[1, 54], [2, 56]], [["1997-Q1", 54], ["1997-Q2", 56]], True),  # a quarter numbered or labelled
    ("rows", [[1, 54], [2, 56]], [["1997-Q1", 56], ["1997-Q2", 54]], False),
    ("rows", [[0, 10], [1, 12]], [["Monday", 12], ["Sunday", 10]], True),   # a weekday numbered (0 = Sunday) or named
    ("rows", [["0", 10], ["1", 12]], [["Monday", 12], ["Sunday", 10]], True),  # its number as text (strftime's %w)
    ("rows", [["0", 10], ["1", 12]], [["Monday", 10], ["Sunday", 12]], False),
    ("rows", [[0, 10], [1, 12]], [["Monday", 10], ["Sunday", 12]], False),
    ("rows", [["A1", "IT"], ["A2", "IT"], ["B", "Bo"]], [["IT"], ["Bo"], ["IT"]], True),  # namesakes, with keys
    ("rows", [["A1", "IT"], ["A2", "IT"], ["B", "Bo"]], [["IT"], ["Bo"]], False),
    ("rows", [["Ann", "Lee", "Rio"], ["Bo", "Kim", "Lima"]], [["Bo Kim"], ["Ann Lee"]], True),  # full name; city a detail
    ("rows", [["Ann", "Lee", "Rio"], ["Bo", "Kim", "Lima"]], [["Bo Kim"], ["Ann Park"]], False),
    # one figure summed over invoices, the other over their lines: either side of a half cent
    ("rows", [["Canada", 37.99499999999999], ["Chile", 46.62]], [["Chile", 46.62], ["Canada", 37.99500000000017]], True),
    ("rows", [["Canada", 37.99], ["Chile", 46.62]], [["Chile", 46.62], ["Canada", 38.02]], False),
])
def test_answers_are_compared_by_shape(answer, gold, got, same) -> None:
    width = len(got[0])
    assert matches(result(["c"] * len(gold[0]), gold), result(["c"] * width, got), answer) is same


@pytest.mark.parametrize("gold_columns, gold, got, same", [
    # the gold names each row with its key, the reading by name and a figure: the same rows
    (["PlaylistId", "Name"], [[1, "Music"], [8, "Music"], [3, "TV"]], [["Music", 3290], ["TV", 213], ["Music", 3290]],
     True),
    (["id", "name"], [[1, "Ann"], [2, "Bo"]], [["Bo", 19], ["Ann", 25]], True),
    (["PlaylistId", "Name"], [[1, "Music"], [8, "Music"], [3, "TV"]], [["Music", 3290], ["TV", 213]], False),
    (["PlaylistId", "Name"], [[1, "Music"], [8, "Music"], [3, "TV"]], [["Music", 1], ["TV", 2], ["TV", 3]], False),
    (["weekday", "n"], [[0, 10], [1, 12]], [["Monday", 10], ["Sunday", 12]], False),  # a number that means something
])
def test_rows_named_by_key_in_the_gold(gold_columns, gold, got, same) -> None:
    assert matches(result(gold_columns, gold), result(["c"] * len(got[0]), got), "rows") is same


def test_bad_lines_name_the_file_and_line(tmp_path) -> None:
    with pytest.raises(GoldFileError, match="x.jsonl:1"):
        parse_gold('{"q": "a", "db": "demo"}', "x.jsonl:1")
    with pytest.raises(GoldFileError, match="unknown key"):
        parse_gold('{"q": "a", "db": "demo", "readings": [{"sql": "SELECT 1"}], "oops": 1}', "x.jsonl:2")
    with pytest.raises(GoldFileError, match="x.jsonl:3.*shape"):
        parse_gold('{"q": "a", "db": "demo", "readings": [{"sql": "SELECT 1"}], "shape": "trend"}', "x.jsonl:3")
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    with pytest.raises(GoldFileError, match="bad.jsonl:1"):
        load_gold(bad)
    assert is_gold_file(GOLD) and not is_gold_file(REPO / "tests" / "fixtures" / "labelled")


@pytest.fixture(scope="module")
def databases(demo_urls, chinook_urls, northwind_urls) -> dict[str, Database]:
    out = {"demo": demo_urls["sqlite"], "chinook": chinook_urls["sqlite"], "northwind": northwind_urls["sqlite"]}
    dbs = {name: Database(parse_db_option(f"{name}={url}"), Limits(time_limit_s=20)) for name, url in out.items()}
    yield dbs
    for db in dbs.values():
        db.dispose()


def test_development_set_floors(databases) -> None:
    cases = [c for f in sorted(GOLD.glob("*.jsonl")) for c in load_gold(f)]
    report = evaluate_gold(cases, databases)
    overall = report.to_dict()["overall"]
    assert overall["cases"] == len(cases) and not report.skipped
    assert overall["gold_found"] >= FLOORS["gold_found"], overall
    assert overall["precision"] >= FLOORS["precision"], overall
    assert overall["false_clear"] <= FLOORS["false_clear"], overall
    assert not [e for r in report.results for e in r.errors if e.startswith("gold")]  # every gold SQL ran


def reports_per_engine(cases: list, name: str, urls: dict[str, str]) -> dict[str, GoldReport]:
    """The same cases scored on each of the three engines, every gold statement run there."""
    reports = {}
    for backend in ("sqlite", "postgresql", "mysql"):
        db = Database(parse_db_option(f"{name}={urls[backend]}"), Limits(time_limit_s=20))
        try:
            reports[backend] = evaluate_gold(cases, {name: db})
        finally:
            db.dispose()
        assert not [e for r in reports[backend].results for e in r.errors if e.startswith("gold")], backend
    return reports


def found_per_engine(reports: dict[str, GoldReport]) -> list[list[list[bool]]]:
    return [[r.gold_found for r in report.results] for report in reports.values()]


def test_gold_found_is_the_same_on_postgres_and_mariadb(demo_urls) -> None:
    """The same cases scored on the three engines give the same matches (the gold SQL is adapted per engine)."""
    sqlite, postgres, mariadb = found_per_engine(reports_per_engine(load_gold(GOLD / "demo.jsonl")[:12], "demo",
                                                                    demo_urls))
    assert sqlite == postgres == mariadb


def test_history_set_scores_alike_on_the_three_engines(history_urls) -> None:
    """The history set is scored like the others: the same gold readings are found on SQLite, PostgreSQL and
    MariaDB, and the figures per shape are read from the cases' tags."""
    cases = load_gold(GOLD / "history")[:10]
    reports = reports_per_engine(cases, "history", history_urls)
    sqlite, postgres, mariadb = found_per_engine(reports)
    assert sqlite == postgres == mariadb
    for report in reports.values():
        assert not report.skipped and not [e for r in report.results for e in r.errors]
        assert set(report.to_dict()["per_shape"]) == {c.shape for c in cases} <= set(SHAPES)
        assert "per shape\n" in report_text(report)  # every case tagged: no note about guessed shapes


def test_eval_command_takes_the_history_database(history_urls) -> None:
    result = CliRunner().invoke(eval_command, [str(GOLD / "history"), "--db", f"history={history_urls['sqlite']}",
                                               "--limit", "3", "--json", "--strict"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["per_db"]["history"]["cases"] == 3 and not payload["skipped"]


def test_untagged_cases_say_their_shape_is_guessed() -> None:
    tagged, untagged = (parse_gold(json.dumps({"q": q, "db": "demo", "readings": [{"sql": sql}], **extra}))
                        for q, sql, extra in (("a", "SELECT 1", {"shape": "lookup"}),
                                              ("b", "SELECT x, COUNT(*) FROM t GROUP BY x HAVING COUNT(*) > 1", {})))
    report = GoldReport([CaseResult(c, "demo", "clear", 1, [True], 1) for c in (tagged, untagged)])
    text = report_text(report)
    assert "per shape (1 of 2 cases tagged" in text
    assert "\nlookup " in text and "\ncondition on totals " in text
