"""From a question to detections and interpretations: the two entry points the pipeline calls."""
from __future__ import annotations

import datetime as dt
import itertools

from adapters.errors import InputError
from adapters.safety import MAX_QUESTION_BYTES, decode_input
from archetypes.archetype import Context
from archetypes.errors import UnknownAnswerError
from archetypes.expand import apply_mappings
from archetypes.intent import Intent, read
from archetypes.model import Analysis, Detection, Interpretation, Reading
from archetypes.naming import phrase, plural, slug
from archetypes.profile import Fact, Lookup, Measure, SchemaProfile
from archetypes.query import RANKING_LIMIT, QuerySpec, build
from archetypes.registry import ARCHETYPES
from archetypes.unit import mixed_note

DEFAULT_CAP = 8
FREE_TEXT_ANSWERS = frozenset({"entity"})
SURVIVES_INSUFFICIENT = frozenset({"insufficient_info", "custom_visualization"})  # a typed value is embedded as a literal ("Other")


def detect(question: str, profile: SchemaProfile, lookup: Lookup | None = None, *,
           as_of: dt.date | None = None) -> list[Detection]:
    """The archetypes the question fires, in registry order. Fast: no database access except the
    entity archetype's cached name lookups."""
    return _detect(_context(question, profile, lookup, as_of))


def analyse(question: str, profile: SchemaProfile, lookup: Lookup | None = None,
            answers: dict[str, str] | None = None, as_of: dt.date | None = None,
            cap: int = DEFAULT_CAP) -> Analysis:
    """Detections plus one interpretation (with its candidate query) per combination of readings."""
    ctx = _context(question, profile, lookup, as_of)
    detections = _detect(ctx)
    anchor = ctx.as_of or dt.date.today()
    analysis = Analysis(question=ctx.question, as_of=anchor, detections=detections, interpretations=[])
    chosen = _answer(detections, answers or {})
    blocking = [d for d in detections if d.archetype == "insufficient_info"]
    if blocking:
        analysis.notes.append("the question does not say what data to use: " + blocking[0].clarification.question)
        return analysis
    axes = [(d, chosen.get(d.archetype, d.readings)) for d in detections if d.readings]
    total = 1
    for _, readings in axes:
        total *= len(readings)
    cap = max(1, int(cap))
    analysis.total_readings = total
    analysis.capped = total > cap
    if analysis.capped:
        analysis.notes.append(f"{total} combinations of readings; showing the first {cap}")
    if ctx.base.fact is None and ctx.base.count_table is None and ctx.base.query is None:
        analysis.notes.append("no fact table in this schema matches the question; nothing to run")
    combos = _combinations([readings for _, readings in axes], total, cap)
    seen_notes = set(analysis.notes)
    for combo in combos:
        spec = ctx.base.copy()
        for reading in combo:
            if reading.apply is not None:
                reading.apply(spec)
        query = build(spec, profile, anchor)
        if query is not None and spec.mappings:
            query = apply_mappings(query, spec.mappings, profile.tables) or query
        money = mixed_note(spec, profile)
        if money:
            spec.notes.append(money)
        for note in spec.notes:
            if note not in seen_notes:
                seen_notes.add(note)
                analysis.notes.append(note)
        if query is None:
            continue
        pairs = [(d.archetype, r) for (d, _), r in zip(axes, combo)]
        analysis.interpretations.append(Interpretation(
            id="|".join(f"{a}={slug(r.value)}" for a, r in pairs) or "as_asked",
            label=" / ".join(r.label for _, r in pairs) or "As asked",
            choices={a: r.value for a, r in pairs},
            query=query))
    if not analysis.interpretations and not any("nothing to run" in n for n in analysis.notes):
        analysis.notes.append("no candidate SQL could be built for this question")
    return analysis


def _combinations(axes: list[list[Reading]], total: int, cap: int) -> list[tuple[Reading, ...]]:
    """The first `cap` combinations, coverage first: the first reading of every archetype together, then
    each other reading once (the rest at their first), then pairs of changes, ... So a capped set still shows
    every reading of every archetype whenever 1 + sum(len - 1) <= cap."""
    if total > 20_000:
        return list(itertools.islice(itertools.product(*axes), cap))
    indexes = sorted(itertools.product(*[range(len(a)) for a in axes]),
                     key=lambda combo: (sum(1 for i in combo if i), combo))
    return [tuple(axis[i] for axis, i in zip(axes, combo)) for combo in indexes[:cap]]


