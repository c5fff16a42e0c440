"""Two periods a question compares (archetypes.period_pair), from a data file of cases: which month, quarter or
half each one is, and which is the baseline, with the year chosen the way an analyst would."""
from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from archetypes import calendar
from archetypes.period_pair import find_pair

CASES = Path(__file__).parent / "fixtures" / "archetypes" / "period_pairs.txt"


def cases() -> list[tuple[str, str, list[str]]]:
    rows = (line.split("|") for line in CASES.read_text(encoding="utf-8").splitlines()
            if line.strip() and not line.startswith("#"))
    return [(as_of.strip(), question.strip(), [p.strip() for p in periods]) for as_of, question, *periods in rows]


@pytest.mark.parametrize("as_of, question, expected", cases(), ids=lambda v: str(v)[:40])
def test_the_periods_compared(as_of: str, question: str, expected: list[str]) -> None:
    pair = find_pair(question.lower(), dt.date.fromisoformat(as_of))
    if expected == ["none"]:
        assert pair is None, (pair.before, pair.after) if pair else None
        return
    assert pair is not None, question
    assert [pair.before.label, pair.after.label] == expected
    for window in (pair.before, pair.after):  # whole calendar periods, [first day, first day after)
        assert window.start.day == 1 and window.end.day == 1 and window.end > window.start
    words = [question.lower()[a:b] for a, b in pair.spans]
    assert all(words), words


def test_a_period_is_the_whole_month_not_the_days_before_the_next() -> None:
    pair = find_pair("how did our sales change from october to november 2024?", dt.date(2025, 12, 22))
    assert pair is not None
    assert (pair.before.start, pair.before.end) == (dt.date(2024, 10, 1), dt.date(2024, 11, 1))
    assert (pair.after.start, pair.after.end) == (dt.date(2024, 11, 1), calendar.add_months(dt.date(2024, 11, 1), 1))
