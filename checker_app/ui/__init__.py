"""The checker page's logic, without streamlit: configuration, wizard state, highlighting, exports,
the compare-SQL runner. The page scripts (checker_app/streamlit_app.py, checker_app/pages/) only draw
what these modules compute, so everything here is tested without a browser.
"""
