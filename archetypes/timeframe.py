"""Recency or trend language with no concrete window: over what period?"""
from __future__ import annotations

import datetime as dt
import re

from archetypes import calendar, lexicon
from archetypes.archetype import Archetype, Context
from archetypes.intent import _MONTH_RE as MONTH_PATTERN
from archetypes.intent import UNIT_WORDS, Span
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
    if intent.window is not None and intent.window_span is not None:
        # the date a word names first ('shipped in 1997'); a date the talk implies ('freight in 1997') only when
        # the window itself is not in doubt ('freight last month': which last month is asked first)
        return _date_column(ctx) or _last_period(ctx) or _last_n_periods(ctx) or _period_so_far(ctx) or \
            _fiscal_period(ctx) or _date_column(ctx, implied=True)
    if intent.vague_time is None or intent.window is not None or intent.window_span is not None:
        return None
    anchor = ctx.as_of or dt.date.today()
    trend = any(word in intent.vague_time.text.lower() for word in _TREND_WORDS)
    readings = [Reading(value, label, _apply(value, anchor, trend)) for value, label in calendar.WINDOWS.items()]
    return ARCHETYPE.detection(intent.vague_time, readings,
                               question=f"Which timeframe? (relative to {anchor.isoformat()}, the latest data)")


_LAST_PERIOD = re.compile(r"^(?:last|previous|past|prior)\s+(week|month|quarter|year|wk|qtr|yr)$")
_TRAILING = {"month": (1, "last 30 days"), "quarter": (3, "last 3 months"), "year": (12, "last 12 months")}


def _last_period(ctx: Context) -> Detection | None:
    """'last week', 'last month', 'last quarter', 'last year': the previous full calendar period, or the days up
    to the latest data (the last 7 or 30 days, 3 or 12 months; for a week also the Sunday-start one): each is
    what someone means by it, and they count different days. The fiscal period where the data has a calendar."""
    intent, window, span = ctx.intent, ctx.intent.window, ctx.intent.window_span
    assert window is not None and span is not None
    m = _LAST_PERIOD.match(span.text.lower().strip())
    if m is None or intent.week_convention or ctx.base.shape in ("change", "list", "attribute") or ctx.as_of is None:
        return None
    end = ctx.as_of + calendar.DAY
    unit = UNIT_WORDS.get(m.group(1), m.group(1))
    readings = [Reading(f"full_{unit}", f"The previous full {unit}, {_days(window)}", _set(window))]
    if unit == "week":
        sunday = calendar.Window(window.start - calendar.DAY, window.end - calendar.DAY, "Sunday-start week")
        trailing = calendar.Window(end - dt.timedelta(days=7), end, "last 7 days")
        readings.append(Reading("sunday_week", f"The previous week starting on Sunday, {_days(sunday)}", _set(sunday)))
        readings.append(Reading("last_7_days", f"The last 7 days, {_days(trailing)}", _set(trailing)))
    else:
        months, said = _TRAILING[unit]
        if unit == "month":
            trailing = calendar.Window(end - dt.timedelta(days=30), end, said)
        else:
            first = calendar.add_months(end, -months)  # the same day months back, clamped to that month's end
            last_day = (calendar.add_months(first, 1) - calendar.DAY).day
            trailing = calendar.Window(first.replace(day=min(end.day, last_day)), end, said)
        if (trailing.start, trailing.end) != (window.start, window.end):  # the data ends on a period's last day
            readings.append(Reading(said.replace(" ", "_"), f"The {said}, {_days(trailing)}", _set(trailing)))
        fiscal = _fiscal_window(ctx, unit, current=False)
        if fiscal is not None:
            readings.append(Reading("fiscal", f"The previous full fiscal {unit}, {fiscal.label}, {_days(fiscal)}",
                                    _set(fiscal)))
            readings = _kinds_marked(readings)
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}'? (the latest data is "
                                                        f"{ctx.as_of.isoformat()})")


def _kinds_marked(readings: list[Reading]) -> list[Reading]:
    """Each window marked fiscal or calendar where both are offered: the calendar of a series' periods follows
    it (archetypes.aggregation_level)."""
    def marked(reading: Reading) -> Reading:
        kind = "fiscal" if reading.value == "fiscal" else "calendar"
        inner = reading.apply

        def apply(spec: QuerySpec) -> None:
            if inner is not None:
                inner(spec)
            spec.window_kind = kind
        return Reading(reading.value, reading.label, apply)
    return [marked(r) for r in readings]


_LAST_N = re.compile(r"(?:last|past|previous|trailing|prior|recent)\s+(\d{1,2}|two|three|four|five|six|seven|ten|"
                     r"twelve)\s+(month|quarter)s?$")
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "ten": 10, "twelve": 12}


