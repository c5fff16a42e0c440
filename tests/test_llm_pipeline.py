"""Model mode in the whole check, on the live demo database (SQLite, PostgreSQL, MariaDB), with the
real SDK talking to a scripted local server; plus the prompt and diagnose commands and the page."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from adapters import Database
from checker_app.commands.check import check_command
from checker_app.commands.diagnose import diagnose as diagnose_command
from checker_app.commands.prompt import prompt as prompt_command
from checker_app.pipeline import CheckOptions, check
from tests.llm_server import error_reply, llm, structured_reply, tool_call_reply  # noqa: F401
from tests.support import ASK, BACKENDS, READINGS, assert_valid

QUESTION = "What is the top-selling product?"
@pytest.fixture(scope="module")
def sqlite_only(demo_dbs) -> list[Database]:
    """Checks whose point is not the engines run on SQLite alone (the suite shares two cores)."""
    return [db for db in demo_dbs if db.backend == "sqlite"]


def _top(reading) -> dict[str, str]:
    return {name: str(r.rows[0][0]) for name, r in reading.results.items() if r.ok and r.rows}


def test_both_engines_side_by_side_with_lint_repair_and_comparison(llm, demo_dbs) -> None:
    llm.push(tool_call_reply(ASK), structured_reply(READINGS))
    report = check(QUESTION, demo_dbs, CheckOptions(engine="both", model_settings=llm.settings()))
    rules = [r for r in report.interpretations if r.source == "rules"]
    model = [r for r in report.interpretations if r.source == "model"]
    assert len(rules) == 8 and [r.label for r in model] == [
        "Highest revenue", "Most units", "Most orders", "Completed orders only"]
    revenue, units, orders, placeholder = model
    for reading, product in ((revenue, "MacBook Pro"), (units, "USB-C Cable"), (orders, "Phone Case")):
        assert set(reading.results) == set(BACKENDS)
        assert _top(reading) == dict.fromkeys(BACKENDS, product), {n: r.error for n, r in reading.results.items()}
        assert reading.engines_agree is True
    for backend in BACKENDS:  # the model's ambiguous column went through the same repair pass as the rules'
        assert orders.results[backend].repairs, backend
        assert orders.results[backend].repairs[0]["rule"] == "equi_join_key"
    # the placeholder never reached an engine: rejected everywhere, with the reason
    assert {r.status for r in placeholder.results.values()} == {"rejected"}
    assert "quoted literal" in placeholder.results["sqlite"].error.message
    assert report.verdict == "material"                      # judged on the rules' readings
    payload = json.loads(json.dumps(report.to_dict(), default=str))
    assert payload["engine"] == "both" and payload["model"]["status"] == "ok"
    assert payload["model"]["readings"][3]["placeholders"] == [{"placeholder": ":status", "replaced_with": None}]
    assert payload["model"]["usage"]["calls"] == 2 and payload["model"]["usage"]["by_step"]["clarify"]["calls"] == 1
    comparison = payload["comparison"]
    assert comparison["archetypes"]["both"] == ["ranking_metric"]
    # the rules also read the currency treatment and which orders count; the scripted model did not
    assert comparison["archetypes"]["rules_only"] == ["unit", "record_scope"]
    assert comparison["archetypes"]["model_only"] == []
    by_top: dict[str, list[str]] = {}
    for reading in rules:
        by_top.setdefault(str(reading.top_row()[0]), []).append(reading.id)
    matched = {row["model_reading"]: row["same_answer_as"] for row in comparison["readings"]}
    assert matched == {"model:1": by_top["MacBook Pro"], "model:2": by_top["USB-C Cable"],
                       "model:3": by_top["Phone Case"], "model:4": []}
    # every rules answer is among the model's, but the rejected model:4 gave none: not "the same set"
    assert comparison["results_differ"] is None and comparison["sql_differs"] is True
    assert comparison["failed"] == {"rules": [], "model": ["model:4"]}
    assert "same set of answers" not in comparison["summary"] and "model:4" in comparison["summary"]
    assert comparison["rules_answers_missing_from_model"] == []


def test_comparison_says_where_the_answers_differ(llm, sqlite_only) -> None:
    pricey = "SELECT name, list_price FROM products ORDER BY list_price DESC, name LIMIT 1"
    llm.push(tool_call_reply(ASK), structured_reply({"archetypes": [], "readings": [
        {"label": "Most expensive", "sql": pricey}]}))
    report = check(QUESTION, sqlite_only, CheckOptions(engine="both", model_settings=llm.settings()))
    comparison = report.model_dump(mode="json")["comparison"]
    assert comparison["archetypes"]["rules_only"] == ["ranking_metric", "unit", "record_scope"]
    assert comparison["results_differ"] is True
    # the priciest product is also top revenue: only the units and orders readings' answers are missing
    assert len(comparison["rules_answers_missing_from_model"]) == 4
    assert "their answers differ" in comparison["summary"]


def test_model_engine_shows_the_model_readings(llm, sqlite_only) -> None:
    llm.push(tool_call_reply(ASK), structured_reply({**READINGS, "readings": READINGS["readings"][:3]}))
    report = check(QUESTION, sqlite_only, CheckOptions(engine="model", model_settings=llm.settings()))
    assert {r.source for r in report.interpretations} == {"model"}
    assert [a.id for a in report.archetypes] == ["ranking_metric"]
    assert report.verdict == "material" and report.distinct_answers == 3
    assert report.comparison is None


def test_model_failure_fails_open_to_the_rules(llm, sqlite_only) -> None:
    llm.push(error_reply(500, "model server down"), times=2)
    report = check(QUESTION, sqlite_only, CheckOptions(engine="model", model_settings=llm.settings(max_retries=1)))
    assert {r.source for r in report.interpretations} == {"rules"} and len(report.interpretations) == 8
    assert report.verdict == "material"
    assert report.model is not None and report.model.status == "failed"
    assert any("model part failed at clarify (http): HTTP 500: model server down" in n and "rules' result" in n
               for n in report.notes), report.notes


def test_a_chosen_value_is_embedded_as_a_literal_on_every_engine(llm, demo_dbs) -> None:
    sql = ("SELECT customers.name, COUNT(*) AS orders FROM orders JOIN customers ON customers.id = orders.customer_id "
           "WHERE customers.name = $1 GROUP BY customers.name")
    llm.push(structured_reply({"archetypes": [{"id": "entity", "quote": "Acme"}],
                               "readings": [{"label": "Acme Corp", "sql": sql}]}))
    report = check("How many orders did Acme place?", demo_dbs,
                   CheckOptions(engine="model", answers={"entity": "Acme Corp"}, model_settings=llm.settings()))
    assert len(llm.requests) == 1 and "tools" not in llm.requests[0]    # answered: not asked again
    (reading,) = report.interpretations
    for backend in BACKENDS:
        assert "'Acme Corp'" in reading.sql[backend] and "$1" not in reading.sql[backend]
        assert reading.results[backend].ok, reading.results[backend].error
        assert reading.results[backend].rows[0][0] == "Acme Corp"
    assert reading.engines_agree is True
    assert report.model is not None and report.to_dict()["model"]["readings"][0]["placeholders"] == [
        {"placeholder": "$1", "replaced_with": "'Acme Corp'"}]


# -- commands -------------------------------------------------------------------------------------

def _env(server) -> dict[str, str]:
    return {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": server.base_url, "CHECKER_MODEL": "scripted-model",
            "CHECKER_MODEL_TIMEOUT": "5", "CHECKER_MODEL_RETRIES": "0"}


def test_check_command_engine_both_json_and_malformed_text(llm, demo_urls) -> None:
    db = [f"--db=sqlite={demo_urls['sqlite']}"]
    llm.push(tool_call_reply(ASK), structured_reply(READINGS))
    result = CliRunner().invoke(check_command, [QUESTION, "--engine", "both", "--json", *db], env=_env(llm))
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert_valid(payload)
    assert payload["engine"] == "both" and payload["model"]["settings"]["model"] == "scripted-model"
    assert "test-key" not in result.output
    assert payload["comparison"]["archetypes"]["both"] == ["ranking_metric"]

    llm.push(tool_call_reply('{"questions": [{"question": '), structured_reply(READINGS))
    result = CliRunner().invoke(check_command, [QUESTION, "--engine", "both", *db], env=_env(llm))
    assert result.exit_code == 0, result.output
    assert "malformed clarification call" in result.output
    assert 'raw input: {"questions": [{"question":' in result.output
    assert "retry" in result.output and "--engine rules" in result.output and "--reply" in result.output
    assert "tokens:" in result.output and "Rules vs model:" in result.output


def test_check_command_without_a_key_says_model_mode_is_off(demo_urls) -> None:
    result = CliRunner().invoke(check_command, [QUESTION, "--engine", "model", f"--db=sqlite={demo_urls['sqlite']}"],
                                env={"OPENAI_API_KEY": ""})
    assert result.exit_code == 0, result.output
    assert "model mode is off: OPENAI_API_KEY is not set; showing the rules' result" in result.output
    assert "[3]" in result.output  # the rules' three readings, unchanged


def test_prompt_command_prints_every_archetype_and_the_schema(demo_urls) -> None:
    from archetypes import ARCHETYPES

    result = CliRunner().invoke(prompt_command, [f"--db=sqlite={demo_urls['sqlite']}"])
    assert result.exit_code == 0, result.output
    for archetype in ARCHETYPES:
        assert f"{archetype.id}\n   when: {archetype.when}" in result.output
    assert "Do not act on presumed user intentions" in result.output
    assert "WHERE country = 'United States', never WHERE country = $1" in result.output
    assert "- order_items (" in result.output and "unit_price" in result.output
    assert "status varchar(16) [" in result.output and "completed" in result.output
    as_json = CliRunner().invoke(prompt_command, ["--json", f"--db=postgres={demo_urls['postgresql']}"])
    payload = json.loads(as_json.output)
    assert payload["tools"][0]["function"]["name"] == "render_ask_user_question"
    assert "PostgreSQL" in payload["system"]


def test_diagnose_command_on_the_sample_traces(demo_urls, tmp_path) -> None:
    db = f"--db=sqlite={demo_urls['sqlite']}"
    result = CliRunner().invoke(diagnose_command, ["--samples", "--json", db])
    assert result.exit_code == 1, result.output
    reports = {r["source"]: r for r in map(json.loads, result.output.splitlines())}
    codes = {name: sorted(f["code"] for f in r["findings"]) for name, r in reports.items()}
    assert codes == {"clarified.json": [], "unasked_top_selling.json": ["D001"],
                     "placeholder_entity.jsonl": ["D002"],
                     "pending_and_malformed.jsonl": ["D001", "D002", "D003", "D003", "D004"]}
    # "the most units in 2024 across completed orders" names its metric and its rows: not flagged (a keyword
    # regex would flag it)
    assert reports["clarified.json"]["questions"] == 2 and reports["clarified.json"]["sql_calls"] == 2
    unasked = reports["unasked_top_selling.json"]["findings"][0]
    assert unasked["evidence"]["archetypes"] == [{"archetype": a, "evidence": "top-selling"}
                                                 for a in ("ranking_metric", "unit", "record_scope")]
    clean = tmp_path / "clean.json"
    call = {"id": "c1", "type": "function",
            "function": {"name": "run_sql", "arguments": json.dumps({"sql": "SELECT COUNT(*) FROM customers"})}}
    clean.write_text(json.dumps([{"role": "user", "content": "How many customers do we have?"},
                                 {"role": "assistant", "tool_calls": [call]},
                                 {"role": "tool", "tool_call_id": "c1", "content": "[[500]]"}]))
    result = CliRunner().invoke(diagnose_command, [str(clean), db])
    assert result.exit_code == 0 and "no findings" in result.output, result.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"role": "user"}\nnot json\n')
    result = CliRunner().invoke(diagnose_command, [str(broken), db])
    # a bad trace is an error line and the others are still read (issue 12): exit 1, like a finding
    assert result.exit_code == 1 and "broken.jsonl:2: not JSON" in result.output


def test_diagnose_page_shows_the_findings_of_a_sample(demo_urls, monkeypatch) -> None:
    from streamlit.testing.v1 import AppTest

    monkeypatch.setenv("CHECKER_DB", json.dumps([f"sqlite={demo_urls['sqlite']}"]))
    app = AppTest.from_file("../checker_app/pages/diagnose.py", default_timeout=60)
    app.run()
    assert not app.exception
    app.selectbox(key="trace_sample").set_value("pending_and_malformed.jsonl").run()
    assert not app.exception
    assert "5 finding(s)" in app.error[0].value
    table = app.dataframe[0].value
    assert sorted(table["code"]) == ["D001", "D002", "D003", "D003", "D004"]
