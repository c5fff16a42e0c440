"""A table the rows read reach through several others: 'revenue in germany' on lines whose order has a
customer with a country and a store with a country. The shortest path picks one silently (the customer's),
which answers a question about the other as confidently as about the right one. Here each way in is a *role*
(the customer's country, the store's country): a role the question names ('shops in germany', 'revenue by
store') is taken, and otherwise each role is a reading of the `entity` archetype."""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from archetypes.intent import Intent, Span
from archetypes.naming import phrase, words
from archetypes.profile import Edge, SchemaProfile
from archetypes.values import lemma

if TYPE_CHECKING:  # query.py routes through roles: the spec is only a type here
    from archetypes.query import QuerySpec


@dataclass(frozen=True)
class Role:
    """`goal` reached from `start` through `via`: the last table before it, or `table.column` when that table
    has several keys to it (a trip's start station and end station)."""

    via: str
    route: tuple[Edge, ...]

    def label(self, goal: str) -> str:
        edge = self.route[-1]
        return f"the {phrase(goal) or goal} of the {role_name(self.via)} ({edge.table}.{', '.join(edge.columns)})"


_KEY_WORDS = frozenset({"id", "key", "fk", "code", "no"})


def role_name(via: str) -> str:
    """'clients' -> 'client'; 'trips.start_station_id' -> 'start station'."""
    if "." in via:
        return " ".join(w for w in words(via.split(".", 1)[1]) if w not in _KEY_WORDS)
    return phrase(via) or via


def roles(profile: SchemaProfile, start: str, goal: str) -> list[Role]:
    """Every table with a foreign key to `goal` that `start` reaches without passing through `goal`, fewest
    joins first; one role (or none) is no ambiguity."""
    key = ("roles", start, goal)
    if key in profile.cache:
        return profile.cache[key]
    found: list[Role] = []
    if start != goal:
        for table in dict.fromkeys([start, *profile.tables]):
            if table == goal:
                continue
            hops = [e for e in profile.edges.get(table, ()) if e.ref_table == goal and len(e.columns) == 1]
            first = profile.path(start, table)
            if not hops or first is None or any(e.ref_table == goal for e in first):
                continue
            # several keys to the same table from one row ('start station', 'end station') are a role each
            found += [Role(table if len(hops) == 1 else f"{table}.{hop.columns[0]}", first + (hop,)) for hop in hops]
    found.sort(key=lambda r: len(r.route))
    profile.cache[key] = found
    return found


def route(profile: SchemaProfile, start: str, goal: str, via: str | None) -> tuple[Edge, ...] | None:
    """The path from `start` to `goal` through the role `via`, or the shortest path when no role is set."""
    if via is not None:
        chosen = next((r for r in roles(profile, start, goal) if r.via == via), None)
        if chosen is not None:
            return chosen.route
        if start == goal:  # a row's key to its own table ('reports to'): the row it names
            from archetypes.hierarchy import self_edge

            own = self_edge(profile, start)
            if own is not None and via == f"{own.table}.{own.columns[0]}":
                return (own,)
    return profile.path(start, goal)


LEAVING = ("origin", "departure", "source", "from", "outbound", "pickup", "start")
ARRIVING = ("destination", "dest", "arrival", "to", "inbound", "dropoff", "end")
_DIRECTIONS = {**dict.fromkeys(("depart", "departing", "departed", "departs", "leave", "leaving", "leaves",
                                "outbound"), LEAVING),
               **dict.fromkeys(("arrive", "arriving", "arrived", "arrives", "land", "landing", "landed", "lands",
                                "inbound", "bound"), ARRIVING)}


def named_role(intent: Intent, options: list[Role], goal: str) -> Role | None:
    """The role whose table the question names ('shops in germany', 'revenue by shop', 'the tokyo store'), or
    whose key's own words it says ('trips started at': the start station, its goal's noun aside), when exactly
    one is named."""
    tables = {t.entity.table for t in intent.targets if not t.entity.column_only}
    if intent.group is not None:
        tables.add(intent.group.entity.table)
    said = {lemma(w) for w, _, _ in intent.tokens}
    # 'flights departing london': the origin's airport; 'arriving in paris': the destination's
    said |= {role for w in list(said) for role in _DIRECTIONS.get(w, ())}
    noun = {lemma(w) for w in words(goal)}

    def spoken(role: Role) -> bool:
        return "." in role.via and bool({lemma(w) for w in role_name(role.via).split()} - noun) and \
            {lemma(w) for w in role_name(role.via).split()} - noun <= said

    named = [r for r in options if r.via in tables or spoken(r)]
    if len({r.via.split(".")[0] for r in named}) == 1 and len(named) > 1:
        named = [r for r in named if spoken(r)] or named
    return named[0] if len(named) == 1 else None


