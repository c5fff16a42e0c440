"""Gold answers: the checker's readings against the analyst's SQL, compared by execution on the engines.

The floors are those of the development set the rules were tuned on (an upper bound, see the README); the
held-out set under tests/fixtures/gold/later2 is scored by the eval command and reported, not floored.
"""
from __future__ import annotations

import pytest

from adapters import Database, Limits, RunResult, parse_db_option
from checker_app.evaluation.gold import GoldFileError, evaluate_gold, is_gold_file, load_gold, matches, parse_gold
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
    ("value", [[0.25]], [[5, 20, 0.25, 25.0]], True),        # a share as a fraction or a percent
    ("value", [[0.25]], [[25.0]], True),
    ("value", [[12.5]], [[12.6]], False),
    ("rows", [["a"], ["b"]], [["b", 1], ["a", 2]], True),     # order-insensitive, columns matched by value
    ("rows", [["a"], ["b"]], [["a", 1]], False),
    ("rows", [["a", "x"]], [["x", "a"]], True),
])
def test_answers_are_compared_by_shape(answer, gold, got, same) -> None:
    width = len(got[0])
    assert matches(result(["c"] * len(gold[0]), gold), result(["c"] * width, got), answer) is same


def test_bad_lines_name_the_file_and_line(tmp_path) -> None:
    with pytest.raises(GoldFileError, match="x.jsonl:1"):
        parse_gold('{"q": "a", "db": "demo"}', "x.jsonl:1")
    with pytest.raises(GoldFileError, match="unknown key"):
        parse_gold('{"q": "a", "db": "demo", "readings": [{"sql": "SELECT 1"}], "oops": 1}', "x.jsonl:2")
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


def test_gold_found_is_the_same_on_postgres_and_mariadb(demo_urls) -> None:
    """The same cases scored on the three engines give the same matches (the gold SQL is adapted per engine)."""
    cases = load_gold(GOLD / "demo.jsonl")[:12]
    found = {}
    for backend in ("sqlite", "postgresql", "mysql"):
        db = Database(parse_db_option(f"demo={demo_urls[backend]}"), Limits(time_limit_s=20))
        try:
            report = evaluate_gold(cases, {"demo": db})
        finally:
            db.dispose()
        assert not [e for r in report.results for e in r.errors if e.startswith("gold")], backend
        found[backend] = [r.gold_found for r in report.results]
    assert found["sqlite"] == found["postgresql"] == found["mysql"]
