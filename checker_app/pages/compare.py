"""The compare-SQL page: one statement or several side by side on every engine, with the schema's other
mappings of each, the repair pass (candidates shown with their SQL and result, one click to use one) and
a verdict."""
from __future__ import annotations

import streamlit as st

from adapters.dialects import ENGINE_DIALECTS
from checker_app.pages import draw
from checker_app.ui.compare import EXAMPLE_SQL, compare, expand_statements, split_statements
from checker_app.ui.intents import UseCandidate

ctx = draw.setup()

st.title("Compare SQL")
st.caption("Paste one SQL statement (for example what a model wrote), or several separated by semicolons; a "
           "leading `-- comment` names a statement. Each runs on every engine with the repair pass, next to the "
           "statements that answer it through the schema's other mappings.")

intent = st.session_state.pop("intent", None)
run_now = False
if isinstance(intent, UseCandidate):  # a repair candidate was chosen: it becomes the statement
    st.session_state["compare_sql"] = f"-- {intent.label or 'chosen candidate'}\n{intent.sql};\n"
    run_now = True

st.session_state.setdefault("compare_sql", EXAMPLE_SQL)
with st.form("compare", border=False):
    st.text_area("SQL", height=220, key="compare_sql")
    read = st.selectbox("Written in", ["generic", *ENGINE_DIALECTS], key="compare_dialect")
    expand = st.checkbox("Also run each statement through the schema's other mappings (split-off columns, "
                         "precomputed aggregate tables)", value=True, key="compare_expand")
    submitted = st.form_submit_button("Compare", type="primary")

if submitted or run_now:
    dialect = None if read == "generic" else read
    statements = split_statements(st.session_state.get("compare_sql") or "")
    if not statements:
        st.session_state["comparison"] = None
        st.warning("Paste a SQL statement to run.")
    else:
        if expand:
            statements = expand_statements(statements, ctx.databases, dialect)
        box: dict[str, object] = {}
        draw.with_progress(f"Running {len(statements)} statement{'s' if len(statements) != 1 else ''} on "
                           f"{len(ctx.databases)} engine(s)", ctx.databases,
                           lambda dbs: box.update(result=compare(statements, dbs, ctx.options.limits, dialect,
                                                                 secrets=ctx.secrets)))
        st.session_state["comparison"] = box.get("result")

comparison = st.session_state.get("comparison")
if comparison is not None:
    draw.verdict(comparison.view(), comparison.items, "compare")
    draw.readings(ctx, comparison.items, comparison.engines, "cmp", comparison.rejected)
    draw.chart(comparison.items, "compare")
