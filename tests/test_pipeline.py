"""The check pipeline end to end on the demo database (three engines) and Chinook."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from adapters import Database, InputError, Limits, parse_db_option
from checker_app.pipeline import CheckOptions, check
from tests.support import BACKENDS, assert_valid

TOP_PRODUCTS = {"MacBook Pro", "USB-C Cable", "Phone Case"}


@pytest.fixture(scope="module")
def demo_dbs(demo_urls) -> list[Database]:
    databases = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits()) for b in BACKENDS]
    yield databases
    for db in databases:
        db.dispose()


@pytest.fixture(scope="module")
def chinook_dbs(chinook_urls) -> list[Database]:
    databases = [Database(parse_db_option(f"{b}={chinook_urls[b]}"), Limits()) for b in BACKENDS]
    yield databases
    for db in databases:
        db.dispose()


def _top_names(report) -> list[str]:
    return [str(reading.top_row()[0]) for reading in report.interpretations]


def test_top_selling_product_is_eight_readings_with_three_answers_on_every_engine(demo_dbs) -> None:
    # metric x currency treatment (money readings only) x which orders count: three different products on top
    report = check("What is the top-selling product?", demo_dbs)
    assert [a.id for a in report.archetypes] == ["ranking_metric", "unit", "record_scope"]
    assert len(report.interpretations) == 8
    assert set(_top_names(report)) == TOP_PRODUCTS
    for reading in report.interpretations:
        assert set(reading.results) == set(BACKENDS)
        assert all(r.ok for r in reading.results.values()), {n: r.error for n, r in reading.results.items()}
        tops = {name: str(r.rows[0][0]) for name, r in reading.results.items()}
        assert len(set(tops.values())) == 1, tops  # every engine names the same product for this reading
        assert reading.engines_agree is True
    assert report.divergent is True and report.verdict == "material"
    assert report.verdict_text.startswith("8 readings, 3 different answers")
    payload = report.to_dict()
    json.dumps(payload)  # the report is plain JSON
    for key in ("question", "as_of", "ambiguous", "archetypes", "interpretations", "divergent"):
        assert key in payload
    archetype = payload["archetypes"][0]
    assert set(archetype) >= {"id", "evidence", "span", "ask", "reason", "clarification"}
    start, end = archetype["span"]
    assert payload["question"][start:end] == archetype["evidence"]
    assert archetype["clarification"]["type"] in ("choice", "query_choice")


def test_answering_narrows_to_one_anchored_reading(demo_dbs) -> None:
    full = check("What is the top-selling product?", demo_dbs[:1])
    units = next(i for i in full.interpretations if i.choices == {"ranking_metric": "units", "record_scope": "all"})
    answers = {"ranking_metric": "units", "record_scope": "all"}
    report = check("What is the top-selling product?", demo_dbs, CheckOptions(answers=answers))
    assert len(report.interpretations) == 1
    assert report.interpretations[0].choices == answers
    assert _top_names(report) == [str(units.top_row()[0])]
    assert report.divergent is None


def test_a_clear_question_is_one_reading(demo_dbs) -> None:
    report = check("How many products are there?", demo_dbs)
    assert report.archetypes == [] and report.verdict == "clear"
    assert len(report.interpretations) == 1
    results = report.interpretations[0].results
    assert all(r.ok for r in results.values()) and report.interpretations[0].engines_agree


def test_entity_options_come_from_the_live_data(demo_dbs) -> None:
    report = check("Show me revenue for Acme", demo_dbs)
    entity = next(a for a in report.archetypes if a.id == "entity")
    values = {o.value for o in entity.clarification.options}
    assert {"Acme Corp", "Acme Industries", "ACME Logistics"} <= values
    for reading in report.interpretations:
        assert all(r.ok for r in reading.results.values())


def test_chinook_top_selling_artist_runs_everywhere(chinook_dbs) -> None:
    report = check("Who is the top-selling artist?", chinook_dbs)
    assert "ranking_metric" in [a.id for a in report.archetypes]
    assert len(report.interpretations) >= 2
    for reading in report.interpretations:
        assert set(reading.results) == set(BACKENDS), reading.sql
        assert all(r.ok and r.rows for r in reading.results.values())
        assert reading.engines_agree is True


@pytest.mark.parametrize("question", ["", "   ", "x" * 100_000])
def test_unusable_questions_are_one_line_errors(demo_dbs, question) -> None:
    with pytest.raises(InputError) as info:
        check(question, demo_dbs[:1])
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("question", ["😀😀😀", "Acme'; DROP TABLE customers;--", "florp the zibbet"])
def test_odd_questions_give_a_report_and_change_nothing(demo_dbs, question) -> None:
    before = demo_dbs[0].run("SELECT COUNT(*) FROM customers").rows
    report = check(question, demo_dbs)
    json.dumps(report.to_dict())
    for reading in report.interpretations:
        assert all(r.status in ("ok", "error") for r in reading.results.values())
    assert demo_dbs[0].run("SELECT COUNT(*) FROM customers").rows == before


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker_app", *args], capture_output=True, text=True, timeout=180)


def test_check_and_batch_commands(demo_urls, tmp_path) -> None:
    db_args = [a for b in BACKENDS for a in ("--db", f"{b}={demo_urls[b]}")]
    done = _cli("check", "What is the top-selling product?", *db_args, "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert_valid(payload)
    assert payload["divergent"] is True and len(payload["interpretations"]) == 8
    text = _cli("check", "What is the top-selling product?", "--db", demo_urls["sqlite"])
    assert text.returncode == 0 and "8 readings, 3 different answers" in text.stdout
    bad = _cli("check", "top product", "--db", demo_urls["sqlite"], "--answer", "ranking_metric=nonsense")
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"q": "What is the top-selling product?"}\nHow many products are there?\n\n')
    batch = _cli("batch", str(questions), "--db", demo_urls["sqlite"])
    assert batch.returncode == 0, batch.stderr
    lines = [json.loads(line) for line in batch.stdout.splitlines()]
    for line in lines:
        assert_valid(line, "batch")
    assert [line["verdict"] for line in lines] == ["material", "clear"]


def test_an_answer_only_the_model_can_use_does_not_stop_the_rules(demo_dbs, monkeypatch) -> None:
    from archetypes import UnknownAnswerError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)  # model mode off: the check fails open to the rules
    question, answers = "What is the top-selling product?", {"timeframe": "last_30_days"}
    with pytest.raises(UnknownAnswerError):
        check(question, demo_dbs[:1], CheckOptions(answers=answers))
    report = check(question, demo_dbs[:1], CheckOptions(answers=answers, engine="both"))
    assert [a.id for a in report.archetypes] == ["ranking_metric", "unit", "record_scope"]
    assert len([r for r in report.interpretations if r.source == "rules"]) == 8
    assert report.model is not None and report.model.status == "off"
