"""The checker page: question in, every reading side by side, the clarification wizard at the bottom."""
from __future__ import annotations

import streamlit as st

from checker_app.pages import draw, wizard_view
from checker_app.ui.display import EXAMPLES
from checker_app.ui.state import PageState, finish_wizard, reopen_wizard, run_check

ctx = draw.setup()
state: PageState = st.session_state.setdefault("checker", PageState())


def ask(question: str) -> None:
    st.session_state["question_text"] = question
    draw.queue("check", question)


def submit() -> None:
    draw.queue("check", st.session_state.get("question_text") or "")


# a shared link (?q=...) runs its question once
url_question = st.query_params.get("q")
if url_question and url_question != state.url_question:
    state.url_question = url_question
    draw.queue("check", url_question)

st.title("Ambiguity checker")
st.caption("Type a data question: see which shapes of ambiguity it has, the SQL of every reading, and what "
           "each returns on every engine, side by side.")

intent = st.session_state.pop("intent", None) or ()
action = intent[0] if intent else None
if action in ("check", "check_retry", "retry"):
    question = intent[1] if action == "check" else state.question
    with st.spinner(f"Running every reading on {len(ctx.databases)} engine(s)…"):
        run_check(state, question, ctx.databases, ctx.options, ctx.secrets)
    st.session_state["question_text"] = state.question
    if state.question:
        state.url_question = state.question
        st.query_params["q"] = state.question
        st.query_params["db"] = ",".join(db.name for db in ctx.databases)
elif action == "check_skip":
    state.reset()
elif action in ("finish", "anchored_retry"):
    with st.spinner("Running the anchored SQL…"):
        finish_wizard(state, ctx.databases, ctx.options, ctx.secrets)
elif action == "anchored_skip":
    state.anchored_problem = None
elif action in ("reopen", "anchored_plain"):
    reopen_wizard(state)
    if action == "anchored_plain" and state.wizard is not None:
        state.wizard.plain_text = True

if state.show_question_box:
    st.session_state.setdefault("question_text", state.question)
    with st.form("ask", border=False):
        st.text_input("Your data question", key="question_text", placeholder=EXAMPLES[0])
        st.form_submit_button("Check", type="primary", on_click=submit)
    st.caption("Examples from the articles:")
    for column, example in zip(st.columns(len(EXAMPLES)), EXAMPLES):
        column.button(example, key=f"example_{example}", on_click=ask, args=(example,), type="tertiary")
else:
    st.caption("A clarification is pending: answer it at the bottom of the page (or skip it) to ask another "
               "question.")

if state.problem is not None:
    wizard_view.problem(ctx, state.problem)
if state.report is not None:
    draw.report_header(ctx, state.report)
if state.wizard is not None and not state.wizard.pending:
    with st.container(border=True, key="answers"):
        wizard_view.answers(ctx, state)
    st.subheader("Every reading")
if state.report is not None:
    draw.report_body(ctx, state.report, f"r{state.generation}")
if state.wizard_pending:
    wizard_view.wizard(ctx, state)
