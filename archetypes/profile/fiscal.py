"""The fiscal calendar: a table of periods found by its columns' names, turned into periods from its rows."""
from __future__ import annotations

import datetime as dt
from typing import Any

from sqlglot import exp

from adapters.schema import TableInfo
from archetypes.naming import words
from archetypes.profile.model import FiscalCalendar, FiscalPeriod
from archetypes.profile.moments import as_date

FiscalSource = tuple[TableInfo, dict[str, str]]   # the table and {role: column}: start, end, year, quarter, label
_ROLES = ("start", "end", "year", "quarter", "label")


def fiscal_table(tables: dict[str, TableInfo]) -> FiscalSource | None:
    """A table of fiscal periods: named like a calendar, with a start and an end date per row."""
    for table in tables.values():
        names = set(words(table.name))
        if not names & {"fiscal", "calendar", "period", "periods"}:
            continue
        roles: dict[str, str] = {}
        for column in table.columns:
            parts = set(words(column.name))
            if column.family == "temporal" and parts & {"start", "begin", "from", "first"}:
                roles.setdefault("start", column.name)
            elif column.family == "temporal" and parts & {"end", "to", "last", "through", "until"}:
                roles.setdefault("end", column.name)
            elif "year" in parts:
                roles.setdefault("year", column.name)
            elif "quarter" in parts:
                roles.setdefault("quarter", column.name)
            elif column.family == "text" and parts & {"name", "label"}:
                roles.setdefault("label", column.name)
        if {"start", "end"} <= set(roles):
            return table, roles
    return None


def periods_query(found: FiscalSource) -> exp.Query:
    """The rows of the calendar table, one column per role (NULL for a role it lacks), by start date."""
    table, roles = found
    select = [exp.column(roles[k], quoted=True) if k in roles else exp.Null() for k in _ROLES]
    return exp.select(*select).from_(exp.to_table(table.name, quoted=True)).order_by(
        exp.column(roles["start"], quoted=True))


def fiscal_calendar(found: FiscalSource, rows: list[tuple]) -> FiscalCalendar | None:
    """The periods of the rows `periods_query` read (None when no row is a period)."""
    table, _ = found
    periods = []
    for start, end, year, quarter, label in rows:
        first, last = as_date(start), as_date(end)
        if first is None or last is None or last < first:
            continue
        periods.append((first, last, year, quarter, label))
    if not periods:
        return None
    # end dates are inclusive when a period's end is the day before the next start
    inclusive = any(b[0] == a[1] + dt.timedelta(days=1) for a, b in zip(periods, periods[1:])) or len(periods) == 1
    built = []
    for index, (first, last, year, quarter, label) in enumerate(periods):
        end = last + dt.timedelta(days=1) if inclusive else last
        year_text = _fy_label(year, first)
        quarter_text = f"Q{quarter}" if isinstance(quarter, int) or str(quarter).isdigit() else str(quarter or "")
        built.append(FiscalPeriod(year_text, quarter_text, str(label) if label is not None else
                                  f"{year_text} P{index + 1:02d}", first, end))
    return FiscalCalendar(table.name, tuple(built))


def _fy_label(value: Any, start: dt.date) -> str:
    if value is None:
        return f"FY{start.year}"
    text = str(value)
    return text if text.upper().startswith("FY") else f"FY{text}"
