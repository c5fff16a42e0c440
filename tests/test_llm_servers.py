"""Model mode against real servers' shapes, replayed byte for byte by the scripted server (the real SDK over
HTTP): error bodies, structured-output refusals, calls written as text, free archetype ids, empty
strings, streams (cold prompts, runaway generations). Each case is one line in tests/fixtures/llm/."""
from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from archetypes import ARCHETYPES
from checker_app.llm.client import ModelClient
from checker_app.llm.modes import SERVER_MODES
from checker_app.llm.readings import read_interpretations
from checker_app.llm.run import run_model
from checker_app.llm.usage import Usage
from tests.llm_server import (  # noqa: F401
    Scripted,
    fixture_lines,
    llm,
    recorded_error,
    structured_reply,
    text_reply,
    tool_call_reply,
)

QUESTION = "What is the top-selling product?"
PROFILE = SimpleNamespace(dialect="sqlite", tables={}, facts={}, entities={})
IDS = tuple(a.id for a in ARCHETYPES)
READINGS = {"archetypes": [{"id": "ranking_metric", "quote": "top-selling"}],
            "readings": [{"label": "By revenue", "sql": "SELECT 1 AS revenue"},
                         {"label": "By units", "sql": "SELECT 2 AS units"}]}
ERRORS = fixture_lines("errors")
TEXT_CALLS = fixture_lines("text_calls")
REPLIES = fixture_lines("readings")
STREAMS = fixture_lines("streams")


def _names(cases):
    return [c["name"] for c in cases]


@pytest.mark.parametrize("case", ERRORS, ids=_names(ERRORS))
def test_error_bodies_keep_the_whole_message_and_refusals_are_not_retried(llm, case) -> None:
    llm.push(recorded_error(case), times=2)
    client = ModelClient(llm.settings(max_retries=1))
    usage = Usage()
    with pytest.raises(Exception) as raised:
        client.chat("interpret", [{"role": "user", "content": "hi"}], usage)
    failure = raised.value
    assert failure.kind == case["kind"] and failure.status == case["status"]
    assert failure.param == case["param"]
    for fragment in case["expect_in"]:
        assert fragment in failure.message, failure.message
    assert len(llm.requests) == (2 if case["retried"] else 1)
    assert usage.attempts == len(llm.requests) and usage.calls == 0   # failed attempts are counted too
    assert usage.to_dict()["retries"] == (1 if case["retried"] else 0)


def test_json_schema_refused_falls_back_to_json_object_and_is_remembered(llm) -> None:
    refusal = recorded_error(ERRORS[0])
    llm.push(tool_call_reply({"questions": []}), refusal, structured_reply(READINGS))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    assert part.structured_output == "json_object" and len(part.readings) == 2
    assert part.fallbacks[0]["mode"] == "json_schema" and "Input should be 'text' or 'json_object'" in \
        part.fallbacks[0]["reason"]
    refused, accepted = llm.requests[1], llm.requests[2]
    assert refused["response_format"]["type"] == "json_schema"
    schema = refused["response_format"]["json_schema"]["schema"]
    assert accepted["response_format"] == {"type": "json_object", "schema": schema}  # llama-cpp-python's grammar
    sent = json.loads(accepted["messages"][1]["content"].split("matching this JSON schema exactly:\n", 1)[1])
    assert sent == schema   # the same schema, in the prompt too
    assert SERVER_MODES.current(part.settings["base_url"]) == "json_object"
    # the next check goes straight to the mode that works
    llm.push(tool_call_reply({"questions": []}), structured_reply(READINGS))
    again = run_model(QUESTION, PROFILE, settings=llm.settings())
    assert again.structured_output == "json_object" and again.fallbacks == []
    assert llm.requests[4]["response_format"]["type"] == "json_object"


