"""Model mode against a scripted OpenAI-compatible server: the real SDK over real HTTP, no patching."""
from __future__ import annotations

import json
import socket
import threading
import time
from types import SimpleNamespace

from archetypes import ARCHETYPES
from checker_app.clarify import MEMORY_HINT
from checker_app.llm.client import ModelClient
from checker_app.llm.prompt import GUARDRAIL, LITERAL_RULE
from checker_app.llm.run import run_model
from checker_app.llm.settings import ModelSettings
from checker_app.llm.tool import TOOL_NAME
from tests.llm_server import Scripted, error_reply, llm, structured_reply, text_reply, tool_call_reply  # noqa: F401

QUESTION = "What is the top-selling product?"
PROFILE = SimpleNamespace(dialect="sqlite", tables={}, facts={}, entities={})
GOOD_ASK = {"questions": [{"type": "choice", "header": "Metric", "question": "Rank products by which metric?",
                           "multiSelect": False, "quote": "top-selling", "archetype": "ranking_metric",
                           "options": [{"label": "Revenue", "value": "revenue"}]}],
            "suggestions": [["Units", "Orders"]]}
READINGS = {"archetypes": [{"id": "ranking_metric", "quote": "top-selling"}],
            "readings": [{"label": "By revenue", "sql": "SELECT 1 AS revenue"},
                         {"label": "By units", "sql": "SELECT 2 AS units"}]}


def _run(server, **kwargs):
    settings = kwargs.pop("settings", None) or server.settings()
    return run_model(QUESTION, PROFILE, settings=settings, **kwargs)


def test_good_tool_call_and_readings(llm) -> None:
    llm.push(tool_call_reply(GOOD_ASK, usage=(300, 45)), structured_reply(READINGS, usage=(350, 80)))
    part = _run(llm)
    assert part.status == "ok" and part.failure is None
    ask = part.clarification
    assert ask.status == "asked" and ask.tool_call_id == "call_1"
    assert [o.label for o in ask.questions[0].options] == ["Revenue", "Units", "Orders"]
    assert ask.questions[0].archetype == "ranking_metric"
    assert [r.label for r in part.readings] == ["By revenue", "By units"]
    assert part.detections[0]["id"] == "ranking_metric" and part.detections[0]["quote_found"]
    assert part.detections[0]["span"] == [12, 23] and part.detections[0]["ask"] == ARCHETYPES[0].ask
    # usage: both calls, the clarification included
    usage = part.to_dict()["usage"]
    assert usage["calls"] == 2 and usage["total_tokens"] == 300 + 45 + 350 + 80
    assert usage["by_step"]["clarify"]["total_tokens"] == 345
    # what went over the wire
    ask_request, readings_request = llm.requests
    assert ask_request["model"] == "scripted-model"
    tool = ask_request["tools"][0]
    assert tool["function"]["name"] == TOOL_NAME and tool["function"]["strict"] is True
    system = ask_request["messages"][0]["content"]
    assert GUARDRAIL in system and LITERAL_RULE in system
    for archetype in ARCHETYPES:  # every archetype in the registry, not four
        assert archetype.id in system and archetype.when in system and archetype.ask in system
        assert archetype.reason in system
    assert ask_request["messages"][1] == {"role": "user", "content": QUESTION}
    assert readings_request["response_format"]["type"] == "json_schema"
    assert readings_request["response_format"]["json_schema"]["strict"] is True
    assert "tools" not in readings_request


def test_missing_type_is_inferred(llm) -> None:
    ask = json.loads(json.dumps(GOOD_ASK))
    del ask["questions"][0]["type"]
    llm.push(tool_call_reply(ask), structured_reply(READINGS))
    part = _run(llm)
    assert part.status == "ok"
    assert part.clarification.status == "asked" and part.clarification.questions[0].type == "choice"


def test_wrong_types_are_malformed_with_raw_input_and_a_way_on(llm) -> None:
    bad = {"questions": [{"type": "choice", "question": ["Which", "metric"], "quote": "top-selling",
                          "multiSelect": "sometimes", "options": "Revenue, Units"}]}
    llm.push(tool_call_reply(bad), structured_reply(READINGS))
    part = _run(llm)
    assert part.status == "partial"          # the readings still came
    assert part.failure == {"step": "clarify", "kind": "malformed", "message": part.clarification.error}
    payload = part.to_dict()["clarification"]
    assert payload["status"] == "malformed" and json.loads(payload["raw_input"]) == bad
    assert [r["action"] for r in payload["recovery"]] == ["retry", "skip", "answer_text"]
    assert len(part.readings) == 2


def test_invalid_json_arguments_are_malformed(llm) -> None:
    raw = '{"questions": [{"type": "choice", "question": "Which metric?"'
    llm.push(tool_call_reply(raw), structured_reply(READINGS))
    part = _run(llm)
    assert part.clarification.status == "malformed"
    assert "not valid JSON" in part.clarification.error
    assert part.clarification.raw_input == raw


def test_an_ask_whose_quote_is_not_in_the_question_is_dropped(llm) -> None:
    ask = json.loads(json.dumps(GOOD_ASK))
    ask["questions"][0]["quote"] = "best-selling item last year"
    llm.push(tool_call_reply(ask), structured_reply(READINGS))
    part = _run(llm)
    assert part.status == "ok"               # dropping an ask is the contract working, not a failure
    assert part.clarification.status == "dropped" and part.clarification.questions == []
    assert part.clarification.dropped[0].reason == "the quote is not in the user's question"


