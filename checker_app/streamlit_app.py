"""Entry of the Streamlit app (`ambiguity-checker serve`): the checker page and the compare-SQL page."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

HERE = Path(__file__).resolve().parent

st.set_page_config(page_title="Ambiguity checker", page_icon=":material/alt_route:", layout="wide")
st.navigation([
    st.Page(HERE / "pages" / "checker.py", title="Check a question", icon=":material/alt_route:", default=True),
    st.Page(HERE / "pages" / "compare.py", title="Compare SQL", icon=":material/compare_arrows:", url_path="compare"),
]).run()
