"""Day or date boundaries ('yesterday', 'daily', 'on March 3') over timestamps from several time zones."""
from __future__ import annotations

import re

from archetypes.archetype import Archetype, Context
from archetypes.intent import Span
from archetypes.model import Detection, Reading
from archetypes.query import QuerySpec

ID = "timezone"
HEADER = "Time zone"
WHEN = ("The request draws day or date boundaries ('yesterday', 'daily', 'on March 3') over timestamps, and the "
        "data spans several business time zones.")
ASK = "Whose day: UTC, or a business time zone?"
REASON = ("A local day starts hours apart in different zones, so 'yesterday' in UTC and 'yesterday' in New York "
          "cover different sales and give different totals.")

LOCAL = "local"


def detect(ctx: Context) -> Detection | None:
    intent, profile = ctx.intent, ctx.profile
    said = _UTC_SAID.search(intent.lower)
    if said is not None and not intent.rate_subject:
        # 'by hour, utc pls', 'Q2 visits, UTC dates': the zone is said, so it is applied (and its words are read);
        # with no business zones UTC is the only clock there is
        if profile.business_zones():
            ctx.base.zone = "UTC"
        ctx.extra.setdefault("read", []).append(Span(said.start(), said.end(), ctx.question[said.start():said.end()]))
        return None
    local = _LOCAL_SAID.search(intent.lower)
    fact = ctx.base.fact or profile.primary_fact()
    if local is not None and fact is not None and profile.zone_for(fact) is not None:
        # 'by local hour', 'tokyo local dates': each row's own clock, said
        ctx.base.zone = LOCAL
        for m in _LOCAL_SAID.finditer(intent.lower):
            ctx.extra.setdefault("read", []).append(Span(m.start(), m.end(), ctx.question[m.start():m.end()]))
        return None
    span = intent.day_boundary
    if span is None and ctx.base.shape == "distribution" and ctx.base.time_part in ("hour", "weekday", "month"):
        # an hour, a weekday or a month is a local one or a UTC one: which zone's clock?
        span = next((Span(d.span[0], d.span[1], d.evidence) for d in ctx.grounding.shape.detections), None) or \
            next(iter(ctx.grounding.shape.read), None)
    if span is None or intent.rate_subject:
        return None
    fact = ctx.base.fact or profile.primary_fact()
    if fact is None or fact.time is None or fact.time.date_only:
        return None
    zones = profile.business_zones()
    if not zones:
        return None
    readings = [Reading("UTC", "UTC days", _apply("UTC"))]
    found = profile.zone_for(fact)
    if found is not None and len(found[0].zones) > 1:
        column, route = found
        where = route[-1].ref_table if route else column.table
        readings.append(Reading(LOCAL, f"Each row's own local day ({where}.{column.column})", _apply(LOCAL)))
        if _pinned(ctx.base, where):
            # 'tokyo sales by hour': the rows are one shop's, so its own clock is the local one and the
            # other shops' zones answer a question nobody asked
            return ARCHETYPE.detection(span, readings)
    readings.extend(Reading(zone, f"Days in {zone}", _apply(zone)) for zone in zones)
    return ARCHETYPE.detection(span, readings)


_UTC_SAID = re.compile(r"\b(?:in\s+)?(?:utc|gmt|zulu)(?:\s+(?:time|dates?|days?|calendar\s+days?|clock|timestamps?))?\b")


_LOCAL_SAID = re.compile(r"\blocal(?:\s+(?:time|times|hours?|dates?|days?|clock|calendar\s+days?))?\b")


def _pinned(spec: QuerySpec, table: str) -> bool:
    """The rows read are filtered to one row of the table holding the zone (one shop, one office)."""
    return any(f.entity.table == table and not f.negate and len(f.values) == 1 for f in spec.filters)


def _apply(zone: str):
    def apply(spec: QuerySpec) -> None:
        spec.zone = zone
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
