"""'By month / quarter / year / week' where calendars differ (fiscal calendar, ISO or Sunday weeks)."""
from __future__ import annotations

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
    readings = [Reading("calendar", f"Calendar {unit}s", _apply(unit)),
                Reading("fiscal", f"Fiscal {'period' if unit == 'month' else unit}s{where}", _apply(fiscal))]
    return ARCHETYPE.detection(span, readings, question=f"Calendar {unit}s or fiscal {unit}s?")


def _apply(grain: str):
    def apply(spec: QuerySpec) -> None:
        spec.grain = grain
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
