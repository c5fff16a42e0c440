"""A name that matches several distinct rows ('revenue for Acme': three customers) or several columns
('by country': the customer's or the billing country). Options for rows are fetched live."""
from __future__ import annotations

import re

from sqlglot import exp

from archetypes.archetype import Archetype, Context
from archetypes.intent import Span
from archetypes.model import Detection, Reading
from archetypes.naming import phrase
from archetypes.profile import Entity, SchemaProfile
from archetypes.query import EntityFilter, QuerySpec, literal, name_expression, table_ref

ID = "entity"
HEADER = "Which one"
WHEN = ("A name in the request matches several distinct records (three customers called Acme) or several columns "
        "(the customer's country or the billing country).")
ASK = "Which one do you mean?"
REASON = ("Each match is a different set of rows; adding them up or picking one silently gives a number for "
          "something the person did not ask about.")

ALL = "all_matches"
MAX_OPTIONS = 20
_SAFE_TERM = re.compile(r"[^\w\s'&.\-]", re.UNICODE)


def detect(ctx: Context) -> Detection | None:
    found = _row_ambiguity(ctx)
    if found is not None:
        return found
    return _column_ambiguity(ctx)


def _row_ambiguity(ctx: Context) -> Detection | None:
    for span, matches in name_matches(ctx):
        values = sorted({value for _, value in matches}, key=str.lower)
        if len(values) == 1:
            entity = next(e for e, _ in matches)
            ctx.base.filters.append(EntityFilter(entity, (values[0],)))  # one match: not ambiguous, just used
            continue
        if len(values) < 2:
            continue
        readings = [_reading(entity, value) for entity, value in _unique(matches)]
        entities = {e.table: e for e, _ in matches}
        combined_entity = next(iter(entities.values()))
        if len(entities) == 1:
            readings.append(Reading(ALL, f"All {len(values)} matches combined",
                                    _apply(combined_entity, tuple(values))))
        detection = ARCHETYPE.detection(span, readings, kind="query_choice",
                                        question=f"Which '{span.text}' do you mean?",
                                        sql=lookup_query(combined_entity, span.text).sql())
        for reading in readings:
            reading.custom = lambda value, e=combined_entity: _reading(e, value)
        return detection
    return None


def _column_ambiguity(ctx: Context) -> Detection | None:
    intent, base = ctx.intent, ctx.base
    if intent.group is None or base.fact is None:
        return None
    span = intent.group.span
    same = [t.entity for t in intent.targets if t.span == span]
    routes = [(e, ctx.profile.path(base.fact.table, e.table)) for e in same]
    reachable = [(e, r) for e, r in routes if r is not None]
    if len(reachable) < 2:
        return None
    shortest = min(len(r) for _, r in reachable)
    reachable = [(e, r) for e, r in reachable if len(r) <= shortest + 1]
    if len(reachable) < 2:
        return None
    readings = []
    for entity, _ in reachable:
        value = f"{phrase(entity.table)} {' '.join(phrase(c) for c in entity.name_columns)}"
        readings.append(Reading(value, f"{value} ({entity.table}.{entity.name_columns[0]})", _group(entity)))
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}' do you mean?")


def _unique(matches: list[tuple[Entity, str]]) -> list[tuple[Entity, str]]:
    seen: set[str] = set()
    found = []
    for entity, value in sorted(matches, key=lambda m: m[1].lower()):
        if value not in seen:
            seen.add(value)
            found.append((entity, value))
    return found[:MAX_OPTIONS]


def _reading(entity: Entity, value: str) -> Reading:
    return Reading(value, f"{value} ({entity.noun})", _apply(entity, (value,)))


def _apply(entity: Entity, values: tuple[str, ...]):
    def apply(spec: QuerySpec) -> None:
        spec.filters.append(EntityFilter(entity, values))
    return apply


def _group(entity: Entity):
    def apply(spec: QuerySpec) -> None:
        spec.group = entity
    return apply


# -- live name lookups -----------------------------------------------------------------------------

def lookup_query(entity: Entity, term: str) -> exp.Select:
    """SELECT DISTINCT name FROM entity WHERE LOWER(name) LIKE '%term%' (the term is a quoted literal)."""
    name = name_expression(entity, "t0")
    pattern = "%" + _SAFE_TERM.sub("", term.lower()).replace("%", "").replace("_", " ").strip() + "%"
    return (exp.select(exp.alias_(name.copy(), "name", quoted=True)).distinct()
            .from_(table_ref(entity.table, "t0"))
            .where(exp.Like(this=exp.Lower(this=name.copy()), expression=literal(pattern)))
            .order_by(exp.column("name", quoted=True))
            .limit(MAX_OPTIONS + 1))


def name_matches(ctx: Context) -> list[tuple[Span, list[tuple[Entity, str]]]]:
    """Candidate names in the question with the entity rows they match (cached per profile and term)."""
    if "names" in ctx.extra:
        return ctx.extra["names"]
    found = []
    for span in ctx.intent.names:
        term = span.text.strip()
        if len(_SAFE_TERM.sub("", term).strip()) < 2:
            continue
        matches = _matches(ctx.profile, term, ctx.lookup)
        if matches:
            found.append((span, matches))
    ctx.extra["names"] = found
    return found


def _matches(profile: SchemaProfile, term: str, lookup) -> list[tuple[Entity, str]]:
    key = ("names", term.lower(), lookup is not None)
    if key in profile.cache:
        return profile.cache[key]
    needle = term.lower()
    found: list[tuple[Entity, str]] = []
    for entity in profile.entities.values():
        if lookup is not None:
            try:
                rows = lookup(lookup_query(entity, term))
            except Exception:  # noqa: BLE001 - a failed lookup falls back to the sampled values
                rows = None
            if rows is not None:
                found.extend((entity, str(r[0])) for r in rows if r and r[0] is not None)
                continue
        if len(entity.name_columns) == 1:
            column = profile.tables[entity.table].column(entity.name_columns[0])
            if column is not None:
                found.extend((entity, s) for s in column.samples if needle in s.lower())
    profile.cache[key] = found
    return found


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
