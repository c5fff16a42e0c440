"""The CLI's plain-text output and its small promises, on the real engines: a readable `check` (pretty SQL,
the one number format, warnings next to the verdict, the values --answer takes), `run` through the repair
pass with the engines' agreement, exit codes, --timeout bounding a statement that is slow on purpose,
--version, a missing SQLite file, an unknown archetype in --answer."""
from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from click.testing import CliRunner

from checker_app.cli import main
from tests.support import BACKENDS

TOP_SELLING = "What is the top-selling product?"
DEAD_PG = "pg=postgresql+psycopg://u:s3cret@127.0.0.1:1/x"
# slow on purpose on every engine: 20,400 x 20,400 rows (MariaDB stops recursive CTEs silently, so no CTE)
SLOW = "SELECT COUNT(*) AS n FROM order_items AS a CROSS JOIN order_items AS b"
AMBIGUOUS = "SELECT id, name FROM orders JOIN customers ON customer_id = customers.id ORDER BY ordered_at DESC LIMIT 3"


def cli(*args: str):
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def dbs(urls: dict[str, str], *backends: str) -> list[str]:
    out: list[str] = []
    for backend in backends or BACKENDS:
        out += ["--db", f"{backend}={urls[backend]}"]
    return out


def test_check_is_readable_with_warnings_next_to_the_verdict(demo_urls) -> None:
    result = cli("check", TOP_SELLING, *dbs(demo_urls, "sqlite"), "--db", DEAD_PG)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[1] == "Verdict:  8 readings, 3 different answers"
    assert lines[2].startswith("  ! pg: ") and "s3cret" not in result.output   # the dead engine, at the verdict
    assert not any(line.startswith("note:") for line in lines)
    assert "  answer with: --answer ranking_metric=revenue | units | orders" in lines
    assert "    Answer: MacBook Pro (revenue = USD 407,711.85)" in lines   # USD orders only
    assert "    Answer: USB-C Cable (units = 11,508)" in lines
    assert re.search(r"^      SELECT\n        ", result.output, re.M)  # pretty-printed, one clause a line
    assert "407711.85" not in result.output and "407,711.85" in result.output


def test_insufficient_info_lists_the_values_answer_takes(demo_urls) -> None:
    result = cli("check", "Show me the numbers", *dbs(demo_urls, "sqlite"))
    assert result.exit_code == 0, result.output
    hint = next(line for line in result.output.splitlines() if "--answer insufficient_info=" in line)
    values = hint.split("=", 1)[1].split(" | ")
    assert {"revenue", "units", "orders"} <= set(values)
    ask = "What should this run on?"
    assert result.output.count(ask) == 1, result.output   # on the archetype's line, not again as a note
    answered = cli("check", "Show me the numbers", *dbs(demo_urls, "sqlite"), "--answer",
                   f"insufficient_info={values[0]}")
    assert answered.exit_code == 0, answered.output


@pytest.mark.parametrize("answer, message", [
    ("colour=blue", "there is no archetype 'colour'"),
    ("timeframe=last_7_days", "timeframe did not fire on this question"),
    ("ranking_metric=margin", "ranking_metric takes one of revenue, units, orders; got 'margin'"),
])
def test_a_wrong_answer_says_what_is_wrong(demo_urls, answer, message) -> None:
    result = CliRunner().invoke(main, ["check", TOP_SELLING, *dbs(demo_urls, "sqlite"), "--answer", answer])
    assert result.exit_code == 2 and message in result.output and len(result.output.strip().splitlines()) == 1


def test_a_missing_sqlite_file_is_named(tmp_path) -> None:
    missing = tmp_path / "nowhere.sqlite"
    for command in (["check", TOP_SELLING], ["run", "SELECT 1"]):
        for db in (f"sqlite:///{missing}", f"shop=sqlite:///{missing}"):   # bare, and named as --db NAME=URL
            result = CliRunner().invoke(main, [*command, "--db", db])
            assert result.exit_code == 2 and result.output.strip() == f"error: no SQLite file at {missing}"
        assert not missing.exists()


