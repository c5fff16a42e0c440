"""Which records count: every row, or only the ones in a finished / valid / current state.

Found from the data, on any schema: a status-like column on the rows a reading reads (low-cardinality text
holding both a done value such as 'completed' and an excluded one such as 'cancelled'), a validity table
(a start and an end date, the current row marked by a missing end or a far-future sentinel), and
soft-deleted rows (a deletion timestamp or flag). A question that names the state ('completed purchases',
'current plans') is not ambiguous: its words are a filter.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass

from sqlglot import exp

from adapters.column_types import is_date_only
from archetypes import lexicon
from archetypes.archetype import Archetype, Context
from archetypes.counted import rows_of
from archetypes.flags import RETIRED, is_yes_no, yes_no_value
from archetypes.intent import Span
from archetypes.model import Detection, Reading
from archetypes.naming import person_compound, phrase, plural, singular, slug, words
from archetypes.profile import Measure, SchemaProfile
from archetypes.query import QuerySpec, RowCondition, table_ref

ID = "record_scope"
HEADER = "Which records"
WHEN = ("A count, total or average reads rows that carry a state: a status such as completed / cancelled / "
        "refunded, a validity period (start and end dates, the current row marked by an empty or far-future end), "
        "or a deletion mark, and the question does not say which rows count.")
ASK = "Which records count?"
REASON = ("Rows in a state that may not count (cancelled or refunded, no longer valid, deleted) are in the table: "
          "including them or not changes every total, and both are defensible until someone says which.")

DONE = ("completed", "complete", "paid", "delivered", "shipped", "fulfilled", "closed", "settled", "confirmed",
        "approved", "succeeded", "success", "successful", "active", "won", "finished", "done", "posted",
        # (last: a gift or a payment 'received' is done; a parcel 'received' may be on its way to 'delivered')
        "received", "cleared", "captured", "collected")
EXCLUDED = {"cancelled", "canceled", "refunded", "returned", "failed", "void", "voided", "rejected", "pending",
            "deleted", "inactive", "expired", "churned", "declined", "paused", "lost", "abandoned", "draft",
            "open", "suspended", "terminated", "lapsed"}
# ('do we open': the opening done, no open rows)
_CURRENT = re.compile(r"\b(right now|currently|current|today|now|at the moment|active|live|these days|still|"
                      r"(?<!we )(?<!they )(?<!you )open|unresolved)\b")
_UNDER_WAY = frozenset({"open", "pending"})
# a row marked as struck out by a flag or a date of its own: deleted, archived, a line voided on its check
_STRUCK_OUT = frozenset({"deleted", "removed", "archived", "voided"})
_ALL_STATES = re.compile(r"\b(?:every|any|all|whatever(?:\s+(?:the|its|their))?|regardless\s+of(?:\s+(?:the|its|their))?|"
                         r"irrespective\s+of(?:\s+(?:the|its|their))?)\s+(?:[a-z]+\s+)?(?:status|statuses|state|states)\b")
# a date that says a row left: an employee's termination, a member's churn (empty while the row is current)
_LEFT = frozenset({"terminated", "termination", "left", "leaving", "departed", "departure", "resigned",
                   "resignation", "churned", "offboarded", "exit", "exited", "separation", "separated",
                   "deactivated", "deactivation", "disabled"})
# a flight's 'actual_departure' is when it left, not a row's end of life ('scheduled_departure' its plan)
# a membership's or a person's own end ('members.cancelled_on'): an event's cancellation is no leaving
_ENDED = frozenset({"cancelled", "canceled", "churned", "ended"})
# states of rows that are over ('lapsed policies'): none of them is current
_GONE = frozenset({"lapsed", "expired", "inactive", "ended", "terminated", "churned", "closed", "cancelled", "canceled"})
_HOLDERS = frozenset({"membership", "subscription", "account", "contract", "enrollment", "enrolment"})


def _held(table: str) -> bool:
    noun = singular(words(table)[-1]) if words(table) else ""
    # ('salespeople', 'chairmen': people by their compound's head)
    return noun in lexicon.PEOPLE_NOUNS or noun in _HOLDERS or person_compound(noun)


def _event_end(profile: SchemaProfile, table: str, column: str) -> bool:
    """An event's own end ('ed_visits.departed_at' after 'arrived_at'): rows of events dated by another column, not
    people or memberships that left."""
    fact = profile.facts.get(table)
    return fact is not None and fact.time is not None and fact.time.table == table and fact.time.column != column \
        and not _held(table)


_TIMETABLE = frozenset({"actual", "scheduled", "planned", "expected", "estimated", "sched"})
# a date a row fills when it goes out ('shipped date'): rows without one have not; asked about when the question
# speaks of the going out itself (a shipper, freight, a carrier), never of the rows' own state ('shipped')
_SENT_SAID = re.compile(r"\b(?:shipped|delivered|dispatched|sent|unshipped|undelivered|late|on time|in transit|"
                        r"ship(?:s)?\s+(?:on|in|by|within))\b")
_FORMER = re.compile(r"\b(former|ex|past|left|terminated|churned|resigned|departed|leavers?)\b")
_HISTORY = re.compile(r"\b(ever|historically|all[- ]time|history|over time|in total|including (?:past|old|"
                      r"expired|cancelled|deleted))\b")
_VALUE_WORD = re.compile(r"[a-z0-9]+")
_NEGATION = re.compile(r"\b(?:never|not|no|without|none|nobody|\w+n'?t)\b")


@dataclass(frozen=True)
class Scope:
    kind: str                    # status | status_void (a void state among several that count) | validity |
    #                              deleted | retired (a yes/no 'discontinued') | left (a termination date) | kind
    table: str
    column: str
    values: tuple[str, ...] = ()  # status: the done value(s); kind: the values of the other kinds
    start: str | None = None      # validity: the start column
    sentinel: str | None = None   # validity: the far-future end date, when the data uses one
    dated: bool = False           # validity: every end a real day (an exhibition's closing): current only when asked


def detect(ctx: Context) -> Detection | None:
    base, profile = ctx.base, ctx.profile
    if base.query is not None or ctx.intent.rate_subject:
        return None
    tables = _tables_read(base, profile)
    named = {f.entity.table + "." + f.entity.name_columns[0] for f in base.filters + base.share_filters}
    named |= {f"{c.table}.{c.column}" for c in base.conditions + base.share_conditions}  # 'active items'
    if ctx.grounding is not None:  # 'bookings cancelled': a column a pending value may filter is no scope to ask about
        named |= {f"{r.table}.{r.column}" for _, refs in ctx.grounding.ambiguous for r in refs}
    root = base.fact.table if base.fact else base.count_table
    for grouped in (base.group, base.also_by):
        if grouped is not None:
            named.add(grouped.table + "." + grouped.name_columns[0])  # grouped by the state: all shown
    def distance(scope: Scope) -> int:  # the rows read themselves first, then the tables they point at
        route = profile.path(root, scope.table) if root else None
        return len(route) if route is not None else 99

    at_day: set[str] = set()
    for scope in scopes(profile):
        if scope.kind not in ("validity", "left") or scope.table not in tables or \
                scope.table not in _own_rows(base, profile):
            continue
        if (day := _valid_day(ctx)) is not None:
            _resolve_at(ctx, scope, *day)  # 'policies active as of 2023-01-01', 'in force at the end of 2023': the
            at_day.add(scope.table)        # rows then, whatever their state today
            break
        if scope.kind == "validity" and _CURRENT.search(ctx.intent.lower) and not _ended_rows_asked(base, scope):
            _resolve_validity(ctx, scope)  # 'current policies': the rows valid today, whatever else their status
            at_day.add(scope.table)
            break
    for scope in sorted(scopes(profile), key=distance):
        if scope.table not in tables or f"{scope.table}.{scope.column}" in named or scope.table in at_day:
            continue
        if scope.kind in ("retired", "left") and scope.table not in _own_rows(base, profile):
            continue  # a discontinued item's past sales are still sales: only the items themselves are in doubt
        if scope.kind == "validity" and scope.table not in _own_rows(base, profile) and scope.table != root and \
                (base.measure is None or base.measure.table != scope.table) and \
                not (base.fact is not None and base.fact.time is not None and base.fact.time.table == scope.table):
            continue  # a claim on a policy that has lapsed since is still a claim; a price row read is in doubt
        if scope.kind in ("status", "status_void") and root is not None and root != scope.table and \
                _rows_of_the_state(root, scope, profile):
            continue  # refunds point at refunded payments: 'only succeeded payments' would keep no refund
        if scope.kind in ("status", "status_void") and root is not None and root != scope.table and \
                not (base.fact is not None and base.fact.time is not None and base.fact.time.table == scope.table):
            continue  # a line is of its order's state; a trip is not of its driver's (suspended today, not then)
        if scope.kind == "sent" and (not lexicon.SENDING_TALK.search(ctx.intent.lower) or _SENT_SAID.search(ctx.intent.lower)
                                     or base.window is not None  # (the window by the sent date asks it: timeframe)
                                     or scope.table != root or base.shape not in ("aggregate", "share", "ranking")
                                     or base.measure is None or base.measure.kind != "count"):
            continue  # ('how many parcels has each shipper handled': all, or those shipped so far; a figure of
            #           every parcel, freight included, is no count of what went out)
        if scope.kind in ("status", "status_void") and _ALL_STATES.search(ctx.intent.lower):
            continue  # 'every status', 'whatever the status', 'regardless of status': every row, as said
        if scope.kind in ("validity", "left") and base.shape == "absence" and base.fact is not None and \
                scope.table == base.fact.table and re.search(r"\bnever\b", ctx.intent.lower):
            continue  # 'tenants who have never had a lease': none at any time, current or ended
        if scope.kind == "validity" and base.window is not None and base.fact is not None and \
                base.fact.time is not None and base.fact.time.table == scope.table and \
                base.fact.time.column == scope.start and ctx.as_of is not None and base.window.end <= ctx.as_of and \
                not (_CURRENT.search(ctx.intent.lower) or _HISTORY.search(ctx.intent.lower)):
            continue  # 'ED visits in 2024': rows begun in a past window, none of them 'current' today
        if scope.kind in ("validity", "left") and _ended_rows_asked(base, scope):
            continue  # 'memberships cancelled this year': rows that ended, dated by their end: never current ones
        if scope.kind in ("validity", "left") and (_CURRENT.search(ctx.intent.lower) or
                                                   _HISTORY.search(ctx.intent.lower) or _FORMER.search(ctx.intent.lower)):
            _resolve_validity(ctx, scope)
            continue
        if scope.dated:
            continue  # ('how many sick days': leave taken, past and planned; 'open right now' is asked, above)
        deleted = next((d for d in scopes(profile) if d.kind == "deleted" and d.table == scope.table and
                        f"{d.table}.{d.column}" not in named), None) if scope.kind in ("status", "status_void") else None
        if deleted is not None:
            return _with_deleted(ctx, _detection(ctx, scope), deleted)
        return _detection(ctx, scope)
    among = _late_or_still_open(ctx) or _absence_among(ctx) or _ever_active(ctx) or _lowest_among(ctx)
    if among is not None:
        return among
    if base.shape in ("attribute", "list") and base.group is not None:
        tables = _reachable(profile, [base.group.table])  # 'the longest song': a kind of the rows ranked
    kind = _kind_scope(ctx, tables, named, distance)
    return _kind_detection(ctx, *kind) if kind is not None else None


def _late_or_still_open(ctx: Context) -> Detection | None:
    """'how many parcels were late': done after the day due, or also those not done yet whose day has passed
    (late too, by now): two counts, when some rows are not done."""
    late = next((c for c in ctx.base.conditions if c.op == "after" and c.asked and len(c.values) >= 1), None)
    info = ctx.profile.tables.get(late.table) if late is not None else None
    done = info.column(late.column) if info is not None and late is not None else None
    if late is None or done is None or not done.nullable or ctx.base.window is not None or ctx.base.shape == "share":
        return None
    deed = [w[:4] for w in words(late.column) if w not in ("date", "at", "on", "time", "day", "ts") and len(w) >= 4]
    if any(t[0][:4] in deed for t in ctx.intent.tokens) or re.search(r"\b(?:went|gone|go|goes)\s+out\b", ctx.intent.lower):
        return None  # 'shipped late', 'late shipments': the deed is said, so only those done count
    as_of = (ctx.as_of or dt.date.today()).isoformat()
    both = RowCondition(late.table, late.column, "late_or_open", (late.values[0], as_of),
                        label=f"{late.label}, or no {phrase(late.column)} yet and {phrase(late.values[0])} before {as_of}",
                        asked=True)

    def widen(spec: QuerySpec) -> None:
        spec.conditions = [both if c == late else c for c in spec.conditions]
        spec.share_conditions = [both if c == late else c for c in spec.share_conditions]

    readings = [Reading("done_late", f"Only those done late ({late.label})", lambda spec: None),
                Reading("late_or_overdue", "Those done late, and those not done yet past the day due", widen)]
    span = Span(0, len(ctx.question), ctx.question)
    return ARCHETYPE.detection(span, readings, question="Late as in done late, or not done yet by the day due too?")


def _lowest_among(ctx: Context) -> Detection | None:
    """'the worst genre in sales for 2024': of every genre, those that sold nothing then at 0 (and at the bottom),
    or only among those that sold: two defensible sets of rows, often two different answers."""
    from archetypes.query import zeros_counted

    base = ctx.base
    if base.group is None or not base.limit or not zeros_counted(base, ctx.profile):
        return None  # ('how many items in each range': every one, as said)
    noun = plural(base.group.noun)
    events = plural(phrase(base.fact.table).split()[-1]) if base.fact is not None and phrase(base.fact.table) else "rows"

    def only_with_rows(spec: QuerySpec) -> None:
        spec.with_rows_only = True

    readings = [Reading("every_one", f"Every one of the {noun}, those with no {events} as 0", _apply([])),
                Reading("with_rows", f"Only {noun} with {events}", only_with_rows)]
    span = ctx.intent.ranking or ctx.intent.superlative or Span(0, len(ctx.question), ctx.question)
    return ARCHETYPE.detection(span, readings, question=f"Count {noun} with no {events} (as 0), or only those with some?")


def _ended_rows_asked(base: QuerySpec, scope: Scope) -> bool:
    """The rows asked about are dated by the scope's own end column, or filtered on a closing state: the ones
    that ended (current ones, whose end is empty or ahead, are none of them)."""
    from archetypes import lexicon

    dated = (base.window is not None or base.change is not None) and base.fact is not None and \
        base.fact.time is not None and base.fact.time.table == scope.table and base.fact.time.column == scope.column
    closing = any(f.entity.table == scope.table and not f.negate and {v.lower() for v in f.values} &
                  (lexicon.CLOSING_WORDS | lexicon.NEVER_HAPPENED | _GONE) for f in base.filters)
    return dated or closing


def _kind_scope(ctx: Context, tables: set[str], named: set[str],
                distance: Callable[[Scope], int]) -> tuple[Scope, Span] | None:
    """'how many songs': a word naming only some kinds of the rows read, and a kind column (a few values, one of
    them 'video') on the rows or a table they point at. A question that names the other kinds itself is no scope
    question ('songs and videos')."""
    from adapters.schema import SAMPLE_VALUES

    said = [(m.group(0), m.start(), m.end()) for m in lexicon.TOKEN.finditer(ctx.intent.lower)]
    spoken = {text for text, _, _ in said}
    for text, start, end in said:
        others = lexicon.KIND_NOUNS.get(text, ())
        if not others or spoken & set(others):
            continue
        candidates = sorted(((Scope("kind", t, c.name), c) for t in tables for c in ctx.profile.tables[t].columns
                             if c.family == "text" and 2 <= len(c.samples) < SAMPLE_VALUES),
                            key=lambda sc: (distance(sc[0]), sc[0].table, sc[0].column))
        for other in others:
            for scope, column in candidates:
                kinds = [str(v) for v in column.samples]
                hits = [v for v in kinds if set(_VALUE_WORD.findall(v.lower())) & set(others)]
                if f"{scope.table}.{scope.column}" in named or not hits or len(hits) == len(kinds) or \
                        not any(other in _VALUE_WORD.findall(v.lower()) for v in hits):
                    continue
                return Scope("kind", scope.table, scope.column, tuple(sorted(hits))), Span(start, end,
                                                                                       ctx.question[start:end])
    return None


def _kind_detection(ctx: Context, scope: Scope, span: Span) -> Detection:
    base = ctx.base
    root = base.group.table if base.shape in ("attribute", "list") and base.group is not None else \
        base.fact.table if base.fact else base.count_table or scope.table
    noun = plural(phrase(root).split()[-1]) if phrase(root) else "rows"
    kinds = ", ".join(f"'{v}'" for v in scope.values)
    column = f"{phrase(scope.table)} {phrase(scope.column)}" if scope.column.lower() in ("name", "title") else \
        phrase(scope.column)
    readings = [Reading("all", f"Every {phrase(root)}, {kinds} included", _apply([])),
                Reading("other_kinds", f"Only {noun} whose {column} is not {kinds} ('{span.text}' leaves them out)",
                        _apply([RowCondition(scope.table, scope.column, "not_in", scope.values,
                                             f"{phrase(scope.column)} is not {kinds}")]))]
    return ARCHETYPE.detection(span, readings, question=f"Are the {kinds} {noun} '{span.text}' too?")


def _absence_among(ctx: Context) -> Detection | None:
    """'artists who never sold', 'clients who haven't booked since 2023': every row of the entity, or only those
    that could have had the events (artists with tracks to sell; clients who booked at some other time or of
    some other kind)? Asked only when the data holds rows of the entity that had nothing at all."""
    from archetypes.explain import _rows
    from archetypes.shapes import reaching

    base, profile = ctx.base, ctx.profile
    entity, fact = base.absent, base.fact
    # (rows with events in a first window are never rows with none at all)
    if base.shape != "absence" or base.present_window is not None or entity is None or fact is None or \
            len(entity.key) != 1:
        return None
    narrowed = base.window is not None or base.currency_mode is not None or \
        any(profile.path(entity.table, f.entity.table) is None for f in base.filters) or \
        any(c.table != entity.table for c in base.conditions)
    route = profile.path(fact.table, entity.table) or ()
    # narrowed: people who did it at some other time (lapsed clients; a catalogue row with no sale in 2024 is
    # simply one of them); else the rows the events are of, when they are not events themselves (an album's tracks)
    person = len(entity.name_columns) > 1 or singular(entity.noun.split()[-1]) in lexicon.PEOPLE_NOUNS
    table = (fact.table if person else None) if narrowed else next((e.ref_table for e in route[:-1] if e.ref_table not in profile.facts),
                                             None)
    among = reaching(table, entity, profile) if table is not None else None
    if table is None or among is None:
        return None
    if not _some_have_none(ctx, entity.table, table, among):
        return None  # every row has some: both readings are the same rows
    rows = _rows(table)
    nouns = plural(entity.noun)
    anything = f"any {rows}" if table == fact.table else rows
    readings = [Reading("all", f"Every {entity.noun}, those with no {rows} at all included", _among(None)),
                Reading(f"only_with_{slug(table)}", f"Only {nouns} with {anything}", _among(table))]
    said = _NEGATION.search(ctx.question.lower())
    span = Span(said.start(), said.end(), ctx.question[said.start():said.end()]) if said else \
        Span(0, len(ctx.question), ctx.question)
    found = ARCHETYPE.detection(span, readings, question=f"Count {nouns} with no {rows} at all too?")
    found.reason = (f"Some {nouns} have no {rows} at all, so nothing of theirs could be missing: listing them with "
                    f"the ones that have {rows} but not these, or not, changes the answer.")
    return found


def _ever_active(ctx: Context) -> Detection | None:
    """'how many clients do we have': every row of the table, or only the people who ever did something (a
    client who never ordered may be a prospect). Asked only of people, with no filter or window, when the
    data holds some with no events at all."""
    from archetypes.explain import _rows
    from archetypes.shapes import reaching

    base, profile = ctx.base, ctx.profile
    table = base.count_table
    if table is None or base.shape != "aggregate" or base.group is not None or base.window is not None or \
            base.filters or base.conditions or base.having is not None:
        return None
    entity = profile.entities.get(table)
    if entity is None or entity.column_only or len(entity.key) != 1 or not (
            len(entity.name_columns) > 1 or singular(entity.noun.split()[-1]) in lexicon.PEOPLE_NOUNS):
        return None
    pointing = [(f, e) for f in profile.fact_list() for e in profile.edges.get(f.table, ()) if e.ref_table == table]
    if len(pointing) != 1:
        return None
    fact, edge = pointing[0]
    measure = Measure(slug(plural(entity.noun)), f"Distinct {plural(entity.noun)} (with {_rows(fact.table)})",
                      "count_distinct", fact.table, tuple(edge.columns))
    among = reaching(fact.table, entity, profile)
    if among is None or not _some_have_none(ctx, table, fact.table, among):
        return None

    def active(spec: QuerySpec) -> None:
        spec.count_table, spec.fact, spec.measure = None, fact, measure

    rows, nouns = _rows(fact.table), plural(entity.noun)
    readings = [Reading("all", f"Every {entity.noun} on file", lambda spec: None),
                Reading(f"only_with_{slug(fact.table)}", f"Only {nouns} with any {rows}", active)]
    found = ARCHETYPE.detection(Span(0, len(ctx.question), ctx.question), readings,
                                question=f"Count {nouns} with no {rows} at all too?")
    found.reason = (f"Some {nouns} have no {rows} at all (on file, but never active): counting them or not "
                    f"changes the answer.")
    return found


def _some_have_none(ctx: Context, table: str, other: str, among: exp.Exists) -> bool:
    """Whether some row of `table` has no row of `other` (`among` is the EXISTS that finds one): an anti-join,
    run once per profile and kept in its cache; unknown (no lookup, or it failed) counts as yes."""
    key = ("rows with none", table, other)
    if ctx.lookup is not None and key not in ctx.profile.cache:
        probe = exp.select(exp.Literal.number(1)).from_(table_ref(table, "e0")).where(exp.Not(this=among)).limit(1)
        try:
            ctx.profile.cache[key] = bool(ctx.lookup(probe))
        except Exception:  # noqa: BLE001 - unknown: ask
            ctx.profile.cache[key] = True
    return bool(ctx.profile.cache.get(key, True))


def _among(table: str | None):
    def apply(spec: QuerySpec) -> None:
        if spec.shape == "absence":
            spec.absent_among = table
    return apply


def _tables_read(spec: QuerySpec, profile: SchemaProfile) -> set[str]:
    """The tables a reading's rows come from: the fact and the tables on its many-to-one paths."""
    if spec.shape in ("attribute", "list") and spec.group is not None:
        return {spec.group.table}
    roots = [t for t in (spec.fact.table if spec.fact else None, spec.count_table) if t]
    if spec.absent is not None:
        roots.append(spec.absent.table)
    tables = _reachable(profile, roots)
    if spec.group is not None and spec.fact is None:
        tables.add(spec.group.table)
    return tables


