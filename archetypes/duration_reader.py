"""A time between two dates of the same row asked for: 'average shipping time', 'how long does it take to resolve
a ticket', 'days to ship by shipper', 'time between order and shipment'. The figure is each row's days (or hours,
minutes, weeks) from its start date to the date its verb names, averaged; rows that have not reached the end date
yet (no shipped date) have no figure and are left out, which the explanation says.

The day difference is a marker (`DAYS_BETWEEN`) written per engine by `days_between_written`: JULIANDAY on SQLite,
epoch seconds on PostgreSQL (timestamp, timestamptz and date alike), TIMESTAMPDIFF on MariaDB, all fractional, so
the three engines give the same figure.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from archetypes.intent import Intent, Span
from archetypes.naming import phrase, singular, slug, words
from archetypes.profile import Fact, Measure, SchemaProfile
from archetypes.profile.facts import time_column
from archetypes.query import QuerySpec

DAYS_BETWEEN = "CHECKER_DAYS_BETWEEN"

# 'shipping time', 'resolution times', 'delivery delay'
_NOUN_TIME = re.compile(r"\b([a-z]+)\s+(?:times?|durations?|delays?)\b")
# 'time to ship', 'days until delivery', 'hours to get resolved'
_TIME_TO = re.compile(r"\b(?:time|days|hours|minutes|weeks)\s+(?:it\s+takes?\s+)?(?:to|until|till|before)\s+"
                      r"(?:(?:get|be|being|getting)\s+)?(?:(?:a|an|the|our|their)\s+[a-z]+\s+)?([a-z]+)")
# 'how long does it take to ship an order', 'how long do tickets take to get resolved'
_HOW_LONG = re.compile(r"\bhow\s+long\s+(?:does|do|did|will|would|is|are|was|were|has|have)\s+(?:it\s+)?"
                       r"(?:[a-z]+\s+){0,4}?(?:take|takes|taking|taken|wait)\s+(?:(?:us|them|for\s+(?:[a-z]+\s+){0,3}?)"
                       r"\s*)?(?:to|until|till|before)\s+(?:(?:get|be|being)\s+)?([a-z]+)")
# 'how long until an order ships', 'how long before tickets are closed'
_HOW_LONG_UNTIL = re.compile(r"\bhow\s+long\s+(?:until|till|before)\s+(?:(?:a|an|the|our)\s+)?(?:[a-z]+\s+){0,2}?"
                             r"(?:is|are|gets?|get|was|were)?\s*([a-z]+)")
# 'time between order and shipment', 'days between ordering and shipping'
_BETWEEN = re.compile(r"\b(?:time|days|hours|minutes|weeks|gap|delay)\s+(?:it\s+takes?\s+)?between\s+(?:the\s+|an?\s+)?"
                      r"([a-z]+)(?:\s+(?:date|time|day))?\s+and\s+(?:the\s+|an?\s+)?([a-z]+)")
# 'days from order to shipment', 'average time from signup to first purchase'
_FROM_TO = re.compile(r"\b(?:time|days|hours|minutes|weeks|gap|delay)\s+(?:it\s+takes?\s+)?from\s+(?:the\s+|an?\s+)?"
                      r"([a-z]+)(?:\s+(?:date|time|day))?\s+(?:to|until|till)\s+(?:the\s+|an?\s+|first\s+)?([a-z]+)")
# 'parcels that took more than a week to ship', 'tickets taking over 3 days to close': rows kept by their own
# time between two dates, not an average of it
_TOOK = re.compile(r"\b(?:took|take|takes|taking|taken|needed|needing)\s+(more than|longer than|over|less than|under|"
                   r"fewer than|at least|at most|within)\s+(an?|one|two|three|four|five|six|seven|ten|\d+(?:\.\d+)?)\s+"
                   r"(days?|weeks?|hours?|months?)\s+(?:to\s+(?:get\s+|be\s+)?|before\s+(?:being\s+|it\s+was\s+)?)"
                   r"([a-z]+)")
_TOOK_OPS = {"more than": "gt", "longer than": "gt", "over": "gt", "less than": "lt", "under": "lt",
             "fewer than": "lt", "at least": "ge", "at most": "le", "within": "le"}
_NUMBER_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "ten": 10}
_DAYS_IN = {"day": 1, "week": 7, "hour": 1 / 24, "month": 365.25 / 12}
# 'which shipper is the fastest to ship', 'who delivers quickest'
_FAST_TO = re.compile(r"\b(?:fastest|quickest|slowest|speediest)\s+(?:[a-z]+\s+){0,2}?(?:to|at|in)\s+(?:get\s+)?"
                      r"([a-z]+)")
# 'which request type takes longest to resolve', 'who took the most time to reply'
_TAKES_LONGEST = re.compile(r"\b(?:takes?|took|taking|needs?|needed)\s+(?:the\s+)?(?:longest|shortest|most\s+time|"
                            r"least\s+time|longer|less\s+time|more\s+time)\s+(?:on\s+average\s+)?to\s+(?:get\s+)?"
                            r"([a-z]+)")
_VERB_FAST = re.compile(r"\b([a-z]+?)(?:es|s)?\s+(?:the\s+)?(?:fastest|quickest|slowest)\b")
# 'how long do subscriptions last', 'average subscription length': a row's life, from its start to its end
_LASTS = re.compile(r"\bhow\s+long\s+(?:does|do|did|will)\s+(?:a|an|the|our|their)?\s*([a-z]+)\s+"
                    r"(?:usually\s+|typically\s+)?(?:last|lasts|stay|stays|run|survive|remain)\b")
_LENGTH = re.compile(r"\b(?!(?:average|avg|mean|median|typical|total|the|a|an|of)\b)([a-z]+)\s+"
                     r"(?:length|lengths|lifetime|lifespan|duration|durations|tenure)\b|"
                     r"\b(?:length|lengths|duration|durations)\s+of\s+(?:a\s+|an\s+|the\s+|each\s+|their\s+)?([a-z]+)|"
                     r"\b(?:average|avg|mean|median|typical)\s+(stay|stays)(?:\s+(?:length|lengths|duration))?\b|"
                     r"\bhow\s+long\s+(?:do|does|did)\s+(?:[a-z]+\s+){0,3}?(stay|stays)\b|"
                     r"(?<!\bat )(?<!\bby )\b(nights|(?<=\bper )night|(?<=\ba )night|(?<=\beach )night|(?<=\bone )night)\b")
# 'downtime hours by reason', 'outage minutes': the time the rows a word names span, in that unit, added up
_UNIT_OF = re.compile(r"\b([a-z]{4,})\s+(hours|hrs|minutes|mins)\b")
_UNIT_NAMES = {"hours": "hour", "hrs": "hour", "minutes": "minute", "mins": "minute"}
# 'how many sick days', 'how many vacation days were taken': the days each row spans, added up
_DAYS_TAKEN = re.compile(r"\bhow many\s+(?:[a-z]+\s+){1,2}?(days)\b(?!\s+(?:ago|of (?:the )?week|left|remain|did|does|do|"
                         r"to|until|between|since|before|after))")
# 'nights sold', 'how many nights', 'total nights': the spans added up, not averaged
_SPAN_WORDS = frozenset({"stay", "night", "day"})
_AVERAGED = re.compile(r"\b(?:average|avg|mean|median|typical|per)\b")
_SUMMED = re.compile(r"\bhow many\s+(?:[a-z]+\s+){1,2}?days\b|"
                     r"\b(?:how many|total|sum of|number of)\s+(?:[a-z]+\s+)?nights?\b|\bnights?\s+"
                     r"(?:sold|stayed|booked|spent)\b")
_END_WORDS = frozenset("end ended ending ends finished closed cancelled canceled churned terminated stopped left "
                       "expired expires".split())
_UNIT = re.compile(r"\b(hours?|minutes?|weeks?|days?|nights?|months?)\b")
_FACTORS = {"hour": 24, "minute": 1440, "week": 1 / 7, "day": 1, "month": 12 / 365.25}

# the date a row begins with, when the question names only its end
_START_WORDS = frozenset("created creation opened open ordered order placed submitted started start requested "
                         "booked registered raised reported logged received signup signed issued".split())
_IRREGULAR = {"pay": "paid", "payment": "paid", "paying": "paid", "paid": "paid"}
_NOT_A_VERB = frozenset("the a an our their it this that last first next each every average avg mean median total "
                        "typical is are was were who which what one".split())
_FASTEST = re.compile(r"\b(?:fastest|quickest|shortest|speediest|least)\b")  # ('least time' too)
_SLOWEST = re.compile(r"\b(?:slowest|longest|most\s+time)\b")


@dataclass
class DurationAsked:
    table: str
    start: str
    end: str
    unit: str
    read: list[Span]
    ranked: bool = False    # 'which shipper is the fastest': rows of another table ranked by it
    summed: bool = False    # 'nights sold': each row's span added up
    others: tuple[tuple[str, str], ...] = ()  # other (start, end) pairs the words fit as well: a delay on departure
    #                                           or on arrival
    kept: tuple[str, float, str] | None = None  # rows kept by their own duration: (op, days, the words), not averaged


def _root(word: str) -> str:
    return _IRREGULAR.get(word, word)


def _names_column(word: str, column: str) -> bool:
    """'shipping' names shipped_date, 'resolution' resolved_at, 'response' first_response_at: a shared root."""
    word = _root(word)
    for part in words(column):
        if part in ("at", "date", "time", "on", "day", "ts", "timestamp", "dt"):
            continue
        shared = 0
        for a, b in zip(word, part):
            if a != b:
                break
            shared += 1
        if shared >= 4 or shared == len(part) >= 3 and len(word) <= len(part) + 4:
            return True
    return False


def _temporal(profile: SchemaProfile, table: str) -> list[str]:
    info = profile.tables.get(table)
    return [c.name for c in info.columns if c.family == "temporal"] if info is not None else []


def _start_of(profile: SchemaProfile, table: str, end: str) -> str | None:
    fact = profile.facts.get(table)
    if fact is not None and fact.time is not None and fact.time.table == table and fact.time.column != end:
        return fact.time.column
    others = [c for c in _temporal(profile, table) if c != end]
    started = [c for c in others if set(words(c)) & _START_WORDS]
    if started:
        return started[0]
    return others[0] if len(others) == 1 else None


def _table_named(word: str, tables) -> str | None:
    """The first of `tables` whose name holds `word` ('downtime' names downtime_events)."""
    return next((t for t in tables if _singular_root(word) in {_singular_root(w) for w in words(t)}), None)


def units_of_rows(lower: str, profile: SchemaProfile) -> list[re.Match[str]]:
    """'downtime hours', 'outage minutes': a unit of time after a word that names a table (its rows' span)."""
    return [m for m in _UNIT_OF.finditer(lower) if _table_named(m.group(1), profile.tables) is not None]


def duration_asked(intent: Intent, profile: SchemaProfile, mentioned: tuple[str, ...] = ()) -> DurationAsked | None:
    """The table and its two dates a duration is asked between, or None when the question asks no duration (or
    names an end no date column holds: the report then says the duration was not read)."""
    lower = intent.lower
    found: list[tuple[re.Match[str], str | None, str]] = []
    for pattern in (_TAKES_LONGEST, _HOW_LONG, _HOW_LONG_UNTIL, _TIME_TO, _NOUN_TIME, _FAST_TO, _VERB_FAST):
        for m in pattern.finditer(lower):
            if m.group(1) not in _NOT_A_VERB:
                found.append((m, None, m.group(1)))
    for m in (*_BETWEEN.finditer(lower), *_FROM_TO.finditer(lower)):
        found.append((m, m.group(1), m.group(2)))
    took = _TOOK.search(lower)
    if took is not None and took.group(4) not in _NOT_A_VERB:
        found.insert(0, (took, None, took.group(4)))
    lives = [m for pattern in (_LASTS, _LENGTH, _DAYS_TAKEN) for m in pattern.finditer(lower)]
    units_of = units_of_rows(lower, profile)
    delay = _DELAY.search(lower)
    if not found and not lives and delay is None and not units_of:
        return None
    tables = sorted((t for t in profile.tables if len(_temporal(profile, t)) >= 2),
                    key=lambda t: (t not in mentioned, t not in profile.facts, t))
    for m, start_word, end_word in found:
        for table in tables:
            dates = _temporal(profile, table)
            ends = [c for c in dates if _names_column(end_word, c)]
            if start_word is not None:
                starts = [c for c in dates if _names_column(start_word, c) or set(words(c)) & {start_word}]
                if not starts or not ends or starts[0] == ends[0]:
                    continue
                start, end = starts[0], ends[0]
            else:
                if len(ends) != 1:
                    continue
                end = ends[0]
                began = _start_of(profile, table, end)
                if began is None or _names_column(end_word, began):
                    continue
                start = began
            if m.re is _TOOK:
                said_number, unit = m.group(2), m.group(3).rstrip("s")
                days = (_NUMBER_WORDS.get(said_number) or float(said_number)) * _DAYS_IN[unit]
                return DurationAsked(table, start, end, "day", [_span(intent, m)],
                                     kept=(_TOOK_OPS[m.group(1)], days, f"{m.group(1)} {said_number} {m.group(3)}"))
            said, read = _unit_said(intent, m)
            speed = [s for s in (_FASTEST.search(lower), _SLOWEST.search(lower)) if s is not None]
            read += [_span(intent, s) for s in speed]
            return DurationAsked(table, start, end, said, read, ranked=bool(speed))
    if delay is not None:
        # 'average delay', 'how late are flights': from the planned moment to the actual one, on each pair a
        # row has (departure and arrival), the one the question names when it names one
        for table in tables:
            pairs = _planned_pairs(profile, table)
            fitting = [p for p in pairs if delay.group(1) and _names_column(delay.group(1), p[1])]
            chosen = fitting or pairs
            if chosen:
                unit, read = _unit_said(intent, delay)
                unit = unit if _UNIT.search(lower) else "minute"  # a delay is minutes unless a unit is asked
                if delay.group(1) and not fitting:  # 'worst delays': the word before is not the pair's, read apart
                    begin = delay.start(1) + len(delay.group(1)) + 1
                    read[0] = Span(begin, delay.end(), intent.question[begin:delay.end()])
                return DurationAsked(table, chosen[0][0], chosen[0][1], unit, read, others=tuple(chosen[1:]))
    for m in units_of if _AVERAGED.search(lower) is None else ():  # (an average per something: not read here)
        held = _table_named(m.group(1), tables)
        span = _pair(profile, held) if held is not None else None
        if held is not None and span is not None:
            return DurationAsked(held, span[0], span[1], _UNIT_NAMES[m.group(2)], [_span(intent, m)], summed=True)
    for m in lives:
        # the table the word names (or the rows asked about), from its start to the date it ended
        word = next(g for g in m.groups() if g)
        named = _table_named(word, tables)
        # a word of a span of time itself ('stay', 'nights') is any table's span; another word must name the table
        # ('subscription length' is no booking's stay)
        anywhere = [t for t in tables if t != named] if _singular_root(word) in _SPAN_WORDS else []
        for table in ([named] if named is not None else []) + anywhere:
            span = _pair(profile, table)
            if span is None:
                continue
            said, read = _unit_said(intent, m)
            return DurationAsked(table, span[0], span[1], said, read,
                                 summed=_SUMMED.search(lower) is not None and _AVERAGED.search(lower) is None)
    return None


# 'average delay', 'arrival delays', 'how late are flights', 'late by how much'
_DELAY = re.compile(r"\b(?:([a-z]+)\s+)?(?:delays?|lateness)\b|\bhow\s+late\b|\blate\s+by\b")
_PLANNED = frozenset({"scheduled", "planned", "expected", "estimated", "promised", "due", "sched", "plan"})
_ACTUAL = frozenset({"actual", "real", "actually", "effective"})


def _planned_pairs(profile: SchemaProfile, table: str) -> list[tuple[str, str]]:
    """Two dates of a row, planned and actual, that differ only by those words ('scheduled_departure',
    'actual_departure')."""
    dates = _temporal(profile, table)
    pairs = []
    for first in dates:
        for second in dates:
            a, b = words(first), words(second)
            differ = [(x, y) for x, y in zip(a, b) if x != y]
            if len(a) == len(b) and len(differ) == 1 and differ[0][0] in _PLANNED and differ[0][1] in _ACTUAL:
                pairs.append((first, second))
    return pairs


# two dates of a row that open and close one span of it: check-in and check-out, started and ended
_PAIRS = (("in", "out"), ("start", "end"), ("started", "ended"), ("starts", "ends"), ("begin", "end"),
          ("from", "to"), ("arrival", "departure"), ("arrive", "depart"), ("pickup", "dropoff"),
          ("opened", "closed"), ("checkin", "checkout"))


def _pair(profile: SchemaProfile, table: str) -> tuple[str, str] | None:
    """The start and the end of the span one row covers: two date columns whose names differ by a start word
    and its end word ('check_in', 'check_out'), or the row's start and the one date of an end ('ended_on')."""
    dates = _temporal(profile, table)
    for first in dates:
        for second in dates:
            a, b = words(first), words(second)
            if len(a) != len(b) or a == b:
                continue
            differ = [(x, y) for x, y in zip(a, b) if x != y]
            if len(differ) == 1 and differ[0] in _PAIRS:
                return first, second
    ends = [c for c in dates if set(words(c)) & _END_WORDS]
    began = _start_of(profile, table, ends[0]) if len(ends) == 1 else None
    return (began, ends[0]) if began is not None else None


def _unit_said(intent: Intent, m: re.Match[str]) -> tuple[str, list[Span]]:
    """The unit asked ('in hours'; a night is a day) and the words read: the phrase matched and the unit's."""
    unit = _UNIT.search(intent.lower)
    read = [_span(intent, m)] + ([_span(intent, unit)] if unit is not None else [])
    said = unit.group(1).rstrip("s") if unit is not None else "day"
    return ("day" if said == "night" else said), read


def _span(intent: Intent, m: re.Match[str]) -> Span:
    return Span(m.start(), m.end(), intent.question[m.start():m.end()])


def _singular_root(word: str) -> str:
    return singular(word).lower()


def duration_measure(asked: DurationAsked) -> Measure:
    factor = _FACTORS[asked.unit]
    days = f'{DAYS_BETWEEN}("{asked.start}", "{asked.end}")'
    scaled = days if factor == 1 else f"{days} * {factor}" if factor > 1 else \
        f"{days} / 7.0" if asked.unit == "week" else f"{days} * 12.0 / 365.25"  # a month: a twelfth of a year
    units = f"{asked.unit}s"
    return Measure(slug(f"{units} to {phrase(asked.end)}"), f"{units} from {phrase(asked.start)} to "
                   f"{phrase(asked.end)} (rows with both)", "expression", asked.table, (asked.start, asked.end), expression=scaled)


def apply_duration(asked: DurationAsked, intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """The spec: each row's duration averaged (or its median), fastest first when asked which is fastest."""
    fact = profile.facts.get(asked.table)
    if fact is None or fact.time is None or fact.time.table != asked.table:
        info = profile.tables[asked.table]
        column = info.column(asked.start)
        assert column is not None  # a temporal column of the table
        fact = Fact(table=asked.table, measures=[], row_count=info.row_count, time=time_column(info, column))
    spec.fact, spec.measure, spec.count_table = fact, duration_measure(asked), None
    spec.agg, spec.per_table, spec.per_all, spec.weight = None if asked.summed else "avg", None, False, None
    lower = intent.lower
    if _FASTEST.search(lower):
        spec.ascending = True
    elif _SLOWEST.search(lower):
        spec.ascending = False


def days_between_written(node: exp.Anonymous, dialect: str) -> exp.Expr | None:
    """The engine's own fractional day difference for one `DAYS_BETWEEN(start, end)` marker (None: another
    function)."""
    if str(node.this).upper() != DAYS_BETWEEN or len(node.expressions) != 2:
        return None
    start, end = (e.copy() for e in node.expressions)
    if dialect == "sqlite":
        difference: exp.Expr = exp.Sub(this=exp.Anonymous(this="JULIANDAY", expressions=[end]),
                                       expression=exp.Anonymous(this="JULIANDAY", expressions=[start]))
        return exp.Paren(this=difference)
    if dialect == "postgres":
        seconds: exp.Expr = exp.Sub(this=exp.Extract(this=exp.var("EPOCH"), expression=end),
                                    expression=exp.Extract(this=exp.var("EPOCH"), expression=start))
    else:
        seconds = exp.Anonymous(this="TIMESTAMPDIFF", expressions=[exp.var("SECOND"), start, end])
    return exp.Paren(this=exp.Div(this=exp.Paren(this=seconds), expression=exp.Literal.number("86400.0")))


def computes_duration(query: exp.Expr) -> bool:
    return any(str(n.this).upper() == DAYS_BETWEEN for n in query.find_all(exp.Anonymous)) or \
        query.find(exp.DateDiff, exp.TimestampDiff) is not None
