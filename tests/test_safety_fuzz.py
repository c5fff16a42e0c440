"""Property-based fuzz of the question pipeline (hypothesis), with a fixed example budget for CI.

Whatever the question, answers and as-of date, `check` returns a report that serialises to JSON, or
raises the project's own error with one line: never OverflowError, RecursionError or a driver error.
A longer run: `python benchmarks/fuzz_questions.py --examples 10000`.
"""
from __future__ import annotations

import datetime as dt
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters import CheckerError
from checker_app.pipeline import CheckOptions, check
from checker_app.settings import databases_from_options

EXAMPLES = int(os.environ.get("CHECKER_FUZZ_EXAMPLES", "80"))
WORDS = [
    "What", "is", "the", "top-selling", "product", "How", "are", "sales", "trending", "revenue", "orders",
    "customers", "last", "month", "year", "week", "yesterday", "today", "since", "2024", "Q3", "daily", "by",
    "per", "average", "share", "never", "in", "EUR", "USD", "Acme", "O'Brien", "&", "best", "store", "city",
    "9999-12-31", "0001-01-01", "1900-01-01", "-", "%s", "$1", "?", ":name", "'", '"', ";", "DROP", "TABLE",
    "/*!", "*/", "pg_read_file", "💥", "ß", "Ω", "\t", "2999-12-31", "top", "10", "-1", "0", "1e308",
]
questions = st.one_of(
    st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join),
    st.text(min_size=0, max_size=80),
)
as_of_dates = st.one_of(st.none(), st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2999, 12, 31)))
answers = st.dictionaries(st.sampled_from(["ranking_metric", "timeframe", "entity", "unit", "nonsense"]),
                          st.sampled_from(["revenue", "units", "last_30_days", "all_time", "x", ""]), max_size=2)


@pytest.fixture(scope="module")
def demo_databases():
    return databases_from_options([])


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(question=questions, as_of=as_of_dates, chosen=answers, cap=st.integers(1, 4))
def test_check_never_crashes(demo_databases, question: str, as_of: dt.date | None, chosen: dict[str, str],
                             cap: int) -> None:
    try:
        report = check(question, demo_databases, CheckOptions(answers=chosen, as_of=as_of, cap=cap))
    except CheckerError as err:
        assert str(err) and "\n" not in str(err)
        return
    json.dumps(report.to_dict(), default=str)
    assert report.verdict in ("material", "benign", "clear", "unanswered", "partial")