def _reachable(profile: SchemaProfile, roots: list[str]) -> set[str]:
    """The roots and every table their many-to-one paths reach."""
    tables: set[str] = set()
    for root in roots:
        tables.add(root)
        frontier = [root]
        while frontier:
            table = frontier.pop()
            for edge in profile.edges.get(table, ()):
                if edge.ref_table not in tables:
                    tables.add(edge.ref_table)
                    frontier.append(edge.ref_table)
    return tables


def _rows_of_the_state(root: str, scope: Scope, profile: SchemaProfile) -> bool:
    """The rows read are the events of one excluded state of the scoped table ('refunds' of 'refunded' payments,
    'cancellations' of 'cancelled' bookings): keeping only done rows there keeps none of them."""
    from archetypes.values import lemma

    table = profile.tables.get(scope.table)
    column = table.column(scope.column) if table is not None else None
    states = {lemma(s.lower()) for s in (column.samples if column is not None else ()) if s.lower() in EXCLUDED}
    return bool({lemma(w) for w in words(root)} & states)


def _own_rows(spec: QuerySpec, profile: SchemaProfile) -> set[str]:
    """The tables whose own rows a reading counts, lists, ranks by an attribute or averages a column of."""
    own = {t for t in (spec.count_table, spec.absent.table if spec.absent else None,
                       spec.attribute.table if spec.attribute else None) if t}
    if spec.shape in ("list", "attribute") and spec.group is not None:
        own.add(spec.group.table)
    if spec.measure is not None and spec.measure.kind in ("count", "count_distinct"):
        own.add(rows_of(profile, spec.measure))
    if spec.fact is not None and spec.fact.table not in profile.facts:
        own.add(spec.fact.table)  # a column of the catalogue itself, averaged
    return own


