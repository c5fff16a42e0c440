"""Entry of the Streamlit app (`ambiguity-checker serve`): the checker page, compare SQL, diagnose traces."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent
PAGES = HERE / "views" if (HERE / "views").is_dir() else HERE / "pages"  # `serve` runs a copy with views/

st.set_page_config(page_title="Ambiguity checker", page_icon=":material/alt_route:", layout="wide")
pages = [
    st.Page(PAGES / "checker.py", title="Check a question", icon=":material/alt_route:", default=True),
    st.Page(PAGES / "compare.py", title="Compare SQL", icon=":material/compare_arrows:", url_path="compare"),
]
if (PAGES / "diagnose.py").exists():  # the trace diagnostic's page, when installed
    pages.append(st.Page(PAGES / "diagnose.py", title="Diagnose traces", icon=":material/troubleshoot:",
                         url_path="diagnose"))
st.navigation(pages).run()
