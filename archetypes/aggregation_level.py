"""'By month / quarter / year / week' where calendars differ (fiscal calendar, ISO or Sunday weeks)."""
from __future__ import annotations

import datetime as dt

from archetypes import calendar
from archetypes.archetype import Archetype, Context
from archetypes.model import Detection, Reading
from archetypes.query import QuerySpec

ID = "aggregation_level"
HEADER = "Calendar"
WHEN = ("The request groups by month, quarter, year or week, and the business has more than one calendar for it: "
        "a fiscal calendar (e.g. 4-4-5 periods) next to the calendar one, or ISO (Monday) against Sunday weeks.")
ASK = "Calendar or fiscal periods?"
REASON = ("Fiscal periods start and end on different days than calendar months, so each bucket holds different "
          "sales; week conventions shift every week's boundary by a day.")


def detect(ctx: Context) -> Detection | None:
    intent, profile = ctx.intent, ctx.profile
    if intent.grain is None or intent.grain_fiscal is not None:
        return None
    unit, span = intent.grain
    if unit == "week":
        if intent.week_convention:
            return None
        readings = [Reading("iso_week", "ISO weeks (Monday to Sunday)", _apply("week_iso")),
                    Reading("sunday_week", "Weeks starting on Sunday", _apply("week_sunday"))]
        return ARCHETYPE.detection(span, readings, question="Which week convention?")
    if unit not in ("month", "quarter", "year") or not (profile.fiscal or profile.fiscal_year_start):
        return None
    fiscal = {"month": "fy_period", "quarter": "fy_quarter", "year": "fy_year"}[unit]
    where = f" ({profile.fiscal.table})" if profile.fiscal else f" (year starting month {profile.fiscal_year_start})"
    label = f"Fiscal {'period' if unit == 'month' else unit}s{where}"
    year = _fiscal_year(ctx, intent.window)
    if year is not None:
        label += f", over {year.label}, {year.start.isoformat()} to {(year.end - calendar.DAY).isoformat()}"
    readings = [Reading("calendar", f"Calendar {unit}s", _apply(unit)),
                Reading("fiscal", label, _apply(fiscal, year))]
    return ARCHETYPE.detection(span, readings, question=f"Calendar {unit}s or fiscal {unit}s?")


def _fiscal_year(ctx: Context, window: calendar.Window | None) -> calendar.Window | None:
    """The fiscal year named like the calendar year a window covers ('monthly revenue for 2025': FY2025), to the
    window's end where it stops early; None for any other window. Fiscal periods over a calendar year would
    cut its first and last period in two."""
    if window is None or (window.start.month, window.start.day) != (1, 1):
        return None
    year = window.start.year
    if not dt.date(year, 1, 1) < window.end <= dt.date(year + 1, 1, 1):
        return None
    found = calendar.periods("fy_year", dt.date(year - 1, 1, 1), dt.date(year + 2, 1, 1),
                             fiscal=ctx.profile.fiscal, fiscal_year_start=ctx.profile.fiscal_year_start)
    named = next((p for p in found if p.label.endswith(str(year))), None)
    if named is None:
        return None
    end = named.end if window.end == dt.date(year + 1, 1, 1) else min(named.end, window.end)
    return calendar.Window(named.start, end, named.label) if named.start < end else None


def _apply(grain: str, year: calendar.Window | None = None):
    fiscal = grain.startswith("fy_")

    def apply(spec: QuerySpec) -> None:
        if spec.window_kind is not None and (spec.window_kind == "fiscal") != fiscal:
            # the timeframe offered a window of each kind: each goes with the periods of its own calendar
            spec.invalid = True
            return
        spec.grain = grain
        if fiscal and year is not None and spec.window_kind is None:
            spec.window = year
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