@dataclass(frozen=True)
class OpenRole:
    """A filter (its index in `spec.filters`) or the group (`index` None) whose role the question leaves open."""

    goal: str
    index: int | None
    options: tuple[Role, ...]


def _ambiguous(profile: SchemaProfile, start: str, goal: str) -> list[Role]:
    found = roles(profile, start, goal)
    coded = {(c.table, c.column) for c in profile.currency_columns}
    if any((r.route[-1].table, r.route[-1].columns[0]) in coded for r in found):
        return []  # an order's currency and its store's are the same money: the unit archetype asks about it
    return found if len(found) > 1 else []


def _from_to(filters: list, intent: Intent, profile: SchemaProfile, start: str) -> list:
    """'loads from laredo to dallas': two values of one column, one after 'from' and one after 'to', each through
    the role whose key says its way (the origin's city, the destination's), not both in either."""
    from dataclasses import replace

    lower = intent.lower
    for flt in filters:
        if flt.via is not None or flt.column is not None or flt.negate:
            continue
        values = [(v, f) for f in filters if f.entity == flt.entity and f.via is None and f.column is None
                  and not f.negate for v in f.values]
        if len(values) != 2:
            continue
        (a, _), (b, _) = values

        def from_to(first: str, second: str) -> bool:
            return re.search(rf"\bfrom\s+(?:the\s+)?{re.escape(first.lower())}\b.*\bto\s+(?:the\s+)?"
                             rf"{re.escape(second.lower())}\b", lower) is not None

        if not from_to(a, b):
            if not from_to(b, a):
                continue
            a, b = b, a
        options = _ambiguous(profile, start, flt.entity.table)
        leaving = [r for r in options if set(role_name(r.via).split()) & set(LEAVING)]
        arriving = [r for r in options if set(role_name(r.via).split()) & set(ARRIVING)]
        if len(leaving) != 1 or len(arriving) != 1:
            continue
        rest = [f for f in filters if not any(f is g for _, g in values)]
        return rest + [replace(flt, values=(a,), via=leaving[0].via), replace(flt, values=(b,), via=arriving[0].via)]
    return filters


def settle(spec: QuerySpec, intent: Intent, profile: SchemaProfile) -> list[OpenRole]:
    """Sets on each filter and on the group the role the question names; returns those it leaves open."""
    from dataclasses import replace

    if spec.fact is None and spec.count_table is None or spec.shape not in ("aggregate", "distribution", "change", "share"):
        return []  # an absence, a list or an attribute reaches its filters from the rows it lists
    start = spec.count_table or (spec.fact.table if spec.fact is not None else "")
    left: list[OpenRole] = []
    filters = _from_to(list(spec.filters), intent, profile, start)
    for index, flt in enumerate(filters):
        if flt.via is not None or flt.column is not None:
            continue
        options = _ambiguous(profile, start, flt.entity.table)
        chosen = named_role(intent, options, flt.entity.table) if options else None
        if chosen is not None:
            filters[index] = replace(flt, via=chosen.via)
            # a share's part is one of the filters: it keeps being the same one
            spec.share_filters = [filters[index] if f is flt else f for f in spec.share_filters]
        elif options:
            left.append(OpenRole(flt.entity.table, index, tuple(options)))
    spec.filters = filters
    group = spec.group
    if group is not None and spec.group_via is None and not group.column_only:
        options = _ambiguous(profile, start, group.table)
        chosen = named_role(intent, options, group.table) if options else None
        if chosen is not None:
            spec.group_via = chosen.via
        elif options:
            left.append(OpenRole(group.table, None, tuple(options)))
    return left


def words_read(spec: QuerySpec, intent: Intent) -> list[Span]:
    """The words that named a key's role ('trips that started at stations in lyon': 'started', the start
    station): read by the role the filter or the group goes through."""
    chosen = [f.via for f in spec.filters if f.via] + ([spec.group_via] if spec.group_via else [])
    wanted = {lemma(w) for via in chosen if "." in via for w in role_name(via).split()}
    return [Span(s, e, intent.question[s:e]) for w, s, e in intent.tokens
            if lemma(w) in wanted or set(_DIRECTIONS.get(lemma(w), ())) & wanted]