def scopes(profile: SchemaProfile) -> list[Scope]:
    """The state-carrying columns of the schema, found once per profile."""
    cached = profile.cache.get("record_scopes")
    if cached is not None:
        return cached
    found: list[Scope] = []
    ended: list[Scope] = []  # a holder's own cancelled or ended date: a scope only where no status says the state
    for name, table in profile.tables.items():
        keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
        temporal = [c for c in table.columns if c.family == "temporal"]
        for column in table.columns:
            parts = set(words(column.name))
            if column.family == "text" and column.name not in keys and 2 <= len(column.samples) <= 12:
                # a state's first word: 'cancelled_by_rider' is cancelled, 'no_show' no show
                lowered = {(words(s) or [s.lower()])[0] if (words(s) or [""])[0] in EXCLUDED else s.lower()
                           for s in column.samples}
                done = sorted((s for s in column.samples if s.lower() in DONE), key=lambda s: DONE.index(s.lower()))
                if any(s.lower() == "active" for s in done) and any(s.lower() in _GONE for s in column.samples):
                    # an account active, suspended or closed: 'closed' is gone, not done; the active ones count
                    done = [s for s in done if s.lower() == "active"]
                # open and pending rows are on their way, not void: tickets open, solved, closed ask no scope
                void = [s for s in column.samples if s.lower() in lexicon.NEVER_HAPPENED or
                        (words(s) or [""])[0] in lexicon.NEVER_HAPPENED]
                if done and void and lowered - set(DONE) - EXCLUDED:
                    # loans returned, overdue, active, cancelled: 'only active' drops the returned ones, which
                    # count; what may not count is the void state (the done value is kept last, as `start`)
                    found.append(Scope("status_void", name, column.name, tuple(void), start=done[0]))
                elif done and lowered & (EXCLUDED - _UNDER_WAY):
                    found.append(Scope("status", name, column.name, (done[0],)))
            if parts & _STRUCK_OUT:
                if column.family in ("temporal", "boolean", "numeric") or "is" in parts:
                    found.append(Scope("deleted", name, column.name))
            elif parts & RETIRED and is_yes_no(column):
                found.append(Scope("retired", name, column.name))
            elif parts & _LEFT and column.family == "temporal" and column.nullable and not parts & _TIMETABLE and \
                    not _event_end(profile, name, column.name):
                found.append(Scope("left", name, column.name))
            elif parts & _ENDED and _held(name) and column.family == "temporal" and column.nullable and \
                    not parts & _TIMETABLE:
                ended.append(Scope("left", name, column.name))
            elif parts & lexicon.SENT_DATE_WORDS and column.family == "temporal" and column.nullable and len(temporal) > 1:
                found.append(Scope("sent", name, column.name))
        ends = [c for c in temporal if set(words(c.name)) & lexicon.VALIDITY_END_WORDS]
        starts = [c for c in temporal if set(words(c.name)) & lexicon.VALIDITY_START_WORDS and c not in ends]
        if starts and ends:
            end = ends[0]
            marked = profile.open_ends.get(f"{name}.{end.name}")
            if not marked if profile.probed else not is_date_only(end.type):
                continue  # a trip's started_at / ended_at, a leave's end date: an event that took time, not a row
                #           valid for a while (whose current row has no end, or a far-future one)
            found.append(Scope("validity", name, end.name, start=starts[0].name,
                               sentinel=marked if marked and marked not in ("null", "dated") else None,
                               dated=marked == "dated"))
    stated = {x.table for x in found if x.kind in ("status", "status_void", "left")}
    found += [x for x in ended if x.table not in stated]
    profile.cache["record_scopes"] = found
    return found