def _last_n_periods(ctx: Context) -> Detection | None:
    """'monthly revenue over the last 6 months': a series by the month wants whole months, the last 6 counting
    this one to date or the 6 complete ones before it; the days back from the latest data cut the first month in
    two (a figure for a part of June, shown as June's)."""
    span = ctx.intent.window_span
    assert span is not None
    m = _LAST_N.search(span.text.lower().strip())
    if m is None or ctx.as_of is None or ctx.base.shape in ("change", "list", "attribute"):
        return None
    unit, count = m.group(2), int(m.group(1)) if m.group(1).isdigit() else _COUNTS[m.group(1)]
    if ctx.base.grain != unit:
        return None
    months = count * (3 if unit == "quarter" else 1)
    current = calendar.quarter_start(ctx.as_of) if unit == "quarter" else ctx.as_of.replace(day=1)
    step = 3 if unit == "quarter" else 1
    with_this = calendar.Window(calendar.add_months(current, step - months), calendar.add_months(current, step),
                                f"the last {count} {unit}s, this one to date")
    complete = calendar.Window(calendar.add_months(current, -months), current, f"the {count} complete {unit}s")
    readings = [Reading("with_this_one", f"The last {count} {unit}s counting this one to date, {_days(with_this)}",
                        _set(with_this)),
                Reading("complete_ones", f"The {count} complete {unit}s before this one, {_days(complete)}",
                        _set(complete))]
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}'? (the latest data is "
                                                        f"{ctx.as_of.isoformat()})")


_NO_YEAR = re.compile(r"^(?:q[1-4]|(?:first|second|third|fourth) quarter|" + MONTH_PATTERN + r")$")


def _period_so_far(ctx: Context) -> Detection | None:
    """'clients who bought in q4' on 2025-12-22: this Q4 so far, or the last whole one (Q4 2024): a period
    named without its year, still running, is either."""
    window, span = ctx.intent.window, ctx.intent.window_span
    assert window is not None and span is not None
    if ctx.as_of is None or not _NO_YEAR.match(span.text.lower().strip()) or ctx.base.shape in ("change", "list"):
        return None
    end = ctx.as_of + calendar.DAY
    if not window.start < end < window.end:
        return None
    named = span.text.strip()
    named = named.upper() if named.lower().startswith("q") else named.capitalize()
    so_far = calendar.Window(window.start, end, f"{named} so far")
    before = calendar.Window(calendar.add_months(window.start, -12), calendar.add_months(window.end, -12),
                             f"{named} {window.start.year - 1}")
    readings = [Reading("so_far", f"{named} {window.start.year} so far, {_days(so_far)}", _set(so_far)),
                Reading("year_before", f"The whole {named} {window.start.year - 1}, {_days(before)}",
                        _set(before))]
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}'? (the latest data is "
                                                        f"{ctx.as_of.isoformat()})")


_THIS_PERIOD = re.compile(r"^(?:(this|current|last|previous|prior)\s+(month|quarter|year)|(m|q|y)td|"
                          r"(month|quarter|year)[- ]to[- ]date)$")
_LETTER = {"m": "month", "q": "quarter", "y": "year"}


def _fiscal_period(ctx: Context) -> Detection | None:
    """'qtd', 'this quarter', 'last month' where the data has a fiscal calendar: the calendar period or the
    fiscal one (a 4-4-5 quarter starts on another day), unless the question says which."""
    window, span = ctx.intent.window, ctx.intent.window_span
    assert window is not None and span is not None
    if ctx.base.shape in ("change", "list", "attribute"):
        return None
    m = _THIS_PERIOD.match(span.text.lower().strip())
    if m is None:
        return _fiscal_quarter(ctx)
    unit = m.group(2) or (_LETTER[m.group(3)] if m.group(3) else m.group(4))
    current = m.group(1) not in ("last", "previous", "prior")
    fiscal = _fiscal_window(ctx, unit, current=current)
    if fiscal is None:
        return None
    what = f"{unit} to date" if current else f"previous full {unit}"
    readings = _kinds_marked([Reading("calendar", f"The calendar {what}, {_days(window)}", _set(window)),
                              Reading("fiscal", f"The fiscal {what}, {fiscal.label}, {_days(fiscal)}", _set(fiscal))])
    return ARCHETYPE.detection(span, readings, question=f"Calendar or fiscal '{span.text}'?")


_NAMED_QUARTER = re.compile(r"^q([1-4])(?:\s+(?:of\s+)?((?:19|20)\d{2}))?$")


