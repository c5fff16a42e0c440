"""What a question computes: the analytic shape its operators ask for, read into the base query spec.

Averages and ratios ('average order value', 'revenue per customer'), shares ('what share of revenue'),
change between periods (archetypes.change_reader), absence ('never sold'), conditions on totals
('more than 500 units'), time-part distributions ('busiest weekday', 'best month ever') and attribute
superlatives ('cheapest product in each category', 'longest playlist'). A shape that has several
defensible forms (basket size, absolute or relative change, which time part) returns its readings as a
detection of the archetype that owns that kind of question. Operators no shape reflects stay unread.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from archetypes import calendar, lexicon, naming
from archetypes.change_reader import read_change
from archetypes.counted import (
    bridge_between,
    bridges_to,
    buyers,
    distinct_rows,
    rows_counted,
    rows_of,
    state_rows_counted,
    verb_facts,
)
from archetypes.counted import header_of as _header_of
from archetypes.grounding import OperatorMention
from archetypes.hierarchy import read_hierarchy
from archetypes.intent import RE_YEAR, STOPWORDS, Intent, Span, Target, catalogue, vocabulary
from archetypes.model import Detection, Reading
from archetypes.naming import phrase, plural, same_root, singular, slug, words
from archetypes.profile import Edge, Entity, Fact, Measure, SchemaProfile
from archetypes.profile.facts import MONEY_COLUMN_WORDS
from archetypes.profile.keys import is_key
from archetypes.query import RANKING_LIMIT, Attribute, EntityFilter, QuerySpec, RowCondition
from archetypes.stock_level import read_stock_level, stock_words
from archetypes.values import lemma

_ASCENDING = frozenset({"worst", "least", "fewest", "lowest", "bottom", "weakest", "smallest", "quietest",
                        "slowest", "drop", "dropped", "drops", "decline", "declined", "declines", "declining",
                        "decrease", "decreased", "fall", "fell", "fallen", "down", "lost", "loss", "shrank"})
_THRESHOLD = re.compile(r"\b(more than|greater than|over|above|at least|exceeding|exceeded|topped|surpassed|"
                        r"less than|fewer than|under|longer than|shorter than|"
                        r"below|at most|exactly|only (?:have|has|had)|just (?:have|has|had)|only|just|cost|costs|costing|priced at|sell for|sells for|"
                        r"selling for)\s+\$?(\d[\d,]*(?:\.\d+)?|one|two|three|four|five|six|"
                        r"seven|eight|nine|ten|once|twice|thrice)\s*(k\b|thousand\b|grand\b|million\b|mn\b|m\b)?")
# '15+ visits': at least that many (the same groups as above, the comparison word empty)
_AT_LEAST_PLUS = re.compile(r"()(?<![\w.$])\$?(\d[\d,]*(?:\.\d+)?)\s*(k\b|thousand\b|million\b|m\b)?"
                            r"(?:\+(?=\s|$)|\s+or\s+more\b)")
# 'more than 125 thousand', '10k', '2 million': the number said times its scale word
_SCALE = {"k": 1000, "thousand": 1000, "grand": 1000, "million": 1_000_000, "mn": 1_000_000, "m": 1_000_000}


# 'clients who only bought from us once': exactly that many times, the words between read with it
_ONLY_TIMES = re.compile(r"\b(only|just)(?:\s+[\w']+){1,5}?\s+(once|twice|thrice)()\b")


def _threshold(text: str) -> re.Match[str] | None:
    return _THRESHOLD.search(text) or _AT_LEAST_PLUS.search(text) or _ONLY_TIMES.search(text)


_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                 "ten": 10, "once": 1, "twice": 2, "thrice": 3}
_TIMES_WORDS = frozenset({"once", "twice", "thrice"})  # 'more than once': a number of events
_OPS = {"more than": "gt", "greater than": "gt", "over": "gt", "above": "gt", "exceeding": "gt", "exceeded": "gt",
        "topped": "gt", "surpassed": "gt",
        "at least": "ge", "less than": "lt", "fewer than": "lt", "under": "lt", "below": "lt", "at most": "le",
        "exactly": "eq", "only": "eq", "just": "eq", "only have": "eq", "only has": "eq", "only had": "eq",
        "just have": "eq", "just has": "eq", "just had": "eq", "": "ge", "longer than": "gt", "shorter than": "lt"}
# a price said with its verb ('tracks that cost 1.99'): that price, and money without a currency word
_PRICED_AT = {"cost": "eq", "costs": "eq", "costing": "eq", "priced at": "eq", "sell for": "eq", "sells for": "eq",
              "selling for": "eq"}
_OPS.update(_PRICED_AT)
_DURATION_AFTER = re.compile(r"\s*(ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?)\b")
_DURATION_UNITS = {"ms": "ms", "sec": "second", "secs": "second", "min": "minute", "mins": "minute",
                   "hr": "hour", "hrs": "hour"}
# ('average order value for each employee': 'for each' groups, as _BY reads it; no ratio per employee)
_PER = re.compile(r"\b(?:per|(?<!for )(?<!in )each|(?<!for )(?<!in )every|a|an)\s+([a-z][a-z ]{1,30})")
_BY = re.compile(r"\b(?:by|for each|in each|across)\s+[a-z]")
_ASKS_FIGURE = re.compile(r"^\s*(?:what(?:'s| is| was| are)|how (?:much|many)|give me the|tell me the)\b")
_BARE = re.compile(r"^\s*(?!(?:count|show|list|give|plot|chart|draw|display|number)\b)"
                   r"(?:our\s+|the\s+|total\s+)?[a-z]+(?:\s+[a-z]+)?\s+(?:per|a|an|each)\s+[a-z]+"
                   r"(?:\s+(?:in|for|at|from|during|since|last|this|of)\b[^?.!]*)?\s*[?.!]*\s*$")  # 'in canada'
# 'basket size', 'avg order size': units, lines or value per order
_BASKET = re.compile(r"\b(?:basket|cart)\s+(size|value)s?\b|\b(?:order|invoice|ticket|transaction|purchase|sale)\s+(size)s?\b")
_ORDER_VALUE = re.compile(r"\b(?:average|avg|mean|median|typical)\s+(?:\w+\s+)?(?:value|size|worth)\b|\baov\b")
_WHEN_MOST = re.compile(r"\bwhen\b.*\b(most(?!\s+recent)|busiest|peak|least|fewest)\b|\b(busiest|quietest|peak|slowest)\b")
_PARTS = (("weekday", re.compile(r"\b(weekday|day of (?:the )?week|which day|what day|days of (?:the )?week)\b")),
          ("hour", re.compile(r"\b(hour|time of (?:the )?day|what time|which time)\b")),
          ("month_key", re.compile(r"\b(month|months)\b.*\b(ever|all[- ]time|on record)\b|"
                                   r"\b(?:best|worst|busiest|quietest|slowest|strongest|weakest|biggest|peak)\s+"
                                   r"month\b")),
          ("month", re.compile(r"\b(month of (?:the )?year|which month|what month|season)\b")),
          ("year", re.compile(r"\b(which year|what year|(?:best|worst|busiest|quietest|strongest|weakest) year)\b")))


@dataclass
class ShapeRead:
    consumed: set[str] = field(default_factory=set)
    read: list[Span] = field(default_factory=list)
    unread: list[tuple[Span, str]] = field(default_factory=list)
    detections: list[Detection] = field(default_factory=list)
    replaces: set[str] = field(default_factory=set)      # archetype ids whose own detection this replaces
    pending_values: bool = False    # a value held by several columns: the entity readings add its filter
    value_spans: list[Span] = field(default_factory=list)   # data values named: their words are not operators
    share_of_passing: OperatorMention | None = None  # 'what pct of visits are over $500': the part is a condition
    pending_owner: Entity | None = None  # the one table of the rows a name could mean: the entity readings filter
    flag_spans: list[Span] = field(default_factory=list)  # where the conditions named ('late', 'discontinued') are


def _without(text: str, spans: list[Span]) -> str:
    """The text with the spans blanked (same length, so offsets still hold)."""
    for span in spans:
        text = text[:span.start] + " " * (span.end - span.start) + text[span.end:]
    return text


def read_shape(intent: Intent, ops: list[OperatorMention], profile: SchemaProfile, spec: QuerySpec,
               as_of: dt.date, pending_values: bool = False, value_spans: list[Span] | None = None,
               pending_owner: Entity | None = None, flag_spans: list[Span] | None = None) -> ShapeRead:
    out = ShapeRead()
    out.flag_spans = list(flag_spans or [])
    out.pending_values = pending_values
    out.pending_owner = pending_owner
    out.value_spans = list(value_spans or [])
    window = intent.window_span
    if window is not None:  # 'joined last year': 'last' is the window's word, not the latest row
        ops = [m for m in ops if not (window.start <= m.span.start < window.end and m.category == "attribute")]
    kinds = {m.category for m in ops}
    words_used = {m.word for m in ops}
    if words_used & _ASCENDING:
        spec.ascending = True
    if _top_per_group(intent, spec, profile, out) or _exchange_rate(intent, profile, spec, out) or \
            _duration(intent, profile, spec, out) or _best_rated(intent, profile, spec, out) or \
            read_hierarchy(intent, profile, spec, out):
        return out
    _fiscal_unknown(intent, profile, out)
    _every_one_of_theirs(intent, out)
    _counted_state(intent, profile, spec)
    for reader in (_holders_counted, _new_rows, _stock_value, _named_column_total, _both_values, _absence,
                   _figure_over_figure, _share, read_change,
                   _distribution, _first_or_last, _largest_event, _attribute,
                   _how_much_we_have, _duration_total, _against_average, _average, _parent_length_average,
                   _period_average, _having, _currency_of_rows,
                   _who_dated, _active_rows, _listing):
        reader(intent, ops, kinds, profile, spec, as_of, out)
    if out.share_of_passing is not None:
        _share_of_passing(out.share_of_passing, profile, spec, out)
    _percent_change(ops, spec, out)
    _typical_middle(intent, ops, spec, out)
    _stock_level(intent, profile, spec, out)
    _not_yet(intent, profile, spec, out)
    _without_column(intent, profile, spec, out)
    _counted_in_currency(intent, profile, spec)
    _bad_rate_ranked(words_used, spec)
    return out


def _bad_rate_ranked(words_used: set[str], spec: QuerySpec) -> None:
    """'the store with the worst cancellation rate' has the most cancellations for its size: a share (or a count)
    of rows in a state nobody wants is worst highest, best lowest."""
    said = words_used & {"worst", "best"}
    # ('which store is worst for cancellations': the rows in that state counted, most of them worst)
    values = [str(v).lower() for f in spec.share_filters or spec.filters if not f.negate for v in f.values]
    if len(said) != 1 or not values or not all(v in lexicon.BAD_STATES for v in values) or spec.group is None:
        return
    spec.ascending = said == {"best"}


COUNT_SAID = re.compile(r"\b(?:number|count|counts|tally|how many)\b")


def _counted_state(intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """'the number of no-shows in 2024', 'how did the number of no-shows change': rows in a state, counted (a count
    is said), never the money of another table's rows that hang off them (none, for visits nobody came to)."""
    if spec.fact is None or spec.measure is None or not spec.measure.money or intent.measures or \
            intent.explicit_measure or intent.money or lexicon.names_a_figure(intent.tokens) or \
            COUNT_SAID.search(intent.lower) is None:
        return
    counted = state_rows_counted(profile, spec.filters)
    if counted is not None:
        (spec.fact, spec.measure), spec.count_table = counted, None


def _typical_middle(intent: Intent, ops: list[OperatorMention], spec: QuerySpec, out: ShapeRead) -> None:
    """'a typical invoice amount': the mean, or the median (the middle one, which a few large rows do not pull
    up); a median reading that cannot be computed for a combination is dropped when it is built."""
    from archetypes.aggregation_level import ARCHETYPE

    typical = next((m for m in ops if m.category == "average" and m.word in ("typical", "typically")), None)
    if typical is None or spec.median or "average" not in out.consumed:
        return

    def middle(spec: QuerySpec) -> None:
        spec.median = True

    readings = [Reading("mean", "The mean (the average)", lambda spec: None),
                Reading("median", "The median (the middle one, not pulled by a few large values)", middle)]
    out.detections.append(ARCHETYPE.detection(typical.span, readings, question="Typical as the mean or the median?"))


