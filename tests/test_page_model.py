"""Model mode on the checker page, driven by AppTest: the real `openai` SDK talks over real HTTP to the
scripted OpenAI-compatible server of tests/llm_server.py (on a free port), pointed at through the
environment the way `serve` passes it (OPENAI_API_KEY, OPENAI_BASE_URL). The database is the live demo
database on SQLite. Covered: engine both with the comparison, the model's ask answered in the wizard,
a timeout and an HTTP 500 failing open, a malformed tool call with Retry / Skip / Answer in plain text,
token usage, and model mode off without a key."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.llm_server import Scripted, ScriptedLLM, error_reply, structured_reply, tool_call_reply
from tests.support import (
    ASK,
    READINGS,
    TOP_PRODUCTS,
    TOP_SELLING,
    UNITS,
    button,
    checker_page,
    choice,
    detection,
    no_exception,
)

TIMEOUT = 60
MALFORMED = '{"questions": [{"question": '
UNITS_ONLY = {"archetypes": [{"id": "ranking_metric", "quote": "top-selling"}],
              "readings": [{"label": "Most units", "sql": UNITS}]}


def app(q: str | None = TOP_SELLING, engine: str | None = None) -> AppTest:
    return checker_page(q, engine, TIMEOUT)


def texts(elements) -> str:
    return "\n".join(str(e.value) for e in elements)


def model_readings(at: AppTest) -> list[str]:
    return [r.label for r in at.session_state["checker"].report.interpretations if r.source == "model"]


def last_user_message(server: ScriptedLLM) -> str:
    return server.requests[-1]["messages"][-1]["content"]


def test_both_shows_the_comparison_usage_and_marks_the_model_readings(llm_page) -> None:
    llm_page.push(tool_call_reply(ASK), structured_reply(READINGS))
    at = app(engine="both")
    no_exception(at)
    assert at.radio(key="engine_choice").value == "both" and at.query_params["engine"] == "both"
    assert "8 readings, 3 different answers" in at.error[0].value   # the verdict: on the rules' readings
    # the model panel: status, its archetype with the quote, tokens per check and per step
    assert any("The model read the question: 1 archetype(s), 4 reading(s)" in s.value for s in at.success)
    assert any(m.value == "#### Model · scripted\\-model" for m in at.markdown)
    assert f"at {llm_page.base_url}".replace(".", "\\.").replace(":", "\\:") in texts(at.caption)
    assert any("**Tokens this check:** 2 calls · 370 tokens (270 prompt, 100 completion)" in m.value
               for m in at.markdown)
    steps = next(t.value for t in at.table if "calls" in t.value.columns)
    assert steps["total tokens"].tolist() == [160, 210] and steps["calls"].tolist() == [1, 1]
    assert any("Rank products by which metric?" in m.value for m in at.markdown)
    # rules vs model: archetypes per side, answers, SQL
    assert any("#### Rules vs model" == m.value for m in at.markdown)
    assert any("unit" in m.value and "record_scope" in m.value for m in at.markdown)  # found by the rules only
    # the placeholder reading was refused: the answers are not called the same set
    assert any("cannot be compared in full: 1 model reading(s) gave no answer" in s.value for s in at.info)
    table = next(t.value for t in at.table if "model reading" in t.value.columns)
    assert table["model reading"].tolist() == ["Highest revenue", "Most units", "Most orders", "Completed orders only"]
    assert table["its answer"].tolist()[:3] == ["MacBook Pro", "USB-C Cable", "Phone Case"]
    assert table["same answer as (rules)"].tolist()[1].startswith("Units (sum of quantity)")
    assert set(table["SQL"]) == {"differs"}
    assert any(e.label.startswith("Same answer, different SQL: “Most units” (model)") for e in at.expander)
    # the readings grid: seven readings, the model's marked
    assert model_readings(at) == ["Highest revenue", "Most units", "Most orders", "Completed orders only"]
    assert any(m.value == "##### The rules' readings · 8" for m in at.markdown)
    assert any(m.value == "##### The model's readings · 4" for m in at.markdown)
    assert [t.label for t in at.tabs][-4:] == ["9. Highest revenue · model", "10. Most units · model",
                                          "11. Most orders · model", "12. Completed orders only · model"]
    badges = [m.value for m in at.markdown if "-badge[" in m.value]
    assert sum("model]" in b for b in badges) == 4 and sum("rules]" in b for b in badges) == 8, badges
    assert "not run: placeholder :status with no known value" in texts(at.caption)
    assert not any("did not answer" in w.value for w in at.warning)  # a refused SQL is not a failed run
    # the rules ask about ranking_metric and so does the model: one step, marked
    assert "the model asks the same" in texts(at.caption)
    # the rules also ask which currency treatment and which orders count: three steps in all
    assert at.session_state["checker"].wizard.total == 3

    # answering costs tokens too: the re-check asks the model with the answer, not the tool
    llm_page.push(structured_reply(UNITS_ONLY, usage=(90, 30)))
    units = next(o for o in choice(at).options if o.startswith("Units"))
    choice(at).set_value(units)
    button(at, "Submit answer").click().run()
    for _ in range(2):
        choice(at).set_value(choice(at).options[0])
        button(at, "Submit answer").click().run()
    no_exception(at)
    assert "tools" not in llm_page.requests[-1] and '"label": "units"' in last_user_message(llm_page)
    state = at.session_state["checker"]
    assert state.anchored is not None and state.anchored.answers["ranking_metric"] == "units"
    assert [r.source for r in state.anchored.interpretations] == ["rules", "model"]
    assert state.tokens_spent == 370 + 120
    assert "This question so far: 2 checks, 490 tokens (check 370, re-check with your answers 120)" in texts(at.caption)
    assert any("Your answers reached the model" in m.value for m in at.markdown)
    # the placeholder reading was refused: the answers are not called the same set
    assert any("cannot be compared in full: 1 model reading(s) gave no answer" in s.value for s in at.info)


def test_the_models_ask_is_answered_in_the_wizard(llm_page) -> None:
    scope = {"type": "choice", "header": "Products", "question": "Which products count?", "quote": "product",
             "archetype": None, "options": [{"label": "All products"}, {"label": "Active only"}]}
    llm_page.push(tool_call_reply({**ASK, "questions": [*ASK["questions"], scope], "suggestions": [[], []]}),
                  structured_reply(READINGS))
    at = app(engine="model")
    no_exception(at)
    assert {r.source for r in at.session_state["checker"].report.interpretations} == {"model"}
    wizard = at.session_state["checker"].wizard
    assert wizard.total == 2 and all(step["source"] == "model" for step in wizard.steps)
    assert "asked by the model about “top\\-selling”" in texts(at.caption)
    assert choice(at).options == ["Revenue", "Units", "Orders", "Other"]
    choice(at).set_value("Units")
    button(at, "Submit answer").click().run()
    choice(at).set_value("Active only")
    llm_page.push(structured_reply(UNITS_ONLY))
    button(at, "Submit answer").click().run()
    no_exception(at)
    state = at.session_state["checker"]
    # the rules take "Units" (their reading "units"); the rest reaches the model in the person's words
    assert state.anchored.answers == {"ranking_metric": "units"}
    assert state.sent_to_model == ["Which products count? Active only"]
    sent = last_user_message(llm_page)
    assert '"value": "units"' not in sent and '"label": "units"' in sent and "Which products count? Active only" in sent
    assert [r.label for r in state.anchored.interpretations] == ["Most units"]
    assert any("Sent to the model as a plain-text answer" in i.value for i in at.info)


def test_a_timeout_and_an_http_500_fail_open_with_the_reason(llm_page, monkeypatch) -> None:
    monkeypatch.setenv("CHECKER_MODEL_TIMEOUT", "1")
    llm_page.push(Scripted(body={}, delay_s=3))
    at = app(engine="model")
    no_exception(at)
    assert any("The model part failed: asking (render_ask_user_question) failed (timeout): no first token within 1 s: the model was still "
               "processing the prompt"
               in e.value and "the rules' readings are shown instead" in e.value for e in at.error)
    assert {m.value for m in at.metric} == TOP_PRODUCTS       # the rules' readings, unchanged
    assert model_readings(at) == []
    assert not any(w.value.startswith("model part failed") for w in at.warning)  # said once, in the panel
    assert "**Tokens this check:** none counted (no model call was answered)" in texts(at.markdown)

    llm_page.push(error_reply(500, "model server down"))
    button(at, "Retry").click().run()
    no_exception(at)
    assert any("failed (http): HTTP 500: model server down" in e.value for e in at.error)
    assert {m.value for m in at.metric} == TOP_PRODUCTS
    assert len(llm_page.requests) == 2

    button(at, "Skip (rules only)").click().run()
    no_exception(at)
    state = at.session_state["checker"]
    assert state.engine == "rules" and state.report.model is None
    assert "engine" not in at.query_params and at.query_params["q"] == TOP_SELLING
    assert {m.value for m in at.metric} == TOP_PRODUCTS and len(llm_page.requests) == 2


def test_a_malformed_tool_call_shows_its_raw_input_and_every_way_on(llm_page) -> None:
    llm_page.push(tool_call_reply(MALFORMED), structured_reply(READINGS))
    at = app(engine="model")
    no_exception(at)
    assert any("The model part partly failed: its clarification call (render_ask_user_question) was malformed"
               in w.value for w in at.warning)
    assert any("**Why it was refused:** tool input is not valid JSON" in m.value for m in at.markdown)
    assert any(c.value == MALFORMED for c in at.code)                   # the raw input, as sent
    assert {"Retry", "Skip (rules only)", "Answer in plain text"} <= {b.label for b in at.button}
    assert len(model_readings(at)) == 4                                 # the readings still came

    llm_page.push(tool_call_reply(MALFORMED), structured_reply(READINGS))
    button(at, "Retry").click().run()                                   # run again: asks again
    no_exception(at)
    assert len(llm_page.requests) == 4 and "tools" in llm_page.requests[2]
    assert any(c.value == MALFORMED for c in at.code)

    button(at, "Skip (rules only)").click().run()                       # the rules alone
    no_exception(at)
    assert len(llm_page.requests) == 4 and model_readings(at) == []
    assert {m.value for m in at.metric} == TOP_PRODUCTS
    button(at, "Skip the clarification").click().run()

    llm_page.push(tool_call_reply(MALFORMED), structured_reply(READINGS))
    at.button(key="FormSubmitter:ask-Check").click().run()              # the engine control still says model
    no_exception(at)
    assert any(c.value == MALFORMED for c in at.code)
    button(at, "Answer in plain text").click().run()
    button(at, "Send answer").click().run()
    assert any(e.value == "type an answer" for e in at.error) and len(llm_page.requests) == 6
    at.text_area(key=f"model_reply_{at.session_state['checker'].generation}").set_value("rank them by units sold")
    llm_page.push(structured_reply(UNITS_ONLY))
    button(at, "Send answer").click().run()
    no_exception(at)
    assert "tools" not in llm_page.requests[-1] and "rank them by units sold" in last_user_message(llm_page)
    state = at.session_state["checker"]
    assert state.reply == "rank them by units sold" and state.wizard is None   # answered: not asked again
    assert state.report.model.tool_output.answers[0].freeText == "rank them by units sold"
    assert model_readings(at) == ["Most units"] and {m.value for m in at.metric} == {"USB-C Cable"}
    assert any("answered: one reading, following your answer" in s.value for s in at.success)
    assert any("Your answers reached the model" in m.value for m in at.markdown)
    assert ("This question so far: 4 checks, 1,320 tokens (check 370, check 370, check 370, check with your "
            "plain-text answer 210)") in texts(at.caption)


def test_model_mode_off_without_a_key(llm_page, monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY")
    at = app(engine="both")
    no_exception(at)
    control = at.radio(key="engine_choice")
    assert control.disabled and control.value == "rules"
    assert "Model and Both are unavailable: model mode is off\\: OPENAI\\_API\\_KEY is not set" in texts(at.caption)
    assert any("the link asks for engine 'both', but model mode is off" in w.value for w in at.warning)
    assert {m.value for m in at.metric} == TOP_PRODUCTS
    assert at.session_state["checker"].report.model is None and "engine" not in at.query_params
    assert llm_page.requests == []


# -- the logic the page draws (no streamlit, no server) --------------------------------------------

def test_availability_links_and_options() -> None:
    from checker_app.pipeline import CheckOptions
    from checker_app.ui import model_view

    off = model_view.availability({})
    assert not off.enabled and off.reason == "model mode is off: OPENAI_API_KEY is not set"
    bad = model_view.availability({"OPENAI_API_KEY": "k", "CHECKER_MODEL_TIMEOUT": "soon"})
    assert not bad.enabled and "CHECKER_MODEL_TIMEOUT='soon' is not a number" in bad.reason
    on = model_view.availability({"OPENAI_API_KEY": "k", "OPENAI_BASE_URL": "http://127.0.0.1:9/v1"})
    assert on.enabled and on.describe() == "gpt-4o-mini at http://127.0.0.1:9/v1" and "k" not in on.describe()
    assert model_view.engine_from_url(None, on) == ("rules", None)
    assert model_view.engine_from_url("Both", on) == ("both", None)
    assert model_view.engine_from_url("both", off)[0] == "rules"
    assert "not one of rules, model, both" in model_view.engine_from_url("gpt", on)[1]
    options = model_view.options_for(CheckOptions(cap=5), "both", on, "  by units ")
    assert (options.engine, options.reply, options.cap, options.model_settings) == ("both", "by units", 5, on.settings)
    assert model_view.options_for(CheckOptions(), "model", off).engine == "rules"


def test_answers_go_to_the_rules_when_they_can_and_to_the_model_in_words() -> None:
    from checker_app.clarify import Answer, Option
    from checker_app.ui import model_view

    rules = [detection(d) for d in (
        {"id": "ranking_metric", "clarification": {"type": "choice", "question": "By?", "options": [
            {"label": "Revenue", "value": "revenue"}]},
         "readings": [{"value": "revenue", "label": "Revenue"}, {"value": "units", "label": "Units"}]},
        {"id": "entity", "clarification": {"type": "query_choice", "question": "Which?", "sql": "SELECT 1"},
         "readings": []},
        {"id": "timeframe", "source": "model"})]
    accept = model_view.rules_accept(model_view.rules_values(rules))
    assert accept("ranking_metric", "Units") == "units" and accept("ranking_metric", "margin") is None
    assert accept("entity", "Acme Corp") == "Acme Corp" and accept("timeframe", "2024") is None
    answers = [Answer(type="choice", question="Rank by?", choice=Option(label="Units"),
                      archetype="ranking_metric"),
               Answer(type="choice", question="Which year?", choice=Option(label="2024"), archetype="timeframe"),
               Answer(type="choice", question="Rank by?", freeText="gross margin", archetype="ranking_metric",
                      notes="we always mean margin"),
               Answer(type="query_choice", question="Which Acme?", choice=Option(label="Acme Corp"),
                      archetype="entity")]
    anchored, text = model_view.route_answers(answers, accept)
    assert anchored == {"ranking_metric": "units", "entity": "Acme Corp"}
    assert text == ["Which year? 2024", "Rank by? gross margin (notes: we always mean margin)"]


def test_the_model_panel_of_an_off_and_a_malformed_part() -> None:
    import datetime as dt

    from checker_app.report import Report
    from checker_app.ui import model_view

    def report(model: dict, notes: list[str]) -> Report:
        part = {"off": None, "failure": None, "failures": [], "settings": {}, "archetypes": [], "clarification": None,
                "answered": False, "tool_output": None, "readings": [], "capped": False, "usage": {},
                "elapsed_ms": 0.0, **model}
        return Report(question="q", as_of=dt.date(2025, 1, 1), engines=[], archetypes=[], interpretations=[],
                      divergent=None, distinct_answers=0, notes=notes, engine="model", model=part)

    off = report({"status": "off", "off": "model mode is off: OPENAI_API_KEY is not set", "settings": {}},
                 ["model mode is off: OPENAI_API_KEY is not set; showing the rules' result"])
    view = model_view.model_panel(off)
    assert view.box == "info" and "OPENAI_API_KEY is not set" in view.headline and not view.offers_recovery
    assert model_view.model_note(off) == off.notes[0]
    from checker_app.ui import exports

    assert "Model (? at ?): off: model mode is off" in exports.markdown_summary(off)  # no settings read: none shown
    settings = {"model": "m", "base_url": "u", "timeout_s": 30.0, "max_retries": 0, "enabled": True, "max_tokens": {},
                "temperature": None, "stream": False}
    malformed = report({"status": "failed", "settings": settings,
                        "failures": [{"step": "clarify", "kind": "malformed", "message": "bad"},
                                     {"step": "interpret", "kind": "schema", "message": "no readings", "raw": "{}"}],
                        "clarification": {"status": "malformed", "error": "bad", "raw_input": '{"questions": 1}'},
                        "usage": {"calls": 2, "prompt_tokens": 10, "completion_tokens": 5,
                                  "by_step": {"clarify": {"calls": 1, "attempts": 1, "prompt_tokens": 10, "completion_tokens": 5,
                                                          "total_tokens": 15}}}}, [])
    view = model_view.model_panel(malformed)
    assert view.box == "error" and view.headline == ("The model part failed: readings (structured output) failed "
                                                     "(schema): no readings")
    assert view.malformed.raw == '{\n  "questions": 1\n}' and view.malformed.language == "json"
    assert [f.step for f in view.failures] == ["interpret"] and view.offers_recovery
    assert view.usage.text == "2 calls · 15 tokens (10 prompt, 5 completion)"
    assert view.usage.rows == [{"step": "ask (tool)", "calls": 1, "failed attempts": 0, "prompt tokens": 10,
                                "completion tokens": 5, "total tokens": 15, "first token (s)": "—",
                                "seconds": "0.0"}]
    assert model_view.raw_text('{"questions": [') == ('{"questions": [', "text")
