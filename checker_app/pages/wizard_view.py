"""Streamlit drawing of the clarification wizard, the answers after it, and problems with their ways on.

The state machine is `checker_app.ui.wizard.Wizard` (tested without streamlit); callbacks here only pass
the widgets' values to it, and `draw.queue` hands anything slow (the anchored re-check) to the page.
"""
from __future__ import annotations

import json
from typing import Any, Literal

import streamlit as st

from checker_app.pages.draw import Context, notes, queue, report_body
from checker_app.ui import display, highlight, intents


def _page_state() -> Any:
    return st.session_state["checker"]


def _after_step() -> None:
    wiz = _page_state().wizard
    if wiz is not None and wiz.status == "done":
        queue(intents.Finish())


def _wiz_submit(key: str) -> None:
    wiz = _page_state().wizard
    if wiz is None:
        return
    choice = st.session_state.get(f"{key}_choice")
    selected = list(choice) if isinstance(choice, (list, tuple)) else ([choice] if choice else [])
    wiz.submit(selected, other_text=st.session_state.get(f"{key}_other") or "",
               notes=st.session_state.get(f"{key}_notes") or "")
    _after_step()


def _wiz_plain(key: str) -> None:
    wiz = _page_state().wizard
    if wiz is None:
        return
    wiz.submit_plain(st.session_state.get(f"{key}_plain") or "", st.session_state.get(f"{key}_notes") or "")
    _after_step()


def _wiz_skip_step() -> None:
    wiz = _page_state().wizard
    if wiz is not None:
        wiz.skip_step()
        _after_step()


def _wiz_dismiss() -> None:
    wiz = _page_state().wizard
    if wiz is not None:
        wiz.dismiss()


def _wiz_mode(plain: bool) -> None:
    wiz = _page_state().wizard
    if wiz is not None:
        wiz.plain_text = plain
        wiz.error = None


def _wiz_refetch() -> None:
    wiz = _page_state().wizard
    if wiz is not None:
        wiz.retry()


def _asked_by(raw: dict[str, Any]) -> str:
    """Who asks this step: the model (its render_ask_user_question call), the rules, or both."""
    quote = f" about “{highlight.md(raw['quote'])}”" if raw.get("quote") else ""
    if raw.get("source") == "model":
        return f":violet[:material/smart_toy: asked by the model{quote}]"
    if raw.get("also_model"):
        return ":gray[asked by the rules; the model asks the same]"
    return ""


def wizard(ctx: Context, state: Any) -> None:
    """One question per step; choice or live query_choice options, "Other" with text, notes."""
    from checker_app.clarify import OTHER_LABEL, ClarificationError

    wiz = state.wizard
    key = f"wiz{state.generation}_{wiz.index}"
    with st.container(border=True, key="wizard"):
        st.markdown(f"#### Clarify before trusting a number · question {wiz.index + 1} of {wiz.total}")
        try:
            question = wiz.question()
            malformed = None
        except ClarificationError as err:
            question, malformed = None, ctx.say(err)
        if malformed:
            st.error(f"This clarification cannot be shown: {malformed}. Retry, skip it, or answer in plain text.")
            st.json(wiz.raw, expanded=False)
            wiz.plain_text = True
        else:
            if wiz.needs_fetch():
                with st.spinner("Fetching the options from the database…"):
                    wiz.load_options(ctx.databases, ctx.secrets)
                question = wiz.question()
            asked_by = _asked_by(wiz.raw)
            if question.header or asked_by:
                st.caption(" · ".join(x for x in (highlight.md(question.header), asked_by) if x))
            st.markdown(f"**{highlight.md(question.question)}**")
            fetch = wiz.fetched.get(wiz.index)
            if fetch is not None and fetch.status == "failed":
                st.error(ctx.say(fetch.message) + " Type your answer under “Other”, or retry.", icon=":material/error:")
                st.code(str(wiz.raw.get("sql") or ""), language="sql")
            elif fetch is not None and fetch.status == "empty":
                st.warning(fetch.message + " Type your answer under “Other”.", icon=":material/search_off:")
        if wiz.plain_text:
            st.text_area("Your answer, in plain text", key=f"{key}_plain")
            st.text_area("Notes (optional)", key=f"{key}_notes")
        else:
            labels = [o.label for o in question.options] + [OTHER_LABEL]
            if question.multiSelect:
                st.multiselect("Choose one or more", labels, key=f"{key}_choice", format_func=display.choice_words)
            else:
                st.radio("Choose one", labels, index=None, key=f"{key}_choice", format_func=display.choice_words)
            st.text_input("Other: your own answer", key=f"{key}_other",
                          placeholder="Used when you choose Other (or to add to your choice)")
            st.text_area("Notes (optional)", key=f"{key}_notes", height=68)
        if wiz.error:
            st.error(ctx.say(wiz.error))
        cols = st.columns(4)
        if wiz.plain_text:
            cols[0].button("Submit answer", type="primary", key=f"{key}_submit_plain", on_click=_wiz_plain,
                           args=(key,))
            if not malformed:
                cols[1].button("Back to the options", key=f"{key}_options", on_click=_wiz_mode, args=(False,))
        else:
            cols[0].button("Submit answer", type="primary", key=f"{key}_submit", on_click=_wiz_submit, args=(key,))
            cols[1].button("Answer in plain text", key=f"{key}_to_plain", on_click=_wiz_mode, args=(True,))
        if malformed:
            cols[1].button("Retry", key=f"{key}_retry", on_click=queue, args=(intents.Rerun(),))
        elif wiz.fetched.get(wiz.index) is not None and not wiz.fetched[wiz.index].ok:
            cols[2].button("Retry the options", key=f"{key}_refetch", on_click=_wiz_refetch)
        cols[3 if not malformed else 2].button("Skip this question", key=f"{key}_skip", on_click=_wiz_skip_step)
        st.button("Skip the clarification", key=f"{key}_dismiss", on_click=_wiz_dismiss, type="tertiary")


