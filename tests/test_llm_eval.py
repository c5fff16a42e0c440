"""`eval FILE --engine model|both`: the model's readings scored on gold cases by execution, like the rules'.

The real SDK talks over HTTP to the scripted server; the gold SQL and the model's SQL run on the live demo
database (SQLite, PostgreSQL, MariaDB) and are compared by `checker_app.evaluation.gold.matches`."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker_app.commands.eval import eval_command
from tests.llm_server import (  # noqa: F401
    Scripted,
    fixture_lines,
    llm,
    recorded_error,
    structured_reply,
    text_reply,
    tool_call_reply,
)
from tests.support import BACKENDS

COUNT = "SELECT COUNT(*) AS products FROM products"
REVENUE = ("SELECT products.name, SUM(order_items.unit_price * order_items.quantity) AS revenue FROM order_items "
           "JOIN products ON order_items.product_id = products.id GROUP BY products.name "
           "ORDER BY revenue DESC, products.name LIMIT 1")
UNITS = ("SELECT products.name, SUM(order_items.quantity) AS units FROM order_items "
         "JOIN products ON products.id = order_items.product_id GROUP BY products.name "
         "ORDER BY units DESC, products.name LIMIT 1")
ORDERS = ("SELECT products.name, COUNT(DISTINCT order_items.order_id) AS orders FROM order_items "
          "JOIN products ON products.id = order_items.product_id GROUP BY products.name "
          "ORDER BY orders DESC, products.name LIMIT 1")
CASES = [
    {"q": "how many products are in our catalog?", "db": "demo", "answer": "value",
     "readings": [{"label": "count of products", "sql": COUNT}]},
    {"q": "What is the top-selling product?", "db": "demo", "answer": "top",
     "readings": [{"label": "revenue", "sql": REVENUE}, {"label": "units", "sql": UNITS}]},
]
ASK = {"questions": [{"type": "choice", "header": "Metric", "question": "Rank products by which metric?",
                      "multiSelect": False, "quote": "top-selling", "archetype": "ranking_metric",
                      "options": [{"label": "Revenue"}, {"label": "Units"}]}], "suggestions": [[]]}
ERRORS = {c["name"]: c for c in fixture_lines("errors")}


def readings(*pairs: tuple[str, str], archetypes: tuple[str, ...] = ()) -> Scripted:
    return structured_reply({"archetypes": [{"id": a, "quote": "top-selling"} for a in archetypes],
                             "readings": [{"label": label, "sql": sql, "dialect": "sqlite"} for label, sql in pairs]})


@pytest.fixture
def gold_file(tmp_path):
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in CASES), encoding="utf-8")
    return path


def run_eval(llm, gold_file, url: str, engine: str = "model", *extra: str, timeout_s: float = 10):
    env = {"OPENAI_API_KEY": "test-key", "OPENAI_BASE_URL": llm.base_url, "CHECKER_MODEL": "scripted-model",
           "CHECKER_MODEL_RETRIES": "0", "CHECKER_MODEL_TIMEOUT": str(timeout_s)}
    result = CliRunner().invoke(eval_command, [str(gold_file), "--db", f"demo={url}", "--engine", engine, *extra],
                                env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_models_readings_are_scored_by_execution(llm, gold_file, demo_urls, backend) -> None:
    # case 1: no question, the gold SQL -> found; case 2: asks, revenue (a gold reading) and orders (not one)
    llm.push(text_reply("The question is clear."), readings(("Count of products", COUNT)),
             tool_call_reply(ASK), readings(("By revenue", REVENUE), ("By orders", ORDERS), archetypes=("ranking_metric",)))
    result = run_eval(llm, gold_file, demo_urls[backend], "model", "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert payload["engine"] == "model" and "rules" not in payload
    report = payload["model"]
    first, second = report["cases"]
    assert first["gold_found"] == [True] and first["verdict"] == "clear" and first["matched_readings"] == 1
    assert second["gold_found"] == [True, False] and second["readings"] == 2 and second["matched_readings"] == 1
    assert second["verdict"] == "material" and second["model"]["clarification"] == "asked"
    overall = report["overall"]
    assert overall["gold_found"] == round(2 / 3, 3) and overall["all_found"] == 0.5
    assert overall["precision"] == round(2 / 3, 3) and overall["false_clear"] == 0.0
    model = report["model"]["overall"]
    assert model["asked_when_several"] == 1.0 and model["asked_when_clear"] == 0.0
    assert model["failed_cases"] == 0 and model["calls"] == 4 and model["tokens_per_question"] > 0
    assert len(llm.requests) == 4


def test_a_model_answering_something_else_scores_not_found_and_a_false_clear(llm, gold_file, demo_urls) -> None:
    llm.push(text_reply("clear"), readings(("Count of orders", "SELECT COUNT(*) AS n FROM orders")),
             text_reply("clear"), readings(("By units", UNITS)))
    result = run_eval(llm, gold_file, demo_urls["sqlite"], "model", "--json")
    report = json.loads(result.output)["model"]
    first, second = report["cases"]
    assert first["gold_found"] == [False] and first["verdict"] == "clear"
    assert second["gold_found"] == [False, True] and second["verdict"] == "clear"   # one reading, no question
    assert report["overall"]["false_clear"] == 0.5 and report["overall"]["all_found"] == 0.0
    assert report["model"]["overall"]["asked_when_several"] == 0.0


def test_both_puts_the_rules_and_the_model_side_by_side(llm, gold_file, demo_urls) -> None:
    llm.push(text_reply("clear"), readings(("Count of products", COUNT)),
             tool_call_reply(ASK), readings(("By revenue", REVENUE), ("By units", UNITS), archetypes=("ranking_metric",)))
    result = run_eval(llm, gold_file, demo_urls["sqlite"], "both")
    assert result.exit_code == 0, result.output
    text = result.output
    assert "rules vs model" in text
    rows = {line.split()[0] + " " + line.split()[1]: line.split()[2:] for line in text.splitlines()
            if line.startswith(("demo rules", "demo model", "all rules", "all model"))}
    assert set(rows) == {"demo rules", "demo model", "all rules", "all model"}
    assert rows["demo model"][:4] == ["2", "1.00", "1.00", "1.00"]       # cases, gold found, all found, precision
    assert "asked a clarification: 1.00 of cases with several gold readings, 0.00 of clear ones" in text
    assert "no failure" in text
    shapes = [line.split()[:2] for line in text.split("per shape", 1)[1].splitlines()]
    assert ["ranking", "rules"] in shapes and ["ranking", "model"] in shapes   # per shape, side by side too
    # the rules' row is the rules' own eval: the same figures as `eval FILE` alone
    alone = CliRunner().invoke(eval_command, [str(gold_file), "--db", f"demo={demo_urls['sqlite']}"])
    alone_row = next(line for line in alone.output.splitlines() if line.startswith("demo ")).split()[1:]
    assert rows["demo rules"] == alone_row


def test_failures_are_counted_and_named_and_never_stop_the_run(llm, tmp_path, demo_urls) -> None:
    cases = [dict(CASES[0], q=q) for q in ("how many products are in our catalog?", "how many products do we sell?",
                                            "count our products", "number of products?")]
    path = tmp_path / "gold.jsonl"
    path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    context = ERRORS["llama-cpp-python prompt over n_ctx"]
    cold = Scripted(text_reply("clear").body, first_token_s=3.0)      # a cold prompt: no token within the timeout
    llm.push(recorded_error(context),                                  # case 1: refused (the prompt is too long)
             text_reply("clear"), text_reply("SELECT COUNT(*) FROM products"),  # case 2: not JSON
             cold,                                                     # case 3: timeout before the first token
             text_reply("clear"), readings(("Count of products", COUNT)))       # case 4: fine
    result = run_eval(llm, path, demo_urls["sqlite"], "model", timeout_s=1.0)
    assert result.exit_code == 0, result.output
    text = result.output
    assert "failed on 3 of 4 case(s), scored as not found" in text
    assert "the prompt does not fit the server's context (context) 1" in text
    assert "malformed reply (malformed) 1" in text and "timed out (timeout) 1" in text
    assert "gold.jsonl:1 'how many products are in our catalog?': clarify (context): the prompt does not fit " \
           "the model's context window (HTTP 400: This model's maximum context length is 2048 tokens" in text
    assert "gold.jsonl:2 'how many products do we sell?': interpret (malformed)" in text
    assert "gold.jsonl:3 'count our products': clarify (timeout): no first token within 1 s" in text
    assert "still processing the prompt" in text
    strict = run_eval(llm, path, demo_urls["sqlite"], "model", "--json", "--strict", timeout_s=1.0)
    assert strict.exit_code == 1                                       # the script is spent: every case fails
    report = json.loads(strict.output)["model"]
    assert report["model"]["overall"]["failed_cases"] == 4 and report["overall"]["gold_found"] == 0.0
    assert [c["verdict"] for c in report["cases"]] == ["failed"] * 4


def test_cases_of_same_named_files_keep_their_own_model_record(llm, tmp_path, demo_urls) -> None:
    (tmp_path / "later").mkdir()
    (tmp_path / "demo.jsonl").write_text(json.dumps(CASES[0]) + "\n", encoding="utf-8")
    (tmp_path / "later" / "demo.jsonl").write_text(json.dumps(CASES[1]) + "\n", encoding="utf-8")
    llm.push(text_reply("clear"), readings(("Count of products", COUNT)),
             tool_call_reply(ASK), readings(("By revenue", REVENUE), archetypes=("ranking_metric",)))
    report = json.loads(run_eval(llm, tmp_path, demo_urls["sqlite"], "model", "--json").output)["model"]
    assert [c["where"] for c in report["cases"]] == ["demo.jsonl:1", "demo.jsonl:1"]
    assert [c["model"]["clarification"] for c in report["cases"]] == ["none", "asked"]


def test_limit_scores_only_the_first_cases(llm, gold_file, demo_urls) -> None:
    llm.push(text_reply("clear"), readings(("Count of products", COUNT)))
    result = run_eval(llm, gold_file, demo_urls["sqlite"], "model", "--json", "--limit", "1")
    report = json.loads(result.output)["model"]
    assert [c["q"] for c in report["cases"]] == [CASES[0]["q"]] and len(llm.requests) == 2


def test_model_mode_off_or_a_label_file_is_a_usage_error(gold_file, demo_urls, tmp_path) -> None:
    off = CliRunner().invoke(eval_command, [str(gold_file), "--engine", "model"], env={"OPENAI_API_KEY": ""})
    assert off.exit_code == 2 and "OPENAI_API_KEY is not set" in off.output
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"q": "x", "db": "demo", "fire": [], "not": "*"}) + "\n")
    wrong = CliRunner().invoke(eval_command, [str(labels), "--engine", "both"], env={"OPENAI_API_KEY": "k"})
    assert wrong.exit_code == 2 and "scores gold-answer files" in wrong.output


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_model_writing_the_gold_sql_finds_every_gold_reading(llm, demo_urls, backend) -> None:
    """The model path loses nothing on the way: the gold SQL (SQLite, timestamps read as text: SUBSTR,
    STRFTIME('%w')) written by the model is carried to each engine and found, like the gold SQL itself."""
    from adapters import Database, Limits, parse_db_option
    from checker_app.evaluation.gold import load_gold
    from checker_app.llm.scoring import evaluate_model
    from tests.support import REPO

    cases = [c for c in load_gold(REPO / "tests" / "fixtures" / "gold" / "demo.jsonl")
             if any(w in r.sql for r in c.readings for w in ("substr(", "strftime('%w'"))][:4]
    assert len(cases) == 4
    for case in cases:
        llm.push(text_reply("clear"), readings(*((r.label, r.sql) for r in case.readings)))
    db = Database(parse_db_option(f"demo={demo_urls[backend]}"), Limits(time_limit_s=20))
    try:
        result = evaluate_model(cases, {"demo": db}, llm.settings())
    finally:
        db.dispose()
    assert [r.gold_found for r in result.report.results] == [[True] * len(c.readings) for c in cases], \
        [(r.case.where, r.errors) for r in result.report.results]
    assert result.scores().failed_cases == 0


def test_a_llama_cpp_python_like_server_scores_through_its_quirks(llm, gold_file, demo_urls) -> None:
    """json_schema refused (HTTP 500, the recorded body) then json_object remembered; the clarification written
    as `functions.NAME:` text is read as asked; free archetype ids are the model's errors, not archetypes."""
    named = next(c for c in fixture_lines("text_calls") if c["name"] == "functions. prefix then the arguments")
    refusal = recorded_error(ERRORS["llama-cpp-python refuses json_schema"])
    free = structured_reply({"archetypes": [{"id": ":ranking_metric", "quote": "top-selling"}],
                             "readings": [{"label": "By revenue", "sql": REVENUE}, {"label": "By units", "sql": UNITS}]})
    llm.push(text_reply("clear"), refusal, readings(("Count of products", COUNT)), text_reply(named["content"]), free)
    result = run_eval(llm, gold_file, demo_urls["sqlite"], "model", "--json")
    payload = json.loads(result.output)["model"]
    first, second = payload["cases"]
    assert first["model"]["refused_modes"] == ["json_schema"] and first["model"]["structured_output"] == "json_object"
    assert second["model"]["refused_modes"] == [] and second["model"]["structured_output"] == "json_object"
    assert llm.requests[4]["response_format"]["type"] == "json_object"      # remembered: not asked again
    assert second["model"]["clarification"] == "asked" and second["model"]["written_as_text"] == "named"
    assert second["model"]["model_errors"] == 1 and second["gold_found"] == [True, True]
    assert second["verdict"] == "material"   # the free id is no archetype, but two readings give two answers
    model = payload["model"]["overall"]
    assert model["failed_cases"] == 0 and model["refused_modes"] == {"json_schema": 1}
    assert model["asked_when_several"] == 1.0 and model["calls_written_as_text"] == 1
    assert payload["overall"]["all_found"] == 1.0