def _counted_in_currency(intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """'how many visits in eur last month': rows counted in a currency named are the rows recorded in it (a count
    is in no currency, so no treatment of money applies and the words would be dropped)."""
    code = intent.currency_named
    if code is None or spec.fact is None or spec.measure is None or spec.measure.money or spec.currency_mode or \
            spec.measure.kind not in ("count", "count_distinct") or \
            any(code in c.values for c in spec.share_conditions):  # (the part of a share: read there)
        return
    found = profile.currency_for(spec.fact, spec.measure)
    if found is not None and code in found[0].codes:
        spec.currency_mode, spec.currency_target = "only", code


_FISCAL_WORD = re.compile(r"\bfiscal\b|\bfy\s?(?:\d{2,4}\b|(?=q[1-4]\b))")


def _fiscal_unknown(intent: Intent, profile: SchemaProfile, out: ShapeRead) -> None:
    """'this fiscal quarter' on data with no fiscal calendar: the calendar period is all there is, said so."""
    m = _FISCAL_WORD.search(intent.lower)
    if m is not None and not (profile.fiscal or profile.fiscal_year_start):
        out.unread.append((_span(intent, m.start(), m.end()),
                           "this database has no fiscal calendar, so no reading is fiscal: the calendar period was "
                           "used (a profile override can set the year's first month)"))


_TOP_PER = re.compile(r"\b(?:top|best|bottom|worst)\s+\d{1,3}\s+[a-z]+(?:\s+[a-z]+)?\s+"
                      r"((?:per|in each|for each|in every|by|within each)\s+[a-z]+)")


def _top_per_group(intent: Intent, spec: QuerySpec, profile: SchemaProfile, out: ShapeRead) -> bool:
    """'top 3 albums per genre': the ranking runs within each row of the group (`spec.partition`), rather than
    read as a ratio ('revenue per category') or a ranking of all. A top N within groups the spec could not take
    (over a series, a second breakdown, a shape of its own) is said to be unread."""
    if spec.partition is not None and intent.partition_span is not None:
        if spec.grain or spec.also_by is not None or spec.shape != "aggregate" or spec.fact is None:
            out.unread.append((intent.partition_span, "the top rows within each group are not computed over a "
                                                      "series or a second breakdown"))
            spec.partition, spec.limit = None, intent.top_n or RANKING_LIMIT
            return True
        if profile.path(spec.fact.table, spec.partition.table) is None:
            # 'top 5 tracks per playlist': no rows of events reach the group (a bridge to it is not joined)
            out.unread.append((intent.partition_span, f"no {phrase(spec.fact.table) or spec.fact.table} row reaches "
                                                      f"a {spec.partition.noun}: no top rows within each"))
            spec.partition, spec.limit = None, intent.top_n or RANKING_LIMIT
            return True
        out.read.append(intent.partition_span)
        out.consumed.add("per")
        return True
    m = _TOP_PER.search(intent.lower)
    # the group is named right there ('per genre'); 'top 5 genres by number of tracks' names a figure
    if m is None or not any(m.start(1) <= t.span.start < m.end(1) for t in intent.targets) or \
            any(s.start <= m.end(1) <= s.end for _, s in intent.measures):  # 'by tracks sold': the figure
        return False
    out.unread.append((_span(intent, m.start(1), m.end(1)), "the top rows within each group are not computed yet"))
    return True


def _exchange_rate(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'the euro exchange rate on 14 march 2025', 'avg eur to usd rate in q1 2025': the rate table's own rates
    (archetypes.rate_reader), not money summed."""
    from archetypes.rate_reader import apply_rate, rate_asked

    asked = rate_asked(intent, profile)
    if asked is None:
        return False
    quoted = apply_rate(asked, profile, spec)
    if quoted is not None:
        out.detections.append(quoted)
    out.read += asked.read
    out.consumed |= {"rate", "share", "average", "ranking", "attribute", "distribution"}
    out.replaces |= {"ranking_metric", "unit", "timezone", "record_scope", "aggregation_level"}
    return True


def _duration(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'average shipping time', 'how long does it take to resolve a ticket': each row's time between two of its
    dates, averaged (archetypes.duration_reader), not its money or its count."""
    from archetypes.duration_reader import apply_duration, duration_asked

    mentioned = tuple(t.entity.table for t in intent.targets) + ((spec.fact.table,) if spec.fact else ())
    asked = duration_asked(intent, profile, mentioned)
    if asked is None:
        return False
    if asked.kept is not None:  # 'parcels that took more than a week to ship': those rows, counted or listed
        op, days, length = asked.kept
        spec.conditions = [*spec.conditions, RowCondition(
            asked.table, asked.end, f"days_{op}", (asked.start, repr(days)),
            label=f"{phrase(asked.end)} {length} after {phrase(asked.start)}")]
        if _ROWS_ASKED.match(intent.lower) and COUNT_SAID.search(intent.lower) is None and \
                intent.how_many is None and spec.group is None:
            # 'which claims took longer than 100 days to close': those rows, listed, not how many
            info = profile.tables[asked.table]
            spec.shape, spec.fact, spec.measure, spec.count_table, spec.limit = "list", None, None, None, None
            spec.group = profile.entities.get(asked.table) or _event_entity(asked.table, info.primary_key)
        out.read += asked.read
        out.consumed |= {"compare"}
        out.replaces |= {"ranking_metric", "unit", "aggregation_level"}  # 'a week' is no weekly series
        return True
    apply_duration(asked, intent, profile, spec)
    # 'average delay': the bags whose status is 'delayed' are not the rows timed
    said = {lemma(w) for span in asked.read for w in words(span.text)}
    spec.filters = [f for f in spec.filters if f.entity.table == asked.table or
                    profile.path(asked.table, f.entity.table) is not None or not {lemma(v.lower()) for v in f.values} & said]
    if asked.others and spec.fact is not None:  # 'average delay': on departure or on arrival, each a reading
        from archetypes.duration_reader import duration_measure
        from archetypes.ranking_metric import ARCHETYPE

        readings = []
        for start, end in ((asked.start, asked.end), *asked.others):
            measure = duration_measure(replace(asked, start=start, end=end))
            readings.append(Reading(measure.value, measure.label, _set_measure(spec.fact, measure)))
        out.detections.append(ARCHETYPE.detection(asked.read[0], readings, question="Which times apart?"))
    _group_by_mention(intent, spec, profile=profile)
    if spec.group is None and asked.ranked:
        # 'which shipper is the fastest to ship': the rows of the entity asked about, ranked by their average
        ranked = next((t for t in intent.targets if t.entity.table != asked.table and
                       profile.path(asked.table, t.entity.table) is not None), None)
        if ranked is not None:
            spec.group, spec.limit = ranked.entity, intent.top_n or 1
    if spec.group is not None and spec.group.table == asked.table and not spec.group.column_only:
        spec.group, spec.limit = None, None  # 'how long do visits take to close': the visits are the rows, not groups
    out.read += asked.read
    out.consumed |= {"average", "ranking", "attribute", "distribution"}
    out.replaces |= {"ranking_metric", "unit", "aggregation_level"}
    return True


_BEST_RATED = re.compile(r"\b(best|top|highest|most highly|worst|lowest|poorest)[- ]rated\b|\brated\s+(best|highest|worst|"
                    r"lowest)\b")


def _best_rated(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'which hotel is the best rated', 'our worst-rated trainers': the rows named, ranked by the average of a
    rating column of the rows that rate them (a rating is averaged, never added up, and no money is meant)."""
    m = _BEST_RATED.search(intent.lower)
    if m is None:
        return False
    for target in intent.targets:
        for name, info in profile.tables.items():
            column = _score_column(profile, name)
            if column is None or name == target.entity.table or profile.path(name, target.entity.table) is None:
                continue
            spec.fact = profile.facts.get(name) or Fact(table=name, measures=[], row_count=info.row_count)
            spec.measure = Measure(slug(column), phrase(column), "sum", name, (column,))
            spec.agg, spec.per_table, spec.count_table, spec.weight = "avg", None, None, None
            spec.group, spec.limit = target.entity, intent.top_n or RANKING_LIMIT
            spec.ascending = (m.group(1) or m.group(2)) in ("worst", "lowest", "poorest")
            out.read.append(_span(intent, m.start(), m.end()))
            out.consumed |= {"ranking", "average", "attribute"}
            out.replaces |= {"ranking_metric", "unit"}
            return True
    return False


def _score_column(profile: SchemaProfile, table: str) -> str | None:
    """The column a table's rows rate with: named a rating ('rating', 'score'), never a key ('rating_id'), or the
    one figure of a table of ratings ('stars' of ratings)."""
    info = profile.tables[table]
    keys = set(info.primary_key) | {c for fk in info.foreign_keys for c in fk.columns}
    numeric = [c.name for c in info.columns if c.family == "numeric" and c.name not in keys]
    rated = [c for c in numeric if set(words(c)) & lexicon.RATING_WORDS]
    if not rated and len(numeric) == 1 and {singular(w) for w in words(table)} & \
            {singular(w) for w in lexicon.RATING_WORDS | {"review", "reviews"}}:
        rated = numeric
    return rated[0] if rated else None


def _span(intent: Intent, start: int, end: int) -> Span:
    return Span(start, end, intent.question[start:end])


def _first(ops: list[OperatorMention], category: str) -> OperatorMention | None:
    return next((m for m in ops if m.category == category), None)


def _target_after(intent: Intent, position: int) -> Target | None:
    after = [t for t in intent.targets if t.span.start >= position and not t.entity.column_only]
    return after[0] if after else None


def _main_target(intent: Intent) -> Target | None:
    real = [t for t in intent.targets if not t.entity.column_only]
    return real[0] if real else (intent.targets[0] if intent.targets else None)


# (a supplier that sells 3 items offers them; 'didn't sell a single track' is of the past, sales)
_SOLD_VERB = re.compile(r"\b(?:sold|bought|purchased|ordered)\b|\b(?:didn'?t|did\s+not|haven'?t|hasn'?t|never)\s+(?:sell|buy|purchase|order)\b")


def _sold_of(intent: Intent, profile: SchemaProfile, table: str) -> Fact | None:
    """The fact whose lines sell `table`'s rows, when a verb of selling is said ('tracks sold', 'never sold a
    track'): those rows' sales are meant, not the rows themselves."""
    if _SOLD_VERB.search(intent.lower) is None:
        return None
    return next((f for f in profile.fact_list() if f.table != table and
                 any(e.ref_table == table for e in profile.edges.get(f.table, ())) and
                 any(m.money for m in f.measures)), None)


def _pointing_table(intent: Intent, profile: SchemaProfile, table: str, after: int) -> tuple[Fact, Measure] | None:
    """'employees who don't look after any clients': the table named after the negation, when its rows point
    straight at the entity's, is what is absent (not the events further away)."""
    for target in intent.targets:
        named = target.entity.table
        if target.span.start < after or named == table or target.entity.column_only or named in profile.facts:
            continue
        if any(e.ref_table == table for e in profile.edges.get(named, ())):
            return rows_counted(named, profile)
        # 'playlists with no tracks': the table pairing the two (a playlist's track rows) is what is absent
        bridge = next((b for b, edges in profile.edges.items() if b not in (table, named) and
                       {e.ref_table for e in edges} >= {table, named}), None)
        if bridge is not None:
            return rows_counted(bridge, profile)
    return None


def _named_fact(intent: Intent, profile: SchemaProfile, table: str) -> Fact | None:
    """A table of events the question names ('clients who never paid an invoice'), when it reaches `table`."""
    named = [t.entity.table for t in intent.targets] + [m.table for m, _ in intent.measures]
    for name in named:
        if name != table and name in profile.facts and profile.path(name, table) is not None:
            return profile.facts[name]
    return None


def _nearest_fact(profile: SchemaProfile, table: str) -> Fact | None:
    """The fact whose rows point at `table` most directly (the primary fact on a tie)."""
    primary = profile.primary_fact()
    best: tuple[int, int, Fact] | None = None
    for fact in profile.facts.values():
        if fact.table == table:
            continue
        route = profile.path(fact.table, table)
        if route is None:
            continue
        rank = (len(route), 0 if primary is not None and fact.table == primary.table else 1)
        if best is None or rank < best[:2]:
            best = (rank[0], rank[1], fact)
    return best[2] if best else None


# -- absence -----------------------------------------------------------------------------------------

def _absence(intent, ops, kinds, profile, spec, as_of, out) -> None:
    # ('nothing' only after a verb of the events: 'genres that sold nothing')
    negation = [m for m in ops if m.category == "negation" and (m.word not in ("nothing",) or re.search(
        r"\b(?:sold|sell|sells|bought|ordered|earned|made|booked)\s+nothing\b", intent.lower))]
    if not negation:
        return
    target = _main_target(intent)
    if target is None:
        return
    entity = target.entity
    counted = intent.how_many[0] if intent.how_many is not None else _rows_read(spec)
    if _missing_column(intent.lower, profile, entity.table) is not None or \
            counted is not None and _missing_column(intent.lower, profile, counted) is not None:
        return  # 'clients without a company', 'visits with no vet': the rows' own empty column, read after the shape
    pointing = _pointing_table(intent, profile, entity.table, negation[0].span.end)
    if pointing is not None and _sold_of(intent, profile, pointing[0].table) is not None:
        pointing = None  # 'genres that never sold a single track': the tracks' sales, not the catalogue's tracks
    # ('members who never booked': the facts the verb names, the bookings, before the nearest ones)
    said = [profile.facts[t] for t in verb_facts(intent, profile) if t in profile.facts and t != entity.table and
            profile.path(t, entity.table) is not None]
    fact = pointing[0] if pointing else _named_fact(intent, profile, entity.table) or \
        (said[0] if len(said) == 1 else None) or _nearest_fact(profile, entity.table)
    if fact is None or entity.column_only or len(entity.key) != 1:
        out.unread.append((negation[0].span, f"no table of events points at {entity.noun}: nothing can be absent"))
        return
    if not pointing and any(profile.path(fact.table, f.entity.table) is None for f in spec.filters):
        # 'clients who never bought a laptop': the events must reach the category too (the lines, not the
        # invoices)
        fact = next((f for f in profile.fact_list() if profile.path(f.table, entity.table) is not None and
                     all(profile.path(f.table, x.entity.table) is not None for x in spec.filters)), fact)
    counted = pointing[1] if pointing else next((m for m in fact.measures if m.kind == "count"), None) or (
        fact.measures[0] if fact.measures else None)
    if counted is None:
        return
    spec.shape, spec.absent, spec.fact, spec.measure = "absence", entity, fact, counted
    spec.group, spec.limit = None, None
    if intent.currency_named and profile.currency_for(fact):
        # 'which shops dont sell in dollars': no rows in that currency
        spec.currency_mode, spec.currency_target = "only", intent.currency_named
    spec.absent_count = intent.how_many is not None and intent.how_many[0] == entity.table  # 'how many ... never'
    out.consumed.add("negation")
    out.replaces |= {"ranking_metric", "unit"}
    _present_then_absent(intent, profile, spec, as_of, out)


_BOTH = re.compile(r"\bboth\b")


def _both_values(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'clients who bought both rock and jazz', 'how many clients ordered both a phone and a watch': the
    rows of an entity with some events of each value (one EXISTS each), never the events of either value."""
    m = _BOTH.search(intent.lower)
    if m is None or spec.shape != "aggregate" or any(x.category in ("negation", "change", "share") for x in ops):
        return
    # the values and the rows' names said after 'both' (a name of several rows is read by the entity readings)
    said = {(v.start, v.end) for v in [*out.value_spans, *intent.names] if v.start > m.end()} | \
        {(at, at) for f in spec.filters if (at := _filter_start(intent, f)) > m.end()}
    if len({start for start, _ in said}) + (1 if out.pending_values else 0) < 2:
        return
    target = _main_target(intent)
    if target is None or target.entity.column_only or len(target.entity.key) != 1 or target.span.start > m.start():
        return
    entity = target.entity
    fact = _named_fact(intent, profile, entity.table) or _nearest_fact(profile, entity.table)
    if fact is not None and any(profile.path(fact.table, f.entity.table) is None for f in spec.filters):
        fact = next((f for f in profile.fact_list() if profile.path(f.table, entity.table) is not None and
                     all(profile.path(f.table, x.entity.table) is not None for x in spec.filters)), None)
    counted = next((x for x in fact.measures if x.kind == "count"), None) or (fact.measures[0] if fact.measures
                                                                             else None) if fact is not None else None
    if fact is None or counted is None:
        return
    spec.shape, spec.absent, spec.fact, spec.measure = "absence", entity, fact, counted
    spec.present, spec.each_value, spec.group, spec.limit, spec.count_table = True, True, None, None, None
    spec.absent_count = intent.how_many is not None and intent.how_many[0] == entity.table
    out.read.append(_span(intent, m.start(), m.end()))
    out.replaces |= {"ranking_metric", "unit"}


_STOCK_VALUE = re.compile(r"\b(?:stock|inventory)\s+(?:value|worth)\b|\b(?:value|worth)\s+of\s+(?:our\s+|the\s+|all\s+)?"
                          r"(?:stock|inventory)\b|\bhow\s+much\s+is\s+(?:our\s+|the\s+)?(?:stock|inventory)\s+worth\b")


def _stock_value(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'stock value by category', 'what is our inventory worth': each row's price times its quantity in stock,
    added up (archetypes.stock_level finds the stock column), not the sales."""
    from archetypes.stock_level import stock_columns

    m = _STOCK_VALUE.search(intent.lower)
    if m is None or spec.shape != "aggregate":
        return
    for table in profile.tables:
        columns = stock_columns(profile, table)
        prices = _attribute_columns(profile, table, "price")
        if columns is None or not prices:
            continue
        info = profile.tables[table]
        spec.fact = profile.facts.get(table) or Fact(table=table, measures=[], row_count=info.row_count)
        spec.measure = Measure("stock_value", f"{phrase(prices[0])} × {phrase(columns.stock)}", "product", table,
                               (prices[0], columns.stock), money=True)
        spec.count_table, spec.agg, spec.per_table, spec.window = None, None, None, None
        spec.filters = [f for f in spec.filters if f.entity.table == table or profile.path(table, f.entity.table)]
        _group_by_mention(intent, spec, profile=profile)
        if spec.group is not None and spec.group.table != table and profile.path(table, spec.group.table) is None:
            spec.group = None
        out.read.append(_span(intent, m.start(), m.end()))
        out.consumed |= {"average", "ranking"}
        out.replaces |= {"ranking_metric", "unit", "timeframe", "timezone"}
        return


def _named_column_total(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'total units on order', 'units in stock for beverages': a figure column of the catalogue named by its whole
    name, added up over its rows, not a shorter measure word inside that name ('units' sold)."""
    if spec.shape != "aggregate" or spec.measure is None or spec.measure.kind not in ("sum", "product") or \
            intent.ranking is not None or intent.superlative is not None or \
            kinds & {"average", "share", "ratio", "attribute", "distribution", "change", "compare"}:
        return
    for table, info in profile.tables.items():
        if table in profile.facts:
            continue
        keys = set(info.primary_key) | {c for fk in info.foreign_keys for c in fk.columns}
        for column in info.columns:
            parts = words(column.name)
            if column.family != "numeric" or column.name in keys or len(parts) < 2 or column.name in spec.measure.columns:
                continue
            m = re.search(r"\b" + r"\s+".join(re.escape(w) + "s?" for w in parts) + r"\b", intent.lower)
            if m is None or any(f.entity.table != table and profile.path(table, f.entity.table) is None
                                for f in spec.filters) or \
                    not any(m.start() <= s.start and s.end <= m.end() for _, s in intent.measures):
                continue  # (only where a shorter measure word inside the name was read: 'units' of 'units on order')
            spec.fact = Fact(table=table, measures=[], row_count=info.row_count)
            spec.measure = Measure(slug(column.name), phrase(column.name), "sum", table, (column.name,))
            spec.count_table, spec.window = None, None
            out.read.append(_span(intent, m.start(), m.end()))
            out.replaces |= {"ranking_metric", "unit", "timeframe", "timezone"}
            return


_HOLDERS = re.compile(r"^\s*how\s+many\s+(.+?)\s+(?:had|have|has|got|received|made|booked|attended|did)\s+"
                      r"(?:a|an|any|some|at\s+least\s+one)?\b")


def _holders_counted(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'how many dogs had a completed appointment in 2025': the distinct rows the named value picks (the dogs, of
    the pets) among those events, not the events counted."""
    m = _HOLDERS.match(intent.lower)
    if m is None or spec.shape != "aggregate" or spec.fact is None or spec.measure is None or \
            spec.measure.kind not in ("count", "count_distinct") or spec.group is not None:
        return
    named = [f for f in spec.filters if not f.negate and m.start(1) <= _filter_start(intent, f) < m.end(1)]
    if len(named) != 1:
        return
    table = named[0].entity.table
    edges = profile.path(spec.fact.table, table)
    if table == spec.fact.table or edges is None or len(edges) != 1 or len(edges[0].columns) != 1:
        return
    spec.measure = distinct_rows(spec.fact.table, table, edges[0].columns)
    spec.count_table = None
    out.replaces.add("ranking_metric")


def _filter_start(intent: Intent, flt: EntityFilter) -> int:
    """Where the question names a filter's value (-1 when it does not say it as typed)."""
    said = [intent.lower.find(v.lower()) for v in flt.values]
    found = [i for i in said if i >= 0]
    if found:
        return min(found)
    singulars = [intent.lower.find(singular(v.lower())) for v in flt.values]
    return min((i for i in singulars if i >= 0), default=-1)


_NEW = re.compile(r"\b(new|first[- ]time)\b")
_JOINED_SAID = re.compile(r"\b(?:sign(?:ed)?[- ]?ups?|joined|registered|created|onboarded|enrolled)\b")


def _new_rows(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'how many new clients did we get in 2024' where the clients carry no date of their own: those whose first
    event falls in the window (events then, none before it), not every client, nor the window passed over."""
    m = _NEW.search(intent.lower)
    window = spec.window
    if m is None or window is None or window.open_start or spec.shape != "aggregate" or \
            any(mention.category == "negation" for mention in ops):
        return
    target = next((t for t in intent.targets if t.span.start > m.end(1) and not t.entity.column_only and
                   not intent.lower[m.end(1):t.span.start].strip()), None)
    if target is None or len(target.entity.key) != 1 or _JOINED_SAID.search(intent.lower) or \
            any(s.start <= m.start(1) < s.end for s in out.value_spans + intent.names):
        return  # ('new york'; 'new clients who signed up in 2023': their own date, said)
    entity = target.entity
    fact = _named_fact(intent, profile, entity.table) or _nearest_fact(profile, entity.table)
    counted = next((x for x in fact.measures if x.kind == "count"), None) if fact is not None else None
    if fact is None or counted is None or fact.time is None or fact.table == entity.table:
        return
    many = intent.how_many is not None and intent.how_many[0] == entity.table or COUNT_SAID.search(intent.lower) is not None

    def first_event(spec: QuerySpec) -> None:
        spec.shape, spec.absent, spec.fact, spec.measure = "absence", entity, fact, counted
        spec.group, spec.limit, spec.count_table, spec.list_columns = None, None, None, ()
        spec.present_window = window
        spec.window = calendar.Window(calendar.OPEN_START, window.start, f"before {window.start.isoformat()}")
        spec.absent_count = many
        spec.conditions = [c for c in spec.conditions if c.table != entity.table or c.op not in ("since", "before_day")]

    def own_date(spec: QuerySpec) -> None:
        # the rows themselves, counted by their own date: anything else (a sum of their events) is not this reading
        if spec.measure is None or spec.measure.kind != "count" or rows_of(profile, spec.measure) != entity.table:
            spec.invalid = True

    out.read.append(_span(intent, m.start(1), m.end(1)))
    out.replaces |= {"ranking_metric", "unit"}
    if any(c.family == "temporal" for c in profile.tables[entity.table].columns):
        # the rows' own date ('signed up') says when they are new, or their first event does: both asked
        from archetypes.timeframe import ARCHETYPE

        out.detections.append(ARCHETYPE.detection(_span(intent, m.start(1), m.end(1)), [
            Reading("own_date", f"New: the {plural(entity.noun)} whose own date falls in the window", own_date),
            Reading("first_event", f"New: the {plural(entity.noun)} whose first {phrase(fact.table)} falls in the window",
                    first_event)], question=f"New {plural(entity.noun)} as in added then, or first active then?"))
        return
    first_event(spec)
    out.consumed.add("negation")
    out.replaces.add("timeframe")


# 'ordered in 2024 but not in 2025', 'bought last year and haven't this year': events in one window, none in the next
_BUT_NOT = re.compile(r"\b(?:but|and|yet)\s+(?:not|never|haven'?t|hasn'?t|didn'?t|did not|have not|has not|no longer)\b")


# 'signed up', 'joined', 'registered': the date a row was created
_JOINED_IN = re.compile(r"\b(?:sign(?:ed|s)?[- ]?up|joined|registered|enrolled|onboarded|created)\s+(?:with us\s+)?"
                        r"(?:(?:in|during|on|at)\s+)?$")
_CREATED_WORDS = frozenset({"created", "creation", "signed", "signup", "joined", "registered", "registration",
                            "enrolled", "onboarded"})


def _joined_in(intent: Intent, profile: SchemaProfile, spec: QuerySpec, window: tuple, out: ShapeRead) -> bool:
    """'clients who signed up in 2024 and never paid': the window bounds the rows' own creation date, not the
    events looked for (those are looked for at any time, or in a window of their own)."""
    entity = spec.absent
    span = window[1]
    joined = _JOINED_IN.search(intent.lower[:span[0]].rstrip() + " ")
    if entity is None or joined is None:
        return False
    table = profile.tables.get(entity.table)
    column = next((c for c in (table.columns if table else []) if c.family == "temporal" and
                   set(words(c.name)) & _CREATED_WORDS), None)
    if column is None:
        return False
    start, end = window[0].start.isoformat(), window[0].end.isoformat()
    last = (window[0].end - dt.timedelta(days=1)).isoformat()
    spec.conditions += [RowCondition(entity.table, column.name, "since", (start,),
                                     label=f"{phrase(column.name)} {start} to {last}"),
                        RowCondition(entity.table, column.name, "before_day", (end,))]
    out.read += [_span(intent, joined.start(), joined.end()), _span(intent, *span)]
    out.replaces.add("timeframe")
    return True


def _present_then_absent(intent: Intent, profile: SchemaProfile, spec: QuerySpec, as_of: dt.date,
                         out: ShapeRead) -> None:
    from archetypes.intent import _concrete_window

    first = _concrete_window(intent.lower, as_of)
    if first is not None and _joined_in(intent, profile, spec, first, out):
        # and the events of a window of their own, after the negation, or at any time
        negated = re.search(r"\b(?:not|never|haven'?t|hasn'?t|didn'?t|no)\b", intent.lower[first[1][1]:])
        after = _concrete_window(intent.lower[first[1][1] + negated.end():], as_of) if negated else None
        spec.window = after[0] if after is not None else None
        if after is not None and negated is not None:
            offset = first[1][1] + negated.end()
            out.read.append(_span(intent, offset + after[1][0], offset + after[1][1]))
        for joint in re.finditer(r"\b(?:but|yet)\b", intent.lower[first[1][1]:]):  # 'signed up in 2023 but ...'
            out.read.append(_span(intent, first[1][1] + joint.start(), first[1][1] + joint.end()))
        return
    m = _BUT_NOT.search(intent.lower)
    if m is None:
        # "last year's clients who haven't bought this year": the window's own rows, then none in the next
        m = re.search(r"\b(?:not|never|haven'?t|hasn'?t|didn'?t|no longer)\b", intent.lower)
        owned = m is not None and _concrete_window(intent.lower[:m.start()], as_of)
        if not owned or not re.match(r"['’]s\b", intent.question.lower()[owned[1][1]:]):
            return
    assert m is not None
    before = _concrete_window(intent.lower[:m.start()], as_of)
    after = _concrete_window(intent.lower[m.end():], as_of)
    if before is None or after is None:
        return
    spec.present_window, spec.window = before[0], after[0]
    out.replaces.add("timeframe")  # each window as the calendar names it: which of them a reading moves is unclear
    out.read += [_span(intent, m.start(), m.end()), _span(intent, *before[1]),
                 _span(intent, m.end() + after[1][0], m.end() + after[1][1])]


# -- share and rate ----------------------------------------------------------------------------------

# 'freight as % of sales', 'shipping costs relative to sales', 'refunds divided by revenue'
_OVER_FIGURE = re.compile(r"\b(?:as\s+(?:a\s+)?(?:%|percent(?:age)?|pct|share|fraction|proportion|ratio)\s+of|"
                          r"relative\s+to|divided\s+by)(?=\s)")


def _figure_over_figure(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'freight as % of sales': the figure named first over the one named after, each summed over the same window
    and filters (the rows of the one are not the rows of the other: each its own total)."""
    m = _OVER_FIGURE.search(intent.lower)
    summed = ("sum", "product", "expression")
    per = _PER_FIGURE.search(intent.lower) if m is None else None
    if per is not None and any(s.start == per.start(1) and x.kind in summed for x, s in intent.measures):
        m = per  # 'cost per click', 'revenue per unit': a figure over another figure of the same rows
    if m is None or spec.shape != "aggregate" or spec.group is not None and m is not per:
        return
    before = [(x, s) for x, s in intent.measures if s.end <= m.start() and x.kind in summed]
    after = [(x, s) for x, s in intent.measures if s.start >= m.start(1 if m is per else 0) and x.kind in summed]
    said_after = [w for w, s, _ in intent.tokens if s >= m.end()]
    if len(before) != 1:
        return
    numerator = before[0][0]
    if after:
        denominator: Measure | None = after[0][0]
    elif any(w in lexicon.FACT_NOUNS or w in lexicon.MONEY_WORDS for w in said_after):
        primary = profile.primary_fact()  # 'sales': the money of the main fact, as a total would read it
        denominator = next((x for x in primary.measures if x.money), None) if primary is not None else None
    else:
        denominator = None
    if denominator is None or denominator == numerator or numerator.table not in profile.facts or \
            denominator.table not in profile.facts:
        return
    spec.ratio_of = (profile.facts[numerator.table], numerator)
    spec.ratio_plain = m is per
    spec.fact, spec.measure, spec.count_table, spec.agg, spec.per_table = \
        profile.facts[denominator.table], denominator, None, None, None
    out.read.append(_span(intent, m.start(), m.end()))
    out.read += [_span(intent, s, e) for w, s, e in intent.tokens if w in ("percent", "%", "pct") and s >= m.end()]
    out.consumed |= {"share", "rate", "average", "compare"}


_PER_FIGURE = re.compile(r"\bper\s+([a-z]+)")


_PERCENT_ASKED = re.compile(r"\b(?:in|as\s+a?)\s*(?:%|percent(?:age)?|pct)(?=\W|$)|(?:%|percent(?:age)?|pct)\s+(?:change|"
                         r"growth|increase|decrease|drop|decline)\b")


def _currency_is_part(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'what percent of bookings are paid in yen': rows counted, their currency the part (no money is summed, so no
    currency is mixed)."""
    code, said = intent.currency_named, intent.currency
    if code is None or said is None or spec.fact is None or spec.measure is None or \
            spec.measure.kind not in ("count", "count_distinct"):
        return False
    held = next((c for c in profile.currency_columns if c.table == spec.fact.table and code in c.codes), None)
    if held is None:
        return False
    spec.share_conditions = [RowCondition(held.table, held.column, "eq", (code,),
                                          label=f"{phrase(held.column)} is {code}")]
    spec.shape, spec.currency_mode, spec.currency_target, spec.group, spec.limit = "share", None, None, None, None
    out.read.append(said)
    out.replaces.add("unit")
    out.consumed |= {"share", "rate"}
    return True


def _share(intent, ops, kinds, profile, spec, as_of, out) -> None:
    if spec.ratio_of is not None:
        return  # a figure over another: read by _figure_over_figure
    share = _first(ops, "share") or _first(ops, "rate")
    if share is not None and spec.shape == "absence" and share.category == "share":
        spec.absent_share, spec.absent_count = True, False  # 'what % of our tracks were never bought'
        out.consumed |= {"share"}
        return
    if share is None or spec.shape != "aggregate":
        return
    if "change" in kinds and _PERCENT_ASKED.search(intent.lower):
        return  # "how did london's revenue change from q1 to q2, in %": a change in percent, read by read_change
    said = {singular(w) for w, _, _ in intent.tokens}
    named = _numeric_mentioned(intent, profile, spec) if share.category == "rate" and _first(ops, "share") is None \
        else None
    # a column whose name holds the word, every word of it said ('the average hourly rate'), is no share
    rate_column = {singular(w) for w in words(named[1])} if named is not None else set()
    if not (singular(share.word) in rate_column and rate_column <= said):
        rate_column = set()
    if len(rate_column) > 1:
        out.read.append(share.span)  # 'average interest rate of mortgages': a column named so, whole, not a share
        return
    if _ratio_of_values(intent, profile, spec, out):
        return
    before = _threshold(intent.lower[:share.span.start])
    if before is not None and not intent.lower[before.end():share.span.start].strip():
        out.consumed.add(share.category)  # 'an avg discount over 6%': the threshold's unit, read with it
        out.read.append(share.span)
        return
    before_rate = re.search(r"([a-z]+)\s+$", intent.lower[:share.span.start])
    # ('refund rate' beside a commission 'rate' column: the word before names a state of the rows, a share)
    stated = before_rate is not None and any(same_root(before_rate.group(1), w) for f in spec.filters
                                             for v in f.values for w in words(str(v)))
    if rate_column and not stated:  # ('cancellation rate' is no 'nightly rate' column)
        out.read.append(share.span)  # 'the average hourly rate': a column named so, not a share
        return
    lower = intent.lower
    top = re.search(r"\btop\s+(\d{1,3})\b", lower)
    if top is not None and intent.group is not None:
        spec.shape, spec.share_top = "share", int(top.group(1))
        spec.limit = None
        out.consumed |= {"share", "rate"}
        out.read.append(_span(intent, top.start(), top.end()))
        out.replaces.add("ranking_metric")
        return
    if _rate_of_counts(intent, share, profile, spec, out):
        return  # 'which newsletter has the best open rate': opens over recipients, not each one's share of opens
    if not spec.filters and not out.pending_values and spec.conditions:
        # 'what pct of our items are discontinued': a yes/no column the question names is the part
        spec.share_conditions, spec.conditions = list(spec.conditions), []
    elif not spec.filters and not out.pending_values and intent.group is not None and spec.group is not None:
        # 'share of revenue by store', 'sales by country as a %': each group's part of the total of all of them
        spec.shape, spec.share_of_total, spec.limit = "share", True, None
        out.consumed |= {"share", "rate"}
        return
    elif not spec.filters and not out.pending_values and _threshold(intent.lower) is not None:
        out.share_of_passing = share  # the condition is read below, then made the part
        return
    elif not spec.filters and not out.pending_values and _share_who_did(intent, profile, spec, share, out):
        return
    elif not spec.filters and not out.pending_values and _currency_is_part(intent, profile, spec, out):
        return  # 'what percent of bookings are paid in yen': the rows in that currency are the part
    elif not spec.filters and not out.pending_values:
        out.unread.append((share.span, _NO_PART))
        return
    spec.shape = "share"
    if _condition_is_part(intent, share, ops, spec, out):
        # 'on-time rate for united package', 'what % of united package parcels shipped late': the condition is
        # the part, the values name whose rows make the whole (not the shipper's share of the late parcels)
        spec.share_conditions, spec.conditions = list(spec.conditions), []
    else:
        spec.share_filters = _share_part(intent, share, spec.filters, out.value_spans)
        if _condition_joins_part(intent, share, spec, out):
            # 'share of revenue from discontinued beverages': the condition is part of what the part is
            spec.share_conditions, spec.conditions = list(spec.conditions), []
    if len(spec.filters) > 1 and len(spec.share_filters) > 1:
        # 'the refund rate for the tokyo shop', 'what percentage of trips were cancelled in porto': the state is
        # the part, the place scopes the whole
        states = [f for f in spec.filters if f.entity.column_only and
                  lexicon.is_state_column(words(f.entity.name_columns[0]))]
        spec.share_filters = states or spec.share_filters
    # 'which store has the highest refund rate', 'refund rate by store': one share per group, ranked
    # (a part named on the group's own rows is every row of some groups: unless it is another column of that
    # table, 'cancellation rate by channel': the status and the channel of the same bookings)
    per_group = intent.group is not None and spec.group is not None and \
        not any(f.entity.table == spec.group.table and not (
            f.entity.column_only and spec.group.column_only and f.entity.name_columns != spec.group.name_columns)
            for f in spec.share_filters)
    if not per_group:
        spec.group, spec.limit = None, None
    elif intent.ranking is None and intent.superlative is None:
        spec.limit = None
    else:
        spec.limit = intent.top_n or RANKING_LIMIT
    counted_table = _counted_table(intent, profile)
    said_kinds = spec.share_conditions[0].table if spec.share_conditions and not spec.share_filters else None
    if counted_table is None and said_kinds is not None and said_kinds not in profile.facts and \
            not intent.money and not {w for w, _, _ in intent.tokens} & (lexicon.MONEY_WORDS | lexicon.SALES_WORDS) \
            and profile.tables[said_kinds].primary_key:
        # 'what % of beverages are discontinued': the rows the condition is on are counted, not their sales
        counted_table = rows_counted(said_kinds, profile)
    if counted_table is not None:
        spec.fact, spec.measure = counted_table
    elif (share.category == "rate" or _counts_rows(intent) or _counts_holder(profile, spec)) and \
            (spec.share_filters or spec.share_conditions):  # 'refund rate', 'late shipment rate': rows counted
        holder = spec.share_filters[0].entity.table if spec.share_filters else spec.share_conditions[0].table
        status_fact = _fact_holding(profile, holder)
        if status_fact is not None:
            counted = next((m for m in status_fact.measures if m.kind == "count"), None)
            if counted is not None:
                spec.fact, spec.measure = status_fact, counted
    if per_group and spec.group is not None and spec.fact is not None and spec.measure is not None and \
            profile.path(spec.fact.table, spec.group.table) is None:
        # 'which category has the highest refund rate': the invoices are counted on the lines, which reach both
        rows = rows_of(profile, spec.measure) if spec.measure.kind.startswith("count") else None
        spec.fact, spec.measure = next(
            ((f, x) for f in profile.fact_list() for x in f.measures
             if x.kind == "count_distinct" and rows is not None and rows_of(profile, x) == rows and
             profile.path(f.table, spec.group.table) is not None), (spec.fact, spec.measure))
    _timely_whole(intent, spec, share, out) or _state_whole(profile, spec, share, out)
    out.consumed |= {"share", "rate"}
    said = {w for w, _, _ in intent.tokens}
    if counted_table is not None or not said & lexicon.SALES_WORDS or said & lexicon.MONEY_WORDS or \
            intent.currency_named:
        out.replaces.add("ranking_metric")  # else 'what share of our sales': of the money or of the units, asked


# what a count of outcomes is out of, on the same rows ('opens' of 'recipients', 'clicks' of 'impressions')
_OUT_OF_WORDS = frozenset({"recipient", "recipients", "sent", "send", "sends", "delivered", "impression", "impressions",
                           "view", "views", "visitor", "visitors", "session", "sessions", "attempt", "attempts",
                           "audience", "reach", "eligible", "shots", "shot", "trials", "trial"})
_RATE_OF = re.compile(r"([a-z]+)(?:[- ]through)?[- ]+$")


def _rate_of_counts(intent: Intent, share: OperatorMention, profile: SchemaProfile, spec: QuerySpec,
                    out: ShapeRead) -> bool:
    """'open rate', 'click-through rate' of rows that hold both counts ('opens' and 'recipients' of each send): the
    one over the other, pooled (all opens over all recipients) or the mean of each row's own rate, which can name
    another winner."""
    from archetypes.ranking_metric import ARCHETYPE

    said = _RATE_OF.search(intent.lower[:share.span.start])
    if share.category != "rate" or said is None or said.group(1) in STOPWORDS:
        return False
    group = spec.group.table if spec.group is not None else None
    for fact in [f for f in profile.fact_list() if group is None or f.table == group or profile.path(f.table, group)]:
        table = profile.tables[fact.table]
        columns = [c for c in table.columns if c.family == "numeric" and not is_key(table, c)]
        part = next((c.name for c in columns if singular(said.group(1)) in {singular(w) for w in words(c.name)}), None)
        whole = next((c.name for c in columns if set(words(c.name)) & _OUT_OF_WORDS and c.name != part), None)
        if part is None or whole is None:
            continue
        named = f"{' '.join(words(part))} over {' '.join(words(whole))}"
        rate = Measure(slug(f"{said.group(1)} rate"), named, "expression", fact.table, (part, whole),
                       expression=f'"{part}" * 1.0 / NULLIF("{whole}", 0)')  # (quoted: 'Open Count')
        pooled = Measure(slug(whole), f"Sum of {phrase(whole)}", "sum", fact.table, (whole,))

        def mean(weight: Measure | None) -> Callable[[QuerySpec], None]:
            def apply(one: QuerySpec) -> None:
                one.agg, one.weight = ("weighted", weight) if weight is not None else ("avg", None)
            return apply

        per = re.search(r"\b(?:per|for each|by)\s+([a-z]+)", intent.lower[share.span.end:])
        owner = vocabulary(profile).tables.get((singular(per.group(1)),)) if per is not None else None
        if per is not None and owner in profile.entities and (spec.group is None or spec.group.table == owner) and \
                profile.path(fact.table, owner) is not None:
            spec.group = profile.entities[owner]  # 'click rate per newsletter': each newsletter's own rate
            spec.per_table, spec.per_all = None, False
            out.consumed.add("per")
            out.read.append(_span(intent, share.span.end + per.start(), share.span.end + per.end()))
        spec.fact, spec.measure, spec.count_table = fact, rate, None
        spec.agg, spec.weight = "weighted", pooled
        row = singular(phrase(fact.table).split()[-1]) if phrase(fact.table) else "row"
        out.detections.append(ARCHETYPE.detection(
            share.span, [Reading("pooled", f"All {' '.join(words(part))} over all {' '.join(words(whole))}",
                                 mean(pooled)),
                         Reading("mean_of_rows", f"The mean of each {row}'s own rate", mean(None))],
            question=f"The {said.group(1)} rate pooled over every {row}, or the mean of each {row}'s rate?"))
        out.read += [share.span, _span(intent, said.start(1), said.end(1))]
        out.consumed |= {"share", "rate", "average"}
        out.replaces.add("ranking_metric")
        return True
    return False


# a refund or a return presupposes the sale, a cancelled row (lexicon.NEVER_HAPPENED) never had it
# an outcome instead of the deed: a visit nobody came to ('no-show rate')
_MISSED = frozenset({"no_show", "no-show", "no show", "noshow", "missed", "absent"})
_UNDONE_AFTER = frozenset({"refunded", "returned", "partially refunded", "partially_refunded", "chargeback",
                           "charged back", "charged_back", "disputed", "reversed", "exchanged"}) | _MISSED
# states of a row whose outcome is not known yet: neither done nor missed ('scheduled' visits ahead)
_UNDECIDED = frozenset({"scheduled", "pending", "upcoming", "open", "booked", "planned"})


def _state_whole(profile: SchemaProfile, spec: QuerySpec, share: OperatorMention, out: ShapeRead) -> bool:
    """'refund rate', 'what % of visits get refunded': of every row, or of the rows that went through (a
    cancelled one can never be refunded, so it may be left out of the whole): two wholes, two answers."""
    from archetypes.ranking_metric import ARCHETYPE  # which whole: the share replaced the metric question

    part = spec.share_filters[0] if len(spec.share_filters) == 1 and not spec.share_conditions else None
    if part is None or not part.entity.column_only or part.negate or \
            not lexicon.is_state_column(words(part.entity.name_columns[0])):
        return False
    column = next((c for c in profile.tables[part.entity.table].columns if c.name == part.entity.name_columns[0]),
                  None)
    asked = {str(v).lower() for v in part.values}
    never = tuple(v for v in (column.samples if column is not None else ()) if v.lower() in lexicon.NEVER_HAPPENED or
                  v.lower() in _UNDECIDED and asked & _MISSED)
    if not never or not asked or not asked <= _UNDONE_AFTER:
        return False  # 'share completed': a cancelled row is one that did not complete, it stays in the whole
    rows = plural(phrase(part.entity.table))
    left_out = EntityFilter(part.entity, never, negate=True)

    def went_through(spec: QuerySpec) -> None:
        spec.filters.append(left_out)

    readings = [Reading("all", f"Of every {phrase(part.entity.table)}", lambda spec: None),
                Reading(f"not_{slug(never[0])}", f"Of the {rows} not {' or '.join(never)}", went_through)]
    out.detections.append(ARCHETYPE.detection(share.span, readings, question=f"Share of which {rows}?"))
    return True


def _timely_whole(intent: Intent, spec: QuerySpec, share: OperatorMention, out: ShapeRead) -> bool:
    """'late shipment rate': late of every parcel, or of the parcels shipped at all (a parcel not shipped yet is
    neither late nor on time): two wholes, two answers."""
    from archetypes.ranking_metric import ARCHETYPE  # which whole: the share replaced the metric question (one
    # question per archetype: a status's record_scope may ask beside it)

    timely = next((c for c in spec.share_conditions if c.op in ("after", "before", "on_time")), None)
    if timely is None:
        return False
    done = RowCondition(timely.table, timely.column, "not_null", label=f"{phrase(timely.column)} is set")

    def of_done(spec: QuerySpec) -> None:
        spec.conditions.append(done)

    readings = [Reading("all", f"Of every {phrase(timely.table)}", lambda spec: None),
                Reading(f"only_{slug(timely.column)}", f"Of the {plural(phrase(timely.table))} whose "
                                                       f"{phrase(timely.column)} is set", of_done)]
    out.detections.append(ARCHETYPE.detection(share.span, readings,
                                              question=f"Share of which {plural(phrase(timely.table))}?"))
    return True


def _percent_change(ops: list[OperatorMention], spec: QuerySpec, out: ShapeRead) -> None:
    """'visits vs the month before, in %': the relative change, which every change reading shows."""
    said = [m for m in ops if m.category == "share"]
    if spec.shape != "change" or not said or not all(m.word in _IN_PERCENT for m in said):
        return
    spans = {(m.span.start, m.span.end) for m in said}
    out.unread = [(s, why) for s, why in out.unread if (s.start, s.end) not in spans]
    out.read.extend(m.span for m in said)
    out.consumed |= {"share"}


_IN_PERCENT = frozenset({"%", "pct", "percent", "percentage"})
_NO_PART = "a share needs a part to divide (a value such as a category or a status)"


def _share_of_passing(share: OperatorMention, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> None:
    """'what pct of our visits are over $500': the groups whose total passes the condition, over every group
    with rows; 'what share of items cost over $100': the rows whose own figure passes, over every row."""
    if spec.having is not None and spec.group is not None and spec.shape == "aggregate" and not spec.count_groups:
        spec.share_groups, spec.limit = True, None
        _share_whole(share, spec, out)
    elif spec.conditions and (spec.count_table or spec.shape == "list" and spec.group is not None):
        table = spec.count_table or (spec.group.table if spec.group is not None else None)
        if table is None or not profile.tables[table].primary_key:
            out.unread.append((share.span, _NO_PART))
            return
        spec.fact, spec.measure = rows_counted(table, profile)
        spec.share_conditions, spec.conditions = spec.conditions[-1:], spec.conditions[:-1]
        spec.shape, spec.group, spec.count_table, spec.list_columns, spec.limit = "share", None, None, (), None
    else:
        out.unread.append((share.span, _NO_PART))
        return
    out.consumed |= {"share", "rate"}
    out.read.append(share.span)


def _share_whole(share: OperatorMention, spec: QuerySpec, out: ShapeRead) -> None:
    """'what % of riders rode more than once this year': of the riders who rode then, or of every
    rider: two wholes, two answers."""
    from archetypes.ranking_metric import ARCHETYPE  # which figure: the share replaced the metric question, as
    # a ratio's 'divided by which' does (record_scope may ask which rows count beside it: one question each)

    assert spec.group is not None and spec.fact is not None
    groups, rows = plural(spec.group.noun), plural(phrase(spec.fact.table))

    def every(spec: QuerySpec) -> None:
        spec.share_every = True

    readings = [Reading("with_events", f"Of the {groups} with {rows}", lambda spec: None),
                Reading("every_row", f"Of every one of the {groups}, with or without any", every)]
    out.detections.append(ARCHETYPE.detection(share.span, readings, question=f"A share of which {groups}?"))


def _counts_holder(profile: SchemaProfile, spec: QuerySpec) -> bool:
    """'what share of trips were cancelled': the rows counted are the ones holding the state, so they are counted
    on their own table (a trip with no payment is still a trip), not as distinct keys of rows pointing at them."""
    measure = spec.measure
    return measure is not None and measure.kind == "count_distinct" and bool(spec.share_filters) and \
        rows_of(profile, measure) == spec.share_filters[0].entity.table


def _condition_is_part(intent: Intent, share: OperatorMention, ops: list[OperatorMention], spec: QuerySpec,
                       out: ShapeRead) -> bool:
    """A condition the question names ('late', 'discontinued') beside values: the part when it names the rate
    ('on-time rate for X') or is what the rows are said to be ('% of X parcels shipped late', '% of parcels to
    germany were late'); the values then scope the whole. A state value ('refund rate') is a part of its own."""
    if not spec.conditions or not out.flag_spans:
        return False
    said = min(s.start for s in out.flag_spans)
    states = [f for f in spec.filters if f.entity.column_only and lexicon.is_state_column(words(f.entity.name_columns[0]))]
    if states:
        # 'on-time delivery rate': the condition said before the state is the part, the state's rows the whole
        return share.category == "rate" and _first(ops, "share") is None and said < share.span.start and \
            all(_position(intent, f, out.value_spans) > said for f in states)
    if share.category == "rate" and _first(ops, "share") is None:
        return said < share.span.start
    said_of = _predicate(intent, share, out.value_spans)
    if said_of is None or said < said_of:
        return False
    return not [f for f in spec.filters if _position(intent, f, out.value_spans) >= said_of]


_WHO_DID = re.compile(r"\bof\s+(?:our\s+|the\s+|all\s+)*([a-z]+)\s+(?:(?:who|that|which)\s+(?:have\s+|has\s+|had\s+)?|"
                      r"(?:have|has|had)\s+|(?=(?:bought|ordered|purchased|spent|paid|booked|rented|borrowed|visited|"
                      r"subscribed|shopped|returned)\b))(?:ever\s+|actually\s+)?([a-z]+)")


def _share_who_did(intent: Intent, profile: SchemaProfile, spec: QuerySpec, share: OperatorMention,
                   out: ShapeRead) -> bool:
    """'pct of clients who bought something in 2025': the rows with events (in the window) of all of them."""
    m = _WHO_DID.search(intent.lower, share.span.start)
    target = next((t for t in intent.targets if m is not None and t.span.start == m.start(1) and
                   not t.entity.column_only), None)
    if m is None or target is None or len(target.entity.key) != 1 or spec.having is not None:
        return False
    entity = target.entity
    fact = _named_fact(intent, profile, entity.table) or _nearest_fact(profile, entity.table)
    counted = next((x for x in fact.measures if x.kind == "count"), None) if fact is not None else None
    if fact is None or counted is None or not profile.path(fact.table, entity.table):
        return False
    spec.shape, spec.absent, spec.fact, spec.measure = "absence", entity, fact, counted
    spec.absent_share, spec.present, spec.group, spec.limit = True, True, None, None
    out.read += [share.span, _span(intent, m.start(2), m.end(2))]
    out.consumed |= {"share", "rate"}
    out.replaces |= {"ranking_metric", "unit"}
    return True


def _condition_joins_part(intent: Intent, share: OperatorMention, spec: QuerySpec, out: ShapeRead) -> bool:
    """A condition named with the part's values, after what is said of the rows or after their noun ('share of
    revenue from discontinued beverages', '% of revenue is from discontinued beverages'): in the part with them."""
    if not spec.conditions or not out.flag_spans or not spec.share_filters:
        return False
    start = _predicate(intent, share, out.value_spans)
    if start is None:
        start = _rows_noun(intent, share)
    return start is not None and min(s.start for s in out.flag_spans) > start


# what the rows of a share are said to be: 'what % of parcels to germany [were] late', '... [shipped] late'
_PREDICATE = re.compile(r"\b(?:are|is|were|was|went|go|goes|came|come|comes|got|get|gets|had|has|have|ship|ships|"
                        r"shipped|sold|arrived|belong|belongs|belonged|ended|end|ends|turned|made|used|paid)\b")


def _rows_noun(intent: Intent, share: OperatorMention) -> int | None:
    """Where the share's rows are named: the first table noun or measure after the share word."""
    nouns = [t.span.start for t in intent.targets if not t.entity.column_only] + [s.start for _, s in intent.measures]
    # ("what % of tokyo's sales come from phones": 'sales' names the rows, no table does)
    nouns += [s for w, s, _ in intent.tokens if w in lexicon.FACT_NOUNS or w in lexicon.MONEY_WORDS]
    return min((n for n in nouns if n >= share.span.end), default=None)


def _predicate(intent: Intent, share: OperatorMention, value_spans: list[Span]) -> int | None:
    """Where what is said of the share's rows starts: the first verb after the rows' noun."""
    noun = _rows_noun(intent, share)
    if noun is None:  # 'what % of beverages are discontinued': the rows named by a value
        noun = min((s.start for s in value_spans if s.start >= share.span.end), default=None)
    if noun is None:
        return None
    verb = _PREDICATE.search(intent.lower, noun)
    return verb.start() if verb is not None else None


def _share_part(intent: Intent, share: OperatorMention, filters: list, value_spans: list[Span]) -> list:
    """'share of berlin visits cancelled', 'what share of cancelled visits came from berlin': values named between
    'share of' and the rows' noun scope the whole; the ones after the noun are the part. With none after, every
    value is the part ('share of revenue from laptops')."""
    noun = _rows_noun(intent, share)
    if noun is None or len(filters) < 2:
        return list(filters)
    said_of = _predicate(intent, share, value_spans)
    if said_of is not None:  # 'what share of parcels to germany went by united package': what is said of them
        part = [f for f in filters if _position(intent, f, value_spans) >= said_of]
        if part and len(part) < len(filters):
            return part
    part = [f for f in filters if _position(intent, f, value_spans) > noun]
    return part if part and len(part) < len(filters) else list(filters)


def _position(intent: Intent, flt, value_spans: list[Span]) -> int:
    """Where the question names a filter's value."""
    from archetypes.values import value_key

    keys = {value_key(v) for v in flt.values}
    found = [s.start for s in value_spans if value_key(s.text) in keys]
    return found[0] if found else intent.lower.find(str(flt.values[0]).lower())


_RATIO_OF = re.compile(r"\bratio\s+of\s+(?:the\s+)?([a-z][\w-]*)\s+(?:[a-z]+\s+)?(?:to|vs\.?|versus|against|over)\s+"
                       r"(?:the\s+)?([a-z][\w-]*)")


def _ratio_of_values(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'ratio of cancelled to completed bookings': the rows holding the one value counted against those holding
    the other (not both of them as a share of every row)."""
    m = _RATIO_OF.search(intent.lower)
    if m is None:
        return False
    said = (lemma(m.group(1)), lemma(m.group(2)))
    both = next((f for f in spec.filters if len(f.values) == 2 and not f.negate and
                 {lemma(v.lower()) for v in f.values} == set(said)), None)
    if both is None:
        return False
    first = next(v for v in both.values if lemma(v.lower()) == said[0])
    second = next(v for v in both.values if lemma(v.lower()) == said[1])
    counted = _fact_holding(profile, both.entity.table)
    measure = next((x for x in counted.measures if x.kind == "count"), None) if counted is not None else None
    if counted is None or measure is None:
        return False
    spec.filters = [f for f in spec.filters if f is not both]
    spec.share_filters, spec.share_against = [replace(both, values=(first,))], [replace(both, values=(second,))]
    spec.shape, spec.fact, spec.measure, spec.group, spec.limit = "share", counted, measure, None, None
    out.consumed |= {"share", "rate"}
    out.read.append(_span(intent, m.start(), m.end()))
    out.replaces |= {"ranking_metric", "unit"}
    return True


def _counts_rows(intent: Intent) -> bool:
    """'what share of <rows>': a share of a count, not of money (a table noun follows 'of')."""
    m = re.search(r"\b(?:of|share of|percentage of|pct of|proportion of|fraction of)\s+(?:all\s+|our\s+|the\s+)?([a-z]+)",
                  intent.lower)
    if intent.money:
        return False
    if re.search(r"\bhow often\b", intent.lower):
        return True  # 'how often do we ship late, as a %': of the times it happened
    if m is None:
        return False
    return any(t.span.start == m.start(1) for t in intent.targets) or m.group(1) in ("rows", "transactions",
                                                                                      "purchases", "sales")


def _counted_table(intent: Intent, profile: SchemaProfile):
    """'what share of our clients are in the usa': the rows of the table named after 'of' are counted,
    not the events that reach it."""

    m = re.search(r"(?:\b(?:share|percentage|pct|proportion|fraction|percent|how many)|%)\s+of\s+"
                  r"(?:all\s+|our\s+|the\s+)?([a-z]+)",
                  intent.lower)
    if m is None:
        return None
    target = next((t for t in intent.targets if t.span.start == m.start(1)), None)
    if target is None or target.entity.table in profile.facts:
        return None
    table = profile.tables[target.entity.table]
    if not table.primary_key:
        return None
    noun = plural(target.entity.noun)
    measure = Measure(slug(noun), f"Number of {noun}", "count", table.name, tuple(table.primary_key[:1]))
    return Fact(table=table.name, measures=[measure], row_count=table.row_count), measure


def _fact_holding(profile: SchemaProfile, table: str) -> Fact | None:
    if table in profile.facts:
        return profile.facts[table]
    return _nearest_fact(profile, table)


# -- distributions over a time part ----------------------------------------------------------------------

def _distribution(intent, ops, kinds, profile, spec, as_of, out) -> None:
    # 'which weekday is busiest': 'by weekday' with no window already grouped each row's own weekday
    cycle = spec.shape == "distribution" and spec.time_part in ("weekday", "hour")
    if (spec.shape != "aggregate" and not cycle) or spec.fact is None or spec.fact.time is None:
        return
    lower = intent.lower
    named = next(((part, m) for part, m in ((p, r.search(lower)) for p, r in _PARTS) if m is not None), None)
    asked = _WHEN_MOST.search(lower)
    ranked = intent.ranking is not None or intent.superlative is not None or "distribution" in kinds
    if named is None and asked is None:
        return
    if named is not None and not ranked and asked is None:
        return
    if named is None and asked is not None and asked.group(2) is not None and \
            _busiest_of(intent, profile, spec, asked, out):
        return
    spec.shape = "distribution"
    spec.group = None
    out.consumed |= {"distribution", "ranking"}
    if not intent.explicit_measure and not intent.measures and not intent.money and (
            "distribution" in kinds or asked is not None):
        events = _event_count(profile)
        if events is not None:
            spec.fact, spec.measure = events
    if named is not None:
        part, match = named
        spec.time_part = part
        # the top one, with room to show that others tie with it (a limit of 1 would hide a tie)
        spec.limit = RANKING_LIMIT if part == "month_key" or re.search(r"\b(best|worst|busiest|quietest)\b", lower) else None
        out.read.append(_span(intent, match.start(), match.end()))
    else:
        from archetypes.aggregation_level import ARCHETYPE

        spec.time_part = "hour"
        readings = [Reading(p, label, _set_part(p)) for p, label in (
            ("hour", "Hour of the day"), ("weekday", "Day of the week"), ("month", "Month of the year"))]
        assert asked is not None
        out.detections.append(ARCHETYPE.detection(_span(intent, asked.start(), asked.end()), readings,
                                                  question="Grouped by which part of the time?"))
        out.replaces.add("aggregation_level")
    which_month = spec.time_part == "month" and named is not None and \
        re.search(r"\b(?:which|what) month\b", named[1].group(0)) is not None and \
        re.search(r"\bmonth of (?:the )?year\b|\bseason", lower) is None
    if (spec.time_part == "month_key" or which_month) and named is not None and intent.window is None and \
            not re.search(r"\b(?:ever|all[- ]time|on record)\b", lower):
        # ('which month had the highest revenue' over years of data: October 2025, or October of every year)
        from archetypes.aggregation_level import ARCHETYPE as LEVEL

        # 'our busiest month': one month of one year, or the month of the year that is busiest every year
        readings = [Reading("month_key", "One month of one year", _set_part("month_key")),
                    Reading("month", "A month of the year, every year added up", _set_part("month"))]
        out.detections.append(LEVEL.detection(_span(intent, named[1].start(), named[1].end()), readings,
                                              question="A month of one year, or a month of every year?"))
        out.replaces.add("aggregation_level")
    if spec.time_part == "month_key" and not intent.explicit_measure:
        from archetypes.ranking_metric import ARCHETYPE as RANKING

        options = [(f, m) for f, m in profile.measures_reaching(None) if f.time is not None][:3]
        events = _event_count(profile) if re.search(r"\b(busiest|quietest|slowest|peak)\b", lower) else None
        if events is not None:  # 'busiest': how many happened first, then how much they were worth
            options = [events] + [o for o in options if o[1].value != events[1].value][:2]
        said = intent.ranking or intent.superlative or (_span(intent, named[1].start(), named[1].end())
                                                        if named is not None else None)
        if len(options) > 1 and said is not None:
            readings = [Reading(m.value, m.label, _set_measure(f, m)) for f, m in options]
            out.detections.append(RANKING.detection(said, readings, question="Best by which metric?"))
            out.replaces.add("ranking_metric")
    else:
        out.replaces.add("ranking_metric")


def _busiest_of(intent: Intent, profile: SchemaProfile, spec: QuerySpec, asked: re.Match[str],
                out: ShapeRead) -> bool:
    """'who is our busiest physician', 'our quietest store': the rows the question names, ranked by how many events
    they have (not the events per hour of the day, the physicians left unread)."""
    events = (spec.fact, spec.measure) if intent.explicit_measure and spec.fact and spec.measure else \
        _event_count(profile)
    if events is None:
        return False
    fact = events[0]
    owner = next((t for t in intent.targets if t.entity.table != fact.table and
                  profile.path(fact.table, t.entity.table) is not None), None)
    if owner is None:
        return False
    spec.fact, spec.measure = events
    spec.group, spec.limit = owner.entity, intent.top_n or RANKING_LIMIT
    spec.ascending = asked.group(2) in ("quietest", "slowest")
    out.consumed |= {"distribution", "ranking"}
    out.read.append(_span(intent, asked.start(2), asked.end(2)))
    if not intent.explicit_measure:
        # busy with which events: each kind of dated row that reaches the rows ranked (check-ins, bookings,
        # payments), the most likely first
        others = [(f, m) for f in profile.fact_list() for m in f.measures if m.kind == "count" and f.time is not None
                  and f.time_path == () and f.table not in profile.entities and f.table != events[0].table and
                  profile.path(f.table, owner.entity.table) is not None]
        if others:
            from archetypes.ranking_metric import ARCHETYPE

            options = [events] + others[:3]
            readings = [Reading(m.value, m.label, _set_measure(f, m)) for f, m in options]
            out.detections.append(ARCHETYPE.detection(_span(intent, asked.start(2), asked.end(2)), readings,
                                                      question="Busy with which events?"))
            out.replaces.add("ranking_metric")
    return True


def _event_count(profile: SchemaProfile) -> tuple[Fact, Measure] | None:
    """The count of the events a 'busiest' question counts: the rows of a fact with its own timestamp."""
    counts = [(f, m) for f in profile.fact_list() for m in f.measures if m.kind == "count" and f.time is not None]
    own = [(f, m) for f, m in counts if f.time_path == ()] or counts
    # rows of people or things named (members, with the day they joined) are not the events a place is busy with
    own = [(f, m) for f, m in own if f.table not in profile.entities] or own
    primary = profile.primary_fact()
    if primary is None or not own:
        return own[0] if own else None
    # the events other events hang off come first: a trip before the payment made for it (each payment points
    # at its trip), an order before its lines
    pointed = {e.ref_table for f in profile.fact_list() for e in profile.edges.get(f.table, ())}
    reachable = [(0 if f.table in pointed else 1, len(profile.path(primary.table, f.table) or ()), -f.row_count,
                  f.table, f, m) for f, m in own if profile.path(primary.table, f.table) is not None]
    if not reachable:
        return own[0]
    best = min(reachable, key=lambda item: item[:4])
    return best[4], best[5]


def _set_part(part: str):
    def apply(spec: QuerySpec) -> None:
        spec.time_part = part
    return apply


def _set_measure(fact: Fact, measure: Measure):
    def apply(spec: QuerySpec) -> None:
        spec.fact, spec.measure = fact, measure
    return apply


# -- attribute superlatives ------------------------------------------------------------------------------

def _charged_on_average(entity: Entity, direction: str, mention: OperatorMention, profile: SchemaProfile,
                        spec: QuerySpec, out: ShapeRead) -> bool:
    """'which shipper is cheapest': no price of its own, so what the rows pointing straight at it charge (each
    order's freight), averaged per row of it, lowest first."""
    if entity.column_only or len(entity.key) != 1:
        return False
    charging = [(f, m) for f in profile.fact_list() for m in f.measures if m.money and m.table == f.table and
                any(e.ref_table == entity.table for e in profile.edges.get(f.table, ()))]
    if len(charging) != 1:
        return False
    spec.fact, spec.measure = charging[0]
    spec.agg, spec.per_table, spec.count_table, spec.weight = "avg", None, None, None
    spec.group, spec.limit, spec.ascending = entity, 1, direction == "min"
    out.read.append(mention.span)
    out.consumed |= {"attribute", "average", "ranking"}
    out.replaces |= {"ranking_metric"}
    return True


def _attribute(intent, ops, kinds, profile, spec, as_of, out) -> None:
    mention = next((m for m in ops if m.category == "attribute" and m.word in lexicon.ATTRIBUTE_WORDS), None)
    if spec.shape != "aggregate" or ("attribute" in out.consumed and spec.agg in ("min", "max")):
        return  # (the date of the latest row: read by _first_or_last)
    if (mention is None or _TENURE.search(intent.lower)) and _verb_dated(intent, profile, spec, out):
        return  # 'hired first', 'been with us the longest': a date the verb names
    if mention is None:
        _named_superlative(intent, ops, profile, spec, out)
        return
    kind, direction = lexicon.ATTRIBUTE_WORDS[mention.word]
    generic = re.match(r"\s+(?:thing|things|stuff)\b", intent.lower[mention.span.end:])
    sold = catalogue(profile) if generic is not None else None
    # 'cheapest thing in audio category': what is sold, of that category, never the category itself
    target = (Target(sold, Span(0, 0, "")) if sold is not None else None) or \
        _target_after(intent, mention.span.start) or _main_target(intent) or \
        _dated_by(intent, profile, mention.span.end, kind) or _holder_of(intent, profile, spec, kind, mention.span)
    if target is None:
        out.unread.append((mention.span, "no table of things to order"))
        return
    entity = target.entity
    attribute = _own_attribute(profile, entity, kind, direction) or _child_attribute(profile, entity, kind, direction)
    if attribute is None and kind == "price" and _charged_on_average(entity, direction, mention, profile, spec, out):
        return
    if attribute is None:
        out.unread.append((mention.span, f"{entity.noun} has no {kind} column to order by"))
        return
    spec.shape, spec.attribute, spec.group = "attribute", attribute, entity
    spec.limit = intent.top_n
    if mention.word == "oldest" and (either := _age_or_tenure(profile, entity, attribute, mention.span)) is not None:
        out.detections.append(either)
    elif kind in ("recency", "age") and (either := _joined_or_first(intent, profile, entity, attribute, mention.span)):
        out.detections.append(either)
    elif kind == "length" and attribute.child is not None and not attribute.average and \
            not re.search(r"\b(?:minutes?|mins?|hours?|hrs?|seconds?|secs?|time|running|runtime|duration)\b",
                          intent.lower):
        out.detections.append(_length_or_count(attribute, mention.span))
    asked = next((t for t in intent.targets if t.span.end <= mention.span.start and t.entity is not entity and
                  not t.entity.column_only), None)
    averaged = _averaged_by(intent, ops, profile, entity.table) if attribute.child is None and \
        attribute.table == entity.table else None
    if averaged is not None:  # 'which genre has the longest tracks on average': genres by their tracks' mean
        spec.group = averaged[0]
        spec.attribute = Attribute(attribute.table, attribute.column, direction, through=averaged[1],
                                   child=entity.table, average=True)
        out.consumed |= {"attribute", "ranking", "average"}
        out.replaces |= {"ranking_metric", "unit"}
        return
    if asked is not None and profile.path(entity.table, asked.entity.table):
        spec.attribute_owner = asked.entity
        if attribute.child is None and attribute.table == entity.table and _plural_after(intent, mention.span):
            out.detections.append(_owner_of_top_or_average(attribute, entity, asked.entity, profile, mention.span))
    per = re.search(r"\b(?:in each|for each|per|by|in every|of each)\s+([a-z][a-z ]{1,30})", intent.lower)
    if per is not None:
        grouped = next((t for t in intent.targets if t.span.start >= per.start(1) and t.entity is not entity), None)
        if grouped is not None:
            spec.attribute_group = grouped.entity
    out.consumed |= {"attribute", "ranking"}
    out.replaces |= {"ranking_metric", "unit"}


_VERB_FIRST = re.compile(r"\b([a-z]+ed|signed[- ]?up)\s+(first|earliest|last|latest|most recently|recently)\b|"
                         r"\b(first|earliest|last|latest|most recently|newly)\s+([a-z]+ed|signed[- ]?up)\b")
_TENURE = re.compile(r"\b(?:been (?:with us|here|around|on staff) (?:the )?longest|longest[- ]serving|"
                     r"longest[- ]tenured?|longest tenure|longest[- ]standing|most senior|oldest[- ]standing)\b")


def _verb_dated(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'which employee was hired first', 'the most recently hired', 'been with us the longest': the row with the
    earliest or latest date its verb names (a hire date for 'hired'); tenure is the earliest such start."""
    from archetypes.values import lemma

    verb, tenure = _VERB_FIRST.search(intent.lower), _TENURE.search(intent.lower)
    window = intent.window_span
    if verb is not None and window is not None and window.start < verb.end() and verb.start() < window.end:
        verb = None  # 'joined last year': 'last' is the window's word, not the row that joined last
    said = tenure or verb
    target = _main_target(intent)
    if target is None and said is not None and re.match(r"^\s*who\b", intent.lower):
        # "who's been with us the longest": the one table of people with a start date (the staff)
        people = [e for n, e in profile.entities.items() if not e.column_only and
                  singular(e.noun.split()[-1]) in lexicon.PEOPLE_NOUNS and _attribute_columns(profile, n, "recency")]
        target = Target(people[0], _span(intent, 0, 3)) if len(people) == 1 else None
        if target is not None:
            out.replaces.add("insufficient_info")
            out.read.append(target.span)
    if said is None or target is None or target.entity.column_only:
        return False
    entity = target.entity
    dates = [c.name for c in profile.tables[entity.table].columns if c.family == "temporal"]
    if said is verb:
        said_verb = verb.group(1) or verb.group(4)
        stem = lemma(said_verb)
        when = verb.group(2) or verb.group(3)
        column = next((c for c in dates if stem in words(c) or stem.rstrip("e") in words(c) or
                       any(w.startswith(stem) and len(w) - len(stem) <= 2 for w in words(c))), None)  # opened_on
        if column is None and _STARTED.fullmatch(said_verb):  # 'signed up first': the row's own start date
            column = next(iter(_attribute_columns(profile, entity.table, "recency")), None)
        direction = "min" if when in ("first", "earliest") else "max"
    else:
        column = next(iter(_attribute_columns(profile, entity.table, "recency")), None)
        direction = "min"
    if column is None:
        return False
    attribute = Attribute(entity.table, column, direction)
    spec.shape, spec.attribute, spec.group, spec.fact, spec.measure = "attribute", attribute, entity, None, None
    spec.limit = intent.top_n
    out.read.append(_span(intent, said.start(), said.end()))
    out.consumed |= {"attribute", "ranking"}
    out.replaces |= {"ranking_metric", "unit"} | ({"timeframe"} if "recent" in said.group(0) else set())
    born = next((c for c in dates if lexicon.BIRTH_WORDS & set(words(c))), None)
    if tenure is not None and "senior" in tenure.group(0) and born is not None:
        # 'most senior': the longest here, or the oldest
        from archetypes.ranking_metric import ARCHETYPE

        out.detections.append(ARCHETYPE.detection(_span(intent, said.start(), said.end()), [
            Reading("by_tenure", f"By {phrase(column)} (time with us)", _set_attribute(attribute)),
            Reading("by_birth", f"By {phrase(born)} (age)", _set_attribute(Attribute(entity.table, born, "min")))],
            question="Senior by time with us, or by age?"))
    return True


def _holder_of(intent: Intent, profile: SchemaProfile, spec: QuerySpec, kind: str, span: Span) -> Target | None:
    """'cheapest beverage': no table is named, a value is; the one table with such a column that reaches
    the value's rows holds the rows compared."""
    scoped = {f.entity.table for f in spec.filters}
    if not scoped:
        return None
    held = [entity for name, entity in profile.entities.items() if not entity.column_only and
            _attribute_columns(profile, name, kind) and name not in scoped and
            all(profile.path(name, t) is not None for t in scoped)]
    return Target(held[0], span) if len(held) == 1 else None


def _dated_by(intent: Intent, profile: SchemaProfile, position: int, kind: str) -> Target | None:
    """'our newest hire': the word after the superlative names a date column ('hire_date'), and the rows are
    its table's."""
    if kind not in ("recency", "age"):
        return None
    word = re.match(r"\s*([a-z]+)", intent.lower[position:])
    if word is None:
        return None
    wanted = singular(word.group(1))
    for name, entity in profile.entities.items():
        if entity.column_only:
            continue
        if any(wanted in {singular(w) for w in words(c)} for c in _attribute_columns(profile, name, kind)):
            return Target(entity, _span(intent, position + word.start(1), position + word.end(1)))
    return None


_HIGH = {"highest": "max", "largest": "max", "biggest": "max", "greatest": "max", "most": "max", "top": "max",
         "lowest": "min", "smallest": "min", "least": "min", "fewest": "min", "bottom": "min"}


def _named_superlative(intent: Intent, ops: list[OperatorMention], profile: SchemaProfile, spec: QuerySpec,
                       out: ShapeRead) -> None:
    """'the product with the highest list price': a superlative of a column the question names, on the
    table it belongs to (not a measure summed over events)."""
    word = next((m for m in ops if m.word in _HIGH or m.word in _RATED), None)
    target = _main_target(intent)
    if word is None or target is None or target.entity.column_only:
        return
    column = _numeric_mentioned(intent, profile, spec)
    up = profile.path(column[0], target.entity.table) if column is not None else None
    if column is not None and up and set(words(column[1])) & lexicon.RATING_WORDS:
        # 'which property has the best rating': its rows' ratings averaged (a rating is never added up)
        spec.shape, spec.group, spec.limit = "attribute", target.entity, intent.top_n
        spec.attribute = Attribute(column[0], column[1], {**_HIGH, **_RATED}[word.word], through=up,
                                   child=column[0], average=True)
        out.consumed |= {"attribute", "ranking", "average"}
        out.replaces |= {"ranking_metric", "unit"}
        return
    if column is None or profile.path(target.entity.table, column[0]) is None or column[0] in profile.facts or \
            word.word not in _HIGH:
        return
    said = {singular(w) for w, _, _ in intent.tokens}
    whole = len(words(column[1])) > 1 and all(singular(w) in said for w in words(column[1]))
    if intent.explicit_measure and not whole:
        return  # 'the highest unit price' names the column whole; 'the most units' a measure
    spec.shape, spec.group = "attribute", target.entity
    spec.attribute = Attribute(column[0], column[1], _HIGH[word.word])
    spec.limit = intent.top_n
    out.consumed |= {"attribute", "ranking"}
    out.replaces |= {"ranking_metric", "unit"}
    averaged = _averaged_by(intent, ops, profile, column[0])
    if averaged is not None:  # 'which genre has the lowest avg price': genres by their rows' mean
        spec.group = averaged[0]
        spec.attribute = Attribute(column[0], column[1], _HIGH[word.word], through=averaged[1], child=column[0],
                                   average=True)
        out.consumed |= {"average"}


_RATED = {"best": "max", "worst": "min"}  # of a rating or a score only


def _averaged_by(intent: Intent, ops: list[OperatorMention], profile: SchemaProfile,
                 table: str) -> tuple[Entity, tuple] | None:
    """With an average asked, the other table named that `table`'s rows point at ('which genre has the longest
    tracks on average'): its rows are ranked by the mean of theirs."""
    if not any(m.category == "average" for m in ops):
        return None
    for target in intent.targets:
        if target.entity.column_only or target.entity.table == table:
            continue
        path = profile.path(table, target.entity.table)
        if path:
            return target.entity, path
    return None


def _attribute_columns(profile: SchemaProfile, table: str, kind: str) -> list[str]:
    info = profile.tables[table]
    keys = set(info.primary_key) | {c for fk in info.foreign_keys for c in fk.columns}
    wanted = lexicon.ATTRIBUTE_COLUMNS[kind]
    family = "temporal" if kind in ("age", "recency") else "numeric"
    found = []
    for column in info.columns:
        if column.name in keys or column.family != family:
            continue
        parts = set(words(column.name))
        if parts & set(wanted) and not (kind == "recency" and parts & lexicon.BIRTH_WORDS):
            found.append(column.name)
    if kind == "age":
        found.sort(key=lambda c: 0 if lexicon.BIRTH_WORDS & set(words(c)) else 1)
    return found


def _own_attribute(profile: SchemaProfile, entity: Entity, kind: str, direction: str) -> Attribute | None:
    columns = _attribute_columns(profile, entity.table, kind)
    if not columns:
        return None
    return Attribute(entity.table, columns[0], direction)


def _age_or_tenure(profile: SchemaProfile, entity: Entity, attribute: Attribute, span: Span) -> Detection | None:
    """'Who is our oldest employee?': the earliest born, or the longest here (the earliest hired or started):
    two people, when the rows carry both dates."""
    from archetypes.ranking_metric import ARCHETYPE

    if attribute.through or not lexicon.BIRTH_WORDS & set(words(attribute.column)):
        return None
    other = next(iter(_attribute_columns(profile, entity.table, "recency")), None)
    if other is None:
        return None
    readings = [Reading("by_birth", f"By {phrase(attribute.column)} (age)", _set_attribute(attribute)),
                Reading("by_tenure", f"By {phrase(other)} (time with us)",
                        _set_attribute(Attribute(entity.table, other, attribute.direction)))]
    return ARCHETYPE.detection(span, readings, question="Oldest by age, or by time with us?")


def _plural_after(intent: Intent, span: Span) -> bool:
    """'the longest songs': the word after the superlative is a plural noun."""
    word = re.match(r"\s*([a-z]+)", intent.lower[span.end:])
    return word is not None and word.group(1).endswith("s") and singular(word.group(1)) != word.group(1)


def _owner_of_top_or_average(attribute: Attribute, entity: Entity, owner: Entity, profile: SchemaProfile,
                             span: Span) -> Detection:
    """'which genre has the longest songs': the genre of the single longest song, or the genres ranked by their
    songs' average length: two genres."""
    from archetypes.ranking_metric import ARCHETYPE

    averaged = Attribute(attribute.table, attribute.column, attribute.direction,
                         through=profile.path(entity.table, owner.table) or (), child=entity.table, average=True)

    def top(spec: QuerySpec) -> None:
        spec.attribute_owner = owner

    def on_average(spec: QuerySpec) -> None:
        spec.group, spec.attribute, spec.attribute_owner = owner, averaged, None

    rows = plural(entity.noun)
    readings = [Reading("of_the_top", f"The {owner.noun} of the one top {entity.noun}", top),
                Reading("on_average", f"{plural(owner.noun).capitalize()} by their {rows}' average "
                        f"{phrase(attribute.column)}", on_average)]
    return ARCHETYPE.detection(span, readings, question=f"The {owner.noun} of the top {entity.noun}, or by its "
                                                        f"{rows}' average?")


def _length_or_count(attribute: Attribute, span: Span) -> Detection:
    """'the longest album': by the running time of its tracks, or by how many tracks it has."""
    from archetypes.ranking_metric import ARCHETYPE

    rows = plural(phrase(attribute.table).split()[-1])
    counted = Attribute(attribute.table, attribute.column, attribute.direction, through=attribute.through,
                        child=attribute.child, child_path=attribute.child_path, counted=True)
    readings = [Reading("by_length", f"By the total {phrase(attribute.column)} of its {rows}",
                        _set_attribute(attribute)),
                Reading(f"by_{slug(rows)}", f"By how many {rows} it has", _set_attribute(counted))]
    return ARCHETYPE.detection(span, readings, question=f"Longest by running time, or by number of {rows}?")


_ACCOUNT_SAID = frozenset({"account", "accounts", "signed", "signup", "joined", "created", "registered",
                           "registration", "since", "opened"})
_JOINED = frozenset({"created", "creation", "signup", "signed", "registered", "registration", "joined", "since",
                     "opened", "onboarded"})


def _joined_or_first(intent: Intent, profile: SchemaProfile, entity: Entity, attribute: Attribute,
                     span: Span) -> Detection | None:
    """'our newest client', 'our oldest client': by when the row was created, or by its first event (an account
    made long before its first purchase): two rows, when the events pointing at it carry their own date. Not
    when the question names the account or its creation, or other rows ('client 42's latest visit')."""
    from archetypes.ranking_metric import ARCHETYPE

    if attribute.through or attribute.table != entity.table or not _JOINED & set(words(attribute.column)) or \
            {w for w, _, _ in intent.tokens} & _ACCOUNT_SAID or \
            any(t.entity.table != entity.table for t in intent.targets if not t.entity.column_only):
        return None
    dated = [(f, e) for f in profile.fact_list() if f.time is not None and f.time.table == f.table
             for e in profile.edges.get(f.table, ()) if e.ref_table == entity.table]
    if len(dated) != 1:
        return None
    fact, edge = dated[0]
    assert fact.time is not None
    if {singular(w) for w, _, _ in intent.tokens} & {singular(w) for w in words(fact.table)}:
        return None  # 'client 42's latest visit': the events themselves are asked about
    first = Attribute(fact.table, fact.time.column, attribute.direction, through=(edge,), child=fact.table,
                      child_path=(), earliest=True)
    readings = [Reading(f"by_{slug(attribute.column)}", f"By {phrase(attribute.column)} (when the "
                        f"{entity.noun} was created)", _set_attribute(attribute)),
                Reading(f"by_first_{slug(fact.table)}", f"By the first {phrase(fact.table).split()[-1]}'s "
                        f"{phrase(fact.time.column)}", _set_attribute(first))]
    return ARCHETYPE.detection(span, readings, question=f"By when the {entity.noun} was created, or by its first "
                                                        f"{phrase(fact.table).split()[-1]}?")


def _set_attribute(attribute: Attribute):
    def apply(spec: QuerySpec) -> None:
        spec.attribute = attribute
    return apply


def _child_attribute(profile: SchemaProfile, entity: Entity, kind: str, direction: str) -> Attribute | None:
    """A summed attribute of the rows that belong to the entity: a child table pointing at it holds the
    column (an album's tracks), or a bridge table points at it and at a table that holds it (a playlist)."""
    if kind not in ("length", "price", "weight"):
        return None
    for table, edges in profile.edges.items():
        up = next((e for e in edges if e.ref_table == entity.table), None)
        if up is None:
            continue
        columns = _attribute_columns(profile, table, kind)
        if columns:
            return Attribute(table, columns[0], direction, through=(up,), child=table, child_path=())
        for edge in edges:
            if edge is up:
                continue
            held = _attribute_columns(profile, edge.ref_table, kind)
            if held:
                return Attribute(edge.ref_table, held[0], direction, through=(up,), child=table,
                                 child_path=(edge,))
    return None


# -- the largest single event ----------------------------------------------------------------------------

_TOTAL_WORDS = frozenset({"total", "amount", "value", "subtotal", "grand"})
_LARGEST = re.compile(r"\b(largest|biggest|highest|smallest|lowest)\s+(?:single\s+|one\s+)?"
                      r"(?:(?!(?:average|avg|mean|typical|median|total)\s)[a-z]+\s+)?$")  # 'largest completed order'
# 'the largest order: which client placed it, at which shop': the one event's owners, not one per client
_WHOSE_IT = re.compile(r"\b(?:which|what|who)\b[^?.!]{0,30}?\b(?:placed?|places|made|make|makes|bought|buy|ordered|"
                       r"order|did|do|had|have|was|is|took|take|booked|book|paid|pay)(?:\s+(?:it|that|this)\b|\s*[?.!]*\s*$)")


def _largest_event(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'What was the biggest invoice in 2024?': the one event with the highest value, not a count of them.
    Its value is its money, or the units on it: both are shown. Per owner ('which client had the largest
    single visit') is a maximum of per-event sums, not computed yet: said so."""
    if spec.shape == "aggregate" and intent.ranking is None and intent.superlative is not None:
        _which_event(intent, profile, spec, out)
        return
    if spec.shape != "aggregate" or intent.ranking is None:
        return
    counted = next(((m, s, w) for m, s in intent.measures if m.kind in ("count", "count_distinct") and
                    (w := _LARGEST.search(intent.lower[:s.start])) is not None), None)
    if counted is None:
        if not _largest_own_amount(intent, profile, spec, out):
            _top_events(intent, profile, spec, out)
        return
    measure, span, word = counted
    # the table whose rows are counted: the measure's own, or the one its distinct key points at
    counted_table = measure.table if measure.kind == "count" else next(
        (e.ref_table for e in profile.edges.get(measure.table, ()) if tuple(e.columns) == tuple(measure.columns)),
        None)
    header = profile.facts.get(counted_table) if counted_table else None
    if header is None or not header.header or intent.group is not None and \
            intent.group.entity.table == header.table:  # 'our biggest client': clients ranked, read above
        return
    owners_asked = _WHOSE_IT.search(intent.lower) is not None
    if intent.group is not None and not owners_asked:
        out.unread.append((_span(intent, word.start(), span.end),
                           f"the largest single {phrase(header.table)} per {intent.group.entity.noun} is not "
                           "computed yet"))
        return
    info = profile.tables[header.table]
    if not info.primary_key:
        return
    entity = _event_entity(header.table, info.primary_key)
    values = _event_values(profile, header.table)
    if not values:
        return

    spec.fact, spec.measure = values[0]
    spec.group, spec.limit, spec.count_table = entity, intent.top_n or 1, None
    spec.ascending = word.group(1) in ("smallest", "lowest")
    out.read.append(_span(intent, word.start(), span.end))
    out.consumed |= {"ranking"}
    out.replaces |= {"ranking_metric"}
    if len(values) > 1:
        out.detections.append(_by_which(values, _span(intent, word.start(), span.end),
                                        f"The {word.group(1)} {phrase(header.table)} by what?"))


def _event_values(profile: SchemaProfile, table: str) -> list[tuple[Fact, Measure]]:
    """An event's value: the money of its lines, or a column of its own that totals it (not a freight or a tax),
    then the units on it."""
    reaching = profile.measures_reaching(table)
    return [(f, m) for f, m in reaching if m.money and (
        m.kind == "product" or m.kind == "sum" and set(words(" ".join(m.columns))) & _TOTAL_WORDS)] + \
        [(f, m) for f, m in reaching if m.value == "units"]


def _largest_own_amount(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'the largest gift', 'the biggest payment in 2024': the one row with the highest amount of its own (a
    maximum, never the sum of every row); 'which donor made the largest gift': each one's largest, ranked."""
    found = next(((m, s, w) for m, s in intent.measures if m.kind == "sum" and len(m.columns) == 1 and
                  m.table in profile.facts and (w := _LARGEST.search(intent.lower[:s.start])) is not None), None)
    if found is None:
        return False
    measure, span, word = found
    key = profile.tables[measure.table].primary_key
    if not key or profile.facts[measure.table].header:
        return False
    spec.fact, spec.measure, spec.count_table = profile.facts[measure.table], measure, None
    spec.ascending = word.group(1) in ("smallest", "lowest")
    if intent.group is not None and not intent.group.entity.column_only and \
            profile.path(measure.table, intent.group.entity.table) is not None:
        spec.agg = "min" if spec.ascending else "max"  # each one's single largest row, the ones ranked by it
    else:
        spec.group, spec.limit = _event_entity(measure.table, key), intent.top_n or 1
    out.read.append(_span(intent, word.start(), span.end))
    out.consumed |= {"ranking"}
    out.replaces |= {"ranking_metric"}
    return True


_TOP_BEFORE = re.compile(r"\b(?:top|bottom)(?:\s+\d{1,3})?\s+$")
_BY_AFTER = re.compile(r"\s+(?:ranked\s+|sorted\s+)?by\s+(?:their\s+|its\s+|the\s+)?")
_SIZE_SAID = frozenset({"value", "size", "amount", "total", "worth"})


def _top_events(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> None:
    """'top 10 parcels by value', 'bottom 5 visits by fee': the events themselves ranked by their own figure
    (the money of their lines, or a column of their own), not a total of every one."""
    for measure, span in intent.measures:
        before = _TOP_BEFORE.search(intent.lower[:span.start])
        after = _BY_AFTER.match(intent.lower, span.end)
        if measure.kind != "count" or before is None or after is None or intent.group is not None:
            continue
        header = profile.facts.get(measure.table)
        key = profile.tables[measure.table].primary_key if header is not None else None
        if header is None or not header.header or not key:
            return
        said = re.match(r"[a-z]+", intent.lower[after.end():])
        if spec.measure is not None and spec.fact is not None and spec.measure != measure and (
                spec.fact.table == header.table or _header_of(profile, spec.fact) == header.table):
            values = [(spec.fact, spec.measure)]  # 'by freight', 'by revenue': the figure named
        elif said is not None and said.group(0) in _SIZE_SAID:
            values = _event_values(profile, header.table)
        else:
            return
        if not values:
            return
        spec.fact, spec.measure = values[0]
        spec.group, spec.count_table = _event_entity(header.table, key), None
        spec.limit = intent.top_n or RANKING_LIMIT
        spec.ascending = before.group(0).startswith("bottom")
        whole = _span(intent, before.start(), after.end() + (len(said.group(0)) if said else 0))
        out.read.append(whole)
        out.consumed |= {"ranking"}
        if len(values) > 1:
            out.replaces |= {"ranking_metric"}
            out.detections.append(_by_which(values, whole, f"The top {phrase(header.table)} by what?"))
        return


_WHICH_EVENT = re.compile(r"^\s*(?:which|what)\s+(?:single\s+|one\s+)?([a-z]+)\s+(?:had|has|have|was|contained|"
                          r"contains|included|includes|got|carried)\s+(?:the\s+)?(most|fewest|least|highest|largest|"
                          r"biggest|lowest|smallest)\s+([a-z]+(?:\s+[a-z]+)?)")
_ON_THE_LINES = frozenset({"item", "line", "product", "thing", "unit", "piece", "article", "track", "song", "sku"})
_VALUE_WORDS = frozenset({"value", "total", "amount", "revenue", "money", "sale", "spend", "price"})


def _which_event(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> None:
    """'which order had the most items': one event ranked by what its lines hold, the units on it or its
    lines (both defensible), or by its money; not the things sold ranked by how often they were sold."""
    m = _WHICH_EVENT.match(intent.lower)
    if m is None:
        return
    header = next((profile.facts.get(rows_of(profile, measure)) for measure, span in intent.measures
                   if span.start == m.start(1) and measure.kind in ("count", "count_distinct")), None)
    if header is None or not header.header or not profile.tables[header.table].primary_key:
        return
    lines = [f for f in profile.fact_list() if f.table != header.table and _header_of(profile, f) == header.table]
    held = [singular(w) for w in m.group(3).split()]
    if held[0] in _ON_THE_LINES:
        values = [(f, x) for f in lines for x in f.measures if x.value == "units"]
        values += [rows_counted(f.table, profile) for f in lines]
        said = 1
    elif set(held) & _VALUE_WORDS:
        values = [(f, x) for f in lines for x in f.measures if x.money and x.kind == "product"]
        values += [(f, x) for f, x in [(header, x) for x in header.measures] if x.money and x.kind == "sum" and
                   set(words(" ".join(x.columns))) & _TOTAL_WORDS]
        said = len(held)
    else:
        return
    if not values:
        return

    spec.group = _event_entity(header.table, profile.tables[header.table].primary_key)
    spec.fact, spec.measure = values[0]
    spec.limit, spec.count_table = intent.top_n or 1, None
    spec.ascending = m.group(2) in ("fewest", "least", "lowest", "smallest")
    end = m.end(3) if said == len(held) else m.start(3) + len(m.group(3).split()[0])
    whole = _span(intent, m.start(1), end)
    out.read.append(whole)
    out.consumed |= {"ranking"}
    out.replaces |= {"ranking_metric"}
    if len(values) > 1:
        out.detections.append(_by_which(values, whole, f"The {phrase(header.table)} with the {m.group(2)} what?"))


def _event_entity(table: str, primary_key: list[str] | tuple[str, ...]) -> Entity:
    """An event ranked as a row of its own, named by its key ('order id'): it has no name of its own."""
    key = tuple(primary_key[:1])
    return Entity(table, key, f"{phrase(table) or table} id", key=key)


def _by_which(values: list[tuple[Fact, Measure]], span: Span, question: str) -> Detection:
    """The figures one event can be ranked by (its money, its units, its lines), as a metric choice."""
    from archetypes.ranking_metric import ARCHETYPE

    readings = [Reading(x.value, f"By {x.label[:1].lower()}{x.label[1:]}", _set_measure(f, x)) for f, x in values[:4]]
    return ARCHETYPE.detection(span, readings, question=question)


# -- averages and ratios ---------------------------------------------------------------------------------

def _average(intent, ops, kinds, profile, spec, as_of, out) -> None:
    if "per" in out.consumed:
        return  # ('open rate per newsletter': each newsletter's rate, read with the rate)
    average = _first(ops, "average")
    lower = intent.lower
    basket = _BASKET.search(lower)
    per = _PER.search(lower) if average is not None else re.search(r"\bper\s+([a-z][a-z ]{1,30})", lower)
    if per is not None and average is None and basket is None and re.search(r"(?:,|\bcounts?|\btally)\s*$",
                                                                            lower[:per.start()]):
        return  # 'how much dairy did we sell in 1998, per product?', 'album count per artist': broken down
    if spec.shape not in ("aggregate", "change") or (average is None and basket is None and per is None):
        return  # ('avg invoice this year vs last': the average, in each period)
    if spec.shape == "change" and average is None and basket is None:
        return
    if per is not None and average is not None and _rows_per(intent, average, per, profile, spec, out):
        return
    typical = re.search(r"\b(?:the\s+)?(?:average|typical|avg|median)\s+([a-z][a-z ]{1,30})", lower) \
        if average is not None and intent.how_many is not None else None
    if typical is not None and average is not None and _rows_per(intent, average, typical, profile, spec, out):
        return  # 'how many visits does the average client make': the visits counted per client
    fact = spec.fact
    if fact is None and re.search(r"\baov\b", lower):
        # 'aov in 1997' names no table: the order value is the money of the lines of the header they belong to
        fact = spec.fact = next((f for f in profile.fact_list() if _header_of(profile, f) is not None and
                                 any(m.money for m in f.measures)), None)
        spec.measure = next((m for m in fact.measures if m.money), None) if fact is not None else None
        spec.count_table = None
    if fact is None:
        return
    header = _header_of(profile, fact)
    if basket is not None and header is not None and "size" in (basket.group(1), basket.group(2)) and \
            _apply_basket(intent, _span(intent, basket.start(), basket.end()), profile, fact, header, spec, out):
        return
    if _ORDER_VALUE.search(lower) and header is None:
        # 'avg order value per branch' read on the headers: the value is the money of their lines (a header's own
        # money is a fee on it, freight)
        lines = next((f for f in profile.fact_list() if _header_of(profile, f) == fact.table and
                      any(m.money for m in f.measures)), None)
        if lines is not None:
            spec.fact, fact, header = lines, lines, fact.table
    if (basket is not None or _ORDER_VALUE.search(lower)) and header is not None:
        money = next((m for m in fact.measures if m.money), None)
        if money is not None and (basket is not None or "value" in lower or "aov" in lower or "worth" in lower):
            spec.measure, spec.per_table, spec.agg = money, header, None
            out.consumed |= {"average"}
            _group_by_mention(intent, spec, profile=profile)
            out.replaces.add("ranking_metric")
            return
    if average is not None:
        column = _numeric_mentioned(intent, profile, spec) or _length_mentioned(intent, profile)
        if column is not None:
            table, name = column
            listed = next((e.ref_table for e in profile.edges.get(table, ()) if table in profile.facts and
                           e.ref_table not in profile.facts and set(words(name)) & {"price", "cost"} and
                           profile.tables[e.ref_table].column(name) is not None), None)
            if listed is not None and all(profile.path(listed, f.entity.table) is not None for f in spec.filters):
                table = listed  # 'average unit price of beverages': the catalogue's, or the one charged (asked)
            if table in profile.facts:
                spec.fact = profile.facts[table]
            else:
                spec.fact = Fact(table=table, measures=[], row_count=profile.tables[table].row_count)
            spec.measure = _in_unit(intent, name, table, out) or \
                Measure(slug(" ".join(words(name))), f"{' '.join(words(name))}", "sum", table, (name,),
                        money=_priced_in_currency(profile, spec.fact, name))
            # 'average monthly fee': 'fee' is the column's word, not the payments of kind 'fee' (out of reach)
            spec.filters = [f for f in spec.filters if not (
                {v.lower() for v in f.values} & set(words(name)) and f.entity.table != table and
                profile.path(table, f.entity.table) is None)]
            denominator = _table_named(profile, per.group(1), intent) if per is not None and \
                per.group(0).startswith("per") else None
            if per is not None and denominator is not None and denominator != table and table in profile.facts and \
                    profile.path(table, denominator) and not set(words(name)) & lexicon.RATING_WORDS:
                # (a rating or a score is never added up: 'average satisfaction score per agent' is each one's mean)
                # 'average repair cost per bike': the costs of each bike added up, over the bikes (not the average
                # cost of one repair), or each bike's own average ('average invoice amount per vet')
                _ratio_per(intent, per, profile, spec, denominator, out)
                owner = profile.entities.get(denominator)
                if owner is not None:
                    out.detections.append(_total_or_average_per(intent, per, denominator, owner))
                    out.replaces.add("aggregation_level")
                out.replaces.add("unit")
                return
            spec.agg = "avg"
            out.consumed |= {"average"}
            out.read.extend(_span(intent, s, e) for w, s, e in intent.tokens if w in _LENGTH_WORDS)
            _group_by_mention(intent, spec, profile=profile)
            out.replaces |= {"ranking_metric"} | (set() if spec.measure.money else {"unit"})
            rate = _averaged_rate(profile, table, name, average.span) or _price_charged(profile, table, name,
                                                                                         average.span)
            if rate is not None:
                out.detections.append(rate)
                out.replaces.add(rate.archetype)
            return
    if per is not None:
        denominator = _table_named(profile, per.group(1), intent)
        if denominator is not None and denominator != spec.fact.table:
            # 'how many tracks per album': each album's count, or the average count per album
            how_many_per = average is None and re.match(r"^\s*how many\b", lower) is not None
            ratio = average is not None or _BY.search(lower) is not None or bool(spec.sides) or (
                _ASKS_FIGURE.search(lower) is not None and not how_many_per) or (  # 'visits per client, a vs b'
                spec.group is not None and _apart(spec.group, denominator) and intent.superlative is not None)
            # ('which shop has the highest revenue per client': the shops ranked by their revenue per client)
            totals = re.search(r"\b(?:total|totals|sum of|overall)\b", lower[:per.start()]) is not None
            if totals and average is None and not spec.sides and intent.superlative is None:
                return  # 'what is the total call revenue per region': each region's total, not one ratio
            if not ratio and (not _BARE.match(lower) or totals) and not how_many_per:
                return  # 'units sold per product', 'total units per category': one figure per row (grouped)
            if not ratio:
                out.detections.append(_per_readings(intent, per, profile, spec, denominator))
                out.replaces.add("aggregation_level")
                out.consumed |= {"average"}
                return
            counted_per_line = spec.measure is not None and spec.measure.kind == "count_distinct" and \
                spec.measure.table == fact.table  # 'items per visit': the lines of each visit
            if (_counts_table(profile, spec.measure, denominator) or counted_per_line) and \
                    _header_of(profile, fact) == denominator:
                # 'average number of items per invoice': the lines (or units) of each, not invoices per invoice
                from archetypes.ranking_metric import ARCHETYPE

                readings = [r for r in _basket_readings(profile, fact, denominator) if "lines" in r.value or
                            "units" in r.value]
                said_lines = _LINES_SAID.search(lower, 0, per.start())
                if said_lines is not None:  # 'line items per order': the lines, not the units on them
                    readings = [r for r in readings if r.value.startswith("lines_per")]
                    out.read.append(_span(intent, said_lines.start(), said_lines.end()))
                else:
                    out.detections.append(ARCHETYPE.detection(_span(intent, per.start(), per.end()), readings,
                                                              question=f"Counted how, per {phrase(denominator)}?"))
                readings[0].apply(spec)  # type: ignore[misc]
                out.replaces.add("ranking_metric")
                out.consumed |= {"average"}
                out.read.append(_span(intent, per.start(), per.end()))
                _group_by_mention(intent, spec, skip=denominator, profile=profile)
                return
            if average is not None and spec.measure is not None and spec.measure.kind == "count":
                # 'average payment per member': the money of the events counted, per member, not their number
                valued = _event_money(intent, average, profile, spec.measure)
                if valued is not None:
                    spec.fact, spec.measure = valued
            _ratio_per(intent, per, profile, spec, denominator, out)
            return
    if average is not None:
        if header is not None and spec.measure is not None and spec.measure.kind in ("product", "sum", "expression") \
                and (spec.measure.money or spec.measure.value == "units"):
            spec.per_table = header
            out.consumed |= {"average"}
            _group_by_mention(intent, spec, profile=profile)
            out.replaces.add("ranking_metric")
        elif spec.measure is not None and spec.measure.kind == "sum" and len(spec.measure.columns) == 1 and \
                spec.measure.table == fact.table:
            # 'average salary': the amount of each row of a fact that has no header, averaged over its rows
            said = {singular(w) for w, _, _ in intent.tokens}
            priced = spec.measure.money and bool(said & (lexicon.MONEY_WORDS | _PRICE_SAID))  # 'cheapest on average'
            if not any(m.value == spec.measure.value for m, _ in intent.measures) and not priced and \
                    not {singular(w) for w in words(spec.measure.columns[0])} & said:
                # ('the avg delay' where no column holds a delay: the first figure of the rows is no answer)
                out.unread.append((average.span, "no figure of the data named to average"))
                return
            spec.agg = "avg"
            out.consumed |= {"average"}
            _group_by_mention(intent, spec, profile=profile)
            out.replaces.add("ranking_metric")
        elif spec.measure is not None and spec.measure.kind in ("count", "count_distinct"):
            _average_event(intent, average, profile, spec, out)


_PRICE_SAID = frozenset({"cheap", "cheaper", "cheapest", "expensive", "pricey", "pricier", "priciest", "costly",
                         "dear", "dearest", "cost", "costs", "price", "pay", "paid", "spend", "spent"})
_RATE_WORDS = frozenset({"discount", "rate", "pct", "percent", "percentage", "tax", "commission"})
_PRICE_WORDS = frozenset({"price", "rate", "cost", "amount", "fee", "charge", "fare", "total", "value", "salary", "wage",
                          "paid", "payment", "revenue", "spend"})


def _priced_in_currency(profile: SchemaProfile, fact: Fact, column: str) -> bool:
    """'average nightly rate' of rows that each carry their currency: an amount of money, in several units (an
    average over EUR, GBP and USD rows answers nothing), so the currency readings apply."""
    return bool(set(words(column)) & (_PRICE_WORDS | MONEY_COLUMN_WORDS)) and not set(words(column)) & {"discount", "pct", "percent"} and \
        (found := profile.currency_for(fact)) is not None and len(found[0].codes) > 1


def _averaged_rate(profile: SchemaProfile, table: str, column: str, span: Span) -> Detection | None:
    """'average discount' of a line fact: the mean over every line, over the lines that have one, or weighted by
    the lines' value (what was given away over what was sold): three figures, each defensible."""
    from archetypes.aggregation_level import ARCHETYPE

    fact = profile.facts.get(table)
    gross = next((m for m in fact.measures if m.kind == "product" and len(m.columns) == 2), None) if fact else None
    if gross is None or not set(words(column)) & _RATE_WORDS:
        return None
    said = phrase(column)

    def mean(conditions: list[RowCondition], weight: Measure | None):
        def apply(spec: QuerySpec) -> None:
            spec.agg, spec.weight = ("weighted", weight) if weight is not None else ("avg", None)
            spec.conditions.extend(conditions)
        return apply

    noun = phrase(table).split()
    line, lines = " ".join(noun[:-1] + [singular(noun[-1])]), " ".join(noun[:-1] + [plural(noun[-1])])
    readings = [Reading("every_line", f"Mean {said} over every {line}", mean([], None)),
                Reading("lines_with_one", f"Mean over the {lines} with a {said} only",
                        mean([RowCondition(table, column, "gt", ("0",), f"{said} above 0")], None)),
                Reading("value_weighted", f"Weighted by each {line}'s {gross.label.split(' (')[0].lower()}",
                        mean([], gross))]
    return ARCHETYPE.detection(span, readings, question=f"The average {said} over which {lines}, weighted how?")


def _price_charged(profile: SchemaProfile, table: str, column: str, span: Span) -> Detection | None:
    """'average track price': the catalogue's price, or the price charged on the sales lines that carry a column of
    the same name (each unit sold counted once): the catalogue weighs what is listed, the lines what sells."""
    from archetypes.schema_mapping import ARCHETYPE

    if table in profile.facts or not set(words(column)) & {"price", "cost"}:
        return None
    lines = next((f for f in profile.fact_list() if any(e.ref_table == table for e in profile.edges.get(f.table, ()))
                  and profile.tables[f.table].column(column) is not None), None)
    if lines is None:
        return None
    units = next((m for m in lines.measures if m.kind == "sum" and not m.money), None)
    charged = Measure(slug(column), phrase(column), "sum", lines.table, (column,))

    def on_lines(spec: QuerySpec) -> None:
        spec.fact, spec.measure = lines, charged
        spec.agg, spec.weight = ("weighted", units) if units is not None else ("avg", None)

    said = phrase(column)
    readings = [Reading("catalogue", f"The {phrase(table)}'s own {said} (the catalogue)", lambda spec: None),
                Reading("charged", f"The {said} charged on the {plural(phrase(lines.table))}" +
                        (f", per {singular(units.label.split(' (')[0].lower())} sold" if units is not None else ""), on_lines)]
    return ARCHETYPE.detection(span, readings, question=f"The listed {said}, or the {said} charged when sold?")


def _apply_basket(intent: Intent, span: Span, profile: SchemaProfile, fact: Fact, header: str, spec: QuerySpec,
                  out: ShapeRead) -> bool:
    """A basket's size: its lines or its units, per header row (both shown)."""
    from archetypes.ranking_metric import ARCHETYPE

    readings = _basket_readings(profile, fact, header)
    if intent.how_many is not None:  # 'how many tracks are on an invoice': a count, never its money
        readings = [r for r in readings if not r.value.startswith(tuple(m.value for m in fact.measures if m.money))]
    said_lines = _LINES_SAID.search(intent.lower, 0, span.start)
    if said_lines is not None:  # 'line items per order': the lines, not the units on them
        readings = [r for r in readings if r.value.startswith("lines_per")]
        out.read.append(_span(intent, said_lines.start(), said_lines.end()))
    if not readings:
        return False
    spec.fact = fact
    if len(readings) > 1:
        out.detections.append(ARCHETYPE.detection(span, readings, question=f"Basket size as which figure per "
                                                                           f"{phrase(header)}?"))
    out.replaces.add("ranking_metric")
    spec.count_table, spec.agg = None, None  # 'how many tracks are on an invoice': counted per invoice, not all
    readings[0].apply(spec)  # type: ignore[misc]
    out.consumed |= {"average"}
    _group_by_mention(intent, spec, profile=profile)
    return True


def _rows_per(intent: Intent, average: OperatorMention, per: re.Match, profile: SchemaProfile, spec: QuerySpec,
              out: ShapeRead) -> bool:
    """'avg tracks per album', 'average number of tracks per playlist': the rows of the table named between the
    average and 'per', counted per row of the other (through their link table when one joins them), not the money
    of the facts."""
    denominator = _table_named(profile, per.group(1), intent)
    # 'avg tracks per album'; 'how many tracks are on an invoice on average': the average said last
    start = average.span.end if average.span.start < per.start() else 0
    intent_counted = intent.how_many[0] if intent.how_many is not None else next(
        (rows_of(profile, m) for m, s in intent.measures if m.kind == "count" and s.text.lower() != singular(s.text.lower())),
        None)  # rows said in the plural and counted ('visits per client'), not one row's money ('order value')
    counted = next((t.entity.table for t in intent.targets if not t.entity.column_only and
                    start <= t.span.start and t.span.end <= per.start()), None) or \
        (intent.how_many[0] if intent.how_many is not None and intent.how_many[1].end <= per.start() else None) or \
        next((rows_of(profile, m) for m, s in intent.measures if start <= s.start and s.end <= per.start() and
              m.kind in ("count", "count_distinct") and s.text.lower() != singular(s.text.lower())), None)
    # ('avg visits per client': a table of events, no name, said in the plural; 'avg order value' is money)
    money_said = intent.money is not None or any(w in lexicon.MONEY_WORDS for w, _, _ in intent.tokens)
    if denominator is None or counted is None or counted == denominator or counted in profile.facts and \
            any(m.money for m in profile.facts[counted].measures) and (money_said or counted != intent_counted):
        return False  # ('avg invoice per client' is its money; 'how many invoices per client on average' counts them)
    between = {singular(w) for w, s, _ in intent.tokens if average.span.end <= s < per.start()}
    if between & _LENGTH_WORDS or any({singular(w) for w in words(c.name)} <= between and
                                      c.family == "numeric" for c in profile.tables[counted].columns):
        return False  # 'avg track length per genre', 'average list price of items per category': a column averaged
    rows = counted if profile.path(counted, denominator) is not None else bridge_between(profile, counted,
                                                                                          denominator)
    if rows is not None and rows in profile.facts and _header_of(profile, profile.facts[rows]) == denominator:
        # 'items per order', 'tracks on an invoice on average': the lines or the units of each, a basket's size
        # (said first, 'avg items per order' is read by _average, over the lines' fact; the lines named as a
        # table, 'average number of line items per order', have no fact read yet)
        return (start == 0 or spec.fact is None) and _apply_basket(intent, _span(intent, per.start(), per.end()),
                                                                   profile, profile.facts[rows], denominator, spec, out)
    if rows is None:
        return False
    spec.fact, spec.measure = rows_counted(rows, profile)
    if rows != counted:  # a playlist's tracks: the link rows, labelled by what they count
        noun = plural(phrase(counted).split()[-1])
        spec.measure = Measure(slug(noun), f"Number of {noun}", "count", rows, spec.measure.columns)
    spec.count_table, spec.agg, spec.per_table = None, None, denominator
    out.consumed |= {"average"}
    out.read.append(_span(intent, per.start(), per.end()))
    _group_by_mention(intent, spec, skip=denominator, profile=profile)
    out.replaces.add("ranking_metric")
    if spec.group is None and denominator in profile.entities:
        out.detections.append(_per_whom(intent, per, denominator))
    return True


def _average_event(intent: Intent, average: OperatorMention, profile: SchemaProfile, spec: QuerySpec,
                   out: ShapeRead) -> None:
    """'the highest avg invoice': the average value of the event the count counts (its money per row)."""
    assert spec.measure is not None
    events = rows_of(profile, spec.measure)
    valued = _event_money(intent, average, profile, spec.measure)
    if valued is None:
        return
    spec.fact, spec.measure = valued
    spec.per_table, spec.agg = events, None
    out.consumed |= {"average"}
    _group_by_mention(intent, spec, profile=profile)
    out.replaces.add("ranking_metric")


def _event_money(intent: Intent, average: OperatorMention, profile: SchemaProfile,
                 counted: Measure) -> tuple[Fact, Measure] | None:
    """The money of the events `counted` counts when the word after 'average' names them ('average invoice'):
    their lines' money when they have lines, else their own; None when they carry none."""
    events = rows_of(profile, counted)
    noun = re.match(r"\s*([a-z]+)", intent.lower[average.span.end:])
    if events not in profile.facts or noun is None or singular(noun.group(1)) not in phrase(events).split() or \
            noun.group(1) != singular(noun.group(1)) and intent.grain is not None:
        return None  # 'average appointments per month': how many of them, not the value of one
    lines = next((f for f in profile.fact_list() if _header_of(profile, f) == events and
                  any(m.money for m in f.measures)), None)
    holder = lines or profile.facts[events]
    money = next((m for m in holder.measures if m.money), None)
    return (holder, money) if money is not None else None


_AGAINST_AVERAGE = re.compile(r"\b(?:(priced|costing|costs?|that cost|which cost)\s+)?(above|over|below|under|more than|"
                              r"less than|higher than|lower than|greater than|longer than|shorter than)\s+"
                              r"(?:the\s+)?(?:average|avg|mean|median)\b")
_ABOVE_WORDS = frozenset({"above", "over", "more than", "higher than", "greater than", "longer than"})


def _against_average(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'items priced above average', 'tracks longer than average': the rows whose own figure passes the
    average of all of them (a column the question names, else the one price or length its words name)."""
    m = _AGAINST_AVERAGE.search(intent.lower)
    target = _head_target(intent)
    if m is None or target is None or target.entity.column_only or spec.shape != "aggregate" or \
            target.entity.table in profile.facts and m.group(1) is None:
        return
    table = target.entity.table
    named = _numeric_mentioned(intent, profile, spec)
    kind = "length" if m.group(2) in ("longer than", "shorter than") else "price" if m.group(1) else None
    found = _attribute_columns(profile, table, kind) if kind is not None else []
    column = named[1] if named is not None and named[0] == table else found[0] if len(found) == 1 else None
    if column is None:
        return
    op = "above_avg" if m.group(2) in _ABOVE_WORDS else "below_avg"
    said = f"{phrase(column)} {m.group(2)} the average"
    spec.conditions = [*spec.conditions, RowCondition(table, column, op, (), said)]
    if intent.how_many is not None and intent.how_many[0] == table:
        spec.shape, spec.fact, spec.measure, spec.count_table = "aggregate", None, None, table
    else:
        spec.shape, spec.group, spec.fact, spec.measure, spec.limit = "list", target.entity, None, None, None
        spec.list_columns = (column,)
    out.consumed |= {"average", "compare"}
    out.read.append(_span(intent, m.start(), m.end()))
    out.replaces |= {"ranking_metric", "unit", "timezone"}


def _period_average(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'average monthly revenue', 'avg daily bookings': the mean of the totals per period (one figure), or each
    period's own average (a series): two answers, asked."""
    from archetypes.ranking_metric import ARCHETYPE

    average = _first(ops, "average")
    if average is None or intent.grain is None or spec.shape != "aggregate" or spec.group is not None or \
            spec.grain in (None, "hour", "weekday") or spec.fact is None or spec.fact.time is None or \
            spec.measure is None or spec.measure.kind not in _ADDITIVE_KINDS:
        return
    grain = spec.grain.split("_")[0]
    each = "Each period's own average" if spec.agg or spec.per_table else f"Each {grain}'s total"
    readings = [Reading(f"average_{grain}", f"The average {grain}'s total (one figure)", _set_period_mean(True)),
                Reading(f"each_{grain}", f"{each} ({grain} by {grain})", _set_period_mean(False))]
    out.detections.append(ARCHETYPE.detection(average.span, readings,
                                              question=f"The average {grain}'s total, or the figure of each {grain}?"))
    out.replaces.add("ranking_metric")
    out.consumed.add("average")


_ADDITIVE_KINDS = ("sum", "product", "count", "count_distinct", "expression")


def _set_period_mean(mean: bool):
    def apply(spec: QuerySpec) -> None:
        spec.period_mean = mean
    return apply


def _ratio_per(intent: Intent, per: re.Match, profile: SchemaProfile, spec: QuerySpec, denominator: str,
               out: ShapeRead) -> None:
    """The measure's total divided by the rows of `denominator` ('revenue per customer'), asking over which
    of them when some have no events."""
    assert spec.fact is not None  # the ratio divides the fact's measure
    spec.per_table, spec.agg = denominator, None
    out.consumed |= {"average"}
    out.read.append(_span(intent, per.start(), per.end()))
    ranked, limit = spec.group, spec.limit
    _group_by_mention(intent, spec, skip=denominator, profile=profile)
    if spec.group is None and ranked is not None and intent.superlative is not None and _apart(ranked, denominator):
        spec.group, spec.limit = ranked, limit  # 'which shop has the highest revenue per client': the shops
    out.replaces.add("ranking_metric")
    if spec.group is None and (denominator in profile.entities or profile.tables[denominator].primary_key) and \
            _header_of(profile, spec.fact) != denominator:
        out.detections.append(_per_whom(intent, per, denominator))


def _apart(group: Entity, table: str) -> bool:
    """The group is not the rows of `table` themselves (a column of them, like their country, is)."""
    return group.table != table or group.column_only


def _per_whom(intent: Intent, per: re.Match, table: str) -> Detection:
    """'avg spend per customer': over the ones who bought, or over every one of them (those who bought
    nothing count as zero): two figures, and neither is the obvious one."""
    from archetypes.ranking_metric import ARCHETYPE  # which figure: the shape replaces the metric question

    noun = plural(phrase(table))
    readings = [Reading("with_events", f"Only {noun} with any", _set_per_all(False)),
                Reading("every_row", f"Every one of the {noun}, with or without any", _set_per_all(True))]
    return ARCHETYPE.detection(_span(intent, per.start(), per.end()), readings,
                               question=f"Divided by which {noun}: those with any, or all of them?")


def _set_per_all(every: bool):
    def apply(spec: QuerySpec) -> None:
        spec.per_all = every
    return apply


def _total_or_average_per(intent: Intent, per: re.Match, table: str, owner: Entity) -> Detection:
    """'average repair cost per bike': the costs summed over the bikes, or each bike's average cost."""
    from archetypes.aggregation_level import ARCHETYPE

    noun = phrase(table)
    readings = [Reading(f"total_per_{slug(noun)}", f"The total divided by the number of {plural(noun)}",
                        _set_per_average(table, None)),
                Reading(f"each_{slug(noun)}_average", f"Each {noun}'s own average", _set_per_average(None, owner))]
    return ARCHETYPE.detection(_span(intent, per.start(), per.end()), readings,
                               question=f"The total per {noun}, or each {noun}'s average?")


def _set_per_average(table: str | None, owner: Entity | None):
    def apply(spec: QuerySpec) -> None:
        if owner is None:
            spec.per_table, spec.agg = table, None
        else:
            spec.per_table, spec.per_all, spec.agg, spec.group, spec.limit = None, False, "avg", owner, None
    return apply


def _per_readings(intent: Intent, per: re.Match, profile: SchemaProfile, spec: QuerySpec,
                  table: str) -> Detection:
    """'revenue per customer': each customer's figure, or the average figure per customer."""
    from archetypes.aggregation_level import ARCHETYPE

    noun = phrase(table)
    target = next((t for t in intent.targets if t.entity.table == table), None)
    readings = [Reading(f"average_per_{slug(noun)}", f"The average per {noun} (total divided by the number of "
                        f"{plural(noun)} with any)", _set_per(table, None))]
    if target is not None:
        readings.append(Reading(f"each_{slug(noun)}", f"One figure for each {noun}", _set_per(None, target.entity)))
    return ARCHETYPE.detection(_span(intent, per.start(), per.end()), readings,
                               question=f"The average per {noun}, or one figure for each {noun}?")


def _set_per(table: str | None, group: Entity | None):
    def apply(spec: QuerySpec) -> None:
        spec.per_table = table
        if group is not None:
            spec.group, spec.limit = group, None
        elif table is not None and spec.group is not None and spec.group.table == table:
            spec.group = None
    return apply


def _group_by_mention(intent: Intent, spec: QuerySpec, skip: str | None = None,
                      profile: SchemaProfile | None = None) -> None:
    if spec.sides:
        spec.limit = None  # named values side by side: one row per value, grouped as they were
        return
    by = re.search(r"\b(?:by|for each|per|in each|across)\s+([a-z][a-z ]{1,30})", intent.lower)
    if by is None and (intent.superlative is not None or intent.ranking is not None) and spec.fact is not None:
        # 'which category has the highest average list price': the groups ranked by the average
        fact_table = spec.fact.table
        ranked = next((t for t in intent.targets if t.entity.table != skip and (
            t.entity.column_only and t.entity.table == fact_table or t.entity.table != fact_table and
            profile is not None and profile.path(fact_table, t.entity.table) is not None)), None)
        if ranked is not None:
            spec.group, spec.limit = ranked.entity, intent.top_n or 10
            return
    if by is None:
        spec.group = None if spec.limit is None else spec.group
        return
    target = next((t for t in intent.targets if t.span.start >= by.start(1) and t.entity.table != skip), None)
    head = intent.group
    if head is not None and target is not None and head.span.start > target.span.start and \
            head.entity.column_only and head.entity.table == target.entity.table and \
            not intent.lower[target.span.end:head.span.start].strip():
        target = head  # 'per freelancer tier': the tier (the compound's head), not each freelancer
    spec.group = target.entity if target is not None else None
    spec.limit = None


def _counts_table(profile: SchemaProfile, measure: Measure | None, table: str) -> bool:
    """The measure counts the rows of `table` (its own, or the distinct keys pointing at it)."""
    if measure is None or measure.kind not in ("count", "count_distinct"):
        return False
    if measure.kind == "count":
        return measure.table == table
    return any(e.ref_table == table and tuple(e.columns) == tuple(measure.columns)
               for e in profile.edges.get(measure.table, ()))


_LINES_SAID = re.compile(r"\blines?(?:[- ]items?)?\b")


def _basket_readings(profile: SchemaProfile, fact: Fact, header: str) -> list[Reading]:
    readings = []
    noun = phrase(header)
    units = next((m for m in fact.measures if m.kind == "sum" and not m.money), None)
    money = next((m for m in fact.measures if m.money), None)
    line_key = profile.tables[fact.table].primary_key
    lines = Measure(f"{slug(plural(phrase(fact.table).split()[-1]))}", f"Lines per {noun}", "count", fact.table,
                    tuple(line_key[:1]))
    if units is not None:
        readings.append(Reading(f"{units.value}_per_{slug(noun)}", f"{units.label.split(' (')[0]} per {noun}",
                                _set_ratio(units, header)))
    readings.append(Reading(f"lines_per_{slug(noun)}", f"Line items per {noun}", _set_ratio(lines, header)))
    if money is not None:
        readings.append(Reading(f"{money.value}_per_{slug(noun)}", f"{money.label.split(' (')[0]} per {noun}",
                                _set_ratio(money, header)))
    return readings


def _set_ratio(measure: Measure, table: str):
    def apply(spec: QuerySpec) -> None:
        spec.measure, spec.per_table, spec.agg = measure, table, None
    return apply


def _table_named(profile: SchemaProfile, text: str, intent: Intent) -> str | None:
    parts = [singular(w) for w in re.findall(r"[a-z]+", text)][:3]
    for size in range(len(parts), 0, -1):
        key = " ".join(parts[:size])
        for name in profile.tables:
            if phrase(name) == key or phrase(name).split()[-1:] == [key]:
                return name
    return None


_LENGTH_WORDS = frozenset({"length", "lenght", "duration", "runtime", "running time"})


_TIME_UNITS = {"ms": 0.001, "millisecond": 0.001, "milliseconds": 0.001, "second": 1.0, "seconds": 1.0,
               "minute": 60.0, "minutes": 60.0, "hour": 3600.0, "hours": 3600.0}


_LENGTH_NOUN = r"(?:runtime|run time|running time|playing time|length|duration)"
_TIME_TOTAL = re.compile(r"\bhow many (hours|minutes|mins|seconds|secs|hrs)\s+(?:of|worth of)\b|"
                         r"\b(?:total|combined)\s+" + _LENGTH_NOUN + r"\b"
                         r"(?:.*?\bin (hours|minutes|mins|seconds|secs|hrs)\b)?")
# 'how long is the album let there be rock', 'how many minutes is stairway to heaven': the length of the rows
# named (never of every row: 'how long are our tracks' asks for a typical one)
_NAMED_LENGTH = re.compile(r"\bhow (?:long|many (hours|minutes|mins|seconds|secs|hrs)) (?:is|was|are|were)\b"
                           r"(?!.*\b(?:average|avg|typical|mean|median)\b)(?:.*?\bin (hours|minutes|mins|seconds|secs|hrs)\b)?")


_WE_HAVE = re.compile(r"^\s*how much\s+(?:of\s+)?(?:the\s+|our\s+)?(.+?)\s+(?:(?:do|does|did)\s+(?:we|you|the\s+\w+)\s+"
                      r"(?:have|carry|stock|hold|own|offer)|have\s+we\s+got|(?:we|you)\s+(?:have|carry|got)|is\s+there|"
                      r"(?:is|are)\s+(?:in|on)\s+(?:the|our)\s+(?:catalog(?:ue)?|library|collection|store|shop|system))\b")


def _how_much_we_have(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'how much jazz do we have': how much of the catalogue is of that kind, as a number of its rows or, when
    they have a length, as the time they last: not the money the kind made."""
    m = _WE_HAVE.match(intent.lower)
    sold = catalogue(profile)
    if m is None or sold is None or spec.shape != "aggregate" or not spec.filters or intent.measures or \
            intent.explicit_measure or intent.money is not None and intent.money.text.lower() != "how much":
        return
    if not all(f.entity.table == sold.table or profile.path(sold.table, f.entity.table) is not None
               for f in spec.filters):
        return
    counted = rows_counted(sold.table, profile)
    spec.fact, spec.measure = counted
    spec.count_table, spec.agg = None, None
    out.read += [_span(intent, m.start(), m.start(1)), _span(intent, m.end(1), m.end())]
    out.replaces |= {"ranking_metric", "unit", "insufficient_info"}
    length = _length_total(profile, sold.table, "hours")
    if length is None:
        return
    from archetypes.ranking_metric import ARCHETYPE

    readings = [Reading(measure.value, measure.label, _set_figure(fact, measure)) for fact, measure in (counted, length)]
    out.detections.append(ARCHETYPE.detection(_span(intent, m.start(), m.start(1) - 1), readings,
                                              question=f"How much: the {counted[1].label.lower()}, or their "
                                                       f"total length in hours?"))


def _set_figure(fact: Fact, measure: Measure):
    def apply(spec: QuerySpec) -> None:
        spec.fact, spec.measure = fact, measure
    return apply


def _length_total(profile: SchemaProfile, table: str, said: str | None) -> tuple[Fact, Measure] | None:
    """The rows' length column summed, in the unit `said` ('hours', 'mins'; None: the column's own unit)."""
    columns = _attribute_columns(profile, table, "length")
    if not columns:
        return None
    column = columns[0]
    stored = _stored_seconds(column)
    unit = _DURATION_UNITS.get(said, said) if said else None
    seconds = _said_seconds(said) if said else stored
    if stored is None or seconds is None:
        return None
    factor = seconds / stored
    shown = plural(singular(unit)) if unit else " ".join(words(column))
    fact = profile.facts.get(table) or Fact(table=table, measures=[], row_count=profile.tables[table].row_count)
    if factor == 1:
        return fact, Measure(slug(f"total {shown}"), f"Sum of {' '.join(words(column))}", "sum", table, (column,))
    return fact, Measure(slug(f"total {shown}"), f"{' '.join(words(column))} in {shown} (÷ {factor:,.0f})",
                         "expression", table, (column,), expression=f"{column} / {factor!r}")


_EVERY_ONE = re.compile(r"\b(?:where|whose|in\s+which|for\s+which)\s+(every|each|all(?:\s+of)?(?:\s+(?:the|their|its))?)"
                        r"\s+[a-z]+\s+(?:is|are|was|were|has|have|had|costs?|sold|priced)\b")


def _every_one_of_theirs(intent: Intent, out: ShapeRead) -> None:
    """'albums where every track is priced at $1.99': a condition on all of a row's rows (none outside it) is not
    computed yet: said, never answered by a sum or by any one of them."""
    m = _EVERY_ONE.search(intent.lower)
    if m is not None:
        out.unread.append((_span(intent, m.start(1), m.end(1)),
                           "a condition every one of their rows must meet is not computed yet"))


_PARENT_LENGTH = re.compile(r"\b(?:average|avg|mean|typical)\s+([a-z]+)\s+(?:length|lenght|duration|runtime|"
                            r"running\s+time)\b")
_IN_UNIT = re.compile(r"\bin\s+(ms|milliseconds?|secs?|seconds?|mins?|minutes?|hrs?|hours?)\b")


def _parent_length_average(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'average album length': each album's rows' lengths added up, averaged over the albums (never the average
    length of one of its rows)."""
    m = _PARENT_LENGTH.search(intent.lower)
    if m is None or spec.shape != "aggregate" or spec.group is not None:
        return
    parent = _table_named(profile, m.group(1), intent)
    if parent is None or _attribute_columns(profile, parent, "length"):
        return
    child = next((t for t, edges in profile.edges.items() if any(e.ref_table == parent for e in edges) and
                  _attribute_columns(profile, t, "length")), None)
    unit = _IN_UNIT.search(intent.lower)
    total = _length_total(profile, child, unit.group(1) if unit else None) if child is not None else None
    if total is None:
        return
    spec.fact, spec.measure = total
    spec.count_table, spec.agg, spec.per_table = None, None, parent
    out.consumed |= {"average"}
    out.read.append(_span(intent, m.start(), m.end()))
    out.replaces.add("ranking_metric")


def _duration_total(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'how many hours of music do we have', 'total runtime of the rock genre in hours': the rows' length column
    added up, in the unit asked (the column's own unit converted), not a count of the rows."""
    m = _TIME_TOTAL.search(intent.lower)
    if m is None and (spec.filters or intent.names):
        m = _NAMED_LENGTH.search(intent.lower)
    if m is None or spec.shape != "aggregate":
        return
    named = [t.entity.table for t in intent.targets if not t.entity.column_only and t.span.start >= m.start()]
    scoped = [t for t in profile.tables if _attribute_columns(profile, t, "length") and
              all(profile.path(t, f.entity.table) is not None or bridges_to(profile, f.entity.table)
                  for f in spec.filters)]
    table = next((t for t in named if _attribute_columns(profile, t, "length")), None) or \
        (scoped[0] if len(scoped) == 1 else None)
    if table is None:
        return
    found = _length_total(profile, table, m.group(2) or m.group(1))  # 'in hours' at the end: the answer's unit
    if found is None:
        return
    spec.fact, spec.measure = found
    spec.count_table, spec.agg = None, None
    # the words of the total and of its unit, not what lies between them ('total runtime of our tv content')
    if m.re is _NAMED_LENGTH:
        head = re.match(r"how (?:long|many \w+) \w+", intent.lower[m.start():])
        first = m.start() + (head.end() if head else 3)
    else:
        first = m.group(1) and m.end() or re.search(_LENGTH_NOUN + r"\b",
                                                    intent.lower[m.start():]).end() + m.start()  # type: ignore[union-attr]
    out.read.append(_span(intent, m.start(), first))
    if m.group(2):
        out.read.append(_span(intent, m.start(2) - 3, m.end(2)))
    out.replaces |= {"ranking_metric", "unit", "insufficient_info"}


def _stored_seconds(column: str) -> float | None:
    """Seconds per unit of a length column, from its name ('milliseconds' -> 0.001); None when it says none."""
    return next((_TIME_UNITS[w] for w in words(column) if w in _TIME_UNITS), None)


def _said_seconds(word: str) -> float | None:
    """Seconds per unit of a unit said in a question ('mins', 'hours', 'ms')."""
    return _TIME_UNITS.get(_DURATION_UNITS.get(word, word))


def _in_unit(intent: Intent, column: str, table: str, out: ShapeRead) -> Measure | None:
    """'avg song length in minutes' over a milliseconds column: the column converted, the unit read."""
    stored = _stored_seconds(column)
    asked = next(((w, s, e) for w, s, e in intent.tokens if w in _TIME_UNITS and
                  intent.lower[max(0, s - 3):s].strip() == "in"), None)
    if stored is None or asked is None or _TIME_UNITS[asked[0]] == stored:
        return None
    out.read.append(_span(intent, asked[1], asked[2]))
    factor = _TIME_UNITS[asked[0]] / stored
    unit = plural(singular(asked[0]))
    return Measure(slug(f"{phrase(column)} {unit}"), f"{' '.join(words(column))} / {factor:g}, in {unit}", "expression",
                   table,
                   (column,), expression=f"{column} / {factor!r}")


def _length_mentioned(intent: Intent, profile: SchemaProfile) -> tuple[str, str] | None:
    """'average song length': the duration column (milliseconds, seconds) of the table named, as 'longest' reads
    it."""
    if not any(w in _LENGTH_WORDS for w, _, _ in intent.tokens):
        return None
    tables = [t.entity.table for t in intent.targets if not t.entity.column_only] + list(profile.tables)
    return next(((t, c[0]) for t in tables if (c := _attribute_columns(profile, t, "length"))), None)


_LINKING = frozenset({"on", "in", "of", "at", "to", "for", "by", "per", "the", "a"})
_HOW_MANY_TAILS = frozenset({"count", "number", "num", "qty"})  # seat_count, guest_number: how many of the noun


def _numeric_mentioned(intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> tuple[str, str] | None:
    """A numeric column the question names ('unit price', 'list price', 'milliseconds')."""
    tokens = [singular(w) for w, _, _ in intent.tokens]
    best: tuple[int, str, str] | None = None
    # the table the question names ('the avg unit price of our items': the catalogue's, not the lines')
    preferred = ({spec.group.table} if spec.group else set()) | \
        {t.entity.table for t in intent.targets if not t.entity.column_only}
    for name, table in profile.tables.items():
        keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
        for column in table.columns:
            if column.family != "numeric" or column.name in keys:
                continue
            parts = [singular(w) for w in words(column.name)]
            # ('on' of 'units on order' is said anywhere: 'visits per month on average' names no such column;
            # 'claim amount' names amount_claimed, a word of one root)
            rooted = {p for p in parts if p in tokens or len(p) > 4 and any(same_root(t, p) for t in tokens)}
            hits = sum(1 for p in parts if p in rooted and p not in _LINKING)
            if len(parts) == 2 and parts[-1] in _HOW_MANY_TAILS and parts[0] in rooted:
                rooted.add(parts[-1])  # 'more than 4 seats' names seat_count: its noun says what it counts
            if not hits or (len(parts) > 1 and hits < len(parts) and parts[-1] not in rooted) or \
                    len(parts) > 2 and hits < 2:  # 'order' alone does not name 'units on order'
                continue
            exact = sum(1 for p in parts if p in tokens and p not in _LINKING)  # ('amount paid': amount_paid first)
            score = hits * 10 + exact + (5 if name in preferred else 0) + (3 if name in profile.facts else 0)
            if best is None or score > best[0]:
                best = (score, name, column.name)
    return (best[1], best[2]) if best else _rating_of_table(tokens, profile)


def _rating_of_table(tokens: list[str], profile: SchemaProfile) -> tuple[str, str] | None:
    """'avg rating per driver' on a table of ratings whose score is 'stars': the score each row gives, not the
    rows counted (a rating is averaged, never counted or added up)."""
    for name, table in profile.tables.items():
        if not {singular(w) for w in words(name)} & set(tokens) & {singular(w) for w in lexicon.RATING_WORDS}:
            continue
        keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
        numeric = [c for c in table.columns if c.family == "numeric" and c.name not in keys]
        scored = [c for c in numeric if set(words(c.name)) & lexicon.RATING_WORDS] or numeric
        if len(scored) == 1:
            return name, scored[0].name
    return None


# -- conditions on totals --------------------------------------------------------------------------------

_PERCENT_AFTER = re.compile(r"\s*(?:%|percent\b|pct\b)")
_AFTER_NUMBER = r"\s*(?:(?:in|of)\s+(?:total\s+)?)?(?:[\w'-]+\s+){0,2}?"


def _having(intent, ops, kinds, profile, spec, as_of, out) -> None:
    m = _threshold(intent.lower)
    if m is None or spec.shape not in ("aggregate", "list"):
        return
    after = re.match(r"\s*([a-z]+)", intent.lower[m.end():])
    counted_after = after is not None and after.group(1) not in lexicon.FUNCTION_WORDS | lexicon.TIME_WORDS
    if RE_YEAR.fullmatch(m.group(2)) and m.group(1) in ("over", "under") and "$" not in m.group(0) and \
            not counted_after:
        return  # 'over 2024' is a year; 'over $2000' is money, 'over 2000 units' a number of them
    if m.group(1) in ("only", "just") and m.group(2) not in _NUMBER_WORDS:
        return  # 'only 3 shops' is a limit, 'only one order' a condition
    number = float(_NUMBER_WORDS.get(m.group(2)) or m.group(2).replace(",", "")) * _SCALE.get(m.group(3) or "", 1)
    if _counted_per_column(intent, m, number, profile, spec, out) or spec.shape != "aggregate":
        return
    rest = intent.lower[m.end():m.end() + 40]
    if m.group(1) in ("longer than", "shorter than") and _DURATION_AFTER.match(rest) is None:
        return  # 'longer than a year' is no threshold on a figure
    money_named = "$" in intent.lower[m.start():m.end()] or _MONEY_AFTER.match(rest) is not None or \
        m.group(1) in _PRICED_AT or re.search(r"\b(?:cost|costs|costing|priced)\s*$", intent.lower[:m.start()]) is not None
    # 'clients who spent more than 10k': money by its verb; 'reps who sold more than 95k': money or units, asked
    verb = _FIGURE_VERB.search(intent.lower[:m.start()])
    if verb is not None and not m.group(3) and _counted_noun_after(rest, profile):
        verb = None  # 'players who made more than 5 purchases': how many purchases, no money made
    if verb is None and m.group(3):  # 'clients who ordered more than 10k': an amount bought, money or units
        verb = _BOUGHT_AMOUNT.search(intent.lower[:m.start()])
    sold_verb = verb is not None and (verb.group(1) in lexicon.SALES_WORDS or
                                      verb.re is _BOUGHT_AMOUNT) and not money_named
    money_named = money_named or verb is not None
    target = _main_target(intent)
    counted_next = target is not None and m.end() <= target.span.start <= m.end() + 1  # 'more than 5 items'
    if target is None or counted_next:
        event = _event_rows(intent, profile)
        if event is not None and _row_condition(intent, m, money_named, number, profile, spec,
                                                Target(event, _span(intent, 0, 0)), out):
            return  # 'how many fixtures had attendance over 500': each fixture's own attendance
        if event is not None and _event_having(intent, m, rest, money_named, number, profile, spec, event, out):
            return
    if target is None and money_named and spec.filters and re.match(r"^\s*[^$]*?\s+(?:under|below|over|above)\s+\$",
                                                                     intent.lower):
        # 'cables & chargers under $20': the one priced table the value's rows reach, each row's own price
        priced = _priced_entity(profile, spec)
        target = Target(priced, _span(intent, m.start(), m.start())) if priced is not None else None
    if target is not None and _row_condition(intent, m, money_named, number, profile, spec, target, out):
        return
    if target is None:
        # 'who spent more than $20'; 'who has ordered more than 25 times': the buyers, by their purchases
        times = re.match(r"\s*times\b", rest) is not None and _BUYING_VERB.search(intent.lower[:m.start()]) is not None
        buyer = _who(intent, profile) if money_named or times else None
        if buyer is None:
            out.unread.append((_span(intent, m.start(), m.end()), "a condition on a total needs something to group"))
            return
        target = Target(buyer, _span(intent, 0, 0))
    averaged = spec.agg in ("avg", "weighted") and spec.measure is not None and spec.fact is not None and \
        target.entity.table != spec.fact.table and profile.path(spec.fact.table, target.entity.table) is not None
    named_after: list[tuple[int, Fact, Measure]] = []
    for fact in profile.fact_list():
        for candidate in fact.measures:
            # the measure's word after the number, past up to two words ('15 completed visits'), and past 'in
            # total' ('more than 500 in total repair costs')
            said = [found.end() for w in candidate.words for form in (w, singular(w))
                    if (found := re.match(_AFTER_NUMBER + re.escape(form) + r"(?:e?s)?\b", rest))]
            if said and profile.path(fact.table, target.entity.table) is not None and not profile._counts(
                    candidate, target.entity.table):
                named_after.append((max(said), fact, candidate))
    # the head noun, said last ('repair costs': the costs); then 'more than 22 trips': the trips' own rows before
    # the distinct trips their payments name
    head = [(f, c) for end, f, c in named_after if end == max(e for e, _, _ in named_after)]
    measure = next((c for c in head if c[1].kind == "count"), None) or next(iter(head), None)
    if averaged and head and all(c.kind == "count" for _, c in head):
        # 'average stars per series with more than 30 ratings': a condition on how many rows, beside the average
        # shown (one figure per reading: the condition is said unread, never put on the average)
        out.unread.append((_span(intent, m.start(), m.end()), "a condition on a count beside the average asked"))
        return
    if averaged and spec.fact is not None and spec.measure is not None:
        # 'kinds with an avg item price above 30': the average the question named, per kind
        measure = spec.fact, spec.measure
        if _PERCENT_AFTER.match(rest) and not {"pct", "percent", "percentage"} & set(spec.measure.label.lower().split()):
            number /= 100  # 'an avg discount over 6%': a fraction column (0.06), unless it says it holds percents
    if measure is None:  # 'artists with over 50 songs': the rows of a table that points at the grouped one
        named = next((t.entity.table for t in intent.targets if m.end() <= t.span.start <= m.end() + 30 and
                      t.entity.table != target.entity.table and not t.entity.column_only), None)
        counted = named if named is not None and profile.path(named, target.entity.table) is not None else \
            bridge_between(profile, named, target.entity.table) if named is not None else None
        sold = _sold_of(intent, profile, named) if named is not None else None
        if sold is not None and profile.path(sold.table, target.entity.table) is not None:
            # 'genres with fewer than 20 tracks sold': the units the lines sold, not the catalogue's rows
            measure = next(((sold, x) for x in sold.measures if x.kind == "sum" and not x.money), None) or \
                next(((sold, x) for x in sold.measures if x.kind == "count"), None)
        elif counted is not None and counted != named and counted in profile.facts and named is not None:
            # 'clients who ordered at 3 or more different shops': the distinct shops their visits name, not the
            # visits (a table of events points at both, many times over)
            edge = next((e for e in profile.edges.get(counted, ()) if e.ref_table == named), None)
            measure = (profile.facts[counted], distinct_rows(counted, named, tuple(edge.columns))) if edge else None
        elif counted is not None:  # through a table pointing at both when need be ('playlists with 100 tracks')
            measure = rows_counted(counted, profile)
    said_sales = re.match(r"\s*(?:sales|purchases)\b", rest)
    if measure is None and said_sales is not None and not money_named:
        # 'artists with more than 30 sales': a number of sales, the units sold or the purchases that held them,
        # not money
        reaching = profile.measures_reaching(target.entity.table)
        figures = [next(((f, x) for f, x in reaching if x.kind == "sum" and not x.money), None),
                   next(((f, x) for f, x in reaching if x.kind in ("count", "count_distinct")), None)]
        named_sales = [o for o in figures if o is not None]
        measure = named_sales[0] if named_sales else None
        if len(named_sales) > 1:
            from archetypes.ranking_metric import ARCHETYPE as RANKING

            readings = [Reading(x.value, x.label, _set_measure(f, x)) for f, x in named_sales]
            out.detections.append(RANKING.detection(_span(intent, m.end() + said_sales.start(),
                                                          m.end() + said_sales.end()), readings,
                                                    question="A number of sales: units or purchases?"))
    if measure is None and (re.match(r"\s*(?:times|occasions)\b", rest) or m.group(2) in _TIMES_WORDS):
        # 'clients who ordered fewer than 3 times': their events, counted ('patients who visited more than 5
        # times': the visits the verb names, before any other events of theirs)
        from archetypes.counted import verb_facts

        named_by_verb = verb_facts(intent, profile)
        measure = next(((f, x) for f in sorted(profile.fact_list(), key=lambda f: f.table not in named_by_verb)
                        for x in f.measures if x.kind == "count" and f.table != target.entity.table and
                        profile.path(f.table, target.entity.table) is not None), None)
    if measure is None and not money_named and re.match(r"\s*(?:order|purchase|transaction|sale)s\b", rest):
        # 'clients who placed over 20 purchases' where no table is called so: their events (the headers, the
        # fewest rows), counted
        counts = [(f, x) for f in profile.fact_list() for x in f.measures if x.kind == "count" and
                  f.table != target.entity.table and profile.path(f.table, target.entity.table) is not None]
        measure = min(counts, key=lambda c: c[0].row_count or 0, default=None)
    before = intent.money is not None and target.span.end <= intent.money.start < m.start()
    if measure is None and (money_named or before):  # 'shops with revenue over 1000': the money named before it
        measure = next(((f, x) for f, x in profile.measures_reaching(target.entity.table) if x.money), None)
        if before and measure is not None and intent.money is not None:
            out.read.append(intent.money)
    if measure is None:
        out.unread.append((_span(intent, m.start(), m.end()), "which total the condition is on"))
        return
    spec.fact, spec.measure = measure
    spec.count_table = None
    spec.group, spec.limit = target.entity, None
    spec.having = (_OPS[m.group(1)], number)
    spec.count_groups = intent.how_many is not None and intent.how_many[0] == target.entity.table or \
        _HOW_MANY_AFTER.search(intent.lower) is not None  # 'clients with more than 20 visits - how many?'
    out.consumed |= {"compare"}
    out.read.append(_span(intent, m.start(), min(len(intent.lower), m.end() + len(rest.split(" ")[0]) + 1)))
    if verb is not None:
        out.read.append(_span(intent, verb.start(1), verb.end(1)))
    if not sold_verb or named_after:
        out.replaces.add("ranking_metric")


def _counted_per_column(intent: Intent, m: re.Match, number: float, profile: SchemaProfile, spec: QuerySpec,
                        out: ShapeRead) -> bool:
    """'nations with more than 5 clients', 'which nations have only one client': the rows named right after
    the number, counted per the column the question names before it (their own column of that name), kept by
    the condition; not some other table's money summed, nor the values listed."""
    counted = next((t for t in intent.targets if m.end() <= t.span.start <= m.end() + 1 and
                    not t.entity.column_only and t.entity.table in profile.tables), None)
    before = [t for t in intent.targets if t.span.end <= m.start()]
    if counted is None or len({(t.span.start, t.span.end) for t in before}) != 1 or \
            not all(t.entity.column_only for t in before):
        return False  # one column named before the condition ('nations': the clients' or the invoices')
    group = _own_text_column(profile, counted.entity.table, before[0].entity.noun)
    if group is None:
        return False
    spec.fact, spec.measure = rows_counted(counted.entity.table, profile)
    spec.shape, spec.count_table, spec.group, spec.limit = "aggregate", None, group, None
    spec.list_columns = ()
    spec.having = (_OPS[m.group(1)], number)
    # 'how many nations have more than 5 clients': the nations kept, counted
    spec.count_groups = re.fullmatch(r"\s*(?:how many|(?:the )?(?:number|count) of)\s*",
                                     intent.lower[:before[0].span.start]) is not None or \
        _HOW_MANY_AFTER.search(intent.lower) is not None
    out.consumed |= {"compare"}
    out.read.append(_span(intent, m.start(), counted.span.end))
    out.replaces.add("ranking_metric")
    return True


# '... with 5 or more items - how many?': the rows kept are counted, asked after the condition
_HOW_MANY_AFTER = re.compile(r"\bhow many\s*[?.!]*\s*$")


def _own_text_column(profile: SchemaProfile, table: str, noun: str) -> Entity | None:
    """`table`'s own text column the noun names ('country': the clients' country), used like an entity."""
    info = profile.tables[table]
    said = [singular(w) for w in noun.split()]
    for whole in (True, False):
        for column in info.columns:
            named = [singular(w) for w in words(column.name)]
            if column.family == "text" and named and (named == said if whole else named[-1] == said[-1]):
                return Entity(table=table, name_columns=(column.name,), noun=noun, key=tuple(info.primary_key),
                              row_count=info.row_count, column_only=True)
    return None


def _priced_entity(profile: SchemaProfile, spec: QuerySpec) -> Entity | None:
    """The one table with a price column that reaches every filter's rows (the items of a category)."""
    scoped = [f.entity.table for f in spec.filters]
    priced = [entity for name, entity in profile.entities.items() if not entity.column_only and name not in
              profile.facts and _attribute_columns(profile, name, "price") and
              all(t == name or profile.path(name, t) is not None for t in scoped)]
    return priced[0] if len(priced) == 1 else None


def _row_condition(intent: Intent, m: re.Match, money_named: bool, number: float, profile: SchemaProfile,
                   spec: QuerySpec, target: Target, out: ShapeRead) -> bool:
    """'items with a list price above $1000', 'cables & chargers under $30': each row's own figure against
    the number (a column the question names, or the one price of the rows when money is named and nothing was
    sold), not a total of what was sold."""
    table = target.entity.table
    named = _numeric_mentioned(intent, profile, spec)
    column = named[1] if named is not None and named[0] == table else None
    if target.entity.column_only or table in profile.facts and (column is None or not _said_beside(intent, m, column)):
        return False  # (events' own column only when said at the comparison: 'fixtures with attendance over 500')
    between = intent.lower[target.span.end:m.start()].split()
    said_unit = _DURATION_AFTER.match(intent.lower[m.end():])
    if said_unit is not None:  # 'tracks longer than 10 minutes': the row's length, in the unit it is stored in
        lengths = _attribute_columns(profile, table, "length")
        stored = _stored_seconds(lengths[0]) if lengths else None
        seconds = _said_seconds(said_unit.group(1))
        if stored is None or seconds is None:
            return False
        column, number = lengths[0], number * seconds / stored
        m_end = m.end() + said_unit.end()
    else:
        m_end = m.end()
    priced = all(w in ("priced", "costing", "that", "which", "cost", "costs", "at", "for") for w in between)
    if column is None and money_named and priced and \
            not any(t[0] in lexicon.SALES_WORDS | lexicon.FACT_WORDS for t in intent.tokens if t[0] != "sell"):
        prices = _attribute_columns(profile, table, "price")
        column = prices[0] if len(prices) == 1 else None
    if column is None:
        return False
    op = _OPS[m.group(1)]
    said = intent.lower[m.start():m_end].replace("$", "").strip()
    label = f"{phrase(column)} {said}" if said_unit is None and m.group(1) not in _PRICED_AT else \
        f"{phrase(column)} = {m.group(2)}" if said_unit is None else \
        f"{phrase(column)} {m.group(1)} {number:g} ({said.split(' ', len(m.group(1).split()))[-1]})"
    condition = RowCondition(table, column, {"le": "le_number", "eq": "eq_number"}.get(op, op),
                             (repr(number),), label)
    verb = re.search(r"\b(?:runs?|running|lasts?|lasting|plays?|playing)\s*$" if said_unit is not None else
                     r"\b(?:cost|costs|costing|priced)\s*$", intent.lower[:m.start()])
    if verb is not None:  # 'tracks that run over 5 minutes', 'items that cost more than 50': the figure's verb
        out.read.append(_span(intent, verb.start(), verb.end()))
    spec.conditions = [*spec.conditions, condition]
    if intent.how_many is not None and intent.how_many[0] == table:
        spec.shape, spec.fact, spec.measure, spec.count_table = "aggregate", None, None, table
    else:
        spec.shape, spec.group, spec.fact, spec.measure, spec.limit = "list", target.entity, None, None, None
        spec.list_columns = (column,)
    out.consumed |= {"compare"}
    out.read.append(_span(intent, m.start(), m_end))
    out.replaces |= {"ranking_metric", "unit", "timezone"}  # which rows count (discontinued ones?) still asks
    return True


def _said_beside(intent: Intent, m: re.Match, column: str) -> bool:
    """The column's words said at the comparison: just before it ('attendance over 500') or just after the number
    ('more than 4 seats'), not somewhere else in the question."""
    named = {singular(w) for w in words(column)}
    before = {singular(w) for w in re.findall(r"[a-z]+", intent.lower[:m.start()])[-2:]}
    after = {singular(w) for w in re.findall(r"[a-z]+", intent.lower[m.end():])[:1]}
    return bool(named & (before | after))


def _counted_noun_after(rest: str, profile: SchemaProfile) -> bool:
    """The threshold counts rows ('5 purchases', '10 sessions'): the word after it names rows."""
    after = re.match(r"\s*([a-z]+)\b", rest)
    if after is None:
        return False
    word = singular(after.group(1))
    counted = {singular(w) for f in profile.fact_list() for c in f.measures if c.kind == "count" for w in c.words}
    return word in counted or word in ("purchase", "order", "transaction", "booking", "visit", "time")


_FIGURE_VERB = re.compile(r"\b(spent|spend|spends|earned|earns|made|generated|brought in|paid|pays|sold|sell|sells|"
                          r"billed|invoiced)\s+(?:a total of\s+|in total\s+)?$")
_BOUGHT_AMOUNT = re.compile(r"\b(ordered|bought|purchased)\s+(?:a total of\s+|in total\s+)?$")
_MONEY_AFTER = re.compile(r"\s*(?:dollars?|bucks|euros?|pounds?|yen|usd|eur|gbp|jpy|cad|in (?:value|revenue|sales)|"
                          r"worth)\b")
_WHO = re.compile(r"^\s*(?:who|which (?:people|persons?|ones))\b")
_BUYING_VERB = re.compile(r"\b(?:" + "|".join(sorted(lexicon.BUYING_VERBS)) + r"|shopped|placed)\b")
_ITEM_WORDS = frozenset({"item", "items", "line", "lines", "unit", "units", "thing", "things",
                         "article", "articles", "piece", "pieces"})


def _event_rows(intent: Intent, profile: SchemaProfile) -> Entity | None:
    """The rows the question counts or lists when they are events, not a named thing ('how many invoices over
    $1000', 'invoices with more than 5 items'): each row, by its key."""
    table = intent.how_many[0] if intent.how_many is not None else next(
        (rows_of(profile, m) for m, _ in intent.measures if m.kind in ("count", "count_distinct")), None)
    if table is None or table not in profile.facts or table not in profile.tables:
        return None
    key = profile.tables[table].primary_key
    if len(key) != 1:
        return None
    return Entity(table, (key[0],), phrase(table), (key[0],), profile.tables[table].row_count)


def _event_having(intent: Intent, m: re.Match, rest: str, money_named: bool, number: float, profile: SchemaProfile,
                  spec: QuerySpec, event: Entity, out: ShapeRead) -> bool:
    """Each event's own total against the number: its value ('invoices over $1000'), or its items, counted as
    lines or as units ('invoices with more than 5 items': two readings)."""
    lines = next((f for f in profile.fact_list() if _header_of(profile, f) == event.table), None)
    own = profile.facts[event.table]
    word = re.match(r"\s*([a-z]+)", rest)
    following = word.group(1) if word else ""
    # the thing each line is of ('invoices with more than 10 tracks'): the lines pointing at it count it
    line_thing = lines is not None and any(m.end() <= t.span.start <= m.end() + 1 and e.ref_table == t.entity.table
                                           for t in intent.targets for e in profile.edges.get(lines.table, ()))
    # 'how many bookings were over 1000': nothing after the number (but a time: 'over 1000 in 2024'), an event's
    # figure is its value
    window = intent.window_span
    if window is not None and window.start >= m.end() and \
            re.fullmatch(r"\s*(?:(?:in|during|for|from|since)\s*)?", intent.lower[m.end():window.start]):
        rest = intent.lower[window.end:]
        following = ""
    bare = not following and re.fullmatch(r"[\s?.!]*", rest) is not None and m.group(2) not in _NUMBER_WORDS
    if money_named or bare:
        # the value of its lines first: a header's own money may be a fee on it (freight), not its value
        money = next((x for x in lines.measures if x.money), None) if lines is not None else None
        fact = lines if money is not None else own
        money = money or next((x for x in own.measures if x.money), None)
        if fact is None or money is None:
            return False
        spec.fact, spec.measure = fact, money
    elif (following in _ITEM_WORDS or line_thing) and lines is not None:
        from archetypes.ranking_metric import ARCHETYPE

        units = next((x for x in lines.measures if x.kind == "sum" and not x.money), None)
        key = profile.tables[lines.table].primary_key
        counted = Measure(slug(plural(phrase(lines.table).split()[-1])), f"Lines of each {event.noun}", "count",
                          lines.table, tuple(key[:1]))
        readings = [Reading(f"lines_per_{slug(event.noun)}", f"Line items of each {event.noun}",
                            _set_measure(lines, counted))]
        if units is not None:
            readings.insert(0, Reading(f"{units.value}_per_{slug(event.noun)}",
                                       f"{units.label.split(' (')[0]} in each {event.noun}", _set_measure(lines, units)))
        if len(readings) > 1:
            out.detections.append(ARCHETYPE.detection(_span(intent, m.start(), m.end() + len(following) + 1),
                                                      readings, question=f"Items counted how, per {event.noun}?"))
        readings[0].apply(spec)  # type: ignore[misc]
    else:
        return False
    spec.count_table = None
    spec.group, spec.limit = event, None
    spec.having = (_OPS[m.group(1)], number)
    spec.count_groups = intent.how_many is not None or bool(re.match(r"^\s*(?:what is the )?(?:number|count)\b",
                                                                     intent.lower)) or \
        _HOW_MANY_AFTER.search(intent.lower) is not None  # '... 5 or more items - how many?'
    out.consumed |= {"compare"}
    out.read.append(_span(intent, m.start(), min(len(intent.lower), m.end() + len(following) + 1)))
    out.replaces.add("ranking_metric")
    return True


def _who(intent: Intent, profile: SchemaProfile) -> Entity | None:
    """'who spent more than $20': the people who spend."""
    return buyers(profile) if _WHO.match(intent.lower) is not None else None


# -- lists and lookups -----------------------------------------------------------------------------------

_LISTING = re.compile(r"^\s*(?:please\s+)?(?:list|show(?: me)?|give me|name|display|find|get|which|what|who)\b")
# 'the phone number of X' is a column of a row, not a count
_AGGREGATING = re.compile(r"\b(how many|how much|(?<!phone )(?<!fax )(?<!mobile )(?<!account )(?<!serial )number of|"
                          r"count|total|sum|revenue|sales|sold|sells?|selling|spent|spend|by|"
                          r"bought|per|average|most|least|top|best|worst|trend|growth)\b")


_WHICH_CURRENCY = re.compile(r"\b(?:which|what)\s+currenc(?:y|ies)\b")
_ROWS_ASKED = re.compile(r"^\s*(?:list|show|which|what|name|give me|find)\b")
_TRADES_IN = re.compile(r"\b(?:sells?|selling|sold|takes?|taking|accepts?|accepting|uses?|using|prices?|priced|"
                        r"trades?|trading|bills?|billed|charges?|operates?|runs?|works?)\b")


def _currency_of_rows(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'list the shops that sell in usd': the rows whose own currency is the one named (not a sum of the
    dollar amounts); 'which currency does our london shop sell in': the named row's currency column."""
    if spec.shape != "aggregate" or intent.money is not None or intent.ranking is not None or \
            intent.superlative is not None or intent.how_many is not None:
        return
    own = {c.table: c.column for c in profile.currency_columns
           if profile.rate_table is None or c.table != profile.rate_table.table}
    asked = _WHICH_CURRENCY.search(intent.lower)
    if asked is not None:
        named = next((f.entity for f in spec.filters if not f.entity.column_only and f.entity.table in own), None)
        if named is None:
            return
        spec.shape, spec.group, spec.fact, spec.measure = "list", named, None, None
        spec.list_columns = (own[named.table],)
        pointed = next((e for e in profile.edges.get(named.table, ()) if e.columns == (own[named.table],) and
                        e.ref_table in profile.entities), None)
        if pointed is not None:  # the currency's own row: its name beside its code ('Canadian Dollar', CAD)
            spec.reference, spec.list_columns = pointed, ()
        out.read.append(_span(intent, asked.start(), asked.end()))
    else:
        code = intent.currency_named
        target = _head_target(intent)
        if code is None or intent.currency is None or target is None or target.entity.table not in own or \
                not _ROWS_ASKED.search(intent.lower):
            return
        table = target.entity.table
        spec.shape, spec.group, spec.fact, spec.measure = "list", target.entity, None, None
        spec.conditions.append(RowCondition(table, own[table], "eq", (code,),
                                            label=f"{phrase(own[table])} is {code}"))
        out.read.append(intent.currency)
    verb = _TRADES_IN.search(intent.lower)
    if verb is not None:
        out.read.append(_span(intent, verb.start(), verb.end()))
    out.replaces |= {"ranking_metric", "unit", "timezone", "record_scope"}


_WE_SELL = re.compile(r"\b(?:that\s+|which\s+)?(?:we|you)\s+(?:sell|carry|stock|offer|have)\b(?=\s*(?:$|[?.!]))")


def _listing(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'List the genres', 'which clients are from canada', 'what is the list price of X': the rows of a
    table (with the columns named), not a total."""
    if spec.shape != "aggregate" or intent.ranking is not None or intent.superlative is not None or \
            spec.having is not None or any(d.archetype == "timeframe" for d in out.detections) or spec.sides:
        return  # 'which clients topped $10k': a condition on totals, read above; 'active clients': their events;
        #         'which tier sells more, vip or general': the two side by side, never the tiers listed
    if _price_list(intent, profile, spec, out) or _when_did(intent, profile, spec, out) or \
            _price_of(intent, profile, spec, out):
        return
    if intent.how_many is not None or intent.money or intent.grain is not None or any(
            m.kind in ("product", "sum", "expression") for m, _ in intent.measures):
        return
    if intent.group is not None and any(m.kind in ("count", "count_distinct") and m.table in profile.facts and
                                        m.table != intent.group.entity.table for m, _ in intent.measures):
        return  # 'clients who ordered in june': those with events then, each with how many
    lower = _without(intent.lower, out.value_spans)  # 'sales' inside the value 'Sales Support Agent' sums nothing
    if re.match(r"^\s*(?:please\s+)?(?:list|show(?: me)?|give me|display)\b", lower):
        # 'list the wearables we sell': what is on sale, described by the seller's verb, not a sum of sales
        lower = _WE_SELL.sub(lambda x: " " * len(x.group(0)), lower)
    # 'albums by led zeppelin': 'by' a named row is who made them, not a breakdown
    named = "|".join(re.escape(v.lower()) for v in sorted(  # (as stored, and as typed: 'by jane' is Jane Peacock)
        {str(v) for f in spec.filters for v in f.values} | {s.text for s in intent.names + out.value_spans}, key=len,
        reverse=True) if v.strip())
    if named:
        lower = re.sub(rf"\bby(?=\s+(?:{named})\b)", "  ", lower)
    # 'parts below reorder level', 'parcels that haven't shipped': a row's own columns, no operator
    head = _head_target(intent)
    listed = head.entity.table if head is not None else next(
        (rows_of(profile, m) for m, _ in intent.measures if m.kind in ("count", "count_distinct")), None)
    pending = _not_yet_column(lower, profile, listed) if listed is not None else None
    missing = _missing_column(lower, profile, listed) if listed is not None else None
    own = stock_words(lower) or (pending[0] if pending is not None else None) or (missing[0] if missing else None)
    if own is not None:
        lower = _without(lower, [Span(own.start(), own.end(), "")])
    # ('our sales rep steve': a word of a phrase naming people aggregates nothing)
    lower = _without(lower, [t.span for t in intent.targets if len(t.span.text.split()) > 1])
    # ('the hourly rate of chloe diaz': the named row's column hourly_rate, no rate computed)
    columns = _owner_column_spans(intent, profile, spec, out)
    if columns:
        lower = _without(lower, columns)
        kinds = {o.category for o in ops if not any(c.start <= o.span.start < c.end for c in columns)}
    if _AGGREGATING.search(lower) or kinds & lexicon.SHAPE_OPERATORS and own is None:
        return
    if _reference(intent, profile, spec, out):
        return
    # ('iron maiden albums', 'queen tracks': rows named by a name before the table's noun, no figure asked)
    if not (_LISTING.search(lower) or _starts_with_table(intent, out.value_spans + intent.names, profile) or
            _starts_with_column(intent, profile, spec, out) or pending is not None and _starts_with_events(intent, own)):
        return
    target = _counted_rows(intent, profile) or _head_target(intent)
    if target is None and pending is not None and (events := _event_rows(intent, profile)) is not None:
        target = Target(events, Span(0, 0, ""))  # 'which parcels still havent shipped': the parcels, by their key
    if target is None:
        # 'the list price of the MacBook Pro': a column of the table a named row belongs to
        # ('margaret peacock': a first and a last name of one table; 'frank': the rows a name could mean)
        owner = next((f.entity for f in spec.filters if not f.entity.column_only), None) or \
            _named_owner(profile, spec, out)
        if owner is None:
            return
        if not _columns_named(intent, profile, owner.table, None):
            # 'list all the wearables with their prices': the catalogue's rows of a kind named by its value
            sold = catalogue(profile)
            if sold is None or sold.table == owner.table or profile.path(sold.table, owner.table) is None or \
                    not _LISTING.search(lower):
                return
            owner = sold
        target = Target(owner, Span(0, 0, ""))
    entity = target.entity
    if entity.column_only:
        owner = profile.entities.get(entity.table)
        if owner is not None and owner.table == entity.table:
            entity = owner  # 'the time zone of the London shop', 'name and country of every singer': its columns
    spec.shape, spec.group, spec.fact, spec.measure = "list", entity, None, None
    spec.window = None if intent.window is None else spec.window
    spec.list_columns = _columns_named(intent, profile, entity.table, target)
    _own_dated(intent, profile, spec, entity.table, out)
    out.read += _table_verbs(intent, {f.entity.table for f in spec.filters} - {entity.table})
    out.replaces |= {"ranking_metric", "unit", "timezone"}


_ACTIVE = re.compile(r"\b(active)\b")
_ENDED = frozenset("cancelled canceled ended churned closed terminated expired left deleted deactivated archived "
                   "end".split())
# how recent an event makes a row active, when the data does not say: each a reading
_ACTIVE_WINDOWS = (("last_30_days", "Active: an event in the last 30 days", 0, 30),
                   ("last_3_months", "Active: an event in the last 3 months", 3, 0),
                   ("last_12_months", "Active: an event in the last 12 months", 12, 0),
                   ("ever", "Active: any event at all", 0, 0))


def _active_rows(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'how many active clients do we have', 'active members': no column or value says active, so the rows with
    events, within how recent a time is not said: the last 30 days, 3 months, 12 months, or ever (asked)."""
    from archetypes.timeframe import ARCHETYPE

    m = _ACTIVE.search(intent.lower)
    if m is not None and spec.shape == "aggregate" and _active_in_window(intent, m, profile, spec, as_of, out):
        return
    if m is None or spec.window is not None or spec.shape != "aggregate" or \
            any(s.start <= m.start(1) < s.end for s in out.flag_spans + out.value_spans):
        return
    target = next((t for t in intent.targets if t.span.start > m.end(1) and not t.entity.column_only and
                   len(intent.lower[m.end(1):t.span.start].split()) <= 1), None)
    if target is None:
        return
    table = target.entity.table
    own = profile.tables[table].columns
    if any(c.family == "temporal" and set(words(c.name)) & _ENDED or lexicon.is_state_column(words(c.name))
           for c in own):
        return  # the rows' own state says who is active ('cancelled_at', a status): record_scope reads it
    fact, edge = next(((f, e) for f in profile.fact_list() if f.table != table and
                       (e := profile.path(f.table, table)) is not None and len(e) == 1 and len(e[0].columns) == 1),
                      (None, None))
    if fact is None or edge is None or fact.time is None:
        return
    noun = plural(phrase(table).split()[-1])
    counted = replace(distinct_rows(fact.table, table, edge[0].columns), value=f"active_{slug(noun)}",
                      label=f"{noun} with {plural(phrase(fact.table))}")
    end = as_of + dt.timedelta(days=1)

    def within(months: int, days: int):
        def apply(spec: QuerySpec) -> None:
            if days or months:
                start = end - dt.timedelta(days=days) if days else calendar.months_before(end, months)
                spec.window = calendar.Window(start, end, f"the last {days or months} {'days' if days else 'months'}")
        return apply

    if intent.how_many is not None or COUNT_SAID.search(intent.lower):
        spec.fact, spec.measure, spec.count_table = fact, counted, None
    else:  # 'list our active clients': each with how many events
        spec.fact, spec.measure, spec.count_table = fact, rows_counted(fact.table, profile)[1], None
        spec.group, spec.limit = target.entity, None
    readings = [Reading(value, label, within(months, days)) for value, label, months, days in _ACTIVE_WINDOWS]
    out.detections.append(ARCHETYPE.detection(_span(intent, m.start(1), m.end(1)), readings,
                                              question="Active as in an event how recently?"))
    out.read.append(_span(intent, m.start(1), m.end(1)))
    out.replaces |= {"ranking_metric", "timeframe", "aggregation_level"}


_ACTIVE_WHEN = re.compile(r"\bactive\s+(?:in|during|over|within|last|this|since|on)\b")
_PER_PERIOD_ACTIVE = re.compile(r"\b(daily|weekly|monthly)\s+active\b")
_PER_PERIOD_DAYS = {"daily": 1, "weekly": 7, "monthly": 30}


def _active_in_window(intent: Intent, m: re.Match[str], profile: SchemaProfile, spec: QuerySpec, as_of: dt.date,
                      out: ShapeRead) -> bool:
    """'users active in the last 7 days', 'weekly active users': the people with an event in that time (distinct),
    not those added then, nor those not yet deactivated."""
    per = _PER_PERIOD_ACTIVE.search(intent.lower)
    if not (spec.window is not None and _ACTIVE_WHEN.search(intent.lower) or per is not None and spec.window is None):
        return False
    people = lexicon.PEOPLE_NOUNS | {"user", "account"}
    said = [t.entity.table for t in intent.targets if not t.entity.column_only]
    said += [intent.how_many[0]] if intent.how_many is not None else []
    said += [rows_of(profile, x) for x, _ in intent.measures if x.kind == "count"]
    table = next((t for t in said if t in profile.tables and phrase(t) and
                  singular(phrase(t).split()[-1]) in people), None)  # (users known by an email alone too)
    if table is None:
        return False
    fact, edge = next(((f, e) for f in profile.fact_list() if f.table != table and f.time is not None and
                       (e := profile.path(f.table, table)) is not None and len(e) == 1 and len(e[0].columns) == 1),
                      (None, None))
    if fact is None or edge is None:
        return False
    noun = plural(phrase(table).split()[-1])
    spec.fact, spec.count_table = fact, None
    spec.measure = replace(distinct_rows(fact.table, table, edge[0].columns), value=f"active_{slug(noun)}",
                           label=f"{noun} with {plural(phrase(fact.table))}")
    # ('active' is what they did, not a state 'active' of another table's rows)
    spec.filters = [f for f in spec.filters if {str(v).lower() for v in f.values} != {"active"}]
    if per is not None:  # 'weekly active': active in the last 7 days, one figure (not a series by week)
        days = _PER_PERIOD_DAYS[per.group(1)]
        end = as_of + dt.timedelta(days=1)
        spec.window = calendar.Window(end - dt.timedelta(days=days), end, f"the last {days} days")
        spec.grain = None
        out.read.append(_span(intent, per.start(), per.end()))
        out.replaces |= {"aggregation_level", "timeframe"}
    out.read.append(_span(intent, m.start(1), m.end(1)))
    out.replaces |= {"ranking_metric"}
    return True


def _who_dated(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'who did we hire before 2003', 'who was hired after 1993': the people whose own date the verb names
    (a hire date), within the window; not money dated so."""
    from archetypes.analyse import _date_words

    if spec.shape != "aggregate" or intent.window is None or intent.measures or intent.explicit_measure or \
            intent.how_many is not None or not re.match(r"^\s*who\b", intent.lower):
        return
    found = [(name, c.name) for name, entity in profile.entities.items() if not entity.column_only and
             singular(entity.noun.split()[-1]) in lexicon.PEOPLE_NOUNS
             for c in profile.tables[name].columns if c.family == "temporal" and _date_words(intent, c.name)]
    if len(found) != 1:
        return
    entity = profile.entities[found[0][0]]
    spec.shape, spec.group, spec.fact, spec.measure, spec.count_table = "list", entity, None, None, None
    spec.list_columns = (found[0][1],)
    _own_dated(intent, profile, spec, entity.table, out)
    out.read.append(_span(intent, 0, 3))
    out.replaces |= {"ranking_metric", "unit", "timezone", "insufficient_info"}


def _own_dated(intent: Intent, profile: SchemaProfile, spec: QuerySpec, table: str, out: ShapeRead) -> None:
    """'staff hired before 2003', 'clients who joined in 2024': the listed rows' own date the question's verb
    names, bounded by the window (a list has no events to date)."""
    from archetypes.analyse import _date_words, _own_date

    window, span = intent.window, intent.window_span
    if window is None or span is None or table not in profile.tables:
        return
    dated = _own_date(intent, profile.tables[table])
    said = _date_words(intent, dated.column) if dated is not None else []
    own = profile.facts.get(table)
    if dated is None or not said or own is not None and own.time is not None and own.time.column == dated.column:
        return  # ('list bookings from last week': the events' own date, which the window bounds already)
    column = dated.column
    if not window.open_start:
        spec.conditions.append(RowCondition(table, column, "since", (window.start.isoformat(),),
                                            label=f"{phrase(column)} from {window.start.isoformat()}"))
    spec.conditions.append(RowCondition(table, column, "before_day", (window.end.isoformat(),),
                                            label=f"{phrase(column)} before {window.end.isoformat()}"))
    spec.window = None
    out.read += [span, *said]
    out.replaces.add("timeframe")


def _rows_read(spec: QuerySpec) -> str | None:
    """The table whose own rows a list shows or a count counts (their conditions go on it)."""
    if spec.shape == "list" and spec.group is not None:
        return spec.group.table
    return spec.count_table or (spec.measure.table if spec.measure is not None and spec.measure.kind == "count"
                                else None)


def _stock_level(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> None:
    """'parts low on stock', 'out of stock': the rows' own stock against their reorder level."""
    from archetypes.schema_mapping import ARCHETYPE  # which columns 'low' compares

    rows = _rows_read(spec)
    stock = read_stock_level(intent.lower, intent.question, profile, rows) if rows else None
    if stock is None:
        return
    spec.conditions.extend(stock.conditions)
    out.read.append(stock.span)
    if stock.readings:
        out.detections.append(ARCHETYPE.detection(stock.span, stock.readings,
                                                  question="Low on the shelf, or even with the units on order?"))


_NOT_YET = re.compile(r"\b(?:(?:still|yet)\s+)?(?:have\s*n[o']?t|has\s*n[o']?t|havent|hasnt|not|never|is\s*n'?t|"
                      r"are\s*n'?t|isnt|arent|was\s*n'?t|were\s*n'?t|wasnt|werent)\s+(?:been\s+|yet\s+|"
                      r"already\s+)?([a-z]+ed)\b(?:\s+yet)?|\bun([a-z]+ed)\b|\b(?:still\s+)?(?:waiting|pending|"
                      r"awaiting)\s+(?:to\s+be\s+|to\s+)?([a-z]+?)(?:ed)?\b")


def _not_yet(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> None:
    """'parcels that haven't shipped yet', 'unshipped parcels', 'still waiting to ship': rows whose date for that
    verb is still empty."""
    rows = _rows_read(spec)
    found = _not_yet_column(intent.lower, profile, rows) if spec.shape in ("aggregate", "list") and rows else None
    if found is None:
        return
    m, column = found
    assert rows is not None
    if not any((c.table, c.column, c.op) == (rows, column, "is_null") for c in spec.conditions):  # (said once)
        spec.conditions.append(RowCondition(rows, column, "is_null", label=f"{phrase(column)} is empty"))
    out.read.append(_span(intent, m.start(), m.end()))
    out.consumed.add("negation")


_WITHOUT = re.compile(r"\b(?:without|with\s+no|(?:has|have|had|got)\s+no|missing|lacking|no|(?:is|are)\s*n[o']?t\s+with|"
                      r"never\s+(?:got|had|received|(?:was|were|been)\s+(?:given|assigned))|"
                      r"(?:isnt|arent)\s+with|(?:do|does)\s*n[o']?t\s+have|(?:dont|doesnt)\s+have)"
                      r"\s+(?:an?\s+|any\s+|the\s+)?((?:[a-z]+)(?:\s+[a-z]+)?)")


def _missing_column(lower: str, profile: SchemaProfile, table: str | None) -> tuple[_Found, str] | None:
    """'clients without a company', 'with no fax number', "aren't with a company": a column of the rows
    themselves left empty (never another table: 'clients with no bookings' is an absence of bookings)."""
    if table is None or table not in profile.tables:
        return None
    for m in _WITHOUT.finditer(lower):
        said = m.group(1).split()
        for n in (2, 1):
            wanted = [singular(w) for w in said[:n]]
            if len(wanted) < n:
                continue
            found = [c.name for c in profile.tables[table].columns if c.nullable and c.family != "temporal" and
                     [singular(w) for w in words(c.name)][:n] == wanted and
                     (n == 2 or len(words(c.name)) == 1 or words(c.name)[-1] in ("number", "name", "address", "id"))]
            # ('clients with no bookings' is an absence of bookings; 'visits with no vet' the visit's own vet key
            # left empty: the table it points at)
            if len(found) == 1 and (not _names_a_table(profile, wanted[-1]) or _points_at_named(
                    profile, table, found[0], wanted[-1])):
                end = m.start(1) + len(" ".join(said[:n]))
                return _Found(m.start(), end), found[0]
    return None


class _Found:
    """The span of the words read, as a match's start() and end()."""

    def __init__(self, start: int, end: int) -> None:
        self._start, self._end = start, end

    def start(self) -> int:
        return self._start

    def end(self) -> int:
        return self._end


def _points_at_named(profile: SchemaProfile, table: str, column: str, word: str) -> bool:
    """Whether `column` of `table` is its key of a table named by `word` (vendor_id, of the vendors)."""
    return any(e.columns == (column,) and singular(words(e.ref_table)[-1]) == word
               for e in profile.edges.get(table, ()))


def _names_a_table(profile: SchemaProfile, word: str) -> bool:
    return any(singular(w) == word for t in profile.tables for w in words(t)[-1:])


def _without_column(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> None:
    """The rows' own column left empty, as a condition of the rows listed or counted."""
    rows = _rows_read(spec)
    found = _missing_column(intent.lower, profile, rows) if spec.shape in ("aggregate", "list") else None
    if found is None or rows is None:
        return
    m, column = found
    spec.conditions.append(RowCondition(rows, column, "is_null", label=f"no {phrase(column)}"))
    spec.list_columns = tuple(c for c in spec.list_columns if c != column)  # an empty column, shown empty: left out
    out.read.append(_span(intent, m.start(), m.end()))
    out.consumed.add("negation")


def _not_yet_column(lower: str, profile: SchemaProfile, table: str) -> tuple[re.Match, str] | None:
    """The words saying a row has not reached a step yet, and the nullable date of `table` that step fills (not
    the date the row itself happened on: 'clients who haven't booked' is an absence of bookings)."""
    m = _NOT_YET.search(lower)
    if m is None or table not in profile.tables:
        return None
    verb = next(g for g in m.groups() if g)
    fact = profile.facts.get(table)
    own = fact.time.column if fact is not None and fact.time is not None else None
    dated = [c.name for c in profile.tables[table].columns if c.family == "temporal" and c.nullable and
             c.name != own and any(w.startswith(verb[:4]) for w in words(c.name))]
    return (m, dated[0]) if len(dated) == 1 else None


_PRICE_LIST = re.compile(r"^\s*(?:(?:show|give|get|send)\s+(?:me\s+)?)?(?:(?:a|the|our|full|current)\s+)*"
                         r"(price\s*list|catalog(?:ue)?)\b")


def _price_list(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'price list for monitors': the things with a price, named and priced, within what the filters name;
    not a sum of what was sold."""
    m = _PRICE_LIST.match(intent.lower)
    if m is None or intent.how_many is not None or intent.grain is not None:
        return False
    scoped = [f.entity.table for f in spec.filters]
    priced = [(entity, column) for name, entity in profile.entities.items() if not entity.column_only
              for column in _attribute_columns(profile, name, "price")[:1]
              if all(t == name or profile.path(name, t) is not None for t in scoped)]
    if len(priced) != 1:
        return False  # no priced table, or several (a product's and a plan's): not guessed
    entity, column = priced[0]
    spec.shape, spec.group, spec.fact, spec.measure = "list", entity, None, None
    spec.window = None if intent.window is None else spec.window
    spec.list_columns = (column,)
    out.read.append(_span(intent, m.start(1), m.end(1)))
    out.replaces |= {"ranking_metric", "unit", "timezone"}
    return True


_PRICE_WORD = re.compile(r"\b(?:list\s+|unit\s+|retail\s+|monthly\s+|annual\s+|yearly\s+)?(price|cost|fee)\b")
# 'how much is chef anton's': a named thing's price, when nothing sold, spent or earned is said
_HOW_MUCH_IS = re.compile(r"^\s*(?:so\s+)?how much (?:is|are|was|were)\b(?!.*\b(?:sold|sell|sells|spent|spend|made|"
                          r"make|earned|worth|revenue|sales|paid|in total|altogether)\b)")


# 'how much do we sell chai for', 'what do we charge for a tv episode': a price, said with the seller's verb
_SELL_FOR = re.compile(r"^\s*(?:how much|what)\s+(?:do|does|did)\s+(?:we|you|they|it)\s+"
                       r"(?:sell\b.*\bfor|charge(?:\s+for)?|ask(?:\s+for)?)\b(?!.*\b(?:in total|altogether|total)\b)")


def _price_of(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'whats the price of the studio display': the named row's own price, not what its sales summed to."""
    sell_for = _SELL_FOR.match(intent.lower)
    m = _PRICE_WORD.search(intent.lower) or _HOW_MUCH_IS.match(intent.lower) or sell_for
    owner = _named_owner(profile, spec, out)
    # 'how much does the macbook air cost', 'how much is chef anton's' ask its price, not an amount summed
    asked = re.sub(r"\bhow much (?:does|do|did|is|was)\b(?=.*\bcost\b)", " ", _without(intent.lower, out.value_spans))
    if _HOW_MUCH_IS.match(asked):
        asked = _HOW_MUCH_IS.sub(" ", asked)
    if sell_for is not None:
        asked = asked[:sell_for.start()] + " " * (sell_for.end() - sell_for.start()) + asked[sell_for.end():]
    if m is None or owner is None or _AGGREGATING.search(asked) or \
            re.search(r"\bthan\b", intent.lower):  # 'items that cost less than the airtag' compares with it
        return False
    columns = _attribute_columns(profile, owner.table, "price")
    if not columns:
        return _price_history_of(intent, m, owner, profile, spec, out)
    if intent.window is not None:
        return False
    spec.shape, spec.group, spec.fact, spec.measure = "list", owner, None, None
    spec.list_columns = (columns[0],)
    out.read.append(_span(intent, m.start(), m.end()))
    if sell_for is not None:  # ('for' at the end, after the name)
        out.read += [_span(intent, s, e) for w, s, e in intent.tokens if w == "for" and s > m.end()]
    out.replaces |= {"ranking_metric", "unit", "timezone", "record_scope"}
    return True


def _price_history_of(intent: Intent, m: re.Match, owner: Entity, profile: SchemaProfile, spec: QuerySpec,
                      out: ShapeRead) -> bool:
    """'what does the team plan cost': the price kept on rows of another table pointing at the named one (a
    price list, often with validity dates: which of them count is record_scope's question)."""
    held = [(name, cols[0]) for name, edges in profile.edges.items() if name != owner.table and
            any(e.ref_table == owner.table for e in edges) and
            not (name in profile.facts and any(x.kind == "product" for x in profile.facts[name].measures)) and
            not (name in profile.entities and not profile.entities[name].column_only) and
            (cols := _attribute_columns(profile, name, "price"))]  # a price list: not sales lines, not named items
    if len(held) != 1 or len(profile.tables[held[0][0]].primary_key) != 1:
        return False
    if re.search(r"\b(?:avg|average|mean|typical|total|sum|overall)\b", intent.lower):
        return False  # an average or a total of the prices is read as one, below
    table, column = held[0]
    if intent.window is not None and not _valid_during(intent, table, profile, spec, out):
        return False
    spec.shape, spec.group, spec.fact, spec.measure = "list", _event_entity(table, profile.tables[table].primary_key), \
        None, None
    # each price with the dates it held from and to: a price list's rows are its history
    dates = tuple(c.name for c in profile.tables[table].columns if c.family == "temporal")[:2]
    spec.list_columns = (column, *dates)
    out.read.append(_span(intent, m.start(), m.end()))
    out.replaces |= {"ranking_metric", "unit", "timezone"}
    return True


def _valid_during(intent: Intent, table: str, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'the monthly fee of Smart 10 in 2023': the price rows in force at some time in the window (begun before its
    end, not ended before its start), not those that began in it. False when the rows hold no validity dates."""
    from archetypes.query import RowCondition
    from archetypes.record_scope import scopes

    window, said = intent.window, intent.window_span
    scope = next((s for s in scopes(profile) if s.kind == "validity" and s.table == table and s.start), None)
    if window is None or said is None or window.open_start or scope is None or scope.start is None:
        return False
    first, end = window.start, window.end
    spec.conditions += [
        RowCondition(table, scope.start, "before_day", (end.isoformat(),),
                     label=f"{phrase(scope.start)} before {end.isoformat()}", asked=True),
        RowCondition(table, scope.column, "gt_or_null", ((first - dt.timedelta(days=1)).isoformat(),),
                     label=f"{phrase(scope.column)} empty or on or after {first.isoformat()}", asked=True)]
    spec.window = None
    out.read.append(said)
    out.replaces |= {"record_scope", "timeframe"}
    return True


_FIRST_LAST = re.compile(r"\b(?:very\s+)?(first|earliest|last|latest|most recent|newest)\b")
# a date asked for: 'when was ...', 'the date of ...', "what's the timestamp of ..."
_WHEN_ASKED = re.compile(r"^\s*(?:when\b|(?:what(?:'s|s| is| was)\s+)?(?:the\s+)?(?:date|day|time|timestamp)\s+of\b)")


def _first_or_last(intent, ops, kinds, profile, spec, as_of, out) -> None:
    """'when did we get our very first order', 'when was our last sale to brazil': the earliest or the latest
    date of the events named, within the filters; not a count of them."""
    m = _FIRST_LAST.search(intent.lower)
    said = [x for x in (intent.window_span, intent.vague_time) if x is not None]
    # 'the most recent invoice': 'recent' is the latest row's word here, no window of recent days
    own_word = m is not None and bool(said) and all(m.start() <= x.start < m.end() for x in said)
    if _WHEN_ASKED.match(intent.lower) is None or m is None or (intent.window is not None and not own_word) or \
            (spec.shape != "aggregate" and not own_word):
        return
    named = [t.entity.table for t in intent.targets if t.entity.table in profile.facts and t.span.start > m.start()]
    named += [rows_of(profile, x) for x, s in intent.measures if s.start > m.start() and
              x.kind in ("count", "count_distinct") and rows_of(profile, x) in profile.facts]
    primary = profile.primary_fact()
    after = [w for w, s, _ in intent.tokens if s > m.start()]
    table = named[0] if named else (primary.table if primary is not None and any(
        w in lexicon.SALES_WORDS | {"purchase", "purchases"} for w in after) else None)
    fact = profile.facts.get(table) if table else None
    if fact is None or fact.time is None:
        return
    holder = profile.facts.get(fact.time.table) or fact  # the date is the header's: its rows are the events
    if holder.time is None or holder.time.table != holder.table:
        return
    column = holder.time.column
    spec.fact, spec.count_table, spec.group, spec.limit = holder, None, None, None
    spec.measure = Measure(slug(phrase(column)), phrase(column), "sum", holder.table, (column,))
    spec.agg = "min" if m.group(1) in ("first", "earliest") else "max"
    out.read.append(_span(intent, m.start(), m.end()))
    out.consumed |= {"attribute", "ranking"}
    out.replaces |= {"ranking_metric", "unit", "timezone", "aggregation_level"}
    if own_word:
        spec.shape, spec.window, spec.time_part = "aggregate", None, None
        out.replaces.add("timeframe")


_WHEN_DID = re.compile(r"^\s*when\s+(?:did|was|were|has|had|is)\b")
# the words for a row's own start: 'when did acme sign up', 'when was anna hired', 'when did they join'
_STARTED = re.compile(r"\b(sign(?:ed)?[- ]?up|join(?:ed)?|register(?:ed)?|creat(?:ed|e)|hired?|onboard(?:ed)?|"
                      r"start(?:ed)?|open(?:ed)?|become an? (?:customer|client|member)|move[ds]?\s+in|"
                      r"placed|made|booked|submitted|received|ordered|issued|raised|logged)\b")  # an event's own moment


_WENT_OUT_WHEN = re.compile(r"\b(?:go|went|gone|get|got|be|was|been)\s+(?:sent\s+)?out\b")


def _when_did(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'when did acme corp sign up?': the named row's own start date (a created, joined or hired column),
    listed; not a total of what it bought."""
    started = _STARTED.search(intent.lower)
    # the named row's table ('steven buchanan': a first and a last name of one table; 'order 10250' by its key)
    owner = _named_owner(profile, spec, out) or _keyed_event(profile, spec)
    if _WHEN_DID.match(intent.lower) is None or owner is None:
        return False
    # the date its verb names ('when was order 10250 shipped': its shipped date), else its own start
    said = [(w, s, e) for w, s, e in intent.tokens if s > 4 and not any(k.start <= s < k.end
                                                                        for _, _, k in intent.key_refs)]
    dated = [(c.name, s, e) for c in profile.tables[owner.table].columns if c.family == "temporal"
             for w, s, e in said if any(len(p) >= 4 and (w == p or w.startswith(p) and len(w) - len(p) <= 2 or
                                                         len(w) >= 4 and same_root(w, p))  # 'did it ship'
                                        for p in words(c.name))]
    went_out = _WENT_OUT_WHEN.search(intent.lower)
    if not dated and went_out is not None:  # 'when did order 10250 go out': the day it was sent
        dated = [(c.name, went_out.start(), went_out.end()) for c in profile.tables[owner.table].columns
                 if c.family == "temporal" and set(words(c.name)) & lexicon.SENT_DATE_WORDS]
    started_span: Span | None
    if len({d[0] for d in dated}) == 1:
        columns, started_span = [dated[0][0]], _span(intent, dated[0][1], dated[0][2])
    else:
        columns = _attribute_columns(profile, owner.table, "recency") if started is not None else []
        started_span = _span(intent, started.start(), started.end()) if started is not None else None
    if not columns and _FIRST_LAST.search(intent.lower) is None:  # ('its last order': the latest, read elsewhere)
        return _when_its_rows_began(intent, profile, spec, out, owner, started_span, said)
    if not columns or started_span is None:
        return False
    spec.shape, spec.group, spec.fact, spec.measure, spec.window = "list", owner, None, None, None
    spec.list_columns = (columns[0],)
    out.read.append(started_span)
    out.replaces |= {"ranking_metric", "unit", "timezone", "record_scope"}
    return True


def _when_its_rows_began(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead, owner: Entity,
                         started: Span | None, said: list[tuple[str, int, int]]) -> bool:
    """'when did anna kohler move in', "when did anna's tenancy start", 'when did lena enroll': a row with no such
    date of its own began with the first of the rows pointing at it that hold one (a tenancy's start date, an
    enrollment's enrolled date): the earliest, not a total."""
    named = {t.entity.table for t in intent.targets}

    def dated_as_said(column: str) -> Span | None:
        if started is not None and set(words(column)) & _START_WORDS:
            return started
        verb = next(((s, e) for w, s, e in said if len(w) >= 4 and any(len(p) >= 4 and same_root(w, p)
                                                                         for p in words(column))), None)
        return _span(intent, *verb) if verb is not None else None

    found = [(table, c.name, at) for table, edges in profile.edges.items() if table != owner.table and
             any(e.ref_table == owner.table for e in edges)
             for c in profile.tables[table].columns if c.family == "temporal" and (at := dated_as_said(c.name))]
    # the table the question names first ('lease start'), else the only one there is
    chosen = [f for f in found if f[0] in named] or (found if len({t for t, _, _ in found}) == 1 else [])
    if len(chosen) != 1:
        return False
    table, column, read = chosen[0]
    info = profile.tables[table]
    spec.shape, spec.group, spec.limit, spec.window, spec.count_table = "aggregate", None, None, None, None
    spec.fact = profile.facts.get(table) or Fact(table=table, measures=[], row_count=info.row_count)
    spec.measure = Measure(slug(phrase(column)), phrase(column), "sum", table, (column,))
    spec.agg, spec.per_table = "min", None
    out.read.append(read)
    out.consumed |= {"attribute", "ranking"}
    out.replaces |= {"ranking_metric", "unit", "timezone", "record_scope"}
    return True


_START_WORDS = frozenset({"start", "started", "begin", "began", "from", "since", "opened", "signed", "joined",
                          "created", "moved", "move"})


def _keyed_event(profile: SchemaProfile, spec: QuerySpec) -> Entity | None:
    """The one row of a table of events the question names by its key ('order 10250')."""
    keyed = [f.entity for f in spec.filters if not f.negate and f.column is not None and f.entity.key and
             f.column == f.entity.key[0]]
    return keyed[0] if len(spec.filters) == 1 and len(keyed) == 1 else None


def _named_owner(profile: SchemaProfile, spec: QuerySpec, out: ShapeRead | None = None) -> Entity | None:
    """The table of the one row the question names ('leonie kohler', 'speedy express'; 'anne dodsworth' as a
    first and a last name of one table), or of the rows a name could mean, all in one table ('chef anton's':
    two items; which one is the entity readings' question)."""
    tables = {f.entity.table for f in spec.filters if not f.negate}
    owner = profile.entities.get(next(iter(tables))) if len(tables) == 1 else None
    if not tables and out is not None:
        owner = out.pending_owner
    return owner if owner is not None and not owner.column_only else None


# the row a key of a table to itself points at, named as a person above ('who is X's manager')
_ABOVE = ("manager", "boss", "supervisor", "superior")


def _reference(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """"who's leonie kohler's support rep", 'who does anne dodsworth report to': the named row's foreign key
    named by its words (SupportRepId, ReportsTo) answers with the row it points at."""
    from archetypes.shapes import reference_words

    owner = _named_owner(profile, spec, out)
    if owner is None:
        return False
    # ('the it manager': a word of a value, the title IT Manager, names no key)
    said = {singular(w): (s, e) for w, s, e in intent.tokens if not any(v.start <= s < v.end for v in out.value_spans)}
    found = []
    for fk in profile.tables[owner.table].foreign_keys:  # a key to its own table too: 'reports to' a colleague
        ref = next((n for n in profile.tables if n.lower() == fk.ref_table.lower()), None)
        if ref is None or not fk.columns:
            continue
        edge = Edge(owner.table, tuple(fk.columns), ref, tuple(fk.ref_columns))
        parts = [singular(w) for w in reference_words(edge)]
        content = [p for p in parts if p not in lexicon.FUNCTION_WORDS]  # 'to' of ReportsTo need not be typed
        above = [w for w in _ABOVE if w in said] if ref == owner.table else []
        if len(edge.columns) == 1 and content and all(p in said for p in content) and \
                edge.ref_table in profile.entities:
            found.append((edge, content))
        elif len(edge.columns) == 1 and len(above) == 1 and edge.ref_table in profile.entities:
            found.append((edge, above))  # 'nancy's manager': the colleague her own key points at
        elif len(edge.columns) == 1 and edge.ref_table in profile.entities and ref != owner.table and \
                (verbs := [w for w in said if _verb_of(w, ref)]):
            found.append((edge, verbs[:1]))  # 'who supplies tofu': the supplier the product's key points at
    if len(found) != 1:
        return False  # none named, or several keys share the words: not guessed
    edge, parts = found[0]
    last = max(said[p][1] for p in parts)
    named = [at for f in spec.filters for v in f.values if (at := intent.lower.find(v.lower())) >= 0]
    # 'who reports to nancy edwards': among rows of one table, those whose key points at the named one
    between = intent.lower[last:min(named)].split() if named and min(named) > last else ["-"]
    reverse = edge.ref_table == owner.table and all(w in ("to", "under", "the") for w in between)
    spec.shape, spec.group, spec.fact, spec.measure, spec.window = "list", owner, None, None, None
    spec.reference, spec.list_columns, spec.reference_reverse = edge, edge.columns, reverse
    out.read.extend(_span(intent, *said[p]) for p in parts)
    out.replaces |= {"ranking_metric", "unit", "timezone", "record_scope"}
    return True


def _verb_of(word: str, table: str) -> bool:
    """'supply' of suppliers, 'manufacture' of manufacturers: a verb of the table's own noun."""
    noun = singular(words(table)[-1]) if words(table) else ""
    return len(word) >= 5 and word != noun and naming.same_root(word, noun, 5, 2)


def _table_verbs(intent: Intent, tables: set[str]) -> list[Span]:
    """The question's verbs of tables the reading uses ('what does exotic liquids supply': the suppliers)."""
    return [_span(intent, s, e) for w, s, e in intent.tokens if any(_verb_of(singular(w), t) for t in tables)]


_ASKING = frozenset({"whats", "what", "tell", "give", "show", "me", "get", "find", "need", "want"})


def _owner_column_spans(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> list[Span]:
    """The words of the named row's own columns of two words or more, where said ('hourly rate', 'list price')."""
    owner = _named_owner(profile, spec, out)
    if owner is None:
        return []
    found = []
    for column in profile.tables[owner.table].columns:
        said = words(column.name)
        if len(said) < 2:
            continue
        for m in re.finditer(r"\b" + r"\s+".join(re.escape(w) for w in said) + r"s?\b", intent.lower):
            found.append(_span(intent, m.start(), m.end()))
    return found


def _starts_with_column(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """'phone number for speedy express', 'email of acme corp': a column of the one row named."""
    owner = _named_owner(profile, spec, out)
    if owner is None:
        return False
    named = [(at, at + len(v)) for f in spec.filters for v in f.values if (at := intent.lower.find(v.lower())) >= 0]
    named += [(n.start, n.end) for n in intent.names]  # 'frank's phone number': a name of several rows
    # 'speedy express phone number', 'whats the phone number for X': the first word that is not the row's name
    first = next((w for w, start, _ in intent.tokens if w not in STOPWORDS and w not in _ASKING and
                  not any(a <= start < b for a, b in named)), None)
    columns = _columns_named(intent, profile, owner.table, None)
    return first is not None and any(singular(first) in {singular(w) for w in words(c)} for c in columns)


def _starts_with_table(intent: Intent, values: list[Span], profile: SchemaProfile) -> bool:
    """A bare noun phrase ('clients in brazil', 'our suppliers from japan', 'discontinued meat dishes'): the
    rows, not a total. Before the table's noun only determiners, data values and words of the table's own
    columns (a yes/no column such as 'discontinued')."""
    m = re.match(r"\s*(?:(?:all|our|the|every|any)\s+)*", intent.lower)
    start = m.end() if m else 0
    first = min((t for t in intent.targets if not t.entity.column_only), key=lambda t: t.span.start, default=None)
    if first is None:
        return False
    if first.span.start == start:
        return True
    own = {w for c in profile.tables[first.entity.table].columns for w in words(c.name)}
    said = [(w, s) for w, s, _ in intent.tokens if start <= s < first.span.start]
    return all(any(v.start <= s < v.end for v in values) or w in own for w, s in said)


def _starts_with_events(intent: Intent, own: re.Match | _Found | None) -> bool:
    """'parcels that haven't shipped', 'unshipped parcels': a bare noun phrase of events (a count's noun) in a
    state of their own: those rows, listed, as 'clients in japan' lists clients."""
    m = re.match(r"\s*(?:(?:all|our|the|any|every)\s+)*", intent.lower)
    start = m.end() if m else 0
    if own is not None and own.start() == start:
        start = own.end() + len(intent.lower[own.end():]) - len(intent.lower[own.end():].lstrip())
    return any(m.kind == "count" and span.start == start for m, span in intent.measures)


def _counted_rows(intent: Intent, profile: SchemaProfile) -> Target | None:
    """'list trips with status lost', 'show all lost trips in lyon': the rows a count word names (a table of
    events with no name, listed by its key) when it comes before any table named."""
    if not re.match(r"^\s*(?:please\s+)?(?:list|show(?: me)?|give me|display|find|get)\b", intent.lower):
        return None  # 'what is the median basket size' asks a figure of the baskets, not their list
    counted = next(((rows_of(profile, m), s) for m, s in intent.measures if m.kind in ("count", "count_distinct")),
                   None)
    if counted is None or counted[0] not in profile.tables:
        return None
    table, span = counted
    if any(t.span.start < span.start and not t.entity.column_only for t in intent.targets):
        return None
    entity = profile.entities.get(table)
    if entity is None or entity.column_only:
        key = profile.tables[table].primary_key
        if len(key) != 1:
            return None
        entity = Entity(table, (key[0],), phrase(table), (key[0],), profile.tables[table].row_count)
    return Target(entity, span)


def _head_target(intent: Intent) -> Target | None:
    """The listed table: the head of the first noun phrase naming one ('product genres' -> genres)."""
    targets = sorted(intent.targets, key=lambda t: t.span.start)
    if not targets:
        return None
    head = targets[0]
    for following in targets[1:]:
        if intent.lower[head.span.end:following.span.start].strip() == "":
            head = following
        else:
            break
    return head


# a column's second word that only qualifies its first ('plan tier', 'customer type', 'risk level')
_QUALIFIERS = frozenset({"tier", "level", "type", "kind", "code", "group", "class", "segment", "grade"})


def _columns_named(intent: Intent, profile: SchemaProfile, table: str, target: Target | None) -> tuple[str, ...]:
    tokens = {singular(w) for w, _, _ in intent.tokens}
    info = profile.tables[table]
    keys = set(info.primary_key) | {c for fk in info.foreign_keys for c in fk.columns}
    found = []
    for column in info.columns:
        parts = [singular(w) for w in words(column.name)]
        if column.name in keys or not parts:
            continue
        if all(p in tokens for p in parts) or (parts[-1] in tokens and parts[-1] not in ("id", "name")) or \
                len(parts) == 2 and parts[0] in tokens and parts[1] in _QUALIFIERS:  # 'plan' of plan_tier
            found.append(column.name)
    for t in intent.targets:
        if t.entity.table == table and t.entity.column_only and t.entity.name_columns[0] not in found:
            found.append(t.entity.name_columns[0])
    return tuple(found)


__all__ = ["ShapeRead", "read_shape", "Edge"]
