"""Streamlit drawing of model mode: the engine control, the model panel, and rules vs model.

Every decision is made in `checker_app.ui.model_view` (tested without streamlit). The recovery buttons
of a failed or malformed model part record an intent (`draw.queue`) the page carries out on its next run:
Retry runs the check again, Skip runs it on the rules only, Answer in plain text sends the person's words
to the model as its clarification's answer (`CheckOptions(reply=...)`). No dead end, no page reload.
"""
from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from checker_app.pages.draw import Context, queue
from checker_app.report import Report
from checker_app.ui import highlight, intents
from checker_app.ui.model_view import (
    ENGINE_HELP,
    ENGINE_LABELS,
    ENGINES,
    Availability,
    ModelPanel,
    comparison_view,
    model_panel,
)

BOX = {"success": st.success, "warning": st.warning, "error": st.error, "info": st.info}
ICON = {"success": ":material/smart_toy:", "warning": ":material/warning:", "error": ":material/error:",
        "info": ":material/block:"}
ENGINE_KEY = "engine_choice"


def engine_control(available: Availability) -> str:
    """Rules | Model | Both; model and both are disabled, with the reason, when model mode is off."""
    if not available.enabled or st.session_state.get(ENGINE_KEY) not in ENGINES:
        st.session_state[ENGINE_KEY] = "rules"
    engine = st.radio("Read by", ENGINES, format_func=ENGINE_LABELS.get, horizontal=True, key=ENGINE_KEY,
                      disabled=not available.enabled, help=ENGINE_HELP)
    if available.enabled:
        st.caption(f"Model: {highlight.md(available.describe())}")
    else:
        st.caption(f":material/block: Model and Both are unavailable: {highlight.md(available.reason or '')}")
    return engine or "rules"


def _open_reply() -> None:
    st.session_state["checker"].reply_open = True


def _send_reply(key: str) -> None:
    queue(intents.ModelReply(st.session_state.get(key) or ""))


def _recovery(ctx: Context, view: ModelPanel, state: Any) -> None:
    """Retry, skip to the rules, or answer in plain text."""
    cols = st.columns([1, 1, 1, 2])
    cols[0].button("Retry", key="model_retry", icon=":material/refresh:", on_click=queue, args=(intents.Rerun(),),
                   help="Run the check again, model included")
    cols[1].button("Skip (rules only)", key="model_skip", icon=":material/skip_next:", on_click=queue,
                   args=(intents.Rerun(rules_only=True),), help="Run the check again on the rules alone")
    cols[2].button("Answer in plain text", key="model_plain", icon=":material/edit_note:", on_click=_open_reply,
                   help="Tell the model what you meant; it is not asked to clarify again")
    if state is not None and state.reply_open:
        key = f"model_reply_{state.generation}"
        st.text_area("Your answer, in plain text (the model gets it as the answer to its clarification)", key=key,
                     placeholder="e.g. rank by units sold, in 2024")
        st.button("Send answer", key="model_send", type="primary", on_click=_send_reply, args=(key,))
        if state.reply_error:
            st.error(state.reply_error)


def _archetypes(report: Report, view: ModelPanel) -> None:
    if view.status not in ("ok", "partial"):
        return  # it did not get that far
    if not view.archetypes:
        st.markdown("**Archetypes the model saw:** none")
        return
    above = any(a.source == "model" for a in report.archetypes)  # engine model: the header shows them
    flagged = [a for a in view.archetypes if not a.quote_found or not a.known]
    if above and not flagged:
        st.markdown("**Archetypes the model saw:** shown above, with its quotes marked in the question.")
        return
    st.markdown("**Archetypes the model saw**, with its quotes:")
    if not above:
        st.markdown(f"> {highlight.highlighted_html(report.question, view.archetypes)}", unsafe_allow_html=True)
    palette = highlight.colours(view.archetypes)
    for archetype in flagged if above else view.archetypes:
        aid = archetype.id
        swatch = (f'<span style="background:{palette[aid]};color:#111;padding:0 .4em;border-radius:.25em">'
                  f"{highlight.md(aid)}</span>")
        flags = []
        if not archetype.quote_found:
            flags.append(":orange[quote not in the question]")
        if not archetype.known:
            flags.append(":orange[not a registry archetype]")
        tail = f" · {' · '.join(flags)}" if flags else ""
        st.markdown(f"{swatch} on “{highlight.md(archetype.evidence)}”{tail}", unsafe_allow_html=True)


def _model_errors(ctx: Context, view: ModelPanel) -> None:
    """The model's own errors, apart from its archetypes and readings (never counted as either)."""
    if view.model_errors:
        st.markdown(f"**The model's errors** ({len(view.model_errors)}, not used):")
        for line in view.model_errors:
            st.caption(highlight.md(ctx.say(line)))
    for note in view.notes:
        st.caption(highlight.md(ctx.say(note)))


