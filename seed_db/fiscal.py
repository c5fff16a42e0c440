"""A 4-4-5 retail calendar, so "by month" has two defensible readings (calendar or fiscal).

Fiscal year N starts on the first Sunday on or after 1 February of calendar year N (the NRF
convention names the year by the calendar year it starts in) and ends the Saturday before the
next one. Each quarter has periods of 4, 4 and 5 weeks; in a 53-week year the extra week goes to
period 12. Periods are named after the calendar month they mostly cover ("FY2024 P02 Mar" is
2024-03-03..2024-03-30), which is exactly why fiscal and calendar March totals differ.
"""

from __future__ import annotations

from datetime import date, timedelta
from typing import NamedTuple

_WEEKS = (4, 4, 5) * 4
_MONTHS = ("Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec", "Jan")


class FiscalPeriod(NamedTuple):
    fiscal_year: int
    fiscal_quarter: int
    fiscal_period: int
    period_name: str
    start_date: date
    end_date: date  # inclusive


def fiscal_year_start(year: int) -> date:
    """First Sunday on or after 1 February of ``year``."""
    feb1 = date(year, 2, 1)
    return feb1 + timedelta(days=(6 - feb1.weekday()) % 7)


def fiscal_year_of(day: date) -> int:
    """The fiscal year containing ``day``."""
    return day.year if day >= fiscal_year_start(day.year) else day.year - 1


def fiscal_periods(first: date, last: date) -> list[FiscalPeriod]:
    """All periods of every fiscal year that overlaps ``first``..``last`` (whole years, in order)."""
    periods: list[FiscalPeriod] = []
    for year in range(fiscal_year_of(first), fiscal_year_of(last) + 1):
        start = fiscal_year_start(year)
        weeks_in_year = (fiscal_year_start(year + 1) - start).days // 7
        for index, weeks in enumerate(_WEEKS, start=1):
            if index == 12:
                weeks += weeks_in_year - 52
            end = start + timedelta(weeks=weeks) - timedelta(days=1)
            periods.append(
                FiscalPeriod(year, (index - 1) // 3 + 1, index, f"FY{year} P{index:02d} {_MONTHS[index - 1]}", start, end)
            )
            start = end + timedelta(days=1)
        assert start == fiscal_year_start(year + 1)
    return periods