def _with_deleted(ctx: Context, found: Detection, deleted: Scope) -> Detection:
    """'how many players signed up in 2024' on a table with a status and a soft delete: each state's reading, and
    each with the deleted rows left out too (asked once, not one scope at a time while the other goes unasked)."""
    struck = next((w for w in words(deleted.column) if w in _STRUCK_OUT), "deleted")
    gone = _not_deleted(ctx.profile, deleted)

    def also(reading: Reading) -> Reading:
        def apply(spec: QuerySpec) -> None:
            if reading.apply is not None:
                reading.apply(spec)
            spec.conditions.append(gone)
        return Reading(f"{reading.value}_not_{struck}", f"{reading.label}, {struck} ones left out", apply)

    readings = [r for pair in ((r, also(r)) for r in found.readings) for r in pair]
    span = Span(found.span[0], found.span[1], found.evidence)
    return ARCHETYPE.detection(span, readings, question=f"{found.clarification.question[:-1]}, and {struck} ones too?")


def _detection(ctx: Context, scope: Scope) -> Detection:
    noun = plural(phrase(scope.table).split()[-1]) if phrase(scope.table) else "rows"
    span = _evidence(ctx, scope)
    if scope.kind == "status":
        value = scope.values[0]
        readings = [Reading("all", f"Every {phrase(scope.table)}, whatever its {phrase(scope.column)}", _apply([])),
                    Reading(f"only_{value.lower()}", f"Only {value} {noun}",
                            _apply([RowCondition(scope.table, scope.column, "eq", (value,),
                                                 f"{phrase(scope.column)} is {value}")]))]
        question = f"Count every {phrase(scope.table)}, or only {value} ones?"
    elif scope.kind == "status_void":
        void = " or ".join(scope.values)
        readings = [Reading("all", f"Every {phrase(scope.table)}, whatever its {phrase(scope.column)}", _apply([])),
                    Reading(f"not_{slug(scope.values[0])}", f"Only {noun} not {void}",
                            _apply([RowCondition(scope.table, scope.column, "not_in", scope.values,
                                                 f"{phrase(scope.column)} is not {void}")]))]
        undone = any(c.op == "overdue" for c in ctx.base.conditions)  # ('overdue invoices': none is paid yet)
        if scope.start is not None and not undone:  # 'active subscriptions' are the current ones: still a defensible count
            readings.append(Reading(f"only_{slug(scope.start)}", f"Only {scope.start} {noun}",
                                    _apply([RowCondition(scope.table, scope.column, "eq", (scope.start,),
                                                         f"{phrase(scope.column)} is {scope.start}")])))
        question = f"Count {void} {noun} too, or only {scope.start or 'some'} ones?"
    elif scope.kind == "retired":
        flag = phrase(scope.column)
        yes_no = ctx.profile.tables[scope.table].column(scope.column)
        no = yes_no_value({str(v).strip().lower() for v in (yes_no.samples if yes_no is not None else ())}, False)
        readings = [Reading("all", f"Every {phrase(scope.table)}, {flag} ones included", _apply([])),
                    Reading(f"not_{scope.column.lower()}", f"Only {noun} not {flag}",
                            _apply([RowCondition(scope.table, scope.column, "eq", (no,), f"not {flag}")]))]
        question = f"Count {flag} {noun} too?"
    elif scope.kind == "left":
        as_of = (ctx.as_of or dt.date.today()).isoformat()
        readings = [Reading("current", f"Only current {noun} ({phrase(scope.column)} empty or after {as_of})",
                            _apply([_current(scope, as_of)])),
                    Reading("all", f"Every {phrase(scope.table)} ever, those with a {phrase(scope.column)} included",
                            _apply([]))]
        question = f"Only current {noun}, or those with a {phrase(scope.column)} too?"
    elif scope.kind == "sent":
        readings = [Reading("all", f"Every {phrase(scope.table)}, those without a {phrase(scope.column)} included",
                            _apply([])),
                    Reading(f"only_{slug(scope.column)}", f"Only {noun} with a {phrase(scope.column)}",
                            _apply([RowCondition(scope.table, scope.column, "not_null",
                                                 label=f"{phrase(scope.column)} given")]))]
        question = f"Count every {phrase(scope.table)}, or only those with a {phrase(scope.column)}?"
    elif scope.kind == "deleted":
        struck = next((w for w in words(scope.column) if w in _STRUCK_OUT), "deleted")
        readings = [Reading(f"not_{struck}", f"Only {noun} not {struck}",
                            _apply([_not_deleted(ctx.profile, scope)])),
                    Reading("all", f"Every {phrase(scope.table)}, {struck} ones included", _apply([]))]
        question = f"Include {struck} {noun}?"
    else:
        as_of = (ctx.as_of or dt.date.today()).isoformat()
        readings = [Reading("current", f"Current {noun} only ({phrase(scope.column)} empty or in the future)",
                            _apply([_current(scope, as_of)])),
                    Reading("all", f"Every {phrase(scope.table)} row ever, past ones included", _apply([])),
                    Reading(f"valid_at_{as_of}", f"{noun.capitalize()} valid on {as_of}",
                            _apply(_valid_at(scope, as_of)))]
        question = f"Which {noun}: the current ones, every row ever, or those valid on a date?"
    return ARCHETYPE.detection(span, readings, question=question)