def test_a_server_refusing_both_gets_plain_text_and_the_json_is_extracted(llm) -> None:
    prose = "Sure! Here is the JSON you asked for:\n```json\n" + json.dumps(READINGS) + "\n```\nAnything else?"
    llm.push(tool_call_reply({"questions": []}), recorded_error(ERRORS[0]), recorded_error(ERRORS[1]), text_reply(prose))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    assert part.structured_output == "text" and [f["mode"] for f in part.fallbacks] == ["json_schema", "json_object"]
    assert "response_format" not in llm.requests[3]
    assert "JSON schema" in llm.requests[3]["messages"][1]["content"]
    assert [r.label for r in part.readings] == ["By revenue", "By units"] and part.status == "partial"


@pytest.mark.parametrize("case", TEXT_CALLS, ids=_names(TEXT_CALLS))
def test_calls_written_as_text_go_through_the_same_contract(llm, case) -> None:
    llm.push(text_reply(case["content"]), structured_reply(READINGS))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    asked = part.clarification
    assert asked.status == case["status"], asked.error
    assert asked.written_as == case["written_as"]
    assert [q.question for q in asked.questions] == case["questions"]
    if case["options"]:
        assert [o.label for o in asked.questions[0].options] == case["options"]
        assert asked.questions[0].type == "choice"           # normalizeQuestionType inferred it
    payload = part.to_dict()["clarification"]
    if case["status"] == "malformed":
        assert payload["raw_input"] == case["content"] and payload["recovery"]
        assert part.failure["kind"] == "malformed"


@pytest.mark.parametrize("case", REPLIES, ids=_names(REPLIES))
def test_readings_replies_keep_model_errors_apart(llm, case) -> None:
    llm.push(text_reply("no question"), text_reply(case["content"]))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    assert part.archetype_ids == case["archetypes"]
    assert [e["value"] for e in part.model_errors if e["kind"] == "unknown_archetype"] == case["unknown"]
    assert len([e for e in part.model_errors if e["kind"] == "invalid_reading"]) == case["invalid"]
    assert len(part.readings) == case["readings"]
    assert (part.failure or {}).get("kind") == case["failure"]


def test_an_unknown_archetype_in_a_text_call_is_the_models_error(llm) -> None:
    call = {"questions": [{"question": "Which metric?", "quote": "top-selling", "archetype": ":ranking_metric",
                           "options": [{"label": "Revenue"}]}], "suggestions": [[]]}
    llm.push(text_reply("functions.render_ask_user_question:\n" + json.dumps(call)), structured_reply(READINGS))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    assert part.clarification.status == "asked" and part.clarification.questions[0].archetype is None
    assert [e["value"] for e in part.model_errors] == [":ranking_metric"]


def test_every_schema_sent_names_the_registry_ids(llm) -> None:
    llm.push(tool_call_reply({"questions": []}), structured_reply(READINGS))
    run_model(QUESTION, PROFILE, settings=llm.settings())
    tool = llm.requests[0]["tools"][0]["function"]["parameters"]["$defs"]["ChoiceQuestion"]["properties"]
    assert tool["archetype"]["anyOf"][0]["enum"] == list(IDS)
    readings = llm.requests[1]["response_format"]["json_schema"]["schema"]
    assert readings["$defs"]["SeenArchetype"]["properties"]["id"]["enum"] == list(IDS)


def test_max_tokens_and_temperature_are_sent_per_step(llm) -> None:
    llm.push(tool_call_reply({"questions": []}), structured_reply(READINGS))
    run_model(QUESTION, PROFILE, settings=llm.settings(max_tokens={"clarify": 300, "interpret": 900},
                                                        temperature=0.2))
    assert [r["max_tokens"] for r in llm.requests] == [300, 900]
    assert {r["temperature"] for r in llm.requests} == {0.2}
    assert all(r["stream"] is True for r in llm.requests)