def _usage(view: ModelPanel, state: Any) -> None:
    seconds = f" · {view.elapsed_ms / 1000:.1f} s" if view.elapsed_ms else ""
    st.markdown(f"**Tokens this check:** {view.usage.text}{seconds}")
    if view.usage.rows:
        st.table(pd.DataFrame(view.usage.rows), hide_index=True)
    log = state.usage_log if state is not None else []
    if len(log) > 1:
        parts = ", ".join(f"{what} {int(usage.get('total_tokens', 0)):,}" for what, usage in log)
        st.caption(f"This question so far: {len(log)} checks, {state.tokens_spent:,} tokens ({parts}). "
                   "A clarification costs tokens too.")


def _clarification(ctx: Context, view: ModelPanel, interactive: bool) -> None:
    if view.answered:
        st.markdown("**Your answers reached the model** as its tool's output; it was not asked to clarify again.")
        if view.tool_output is not None:
            with st.expander("What the model received"):
                st.code(json.dumps(view.tool_output, ensure_ascii=False, indent=2), language="json")
    elif view.asks:
        st.markdown("**The model asks** (render_ask_user_question):")
        for ask in view.asks:
            quote = f" about “{highlight.md(ask['quote'])}”" if ask["quote"] else ""
            options = f" · options: {highlight.md(ask['options'])}" if ask["options"] else ""
            st.markdown(f"- {highlight.md(ask['question'])}{quote}{options}")
        if interactive:
            st.caption("Answer it in the clarification at the bottom of the page.")
    elif view.said:
        st.markdown(f"**The model did not ask**; it wrote: {highlight.md(view.said)}")
    elif view.malformed is None and view.status in ("ok", "partial"):
        st.markdown("**The model did not ask** for a clarification.")
    for line in view.dropped:
        st.caption(f"Dropped ask {highlight.md(line)}")


def panel(ctx: Context, report: Report, key: str, state: Any = None, interactive: bool = True) -> None:
    """Status, failure and why, the malformed call with its ways on, the model's asks, archetypes, tokens."""
    view = model_panel(report)
    if view is None:
        return
    with st.container(border=True, key=f"model_{key}"):
        st.markdown(f"#### Model · {highlight.md(view.model)}")
        st.caption(f"at {highlight.md(view.base_url)} · engine {view.engine}")
        BOX[view.box](f"**{ctx.say(view.headline)}**  \n{view.detail}", icon=ICON[view.box])
        for failure in view.failures:
            if failure.text not in view.headline:
                st.warning(ctx.say(failure.text), icon=":material/error:")
        for failure in view.failures:
            if failure.raw:
                with st.expander(f"What came back at the {failure.step} step"):
                    st.code(ctx.say(failure.raw), language="json")
        if view.malformed is not None:
            error = highlight.md(ctx.say(view.malformed.error))
            st.markdown(f"**Why it was refused:** {error}. The call's raw input:")
            st.code(ctx.say(view.malformed.raw), language=view.malformed.language, wrap_lines=True)
        if interactive and view.offers_recovery:
            _recovery(ctx, view, state)
        if view.status == "off":
            return
        left, right = st.columns(2)
        with left:
            _clarification(ctx, view, interactive)
            _archetypes(report, view)
            _model_errors(ctx, view)
        with right:
            _usage(view, state)


def comparison(ctx: Context, report: Report, key: str) -> None:
    """Engine both: archetypes found by rules only / both / model only, SQL that differs, answers that differ."""
    view = comparison_view(report)
    if view is None:
        return
    with st.container(border=True, key=f"comparison_{key}"):
        st.markdown("#### Rules vs model")
        st.markdown(highlight.md(view.summary))
        columns = st.columns(3)
        for column, title, ids in zip(columns, ("Rules only", "Both", "Model only"),
                                      (view.rules_only, view.both, view.model_only)):
            with column:
                st.markdown(f"**{title}**")
                st.markdown(", ".join(highlight.md(i) for i in ids) if ids else ":gray[none]")
        (st.error if view.results == "differ" else st.success if view.results == "same" else st.info)(
            view.results_text, icon=":material/compare_arrows:")
        if view.rows:
            st.markdown(f"**Each model reading against the rules' readings** (answers on {view.engine or '-'})")
            st.table(pd.DataFrame(view.rows), hide_index=True)
        if view.missing:
            st.warning("Rules readings whose answer no model reading gives: " + ", ".join(view.missing),
                       icon=":material/help:")
        if view.sql_text:
            st.caption(view.sql_text)
        for pair in view.pairs:
            with st.expander(f"Same answer, different SQL: “{pair.model_label}” (model) vs “{pair.rules_label}” "
                             "(rules)"):
                left, right = st.columns(2)
                left.caption("model")
                left.code(pair.model_sql, language="sql", wrap_lines=True)
                right.caption("rules")
                right.code(pair.rules_sql, language="sql", wrap_lines=True)