def test_version() -> None:
    result = cli("--version")
    assert result.exit_code == 0 and re.fullmatch(r"ambiguity-checker \d+\.\d+\.\d+\S*\n", result.output)


def test_run_repairs_and_says_whether_the_engines_agree(demo_urls) -> None:
    result = CliRunner().invoke(main, ["run", AMBIGUOUS, *dbs(demo_urls)])
    assert result.exit_code == 1, result.output  # each engine refused it: a person must choose a candidate
    assert result.output.count("candidate orders.id:") == 3 and result.output.count("candidate customers.id:") == 3
    assert "the candidates give different answers: choose one" in result.output
    raw = CliRunner().invoke(main, ["run", AMBIGUOUS, *dbs(demo_urls), "--no-repair"])
    assert "candidate" not in raw.output and "ambiguous" in raw.output and raw.exit_code == 1
    same = cli("run", "SELECT COUNT(*) AS n FROM orders", *dbs(demo_urls))
    assert same.exit_code == 0 and same.output.rstrip().endswith(
        "Engines agree: same rows on " + ", ".join(BACKENDS))
    assert "6,000" in same.output


@pytest.mark.parametrize("sql, code", [("SELEC 1", 2), ("SELECT 1; DROP TABLE orders", 3), ("DELETE FROM orders", 3)])
def test_exit_codes_as_documented(demo_urls, sql, code) -> None:
    result = CliRunner().invoke(main, ["run", sql, *dbs(demo_urls, "sqlite")])
    assert result.exit_code == code, result.output


@pytest.mark.parametrize("backend", BACKENDS)
def test_timeout_bounds_a_statement_slow_on_purpose(demo_urls, backend) -> None:
    result = CliRunner().invoke(main, ["run", SLOW, *dbs(demo_urls, backend), "--timeout", "0.001", "--json"])
    assert result.exit_code == 1, result.output
    assert '"status": "timeout"' in result.output


def test_a_series_sql_folds_its_calendar_and_its_case_tree(demo_urls) -> None:
    for backend in BACKENDS:
        # weeks: a day, month or year series in UTC is the engine's own truncation, with no CASE tree
        result = cli("check", "How have sales trended recently?", *dbs(demo_urls, backend),
                     "--answer", "timeframe=last_90_days", "--answer", "record_scope=all",
                     "--answer", "ranking_metric=revenue")
        assert result.exit_code == 0, result.output
        sql = result.output.split("    SQL (", 1)[1].split(f"    {backend}: ", 1)[0]
        assert sql.count("WHEN") == 1 and sql.count(" END") == 1, sql   # one bucket shown, not a tree of 13
        assert "12 more buckets, one per boundary (folded)" in sql and "13 more rows like this one" in sql
        assert "the CASE period_index (14 buckets of" in sql and sql.count("\n") < 60
        assert "14 rows in" in result.output   # the SQL that ran is the whole one
    capped = cli("check", "How have sales trended recently?", *dbs(demo_urls, "sqlite"))
    said = [line for line in capped.output.splitlines() if re.search(r"\bshowing \d+", line)]
    assert len(said) == 1 and "of 48 readings (capped), at least one for every value" in said[0], said  # once


def test_a_partial_question_names_the_word_not_read_and_what_was_meant(demo_urls) -> None:
    for backend in BACKENDS:
        result = cli("check", "Show revenue for labtops", *dbs(demo_urls, backend))
        assert result.exit_code == 0, result.output
        lines = result.output.splitlines()
        assert lines[1] == "Verdict:  partly understood: 'labtops' was not read"
        assert lines[2].startswith("  ~ 'labtops' not read: ")
        assert lines[3] == "      did you mean 'Laptops'? check 'Show revenue for Laptops'"