@pytest.mark.parametrize("case", STREAMS, ids=_names(STREAMS))
def test_streams_measure_the_first_token_and_cut_runaways(llm, case) -> None:
    expect = case["expect"]
    reply = Scripted({}, raw_events=case.get("events"), first_token_s=case["first_token_s"], token_s=case["token_s"],
                     ignore_max_tokens=case["ignore_max_tokens"])
    if "content" in case:
        reply.body = text_reply(case["content"]).body
    settings = {"timeout_s": case["timeout_s"]}
    if case["max_tokens"]:
        settings["max_tokens"] = {case["step"]: case["max_tokens"]}
    if case["step"] == "interpret":
        llm.push(text_reply("no question"), reply)
    else:
        llm.push(reply, structured_reply(READINGS))
    part = run_model(QUESTION, PROFILE, settings=llm.settings(**settings))
    step = part.usage.steps[case["step"]]
    if "failure" in expect:
        failure = part.failure
        assert failure["kind"] == expect["failure"] and failure["step"] == case["step"], failure
        assert expect["message_in"] in failure["message"], failure["message"]
        if "phase" in expect:
            assert failure["phase"] == expect["phase"]
        assert step.attempts == 1
        if expect["failure"] == "timeout":
            assert step.timeouts == 1 and step.calls == 0
        if expect.get("phase") == "generation":
            assert step.completion_tokens > 0 and step.estimated     # what it wrote before the cut counts
    if "completion_tokens" in expect:
        assert step.completion_tokens == expect["completion_tokens"]
    if "status" in expect:
        assert part.clarification.status == expect["status"]
        assert part.clarification.tool_call_id == "call_Zx1"
        assert [step.prompt_tokens, step.completion_tokens] == expect["tokens"]
    if "readings" in expect:
        assert len(part.readings) == expect["readings"]
        assert step.first_token_s >= expect["first_token_at_least"]
        assert part.to_dict()["usage"]["by_step"]["interpret"]["first_token_s"] >= expect["first_token_at_least"]


def test_a_server_that_cannot_stream_is_asked_again_without_and_remembered(llm) -> None:
    cannot = recorded_error(next(c for c in ERRORS if c["param"] == "stream"))
    llm.push(cannot, tool_call_reply({"questions": []}), structured_reply(READINGS))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    assert [r.get("stream", False) for r in llm.requests] == [True, False, False]
    assert len(part.readings) == 2 and part.usage.steps["clarify"].attempts == 2


def test_a_reply_without_streaming(llm) -> None:
    llm.push(tool_call_reply({"questions": []}), structured_reply(READINGS, usage=(500, 70)))
    part = run_model(QUESTION, PROFILE, settings=llm.settings(stream=False))
    assert "stream" not in llm.requests[1] and len(part.readings) == 2
    assert part.usage.steps["interpret"].total_tokens == 570 and part.usage.steps["interpret"].first_token_s is None


def test_the_reply_is_validated_against_the_schema_sent() -> None:
    from jsonschema import Draft202012Validator

    from checker_app.llm.readings import ModelInterpretations, interpretations_schema

    schema = interpretations_schema(IDS)
    samples = [{"archetypes": [], "readings": [{"label": label, "sql": sql, "dialect": None}]}
               for label in ("", " ", "x") for sql in ("", "SELECT 1")]
    for sample in samples:
        by_schema = Draft202012Validator(schema).is_valid(sample)
        try:
            ModelInterpretations.model_validate(sample)
            by_pydantic = True
        except Exception:  # noqa: BLE001
            by_pydantic = False
        assert by_schema == by_pydantic, sample
    text = json.dumps({"archetypes": [], "readings": [{"label": "", "sql": "SELECT 1"}]})
    with pytest.raises(Exception, match="does not match"):
        read_interpretations(text, IDS)


@pytest.mark.parametrize(("env", "expected"), [
    ({}, {"clarify": 512, "interpret": 1536}),
    ({"CHECKER_MODEL_MAX_TOKENS": "800"}, {"clarify": 800, "interpret": 800}),
    ({"CHECKER_MODEL_MAX_TOKENS": "interpret=2000"}, {"clarify": 512, "interpret": 2000}),
])
def test_max_tokens_from_the_environment(env, expected) -> None:
    from checker_app.llm.settings import ModelSettings

    settings = ModelSettings.from_env({"OPENAI_API_KEY": "k", **env})
    assert {step: settings.max_tokens_for(step) for step in expected} == expected
    assert settings.temperature == 0 and settings.stream is True


