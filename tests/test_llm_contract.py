"""Model mode's contract without a server: tool schema, quote check, suggestions by position, lint, settings."""
from __future__ import annotations

import json

import pytest

from adapters import ConfigError
from checker_app.clarify import MEMORY_HINT, parse_tool_input, tool_output
from checker_app.llm.errors import ModelFailure
from checker_app.llm.lint import lint_sql
from checker_app.llm.readings import ModelInterpretations, read_interpretations, response_format
from checker_app.llm.run import clarification_answers
from checker_app.llm.settings import ModelSettings
from checker_app.llm.strict import check_strict, strict_schema
from checker_app.llm.tool import (
    TOOL_NAME,
    pair_suggestions,
    quote_in_question,
    read_tool_input,
    tool_definition,
    tool_schema,
)

QUESTION = "What is the top-selling product?"


def _ask(**fields):
    return {"type": "choice", "header": "Metric", "question": "Rank by which metric?", "multiSelect": False,
            "quote": "top-selling", "options": [{"label": "Revenue"}, {"label": "Units"}], **fields}


# -- the tool schema --------------------------------------------------------------------------------

def test_tool_schema_is_strict_and_derived_from_the_clarify_models() -> None:
    schema = tool_schema(("ranking_metric", "timeframe"))
    assert check_strict(schema) == []
    choice = schema["$defs"]["ChoiceQuestion"]
    assert set(choice["required"]) == set(choice["properties"]) >= {"type", "question", "header", "multiSelect",
                                                                   "quote", "options", "archetype"}
    assert choice["properties"]["type"] == {"type": "string", "enum": ["choice"]}
    assert schema["$defs"]["QueryChoiceQuestion"]["properties"]["sql"]["type"] == "string"
    assert schema["properties"]["suggestions"]["items"] == {"type": "array", "items": {"type": "string"}}
    assert schema["properties"]["questions"]["minItems"] == 1
    enum = choice["properties"]["archetype"]["anyOf"][0]["enum"]
    assert enum == ["ranking_metric", "timeframe"]
    definition = tool_definition()
    assert definition["function"]["name"] == TOOL_NAME and definition["function"]["strict"] is True


