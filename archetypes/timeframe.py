"""Recency or trend language with no concrete window: over what period?"""
from __future__ import annotations

import datetime as dt

from archetypes import calendar
from archetypes.archetype import Archetype, Context
from archetypes.model import Detection, Reading
from archetypes.query import QuerySpec

ID = "timeframe"
HEADER = "Timeframe"
WHEN = ("The request references recency or trends (trending, recent, lately, how are we doing) without a "
        "concrete timeframe such as a year, a month or 'the last 30 days'.")
ASK = "Which timeframe?"
REASON = ("A trend or a 'recent' figure depends entirely on the window: the last 7 days, the last quarter and all "
          "time can point in opposite directions.")

_TREND_WORDS = ("trend", "growth", "growing", "grown", "declin", "momentum", "over time", "over the years", "how ",
                "going up", "going down", "picking up", "slowing")


def detect(ctx: Context) -> Detection | None:
    intent = ctx.intent
    if intent.vague_time is None or intent.window is not None or intent.window_span is not None:
        return None
    anchor = ctx.as_of or dt.date.today()
    trend = any(word in intent.vague_time.text.lower() for word in _TREND_WORDS)
    readings = [Reading(value, label, _apply(value, anchor, trend)) for value, label in calendar.WINDOWS.items()]
    return ARCHETYPE.detection(intent.vague_time, readings,
                               question=f"Which timeframe? (relative to {anchor.isoformat()}, the latest data)")


def grain_for(window: calendar.Window | None) -> str:
    if window is None:
        return "month"
    days = (window.end - window.start).days
    return "day" if days <= 31 else "week_iso" if days <= 92 else "month"


def _apply(value: str, anchor: dt.date, trend: bool):
    def apply(spec: QuerySpec) -> None:
        spec.window = calendar.preset_window(value, anchor)
        if trend and spec.grain is None and spec.group is None:
            spec.grain = grain_for(spec.window)
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
