"""The checker page: question in, every reading side by side, the clarification wizard at the bottom."""
from __future__ import annotations

import streamlit as st

from checker_app.pages import draw, model_draw, wizard_view
from checker_app.ui import intents, model_view
from checker_app.ui.state import PageState, choose_reading, finish_wizard, reopen_wizard, run_check

ctx = draw.setup()
state: PageState = st.session_state.setdefault("checker", PageState())
available = model_view.availability()


def chosen_engine() -> str:
    return st.session_state.get(model_draw.ENGINE_KEY) or "rules"


def ask(question: str) -> None:
    st.session_state["question_text"] = question
    draw.queue(intents.Check(question, chosen_engine()))


def submit() -> None:
    draw.queue(intents.Check(st.session_state.get("question_text") or "", chosen_engine()))


# a shared link (?q=...&engine=...) runs its question once
url_question, url_engine = st.query_params.get("q"), st.query_params.get("engine") or None
if url_question and (url_question, url_engine) != (state.url_question, state.url_engine):
    state.url_question, state.url_engine = url_question, url_engine
    engine, warning = model_view.engine_from_url(url_engine, available)
    st.session_state[model_draw.ENGINE_KEY] = engine
    draw.queue(intents.Check(url_question, engine, warning))

st.title("Ambiguity checker")
st.caption("Type a data question: see which shapes of ambiguity it has, the SQL of every reading, and what "
           "each returns on every engine, side by side.")

intent = st.session_state.pop("intent", None)
if isinstance(intent, intents.ModelReply) and not intent.text.strip():
    state.reply_open, state.reply_error = True, "type an answer"
elif isinstance(intent, intents.Check | intents.ModelReply | intents.Rerun):
    if isinstance(intent, intents.Check):
        question, engine, reply = intent.question, intent.engine or chosen_engine(), None
    elif isinstance(intent, intents.ModelReply):
        question, engine, reply = state.question, state.engine, intent.text
    elif intent.rules_only:
        question, engine, reply = state.question, "rules", None
    else:
        question, engine, reply = state.question, state.engine, state.reply
    options = model_view.options_for(ctx.options, engine, available, reply)
    asking = " and asking the model" if options.engine != "rules" else ""
    draw.with_progress(f"Running every reading on {len(ctx.databases)} engine(s){asking}", ctx.databases,
                       lambda dbs: run_check(state, question, dbs, options, ctx.secrets))
    state.link_warning = intent.warning if isinstance(intent, intents.Check) else None
    st.session_state["question_text"] = state.question
    if state.question:
        state.url_question = state.question
        st.query_params["q"] = state.question
        st.query_params["db"] = ",".join(db.name for db in ctx.databases)
        state.url_engine = options.engine if options.engine != "rules" else None
        if state.url_engine:  # the URL names the engine only when it is not the default
            st.query_params["engine"] = state.url_engine
        elif "engine" in st.query_params:
            del st.query_params["engine"]
elif intent == intents.Dismiss("check"):
    state.reset()
elif isinstance(intent, intents.Finish | intents.Pick):
    if not isinstance(intent, intents.Pick) or choose_reading(state, intent.reading_id):
        draw.with_progress("Running the anchored SQL", ctx.databases, lambda dbs: finish_wizard(
            state, dbs, model_view.options_for(ctx.options, state.engine, available), ctx.secrets))
elif intent == intents.Dismiss("anchored"):
    state.anchored_problem = None
elif isinstance(intent, intents.Reopen):
    reopen_wizard(state)
    if intent.plain_text and state.wizard is not None:
        state.wizard.plain_text = True

model_draw.engine_control(available)
st.session_state.setdefault("question_text", state.question)
with st.form("ask", border=False):
    st.text_input("Your data question", key="question_text", placeholder=ctx.examples[0])
    st.form_submit_button("Check", type="primary", on_click=submit)
st.caption("Examples for this database:" if ctx.examples_from_schema else "Examples from the articles:")
with st.container(horizontal=True, key="examples"):
    for example in ctx.examples:
        st.button(example, key=f"example_{example}", on_click=ask, args=(example,), type="tertiary")

if state.link_warning:
    st.warning(state.link_warning, icon=":material/block:")
if state.problem is not None:
    wizard_view.problem(ctx, state.problem)
answered = state.wizard is not None and not state.wizard.pending and (
    state.anchored is not None or state.anchored_problem is not None or state.tool_output is not None)
if state.report is not None and answered:
    with st.container(border=True, key="answers"):
        wizard_view.answers(ctx, state)
    st.subheader("Every reading, before your answer")
    st.caption(f"Before your answer: {draw.display.verdict_view(state.report).headline}.")
    draw.archetypes(state.report)
    model_draw.panel(ctx, state.report, "main", state, interactive=False)
    model_draw.comparison(ctx, state.report, "main")
elif state.report is not None:
    draw.report_header(ctx, state.report, pending=state.wizard_pending)
    model_draw.panel(ctx, state.report, "main", state)
    model_draw.comparison(ctx, state.report, "main")
    if state.wizard_pending:
        wizard_view.wizard(ctx, state)
if state.report is not None:
    draw.report_body(ctx, state.report, f"r{state.generation}")