def test_demo_prints_the_urls_the_readme_passes_to_check(demo_urls, tmp_path, monkeypatch) -> None:
    """`demo` prints each engine's URL as given (the README's `postgresql://` and `mysql://`, not the driver
    forms parse_url adds), so the README's `check --db ...` is what `demo` printed; such a URL also seeds."""
    from pathlib import Path

    from checker_app.commands import demo

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert f"--db {demo.POSTGRES}" in readme and f"--db {demo.MARIADB}" in readme
    monkeypatch.setenv("CHECKER_HOME", str(tmp_path))
    plain = {b: re.sub(r"^(postgresql|mysql)\+\w+://", r"\1://", demo_urls[b]) for b in ("postgresql", "mysql")}
    result = CliRunner().invoke(main, ["demo", "--no-serve", "--postgres", plain["postgresql"],
                                       "--mysql", plain["mysql"]], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    for name, url in (("postgresql", plain["postgresql"]), ("mariadb", plain["mysql"])):
        assert re.search(rf"found {name} +{re.escape(url)}  \(demo data already there\)", result.output), result.output
    assert "+psycopg" not in result.output and "+pymysql" not in result.output
    # the README's SQLite URL, expanded by the shell, is the file `demo` printed, with CHECKER_HOME set or not
    # (a newcomer with CHECKER_HOME set passed a $HOME/.cache path that did not exist)
    sqlite_url = re.search(r"--db (sqlite:///\S+/demo\.sqlite)", readme).group(1)
    for home in (str(tmp_path), None):
        env = {"HOME": str(tmp_path / "home"), "PATH": os.environ.get("PATH", "")}
        if home:
            env["CHECKER_HOME"] = home
        expanded = subprocess.run(["bash", "-c", f"echo {sqlite_url}"], env=env, capture_output=True, text=True,
                                  check=True).stdout.strip()
        assert expanded == f"sqlite:///{home or tmp_path / 'home' / '.cache' / 'ambiguity-checker'}/demo.sqlite"
    assert re.search(rf"found sqlite +{re.escape(f'sqlite:///{tmp_path}/demo.sqlite')}  ", result.output), result.output


@pytest.mark.parametrize("question, said", [
    ("What were sales by store?", '* ranking_metric on "sales": Sales in money or in units?'),
    # no single word asks it: the whole question is not quoted back as evidence
    ("which month had the most refunds?",
     "* ranking_metric on the whole question: How many, or how much? (status is refunded)"),
])
def test_an_archetype_says_its_detections_own_question(demo_urls, question, said) -> None:
    """The line of an archetype says what its detection asks, not the ranking archetype's generic "Rank by which
    metric?" on a question that ranks nothing, and its why speaks of no 'top' or product."""
    result = cli("check", question, *dbs(demo_urls, "sqlite"))
    assert result.exit_code == 0, result.output
    assert said in result.output.splitlines(), result.output
    why = next(line for line in result.output.splitlines()[result.output.splitlines().index(said):]
               if line.startswith("  why: "))
    assert "'top'" not in why and "product" not in why
    assert "Rank by which metric?" not in result.output
    report = json.loads(cli("check", question, *dbs(demo_urls, "sqlite"), "--json").output)
    for archetype in report["archetypes"]:
        assert archetype["ask"] == archetype["clarification"]["question"]


def test_engines_that_disagree_are_said_under_the_verdict(tmp_path) -> None:
    """The same reading answering differently on two engines (here two copies of a table that drifted apart) is
    said right under the verdict, not only below the rows: a 'clear' answer the engines disagree on is no answer."""
    import sqlite3

    urls = []
    for name, cities in (("a", ["Oslo", "Rome", "Oslo"]), ("b", ["Oslo", "Rome", "Oslo", "Rome", "Rome"])):
        path = tmp_path / f"{name}.sqlite"
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE visits (id INTEGER PRIMARY KEY, city TEXT)")
            conn.executemany("INSERT INTO visits (city) VALUES (?)", [(c,) for c in cities])
        urls.append(f"--db={name}=sqlite:///{path}")
    lines = cli("check", "how many visits", *urls).output.splitlines()
    assert lines[2] == "  ! the engines disagree on reading [1]: a: 3 (count); b: 5 (count)", lines[:4]
    same = cli("check", "how many visits", urls[0], urls[0].replace("--db=a=", "--db=c=")).output
    assert "disagree" not in same
