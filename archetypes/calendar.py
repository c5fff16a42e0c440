"""Time boundaries computed in Python, so every engine gets the same UTC literals.

Local dates are half-open ranges [start, end). A zone turns a local date into the UTC instant its day
begins (zoneinfo, daylight saving included); the SQL then compares timestamps with plain literals.

Dates near 0001-01-01 or 9999-12-31 (an as-of date from data with a sentinel timestamp) are clamped to
the calendar's ends; anything that still cannot be computed raises `CalendarRangeError` (one line),
never OverflowError.
"""
from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar
from zoneinfo import ZoneInfo

from archetypes.errors import ArchetypeError
from archetypes.profile import FiscalCalendar

DAY = dt.timedelta(days=1)
F = TypeVar("F", bound=Callable[..., Any])


class CalendarRangeError(ArchetypeError):
    """A date computation left the range Python's calendar can hold (years 1 to 9999)."""


def _in_range(fn: F) -> F:
    """OverflowError or an out-of-range date becomes CalendarRangeError."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except (OverflowError, ValueError) as err:
            if isinstance(err, ValueError) and "range" not in str(err):
                raise
            raise CalendarRangeError(f"dates out of range ({err}): use an as-of date between 1900 and 2999") from None
    return wrapper  # type: ignore[return-value]


def shift(day: dt.date, delta: dt.timedelta) -> dt.date:
    """day + delta, clamped to the calendar's first and last day."""
    try:
        return day + delta
    except OverflowError:
        return (dt.datetime.max if isinstance(day, dt.datetime) else dt.date.max) if delta > dt.timedelta(0) else \
            (dt.datetime.min if isinstance(day, dt.datetime) else dt.date.min)

# reading value -> label, for the timeframe archetype (order = the order offered)
WINDOWS: dict[str, str] = {
    "last_7_days": "Last 7 days",
    "last_30_days": "Last 30 days",
    "last_90_days": "Last 90 days",
    "last_quarter": "Last full quarter",
    "year_to_date": "Year to date",
    "all_time": "All time",
}


@dataclass(frozen=True)
class Window:
    """Local dates [start, end); label for people."""

    start: dt.date
    end: dt.date
    label: str

    @property
    def open_start(self) -> bool:
        """'before 1997': no start named (OPEN_START stands for it)."""
        return self.start <= OPEN_START

    def dates(self) -> str:
        """'2024-01-01 to 2024-12-31', '2024-03-05', 'before 1997-01-01'."""
        last = self.end - DAY
        if self.open_start:
            return f"before {self.end.isoformat()}"
        return self.start.isoformat() if last <= self.start else f"{self.start.isoformat()} to {last.isoformat()}"


OPEN_START = dt.date(1900, 1, 1)  # the start of a window that names only its end ('before 1997')


@dataclass(frozen=True)
class Period:
    """Local [start, end): dates, or datetimes for hours. Several periods may share a label (every Monday)."""

    label: str
    start: dt.date
    end: dt.date


@_in_range
def quarter_start(day: dt.date) -> dt.date:
    return dt.date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)