def _fiscal_quarter(ctx: Context) -> Detection | None:
    """'q1 2025' where the data has a fiscal calendar: the calendar quarter, or the fiscal quarter of that
    name (FY2025 Q1 of a 4-4-5 calendar starts in February)."""
    from archetypes.intent import RE_CALENDAR_WORD, RE_FISCAL

    window, span, profile = ctx.intent.window, ctx.intent.window_span, ctx.profile
    assert window is not None and span is not None
    m = _NAMED_QUARTER.match(span.text.lower().strip())
    if m is None or not profile.fiscal or RE_FISCAL.search(ctx.intent.lower) or \
            RE_CALENDAR_WORD.search(ctx.intent.lower):
        return None
    name = f"FY{m.group(2) or window.start.year} Q{m.group(1)}"  # ('during q1': the latest one, as the window)
    found = calendar.periods("fy_quarter", window.start - dt.timedelta(days=400), window.end + dt.timedelta(days=400),
                             fiscal=profile.fiscal)
    period = next((p for p in found if p.label == name), None)
    if period is None or (period.start, period.end) == (window.start, window.end):
        return None
    fiscal = calendar.Window(period.start, period.end, name)
    readings = _kinds_marked([Reading("calendar", f"The calendar quarter, {_days(window)}", _set(window)),
                              Reading("fiscal", f"The fiscal quarter {name}, {_days(fiscal)}", _set(fiscal))])
    return ARCHETYPE.detection(span, readings, question=f"Calendar or fiscal '{span.text}'?")


def _fiscal_window(ctx: Context, unit: str, *, current: bool) -> calendar.Window | None:
    """The fiscal period holding the latest data (to that day), or the whole one before it; None without a
    fiscal calendar, when the question names one or the other, or when it is the calendar period itself."""
    from archetypes.intent import RE_CALENDAR_WORD, RE_FISCAL

    profile, anchor, lower = ctx.profile, ctx.as_of, ctx.intent.lower
    if anchor is None or RE_FISCAL.search(lower) or RE_CALENDAR_WORD.search(lower):
        return None
    chosen = calendar.fiscal_window(unit, anchor, current=current, fiscal=profile.fiscal,
                                    fiscal_year_start=profile.fiscal_year_start)
    window = ctx.intent.window
    if chosen is None or window is not None and (chosen.start, chosen.end) == (window.start, window.end):
        return None
    return chosen


# freight paid, spent, charged, carried: a cost incurred when the rows go out, so dated either way
_PAID_WHEN_SENT = re.compile(r"\b(?:pay|pays|paid|spend|spent|spending|costs?|charges?|charged|carr(?:y|ies|ied))\b")
_NOT_EVENT_WORDS = {"date", "at", "time", "on", "day", "timestamp", "datetime", "utc", "local"}


def _date_column(ctx: Context, implied: bool = False) -> Detection | None:
    """'parcels we shipped in 1997' on a table dated by its booking date that also has a shipped date: the
    window applies to either date, and they count different rows."""
    from dataclasses import replace

    from archetypes.naming import phrase, slug, words
    from archetypes.profile.facts import time_column
    from archetypes.values import lemma

    fact = ctx.base.fact
    if fact is None or fact.time is None or ctx.base.window is None or ctx.base.shape in ("change", "list"):
        return None
    table = ctx.profile.tables[fact.time.table]
    asked = {lemma(t[0]): (t[1], t[2]) for t in ctx.intent.tokens}
    for column in table.columns:
        if column.family != "temporal" or column.name == fact.time.column:
            continue
        event = [w for w in words(column.name) if w not in _NOT_EVENT_WORDS]
        hit = next((asked[lemma(w)] for w in event if lemma(w) in asked and len(w) > 2), None)
        talk = lexicon.SENDING_TALK.search(ctx.intent.lower) if set(event) & lexicon.SENT_DATE_WORDS else None
        if hit is None and talk is not None and implied and _PAID_WHEN_SENT.search(ctx.intent.lower):
            hit = talk.span()  # 'freight paid in 1998': paid when the rows ship
        if hit is None:
            continue
        other = replace(fact, time=time_column(table, column))
        default = fact.time.column
        readings = [Reading(f"by_{slug(phrase(default))}", f"Dated by {phrase(default)}", None),
                    Reading(f"by_{slug(phrase(column.name))}", f"Dated by {phrase(column.name)}", _use_fact(other))]
        span = Span(hit[0], hit[1], ctx.question[hit[0]:hit[1]])
        return ARCHETYPE.detection(span, readings, question=f"Which date does the window apply to: "
                                                            f"{phrase(default)} or {phrase(column.name)}?")
    return None


def _use_fact(fact):
    def apply(spec: QuerySpec) -> None:
        if spec.fact is not None and spec.fact.table == fact.table:
            spec.fact = fact
    return apply


def _days(window: calendar.Window) -> str:
    return f"{window.start.isoformat()} to {(window.end - calendar.DAY).isoformat()}"


def _set(window: calendar.Window):
    def apply(spec: QuerySpec) -> None:
        spec.window = window
    return apply


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