def _evidence(ctx: Context, scope: Scope) -> Span:
    """The words that read the scoped rows (the fact or table named), else the whole question."""
    for target in ctx.intent.targets:
        if target.entity.table == scope.table:
            return target.span
    for measure, span in ctx.intent.measures:
        if measure.table == scope.table:
            return span
    for said in (ctx.intent.money, ctx.intent.ranking, ctx.intent.superlative, ctx.intent.how_many and
                 ctx.intent.how_many[1]):
        if said is not None:
            return said  # the words that count or sum the scoped rows
    text = ctx.question
    return Span(0, len(text), text)


def _not_deleted(profile: SchemaProfile, scope: Scope) -> RowCondition:
    column = profile.tables[scope.table].column(scope.column)
    if column is not None and column.family == "temporal":
        return RowCondition(scope.table, scope.column, "is_null", label=f"{phrase(scope.column)} is empty")
    said = " ".join(w for w in words(scope.column) if w not in ("is", "was", "has", "flag"))  # 'is_voided': voided
    return RowCondition(scope.table, scope.column, "eq", ("0",), label=f"not {said or phrase(scope.column)}")


def _current(scope: Scope, as_of: str) -> RowCondition:
    return RowCondition(scope.table, scope.column, "gt_or_null", (as_of,),
                        label=f"{phrase(scope.column)} empty or after {as_of}")


