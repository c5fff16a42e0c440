"""A table that is not a fact, counted like one: 'number of tracks per genre', 'artists with over 50 songs'."""
from __future__ import annotations

from typing import TYPE_CHECKING

from archetypes import lexicon
from archetypes.naming import phrase, plural, singular, slug, words
from archetypes.profile import Entity, Fact, Measure, SchemaProfile

if TYPE_CHECKING:
    from archetypes.intent import Intent


def distinct_rows(fact_table: str, table: str, columns: tuple[str, ...]) -> Measure:
    """The distinct rows of `table` a fact's rows point at by `columns` ('how many clients ordered': the
    clients, not their purchases)."""
    noun = plural(phrase(table).split()[-1]) if phrase(table) else "rows"
    return Measure(f"distinct_{slug(noun)}", f"Distinct {noun} with {plural(phrase(fact_table))}", "count_distinct",
                   fact_table, tuple(columns))


def rows_counted(table: str, profile: SchemaProfile) -> tuple[Fact, Measure]:
    """The table's rows as a count measure: its own fact when it is one, else a fact of its rows."""
    if table in profile.facts:
        counted = next((m for m in profile.facts[table].measures if m.kind == "count"), None)
        if counted is not None:
            return profile.facts[table], counted
    info = profile.tables[table]
    noun = phrase(table).split()[-1] if phrase(table) else "rows"
    measure = Measure(slug(plural(noun)), f"Number of {plural(noun)}", "count", table, tuple(info.primary_key[:1]))
    own = profile.facts.get(table)  # a fact with no count of its own keeps its dates: a window still applies
    if own is not None:
        return Fact(table=table, measures=[], time=own.time, time_path=own.time_path, row_count=own.row_count), measure
    return Fact(table=table, measures=[], row_count=info.row_count), measure


def bridge_between(profile: SchemaProfile, counted: str, group: str) -> str | None:
    """A table whose rows point at both (a playlist's tracks): counting its rows counts `counted` per `group`."""
    for table, edges in profile.edges.items():
        targets = {e.ref_table for e in edges}
        if counted in targets and group in targets and table not in (counted, group):
            return table
    return None


def bridges_to(profile: SchemaProfile, table: str) -> bool:
    """Some table links `table`'s rows to rows of another table (a playlist's tracks)."""
    return any(any(e.ref_table == table for e in edges) and any(e.ref_table != table for e in edges)
               for name, edges in profile.edges.items() if name != table)


def header_of(profile: SchemaProfile, fact: Fact) -> str | None:
    """The table a line fact's rows belong to (an order of its items, an invoice of its lines)."""
    for edge in profile.edges.get(fact.table, ()):
        parent = profile.facts.get(edge.ref_table)
        if parent is not None and parent.time_path == () and fact.time_path and fact.time_path[0] == edge:
            return edge.ref_table
    return None


def buyers(profile: SchemaProfile) -> Entity | None:
    """Who spends: the people the money's events point at, one edge away (a first and last name, or a noun
    for people)."""
    for fact in profile.fact_list():
        if not any(x.money for x in fact.measures):
            continue
        header = header_of(profile, fact) or fact.table
        for edge in profile.edges.get(header, ()):
            entity = profile.entities.get(edge.ref_table)
            if entity is not None and (len(entity.name_columns) > 1 or
                                       singular(entity.noun.split()[-1]) in lexicon.PEOPLE_NOUNS):
                return entity
    return None


def rows_of(profile: SchemaProfile, measure: Measure) -> str:
    """The table whose rows a count measure counts (distinct invoice keys on the lines count invoices)."""
    if measure.kind == "count_distinct":
        edge = next((e for e in profile.edges.get(measure.table, ()) if tuple(e.columns) == tuple(measure.columns)),
                    None)
        if edge is not None:
            return edge.ref_table
    return measure.table


def state_rows_counted(profile: SchemaProfile, filters: list) -> tuple[Fact, Measure] | None:
    """The count of the rows a state filter names ('no-shows': visits whose status is no_show), when the filters
    hold one and its table is a fact with a count."""
    state = next((f for f in filters if f.entity.column_only and not f.negate and
                  lexicon.is_state_column(words(f.entity.name_columns[0]))), None)
    holder = profile.facts.get(state.entity.table) if state is not None else None
    counted = next((m for m in holder.measures if m.kind == "count"), None) if holder is not None else None
    return (holder, counted) if holder is not None and counted is not None else None


def verb_facts(intent: Intent, profile: SchemaProfile) -> frozenset[str]:
    """The facts the question's verbs name: by a dated deed ('paid' of paid_at) or by their own noun ('booked' of
    bookings): 'how many members paid' counts the payers, not those who booked."""
    return facts_of_verbs({w for w, _, _ in intent.tokens}, profile)


def facts_of_verbs(said: set[str], profile: SchemaProfile) -> frozenset[str]:
    """The facts these words name as verbs (see verb_facts)."""
    from archetypes.intent import _deed_root, stem, vocabulary

    deeds = vocabulary(profile).deeds
    named = {deeds[_deed_root(w)] for w in said if _deed_root(w) in deeds}
    named |= {f.table for f in profile.fact_list() for w in said if len(w) > 4 and w.endswith("ed") and
              any(stem(w) == stem(n) for n in words(f.table))}
    # irregular verbs: 'sold' of vehicle_sales (or of its sold_at), 'bought' of purchases
    named |= {f.table for f in profile.fact_list() for w in said if w in IRREGULAR_DEEDS and
              (IRREGULAR_DEEDS[w] in {singular(n) for n in words(f.table)} or
               f.time is not None and f.time.table == f.table and w in words(f.time.column))}
    if not named and said & {w for w, noun in IRREGULAR_DEEDS.items() if noun == "sale"}:
        # 'how many beers did we sell': no table of sales by name, so the lines sold at a price (price x quantity)
        named |= {f.table for f in profile.fact_list() if any(m.kind == "product" and m.money for m in f.measures)}
    return frozenset(named)


IRREGULAR_DEEDS = {"sold": "sale", "sell": "sale", "sells": "sale", "selling": "sale", "bought": "purchase",
                    "buy": "purchase", "buys": "purchase"}
