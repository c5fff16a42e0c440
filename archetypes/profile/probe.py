"""Live probes: the few aggregate queries that read what introspection cannot (each failure is a note).

Each probe runs through the caller's `Lookup` (read-only, time-limited, in the connection's dialect) and
returns what it read; `build` puts it on the profile. A probe that fails leaves the inferred profile as it
was and says why in a note, because a profile without a time range still answers most questions.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field, replace

from sqlglot import exp

from adapters.column_types import is_date_only
from adapters.schema import TableInfo
from archetypes.lexicon import SENTINEL_YEAR, VALIDITY_END_WORDS, VALIDITY_START_WORDS
from archetypes.naming import words
from archetypes.profile.fiscal import FiscalSource, fiscal_calendar, periods_query
from archetypes.profile.locales import ZONE_NAMES
from archetypes.profile.model import Fact, FiscalCalendar, Lookup, TimeColumn, ZoneColumn
from archetypes.profile.moments import as_datetime

TimeKey = tuple[str, str]   # (table, column)


@dataclass
class TimeRanges:
    """The facts' time columns with their earliest and latest values, one object per column."""

    columns: dict[TimeKey, TimeColumn] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def earliest(self) -> dt.datetime | None:
        return min((t.earliest for t in self._read() if t.earliest), default=None)

    @property
    def latest(self) -> dt.datetime | None:
        return max((t.latest for t in self._read() if t.latest), default=None)

    def _read(self) -> list[TimeColumn]:
        return [t for t in self.columns.values() if t.latest]


def read_time_ranges(facts: dict[str, Fact], lookup: Lookup) -> TimeRanges:
    """MIN and MAX of each fact's time column; also whether the engine returns it as a day or with a zone."""
    ranges = TimeRanges()
    for fact in facts.values():
        if fact.time is None or (fact.time.table, fact.time.column) in ranges.columns:
            continue
        key = (fact.time.table, fact.time.column)
        column = exp.column(fact.time.column, quoted=True)
        query = exp.select(exp.Min(this=column.copy()), exp.Max(this=column.copy())).from_(
            exp.to_table(fact.time.table, quoted=True))
        try:
            rows = lookup(query)
        except Exception as err:  # noqa: BLE001 - a failed lookup only means no time range
            ranges.columns[key] = fact.time
            ranges.notes.append(f"time range of {fact.time.table}.{fact.time.column} not read: "
                                f"{str(err).splitlines()[0]}")
            continue
        ranges.columns[key] = _with_range(fact.time, rows)
    return ranges


def _with_range(time: TimeColumn, rows: list[tuple]) -> TimeColumn:
    if not rows:
        return replace(time)
    low, high = rows[0][0], rows[0][1]
    read = replace(time, earliest=as_datetime(low), latest=as_datetime(high))
    if isinstance(high, dt.datetime) and high.tzinfo is not None:
        read.with_zone = True  # e.g. PostgreSQL timestamptz: compare with UTC-offset literals
    if isinstance(high, str) and len(high.strip()) == 10:
        read.date_only = True
    elif isinstance(high, dt.date) and not isinstance(high, dt.datetime):
        read.date_only = True
    return read


BRIEF_SAMPLE = 200  # rows whose start and end are compared to tell events from validity periods


def read_open_ends(tables: dict[str, TableInfo], lookup: Lookup) -> dict[str, str]:
    """{'table.column': 'null' or the far-future date}: the end dates that mark a row still valid (a missing end or
    a sentinel such as 9999-12-31), for tables with a start and an end date. A leave request's or a trip's end is
    always a real date: such a table holds events that took time, not rows valid for a while."""
    found: dict[str, str] = {}
    for table in tables.values():
        temporal = [c.name for c in table.columns if c.family == "temporal"]
        ends = [c for c in temporal if set(words(c)) & VALIDITY_END_WORDS]
        starts = [c for c in temporal if set(words(c)) & VALIDITY_START_WORDS and c not in ends]
        if not ends or not starts:
            continue
        column = exp.column(ends[0], quoted=True)
        query = exp.select(exp.Sub(this=exp.Count(this=exp.Star()), expression=exp.Count(this=column.copy())),
                           exp.Max(this=column.copy())).from_(exp.to_table(table.name, quoted=True))
        try:
            rows = lookup(query)
        except Exception:  # noqa: BLE001 - unread: the scope is judged by the column's type, as before probing
            continue
        missing, latest = rows[0] if rows else (0, None)
        latest_day = as_datetime(latest)
        if latest_day is not None and latest_day.year >= SENTINEL_YEAR:
            found[f"{table.name}.{ends[0]}"] = latest_day.date().isoformat()
        elif missing and not _brief(table.name, starts[0], ends[0], lookup):
            found[f"{table.name}.{ends[0]}"] = "null"
        elif latest_day is not None and (end := table.column(ends[0])) is not None and is_date_only(end.type) and \
                not _brief(table.name, starts[0], ends[0], lookup):
            # an exhibition's opening and closing days: every end a real day, the current rows those not closed
            # yet (a moment's end is an event's: a visit's departure)
            found[f"{table.name}.{ends[0]}"] = "dated"
    return found


def _brief(table: str, start: str, end: str, lookup: Lookup) -> bool:
    """Rows that mostly end within a day of their start (a ride's started_at and ended_at): events that took
    a while, whose missing end means one never finished, not a row still valid. Judged on a sample."""
    pair = [exp.column(start, quoted=True), exp.column(end, quoted=True)]
    query = exp.select(*pair).from_(exp.to_table(table, quoted=True)).where(
        exp.Not(this=exp.Is(this=pair[1].copy(), expression=exp.Null()))).limit(BRIEF_SAMPLE)
    try:
        rows = lookup(query)
    except Exception:  # noqa: BLE001 - unread: judged by the missing ends alone, as before
        return False
    spans = sorted((e - s).total_seconds() for s, e in ((as_datetime(a), as_datetime(b)) for a, b in rows)
                   if s is not None and e is not None)
    return bool(spans) and spans[len(spans) // 2] < 86_400


def read_fiscal(found: FiscalSource, lookup: Lookup) -> tuple[FiscalCalendar | None, str | None]:
    """The fiscal calendar from its table's rows, or None and a note saying why it was not read."""
    try:
        rows = lookup(periods_query(found))
    except Exception as err:  # noqa: BLE001 - a failed lookup only means no fiscal calendar
        return None, f"fiscal calendar {found[0].name} not read: {str(err).splitlines()[0]}"
    return fiscal_calendar(found, rows), None


def read_zones(columns: list[ZoneColumn], lookup: Lookup) -> list[ZoneColumn]:
    """Sampled values are bounded: the full distinct list of each zone column (small); the sample if it fails."""
    found = []
    for column in columns:
        query = exp.select(exp.column(column.column, quoted=True)).distinct().from_(
            exp.to_table(column.table, quoted=True)).where(exp.column(column.column, quoted=True).is_(exp.Null()).not_())
        try:
            rows = lookup(query)
        except Exception:  # noqa: BLE001 - keep the sampled zones
            found.append(column)
            continue
        zones = sorted({str(r[0]) for r in rows if str(r[0]) in ZONE_NAMES})
        found.append(replace(column, zones=tuple(zones)) if zones else column)
    return found