def _context(question: str, profile: SchemaProfile, lookup: Lookup | None, as_of: dt.date | None) -> Context:
    if not isinstance(question, (str, bytes)):
        raise InputError("question must be text")
    text = decode_input(question, what="question", limit=MAX_QUESTION_BYTES).strip()
    anchor = as_of or profile.as_of
    intent = read(text, profile, anchor)
    return Context(question=text, intent=intent, profile=profile, lookup=lookup, as_of=anchor,
                   base=base_spec(intent, profile))


def _detect(ctx: Context) -> list[Detection]:
    found: list[Detection] = []
    for archetype in ARCHETYPES:
        detection = archetype.detect(ctx)
        if detection is not None:
            found.append(detection)
    if any(d.archetype == "schema_mapping" for d in found):
        # a word of the question maps onto the schema (twice): there is something to run it on
        found = [d for d in found if d.archetype != "insufficient_info"]
    if any(d.archetype == "insufficient_info" for d in found):
        # nothing known to run on: the other shapes are about data the question does not have
        found = [d for d in found if d.archetype in SURVIVES_INSUFFICIENT]
    return found


def _answer(detections: list[Detection], answers: dict[str, str]) -> dict[str, list[Reading]]:
    chosen: dict[str, list[Reading]] = {}
    by_id = {d.archetype: d for d in detections}
    for archetype, value in answers.items():
        detection = by_id.get(archetype)
        if detection is None:
            raise UnknownAnswerError(archetype, str(value), [])
        reading = detection.reading(str(value))
        if reading is None and archetype in FREE_TEXT_ANSWERS and str(value).strip():
            factory = next((r.custom for r in detection.readings if r.custom is not None), None)
            reading = factory(str(value)) if factory else None
        if reading is None:
            raise UnknownAnswerError(archetype, str(value), [r.value for r in detection.readings])
        chosen[archetype] = [reading]
    return chosen


def base_spec(intent: Intent, profile: SchemaProfile) -> QuerySpec:
    """The straightforward reading of the question, before any archetype's readings apply."""
    spec = QuerySpec(window=intent.window)
    if intent.group is not None:
        spec.group = intent.group.entity
    if intent.ranking is not None or (intent.explicit_measure and intent.group is not None):
        spec.limit = intent.top_n or RANKING_LIMIT
    group_table = spec.group.table if spec.group else None
    if intent.how_many is not None and not (intent.group is not None and intent.explicit_measure):
        table = intent.how_many[0]
        if table in profile.facts:
            fact = profile.facts[table]
            count = next((m for m in fact.measures if m.kind == "count"), None)
            if count is not None:
                spec.fact, spec.measure = fact, count
        if spec.measure is None:
            spec.count_table = table
    if spec.measure is None and spec.count_table is None and (intent.explicit_measure or "").startswith("count:"):
        table = intent.explicit_measure.split(":", 1)[1]
        if table in profile.facts:
            counted = next((m for m in profile.facts[table].measures if m.kind == "count"), None)
            if counted is not None:
                spec.fact, spec.measure = profile.facts[table], counted
        if spec.measure is None and table in profile.tables:
            info = profile.tables[table]
            spec.fact = Fact(table=table, measures=[], row_count=info.row_count)
            noun = phrase(table).split()[-1] if phrase(table) else "rows"
            spec.measure = Measure(slug(plural(noun)), f"Number of {plural(noun)}", "count", table,
                                   tuple(info.primary_key[:1]))
    if spec.measure is None and spec.count_table is None:
        wanted = intent.explicit_measure or next(
            (m.value for m, _ in intent.measures if m.kind in ("product", "sum", "expression")), None) or next(
            (m.value for m, _ in intent.measures), None)
        found = profile.measure(wanted, group_table) if wanted else None
        if found is None:
            options = profile.measures_reaching(group_table)
            primary = profile.primary_fact()
            found = next(((f, m) for f, m in options if primary and f.table == primary.table), None) or (
                options[0] if options else None)
        if found is not None:
            spec.fact, spec.measure = found
    if intent.grain is not None:
        unit = intent.grain[0]
        if unit == "week":
            spec.grain = "week_iso"
        elif unit in ("weekday", "hour"):
            spec.grain = unit
        elif intent.grain_fiscal and (profile.fiscal or profile.fiscal_year_start):
            spec.grain = {"month": "fy_period", "quarter": "fy_quarter", "year": "fy_year"}.get(unit, unit)
        else:
            spec.grain = unit
    return spec
