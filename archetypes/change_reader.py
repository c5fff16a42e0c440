"""Change between periods: 'how did revenue change from 2023 to 2024', 'is revenue up on last month',
'which category grew most'. The periods the question names (or a timeframe detection when it names none)
and, for a ranking, absolute against relative change.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from archetypes import calendar, lexicon
from archetypes.grounding import OperatorMention
from archetypes.intent import _MONTH_RE as MONTH_PATTERN
from archetypes.intent import UNIT_WORDS, Intent, Span, Target, compound_head
from archetypes.model import Detection, Reading
from archetypes.naming import plural
from archetypes.period_pair import PeriodPair, find_pair
from archetypes.profile import Fact, Measure, SchemaProfile
from archetypes.query import Change, QuerySpec

_TWO_YEARS = re.compile(r"\b((?:19|20)\d{2})\b.{0,20}?\b(?:and|to|vs\.?|versus|against|compared? (?:to|with)|than"
                        r"(?: in)?)\s+((?:19|20)\d{2})\b")


def read_change(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """The change shape, read into `spec` (a reader of archetypes.shape_reader.read_shape)."""
    change = _first(ops, "change")
    if spec.shape != "aggregate" or spec.fact is None or spec.fact.time is None:
        return
    pair = find_pair(intent.lower, as_of)
    doing = _HOW_DOING.search(intent.lower)
    if change is None and doing is not None:
        # 'how are we doing in brazil this year': the period against the one before it, on the main figures
        change = OperatorMention("change", doing.group(1), _span(intent, doing.start(1), doing.end(1)))
    if pair is not None and _one_range(intent, ops, pair):
        # 'visits from april to june 2025', 'between april and june': the months from the one to the other, no change
        spec.window = calendar.Window(pair.before.start, pair.after.end,
                                      f"{pair.before.start.isoformat()} to {pair.after.end - dt.timedelta(days=1)}")
        out.read += [_span(intent, a, b) for a, b in pair.spans]
        out.replaces.add("timeframe")
        return
    if change is None:
        if pair is None:
            return
        # 'was may better than april': two periods compared with no change word
        start, end = pair.spans[1]
        change = OperatorMention("change", intent.lower[start:end], _span(intent, start, end))
    if change.word in ("up", "down") and not re.search(r"\b(up|down)\s+(on|from|vs|versus|compared|than|since)\b",
                                                       intent.lower):
        if not re.search(r"\b(is|are|was|were)\b.*\b(up|down)\b|\b(?:go|goes|went|gone|going)\s+(?:up|down)\b",
                         intent.lower):
            return
    if change.word == "between" and pair is None and not _TWO_YEARS.search(intent.lower):
        return
    if change.word in ("vs", "versus") and pair is None and not _TWO_YEARS.search(intent.lower) and \
            not _periods_around(intent.lower, change.span.start, change.span.end):
        return  # 'billed vs paid in 2024': two figures set side by side, not this period against the one before
    window = intent.window_span
    if change.word == "between" and window is not None and window.start <= change.span.start < window.end:
        return  # 'between 2024-03-01 and 2024-03-15': one range of days
    periods = _named_periods(intent, as_of, pair)
    versus = next((f for f in spec.filters if len(f.values) >= 2 and not f.negate), None)
    if periods is None and versus is not None and change.word in _VERSUS:
        # 'how did accessories sell compared with audio': the two side by side, not a change over time
        spec.group, spec.limit = versus.entity, None
        out.consumed |= {"change", "compare"}
        out.read.append(change.span)
        return
    spec.shape = "change"
    spec.window = None
    out.consumed |= {"change", "compare"}
    if doing is not None:
        out.read.append(_span(intent, doing.start(1), doing.end(1)))
    target = intent.group or (_main_target(intent) if re.search(r"\b(which|what|who)\b", intent.lower) or
                              intent.superlative is not None else None)
    if target is not None and (spec.fact is None or target.entity.table != spec.fact.table):
        spec.group = target.entity
        spec.limit = intent.top_n or 10
    grouped = spec.group is not None
    if periods is not None:
        before, after = periods.before, periods.after
        spec.change = Change(before, after)
        out.read.extend(periods.spans)
        said = _PERIOD_ON_PERIOD.search(intent.lower)
        if said is not None and before.end == after.start:
            out.read.append(_span(intent, said.start(), said.end()))  # 'mom': the month just before, as read
        out.replaces.add("timeframe")
        if periods.note:
            spec.notes.append(periods.note)
        span = _span(intent, min(s.start for s in periods.spans), max(s.end for s in periods.spans))
        stop = calendar.shift(as_of, calendar.DAY)  # a 9999-12-31 sentinel as the as-of day: clamped
        if after.start < stop < after.end:
            # the later period is not over: the data stops at the as-of day; never compare half a year with a
            # whole one without saying so ('the same period last year' says it)
            same = _SAME_PERIOD.search(intent.lower)
            if same is None:
                out.detections.append(_partial_period(intent, span, before, after, stop, periods.year_ago))
            else:
                out.read.append(_span(intent, same.start(), same.end()))
            spec.change = _same_days(before, after, stop)
        elif periods.year_ago is not None:
            out.detections.append(_baseline(span, before, after, periods.year_ago))
        elif (rolling := _rolling_months(intent, before, after, stop)) is not None:
            out.detections.append(rolling)
        earliest = spec.fact.time.earliest
        if earliest is not None and before.end <= earliest.date():
            spec.notes.append(f"the earlier period ({before.label}) has no rows: the data starts "
                              f"{earliest.date().isoformat()}, so the relative change is empty")
        out.unread.extend(_stray_periods(intent, periods.spans + out.value_spans))
    else:
        out.detections.append(_change_periods(intent, change, as_of))
        out.replaces.add("timeframe")
        spec.change = Change(*_preset_change("last_full_month", as_of))
    if grouped:
        out.detections.append(_change_metric(intent, change, profile, spec))
        out.replaces.add("ranking_metric")
    elif (figure := _which_figure(intent, change, profile, spec)) is not None:
        out.detections.append(figure)
        out.replaces.add("ranking_metric")


@dataclass(frozen=True)
class _Periods:
    before: calendar.Window
    after: calendar.Window
    spans: list[Span]        # the words that name them
    note: str = ""           # how a period with no year was placed
    year_ago: calendar.Window | None = None  # a lone month or quarter: the same one a year before defends too


_PERIOD_WORD = re.compile(r"\b(?:" + MONTH_PATTERN + r"|q[1-4]|h[12])\b")


def _stray_periods(intent: Intent, read: list[Span]) -> list[tuple[Span, str]]:
    """Month or quarter words outside the periods compared: never counted as read while no reading uses them."""
    return [(_span(intent, m.start(), m.end()), "a period this change does not compare")
            for m in _PERIOD_WORD.finditer(intent.lower)
            if not any(s.start <= m.start() < s.end for s in read)]


def _which_figure(intent: Intent, change: OperatorMention, profile: SchemaProfile,
                  spec: QuerySpec) -> Detection | None:
    """'Was may better than april?': no figure named, so better by which one (the main measures over time); rows
    in a state ('no-shows 2024 vs 2025') are counted first."""
    from archetypes.counted import state_rows_counted
    from archetypes.ranking_metric import ARCHETYPE
    from archetypes.shape_reader import COUNT_SAID

    if intent.explicit_measure or intent.measures or intent.money is not None or intent.how_many is not None or \
            lexicon.names_a_figure(intent.tokens) or COUNT_SAID.search(intent.lower):
        return None  # 'the number of no-shows': the count the spec holds
    measures: list[tuple[Fact, Measure]] = []
    counted = state_rows_counted(profile, spec.filters)
    if counted is not None:
        measures.append(counted)
    for fact, measure in profile.measures_reaching(None):
        money_elsewhere = measure.money and any(m.money and f.table != fact.table for f, m in measures)
        if fact.time is not None and not money_elsewhere and len(measures) < 3:
            measures.append((fact, measure))  # one money figure, or its forms on one table (before or after a discount)
    if len(measures) < 2:
        return None
    readings = [Reading(m.value, m.label, _set_mode(f, m, "absolute")) for f, m in measures]
    return ARCHETYPE.detection(change.span, readings, question="Compare which figure?")


_VERSUS = frozenset({"compared", "compare", "versus", "vs", "against"})


def _same_days(before: calendar.Window, after: calendar.Window, end: dt.date) -> Change:
    """The earlier period up to the same date: whole months apart keep the calendar date (January 1 to June 30
    against January 1 to June 30, across a leap day), other periods as many days."""
    apart = (after.start.year - before.start.year) * 12 + after.start.month - before.start.month
    if before.start.day == 1 and after.start.day == 1 and apart > 0:
        back = calendar.add_months(end.replace(day=1), -apart)
        month_end = (calendar.add_months(back, 1) - calendar.DAY).day
        stop = back.replace(day=min(end.day, month_end)) if end.day > 1 else back
    else:
        stop = before.start + (end - after.start)
    return Change(calendar.Window(before.start, stop, f"{before.label} to the same day"),
                  calendar.Window(after.start, end, f"{after.label} to date"))


def _partial_period(intent: Intent, span: Span, before: calendar.Window, after: calendar.Window,
                    end: dt.date, year_ago: calendar.Window | None = None) -> Detection:
    from archetypes.timeframe import ARCHETYPE

    to_date = calendar.Window(after.start, end, f"{after.label} to date")
    readings = []
    for earlier, value in ((before, ""), (year_ago, "year_ago_")):
        if earlier is None:
            continue
        readings += [Reading(f"{value}same_days", f"{after.label} to date against the same days of {earlier.label}",
                             _set_periods(_same_days(earlier, after, end))),
                     Reading(f"{value}to_date_vs_whole", f"{after.label} to date against the whole of {earlier.label}",
                             _set_periods(Change(earlier, to_date)))]
    last = (end - calendar.DAY).isoformat()
    against = f"{before.label} or {year_ago.label}" if year_ago is not None else before.label
    return ARCHETYPE.detection(span, readings, question=f"The data stops on {last}: compare {after.label} so far with "
                                                         f"the same days of {against}, or with all of it?")


def _baseline(span: Span, before: calendar.Window, after: calendar.Window, year_ago: calendar.Window) -> Detection:
    """'is this month's revenue up or down', 'did may go up': a lone month or quarter against the one before it
    or against the same one a year before (seasons): both are what people mean, and they differ."""
    from archetypes.timeframe import ARCHETYPE

    readings = [Reading("period_before", f"{after.label} against {before.label}", _set_periods(Change(before, after))),
                Reading("year_ago", f"{after.label} against {year_ago.label}", _set_periods(Change(year_ago, after)))]
    return ARCHETYPE.detection(span, readings, question=f"Compare {after.label} with {before.label} or with "
                                                         f"{year_ago.label}?")


_LAST_MONTH = re.compile(r"\b(?:last|past|previous)\s+month\b")


def _rolling_months(intent: Intent, before: calendar.Window, after: calendar.Window, stop: dt.date) -> Detection | None:
    """'revenue last month vs the month before': the two calendar months, or the last 30 days against the 30
    before them (both are what people mean by a month back from today, and they differ)."""
    from archetypes.timeframe import ARCHETYPE

    m = _LAST_MONTH.search(intent.lower)
    if m is None or after.start != before.end or after.start.day != 1 or after.end.day != 1 or after.end >= stop or \
            not 27 <= (before.end - before.start).days <= 31:
        return None  # (the current month against the last: 'up on last month' names this month first)
    thirty = dt.timedelta(days=30)
    recent = calendar.Window(stop - thirty, stop, "the last 30 days")
    earlier = calendar.Window(stop - 2 * thirty, stop - thirty, "the 30 days before")
    readings = [Reading("calendar_months", f"{after.label} against {before.label}", _set_periods(Change(before, after))),
                Reading("last_30_days", "The last 30 days against the 30 days before", _set_periods(Change(earlier, recent)))]
    return ARCHETYPE.detection(_span(intent, m.start(), m.end()), readings,
                               question="Calendar months, or the last 30 days against the 30 before?")


def _set_periods(change: Change):
    def apply(spec: QuerySpec) -> None:
        mode = spec.change.mode if spec.change else "absolute"
        spec.change = Change(change.before, change.after, mode)
    return apply


_SAME_A_YEAR_BEFORE = re.compile(r"\b(?:the\s+)?same\s+(?:month|quarter|week|period|time|days?)\s+(?:of\s+|in\s+)?"
                                 r"(?:last|the\s+previous|the\s+prior|a)\s+year(?:\s+before)?\b|"
                                 r"\b(?:month|quarter)\s+last\s+year\b")
_THE_ONE_BEFORE = re.compile(r"\b(?:the|a)\s+(week|month|quarter|year)\s+before\b|"
                             r"\b(?:the\s+)?(?:previous|prior|preceding)\s+(week|month|quarter|year)\b|"
                             r"\b(?:vs\.?|versus|against|and|compared? (?:to|with))\s+(week|month|quarter|year)\s+"
                             r"before\b")  # 'last month vs month before


_SAME_PERIOD = re.compile(r"\b(?:the\s+)?same\s+(?:period|time|days|stretch|point)\b")
_VS_LAST = re.compile(r"\b(?:vs\.?|versus|against|than|compared? (?:to|with))\s+(?:the\s+)?(?:last|previous|prior)"
                      r"(?:\s+one|\s+(week|month|quarter|year|wk|qtr|yr))?\b(?!\s*\d)")
# 'how are we doing in brazil this year', "how's revenue tracking": a change asked without a change word
_HOW_DOING = re.compile(r"\bhow(?:'s|s|\s+is|\s+are|\s+was|\s+were)\b[^?]*?\b(doing|performing|tracking)\b")
_YEAR_OVER_YEAR = re.compile(r"\b(?:yoy|y/y|year[- ]over[- ]year)\b")


def _named_periods(intent: Intent, as_of: dt.date, pair: PeriodPair | None) -> _Periods | None:
    lower = intent.lower
    if pair is not None:
        read_as = f"{pair.after.label} against {pair.before.label}"
        note = {0: f"periods named without a year: {read_as}, the latest begun by {as_of.isoformat()}",
                1: f"one year named for both periods: {read_as}"}.get(pair.years_named, "")
        return _Periods(pair.before, pair.after, [_span(intent, a, b) for a, b in pair.spans], note)
    if (m := _TWO_YEARS.search(lower)) is not None:
        a, b = sorted((int(m.group(1)), int(m.group(2))))
        if re.search(r"\bthan\b", m.group(0)) and int(m.group(1)) < int(m.group(2)):
            # 'how many more in 2022 than in 2023': the first named against the second (as period_pair reads 'X
            # better than Y'), not the later year against the earlier
            a, b = b, a
        before = calendar.Window(dt.date(a, 1, 1), dt.date(a + 1, 1, 1), str(a))
        after = calendar.Window(dt.date(b, 1, 1), dt.date(b + 1, 1, 1), str(b))
        return _Periods(before, after, [_span(intent, m.start(), m.end())])
    window, span = intent.window, intent.window_span
    if (yoy := _YEAR_OVER_YEAR.search(lower)) is not None:
        # 'yoy growth for june', 'is revenue up yoy': the period (this year when none is named) against the
        # same period a year before
        spans = [_span(intent, yoy.start(), yoy.end())]
        if window is None or span is None or window.end - window.start > dt.timedelta(days=366):
            after = calendar.Window(dt.date(as_of.year, 1, 1), dt.date(as_of.year + 1, 1, 1), str(as_of.year))
        else:
            after = window
            spans.append(span)
            named = re.search(r"\b(month|quarter|year|yr|qtr)\b", span.text.lower())
            months = {"month": 1, "quarter": 3, "year": 12}.get(UNIT_WORDS.get(named.group(1), named.group(1))) \
                if named is not None else None
            if months and after.start.day == 1 and after.end == as_of + calendar.DAY:
                # 'yoy change this yr': the whole year, still running, against the year before (to date with the
                # same days, or with all of it: asked), never against a year cut at a month's start
                after = calendar.Window(after.start, calendar.add_months(after.start, months), after.label)
        label = re.sub(r"\b(?:19|20)\d{2}\b", lambda y: str(int(y.group(0)) - 1), after.label)
        this = re.match(r"(?:this|current)\s+(\w+)$", after.label.lower())
        label = label if label != after.label else f"the {UNIT_WORDS.get(this.group(1), this.group(1))} before" \
            if this is not None else f"{after.label} a year before"
        before = calendar.Window(calendar.add_months(after.start, -12), calendar.add_months(after.end, -12), label)
        return _Periods(before, after, spans)
    if window is None or span is None:
        return None
    text = span.text.lower()
    rest = lower[:span.start] + " " * (span.end - span.start) + lower[span.end:]
    if (m := _SAME_A_YEAR_BEFORE.search(rest)) is not None:
        # 'this month vs the same month last year': the period named against the same one a year before
        named = re.search(r"\b(week|month|quarter|year|wk|qtr|yr)\b", text)
        months = {"month": 1, "quarter": 3}.get(UNIT_WORDS.get(named.group(1), named.group(1)) if named else "")
        after = calendar.Window(window.start, calendar.add_months(window.start, months), window.label) \
            if months else window
        before = calendar.Window(calendar.add_months(after.start, -12), calendar.add_months(after.end, -12),
                                 f"{after.label} a year before")
        return _Periods(before, after, [_span(intent, m.start(), m.end()), span])
    if (m := _THE_ONE_BEFORE.search(rest)) is not None:
        # 'last month compared with the month before': the window against the period just before it
        unit = m.group(1) or m.group(2) or m.group(3)
        months = {"month": 1, "quarter": 3, "year": 12}.get(unit)
        start = calendar.add_months(window.start, -months) if months else window.start - dt.timedelta(days=7)
        before = calendar.Window(start, window.start, f"the {unit} before")
        return _Periods(before, window, [_span(intent, m.start(), m.end()), span])
    unit = re.search(r"\b(week|month|quarter|year|wk|qtr|yr)\b|\b([mqy])td\b", text)
    said = UNIT_WORDS.get(unit.group(1), unit.group(1)) or unit.group(2) if unit else ""
    m = _VS_LAST.search(rest)
    if m is not None and m.group(1) and UNIT_WORDS.get(m.group(1), m.group(1)) != said:
        m = None  # 'this year vs last month' is not the one before
    this = re.match(r"\s*(?:this|current|[mqy]td|(?:year|month|quarter)[- ]to[- ]date)\b", text)
    if m is not None or (_HOW_DOING.search(lower) and this is not None):
        # 'this year vs last', "how's tokyo doing this year": the whole period named (to date, if it still runs)
        # against the one before it
        months = {"month": 1, "quarter": 3, "year": 12, "m": 1, "q": 3, "y": 12}.get(said)
        spans = ([_span(intent, m.start(), m.end())] if m is not None else []) + [span]
        if months is None:
            return _Periods(_period_before(window), window, spans)
        after = calendar.Window(window.start, calendar.add_months(window.start, months), window.label)
        before = calendar.Window(calendar.add_months(window.start, -months), window.start,
                                 _BEFORE_NAMES.get(months, "the period before"))
        return _Periods(before, after, spans)
    baseline = re.search(r"\b(?:on|than|vs\.?|versus|against|to|with|from|since|over)\s+(?:the\s+)?$|"
                         r"\bsame\s+(?:period|time|days|stretch|point|week|month|quarter)\s+(?:of\s+|in\s+)?$",
                         lower[:span.start]) is not None
    if any(w in text for w in ("last", "previous", "prior")) and re.search(r"\b(week|month|quarter|year)\b", text) \
            and baseline:
        # 'up on last month': the period after it, to date, against it ('declined last month': it against the
        # one before, below)
        unit = re.search(r"\b(week|month|quarter|year)\b", text).group(1)  # type: ignore[union-attr]
        after_end = as_of + calendar.DAY
        months = {"month": 1, "quarter": 3, "year": 12}.get(unit)
        # the period after it, whole: when it still runs, it is compared to date with the same days or with the
        # whole of the earlier one (a detection), never half a year against a year unsaid
        whole = calendar.add_months(window.end, months) if months else window.end + dt.timedelta(days=7)
        after = calendar.Window(window.end, max(whole, after_end, window.end + calendar.DAY), f"this {unit}")
        return _Periods(window, after, [span])
    return _lone_period(window, span, text, as_of, lower)


_LONE_UNIT = re.compile(r"\s*(?:(this|current|the current|last|previous|the previous|past|the past)\s+)?"
                        r"(month|quarter|mo|qtr)\s*$|\s*(?:" + MONTH_PATTERN + r"|q[1-4])(?:\s+(?:19|20)\d{2})?\s*$")


_PERIOD_ON_PERIOD = re.compile(r"\b(?:mom|m/m|qoq|q/q|(?:month|quarter)[- ]o(?:ver|n)[- ](?:month|quarter))\b")


def _lone_period(window: calendar.Window, span: Span, text: str, as_of: dt.date, lower: str) -> _Periods:
    """One period named and nothing to compare it with: the one just before it, and, for a month or a
    quarter, the same one a year before (a detection asks which)."""
    lone = _LONE_UNIT.match(text)
    if lone is None or _PERIOD_ON_PERIOD.search(lower):  # 'mom change': the month before, said
        return _Periods(_period_before(window), window, [span])
    months = 3 if (lone.group(2) or "") in ("quarter", "qtr") or text.strip().startswith("q") else 1
    after = window
    if after.start.day == 1 and after.end == as_of + calendar.DAY:
        # this month, still running: the whole month (to date, with the same days or all of the earlier one)
        after = calendar.Window(window.start, calendar.add_months(window.start, months), window.label)
    before = calendar.Window(calendar.add_months(after.start, -months), after.start,
                             _BEFORE_NAMES.get(months, "the period before"))
    year_ago = calendar.Window(calendar.add_months(after.start, -12), calendar.add_months(after.end, -12),
                               _a_year_before(after.label))
    return _Periods(before, after, [span], year_ago=year_ago)


def _a_year_before(label: str) -> str:
    """'June 2025' -> 'June 2024'; 'this month' -> 'the same month a year before'."""
    earlier = re.sub(r"\b(?:19|20)\d{2}\b", lambda y: str(int(y.group(0)) - 1), label)
    if earlier != label:
        return earlier
    this = re.match(r"(?:this|current|last|previous|the previous)\s+(\w+)$", label.lower())
    return f"the same {UNIT_WORDS.get(this.group(1), this.group(1))} a year before" if this else f"{label} a year before"


_BEFORE_NAMES = {1: "the month before", 3: "the quarter before", 6: "the half before", 12: "the year before"}


def _period_before(window: calendar.Window) -> calendar.Window:
    """The period just before `window`, as long as it: whole calendar months against as many months before
    them (November against all of October, never its last 30 days), other windows against as many days."""
    start, end = window.start, window.end
    months = (end.year - start.year) * 12 + end.month - start.month
    if start.day == 1 and end.day == 1 and months > 0:
        return calendar.Window(calendar.add_months(start, -months), start,
                               _BEFORE_NAMES.get(months, f"the {months} months before"))
    length = end - start
    return calendar.Window(start - length, start, f"the {length.days} days before")


_CHANGE_PRESETS = {
    "last_full_month": "Last full month against the month before",
    "last_full_quarter": "Last full quarter against the quarter before",
    "last_30_days": "Last 30 days against the 30 days before",
    "year_to_date": "Year to date against the same days last year",
}


def _preset_change(value: str, as_of: dt.date) -> tuple[calendar.Window, calendar.Window]:
    end = calendar.shift(as_of, calendar.DAY)  # a 9999-12-31 sentinel as the as-of day: clamped
    if value == "last_30_days":
        after = calendar.Window(end - dt.timedelta(days=30), end, "last 30 days")
        return calendar.Window(after.start - dt.timedelta(days=30), after.start, "the 30 days before"), after
    if value == "year_to_date":
        # the same calendar dates a year before: 366 days from 2024-01-01 ran into 2025-01-01, the later period
        start = dt.date(as_of.year, 1, 1)
        paired = _same_days(calendar.Window(dt.date(as_of.year - 1, 1, 1), start, str(as_of.year - 1)),
                            calendar.Window(start, calendar.add_months(start, 12), str(as_of.year)), end)
        return (calendar.Window(paired.before.start, paired.before.end, f"{as_of.year - 1} to the same day"),
                calendar.Window(start, end, f"{as_of.year} to date"))
    months = 3 if value == "last_full_quarter" else 1
    this_start = calendar.quarter_start(end) if months == 3 else end.replace(day=1)
    after_start = calendar.add_months(this_start, -months)
    after = calendar.Window(after_start, this_start, "last full period")
    before = calendar.Window(calendar.add_months(after_start, -months), after_start, "the period before")
    return before, after


def _change_periods(intent: Intent, change: OperatorMention, as_of: dt.date) -> Detection:
    from archetypes.timeframe import ARCHETYPE

    readings = [Reading(value, label, _set_change(value, as_of)) for value, label in _CHANGE_PRESETS.items()]
    return ARCHETYPE.detection(change.span, readings,
                               question=f"Change between which periods? (relative to {as_of.isoformat()})")


def _set_change(value: str, as_of: dt.date):
    def apply(spec: QuerySpec) -> None:
        before, after = _preset_change(value, as_of)
        mode = spec.change.mode if spec.change else "absolute"
        spec.change = Change(before, after, mode)
    return apply


def _change_metric(intent: Intent, change: OperatorMention, profile: SchemaProfile, spec: QuerySpec) -> Detection:
    from archetypes.ranking_metric import ARCHETYPE

    group = spec.group
    options = [(f, m) for f, m in profile.measures_reaching(group.table if group else None) if f.time is not None]
    if any(t[0] in lexicon.MONEY_WORDS for t in intent.tokens) and any(m.money for _, m in options):
        options = [(f, m) for f, m in options if m.money]  # 'the biggest drop in revenue': money, not ratings
    measures = [(spec.fact, spec.measure)] if intent.explicit_measure or intent.measures else options[:3]
    readings = []
    for fact, measure in measures:
        assert measure is not None  # a change reading is of a measure
        for mode, label in (("absolute", "absolute change"), ("relative", "relative change (%)")):
            readings.append(Reading(f"{measure.value}_{mode}", f"{measure.label}: {label}",
                                    _set_mode(fact, measure, mode)))
    noun = plural(group.noun) if group else "rows"
    return ARCHETYPE.detection(change.span, readings, question=f"Rank {noun} by which change?")


def _set_mode(fact: Fact | None, measure: Measure | None, mode: str):
    def apply(spec: QuerySpec) -> None:
        if fact is not None and measure is not None:
            spec.fact, spec.measure = fact, measure
        if spec.change is not None:
            spec.change = Change(spec.change.before, spec.change.after, mode)
    return apply


def _span(intent: Intent, start: int, end: int) -> Span:
    return Span(start, end, intent.question[start:end])


def _first(ops: list[OperatorMention], category: str) -> OperatorMention | None:
    return next((m for m in ops if m.category == category), None)


_SPAN_LINKS = frozenset({"to", "and", "through", "thru", "until", "till"})


_PERIOD_SAID = re.compile(r"(?:19|20)\d{2}|q[1-4]|h[12]|jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|last|this|"
                          r"previous|prior|week|month|quarter|year|today|yesterday|ytd|mtd|period")


def _periods_around(lower: str, start: int, end: int) -> bool:
    """A period's word right before or after the 'vs' ('may vs april', 'this year vs last')."""
    before = lower[:start].split()[-1:]
    after = lower[end:].split()[:4]
    # ('vs the same period last year'; 'billed vs paid in 2024' sets two figures side by side)
    after = after if after[:1] in (["the"], ["same"]) else after[:1]
    return any(_PERIOD_SAID.match(w.strip("?.!,()'")) for w in before + after)


def _one_range(intent: Intent, ops, pair: PeriodPair) -> bool:
    """Two periods named as a span ('from april to june', 'between april and june') with no word of a change or a
    comparison: one run of months, asked as a whole."""
    link = intent.lower[pair.spans[1][0]:pair.spans[1][1]].strip()
    compared = any(m.category in ("change", "compare") and m.word != "between" for m in ops) or \
        _HOW_DOING.search(intent.lower) is not None or lexicon.CHANGE_SAID.search(intent.lower) is not None
    return link in _SPAN_LINKS and not compared and pair.before.end <= pair.after.start


def _main_target(intent: Intent) -> Target | None:
    real = [t for t in intent.targets if not t.entity.column_only]
    # ('which item category grew the most': the category, the head of the compound)
    return compound_head(intent, real[0]) if real else (intent.targets[0] if intent.targets else None)
