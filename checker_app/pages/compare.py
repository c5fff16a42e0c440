"""The compare-SQL page: two or more statements side by side on every engine, with repair and a verdict."""
from __future__ import annotations

import streamlit as st

from checker_app.pages import draw
from checker_app.ui.compare import EXAMPLE_SQL, compare, expand_statements, split_statements

ctx = draw.setup()

st.title("Compare SQL")
st.caption("Paste two or more SQL statements (for example what a model wrote), separated by semicolons; a "
           "leading `-- comment` names a statement. Each runs on every engine, with the repair pass.")

with st.form("compare", border=False):
    st.text_area("SQL statements", value=EXAMPLE_SQL, height=260, key="compare_sql")
    read = st.selectbox("Written in", ["generic", "sqlite", "postgres", "mysql"], key="compare_dialect")
    expand = st.checkbox("Also run each statement through the schema's other mappings (split-off columns, "
                         "precomputed aggregate tables)", value=True, key="compare_expand")
    submitted = st.form_submit_button("Compare", type="primary")

if submitted:
    statements = split_statements(st.session_state.get("compare_sql") or "")
    if expand and statements:
        statements = expand_statements(statements, ctx.databases, None if read == "generic" else read)
    if len(statements) < 2:
        st.session_state["comparison"] = None
        st.warning("Paste at least two statements, separated by semicolons"
                   + (" (this schema offers no other mapping for the one given)." if expand else "."))
    else:
        with st.spinner(f"Running {len(statements)} statements on {len(ctx.databases)} engine(s)…"):
            st.session_state["comparison"] = compare(statements, ctx.databases, ctx.options.limits,
                                                     None if read == "generic" else read, secrets=ctx.secrets)

comparison = st.session_state.get("comparison")
if comparison is not None:
    draw.verdict(comparison.view(), comparison.items)
    draw.readings(ctx, comparison.items, comparison.engines, "cmp", comparison.rejected)
    draw.chart(comparison.items)