def _valid_at(scope: Scope, as_of: str) -> list[RowCondition]:
    assert scope.start is not None
    # (before the next day: a start at 10:00 on the day itself is on or before it, on every engine)
    next_day = (dt.date.fromisoformat(as_of) + dt.timedelta(days=1)).isoformat()
    return [RowCondition(scope.table, scope.start, "before_day", (next_day,),
                         label=f"{phrase(scope.start)} on or before {as_of}"), _current(scope, as_of)]


# 'active as of 2023-01-01', 'in force at the end of 2023', 'valid on 1 may': the rows valid on one day
_AT_DAY = re.compile(r"\b(?:as of|as at|(?:at|by) the (?:end|close|start|beginning) of|(?:end|start) of|"
                     r"(?:in force|valid|active|current|live|held|open|on the books)\s+(?:on|at|as of|as at))\s*$")


def _valid_day(ctx: Context) -> tuple[dt.date, Span] | None:
    """The day the question asks the rows to be valid on, and the words that say it (the window's own words
    included), or None when it names no such day."""
    window, span = ctx.intent.window, ctx.intent.window_span
    if window is None or span is None:
        return None
    lower = ctx.intent.lower
    if window.open_start:  # 'as of 2023-01-01' read as everything up to it: of rows valid a while, those valid then
        return (window.end - dt.timedelta(days=1), span) if re.match(r"as (?:of|at)\b", lower[span.start:]) else None
    lead = re.match(r"(?:on|at|as of|as at)\b", lower[span.start:])  # ('in force on 1 january': 'on' is the window's)
    said = _AT_DAY.search((lower[:span.start] + (lead.group(0) if lead else "")).rstrip() + " ")
    if said is None:
        return None
    words_said = said.group(0)
    last = window.end - dt.timedelta(days=1)
    if (window.end - window.start).days > 1 and not re.search(r"\b(?:end|close|start|beginning)\b", words_said):
        return None  # 'active as of 2023' names no day
    day = window.start if re.search(r"\b(?:start|beginning)\b", words_said) else last
    return day, Span(said.start(), span.end, ctx.question[said.start():span.end])