def test_a_slow_server_times_out_and_fails_open(llm) -> None:
    llm.push(Scripted(body={}, delay_s=5.0))
    started = time.perf_counter()
    part = _run(llm, settings=llm.settings(timeout_s=0.5, max_retries=0))
    # a generous bound over the 0.5 s limit, well below the 5 s the server takes: the limit cut the call
    assert time.perf_counter() - started < 4.0
    assert part.status == "failed" and part.failure["kind"] == "timeout" and part.failure["step"] == "clarify"
    assert len(llm.requests) == 1            # the readings call is not tried against a server that timed out
    assert "0.5 s" in part.failure_text()


def test_http_500_is_retried_once_then_fails_open(llm) -> None:
    llm.push(error_reply(500, "upstream exploded"), times=2)
    part = _run(llm, settings=llm.settings(max_retries=1))
    assert part.failure["kind"] == "http" and part.failure["status"] == 500
    assert "upstream exploded" in part.failure["message"]
    assert len(llm.requests) == 2            # one try plus max_retries=1


def test_a_server_without_tools_still_gives_readings(llm) -> None:
    llm.push(error_reply(400, "tools are not supported by this model"), structured_reply(READINGS))
    part = _run(llm)
    assert part.status == "partial" and part.failure["status"] == 400
    assert len(part.readings) == 2


def test_schema_violating_readings_fail_open_with_the_raw_reply(llm) -> None:
    llm.push(tool_call_reply(GOOD_ASK), structured_reply({"archetypes": [], "readings": "SELECT 1"}))
    part = _run(llm)
    assert part.status == "failed"
    assert part.failure["kind"] == "schema" and part.failure["step"] == "interpret"
    assert json.loads(part.failure["raw"]) == {"archetypes": [], "readings": "SELECT 1"}
    assert part.usage.calls == 2             # an unusable reply still cost tokens


def test_the_model_may_not_ask(llm) -> None:
    llm.push(text_reply("The top-selling product is the MacBook Pro."), structured_reply(READINGS))
    part = _run(llm)
    assert part.clarification.status == "none"
    assert part.clarification.text.startswith("The top-selling")


def test_busy_when_every_slot_is_taken_skips_instead_of_queueing(llm) -> None:
    settings = llm.settings(max_concurrent=1, timeout_s=5.0)
    client = ModelClient(settings)
    llm.push(Scripted(body=tool_call_reply(GOOD_ASK).body, delay_s=3.0), structured_reply(READINGS))
    first: dict = {}
    worker = threading.Thread(target=lambda: first.update(part=run_model(QUESTION, PROFILE, client=client)))
    worker.start()
    deadline = time.monotonic() + 5
    while not llm.requests and time.monotonic() < deadline:
        time.sleep(0.02)
    assert llm.requests, "the first check never reached the server"
    started = time.perf_counter()
    second = run_model(QUESTION, PROFILE, client=client)
    # a generous bound, below the 3 s call still in flight: a busy client answers at once, never queued behind it
    assert time.perf_counter() - started < 2.5
    assert second.failure["kind"] == "busy" and second.status == "failed"
    worker.join(10)
    assert first["part"].status == "ok" and len(first["part"].readings) == 2
    assert len(llm.requests) == 2            # the skipped check sent nothing


def test_no_key_means_off_and_no_request(llm) -> None:
    part = run_model(QUESTION, PROFILE, settings=ModelSettings(api_key="", base_url=llm.base_url))
    assert part.status == "off" and "OPENAI_API_KEY" in part.off
    assert llm.requests == []


def test_connection_refused_fails_open() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    settings = ModelSettings(api_key="k", base_url=f"http://127.0.0.1:{port}/v1", timeout_s=2, max_retries=0)
    part = run_model(QUESTION, PROFILE, settings=settings)
    assert part.failure["kind"] == "connection" and part.status == "failed"


def test_a_resubmit_is_not_asked_again_and_carries_the_answers(llm) -> None:
    readings = {"archetypes": [], "readings": [
        {"label": "Revenue for the chosen customer",
         "sql": "SELECT SUM(quantity) FROM order_items WHERE product_id = ? AND note = :answer"}]}
    llm.push(structured_reply(readings))
    part = _run(llm, answers={"entity": "Acme Corp"}, reply="  only completed orders  ")
    assert len(llm.requests) == 1 and "tools" not in llm.requests[0]
    assert part.answered and part.clarification is None
    content = llm.requests[0]["messages"][1]["content"]
    assert MEMORY_HINT in content and "Acme Corp" in content and "only completed orders" in content
    lint = part.readings[0].lint
    assert [f.replaced_with for f in lint.findings] == ["'Acme Corp'", "'only completed orders'"]
    assert "'Acme Corp'" in lint.render("postgres")


def test_an_internal_error_is_a_visible_failure_not_a_crash(llm) -> None:
    part = run_model(QUESTION, object(), settings=llm.settings())  # a "profile" the prompt cannot read
    assert part.status == "failed" and part.failure["kind"] == "internal" and part.failure["step"] == "model"
    assert "AttributeError" in part.failure["message"]
    assert llm.requests == []