def test_strict_schema_closes_objects_and_makes_optional_fields_nullable() -> None:
    schema = strict_schema(ModelInterpretations.model_json_schema())
    assert check_strict(schema) == []
    strict = strict_schema({"type": "object", "properties": {"a": {"type": "string", "default": "x"},
                                                             "b": {"type": "string"}}, "required": []})
    assert strict["required"] == ["a", "b"] and strict["additionalProperties"] is False
    assert strict["properties"]["a"] == {"type": "string"}                      # a real default: just required
    assert strict["properties"]["b"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert check_strict({"type": "object", "properties": {"a": {"type": "string"}}}) != []  # the checker can fail
    assert response_format()["json_schema"]["strict"] is True


# -- reading a call -----------------------------------------------------------------------------------

def test_a_good_call_keeps_the_question_and_pairs_suggestions_by_position() -> None:
    raw = {"questions": [_ask(options=None), _ask(question="Which timeframe?", quote="product", options=None)],
           "suggestions": [["Revenue", "Units", "Orders"], ["Last 30 days"]]}
    result = read_tool_input(json.dumps(raw), QUESTION)
    assert result.status == "asked" and result.dropped == []
    assert [o.label for o in result.questions[0].options] == ["Revenue", "Units", "Orders"]
    assert [o.label for o in result.questions[1].options] == ["Last 30 days"]


def test_pairing_happens_before_filtering_so_a_dropped_ask_cannot_shift_chips() -> None:
    raw = {"questions": [_ask(quote="cheapest", options=None), _ask(question="Which window?", options=None)],
           "suggestions": [["A", "B"], ["Last 30 days", "Last year"]]}
    result = read_tool_input(raw, QUESTION)
    assert [d.reason for d in result.dropped] == ["the quote is not in the user's question"]
    assert [o.label for o in result.questions[0].options] == ["Last 30 days", "Last year"]


def test_pair_suggestions_coerces_what_does_not_fit() -> None:
    assert pair_suggestions([1, 2, 3], [["a", 3, " "], "not a list"]) == [["a"], [], []]
    assert pair_suggestions([1], None) == [[]]
    assert pair_suggestions([1], [["a"], ["extra"]]) == [["a"]]


def test_a_missing_type_is_inferred_and_nulls_mean_not_given() -> None:
    raw = {"questions": [{"question": "Which customer?", "quote": "product", "sql": "SELECT name FROM products",
                          "header": None, "multiSelect": None, "options": None, "archetype": None},
                         {**_ask(), "type": None}], "suggestions": None}
    result = read_tool_input(raw, QUESTION)
    assert result.status == "asked"
    assert [q.type for q in result.questions] == ["query_choice", "choice"]


@pytest.mark.parametrize("arguments, fragment", [
    ('{"questions": [', "not valid JSON"),
    ({"questions": "Which metric?"}, "questions"),
    ({"questions": []}, "questions"),
    ({"questions": [{"type": "choice", "question": 42, "quote": "top", "options": [{"label": "A"}]}]}, "questions.0"),
    ({"questions": [{"type": "choice", "question": "Q?", "quote": "top", "options": "Revenue, Units"}]}, "options"),
    ({"questions": [{"type": "ranking", "question": "Q?", "quote": "top", "options": [{"label": "A"}]}]},
     "questions.0"),
    (["not", "an", "object"], "object"),
])
def test_malformed_calls_keep_their_raw_input(arguments, fragment) -> None:
    result = read_tool_input(arguments, QUESTION)
    assert result.status == "malformed"
    assert fragment in result.error
    assert result.raw_input == arguments
    payload = result.to_dict()
    assert [r["action"] for r in payload["recovery"]] == ["retry", "skip", "answer_text"]


def test_quotes_must_be_word_for_word_in_the_question() -> None:
    assert quote_in_question("top-selling", QUESTION)
    assert quote_in_question('"Top-Selling  product?"', QUESTION)
    assert not quote_in_question("best-selling", QUESTION)
    assert not quote_in_question("", QUESTION) and not quote_in_question(None, QUESTION)
    result = read_tool_input({"questions": [_ask(quote="")]}, QUESTION)
    assert result.status == "dropped" and result.dropped[0].reason == "no quote of the user's question"


def test_an_unsafe_options_query_is_dropped() -> None:
    raw = {"questions": [{"type": "query_choice", "question": "Which?", "quote": "product",
                          "sql": "DELETE FROM products"}]}
    result = read_tool_input(raw, QUESTION)
    assert result.status == "dropped" and "refused" in result.dropped[0].reason


# -- answers back to the model -------------------------------------------------------------------------

def test_answers_become_the_tool_output_with_memory_hint_only_for_own_words() -> None:
    picked = tool_output(clarification_answers({"ranking_metric": "revenue"}, None))
    assert "memoryHint" not in picked
    assert picked["answers"][0]["choice"] == {"label": "revenue"}
    typed = tool_output(clarification_answers({}, "  gross margin, not revenue  "))
    assert typed["memoryHint"] == MEMORY_HINT
    assert typed["answers"][0]["freeText"] == "gross margin, not revenue"
    assert parse_tool_input({"questions": [_ask()]}).questions[0].quote == "top-selling"


# -- structured readings -------------------------------------------------------------------------------

def test_read_interpretations_fails_with_kinds_and_keeps_the_raw_reply() -> None:
    good = read_interpretations('{"archetypes": [], "readings": [{"label": "A", "sql": "SELECT 1"}]}')
    assert good.readings[0].sql == "SELECT 1"
    with pytest.raises(ModelFailure) as bad_json:
        read_interpretations("{readings: nope")
    assert bad_json.value.kind == "malformed" and bad_json.value.raw == "{readings: nope"
    with pytest.raises(ModelFailure) as bad_schema:
        read_interpretations('{"archetypes": [], "readings": []}')
    assert bad_schema.value.kind == "schema"
    with pytest.raises(ModelFailure) as wrong_type:
        read_interpretations('{"archetypes": "ranking_metric", "readings": [{"label": "A", "sql": "SELECT 1"}]}')
    assert wrong_type.value.kind == "schema"


# -- placeholder lint ----------------------------------------------------------------------------------

@pytest.mark.parametrize("sql, dialect, written", [
    ("SELECT * FROM customers WHERE name = $1", "postgres", "$1"),
    ("SELECT * FROM customers WHERE name = $1", "sqlite", "$1"),
    ("SELECT * FROM customers WHERE name = ?", "sqlite", "?"),
    ("SELECT * FROM customers WHERE name = %s", "mysql", "%s"),          # MySQL's reader cannot parse %s
    ("SELECT * FROM customers WHERE name = :customer", "sqlite", ":customer"),
    ("SELECT * FROM customers WHERE name = %(customer)s", "postgres", "%(customer)s"),
])
def test_placeholders_are_flagged_and_replaced_by_quoted_literals(sql, dialect, written) -> None:
    unknown = lint_sql(sql, dialect)
    assert [f.placeholder for f in unknown.findings] == [written]
    assert not unknown.runnable and "quoted literal" in unknown.problem()
    known = lint_sql(sql, dialect, {"customer": "O'Brien & Co"})
    assert known.runnable and known.problem() is None
    for target in ("sqlite", "postgres", "mysql"):
        rendered = known.render(target)
        assert "O''Brien & Co'" in rendered or "O\\'Brien & Co'" in rendered, rendered
        assert "$1" not in rendered and "?" not in rendered and "%s" not in rendered


def test_lint_leaves_literals_and_strings_alone_and_refuses_writes() -> None:
    clean = lint_sql("SELECT '$1', '?' AS q FROM products WHERE name = 'a:b'", "sqlite")
    assert clean.findings == [] and clean.runnable
    assert clean.render("sqlite") == "SELECT '$1', '?' AS q FROM products WHERE name = 'a:b'"
    positional = lint_sql("SELECT 1 FROM t WHERE a = ? AND b = ?", "sqlite", {"x": "one"})
    assert [f.replaced_with for f in positional.findings] == ["'one'", None]
    assert "read-only" in lint_sql("DELETE FROM products", "sqlite").problem()
    assert "cannot parse" in lint_sql("SELECT * FROM (", "sqlite").problem()


# -- settings --------------------------------------------------------------------------------------------

def test_settings_from_the_environment() -> None:
    off = ModelSettings.from_env({})
    assert not off.enabled and "OPENAI_API_KEY" in off.off_reason
    on = ModelSettings.from_env({"OPENAI_API_KEY": "sk-secret", "OPENAI_BASE_URL": "http://localhost:11434/v1",
                                 "CHECKER_MODEL": "llama3.1", "CHECKER_MODEL_TIMEOUT": "7.5",
                                 "CHECKER_MODEL_RETRIES": "0", "CHECKER_MODEL_CONCURRENCY": "3"})
    assert (on.enabled, on.base_url, on.model, on.timeout_s, on.max_retries, on.max_concurrent) == (
        True, "http://localhost:11434/v1", "llama3.1", 7.5, 0, 3)
    assert "sk-secret" not in repr(on) and "sk-secret" not in json.dumps(on.describe())
    assert ModelSettings.from_env({"OPENAI_API_KEY": "k"}).max_retries == 1
    proxied = ModelSettings.from_env({"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://me:pw123@proxy:8080/v1?t=tok9"})
    shown = json.dumps(proxied.describe()) + repr(proxied)
    assert "pw123" not in shown and "tok9" not in shown and "http://me:***@proxy:8080/v1" in shown
    with pytest.raises(ConfigError):
        ModelSettings.from_env({"CHECKER_MODEL_TIMEOUT": "soon"})