def months_before(day: dt.date, months: int) -> dt.date:
    """The same day `months` months earlier, the month's last day when that month is shorter."""
    index = day.year * 12 + day.month - 1 - months
    year, month = index // 12, index % 12 + 1
    last = (dt.date(year + (month // 12), month % 12 + 1, 1) - DAY).day
    return dt.date(year, month, min(day.day, last))


def add_months(day: dt.date, months: int) -> dt.date:
    """The first of the month `months` after day's month, clamped to the calendar's ends."""
    index = day.year * 12 + day.month - 1 + months
    index = min(max(index, 12 * dt.MINYEAR), 12 * dt.MAXYEAR + 11)
    return dt.date(index // 12, index % 12 + 1, 1)


@_in_range
def preset_window(value: str, as_of: dt.date) -> Window | None:
    """The window a timeframe reading names, ending with the as-of day (None: all time)."""
    end = shift(as_of, DAY)
    if value.startswith("last_") and value.endswith("_days"):
        days = int(value.split("_")[1])
        return Window(shift(end, -dt.timedelta(days=days)), end, WINDOWS.get(value, f"Last {days} days"))
    if value == "last_quarter":
        this_quarter = quarter_start(as_of)
        return Window(add_months(this_quarter, -3), this_quarter, "Last full quarter")
    if value == "year_to_date":
        return Window(dt.date(as_of.year, 1, 1), end, "Year to date")
    return None


def utc_instant(day: dt.date, zone: str | None) -> dt.datetime:
    """The naive UTC datetime at which local `day` (or local datetime) begins in `zone` (None or UTC: as is);
    clamped to the calendar's ends when the zone's offset would cross them."""
    moment = day if isinstance(day, dt.datetime) else dt.datetime.combine(day, dt.time())
    if not zone or zone == "UTC":
        return moment
    local = moment.replace(tzinfo=ZoneInfo(zone))
    try:
        return local.astimezone(dt.UTC).replace(tzinfo=None)
    except OverflowError:
        return dt.datetime.min if moment.year == dt.MINYEAR else dt.datetime.max


@_in_range
def periods(grain: str, start: dt.date, end: dt.date, *, fiscal: FiscalCalendar | None = None,
            fiscal_year_start: int | None = None) -> list[Period]:
    """Periods of `grain` covering local dates [start, end), clipped to it.

    grain: day | week_iso | week_sunday | month | quarter | year | fy_period | fy_quarter | fy_year |
    weekday (every day, labelled by its weekday) | hour (every hour, labelled by its hour of day)
    """
    if grain == "weekday":
        days = (end - start).days
        return [Period(f"{(start + DAY * i).isoweekday()} {(start + DAY * i).strftime('%A')}", start + DAY * i,
                       start + DAY * (i + 1)) for i in range(days)]
    if grain == "hour":
        first = dt.datetime.combine(start, dt.time())
        hours = (end - start).days * 24
        step = dt.timedelta(hours=1)
        return [Period(f"{(first + step * i).hour:02d}:00", first + step * i, first + step * (i + 1))
                for i in range(hours)]
    if grain.startswith("fy_") and fiscal is not None:
        return _fiscal_periods(grain, start, end, fiscal)
    if grain.startswith("fy_") and fiscal_year_start:
        return _shifted_periods(grain, start, end, fiscal_year_start)
    found: list[Period] = []
    cursor = _period_start(grain, start)
    while cursor < end:
        following = _next(grain, cursor)
        found.append(Period(_label(grain, cursor), max(cursor, start), min(following, end)))
        if following <= cursor:  # clamped at the calendar's last day
            break
        cursor = following
    return found


def _period_start(grain: str, day: dt.date) -> dt.date:
    if grain == "day":
        return day
    if grain == "week_iso":
        return shift(day, -dt.timedelta(days=day.weekday()))
    if grain == "week_sunday":
        return shift(day, -dt.timedelta(days=(day.weekday() + 1) % 7))
    if grain in ("month", "fy_period"):
        return day.replace(day=1)
    if grain in ("quarter", "fy_quarter"):
        return quarter_start(day)
    return dt.date(day.year, 1, 1)


def _next(grain: str, day: dt.date) -> dt.date:
    if grain == "day":
        return shift(day, DAY)
    if grain.startswith("week"):
        return shift(day, dt.timedelta(days=7))
    if grain in ("month", "fy_period"):
        return _after(day, add_months(day, 1))
    if grain in ("quarter", "fy_quarter"):
        return _after(day, add_months(day, 3))
    return dt.date(day.year + 1, 1, 1) if day.year < dt.MAXYEAR else dt.date.max


def _after(day: dt.date, following: dt.date) -> dt.date:
    """A clamped add_months can land on or before `day` in year 9999: the period then runs to the last day."""
    return following if following > day else dt.date.max


def _label(grain: str, day: dt.date) -> str:
    if grain == "day":
        return day.isoformat()
    if grain == "week_iso":
        year, week, _ = day.isocalendar()
        return f"{year}-W{week:02d}"
    if grain == "week_sunday":
        return f"week of {day.isoformat()}"
    if grain == "month":
        return day.strftime("%Y-%m")
    if grain == "quarter":
        return f"{day.year}-Q{(day.month - 1) // 3 + 1}"
    return str(day.year)


FISCAL_GRAINS = {"month": "fy_period", "quarter": "fy_quarter", "year": "fy_year"}


def fiscal_window(unit: str, anchor: dt.date, *, current: bool, fiscal: FiscalCalendar | None = None,
                  fiscal_year_start: int | None = None) -> Window | None:
    """The fiscal month, quarter or year holding `anchor` (up to that day), or the whole one before it."""
    if unit not in FISCAL_GRAINS or not (fiscal or fiscal_year_start):
        return None
    end = anchor + DAY
    found = periods(FISCAL_GRAINS[unit], anchor - dt.timedelta(days=800), end + dt.timedelta(days=400),
                    fiscal=fiscal, fiscal_year_start=fiscal_year_start)
    holding = next((i for i, p in enumerate(found) if p.start <= anchor < p.end), None)
    if holding is None or (not current and holding == 0):
        return None
    period = found[holding] if current else found[holding - 1]
    return Window(period.start, end if current else period.end, period.label)


def named_fiscal(year: int, quarter: int | None, *, fiscal: FiscalCalendar | None = None,
                 fiscal_year_start: int | None = None) -> Window | None:
    """Fiscal year `year` ('FY2024'), or its quarter `quarter`, by the profile's fiscal calendar; None without one
    or when the calendar does not hold it."""
    if not (fiscal or fiscal_year_start):
        return None
    grain = "fy_quarter" if quarter else "fy_year"
    label = f"FY{year} Q{quarter}" if quarter else f"FY{year}"
    wide = periods(grain, dt.date(year - 2, 1, 1), dt.date(year + 3, 1, 1), fiscal=fiscal,
                   fiscal_year_start=fiscal_year_start)
    found = [p for p in wide if p.label == label]
    if not found:
        return None
    return Window(min(p.start for p in found), max(p.end for p in found), label)


def _fiscal_periods(grain: str, start: dt.date, end: dt.date, fiscal: FiscalCalendar) -> list[Period]:
    grouped: dict[str, list] = {}
    for item in fiscal.periods:
        if item.end <= start or item.start >= end:
            continue
        if grain == "fy_period":
            key = f"{item.year} {item.label}" if item.year not in item.label else item.label
        elif grain == "fy_quarter":
            key = f"{item.year} {item.quarter}".strip()
        else:
            key = item.year
        grouped.setdefault(key, []).append(item)
    found = [Period(key, max(min(i.start for i in items), start), min(max(i.end for i in items), end))
             for key, items in grouped.items()]
    return sorted(found, key=lambda p: p.start)


def _shifted_periods(grain: str, start: dt.date, end: dt.date, first_month: int) -> list[Period]:
    """A fiscal year starting on the first of `first_month` (from the profile overrides)."""
    offset = first_month - 1
    found: list[Period] = []
    step = {"fy_period": 1, "fy_quarter": 3, "fy_year": 12}[grain]
    cursor = start.replace(day=1)
    months_into_year = (cursor.month - 1 - offset) % 12
    cursor = add_months(cursor, -(months_into_year % step))
    while cursor < end:
        following = _after(cursor, add_months(cursor, step))
        fy = cursor.year if cursor.month >= first_month else cursor.year - 1  # named by its first year
        index = (cursor.month - 1 - offset) % 12
        if grain == "fy_period":
            label = f"FY{fy} P{index + 1:02d}"
        elif grain == "fy_quarter":
            label = f"FY{fy} Q{index // 3 + 1}"
        else:
            label = f"FY{fy}"
        found.append(Period(label, max(cursor, start), min(following, end)))
        if following == dt.date.max:
            break
        cursor = following
    return found


def label_indexes(found: list[Period]) -> dict[str, int]:
    """Each distinct label's position, in order of first appearance (several periods may share a label)."""
    indexes: dict[str, int] = {}
    for period in found:
        indexes.setdefault(period.label, len(indexes))
    return indexes


def segments(found: list[Period], zone: str | None, date_only: bool) -> list[tuple[dt.datetime, int | None]]:
    """Where each period's label index starts, as the boundaries the SQL compares with.

    ``[(b0, i0), (b1, i1), ..., (bn, None)]``: a value in [b_k, b_k+1) belongs to label index ``i_k``
    (``None``: a gap between periods, or past the last one). Boundaries are the UTC instants of the local
    period starts in `zone` (as ``utc_instant``), midnights for a date-only column, exactly the literals a
    range comparison would use; a period that is empty once truncated to those boundaries is left out.
    """
    indexes = label_indexes(found)
    bounds: list[tuple[dt.datetime, dt.datetime, int]] = []
    for period in found:
        low, high = utc_instant(period.start, zone), utc_instant(period.end, zone)
        if date_only:  # the literal keeps only the date
            low, high = (dt.datetime.combine(moment.date(), dt.time()) for moment in (low, high))
        bounds.append((low, high, indexes[period.label]))
    bounds.sort(key=lambda item: item[0])
    points: list[tuple[dt.datetime, int | None]] = []
    end: dt.datetime | None = None
    for low, high, index in bounds:
        if end is not None and low < end:
            low = end  # overlapping periods: the earlier one keeps the shared stretch
        if low >= high:
            continue
        if end is not None and low > end:
            points.append((end, None))
        points.append((low, index))
        end = high
    if end is not None:
        points.append((end, None))
    return points
