"""The diagnose page: upload saved conversation traces and see where the clarification loop broke."""
from __future__ import annotations

import json

import streamlit as st

from adapters import CheckerError
from checker_app.diagnose import sample_traces
from checker_app.diagnose.view import diagnose_upload, finding_rows, pattern_rows
from checker_app.pages import draw

ctx = draw.setup()

st.title("Diagnose traces")
st.caption("Upload a saved conversation (JSON or JSONL chat messages with tool calls: AI SDK parts or OpenAI "
           "`tool_calls`). Questions are judged ambiguous by the rules on the first selected connection's "
           "schema, not by keywords.")

samples = {p.name: p for p in sample_traces()}
uploaded = st.file_uploader("Trace file", type=["json", "jsonl"], key="trace_file")
sample = st.selectbox("…or a sample trace", ["(none)", *samples], key="trace_sample")

name, data = None, None
if uploaded is not None:
    name, data = uploaded.name, uploaded.getvalue()
elif sample in samples:
    name, data = sample, samples[sample].read_bytes()

if data is not None and name is not None:
    db = ctx.databases[0]
    try:
        report = diagnose_upload(data, name, db)
    except CheckerError as err:
        st.error(ctx.say(err))
        st.stop()
    cols = st.columns(4)
    cols[0].metric("Conversations", report.conversations)
    cols[1].metric("Questions", report.questions)
    cols[2].metric("SQL calls", report.sql_calls)
    cols[3].metric("Findings", len(report.findings))
    if report.findings:
        st.error(f"**{len(report.findings)} finding(s)** in {name} (judged on {db.name})")
        st.dataframe(finding_rows(report), hide_index=True, width="stretch")
        for n, finding in enumerate(report.findings, 1):
            with st.expander(f"{n}. {finding.code} {finding.name} · {finding.where()}"):
                st.write(finding.detail)
                st.json(finding.evidence, expanded=True)
    else:
        st.success(f"**No findings** in {name}: every ambiguous question was clarified before SQL ran.")
    st.dataframe(pattern_rows(report), hide_index=True, width="stretch")
    st.download_button("Download findings (JSON)", json.dumps(report.to_dict(), ensure_ascii=False, indent=2),
                       file_name=f"{name}.findings.json", mime="application/json", key="diagnose_download")