@pytest.mark.parametrize(("name", "value", "message"), [
    ("CHECKER_MODEL_MAX_TOKENS", "answer=10", "unknown step 'answer'"),
    ("CHECKER_MODEL_MAX_TOKENS", "clarify=-1", "not a positive whole number"),
    ("CHECKER_MODEL_TEMPERATURE", "hot", "not a number"),
    ("CHECKER_MODEL_TEMPERATURE", "3", "between 0 and 2"),
    ("CHECKER_MODEL_STREAM", "maybe", "use 1 or 0"),
])
def test_bad_model_settings_are_one_line_errors(name, value, message) -> None:
    from adapters import ConfigError
    from checker_app.llm.settings import ModelSettings

    with pytest.raises(ConfigError, match=message) as raised:
        ModelSettings.from_env({"OPENAI_API_KEY": "k", name: value})
    assert "\n" not in str(raised.value)


def test_credentials_never_show_in_settings_or_failures(llm) -> None:
    from checker_app.llm.settings import ModelSettings

    proxied = llm.base_url.replace("http://", "http://proxyuser:pr0xy-pass@")
    shown = ModelSettings(api_key="sk-live-123", base_url=proxied + "?token=t0ken-value").describe()["base_url"]
    assert "pr0xy-pass" not in shown and "t0ken-value" not in shown and "***" in shown
    llm.push(Scripted({"error": {"message": "Incorrect API key provided: sk-live-123 (via "
                                            f"{proxied})"}}, status=401))
    part = run_model(QUESTION, PROFILE, settings=llm.settings(api_key="sk-live-123", base_url=proxied))
    text = json.dumps(part.to_dict())
    assert part.failure["status"] == 401 and "Incorrect API key provided" in part.failure["message"]
    for secret in ("sk-live-123", "pr0xy-pass"):
        assert secret not in text


def test_the_check_text_says_what_the_server_and_model_did(llm) -> None:
    from checker_app.llm.text import model_lines

    tagged = next(c for c in TEXT_CALLS if c["name"] == "<tools> tag")
    free = next(c for c in REPLIES if c["name"] == "free archetype ids")
    llm.push(text_reply(tagged["content"]), recorded_error(ERRORS[0]), text_reply(free["content"]))
    part = run_model(QUESTION, PROFILE, settings=llm.settings())
    text = "\n".join(model_lines({"model": part.to_dict()}))
    assert "the server refused json_schema, used json_object (remembered for this server)" in text
    assert "Input should be 'text' or 'json_object'" in text
    assert "model error, unknown archetype id at archetypes.0: a" in text
    assert "the model wrote its call as text (tagged)" in text
    assert "(+1 failed attempt(s), 0 timed out)" in text and "first token" in text


def test_a_server_refusing_the_tool_still_gives_readings_and_is_not_asked_again(llm) -> None:
    refusal = recorded_error(next(c for c in ERRORS if c["param"] == "tool_choice"))
    llm.push(refusal, structured_reply(READINGS))
    part = run_model(QUESTION, PROFILE, settings=llm.settings(max_retries=1))
    assert len(llm.requests) == 2 and "tools" in llm.requests[0]       # refused once, not retried, then the readings
    assert part.failure["step"] == "clarify" and part.failure["param"] == "tool_choice" and len(part.readings) == 2
    llm.push(structured_reply(READINGS))
    again = run_model(QUESTION, PROFILE, settings=llm.settings(max_retries=1))
    assert len(llm.requests) == 3 and "tools" not in llm.requests[2]   # remembered: straight to the readings
    assert again.status == "ok" and len(again.readings) == 2
    assert again.fallbacks == [{"step": "clarify", "mode": "tools", "next": "no clarification call",
                                "reason": "this server refused tools earlier in this process"}]