def answers(ctx: Context, state: Any) -> None:
    """After an answer: the answered box (the answer in words) in place of the verdict, the anchored reading,
    the tool output of the article collapsed."""
    anchored = state.anchored
    if anchored is not None and state.anchored_problem is None:
        words = display.answered_words(anchored, state.report.archetypes if state.report else ())
        view = display.verdict_view(anchored)
        st.success(f"**Answered: {highlight.md(words)}**  \n{highlight.md(view.detail)}", icon=":material/check_circle:")
    else:
        st.subheader("Your answer")
    for plain in state.plain_answers:
        st.info(ctx.say(f"Kept as plain text (no reading matches it, so nothing was anchored): {plain}"))
    if state.sent_to_model:
        st.info(ctx.say("Sent to the model as a plain-text answer (the rules cannot anchor it):  \n"
                        + "  \n".join(state.sent_to_model)), icon=":material/smart_toy:")
    if state.anchored_problem is not None:
        problem(ctx, state.anchored_problem, prefix="anchored")
    elif anchored is not None:
        from checker_app.pages import model_draw

        notes(ctx, anchored)
        model_draw.panel(ctx, anchored, f"anchored{state.generation}", state, interactive=False)
        model_draw.comparison(ctx, anchored, f"anchored{state.generation}")
        report_body(ctx, anchored, f"anchored{state.generation}", state.tool_output)
    elif state.tool_output is not None and not state.tool_output.get("answers"):
        st.info("No answer given: the readings below stand as they are.")
    if state.tool_output is not None:
        with st.expander("Tool output (what a model receives: answers, plus memoryHint only when you typed "
                         "text or notes)", expanded=False):
            st.code(json.dumps(state.tool_output, ensure_ascii=False, indent=2), language="json")
    st.button("Answer the clarification again", key=f"reopen{state.generation}", on_click=queue, args=(intents.Reopen(),))


def problem(ctx: Context, problem: Any, prefix: Literal["check", "anchored"] = "check") -> None:
    """What went wrong, with every way on (never a dead end)."""
    st.error(ctx.say(display.problem_words(problem.kind, problem.message)), icon=":material/error:")
    if not problem.actions:
        return
    labels = {"retry": "Retry", "skip": "Skip", "plain": "Answer in plain text"}
    cols = st.columns(len(problem.actions) or 1)
    for col, action in zip(cols, problem.actions):
        col.button(labels[action], key=f"{prefix}_{action}", on_click=queue, args=(intents.for_problem(prefix, action),))