def _resolve_at(ctx: Context, scope: Scope, day: dt.date, said: Span) -> None:
    """The rows valid on `day`, in place of a window on their dates: begun by then, not ended before it (their
    state today, 'active', says nothing of then)."""
    base = ctx.base
    at = day.isoformat()
    if scope.start is not None:
        base.conditions.extend(_valid_at(scope, at))
    else:
        base.conditions.append(_current(scope, at))
    base.window = None
    base.filters = [f for f in base.filters if not (f.entity.table == scope.table and
                                                    {str(v).lower() for v in f.values} <= _STILL_STATES)]
    ctx.extra.setdefault("read", []).append(said)


_STILL_STATES = frozenset({"active", "current", "live", "open", "in force"})


def _resolve_validity(ctx: Context, scope: Scope) -> None:
    """'current', 'right now', 'today' name the current rows; 'ever', 'historically' every row; 'former' the rows
    that left: applied, said in the explanation, and the words count as read."""
    lower = ctx.intent.lower
    former = _FORMER.search(lower) if scope.kind == "left" else None
    if former is not None:  # 'former employees': those who left
        ctx.base.conditions.append(RowCondition(scope.table, scope.column, "not_null",
                                                label=f"{phrase(scope.column)} given"))
    elif (current := _CURRENT.search(lower)) is not None and not (
            current.group(1) == "active" and ctx.base.measure is not None and
            ctx.base.measure.value.startswith("active_")):  # ('users active last week': their events, read)
        as_of = (ctx.as_of or dt.date.today()).isoformat()
        # ('the current unit cost': a price list's row begun by today too, not next week's price)
        ctx.base.conditions.extend(_valid_at(scope, as_of) if scope.start is not None else [_current(scope, as_of)])
        # 'active users': the users' own current rows, not the users of an 'active' row of another table
        ctx.base.filters = [f for f in ctx.base.filters if f.entity.table == scope.table or
                            {str(v).lower() for v in f.values} != {current.group(1)}]
    said = former or _CURRENT.search(lower) or _HISTORY.search(lower)
    if said is not None:
        ctx.extra.setdefault("read", []).append(Span(said.start(), said.end(), ctx.question[said.start():said.end()]))


def _apply(conditions: list[RowCondition]):
    def apply(spec: QuerySpec) -> None:
        spec.conditions.extend(conditions)
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
