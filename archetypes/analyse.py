"""From a question to detections and interpretations: the two entry points the pipeline calls."""
from __future__ import annotations

import datetime as dt
import itertools
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeVar

import simplemma
from sqlglot import exp

from adapters.errors import InputError
from adapters.safety import MAX_QUESTION_BYTES, decode_input
from adapters.schema import TableInfo
from archetypes import calendar, lexicon, roles, versus
from archetypes.archetype import Context
from archetypes.counted import bridge_between, bridges_to, distinct_rows, rows_counted, rows_of, verb_facts
from archetypes.duration_reader import DAYS_BETWEEN, computes_duration, units_of_rows
from archetypes.errors import UnknownAnswerError
from archetypes.expand import apply_mappings
from archetypes.explain import explain
from archetypes.grounding import OperatorMention, ValueMention, account, operator_mentions, value_mentions
from archetypes.intent import Intent, Span, Target, by_agent, catalogue, read, scope_noun, stem, vocabulary
from archetypes.model import Analysis, Detection, Interpretation, ReadAsSpan, Reading
from archetypes.naming import phrase, plural, same_root, singular, slug, words
from archetypes.profile import Entity, Fact, Lookup, Measure, SchemaProfile
from archetypes.profile.model import TimeColumn
from archetypes.query import MAX_CALENDAR_ROWS, RANKING_LIMIT, EntityFilter, QuerySpec, build, reading_key
from archetypes.registry import ARCHETYPES, ORDER
from archetypes.respell import Respelt, respell
from archetypes.shape_reader import ShapeRead, read_shape
from archetypes.status_words import open_or_unfinished, rate_of_settled, state_or_date, undated_state
from archetypes.unit import mixed_note
from archetypes.values import ValueRef, kinds_holding, territories_holding, value_key

DEFAULT_CAP = 8
_E = TypeVar("_E", bound=exp.Expr)
FREE_TEXT_ANSWERS = frozenset({"entity"})
SURVIVES_INSUFFICIENT = frozenset({"insufficient_info", "custom_visualization"})  # a typed value is embedded as a literal ("Other")


@dataclass
class Grounded:
    """What the question was read as, beyond the reader's spans: values applied as filters, values that
    name several columns (an entity ambiguity), operators, and the analytic shape."""

    values: list[ValueMention] = field(default_factory=list)
    applied: list[tuple[ValueMention, ValueRef]] = field(default_factory=list)
    ambiguous: list[tuple[ValueMention, list[ValueRef]]] = field(default_factory=list)
    # a kind named that other kinds' names hold ('metal': Metal, and Heavy Metal): the one, or all of them
    wider: list[tuple[ValueMention, ValueRef, tuple[str, ...]]] = field(default_factory=list)
    # a country named whose territories are rows of their own ('the us': Puerto Rico too?)
    territories: list[tuple[ValueMention, ValueRef, tuple[str, ...]]] = field(default_factory=list)
    operators: list[OperatorMention] = field(default_factory=list)
    shape: ShapeRead = field(default_factory=ShapeRead)
    unread: list[tuple[Span, str]] = field(default_factory=list)
    flags: list[Span] = field(default_factory=list)      # yes/no columns named, applied as conditions
    # a status word said as the verb of its events ('booked' of bookings): read where a reading reads those events
    event_verbs: list[tuple[Span, str]] = field(default_factory=list)


def detect(question: str, profile: SchemaProfile, lookup: Lookup | None = None, *,
           as_of: dt.date | None = None) -> list[Detection]:
    """The archetypes the question fires, in registry order. Fast: no database access except the
    entity archetype's cached name lookups."""
    ctx = _context(question, profile, lookup, as_of)
    return [_detection_as_typed(d, ctx.extra["respelt"]) for d in _detect(ctx)]


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
        analysis.understood = _understood(ctx, detections, analysis)
        return _as_typed(analysis, ctx.extra["respelt"])
    axes = [(d, chosen.get(id(d), d.readings)) for d in detections if d.readings]
    total = 1
    for _, readings in axes:
        total *= len(readings)
    cap = max(1, int(cap))
    if ctx.base.fact is None and ctx.base.count_table is None and ctx.base.query is None and \
            ctx.base.shape == "aggregate":
        analysis.notes.append("no fact table in this schema matches the question; nothing to run")
    candidates = _candidates(ctx, axes, total)
    analysis.total_readings = len(candidates)
    seen_notes = set(analysis.notes)
    from archetypes.unit import codes_in_scope

    # the rows asked about hold one currency code: no mixed sum to note (one cached lookup, and only where
    # money is summed over several codes: the note is about nothing else)
    fact, measure = ctx.base.fact, ctx.base.measure
    mixed = fact is not None and measure is not None and measure.money and \
        (found := profile.currency_for(fact, measure)) is not None and len(found[0].codes) > 1
    scope = codes_in_scope(ctx) if mixed else None
    built = _build_covering(candidates, cap, profile, anchor, one_currency=scope is not None and len(scope) <= 1)
    analysis.capped = len(candidates) > len(built) and len(built) >= cap
    if analysis.capped:
        analysis.notes.append(f"{len(candidates)} readings; showing {cap}, at least one for every value of every "
                              "archetype where the cap allows")
    seen_notes = set(analysis.notes)
    for pairs, spec, query, notes in built:
        for note in notes:
            if note not in seen_notes:
                seen_notes.add(note)
                analysis.notes.append(note)
        reading_id = "|".join(f"{a}={slug(r.value)}" for a, r in pairs) or "as_asked"
        taken = {i.id for i in analysis.interpretations}
        if reading_id in taken:  # 'Maria Garcia' and 'María García' slug alike: results are kept by id
            reading_id = next(f"{reading_id}~{n}" for n in range(2, len(taken) + 3) if f"{reading_id}~{n}" not in taken)
        analysis.interpretations.append(Interpretation(
            id=reading_id,
            label=" / ".join(r.label for _, r in pairs) or "As asked",
            choices=_choices(pairs),
            query=query, explanation=explain(spec, profile, anchor), lists=_lists(spec),
            side_by_side=len(spec.sides), top_n=_top_n(ctx.intent, spec)))
    if not analysis.interpretations and not any("nothing to run" in n for n in analysis.notes):
        analysis.notes.append("no candidate SQL could be built for this question")
    if not analysis.capped and analysis.interpretations:
        analysis.detections = [d for d in detections if not _one_left(d, analysis, chosen)]
    analysis.understood = _understood(ctx, detections, analysis)
    outside = _window_outside_data(ctx)
    if outside is not None and outside not in analysis.notes:
        analysis.notes.append(outside)
    return _as_typed(analysis, ctx.extra["respelt"])


def _names_data(word: str, profile: SchemaProfile, lookup: Lookup | None) -> bool:
    """A word that is a value of the data or a word of a row's name ('chang': the tea Chang), never a typo."""
    from archetypes.entity import _matches
    from archetypes.values import value_vocabulary

    if any(word in key for key in value_vocabulary(profile).by_key):
        return True
    pattern = re.compile(r"(?<!\w)" + re.escape(word) + r"(?!\w)")
    return lookup is not None and any(pattern.search(m.name.lower()) for m in _matches(profile, word, lookup))


def _as_typed(analysis: Analysis, respelt: Respelt) -> Analysis:
    """The analysis of the question as read, told in the words typed: spans and evidence of the question typed,
    and each respelt word said ("'97" read as 1997)."""
    if not respelt.changes:
        return analysis
    typed = respelt.typed

    def span(start: int, end: int) -> tuple[int, int]:
        return respelt.typed_span(start, end)

    analysis.question = typed
    analysis.detections = [_detection_as_typed(d, respelt) for d in analysis.detections]
    understood = analysis.understood
    ignored = tuple(replace(i, span=(a, b), text=typed[a:b]) for i in understood.ignored
                    for a, b in [span(*i.span)])
    read_as = tuple(replace(r, span=(a, b), text=typed[a:b]) for r in understood.read_as
                    for a, b in [span(*r.span)])
    said = tuple(ReadAsSpan(c.typed, (c.start, c.end), c.word) for c in respelt.changes
                 if not any(i.span[0] <= c.start < i.span[1] for i in ignored))
    analysis.understood = replace(understood, ignored=ignored, read_as=read_as + said)
    return analysis


def _detection_as_typed(detection: Detection, respelt: Respelt) -> Detection:
    if not respelt.changes:
        return detection
    start, end = respelt.typed_span(*detection.span)
    return replace(detection, span=(start, end), evidence=respelt.typed[start:end])


def _window_outside_data(ctx: Context) -> str | None:
    """'clients who signed up in 2024' when every sign-up date is in 2022-2023: 0 is the answer, and why."""
    base, profile = ctx.base, ctx.profile
    if base.window is None or base.fact is None or base.fact.time is None:
        return None
    time = base.fact.time
    known = next((f.time for f in profile.fact_list() if f.time is not None and
                  (f.time.table, f.time.column) == (time.table, time.column) and f.time.latest is not None), None)
    if known is None or known.earliest is None or known.latest is None:
        return None
    if base.window.start <= known.latest.date() and known.earliest.date() < base.window.end:
        return None
    rows = plural(phrase(time.table).split()[-1])
    return (f"no {phrase(time.table).split()[-1]} has a {phrase(time.column)} in this window: the {rows}' "
            f"{phrase(time.column)} runs from {known.earliest.date()} to {known.latest.date()}")



def _choices(pairs: list[tuple[str, Reading]]) -> dict[str, str]:
    """Each archetype's reading value; two of one archetype ('last month' and 'new', both timeframes) joined by a
    comma, the way `--answer` takes them back."""
    out: dict[str, str] = {}
    for archetype, reading in pairs:
        out[archetype] = f"{out[archetype]},{reading.value}" if archetype in out else reading.value
    return out


def _one_left(detection: Detection, analysis: Analysis, chosen: dict[int, list[Reading]]) -> bool:
    """A choice of which one reading alone could be built ('the listed price per month': a catalogue has no
    months): no choice left to ask about. Not one the person made."""
    if id(detection) in chosen or len(detection.readings) < 2:
        return False
    return len(analysis.interpretations) == 1 and detection.archetype in analysis.interpretations[0].choices


def _lists(spec: QuerySpec) -> bool:
    """A reading whose answer is a list of rows: none is an answer ('nobody has exactly two visits')."""
    if spec.shape == "list" or spec.shape == "absence" and not spec.absent_count and not spec.absent_share:
        return True
    return spec.having is not None and not spec.count_groups and not spec.share_groups


_Candidate = tuple[list[tuple[str, Reading]], QuerySpec]


def _candidates(ctx: Context, axes: list[tuple[Detection, list[Reading]]], total: int) -> list[_Candidate]:
    """Every combination of readings as a spec. A reading that changes nothing next to the others (a
    currency treatment of a count) is left out of its label; combinations that end up the same reading, or
    that a reading declares not to apply, are dropped."""
    out: list[_Candidate] = []
    seen: set[str] = set()
    shown: dict[tuple[int, ...], str] = {}  # each combination's spec as text, written once (by reading identity)

    def text(combo: tuple[Reading, ...], spec: QuerySpec | None = None) -> str:
        key = tuple(map(id, combo))
        if key not in shown:
            shown[key] = repr(spec if spec is not None else _applied(ctx.base, combo))
        return shown[key]

    limit = 20_000 if total <= 20_000 else 64
    dated: dict[str, Fact] = {}  # a fact a reading switched to, dated as the question says (once per table)
    for combo in itertools.islice(itertools.product(*[readings for _, readings in axes]), limit):
        spec = _applied(ctx.base, combo)
        if spec.invalid:
            continue
        if (spec.window is not None or spec.change is not None or spec.weekdays or spec.grain or
                spec.time_part is not None) and spec.fact is not None and \
                spec.fact.time is not None and ctx.base.fact is not None and spec.fact.table != ctx.base.fact.table:
            # 'which month had the most cancellations', counted: the subscriptions by the day they ended
            if spec.fact.table not in dated:
                dated[spec.fact.table] = _dated_as_said(ctx.intent, ctx.profile, spec.fact)
            spec.fact = dated[spec.fact.table]
        key = text(combo, spec)
        if key in seen:
            continue
        seen.add(key)
        pairs = [(detection.archetype, reading) for index, ((detection, readings), reading)
                 in enumerate(zip(axes, combo)) if _matters(text, combo, index, readings)]
        out.append((pairs, spec))
    return out


def _applied(base: QuerySpec, combo: tuple[Reading, ...]) -> QuerySpec:
    spec = base.copy()
    for reading in combo:
        if reading.apply is not None:
            reading.apply(spec)
    _one_filter_per_column(spec)
    return spec


def _one_filter_per_column(spec: QuerySpec) -> None:
    """'revenue from rock and jazz', a value named and another added by a reading: one row holds one value of a
    column, so two values of it are either one (never both at once, which no row is: a total of 0); values named
    twice over ('video files, the mpeg-4 ones') are those in both."""
    if spec.each_value:
        return  # 'both rock and jazz': each value in rows of its own (archetypes.shapes)
    merged: list[EntityFilter] = []
    for flt in spec.filters:
        same = next((i for i, g in enumerate(merged) if not flt.negate and not g.negate and g.entity == flt.entity
                     and g.column == flt.column and g.via == flt.via and g.shown is None and flt.shown is None), None)
        if same is None:
            merged.append(flt)
            continue
        old = merged[same]
        common = tuple(v for v in old.values if v in flt.values)  # ('video files, the mpeg-4 ones': those of both)
        merged[same] = replace(old, values=common or tuple(dict.fromkeys(old.values + flt.values)))
        spec.share_filters = [merged[same] if f is old or f is flt else f for f in spec.share_filters]
        spec.share_against = [merged[same] if f is old or f is flt else f for f in spec.share_against]
    spec.filters = merged


def _matters(text: Callable[[tuple[Reading, ...]], str], combo: tuple[Reading, ...], index: int,
             readings: list[Reading]) -> bool:
    """Whether this archetype's choice changes anything next to the others' (a currency treatment does not
    change a count of units); `text` writes a combination's spec."""
    if len(readings) < 2:
        return True
    seen = {text(combo[:index] + (other,) + combo[index + 1:]) for other in readings}
    return len(seen) > 1


def _build_covering(candidates: list[_Candidate], cap: int, profile: SchemaProfile, anchor: dt.date,
                    one_currency: bool = False) -> list[tuple[list[tuple[str, Reading]], QuerySpec, exp.Query, list[str]]]:
    """Up to `cap` readings built, coverage first: every value of every archetype once when the cap allows,
    then the rest in order. Only the readings shown are built."""
    order: list[int] = []
    covered: set[tuple[str, str]] = set()
    for index, (pairs, _) in enumerate(candidates):
        values = {(a, r.value) for a, r in pairs}
        if values - covered:
            order.append(index)
            covered |= values
    # then the combinations nearest the first readings: a second departure from them before a third
    firsts: dict[str, str] = {}
    for pairs, _ in candidates[:1]:
        firsts = {a: r.value for a, r in pairs}
    rest = [i for i in range(len(candidates)) if i not in set(order)]
    order += sorted(rest, key=lambda i: sum(r.value != firsts.get(a) for a, r in candidates[i][0]))
    built: list[tuple[list[tuple[str, Reading]], QuerySpec, exp.Query, list[str]]] = []
    sql_seen: set[tuple[str, tuple[object, ...]]] = set()
    for index in order:
        if len(built) >= cap:
            break
        pairs, spec = candidates[index]
        spec = spec.copy()
        query = build(spec, profile, anchor)
        if query is not None and spec.mappings:
            query = apply_mappings(query, spec.mappings, profile.tables) or query
        money = None if one_currency else mixed_note(spec, profile)
        if money:
            spec.notes.append(money)
        if query is None:
            continue
        key = reading_key(query)  # the statement as written, cheaper (a series' calendar keyed by its rows)
        if key in sql_seen:
            continue
        sql_seen.add(key)
        built.append((pairs, spec, query, list(spec.notes)))
    built.sort(key=lambda item: order.index(next(i for i, c in enumerate(candidates) if c[0] is item[0])))
    return built


# figures of a trade that read like words the rules know ('sell', 'loss') but that no reading computes: said unread
_NOT_COMPUTED = re.compile(r"\b(?:sell[- ]?through|sold[- ]out|loss[- ]ratio|load[- ]factor|occupancy|utili[sz]ation|"
                           r"take[- ]rate)\b")


def _unreflected(ctx: Context, analysis: Analysis, read: list[Span]) -> list[tuple[Span, str]]:
    """Schema words no reading uses: 'status' read as a column, but every reading sums revenue. A word that
    names a table or column must appear in some reading's SQL, or it was not read."""
    from archetypes.intent import vocabulary
    from archetypes.lexicon import FACT_WORDS, FUNCTION_WORDS, OPERATORS, TIME_WORDS
    from archetypes.naming import singular, words

    if not analysis.interpretations:
        return []
    # each reading's nodes listed once, in the order `find_all` walks them: a dozen questions are asked of
    # every tree below, and a series' calendar is hundreds of nodes (a walk each was a fifth of the analysis)
    trees = [_Walked(i.query) for i in analysis.interpretations]
    used: set[str] = set()
    for tree in trees:
        for node in tree.find_all(exp.Table, exp.Column):
            used.update(singular(w) for w in words(node.name))
    if ctx.intent.window_span is not None and ctx.intent.window is not None and ctx.base.change is None and not any(
            _bounds(str(node.this), ctx.intent.window) for tree in trees
            for node in tree.find_all(exp.Literal) if node.is_string):
        # a window no reading applies: the rows counted carry no date the window could bound
        out_window = [(ctx.intent.window_span, "no date of the rows read bounds this window")]
    else:
        out_window = []
    if ctx.intent.grain is not None and not ctx.base.weekdays and all(tree.find(exp.Group) is None for tree in trees) \
            and not re.match(r"\s*active\b", ctx.intent.lower[ctx.intent.grain[1].end:]):  # ('weekly active users')
        # 'how many pets were born each year' counted every pet: no reading breaks the figure down by the period
        out_window.append((ctx.intent.grain[1], "no reading breaks the figure down by it"))
    measured = [s for _, s in ctx.intent.measures]
    vocab = vocabulary(ctx.profile)
    identifiers = {singular(w) for name, table in ctx.profile.tables.items()
                   for ident in [name] + [c.name for c in table.columns] for w in words(ident)}
    out: list[tuple[Span, str]] = list(out_window)
    ranked = ctx.intent.superlative or (ctx.intent.ranking if ctx.intent.group is not None else None)
    if ranked is not None and not any(_ranks(tree) for tree in trees):
        # 'which five albums earned the least' summed everything: the superlative was read, nothing ranks
        out.append((ranked, "no reading ranks anything by it"))
    asked = _WHICH_ROWS.match(ctx.intent.lower)
    head = next((t for t in ctx.intent.targets if asked is not None and t.span.start == asked.start(1) and
                 not t.entity.column_only), None)
    if head is not None and asked is not None and all(tree.find(exp.Group, exp.Order, exp.Window) is None
                                                      for tree in trees):
        # 'which of our shops take dollars' summed all revenue: rows were asked for, one figure answers
        out.append((Span(asked.start(), head.span.end, ctx.question[asked.start():head.span.end]),
                    f"asks which {plural(head.entity.noun)}, while every reading gives one figure"))
    figures = _FIGURES_ASKED.search(ctx.intent.lower)
    figure_said = bool(ctx.intent.measures or ctx.intent.money or ctx.intent.how_many)
    if figures is not None and (not figure_said or all(tree.find(exp.AggFunc) is None for tree in trees)):
        # 'show me the electric bike numbers' listed the bikes, or summed whatever money they hold: figures were
        # asked for without saying which
        out.append((Span(figures.start(1), figures.end(1), ctx.question[figures.start(1):figures.end(1)]),
                    "asks for figures without saying which" if not figure_said else
                    "asks for figures, while every reading lists rows"))
    window_said = ctx.intent.window_span
    both = re.search(r"\bboth\s+(?:in\s+|during\s+)?$", ctx.intent.lower[:window_said.start]) \
        if window_said is not None and " and " in window_said.text.lower() else None
    if both is not None:  # 'ordered in both january and february': in each one, not in either (one range)
        out.append((Span(both.start(), both.start() + 4, ctx.question[both.start():both.start() + 4]),
                    "rows in each of two periods are not computed, only in either"))
    in_values = ctx.extra.get("value_spans") or []

    def said_of_something_else(at: int) -> bool:
        """The word at `at` is inside a value ('cancelled by riders') or a name the question said."""
        return any(v.start <= at < v.end for v in in_values) or any(n.start <= at < n.end for n in ctx.intent.names)

    if ctx.intent.partition is None and not any(tree.find(exp.Div, exp.Avg) is not None for tree in trees):
        # ('top 5 tracks per playlist': a ranking within each, said unread elsewhere when not built)
        # 'the highest defect qty per run' ranked plants by their total: a figure per row of a table, which no
        # reading divides by, is not read (a breakdown 'per plant' is, when some reading groups by it)
        grouped_spans = [t.span for t in (ctx.intent.group, ctx.intent.also_group) if t is not None]
        for m in re.finditer(r"\bper\s+([a-z]+)", ctx.intent.lower):
            spot = Span(m.start(), m.end(1), ctx.question[m.start():m.end(1)])
            if vocab.tables.get((singular(m.group(1)),)) is None or said_of_something_else(m.start(1)) or \
                    any(g.start <= m.start(1) < g.end or g.start == m.end(1) + 1 for g in grouped_spans) or \
                    any(_grouped_by(trees, t.entity, ctx.profile) for t in ctx.intent.targets
                        if t.span.start <= m.start(1) < t.span.end):
                continue
            out.append((spot, f"a figure per {m.group(1)}, which no reading divides by"))
    for m in units_of_rows(ctx.intent.lower, ctx.profile):
        if not any(computes_duration(i.query) for i in analysis.interpretations):
            # 'average downtime hours per machine': the hours the rows span, which no reading computes
            out.append((Span(m.start(), m.end(), ctx.question[m.start():m.end()]), "no reading computes these hours"))
    for m in _NOT_COMPUTED.finditer(ctx.intent.lower):
        if not set(words(m.group(0))) <= vocab.known:  # (a column of that name is read like any other)
            out.append((Span(m.start(), m.end(), ctx.question[m.start():m.end()]), "a figure the rules do not compute"))
    if all(tree.find(exp.Group, exp.Window) is None for tree in trees):
        # 'listings by seller' where the sellers are no table of names the rules know: a breakdown by a table's
        # noun that no reading groups by is not read, whatever else its words are
        for m in re.finditer(r"\b(?:by|each|for each|for every)\s+([a-z]+)", ctx.intent.lower):
            table = vocab.tables.get((singular(m.group(1)),))
            spot = Span(m.start(1), m.end(1), ctx.question[m.start(1):m.end(1)])
            if table is None or said_of_something_else(spot.start) or \
                    any(t.span.start <= spot.start < t.span.end for t in ctx.intent.targets) or \
                    m.group(0).startswith("by ") and by_agent(ctx.intent.lower, m.start(), m.end(1)):
                continue
            out.append((spot, f"asked by {m.group(1)}, which no reading groups by"))
    for grouped in _breakdowns(ctx.intent):
        if any(v.start <= grouped.span.start and grouped.span.end <= v.end for v in in_values):
            continue  # 'trips cancelled by riders': the words of the state cancelled_by_rider, no breakdown
        if not _grouped_by(trees, grouped.entity, ctx.profile):
            out.append((grouped.span, f"asked by {grouped.entity.noun}, which no reading groups by"))
    read_tables = {t.name for tree in trees for t in tree.find_all(exp.Table)}
    values = ctx.extra.get("value_spans") or []
    for target in ctx.intent.targets:
        if any(v.start <= target.span.start and target.span.end <= v.end for v in values):
            continue  # 'shops in the states': a word of a value read ('the states' is the country), not a column
        table_words = {singular(w) for w in words(target.entity.table)}
        column_words = {singular(w) for c in target.entity.name_columns for w in words(c)}
        pointed = any(len(ctx.profile.path(t, target.entity.table) or ()) == 1 for t in read_tables
                      if t in ctx.profile.tables)  # the lines read point at it: its units are counted
        if not (table_words | column_words) & used and not pointed:
            out.append((target.span, f"read as {target.entity.noun}, which no reading uses"))
    from archetypes.grounding import agent_verb_table

    for word, start, end in ctx.intent.tokens:
        # 'who supplies them' with no reading reading the suppliers: the verb of a table's doer, not used
        doer = agent_verb_table(word, ctx.profile) if word not in vocab.known and singular(word) not in vocab.known \
            else None
        if doer is not None and doer not in read_tables and not any(v.start <= start < v.end for v in values):
            out.append((Span(start, end, ctx.question[start:end]), f"read as {phrase(doer)}, which no reading uses"))
    summed = any(tree.find(exp.Sum, exp.Avg, exp.Min, exp.Max) is not None for tree in trees)
    shaped = ctx.grounding.shape.read  # ('total units on order': 'order' is a word of the column's name, read)
    for measure, span in ctx.intent.measures:
        if any(r.start <= span.start and span.end <= r.end and (r.start, r.end) != (span.start, span.end)
               for r in shaped):
            continue
        # 'the highest repair cost' ranked by the number of repairs: a figure named while every reading counts
        currency = ctx.intent.currency
        in_currency = currency is not None and currency.start <= span.start < currency.end  # 'in dollars'
        if not summed and not in_currency and measure.kind in ("sum", "product", "expression") and \
                measure.columns and not any(singular(w) in used for c in measure.columns for w in words(c)) and \
                not all(singular(w) in used for w in words(span.text)):  # 'unit' of the unit price ranked by
            out.append((span, "names a figure no reading computes"))
        elif measure.kind in ("count", "count_distinct") and not any(
                ctx.profile.path(t, rows_of(ctx.profile, measure)) is not None for t in read_tables
                if t in ctx.profile.tables):  # nothing read is those rows or points at them
            # 'how many clients opened a ticket in may' counted clients who signed up in may: no ticket read
            out.append((span, f"names the {plural(phrase(rows_of(ctx.profile, measure)))}, which no reading reads"))
    if not read_tables & set(ctx.profile.facts):
        # 'how many sales reps do we have' counted every employee: no reading reads a sale ('the cheapest laptop
        # we sell' is the catalogue: the present verb offers, 'sales' and 'sold' happened)
        # ('our sales rep steve': the word qualifies people a name already picks, so it changes no answer)
        picked = {f.entity.table for f in ctx.base.filters if not f.negate} | \
            {ref.table for _, ref in ctx.grounding.applied}
        named_people = [t.span for t in ctx.intent.targets if t.entity.table in picked and len(t.span.text.split()) > 1]
        out += [(Span(start, end, ctx.question[start:end]), "no reading reads any sale or event")
                for word, start, end in ctx.intent.tokens
                if word in ("sales", "sale", "sold") and not any(v.start <= start < v.end for v in values + named_people)][:1]
    for word, start, end in ctx.intent.tokens:
        # 'how many paying students' counted students with enrollments: the verb names a table of events
        # (payments) that no reading reads
        if word not in FACT_WORDS or not word.endswith(("ing", "ed")) or any(v.start <= start < v.end
                                                                            for v in values):
            continue
        named = [t for t in ctx.profile.facts if words(t) and same_root(word, words(t)[-1], least=3, slack=4)]
        if named and not set(named) & read_tables:
            out.append((Span(start, end, ctx.question[start:end]),
                        f"names the {plural(phrase(named[0]))}, which no reading reads"))
            break
    duration = _DURATION_ASKED.search(ctx.intent.lower)
    if duration is not None and not any(computes_duration(tree.query) for tree in trees):
        # 'avg days to complete a course' divided courses by courses: a time between two dates no reading takes
        out.append((Span(duration.start(), duration.end(), ctx.question[duration.start():duration.end()]),
                    "a time between two dates, which no reading computes"))
    days = _DAYS_COUNTED.search(ctx.intent.lower)
    if days is not None and not any(s.start <= days.start(1) < s.end for s in measured) and \
            not any(computes_duration(tree.query) for tree in trees):
        # 'how many sick days': the days each row spans, added up, while the readings count the rows
        out.append((Span(days.start(1), days.end(1), ctx.question[days.start(1):days.end(1)]),
                    "a number of days the rows span, which no reading adds up"))
    if not summed:
        # 'total revenue from X's courses' counted the courses, 'how much did we refund' counted refunds: an
        # amount asked for while every reading counts rows
        money_read = [m for t in read_tables if t in ctx.profile.facts for m in ctx.profile.facts[t].measures
                      if m.money]
        amount = re.search(r"\bhow much\b", ctx.intent.lower) if money_read else None
        said = [(Span(start, end, ctx.question[start:end]), "an amount of money, while every reading counts rows")
                for word, start, end in ctx.intent.tokens if word in _MONEY_NOUNS and
                not any(v.start <= start < v.end for v in values) and
                not any(s.start <= start < s.end for s in measured)]
        if amount is not None:
            said.insert(0, (Span(amount.start(), amount.end(), ctx.question[amount.start():amount.end()]),
                            "an amount, while every reading counts rows"))
        out += said[:1]
    money_columns = {singular(w) for f in ctx.profile.facts.values() for m in f.measures if m.money
                     for c in m.columns for w in words(c)}
    if summed and not money_columns & used:
        # 'how much revenue did each instructor bring in' summed the classes' capacity: money asked, while no
        # reading adds up any amount of money (none reaches what is grouped)
        out += [(Span(start, end, ctx.question[start:end]), "money, while no reading adds up an amount of money")
                for word, start, end in ctx.intent.tokens if word in _MONEY_NOUNS and
                not any(v.start <= start < v.end for v in values)][:1]
    for word, start, end in ctx.intent.tokens:
        base = singular(word)
        if base not in identifiers and len(word) > 5 and word.endswith("ed"):
            # 'guests who checked in in 2025' counted sign-ups: a verb of a column's word ('check_in'), unused
            root = next((w for w in identifiers if len(w) >= 4 and same_root(word, w) and word.startswith(w)), None)
            base = root or base
        if base not in identifiers or base in used:
            continue
        if word in FUNCTION_WORDS or word in TIME_WORDS or base in FACT_WORDS or word in FACT_WORDS or \
                word in OPERATORS:
            continue
        if any(s.start <= start < s.end for s in measured) or any(t.span.start <= start < t.span.end
                                                                 for t in ctx.intent.targets):
            continue
        if any(s.start <= start < s.end for s in read) and base not in _COLUMN_ONLY_WORDS:
            continue
        out.append((Span(start, end, ctx.question[start:end]), "names a column no reading uses"))
    del vocab
    both = re.search(r"\bboth\b", ctx.intent.lower)
    named_after: list[Span] = []
    if both is not None:  # (the names matched are looked up only when 'both' is said)
        from archetypes.entity import name_matches

        named_after = [s for s in [m.span for m in (ctx.grounding.values if ctx.grounding is not None else [])] +
                       [span for span, _ in name_matches(ctx)] if s.start > both.end()]
    if both is not None and not ctx.base.each_value and \
            (any(len(f.values) > 1 and not f.negate for f in ctx.base.filters) or
                             len(named_after) > 1 and not ctx.base.sides):
        # 'clients who bought both a phone and a laptop': every reading counts either one
        out.append((Span(both.start(), both.end(), ctx.question[both.start():both.end()]),
                    "no reading requires each of the values: they are read as one or the other"))
    idioms = lexicon.grammar_idioms(ctx.intent.lower)  # 'end up cancelled': no end date asked
    return [(s, why) for s, why in out if not any(a <= s.start < b for a, b in idioms)]


# 'which shops ...', 'which of our clients ...': rows of a table asked for
_WHICH_ROWS = re.compile(r"^\s*(?:which|what|list|show(?:\s+me)?|name)\s+(?:(?:one|ones)\s+)?"
                         r"(?:of\s+(?:our|the|these|those|all)\s+)?(?:all\s+)?(?:our\s+|the\s+)?([a-z])")

# 'the electric bike numbers', 'stats for tokyo': figures asked for without saying which
_FIGURES_ASKED = re.compile(r"\b(numbers|figures|stats|statistics|metrics|kpis?)\b")

# 'avg days to complete', 'how many hours until delivery', 'time to ship': a duration between two dates
_DURATION_ASKED = re.compile(r"\b(?:days|hours|minutes|weeks|months|time|long)\s+(?:to|until|till|before|between|"
                             r"it takes? to|does it take to)\b|\b(?:shipping|shipment|delivery|resolution|response|"
                             r"processing|fulfil+ment|turnaround|lead|handling|transit|waiting|wait|completion|"
                             r"approval|closing|reply|dispatch)\s+(?:times?|durations?|delays?)\b")

# 'how many sick days', 'how many approved vacation days': days of something, not the rows that hold them
_DAYS_COUNTED = re.compile(r"\bhow many\s+(?:[a-z]+\s+){1,3}?(days|hours|weeks|nights)\b(?!\s+(?:ago|of (?:the )?week))")

_MONEY_NOUNS = frozenset({"revenue", "revenues", "turnover", "income", "earnings", "takings", "gmv", "money"})

# 'by store', 'for each category': a breakdown ('per' can also be a ratio: 'revenue per customer')
_BREAKDOWN = re.compile(r"\b(?:by|for each|for every|each|across|broken down by|split by|grouped by)\s+$")


def _breakdowns(intent: Intent) -> list[Target]:
    """The targets the question asks to break the figure down by."""
    measured = [span for _, span in intent.measures]  # 'by tracks sold': the figure, not a breakdown
    found = [t for t in intent.targets
             if t is intent.also_group or (said := _BREAKDOWN.search(intent.lower[max(0, t.span.start - 20):t.span.start]))
             and not any(s.start <= t.span.start < s.end for s in measured) and not (
                 said.group(0).startswith("by ") and  # 'opened by clients on the gold plan': who, not a breakdown
                 by_agent(intent.lower, max(0, t.span.start - 20) + said.start(), t.span.end))]
    # 'by album genre': the genre, the head of the compound, stands for both words
    return [intent.group if intent.group is not None and t is not intent.group and t.span.end + 1 ==
            intent.group.span.start else t for t in found]


class _Walked:
    """A reading's statement with its nodes listed once, in `find_all`'s order (breadth first), so that asking
    it for several kinds of node walks it once."""

    def __init__(self, query: exp.Query) -> None:
        self.query = query
        self.nodes = list(query.walk())

    def find_all(self, *types: type[_E]) -> list[_E]:
        return [node for node in self.nodes if isinstance(node, types)]

    def find(self, *types: type[_E]) -> _E | None:
        return next((node for node in self.nodes if isinstance(node, types)), None)


def _ranks(tree: _Walked) -> bool:
    """The statement sorts rows by a figure: a LIMIT, a RANK() window, or an ORDER BY whose first key is an
    aggregate (or the alias of one)."""
    query = tree.query
    if tree.find(exp.Limit) is not None or tree.find(exp.Window) is not None:
        return True
    if isinstance(query, exp.Select) and any(isinstance(e.unalias(), (exp.Max, exp.Min)) for e in query.expressions):
        return True  # 'the highest rate in 2024': the extreme itself, one figure
    for select in tree.find_all(exp.Select):
        order = select.args.get("order")
        if order is None or not order.expressions:
            continue
        first = order.expressions[0].this
        if first is None:
            continue  # (an ORDER BY of a bare literal or position: no figure sorts the rows)
        if first.find(exp.AggFunc) is not None:
            return True
        aggregated = {e.alias for e in select.expressions if isinstance(e, exp.Alias) and e.find(exp.AggFunc)}
        if isinstance(first, exp.Column) and first.name in aggregated:
            return True
    return False


def _grouped_by(trees: list[_Walked], entity, profile: SchemaProfile) -> bool:
    """Some reading groups (or partitions) its rows by a column of `entity`'s table."""
    from archetypes.naming import singular, words

    wanted = {singular(w) for w in words(entity.table)} | {singular(w) for c in entity.name_columns
                                                           for w in words(c)}
    for tree in trees:
        aliases = {t.alias_or_name: t.name for t in tree.find_all(exp.Table)}
        # a series groups by the names an inner select gave its columns ('grp', 'grp_key'): look through them
        named = {a.alias: a.this for a in tree.find_all(exp.Alias)}
        for clause in tree.find_all(exp.Group, exp.Window):
            grouped = list(clause.find_all(exp.Column))
            grouped += [c for g in list(grouped) if g.name in named for c in named[g.name].find_all(exp.Column)]
            for column in grouped:
                # the entity's own key ('t1.id', t1 its table) or a column naming it ('genre_id')
                held = aliases.get(column.table)
                if held == entity.table or {singular(w) for w in words(column.name)} & wanted:
                    return True
                if any(e.ref_table == entity.table and column.name in e.columns for e in profile.edges.get(held or "", ())):
                    return True  # the key the rows hold ('ShipVia' references the shippers)
    return False


_DATE_LITERAL = re.compile(r"^(?:19|20)\d{2}-\d{2}-\d{2}")


def _bounds(literal: str, window: calendar.Window) -> bool:
    """`literal` is a boundary of `window`, give or take the day a zone moves it: another date in the SQL (a
    record scope's 'valid at' day) does not apply the window."""
    if not _DATE_LITERAL.match(literal):
        return False
    try:
        day = dt.date.fromisoformat(literal[:10])
    except ValueError:
        return False
    return window.open_start and abs((day - window.end).days) <= 1 or \
        min(abs((day - window.start).days), abs((day - window.end).days)) <= 1


_COLUMN_ONLY_WORDS = frozenset({"status", "state", "email", "phone", "address", "code"})


def _understood(ctx: Context, detections: list[Detection], analysis: Analysis):
    """Every word accounted for: what the reader, the values, the operators, the detections and the
    readings read; the rest is reported."""
    intent, grounded = ctx.intent, ctx.grounding
    read: list[Span] = list(grounded.shape.read)
    ranking = intent.ranking if intent.group is not None else None  # 'which employe sold the most': whom?
    for span in (ranking, intent.superlative, intent.window_span, intent.vague_time, intent.day_boundary,
                 intent.currency, intent.money, intent.viz, intent.top_span):
        if span is not None:
            read.append(span)
    if intent.grain is not None:
        read.append(intent.grain[1])
    if intent.how_many is not None:
        read.append(intent.how_many[1])
    read += [t.span for t in intent.targets] + [s for _, s in intent.measures] + [s for _, _, s in intent.key_refs]
    read += [m.span for m, _ in grounded.applied] + [m.span for m, _ in grounded.ambiguous] + grounded.flags + \
        [m.span for m, _, _ in grounded.wider]
    read += [Span(d.span[0], d.span[1], d.evidence) for d in detections
             if d.span[1] - d.span[0] < len(ctx.question)  # a whole-question span reads no word
             and d.archetype != "insufficient_info"]        # a subject the schema lacks was not read
    names = ctx.extra.get("names") or []
    read += [span for span, _ in names] + ctx.extra.get("read", [])
    unread = list(grounded.unread) + list(grounded.shape.unread)
    unread += _unreflected(ctx, analysis, read)
    unread += _periods_unread(intent, read)
    for word, start, end in intent.tokens:
        # 'visits in the morning', 'revenue on mondays': a part of the day or a weekday no reading bounds
        word_span = Span(start, end, ctx.question[start:end])
        window = intent.window_span
        shaped = any(r.start <= start < r.end for r in grounded.shape.read)  # ('nights sold': a stay's nights)
        valued = any(m.span.start <= start < m.span.end for m, _ in grounded.applied)  # ('the night shift': a value)
        if word in _PARTS_OF_DAY and not shaped and not valued and \
                not (window is not None and window.start <= start < window.end):
            # (the time zone's question reads 'morning' as whose morning; no reading keeps those hours yet)
            unread.append((word_span, "no reading keeps only these hours of the day"))
        elif word.rstrip("s") in _DAY_NAMES and not any(r.start <= start < r.end for r in read) and not any(
                " on a " in i.explanation for i in analysis.interpretations):  # explain: 'the ordered at falls on a'
            unread.append((word_span, "no reading keeps only this day of the week"))
    events_read = {t.name for i in analysis.interpretations for t in i.query.find_all(exp.Table)}
    for span, table in grounded.event_verbs:
        if table in events_read:
            read.append(span)
        else:
            unread.append((span, "the verb of the events here, not their status of that name"))
    code, said = intent.currency_named, intent.currency
    amount = said is not None and (not said.text.strip()[:1].isalpha() or  # '$45', '500 dollars': an amount's unit
                                   re.search(r"\d\s*$", intent.lower[:said.start]) is not None)
    money = ctx.base.measure is not None and ctx.base.measure.money  # money summed in one currency needs no word
    if code and said is not None and not amount and not money and ctx.profile.currency_columns and \
            analysis.interpretations and not any(code.lower() in i.explanation.lower() for i in analysis.interpretations):
        # 'which members paid in euros' listed every member: the currency said is kept or converted to, or not read
        unread.append((intent.currency, f"no reading keeps or converts to {code}"))
    dropped = [n for n in analysis.notes if "cannot be reached" in n]
    for mention, ref in grounded.applied:
        if any(f"'{ref.target(ctx.profile).noun} {ref.value}'" in n for n in dropped) and not analysis.interpretations:
            unread.append((mention.span, f"read as {ref.table}.{ref.column} = {ref.value!r}, which no reading "
                                         "can reach"))
    understood = account(intent, ctx.profile, read, set(grounded.shape.consumed), grounded.operators, unread)
    ignored = {i.span for i in understood.ignored}
    read_as = tuple(ReadAsSpan(span.text, (span.start, span.end), word) for span, word in intent.read_as
                    if (span.start, span.end) not in ignored)
    return replace(understood, read_as=read_as) if read_as else understood


_MONTH_NAMES = frozenset("january february march april june july august september october november december".split())


def _periods_unread(intent: Intent, read: list[Span]) -> list[tuple[Span, str]]:
    """A month named outside every span read ('in march and may 1998' read as may alone): a period no reading
    bounds, not a word to pass over as time talk."""
    out = []
    for word, start, end in intent.tokens:
        month = word in _MONTH_NAMES or word == "may" and re.match(r"\s*(?:\d|and\b|&|,)", intent.lower[end:]) and \
            re.search(r"\b(?:in|and|of|,|&)\s*$", intent.lower[:start])
        if month and not any(s.start <= start < s.end for s in read):
            out.append((Span(start, end, intent.question[start:end]), "a period no reading bounds (one window only)"))
    return out


def _own_anchor(intent: Intent, profile: SchemaProfile) -> dt.date | None:
    """The latest day of the rows the question reads: relative time ('last week', 'yesterday') counts back from
    that day when it is later than the main table's (the profile's anchor)."""
    fact = base_spec(intent, profile).fact
    latest = fact.time.latest if fact is not None and fact.time is not None else None
    return latest.date() if latest is not None and latest.year < 9000 else None


def _quantity_phrases(profile: SchemaProfile) -> frozenset[str]:
    """The words of the counts the rows keep ('units in stock', 'units on order'): 'zero units in stock' is that
    column at 0, not rows with no related rows."""
    from archetypes.profile.keys import is_key

    cached = profile.cache.get("quantity phrases")  # (built once per profile, not per question)
    if cached is None:
        nouns = {singular(w) for t in profile.tables for w in words(t)}
        cached = profile.cache["quantity phrases"] = frozenset(
            " ".join(words(c.name)) for t in profile.tables.values() for c in t.columns
            if c.family == "numeric" and not is_key(t, c) and len(words(c.name)) > 1 and
            not {singular(w) for w in words(c.name)} <= nouns)
    return cached


def _context(question: str, profile: SchemaProfile, lookup: Lookup | None, as_of: dt.date | None) -> Context:
    if not isinstance(question, (str, bytes)):
        raise InputError("question must be text")
    typed = decode_input(question, what="question", limit=MAX_QUESTION_BYTES).strip()
    latest = as_of or profile.as_of or (profile.latest.date() if profile.latest is not None else None)
    respelt = respell(typed, latest=latest, earliest=profile.earliest.date() if profile.earliest is not None else None,
                      known=vocabulary(profile).known, named=lambda word: _names_data(word, profile, lookup),
                      quantities=_quantity_phrases(profile))
    text = respelt.text  # "q1 '98": q1 1998, 'averge': average; mapped back to the words typed (_as_typed)
    anchor = as_of or profile.as_of
    intent = read(text, profile, anchor)
    own = _own_anchor(intent, profile) if as_of is None else None
    if own is not None and (anchor is None or own > anchor):
        # tickets up to today, invoices (the main table) up to October: 'last week' of tickets is the tickets'
        # own; never earlier than the main table's (a table of people's sign-up dates ends long before sales)
        anchor = own
        intent = read(text, profile, anchor)
    _who_buys(intent, profile)
    _how_much_paid(intent, profile)
    _how_much_verb(intent, profile)
    _which_did(intent, profile)
    _best_seller(intent, profile)
    _size_ranked(intent, profile)
    _where_based(intent, profile)
    _how_often(intent, profile)
    _verb_ranked(intent, profile)
    grounded = Grounded(values=value_mentions(intent, profile), operators=operator_mentions(intent))
    idioms = [m.span() for m in lexicon.BREAK_DOWN.finditer(intent.lower)]  # never a title ('Break on Through')
    grounded.values = [m for m in grounded.values if not any(a <= m.span.start and m.span.end <= b for a, b in idioms)]
    intent.names = [n for n in intent.names if not any(a <= n.start and n.end <= b for a, b in idioms)]
    compared = versus.find(intent, profile)  # 'rock vs metal': the two values side by side, not filters
    if compared is not None:
        grounded.values = [m for m in grounded.values if not versus.claims(compared, m)]
        grounded.operators = [m for m in grounded.operators if not versus.is_link(compared, m)]
    from archetypes.entity import titles_after_nouns, titles_around_values

    # 'the album let there be rock', 'revenue from let there be rock': a title, not the genre Rock
    titles = titles_after_nouns(intent, profile, lookup) + \
        titles_around_values(intent, profile, lookup, [m.span for m in grounded.values])
    for title in titles:
        if not any(n.start <= title.start < n.end for n in intent.names):
            intent.names.append(title)
    grounded.values = [m for m in grounded.values if not _inside_name(m, intent)
                       and not _names_several_rows(m, intent, profile, lookup)]
    if intent.grain is not None and (any(m.span.start <= intent.grain[1].start < m.span.end for m in grounded.values)
                                     or _column_word(intent, profile, intent.grain[1])):
        intent.grain = None  # 'an annual membership', 'the hourly rate': a value or a column, not a series
    asked = _name_asked_of(intent, profile, lookup)
    if asked is not None and not any(n.start <= asked.start < n.end for n in intent.names):
        intent.names.append(asked)  # 'what album is changes on': the track Changes, no change asked
    # 'shops not in germany': a filter, not an absence; 'trips with status lost': a value, not a change
    held = [m.span for m in grounded.values] + ([asked] if asked is not None else [])
    # ('change requests': a table's name of two words, no change asked)
    held += [s for _, s in intent.measures if " " in s.text.strip()] + \
        [t.span for t in intent.targets if " " in t.span.text.strip()]
    grounded.operators = [m for m in grounded.operators if not any(s.start <= m.span.start < s.end for s in held)]
    said = intent.window_span
    if said is not None and any(v.span.start <= said.start and said.end <= v.span.end for v in grounded.values):
        intent.window, intent.window_span = None, None  # 'the Year-End Appeal 2024 campaign': a name, not a year
    if intent.group is not None and any(
            v.span.start <= intent.group.span.start and intent.group.span.end <= v.span.end and
            re.search(r"\b(?:by|per)\s+$", intent.lower[v.span.start:intent.group.span.start]) for v in grounded.values):
        intent.group = None  # 'trips cancelled by riders': the state cancelled_by_rider, no trips per rider
    base = base_spec(intent, profile)
    base.weekdays = _days_of_week(intent)
    if base.weekdays and base.time_part == "weekday" and base.shape == "distribution" and \
            not re.search(r"\b(?:by|per|each|which|what|busiest|quietest)\b", intent.lower):
        base.shape, base.time_part, base.limit = "aggregate", None, None  # 'sales on weekdays': a total
    _apply_values(grounded, intent, profile, base)
    _value_ranked(grounded, intent, profile, base)
    _count_named_values(intent, profile, base, names=bool(grounded.ambiguous or grounded.wider or intent.names))
    _plural_value_counted(grounded, intent, profile, base)
    _rows_with_children(intent, profile, base)
    if compared is not None and base.measure is not None and base.measure.money and intent.money is None and \
            re.search(r"\bhow many\b", intent.lower[:compared.sides[0].span.start]) and \
            not any(w in lexicon.MONEY_WORDS for w, _, _ in intent.tokens):
        from archetypes.shape_reader import _event_count

        counted = _event_count(profile)  # 'how many cats vs dogs did we see': the events of each counted, no money
        if counted is not None:
            base.fact, base.measure, base.count_table = counted[0], counted[1], None
    sides = versus.apply(compared, base, profile, intent) if compared is not None else None
    _apply_flags(grounded, intent, profile, base)
    grounded.unread += _on_time_without_due(intent, grounded)
    if base.fact is not None and base.filters:
        _reach_filters(base, profile, intent)
    money_words = _figure_as_named(intent, base)
    ctx = Context(question=text, intent=intent, profile=profile, lookup=lookup, as_of=anchor, base=base)
    ctx.grounding = grounded
    ctx.extra["respelt"] = respelt
    ctx.extra["value_spans"] = [m.span for m in grounded.values] + \
        ([s.span for s in compared.sides] if compared is not None else [])
    from archetypes.entity import known_filters, lowercase_names, name_matches

    taken = list(intent.names) + ctx.extra["value_spans"] + [t.span for t in intent.targets] + \
        [s for _, s in intent.measures] + [m.span for m in grounded.operators] + \
        [s for s in (intent.window_span, intent.vague_time, intent.currency, intent.money) if s is not None]
    intent.names += lowercase_names(intent, profile, lookup, taken)
    for flt in known_filters(ctx):  # names of one row: the shape below may list or filter by them
        if flt not in base.filters:
            base.filters.append(flt)
    rows = versus.named_rows(intent, name_matches(ctx)) if compared is None else None
    if rows is not None:  # 'iron maiden vs metallica': the two artists side by side
        versus.install_rows(rows, base)
        grounded.operators = [m for m in grounded.operators if not rows[0][0].end <= m.span.start < rows[0][-1].start]
    grounded.shape = read_shape(intent, grounded.operators, profile, base, anchor or dt.date.today(),
                                pending_values=bool(grounded.ambiguous or grounded.wider or ctx.extra.get("wider_names")),
                                value_spans=ctx.extra["value_spans"],
                                pending_owner=_pending_owner(ctx), flag_spans=grounded.flags)
    _rows_with_children(intent, profile, base)  # a list of them is known once the shape is read
    if base.measure is not None and base.measure.money:
        grounded.shape.read += money_words  # ('how much did we bill them': the billed amount, read)
    if base.fact is not None and base.filters and base.shape == "share":
        _reach_filters(base, profile, intent)  # 'refund rate for dublin events': the sales counted on their lines
    timed = base.measure is not None and DAYS_BETWEEN in (base.measure.expression or "")
    if (base.window is not None or base.change is not None or base.time_part is not None or base.weekdays or
            base.grain) and base.fact is not None and base.fact.time is not None and not timed:
        # ('what weekday do most parcels ship on': the days they shipped, not the days they were placed; 'avg
        # hours to ship in 1997': the verb ends the time taken, the rows are those placed in 1997)
        base.fact = _dated_as_said(intent, profile, base.fact,  # 'tickets closed in june': by the closing date
                                   values=[m.span for m in grounded.values if base.fact.time is not None and
                                           all(r.table != base.fact.time.table for r in m.refs)])
    if (base.window is not None or base.weekdays) and base.fact is not None and base.fact.time is not None:
        # 'joined in 2024', 'trips that started in march', 'closed on weekends': the words naming the date
        # bounded are read
        grounded.shape.read += _date_words(intent, base.fact.time.column)
        twin = state_or_date(intent, base)
        if twin is not None and "record_scope" not in grounded.shape.replaces:
            grounded.shape.detections.append(twin)
            grounded.shape.replaces.add("record_scope")
    elif base.fact is not None and base.fact.time is not None and base.measure is not None and \
            base.measure.kind == "count" and base.measure.table == base.fact.table:
        grounded.shape.read += _date_words(intent, base.fact.time.column)  # 'borrowed most': the loans counted
    unfinished = open_or_unfinished(intent, profile, base) or rate_of_settled(intent, base, profile)
    if unfinished is not None and "record_scope" not in grounded.shape.replaces:
        grounded.shape.detections.append(unfinished)
        grounded.shape.replaces.add("record_scope")
    grounded.unread += undated_state(intent, profile, base)
    if rows is not None:
        grounded.shape.read += rows[0] + [rows[3]] + versus.links(intent, rows[0])
    if compared is not None:
        spans = [s.span for s in compared.sides]
        grounded.shape.read += spans + [compared.link] + versus.links(intent, spans) + versus.asked(intent)
        if sides is not None:
            grounded.shape.detections.append(sides)
            grounded.shape.replaces.add("entity")  # one entity question at a time: which values are compared
    ctx.extra["open_roles"] = roles.settle(base, intent, profile)
    grounded.shape.read += roles.words_read(base, intent)
    return ctx


_WHO_BUYS = re.compile(r"^\s*who\s+(?:has\s+|have\s+)?(?:spent|spends?|bought|buys|paid|pays|purchased|ordered)\b")
_SPENDER = re.compile(r"\b(?:spenders?|big spenders?)\b")
_WHO_HASNT = re.compile(r"^\s*(who)\s+(?:hasn'?t|has not|haven'?t|have not|didn'?t|did not|never)\s+(?:ever\s+)?"
                        r"(?:bought|buy|purchased|purchase|ordered|order|spent|spend|paid|pay|shopped|shop)\b")


_ASKED_OF = re.compile(r"^\s*(?:what|which)(?:'s|\s+is|\s+was|\s+are)?\s+(?:the\s+)?([a-z]+)\s+(?:is|was|of|for)\s+"
                       r"(?:the\s+(?:song|track|album|record|film|movie|product|item)\s+)?(.+?)\s*(?:on|in|from|by)?\s*\??\s*$")


def _name_asked_of(intent: Intent, profile: SchemaProfile, lookup: Lookup | None) -> Span | None:
    """'what album is changes on', 'what genre is war pigs': the words after the table asked of are a row's whole
    name, whatever else they could be read as (a change, a sum)."""
    from archetypes.entity import _matches, clean_term
    from archetypes.naming import fold

    m = _ASKED_OF.match(intent.lower)
    if m is None or lookup is None or (singular(m.group(1)),) not in vocabulary(profile).tables:
        return None
    term = clean_term(intent.question[m.start(2):m.end(2)])
    if len(term) < 3 or not any(fold(x.name) == fold(term) for x in _matches(profile, term, lookup)):
        return None
    return Span(m.start(2), m.end(2), intent.question[m.start(2):m.end(2)])


_HOW_MUCH_PAID = re.compile(r"^\s*how\s+much\b.*\b(?:pay|pays|paid|paying|spend|spends|spent|spending)\b")


_AS_VERB = re.compile(r"\b(?:did|do|does|have|has|had|will|we|they|you)\s+(?:we\s+|they\s+|you\s+)?$")


def _how_much_verb(intent: Intent, profile: SchemaProfile) -> None:
    """'how much did we invoice in 2024', 'how much do we bill a month': the events' money, named by their own
    noun used as the verb, not how many of them there are."""
    if not re.match(r"^\s*how\s+much\b", intent.lower) or intent.how_many is not None or len(intent.measures) != 1:
        return
    measure, span = intent.measures[0]
    fact = profile.facts.get(measure.table)
    money = next((x for x in fact.measures if x.money), None) if fact is not None else None
    if measure.kind != "count" or money is None or not _AS_VERB.search(intent.lower[:span.start]):
        return
    intent.measures = [(money, span)]
    intent.explicit_measure = money.value


def _how_much_paid(intent: Intent, profile: SchemaProfile) -> None:
    """'how much did york members pay last quarter': the money they paid, not how many of them there are (the
    people's own count, named as the payers, is no figure asked)."""
    if _HOW_MUCH_PAID.match(intent.lower) is None or intent.how_many is not None:
        return
    people = {singular(w) for w in lexicon.PEOPLE_NOUNS}
    counted = [(m, s) for m, s in intent.measures if m.kind == "count" and
               singular(words(m.table)[-1] if words(m.table) else m.table) in people]
    if not counted or len(counted) != len(intent.measures):
        return
    payers = {m.table for m, _ in counted}
    if not any(x.money and profile.path(f.table, t) is not None for f, x in profile.measures_reaching(None)
               for t in payers):
        return
    intent.measures = []
    for measure, span in counted:  # the payers stay named: their words still filter or group them
        entity = profile.entities.get(measure.table)
        if entity is not None and not any(t.entity == entity for t in intent.targets):
            intent.targets.append(Target(entity, span))


def _who_buys(intent: Intent, profile: SchemaProfile) -> None:
    """'who spent the most with us in 2025', 'biggest spender in each country': the people who spend are ranked
    (no table is named)."""
    from archetypes.counted import buyers

    hasnt = _WHO_HASNT.match(intent.lower)
    if hasnt is not None and not any(not t.entity.column_only for t in intent.targets):
        people = buyers(profile)  # 'who hasn't bought anything this year': the buyers with none
        if people is not None:
            intent.targets.insert(0, Target(people, Span(hasnt.start(1), hasnt.end(1), intent.question[
                hasnt.start(1):hasnt.end(1)])))
        return
    if intent.group is not None or (intent.ranking is None and intent.superlative is None):
        return
    m = _WHO_BUYS.match(intent.lower)
    spender = _SPENDER.search(intent.lower) if m is None else None
    people = buyers(profile) if m is not None or spender is not None else None
    if people is not None:
        start, end = (m.start(), m.start() + 3) if m is not None else spender.span() if spender else (0, 0)
        intent.group = Target(people, Span(start, end, intent.question[start:end]))
        intent.targets.append(intent.group)


# 'which clients bought laptops in 2024', 'clients who ordered an ipad': the rows of a table that did it, each with
# its figure (only those with such events appear), not a total
_WHICH_DID = re.compile(r"^\s*(?:(?:which|what)\s+([a-z]+)\s+(?:have\s+|has\s+|ever\s+|actually\s+)*|"
                        r"(?:list\s+|show\s+(?:me\s+)?)?(?:the\s+|all\s+|our\s+)?(?:(?!of\b)[a-z]+\s+){0,2}?([a-z]+)\s+"
                        r"(?:who|that)\s+(?:have\s+|has\s+|ever\s+)*)(?:bought|purchased|ordered|sold|shopped|paid|"
                        r"spent\s+(?:money\s+)?on|placed\s+(?:an?\s+|any\s+|some\s+)?[a-z]+)\b")


def _which_did(intent: Intent, profile: SchemaProfile) -> None:
    if intent.group is not None or intent.ranking is not None or intent.superlative is not None or \
            intent.how_many is not None:
        return
    m = _WHICH_DID.match(intent.lower)
    if m is None:
        return
    start = m.start(1) if m.group(1) else m.start(2)
    target = next((t for t in intent.targets if t.span.start == start and not t.entity.column_only), None)
    if target is not None and any(f.table != target.entity.table and profile.path(f.table, target.entity.table)
                                  for f in profile.facts.values()):
        intent.group = target
        deed = re.search(r"\b(?:ordered|shopped|paid|placed\s+(?:an?\s+|any\s+|some\s+)?[a-z]+)\s*$", m.group(0))
        own_count = all(x.kind in ("count", "count_distinct") and rows_of(profile, x) == target.entity.table
                        for x, _ in intent.measures)  # ('clients' itself is a count of them)
        if deed is not None and intent.money is None and not intent.explicit_measure and own_count:
            # 'clients who ordered in june': those with events in the window, each with how many (no money said)
            named = verb_facts(intent, profile)  # 'members who paid': the payments, not the bookings
            counted = next((x for f, x in sorted(profile.measures_reaching(target.entity.table),
                                                 key=lambda fx: fx[0].table not in named)
                            if f.table != target.entity.table and x.kind in ("count", "count_distinct")), None)
            if counted is not None:
                start = m.start() + deed.start()
                intent.measures.append((counted, Span(start, m.end(), intent.question[start:m.end()])))


def _verb_ranked(intent: Intent, profile: SchemaProfile) -> None:
    """'which member booked the most': the rows ranked by how many events the verb names (their bookings), not by
    the money of other events (payments)."""
    from archetypes.intent import stem

    if intent.group is None or intent.explicit_measure or intent.measures or intent.money is not None or \
            (intent.ranking is None and intent.superlative is None):
        return
    named = verb_facts(intent, profile)
    group = intent.group.entity.table
    facts = [profile.facts[t] for t in named if t in profile.facts and t != group and profile.path(t, group) is not None]
    if len(facts) != 1:
        return
    counted = next((x for x in facts[0].measures if x.kind == "count"), None)
    verb = next(((s, e) for w, s, e in intent.tokens if len(w) > 4 and w.endswith("ed") and
                 any(stem(w) == stem(n) for n in words(facts[0].table))), None)
    if counted is None or verb is None:
        return
    intent.explicit_measure = counted.value
    intent.measures.append((counted, Span(verb[0], verb[1], intent.question[verb[0]:verb[1]])))


_OFTEN = re.compile(r"\b(?:most|least)\s+(often|frequently)\b")


def _how_often(intent: Intent, profile: SchemaProfile) -> None:
    """'which product do they buy most often': how many separate events hold it (distinct headers), not
    what they were worth."""
    m = _OFTEN.search(intent.lower)
    if m is None or intent.group is None or intent.explicit_measure:
        return
    counted = next((x for f, x in profile.measures_reaching(intent.group.entity.table)
                    if x.kind == "count_distinct"), None)
    if counted is not None:
        intent.explicit_measure = counted.value
        intent.measures.append((counted, Span(m.start(1), m.end(1), intent.question[m.start(1):m.end(1)])))


_WHERE = re.compile(r"^\s*where\s+(?:are|is|do|does)\s+(?:(most|the most)\s+(?:of\s+)?)?(?:our\s+|the\s+|all\s+)?"
                    r"([a-z]+)\s+(?:based|located|from|live|living|come from|situated)\b")
_PLACE_WORDS = ("country", "city", "region", "state", "location")


def _where_based(intent: Intent, profile: SchemaProfile) -> None:
    """'where are most of our clients based': the rows counted per place they are in, most first."""
    from archetypes.intent import vocabulary

    m = _WHERE.match(intent.lower)
    rows = next((t for t in intent.targets if m is not None and t.span.start == m.start(2)), None)
    if m is None or rows is None or intent.group not in (None, rows):
        return
    table = rows.entity.table
    vocab = vocabulary(profile)
    for word in _PLACE_WORDS:
        place = next((e for e in vocab.phrases.get((word,), []) if e.table == table or
                      profile.path(table, e.table) is not None), None)
        if place is not None:
            where = Span(m.start(), m.start() + 5, intent.question[m.start():m.start() + 5])
            intent.group = Target(place, where)
            intent.explicit_measure = f"count:{table}"
            if m.group(1):
                intent.ranking = Span(m.start(1), m.end(1), intent.question[m.start(1):m.end(1)])
            return


# 'what do our japanese clients buy the most': the thing bought is ranked, the buyers filter it
_WHAT_BOUGHT = re.compile(r"^\s*(what)\s+(?:do|does|did)\b.*\b(?:buy|purchase|order|get)\s+(?:the\s+)?most\b")
_SELLER = re.compile(r"\b(?:best|top|biggest)(?:[- ]?|\s+\d{1,3}\s+)(sellers?)\b|\b(bestsellers?)\b")


def _best_seller(intent: Intent, profile: SchemaProfile) -> None:
    """'best seller in dairy': the thing the lines sell (not a person who sells), ranked."""
    from archetypes.counted import header_of

    m = _SELLER.search(intent.lower)
    if m is not None and intent.group is not None:
        return
    if m is None:
        m = _WHAT_BOUGHT.search(intent.lower)  # the buyers it names filter the thing bought, not ranked
    if m is None:
        return
    start, end = m.span(1) if m.group(1) else m.span(2)
    for fact in profile.fact_list():
        header = header_of(profile, fact)
        if header is None:
            continue
        sold = next((profile.entities[e.ref_table] for e in profile.edges.get(fact.table, ())
                     if e.ref_table != header and e.ref_table in profile.entities), None)
        if sold is not None:
            intent.group = Target(sold, Span(start, end, intent.question[start:end]))
            intent.targets.append(intent.group)
            intent.schema_hits += 1  # 'our bestseller in 1997' names what the lines sell: a subject
            if intent.ranking is None:
                intent.ranking = Span(m.start(), m.end(), intent.question[m.start():m.end()])
            if intent.unknown_subject is not None and intent.unknown_subject.start >= m.start():
                intent.unknown_subject = None
            return


_SIZE_WORDS = re.compile(r"\b(?:biggest|largest|smallest|bigger|larger|smaller)\b")


def _size_ranked(intent: Intent, profile: SchemaProfile) -> None:
    """'biggest playlist': rows no sale reaches are big by what they hold, the rows of the one table pointing
    at them (counted through it when it links them to another table: a playlist's tracks)."""
    said = intent.ranking or intent.superlative
    group = intent.group.entity if intent.group is not None else None
    if said is None or group is None or group.column_only or intent.explicit_measure or intent.measures or \
            intent.money is not None or _SIZE_WORDS.search(said.text.lower()) is None or \
            any(f.table == group.table or profile.path(f.table, group.table) is not None for f in profile.fact_list()):
        return
    holding = [t for t, edges in profile.edges.items() if any(e.ref_table == group.table for e in edges)]
    if len(holding) != 1:
        return
    others = [e.ref_table for e in profile.edges.get(holding[0], ()) if e.ref_table != group.table]
    counted = others[0] if len(others) == 1 and others[0] in profile.entities else holding[0]
    intent.explicit_measure = f"count:{counted}"


def _apply_flags(grounded: Grounded, intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """'discontinued items': the yes/no column the word names, as a condition on the rows read."""
    from archetypes.flags import amount_mentions, dated_deed_mentions, flag_mentions, timeliness_mentions

    tables = {t for t in (spec.fact.table if spec.fact else None, spec.count_table) if t}
    tables |= {t.entity.table for t in intent.targets if not t.entity.column_only}
    # a row's two dates compared may sit on a table the events point at ('late shipment rate' over order lines)
    reached = {e.ref_table for t in tables for e in profile.edges.get(t, ())}
    # 'the beverages we've discontinued': the rows a value names (items of a kind) carry the flag too
    named = {f.entity.table for f in spec.filters}
    valued = named | {table for table, edges in profile.edges.items() if any(e.ref_table in named for e in edges)}
    flags = flag_mentions(intent, profile, tables | valued)
    # 'sales with a discount': the figure may sit on the rows that point at those read (a sale's lines)
    children = {t for t, edges in profile.edges.items() if any(e.ref_table in tables for e in edges)}
    flags += [m for m in amount_mentions(intent, profile, tables | valued | children)
              if not any(f.span.start < m.span.end and m.span.start < f.span.end for f in flags)]
    timely = timeliness_mentions(intent, profile, tables | reached)
    flags += [m for m in dated_deed_mentions(intent, profile, tables | valued | children)
              if not any(f.span.start < m.span.end and m.span.start < f.span.end for f in flags + timely)]
    for mention in flags + timeliness_mentions(intent, profile, tables | reached):
        # the word of the flag itself, not the deed read with it ('delivered on time': 'on time')
        own = mention.span if mention in flags else _timeliness_word(intent, mention.span)
        clash = [m for m in grounded.values if m.span.start < own.end and own.start < m.span.end]
        if clash and not (mention in flags and mention.condition.table in tables and
                          all(r.table != mention.condition.table for m in clash for r in m.refs)):
            continue  # 'overdue loans' where 'overdue' is a status the data holds: that value is the filter
        if clash:  # 'menu items that are vegan': the items' own flag, not a value of another table ('Vegan' places)
            named_values = {(r.table, r.value) for m in clash for r in m.refs}
            spec.filters = [f for f in spec.filters if not all((f.entity.table, str(v)) in named_values
                                                                for v in f.values)]
        if mention not in flags and spec.shape == "share" and spec.share_filters and not spec.share_conditions:
            # 'the on-time delivery rate', 'late delivery rate': on time of the delivered ones (the deed's rows are
            # the whole, its timeliness the part), never the delivered share of those on time (100%)
            spec.filters, spec.share_filters = [*spec.filters, *spec.share_filters], []
            spec.share_conditions.append(mention.condition)
        elif mention.condition not in spec.conditions:
            spec.conditions.append(mention.condition)
        grounded.flags.append(mention.span)
        span = mention.span  # a 'not' the flag reads is not an absence
        grounded.operators = [m for m in grounded.operators
                              if not (span.start <= m.span.start and m.span.end <= span.end)]


def _timeliness_word(intent: Intent, span: Span) -> Span:
    from archetypes.flags import TIMELINESS_WORDS

    m = TIMELINESS_WORDS.search(intent.lower, span.start, span.end)
    return span if m is None else Span(m.start(), m.end(), intent.question[m.start():m.end()])


_DID_BEFORE = re.compile(r"\b(?:did|do|does|didn't|didnt|will|would|can|could)\b(?:\s+[\w'.&-]+){1,4}\s*$")


_AS_VERB_BEFORE = re.compile(r"\b(?:never|not|n't|nt|who|that|which|have|has|had|ever|already|we|they|"
                             r"(?!(?:is|was|has|does|status|class|plus|bus|gas|yes|this|its)\b)[a-z]{3,}s)\s+$")  # 'members booked'



def _events_verb(intent: Intent, mention: ValueMention, profile: SchemaProfile) -> tuple[str, ...]:
    """A status value that is the verb of the events holding it ('booked' of bookings), said as a verb ('who
    never booked', 'that booked'): the events, not their status; the tables holding those events, or none."""
    from archetypes.values import lemma

    before = intent.lower[:mention.span.start]
    # ('which member booked the most': a table's noun, in the singular, is the subject too)
    subject = any(t.span.end <= mention.span.start and not before[t.span.end:].strip() and not t.entity.column_only
                  for t in intent.targets)
    said = mention.span.text.lower()
    deeds = _deed_of_other_events(intent, mention, profile, before, subject) if mention.refs else ()
    if deeds:
        return deeds
    if not mention.refs or not (_AS_VERB_BEFORE.search(before) or subject):
        return ()
    own = all(lexicon.is_state_column(words(r.column)) and r.table in profile.facts and
              any(stem(said) == stem(w) or lemma(said) == lemma(singular(w)) for w in words(r.table))
              for r in mention.refs)
    return tuple(dict.fromkeys(r.table for r in mention.refs)) if own else ()


_PASSIVE_BEFORE = re.compile(r"\b(?:were|was|been|be|being|get|gets|got|are|is)\s+$")


def _deed_of_other_events(intent: Intent, mention: ValueMention, profile: SchemaProfile, before: str,
                          subject: bool) -> tuple[str, ...]:
    """A state a deed leaves on the rows it was done to ('sold' of a vehicle), said as the verb, where another
    table holds the deeds themselves (vehicle_sales, dated sold_at): 'vehicles sold in october', 'which rep sold
    the most' are those sales, not the vehicles whose stock status is sold today."""
    from archetypes.counted import IRREGULAR_DEEDS, facts_of_verbs

    said = mention.span.text.lower()
    # ('never been interviewed': the interviews, not the applications whose status is 'interview')
    if not (said in IRREGULAR_DEEDS or len(said) > 4 and said.endswith("ed")) or \
            not (_AS_VERB_BEFORE.search(before) or _PASSIVE_BEFORE.search(before) or subject):
        return ()
    # (a verb of its own table's name needs no path to the state: 'interviewed' names the interviews outright)
    deeds = sorted(f for f in facts_of_verbs({said}, profile)  # (the facts this word names, no other verb's)
                   if all(f != r.table and (profile.path(f, r.table) is not None or said not in IRREGULAR_DEEDS)
                          for r in mention.refs))
    return tuple(deeds) if deeds and all(lexicon.is_state_column(words(r.column)) for r in mention.refs) else ()


_PAY_VERBS = frozenset({"pay", "pays", "paying"})
# ('paid in cash' too, but 'cancelled in porto' is where: 'in' only after paying)
_HOW_DONE = re.compile(r"\s+(?:by|with|via|using|through)\s+(?:a\s+|an\s+|the\s+)?")
_PAID_IN = re.compile(r"\s+in\s+")
# 'which client paid us the most': a verb with its object
_PAID_WHOM = re.compile(r"\s+(?:us|me|them|him|her)\b")


def _deed_not_state(intent: Intent, mention: ValueMention, grounded: Grounded, profile: SchemaProfile) -> bool:
    """A state's word that says what was done, not which rows: 'pays' (present, the state is 'paid'), 'paid by
    cash' (how: another column's value follows), 'amount paid' (a figure column of that name)."""
    said = mention.span.text.lower()
    if said in _PAY_VERBS or _PAID_WHOM.match(intent.lower, mention.span.end):
        return True  # ('which client paid us the most': a verb with its object, not the invoices in state paid)
    if any(v.span.start > mention.span.end and (_HOW_DONE.fullmatch(intent.lower[mention.span.end:v.span.start]) or
                                                 said == "paid" and _PAID_IN.fullmatch(
                                                     intent.lower[mention.span.end:v.span.start]))
           for v in grounded.values):
        return True
    if _WE_DO.search(intent.lower[:mention.span.start]) and any(
            c.family == "temporal" and any(stem(w) == stem(said) for w in words(c.name))
            for r in mention.refs if r.table in profile.tables for c in profile.tables[r.table].columns):
        return True  # 'which weekday do we open the most tickets': the opening (opened_at), not the open ones
    around = words(intent.lower[max(0, mention.span.start - 30):mention.span.end + 30])
    for table in profile.tables.values():
        for column in table.columns:
            parts = words(column.name)
            if column.family == "numeric" and len(parts) > 1 and said in parts and \
                    " ".join(parts) in " ".join(around):
                return True  # 'amount paid' of amount_paid
    return False


_WE_DO = re.compile(r"\b(?:do|did|does)\s+(?:we|you|they|i)\s+$")


def _said_as_verb(intent: Intent, span: Span) -> bool:
    """'did acme open', 'does the team close': the word is the verb after a subject, the question's last word."""
    return _DID_BEFORE.search(intent.lower[:span.start]) is not None and \
        re.fullmatch(r"[\s?.!]*", intent.lower[span.end:]) is not None


def _kind_column(profile: SchemaProfile, table: str, column: str) -> bool:
    """A column of a few kinds (a category, a type), not of names or codes."""
    info = profile.tables[table].column(column) if table in profile.tables else None
    return info is not None and 0 < len(info.samples) <= 30 and "name" not in words(column)


def _apply_values(grounded: Grounded, intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """Each data value named becomes a filter on the column holding it; a value held by several columns
    is an entity ambiguity unless the question names the table ('clients in brazil')."""
    named = {t.entity.table for t in intent.targets}
    for mention in grounded.values:
        if all(r.kind_word for r in mention.refs) and _joined_to_a_noun(mention, grounded, intent):
            # 'songs and videos': every kind, or each kind counted, not the videos alone
            grounded.unread.append((mention.span, "a kind joined by 'and' to other rows is not filtered on"))
            continue
        events = _events_verb(intent, mention, profile)
        if events:
            # 'members who never booked a class': the bookings themselves, not those whose status is 'booked';
            # never filtered on; said unread unless a reading reads the events ('which member booked the most':
            # their bookings counted; 'who never booked': none of them)
            grounded.event_verbs += [(mention.span, table) for table in events]
            continue
        if all(lexicon.is_state_column(words(r.column)) for r in mention.refs) and \
                _deed_not_state(intent, mention, grounded, profile):
            # 'paid by cash', 'which tenant pays the most', 'total amount paid': how or what was paid (a column's
            # name), not the rows whose status is 'paid'
            grounded.event_verbs += [(mention.span, r.table) for r in mention.refs]
            paid = mention.span.text.lower() in _PAY_VERBS | {"paid"} and (
                _PAID_WHOM.match(intent.lower, mention.span.end) or
                re.match(r"\s+(?:the\s+)?(?:most|least|more|less)\b", intent.lower[mention.span.end:]))
            if paid and spec.measure is not None and spec.measure.kind == "count" and spec.fact is not None and \
                    not intent.how_many and (money := next((m for m in spec.fact.measures if m.money), None)):
                spec.measure = money  # 'which client paid us the most': the money paid, not how many invoices
            continue
        if _said_as_verb(intent, mention.span) and all(lexicon.is_state_column(words(r.column)) for r in mention.refs):
            # 'how many tickets did acme open': what they did, not the tickets still open
            grounded.unread.append((mention.span, "a verb here (what was done), not the status of that name"))
            continue
        # (a table named and counted is reached by its own rows: 'outages in scotland', no table of events needed)
        refs = [r for r in mention.refs if _reachable(profile, r.table) or r.table == spec.count_table]
        if not refs:
            grounded.unread.append((mention.span, f"read as a value of {mention.refs[0].table}."
                                                  f"{mention.refs[0].column}, which no table of events reaches"))
            continue
        columns = list(dict.fromkeys((r.table, r.column) for r in refs))
        if len(columns) > 1:
            preferred = [c for c in columns if c[0] in named]
            if len(preferred) == 1:
                columns = preferred
        if len(columns) > 1:
            columns = _direction_said(intent, mention, columns)  # 'from rotterdam to hamburg': origin, destination
        if len(columns) > 1:
            names = [(r.table, r.column) for r in refs if r.name_column]
            kinds = [(t, c) for t, c in columns if (t, c) not in names and t in profile.facts and
                     all(t != n for n, _ in names) and _kind_column(profile, t, c)]
            if len(set(names)) == 1 and not kinds:
                # the name of an entity's row, not a copy of it on other rows (a ship-to name); a kind of the
                # events is no copy ('billing tickets': the billing team's, or those of category billing)
                columns = names[:1]
        if len(columns) > 1:
            grounded.ambiguous.append((mention, refs))
            continue
        chosen = [r for r in refs if (r.table, r.column) == columns[0]]
        ref = chosen[0]
        one = len({r.value for r in chosen}) == 1 and not mention.negated  # ('us': one row, by initials or people)
        wider = kinds_holding(profile, ref) if len(chosen) == 1 and not mention.negated else ()
        held = territories_holding(profile, ref) if one and not wider else ()
        if held:  # 'in the us': filtered as said (its role read with it), its territories asked about
            grounded.territories.append((mention, ref, held))
        plain = [r for r in chosen if value_key(r.value)[:1] == value_key(mention.span.text)[:1]]
        if len(chosen) > 1 and len(plain) == 1 and all(r.kind_word for r in chosen) and not mention.negated:
            # 'mpeg': the kind named by the word (MPEG audio file), or every kind holding it (protected MPEG-4)
            ref, wider = plain[0], tuple(r.value for r in chosen if r is not plain[0])
        if wider and not _named_whole(intent, mention, wider):
            grounded.wider.append((mention, ref, wider))
            continue
        flt = EntityFilter(ref.target(profile), tuple(dict.fromkeys(r.value for r in chosen)), negate=mention.negated)
        same = next((i for i, f in enumerate(spec.filters) if f.entity == flt.entity and f.column == flt.column
                     and f.negate == flt.negate), None)
        if same is not None and re.search(r"\bboth\b", intent.lower):
            spec.filters.append(flt)  # 'both a phone and a laptop': each, in rows of its own (read with the shape)
        elif same is not None:
            # 'from usa or canada' (and 'usa and canada'): one row holds one value, so either of them
            flt = EntityFilter(flt.entity, tuple(dict.fromkeys(spec.filters[same].values + flt.values)),
                               negate=flt.negate)
            spec.filters[same] = flt
        elif flt not in spec.filters:
            spec.filters.append(flt)
        grounded.applied.append((mention, ref))
        owner = profile.entities.get(ref.table)
        if spec.group is None and owner is not None and not ref.name_column and \
                re.search(r"\b(?:each|every|per)\s+$", intent.lower[:mention.span.start]):
            spec.group = owner  # 'revenue of each sales agent': one figure per row holding the value


# 'our best selling laptop', 'the best waiter', 'top 3 wines': a ranking word just before a value of a kind
_RANKED_BEFORE = re.compile(r"\b(?:best|worst|top|bottom|biggest|most\s+popular|least\s+popular|highest|lowest)"
                            r"(?:[- ](?:selling|performing|earning|grossing|rated))?(?:\s+\d{1,3})?\s+$")
_WHICH_BEFORE = re.compile(r"^\s*(?:which|what|who\s+is\s+(?:the|our))\s+$")


def _value_ranked(grounded: Grounded, intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """'our best selling laptop', 'who is the best waiter', 'which waiter has the most checks': the value of a
    kind names the rows ranked (the laptops, the waiters), filtered by it; never one total of all of them."""
    if spec.group is not None or intent.group is not None or spec.fact is None or \
            (intent.ranking is None and intent.superlative is None):
        return
    for mention, ref in grounded.applied:
        before = intent.lower[:mention.span.start]
        ranked = _RANKED_BEFORE.search(before)
        if ranked is None and not (_WHICH_BEFORE.match(before) and intent.superlative is not None and
                                   intent.superlative.start > mention.span.end):
            continue
        entity = _rows_of_kind(profile, ref, spec.fact.table)
        if entity is None:
            continue
        intent.group = Target(entity, mention.span)
        spec.group, spec.limit = entity, intent.top_n or RANKING_LIMIT
        if intent.ranking is None and ranked is not None:
            intent.ranking = Span(ranked.start(), ranked.end(), intent.question[ranked.start():ranked.end()].rstrip())
        return


def _rows_of_kind(profile: SchemaProfile, ref: ValueRef, fact_table: str) -> Entity | None:
    """The named rows a value of a kind sorts: the table's own rows when the kind is one of their columns (the
    staff of job role 'waiter'), or the rows pointing at the kind's table (the items of a category)."""
    own = profile.entities.get(ref.table)
    if not ref.name_column:
        if own is not None and not own.column_only and own.name_columns != (ref.column,) and \
                profile.path(fact_table, ref.table) is not None:
            return own
        return None
    below = [profile.entities[t] for t, edges in profile.edges.items()
             if t != ref.table and t in profile.entities and not profile.entities[t].column_only and
             any(e.ref_table == ref.table for e in edges) and profile.path(fact_table, t) is not None]
    return below[0] if len(below) == 1 else None


def _direction_said(intent: Intent, mention: ValueMention, columns: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """'trips from rotterdam to hamburg': the one column whose words say the way the preposition points (origin
    city after 'from', destination city after 'to'), when the value is in both."""
    before = re.search(r"\b(from|to|into|towards?|out\s+of)\s+(?:the\s+)?$", intent.lower[:mention.span.start])
    if before is None:
        return columns
    way = roles.LEAVING if before.group(1) in ("from", "out of") else roles.ARRIVING
    pointed = [c for c in columns if set(words(c[1])) & set(way)]
    return pointed if len(pointed) == 1 else columns


def _named_whole(intent: Intent, mention: ValueMention, wider: tuple[str, ...]) -> bool:
    """'metal, not heavy metal', 'metal and heavy metal': the wider kinds are named too, so the word is the one."""
    return any(" ".join(value_key(v)) in " ".join(value_key(intent.question)) for v in wider)


def _joined_to_a_noun(mention: ValueMention, grounded: Grounded, intent: Intent) -> bool:
    """'songs and videos', 'videos or films': the kind word is coordinated with a word that is no value."""
    before = re.search(r"([a-z]+)\s+(?:and|or|&|plus)\s+$", intent.lower[:mention.span.start])
    after = re.match(r"\s+(?:and|or|&|plus)\s+(?:the\s+|our\s+)?([a-z]+)", intent.lower[mention.span.end:])
    for m, offset in ((before, 0), (after, mention.span.end)):
        if m is not None and not any(v.span.start <= offset + m.start(1) < v.span.end for v in grounded.values):
            return True
    return False


def _pending_owner(ctx: Context) -> Entity | None:
    """The one table every row of the one ambiguous name belongs to ('chef anton's': two items)."""
    from archetypes.entity import name_matches

    found = name_matches(ctx)
    tables = {m.entity.table for _, pool in found for m in pool}
    if len(found) == 1 and len(tables) > 1:
        # 'phone number for frank': the clients called Frank have a phone, the record 'Frank' has none
        said = {singular(w) for w, _, _ in ctx.intent.tokens} - _NAMING_WORDS
        holding = {t for t in tables if any(set(words(c.name)) & said for c in ctx.profile.tables[t].columns
                                            if c.name not in ctx.profile.tables[t].primary_key)}
        if len(holding) == 1:
            tables = holding
            pool = [m for m in found[0][1] if m.entity.table in holding]
            return pool[0].entity if len(pool) >= 2 else None
    if len(found) != 1 or len(tables) != 1 or len(found[0][1]) < 2:
        return None
    return found[0][1][0].entity


_NAMING_WORDS = frozenset({"name", "title", "label", "id", "first", "last", "full"})  # every table's


def _inside_name(mention: ValueMention, intent: Intent) -> bool:
    """Part of a longer capitalised name ('Rock' in 'Let There Be Rock'): the name is the entity's."""
    span = mention.span
    return any(n.start <= span.start and span.end <= n.end and (n.end - n.start) > (span.end - span.start)
               for n in intent.names)


def _names_several_rows(mention: ValueMention, intent: Intent, profile: SchemaProfile, lookup: Lookup | None) -> bool:
    """A name of an entity held by several rows ('Music': two playlists; 'metal': Metal and Heavy Metal) is
    the entity archetype's: handed over as a candidate name, never filtered silently."""
    from archetypes.entity import _matches, _resolve, clean_term

    if lookup is None or not all(r.name_column for r in mention.refs) or \
            all(r.kind_word for r in mention.refs) and not mention.span.text[:1].isupper():
        return False  # 'meat dishes', 'punk tracks': the kind, not a row whose long name holds the word
    term = clean_term(mention.span.text)
    pool = _resolve(_matches(profile, term, lookup), term, (set(), set()))
    if len(pool) <= 1:
        return False
    typed = mention.span.text
    # 'tv shows': a name of several words, said whole, is a name however it is typed; one lowercase word
    # ('music sales') may be a common word
    phrase = len(words(typed)) > 1 and not all(w in lexicon.FUNCTION_WORDS for w in words(typed))
    if (typed[:1].isupper() or phrase) and not any(n.start == mention.span.start for n in intent.names):
        intent.names.append(mention.span)  # written as a name: which one is asked
    return True  # lowercase ('music sales'): a common word, not silently a filter


def _reachable(profile: SchemaProfile, table: str) -> bool:
    return any(profile.path(f.table, table) is not None for f in profile.facts.values()) or \
        table in profile.facts or bridges_to(profile, table)


def _reach_filters(spec: QuerySpec, profile: SchemaProfile, intent: Intent) -> None:
    """Choose a measure whose fact reaches every filter (a category filter needs the line rows, not the
    order headers), keeping the measure's meaning when one reaches them."""
    tables = [f.entity.table for f in spec.filters]
    fact = spec.fact
    assert fact is not None
    if all(profile.path(fact.table, t) is not None for t in tables):
        return
    group = spec.group.table if spec.group else None
    counted = spec.measure
    if counted is None or counted.kind not in ("count", "count_distinct"):
        for other, measure in profile.measures_reaching(group):
            if all(profile.path(other.table, t) is not None for t in tables) and (
                    counted is None or measure.value == counted.value or measure.kind == counted.kind):
                spec.fact, spec.measure = other, measure
                return
        return
    # a count keeps what it counts ('how many guests' never becomes a count of payments)
    for other in profile.fact_list():  # 'which region books the most seafood': the bookings, counted on the
        for measure in other.measures:  # lines that reach the category
            if measure.kind in ("count", "count_distinct") and rows_of(profile, measure) == rows_of(profile, counted) \
                    and all(profile.path(other.table, t) is not None for t in tables) and \
                    (group is None or profile.path(other.table, group) is not None):
                spec.fact, spec.measure = other, measure
                return


def _detect(ctx: Context) -> list[Detection]:
    found: list[Detection] = []
    shape = ctx.grounding.shape if ctx.grounding is not None else ShapeRead()
    for archetype in ARCHETYPES:
        if archetype.id in shape.replaces:
            continue
        detection = archetype.detect(ctx)
        if detection is not None:
            found.append(detection)
    found += shape.detections
    found += _value_columns(ctx, found)
    found += _open_roles(ctx, found)
    if "ranking_metric" in shape.replaces and not any(d.archetype == "ranking_metric" for d in found):
        from archetypes.ranking_metric import gross_or_net, unnamed_figure

        # a shape of its own still sums money before or after a discount, and still counts or sums the rows of
        # a state when no figure is named ('which month had the most cancellations')
        extra = gross_or_net(ctx) or unnamed_figure(ctx)
        found += [extra] if extra is not None else []
    found.sort(key=lambda d: ORDER.get(d.archetype, 99))
    if any(d.archetype == "schema_mapping" for d in found):
        # a word of the question maps onto the schema (twice): there is something to run it on
        found = [d for d in found if d.archetype != "insufficient_info"]
    if any(d.archetype == "insufficient_info" for d in found):
        # nothing known to run on: the other shapes are about data the question does not have
        found = [d for d in found if d.archetype in SURVIVES_INSUFFICIENT]
    return found


def _value_columns(ctx: Context, found: list[Detection]) -> list[Detection]:
    """A value held by several columns is an entity ambiguity; only one entity question is asked at a time,
    so a second one is reported as not read rather than dropped."""
    from archetypes.entity import territories_detection, value_columns_detection, wider_value_detection

    grounded = ctx.grounding
    if grounded is None:
        return []
    out: list[Detection] = []
    for mention, ref, wider in grounded.wider:
        if out or any(d.archetype == "entity" for d in found):
            grounded.unread.append((mention.span, f"the {ref.value} {ref.column} alone, or with {', '.join(wider)}; "
                                                  "ask about one at a time"))
            continue
        out.append(wider_value_detection(mention.span, ref, wider, ctx.profile))
    for mention, ref, held in grounded.territories:
        if not ctx.extra.get("open_roles"):  # (whose country comes first: one entity question at a time)
            out.append(territories_detection(mention.span, ref, held))
    for mention, refs in grounded.ambiguous:
        if out or any(d.archetype == "entity" for d in found):
            columns = ", ".join(dict.fromkeys(f"{r.table}.{r.column}" for r in refs))
            grounded.unread.append((mention.span, f"a value of several columns ({columns}); ask about one at a time"))
            continue
        out.append(value_columns_detection(mention.span, refs, ctx.profile, mention.negated))
    return out


_ONE_ASKED = re.compile(r"^\s*(?:which|what|who)\b")


def _top_n(intent: Intent, spec: QuerySpec) -> int:
    """The N of 'top 3 composers' when the reading ranks that many rows: its answer is those rows; 1 when the
    question asks for one winner ('which shop has the most visits': the shop, whatever its count)."""
    asked = intent.top_n or 0
    if asked > 1 and spec.limit == asked and spec.partition is None:
        return asked
    one = intent.superlative is not None and intent.group is not None and not asked and \
        _ONE_ASKED.match(intent.lower) is not None and singular(intent.group.span.text.lower()) == \
        intent.group.span.text.lower()  # 'which shops have the most visits' asks for a list
    return 1 if one and spec.limit and spec.group is not None and spec.partition is None and \
        spec.shape == "aggregate" else 0


# 'avg items per order', 'order size': a figure per event, read from the lines (shape_reader._average)
_PER_EVENT = re.compile(r"\b(?:avg|average|mean|median|per|each|size|basket)\b")
_PER_PERIOD = re.compile(r"\b(?:(?:per|each|every|a|an)\s+(?:day|week|month|quarter|year)|avg|average|mean|median)\b")


def _without_grain(intent: Intent) -> str:
    """The question without its period averaging ('average appointments per month' counts appointments per
    month: no event is averaged per another)."""
    return _PER_PERIOD.sub(" ", intent.lower) if intent.grain is not None else intent.lower


_WEEKEND = re.compile(r"\b(?:on|at|over|during|for)\s+(?:the\s+)?weekends?\b|\bweekend\s+[a-z]+\b")
_WORKDAYS = re.compile(r"\b(?:on|during)\s+(?:the\s+)?(?:weekdays|workdays|working days|business days)\b")


_PARTS_OF_DAY = frozenset({"morning", "mornings", "afternoon", "afternoons", "evening", "evenings", "night", "nights",
                           "overnight", "lunchtime", "midday", "noon", "midnight"})
_DAY_NAMES = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
_NAMED_DAYS = re.compile(r"\b(" + "|".join(_DAY_NAMES) + r")(s?)\b")


def _days_of_week(intent: Intent) -> tuple[int, ...]:
    """'sales placed on weekends': Saturday and Sunday (0 = Sunday); 'on weekdays': Monday to Friday; 'on mondays',
    'every friday': that day of every week (not 'last monday', one day)."""
    if _WEEKEND.search(intent.lower):
        return (0, 6)
    if _WORKDAYS.search(intent.lower):
        return (1, 2, 3, 4, 5)
    if intent.day_specific:
        return ()
    days = [_DAY_NAMES.index(m.group(1)) for m in _NAMED_DAYS.finditer(intent.lower)
            if not re.search(r"\b(?:last|this|next|past|previous|coming)\s+$", intent.lower[:m.start()])]
    return tuple(sorted(set(days)))


# 'how many surgeries', 'the most refunds': a value said in the plural right after the count or the superlative
_COUNTED_BEFORE = re.compile(r"(?:\bhow many|\b(?:the\s+)?(?:most|fewest|least))\s+$")


def _plural_value_counted(grounded: Grounded, intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """'how many surgeries did we do', 'which vet did the most surgeries': a kind of rows named in the plural is
    what is counted (the appointments of type Surgery), not the money of some other table summed with it as a
    filter. Each column the value may be read in counts its own table's rows; the group's own column counts none."""
    from archetypes.counted import rows_counted

    if intent.how_many is not None or intent.explicit_measure or intent.money is not None or \
            any(w in lexicon.FACT_WORDS for w, _, _ in intent.tokens):
        return  # ('how many tablets did we sell': the units sold of that category)
    group = spec.group.table if spec.group is not None else None
    if any(m.table != group for m, _ in intent.measures):
        return
    for mention in grounded.values:
        said = mention.span.text.lower()
        if said == singular(said) or not _COUNTED_BEFORE.search(intent.lower[:mention.span.start]):
            continue
        # (a state's rows, 'cancellations', may be counted or valued: the metric is asked, as for any figure)
        refs = [r for r in mention.refs if r.table != group and r.table in profile.tables and not r.name_column and
                not lexicon.is_state_column(words(r.column)) and
                profile.tables[r.table].primary_key and (group is None or profile.path(r.table, group) is not None)]
        counted = {t: rows_counted(t, profile) for t in sorted({r.table for r in refs})}
        if not counted:
            return
        spec.counted_by_value.update(counted)
        own = [f for f in spec.filters if f.entity.table == group and set(f.values) & {r.value for r in mention.refs}]
        if own and len({(r.table, r.column) for r in refs}) == 1:
            # 'which vet did the most surgeries': the surgeries done, not the vets whose specialty is surgery
            spec.filters = [f for f in spec.filters if f not in own] + \
                [EntityFilter(refs[0].target(profile), (refs[0].value,))]
        applied = [f for f in spec.filters if f.entity.table in counted]
        if applied:
            spec.fact, spec.measure = counted[applied[0].entity.table]
            spec.count_table = None
        return


def _count_named_values(intent: Intent, profile: SchemaProfile, spec: QuerySpec, names: bool = False) -> None:
    """'how many suites', 'how many suites in lisbon': the rows holding the value named are counted (the rooms
    of type suite); no table noun follows 'how many', so the default figure (money) was summed instead."""
    from archetypes.counted import rows_counted

    if intent.how_many is not None or intent.measures or intent.explicit_measure or intent.group is not None or \
            not re.match(r"^\s*how many\b", intent.lower) or not (spec.filters or names) or \
            any(w in lexicon.FACT_WORDS for w, _, _ in intent.tokens):
        return
    first = spec.filters[0] if spec.filters else None
    if first is not None and first.entity.column_only:
        table = first.entity.table  # a type or status of the rows ('suite'): those rows
        if table in profile.tables and profile.tables[table].primary_key:
            spec.fact, spec.measure = rows_counted(table, profile)
        return
    # 'how many dramas do we have', 'how many tv shows': the things for sale of that kind (a genre's tracks,
    # a category's items), not the money they made; a place ('how many in germany') says what is counted
    # nowhere
    sold = catalogue(profile)
    kinds = [f.entity.table for f in spec.filters]
    if sold is None or not all({singular(w) for w in words(t)} & lexicon.KIND_TABLE_WORDS or t == sold.table
                               for t in kinds):
        return
    if all(profile.path(sold.table, t) is not None or t == sold.table for t in kinds):
        spec.fact, spec.measure = rows_counted(sold.table, profile)


def _rows_with_children(intent: Intent, profile: SchemaProfile, spec: QuerySpec) -> None:
    """'clients with a cancelled booking', 'how many clients have an active plan': rows counted or
    listed by a state of the rows that point at them, which they cannot reach: those with such rows (EXISTS), or
    the distinct ones such rows name. Left as they were, no reading could apply the state."""
    table = spec.count_table if spec.shape == "aggregate" and spec.fact is None else \
        spec.group.table if spec.shape == "list" and spec.group is not None and spec.fact is None else None
    entity = profile.entities.get(table) if table else None
    if table is None or entity is None or entity.column_only or len(entity.key) != 1 or \
            re.search(r"\b(?:than|more|fewer|less|most|least|fewest)\b", intent.lower):
        return  # ('shops with more cancels than refunds': a comparison of two counts, not rows with either)
    apart = [f.entity.table for f in spec.filters if f.entity.table != table and profile.path(table, f.entity.table) is None]
    if not apart:
        return
    child = next((f for f in sorted(profile.fact_list(), key=lambda f: sum(
        len(profile.path(f.table, t) or ()) for t in apart)) if len(profile.path(f.table, table) or ()) == 1 and
                  all(f.table == t or profile.path(f.table, t) is not None for t in apart)), None)
    if child is None:
        return
    if spec.shape == "aggregate":
        found = _actors(profile, table, reaching=apart[0])
        if found is not None:
            spec.fact, spec.measure = found
            spec.count_table = None
        return
    counted = next((m for m in child.measures if m.kind == "count"), None)
    if counted is None:
        return
    spec.shape, spec.absent, spec.present, spec.fact, spec.measure = "absence", entity, True, child, counted
    spec.group, spec.limit = None, None


_USED_MOST = re.compile(r"\b(?:used|visited|frequented|booked)\s+(?:the\s+)?most\b|"
                        r"\bmost\s+(?:used|visited|frequented|booked)\b|\bbusiest\b")


def _line_rows_named(intent: Intent, profile: SchemaProfile, group_table: str | None) -> tuple[Fact, Measure] | None:
    """'what share of goals were penalties', 'the most common goal kind': rows of a fact dated by its header (no
    count of its own) named with no figure: those rows counted, not the first figure of some other table."""
    tables = vocabulary(profile).tables
    for word, _, _ in intent.tokens:
        table = tables.get((singular(word),))
        fact = profile.facts.get(table) if table is not None else None
        if fact is None or not fact.time_path or any(m.kind == "count" for m in fact.measures) or \
                group_table is not None and group_table != fact.table and profile.path(fact.table, group_table) is None:
            continue
        return rows_counted(fact.table, profile)
    return None


def _own_count(profile: SchemaProfile, found: tuple[Fact, Measure], group: str | None) -> tuple[Fact, Measure]:
    """'trips that started in march': the trips' own rows counted (on their own dates), not the distinct trips
    their payments name, which miss a trip with no payment, when the trips reach the group too."""
    from archetypes.counted import rows_of

    own = profile.facts.get(rows_of(profile, found[1]))
    count = next((m for m in own.measures if m.kind == "count" and m.value == found[1].value), None) if own else None
    if own is None or count is None or (group is not None and profile.path(own.table, group) is None):
        return found
    return own, count


def _column_word(intent: Intent, profile: SchemaProfile, span: Span) -> bool:
    """The grain's word and the next one are the words of a column ('hourly rate': hourly_rate); stricter than
    `_names_a_column`, since it drops any grain, not only a cycle asked without a window."""
    said = [w for w, start, _ in intent.tokens if start >= span.start][:2]
    return len(said) == 2 and any(list(words(c.name)[:2]) == said for t in profile.tables.values() for c in t.columns)


def _names_a_column(word: str, profile: SchemaProfile) -> bool:
    """'hourly' in 'the average hourly rate' is a word of the column hourly_rate, not a time grain asked."""
    word = word.lower()
    return any(word in words(c.name) for t in profile.tables.values() for c in t.columns)


def _open_roles(ctx: Context, found: list[Detection]) -> list[Detection]:
    """A filter or a group reached through several tables ('revenue in germany': the customer's country or the
    store's) is an entity ambiguity; one entity question at a time, so another is reported as not read."""
    from archetypes.entity import role_detection

    grounded = ctx.grounding
    out: list[Detection] = []
    for role in ctx.extra.get("open_roles") or []:
        span = _role_span(ctx, role)
        if out or any(d.archetype == "entity" for d in found):
            if grounded is not None:
                grounded.unread.append((span, f"reached through several tables ({', '.join(r.via for r in role.options)}); "
                                              f"ask about one at a time"))
            continue
        out.append(role_detection(span, role, ctx.base))
    return out


def _role_span(ctx: Context, role: roles.OpenRole) -> Span:
    intent = ctx.intent
    if role.index is None:
        return intent.group.span if intent.group is not None else Span(0, len(ctx.question), ctx.question)
    flt = ctx.base.filters[role.index]
    for value in flt.values:
        at = intent.lower.find(value.lower())
        if at >= 0:
            return Span(at, at + len(value), ctx.question[at:at + len(value)])
    mention = next((m.span for m in (ctx.grounding.values if ctx.grounding else [])
                    if any(r.table == flt.entity.table or r.target(ctx.profile).table == flt.entity.table
                           for r in m.refs)), None)
    return mention or Span(0, len(ctx.question), ctx.question)


def _answer(detections: list[Detection], answers: dict[str, str]) -> dict[int, list[Reading]]:
    """Each answered detection's chosen reading, by the detection (`id`). Two detections may share an archetype
    ('last month' and 'new' are both timeframes): an answer goes to the one that has the reading, and one
    archetype may be answered twice, its values joined by commas ('last_30_days,own_date')."""
    chosen: dict[int, list[Reading]] = {}
    for archetype, value in answers.items():
        same = [d for d in detections if d.archetype == archetype]
        if not same:
            raise UnknownAnswerError(archetype, str(value), [])
        whole = next(((d, r) for d in same if (r := d.reading(str(value))) is not None), None)
        parts = [whole] if whole is not None else [
            next(((d, r) for d in same if (r := d.reading(part.strip())) is not None), None)
            for part in str(value).split(",")] if "," in str(value) else [None]
        for found in parts:
            if found is None and archetype in FREE_TEXT_ANSWERS and str(value).strip():
                factory = next((r.custom for r in same[0].readings if r.custom is not None), None)
                custom = factory(str(value)) if factory else None
                found = (same[0], custom) if custom is not None else None
            if found is None:
                raise UnknownAnswerError(archetype, str(value), [r.value for d in same for r in d.readings])
            chosen[id(found[0])] = [found[1]]
    return chosen


def _units_sold(intent: Intent, profile: SchemaProfile, table: str) -> tuple[Fact, Measure] | None:
    """'how many tracks did we sell': the units of the lines that point at the table, not its row count."""
    if not any(t[0] in lexicon.SOLD_VERBS for t in intent.tokens):
        return None
    for fact in profile.fact_list():
        edges = profile.path(fact.table, table)
        units = next((m for m in fact.measures if m.value == "units"), None)
        if edges is not None and len(edges) == 1 and units is not None:
            return fact, units
    return None


def _distinct_actors(intent: Intent, profile: SchemaProfile, table: str) -> tuple[Fact, Measure] | None:
    """'how many different clients ordered in 1997': the distinct rows the events point at, not every row."""
    prefer = verb_facts(intent, profile)  # ('how many students enrolled in 2024': the verb of the enrollments)
    # (a word the schema names is no verb: 'agents on the night shift' are agents by their shift column)
    named = [t.span for t in intent.targets]
    if not prefer and not any((t[0] in lexicon.FACT_WORDS and t[0] not in lexicon.FACT_NOUNS or
                               t[0] in lexicon.SERVING_VERBS) and not any(s.start <= t[1] < s.end for s in named)
                              for t in intent.tokens):
        return None
    return _actors(profile, table, prefer=prefer)


def _actors(profile: SchemaProfile, table: str, reaching: str | None = None,
            prefer: frozenset[str] = frozenset()) -> tuple[Fact, Measure] | None:
    """The distinct rows of `table` that a fact's rows point at (one edge away), counted on a fact that also
    reaches the `reaching` table when one is given; a fact the question's verb names first (`prefer`)."""
    def steps(fact: Fact) -> int:  # ('clients on the free plan': their plans' rows, not invoices that name plans)
        route = profile.path(fact.table, reaching) if reaching is not None and fact.table != reaching else ()
        return len(route) if route is not None else 99

    for fact in sorted(profile.fact_list(), key=lambda f: (f.table not in prefer, steps(f))):
        edges = profile.path(fact.table, table) if fact.table != table else None
        if reaching is not None and fact.table != reaching and profile.path(fact.table, reaching) is None:
            continue
        if edges is not None and len(edges) == 1 and len(edges[0].columns) == 1:
            return fact, distinct_rows(fact.table, table, edges[0].columns)
    return None


def _named_count(intent: Intent, profile: SchemaProfile, group_table: str | None) -> tuple[Fact, Measure] | None:
    """A count the question names ('invoices by status') whose measure does not reach the group as it is
    kept: the rows it counts, counted where the group is."""
    named = next((m for m, _ in intent.measures), None)
    if named is None or named.kind not in ("count", "count_distinct"):
        return None
    table = rows_of(profile, named)
    if table not in profile.tables or (group_table is not None and table != group_table and
                                       profile.path(table, group_table) is None):
        return None
    if intent.group is not None and not intent.group.entity.column_only and intent.group.entity.table == table:
        return None  # 'our best clients': the rows ranked are not what is counted
    return rows_counted(table, profile)


def _named_on_deed(intent: Intent, profile: SchemaProfile, figures: list[tuple[Measure, Span]], wanted: str | None,
                   found: tuple[Fact, Measure]) -> tuple[Fact, Measure]:
    """The figure the question's word names on the table its verb names, where two tables' figures answer to
    the word ('kilograms harvested': the harvests' weight_kg, not the deliveries' delivered_kg)."""
    said = next((s.text.lower() for m, s in figures if m.value == wanted), None)
    deeds = verb_facts(intent, profile) if said else frozenset()
    if said is None or found[0].table in deeds:
        return found
    return next(((fact, m) for table in sorted(deeds) if (fact := profile.facts.get(table)) is not None
                 for m in fact.measures if said in m.words), found)


def _income_named(fact: Fact, measure: Measure) -> int:
    """How plainly a money figure is income by its names: a sale price or revenue column (2), on rows of sales,
    invoices or payments (1)."""
    said = {singular(w) for c in measure.columns for w in words(c)}
    return 2 * bool(said & lexicon.INCOME_COLUMN_WORDS) + bool(
        {singular(w) for w in words(fact.table)} & lexicon.INCOME_ROW_WORDS)


def _partition_of(intent: Intent, profile: SchemaProfile, group) -> Entity | None:
    """The entity the ranking runs within, among the ones its words name ('country': the ranked rows' own
    column first, then one they reach): never the ranked rows themselves."""
    named = intent.partition
    assert named is not None
    options = [t.entity for t in intent.targets if t.span == named.span and t.entity.table != group.table or
               t.span == named.span and t.entity.column_only and not group.column_only]
    if not options:
        return None

    def rank(entity: Entity) -> tuple[int, int]:
        if entity.table == group.table:
            return 0, 0
        route = profile.path(group.table, entity.table)
        return (1, len(route)) if route is not None else (2, 0)

    return min(options, key=rank)


def _date_words(intent: Intent, column: str) -> list[Span]:
    """The question's words naming a date column ('joined' for a joined-on date, 'hired' for a hire date)."""
    from archetypes.naming import singular, words

    # ('valid_from': 'revenue from the team plan' names no date of validity)
    parts = [w for w in words(column) if len(w) >= 3 and w not in ("date", "time", "day") and
             w not in lexicon.FUNCTION_WORDS]
    found = [Span(start, end, intent.question[start:end]) for word, start, end in intent.tokens
             if any(singular(word) == w or word.startswith(w) and len(word) - len(w) <= 2 or
                    len(word) >= 4 and w.startswith(word) and len(w) - len(word) <= 3 for w in parts)]  # 'ship': shipped
    if set(parts) & _CREATION_WORDS:  # a row's creation date is when it 'signed up', 'joined', 'registered'
        found += [Span(m.start(), m.end(), intent.question[m.start():m.end()]) for m in _JOINING.finditer(intent.lower)]
    if set(parts) & _LEAVING_WORDS:  # a termination date is when someone 'left the company', 'quit', 'resigned'
        found += [Span(m.start(), m.end(), intent.question[m.start():m.end()]) for m in _LEAVING.finditer(intent.lower)]
    return found


_LEAVING_WORDS = frozenset({"termination", "terminated", "exit", "departure", "resignation", "separation", "left"})
_LEAVING = re.compile(r"\b(?:left|quit|resigned|departed|(?:was|were|got) (?:fired|let go)|terminated)\b"
                      r"(?:\s+(?:the\s+)?(?:company|firm|business|organi[sz]ation|org|us|team))?")


_CREATION_WORDS = frozenset({"created", "creation", "registered", "registration", "signup", "signed", "joined",
                             "join", "enrolled", "onboarded"})
_JOINING = re.compile(r"\b(?:sign(?:ed|s|ing)?[- ]?ups?|join(?:ed|s|ing)?|register(?:ed|s)?|enroll?(?:ed|s)?|"
                      r"onboarded|came on board|became (?:a |our )?(?:customer|client|member)s?)\b|"
                      r"\bnew(?=\s+[a-z]+)")  # 'new clients in q1': those created then


# verbs that end a row's life, and the date columns that record it ('solved' a ticket: its resolved_at)


def _dated_fact_named(intent: Intent, profile: SchemaProfile, group_table: str | None) -> tuple[Fact, Measure] | None:
    """The events whose own date the question's verb names ('borrowed' of borrowed_at), counted, when no figure
    is named: not the main table's money."""
    for fact in profile.fact_list():
        if fact.time is None or fact.time.table != fact.table:
            continue
        own = {singular(w) for w in words(fact.table)}
        if not [s for s in _date_words(intent, fact.time.column) if not any(same_root(singular(s.text.lower()), w)
                                                                            for w in own)]:
            continue  # 'which country books the most' (of bookings): the rows' own noun as a verb names no figure
        if group_table is not None and profile.path(fact.table, group_table) is None:
            continue
        count = next((m for m in fact.measures if m.kind == "count"), None)
        if count is not None:
            return fact, count
    return None


# dates of a deed a cancelled row never reached (an ended membership was cancelled; a cancelled parcel never shipped)
_WENT_THROUGH = frozenset({"delivered", "shipped", "completed", "fulfilled", "done", "solved", "resolved", "finished",
                           "refunded", "paid"})


# deeds that undo a row's going through: their day is not the day it went through
_UNDONE = frozenset({"refund", "refunds", "refunded", "return", "returns", "returned", "churned", "churn",
                     "terminated", "termination", "terminations", "dropped", "withdrawn", "reversed"})


def _dated_as_said(intent: Intent, profile: SchemaProfile, fact: Fact, values: list[Span] | None = None) -> Fact:
    """The fact dated by the column the question's verb names, when it is not the one it is dated by ('tickets
    closed in june' by resolved_at, 'parcels shipped in 1997' by the shipped date); else the fact as it was."""
    from archetypes.naming import words
    from archetypes.profile.facts import time_column, time_columns

    assert fact.time is not None
    table = profile.tables[fact.time.table]
    others = [c for c in time_columns(table) if c.name != fact.time.column]
    said = {w for w, _, _ in intent.tokens}
    # ('good qty of done work items': 'done' is the items' status, said as a value, no date of the runs; the
    #  values of the dated rows' own table still name their date: 'tickets closed in may')
    closing = {w for w, at, _ in intent.tokens if not any(v.start <= at < v.end for v in values or ())}
    named = [c for c in others if _date_words(intent, c.name)]
    if not named and closing & (lexicon.CLOSING_WORDS | lexicon.CLOSING_NOUNS):
        named = [c for c in others if set(words(c.name)) & lexicon.CLOSING_COLUMN_WORDS]
        if said & (lexicon.NEVER_HAPPENED | _UNDONE):
            # 'parcels cancelled in may': never delivered, so not by the delivery date; 'refunds in 2024' are not
            # dated by the day a purchase completed
            named = [c for c in named if not set(words(c.name)) & _WENT_THROUGH]
    # the table's own noun names no date of it ('what weekday do most parcels ship on': 'parcels' are the rows, not
    # their order date)
    own = {singular(w) for w in words(table.name)}
    plain = {singular(w) for w in words(fact.time.column)} - {"date", "time", "at", "on", "day", "ts", "timestamp"}
    if len(named) != 1 or _date_words(intent, fact.time.column) and not plain <= own:
        return fact
    return replace(fact, time=time_column(table, named[0]))


def _own_date(intent: Intent, table: TableInfo) -> TimeColumn | None:
    """The date column of `table` a window bounds: the one the question names ('joined', 'hired'), else its
    only one; None when it has several and the question names none."""
    from archetypes.profile.facts import LATER_STEP_WORDS, time_column, time_columns

    dated = time_columns(table)
    born = bool({w for w, _, _ in intent.tokens} & lexicon.BIRTH_WORDS)  # 'born in 2020': the birth date
    chosen = [c for c in dated if _date_words(intent, c.name) or born and set(words(c.name)) & lexicon.BIRTH_WORDS]
    if len(chosen) == 1:
        return time_column(table, chosen[0])
    if len(dated) == 1 and set(words(dated[0].name)) & lexicon.BIRTH_WORDS:
        return None  # 'how many pets did we see in 2025': not the pets born in 2025
    if len(dated) > 1:
        # 'outages this year' (started_at, ended_at): the date a row begins, not the later step it reaches
        dated = [c for c in dated if not set(words(c.name)) & LATER_STEP_WORDS]
    return time_column(table, dated[0]) if len(dated) == 1 else None


def _own_column(group: Entity, counted: str, profile: SchemaProfile, said: str = "") -> Entity:
    """'outages by region' with a region on the outages and on the clients: the counted rows' own column, not
    the one the vocabulary keeps for the word (the clients', nearer the events); 'trips per status': the trips'
    own trip_status, not a driver's employment_status."""
    info = profile.tables.get(counted)
    if not group.column_only or group.table == counted or info is None:
        return group
    own = [c for c in info.columns if c.name in group.name_columns]
    wanted = {singular(w) for w in words(said)}
    exact = any({singular(w) for w in words(c)} == wanted for c in group.name_columns)  # ('employee city': City)
    if not own and wanted and not exact:
        own = [c for c in info.columns if c.family == "text" and wanted <= {singular(w) for w in words(c.name)}]
    if len(own) != 1:
        return group
    noun = group.noun if own[0].name in group.name_columns else phrase(own[0].name)
    return Entity(table=counted, name_columns=(own[0].name,), noun=noun, key=tuple(info.primary_key),
                  row_count=info.row_count, column_only=True)


def _on_time_without_due(intent: Intent, grounded: Grounded) -> list[tuple[Span, str]]:
    """'on-time delivery rate' with no date due on the rows read (no flag applied): 'on' and 'time' are no time
    expression, and the words are said unread."""
    from archetypes.flags import TIMELINESS_WORDS

    return [(Span(m.start(), m.end(), intent.question[m.start():m.end()]), "no date due to compare the deed's date with")
            for m in TIMELINESS_WORDS.finditer(intent.lower)
            if m.group(1).replace("-", " ") == "on time" and not any(f.start <= m.start() < f.end for f in grounded.flags)]


def _figure_as_named(intent: Intent, base: QuerySpec) -> list[Span]:
    """The figure of the rows read that the question names: its one summed figure named ('total refunds for damaged
    bags': the refund amount, not the kilos returned), or the money column a verb names ('how much did aetna pay
    us': the paid amount, not the billed one). Returns the words that named it."""
    if base.fact is None or base.measure is None:
        return []
    money = [m for m in base.fact.measures if m.money]
    if base.measure.kind == "count" and intent.money is not None and intent.how_many is None and money and \
            re.search(r"\bvalue\b", intent.money.text.lower()) and base.shape == "aggregate":
        base.measure = money[0]  # 'the total value of rejected deliveries': their money, not how many
        return [intent.money]
    named_here = [m for m, _ in intent.measures if m.table == base.fact.table and m.kind == "sum"]
    if base.measure.kind == "sum" and len(named_here) == 1 and all(m is not base.measure for m, _ in intent.measures):
        base.measure = named_here[0]
    if not (base.measure.money or base.measure.kind == "sum") or \
            any(m.money or m is base.measure for m, _ in intent.measures):
        return []
    base.measure = _verb_money(intent, base.fact, base.measure) or base.measure
    return _words_of_columns(intent, base.measure.columns)


def _verb_money(intent: Intent, fact: Fact, chosen: Measure) -> Measure | None:
    """Of a fact's several money columns, the one a verb or noun of the question names by its own word ('pay' the
    paid_amount, 'refunds' the refund_amount, 'billed' the billed_amount), when that is not the one chosen."""
    said = {simplemma.lemmatize(w, lang="en") for w, _, _ in intent.tokens if len(w) > 2}
    named = [m for m in fact.measures if m.money and m.kind == "sum" and m is not chosen and
             {simplemma.lemmatize(w, lang="en") for c in m.columns for w in words(c)} & said - _GENERIC_MONEY]
    own = {simplemma.lemmatize(w, lang="en") for c in chosen.columns for w in words(c)} & said
    return named[0] if len(named) == 1 and not own - _GENERIC_MONEY else None


def _words_of_columns(intent: Intent, columns: tuple[str, ...]) -> list[Span]:
    """The question's words that are a form of a word of these columns ('pay' of paid_amount), beyond the generic
    ones."""
    own = {simplemma.lemmatize(w, lang="en") for c in columns for w in words(c)} - _GENERIC_MONEY
    return [Span(s, e, intent.question[s:e]) for w, s, e in intent.tokens
            if len(w) > 2 and simplemma.lemmatize(w, lang="en") in own]


_GENERIC_MONEY = frozenset({"amount", "total", "value", "price", "cost", "sum"})


def base_spec(intent: Intent, profile: SchemaProfile) -> QuerySpec:
    """The straightforward reading of the question, before any archetype's readings apply."""
    spec = QuerySpec(window=intent.window, median=any(w in ("median", "medians") for w, _, _ in intent.tokens))
    if intent.group is not None:
        spec.group = intent.group.entity
        if intent.also_group is not None:
            spec.also_by = intent.also_group.entity
        # 'how many events does each venue have': every venue, those with none as 0 (a count only)
        # (the table's own noun: 'each support rep' are the employees who are reps, not every employee)
        own_noun = singular(words(intent.group.span.text)[-1]) == singular(phrase(spec.group.table).split()[-1]) \
            if words(intent.group.span.text) and phrase(spec.group.table) else False
        spec.every_one = own_noun and bool(re.search(
            r"\b(?:each|every)\s+(?:one\s+of\s+(?:the|our)\s+|of\s+(?:the|our)\s+)?$",
            intent.lower[:intent.group.span.start]))
    if intent.ranking is not None or intent.group is not None and (
            intent.explicit_measure or intent.superlative is not None):  # 'which albums earned the least'
        spec.limit = intent.top_n or RANKING_LIMIT
    if intent.partition is not None and spec.group is not None:
        spec.partition = _partition_of(intent, profile, spec.group)
        if spec.partition is not None:
            spec.limit = intent.top_n or 1  # 'best selling track in each genre': the one on top of each
    rows_asked = intent.how_many[0] if intent.how_many is not None else \
        (intent.explicit_measure or "").removeprefix("count:") if (intent.explicit_measure or "").startswith(
            "count:") else None
    if spec.group is not None and rows_asked is not None:
        spec.group = _own_column(spec.group, rows_asked, profile,
                                 intent.group.span.text if intent.group is not None else "")
    group_table = spec.group.table if spec.group else None
    if intent.how_many is not None and not (intent.group is not None and intent.explicit_measure):
        table = intent.how_many[0]
        actors = _distinct_actors(intent, profile, table) if table in profile.entities else None
        named = next((m for m, span in intent.measures if span.start == intent.how_many[1].start and
                      m.kind == "sum" and not m.money), None)  # ('how many budgets': the budget rows, not their
        #                                                       amounts; 'how many items sold': the units)
        apart = spec.group is not None and not spec.group.column_only and spec.group.table != table and \
            table in profile.tables and profile.path(table, spec.group.table) is None
        through = _actors(profile, table, spec.group.table) if apart and spec.group is not None else None
        if named is not None and named.table in profile.facts:  # 'how many units': the units, not the lines
            spec.fact, spec.measure = _named_on_deed(intent, profile, intent.measures, named.value,
                                                     (profile.facts[named.table], named))
        elif through is not None:  # 'how many clients per branch': only the events join the two
            spec.fact, spec.measure = through
        elif actors is not None:  # 'how many clients bought': who did it, not when the rows were made
            spec.fact, spec.measure = actors
        elif table in profile.facts:
            fact = profile.facts[table]
            count = next((m for m in fact.measures if m.kind == "count"), None)
            if count is not None:
                spec.fact, spec.measure = fact, count
            elif fact.time_path and spec.window is not None and _units_sold(intent, profile, table) is None:
                # 'how many goals last month': rows dated by their header, counted with its date (the window
                # applies), not a plain count of the table
                spec.fact, spec.measure = rows_counted(table, profile)
        if spec.measure is None:
            sold = _units_sold(intent, profile, table) or _distinct_actors(intent, profile, table)
            if sold is not None:
                spec.fact, spec.measure = sold
            elif spec.group is not None and table in profile.tables and (
                    spec.group.table == table or profile.path(table, spec.group.table) is not None):
                # 'number of tracks per genre': the rows counted per group, through the path to the group
                spec.fact, spec.measure = rows_counted(table, profile)
            elif spec.window is not None and table in profile.tables and \
                    (dated := _own_date(intent, profile.tables[table])) is not None:
                # 'how many members joined in 2024': a table that is not a fact, bounded by its own date
                fact, measure = rows_counted(table, profile)
                spec.fact, spec.measure = replace(fact, time=dated), measure
            else:
                spec.count_table = table
    explicit = intent.explicit_measure or ""
    if spec.measure is None and spec.count_table is None and explicit.startswith("count:"):
        table = explicit.split(":", 1)[1]
        if table in profile.facts:
            counted = next((m for m in profile.facts[table].measures if m.kind == "count"), None)
            if counted is not None:
                spec.fact, spec.measure = profile.facts[table], counted
        if spec.measure is None and table in profile.tables:
            spec.fact, spec.measure = rows_counted(table, profile)
        if spec.group is not None and spec.fact is not None and not spec.group.column_only and \
                profile.path(spec.fact.table, spec.group.table) is None:
            # 'which rep has the most clients': the distinct ones the events join to the group; 'which
            # playlist has the most tracks': a table pointing at both counts them
            through = _actors(profile, table, spec.group.table)
            bridge = bridge_between(profile, table, spec.group.table)
            if through is not None:
                spec.fact, spec.measure = through
            elif bridge is not None:
                spec.fact, spec.measure = rows_counted(bridge, profile)
    if spec.measure is None and spec.count_table is None:
        selling = any(t[0] in lexicon.SALES_WORDS or t[0] in lexicon.MONEY_WORDS for t in intent.tokens)
        # ('total sales in 2024, completed visits only': the visits say which records count, not the figure)
        figures = [(m, s) for m, s in intent.measures if not (selling and m.kind == "count" and scope_noun(intent, s))]
        wanted = intent.explicit_measure or next(
            (m.value for m, _ in figures if m.kind in ("product", "sum", "expression")), None) or next(
            (m.value for m, _ in figures), None)
        found = profile.measure(wanted, group_table) if wanted else None
        found = _named_on_deed(intent, profile, figures, wanted, found) if found is not None else None
        said = next((m for m in intent.table_measures if m.value == wanted), None)
        if found is not None and said is not None and found[1] is not said and said.table in profile.facts and \
                (group_table is None or said.table == group_table or profile.path(said.table, group_table)):
            found = profile.facts[said.table], said  # 'refund amount': the refunds' amount, not the payments'
        if found is not None and found[1].kind == "count_distinct" and not _PER_EVENT.search(_without_grain(intent)):
            found = _own_count(profile, found, group_table)
        rows_said = next((m for m, _ in intent.measures if m.kind == "count" and m.value == wanted and
                          m.table in profile.facts), None)
        per = re.search(r"\bper\s+([a-z]+)", intent.lower)
        per_table = vocabulary(profile).tables.get((singular(per.group(1)),)) if per is not None else None
        if found is not None and found[1].kind == "count_distinct" and rows_said is not None and \
                found[0].table != rows_said.table and per_table not in (None, rows_said.table) and \
                profile.path(rows_said.table, per_table) is not None:
            # 'visits per patient': the visits' own rows, not the distinct visits that have an invoice
            found = profile.facts[rows_said.table], rows_said
        if found is None and wanted and spec.group is not None and spec.group.column_only and \
                group_table in profile.facts:
            # 'which room hosts the most sessions': a column of the rows counted groups their own count
            own = profile.facts[group_table]
            found = next(((own, m) for m in own.measures if m.value == wanted), None)
        if found is None and wanted and not intent.explicit_measure:
            found = _named_count(intent, profile, group_table)  # 'invoices by status': the invoices, counted
        if found is None and (not wanted or all(rows_of(profile, m) == group_table for m, _ in intent.measures)):
            # 'which genre is borrowed most', 'which member borrowed the most': the loans (the group's own noun
            # names no figure)
            found = _dated_fact_named(intent, profile, group_table)
        if found is None and not wanted:
            found = _line_rows_named(intent, profile, group_table)
        if found is None and not wanted and group_table is not None and _USED_MOST.search(intent.lower):
            # 'which room is used most', 'the most visited store': how often, the rows counted (a kind of the rows
            # themselves: their own rows; else the events reaching them), never the first money figure
            counts = [(f, m) for f, m in profile.measures_reaching(group_table) if m.kind == "count"]
            found = rows_counted(group_table, profile) if spec.group is not None and spec.group.column_only \
                else counts[0] if counts else None
        if found is None:
            typed = [t[0] for t in intent.tokens]
            options = [(f, m) for f, m in profile.measures_reaching(group_table)
                       if m.kind != "sum" or m.money or not lexicon.physical(m.columns, typed)] or \
                profile.measures_reaching(group_table)  # ('sales yesterday' summed no weights)
            if intent.money is not None or any(t in lexicon.MONEY_WORDS for t in typed):
                # 'top players by spend', 'which clients spent the most': money, never the first figure found
                options = [(f, m) for f, m in options if m.money] or options
            if any(t in lexicon.INCOME_WORDS for t in typed):
                # 'which branch had the highest revenue': money coming in (a sale price), not a cost column
                options = [(f, m) for f, m in options if not lexicon.cost_named(m.columns)] or options
                options.sort(key=lambda o: -_income_named(o[0], o[1]))  # (a sale's price before a loan's amount)
            primary = profile.primary_fact()
            found = next(((f, m) for f, m in options if primary and f.table == primary.table), None) or (
                options[0] if options else None)
        if found is None and spec.group is not None and spec.group.column_only and group_table in profile.tables and \
                not profile.measures_reaching(group_table):
            found = rows_counted(group_table, profile)  # 'which skill is most common': the rows of each, counted
        if found is not None:
            spec.fact, spec.measure = found
    if spec.partition is not None and spec.fact is not None and \
            profile.path(spec.fact.table, spec.partition.table) is None:
        # 'top product in each store': the measure's rows must reach the group they are ranked within too
        wanted = spec.measure.value if spec.measure is not None else None
        options = profile.measures_reaching(group_table, via=(spec.partition.table,))
        spec.fact, spec.measure = next(((f, m) for f, m in options if m.value == wanted), None) or (
            options[0] if options else (spec.fact, spec.measure))
    if spec.measure is not None and spec.measure.money and spec.fact is not None and intent.how_many is None and \
            re.search(r"\bhow many\b", intent.lower) and any(t[0] in lexicon.SOLD_VERBS for t in intent.tokens):
        units = next((m for m in spec.fact.measures if m.value == "units"), None)  # 'how many tablets did we sell'
        if units is not None:
            spec.measure = units
    if spec.measure is not None and not spec.measure.money and spec.fact is not None and \
            spec.measure.kind == "count" and not intent.how_many and \
            any(t[0] in lexicon.MONEY_WORDS for t in intent.tokens):
        money = next((m for m in spec.fact.measures if m.money), None)  # 'invoice revenue': the amount, not a count
        if money is not None:
            spec.measure = money
        elif (primary := profile.primary_fact()) is not None and primary.table != spec.fact.table and \
                profile.path(primary.table, spec.fact.table) is not None and \
                (money := next((m for m in primary.measures if m.money), None)) is not None:
            # 'revenue from electric bikes': the money of the main events that reach them, not the bikes counted
            spec.fact, spec.measure = primary, money
    if spec.group is not None and spec.group.column_only and spec.fact is not None and \
            profile.path(spec.fact.table, spec.group.table) is None:
        from archetypes.query import same_column_reaching

        spec.group = same_column_reaching(profile, spec.group, spec.fact.table) or spec.group
    if intent.grain is not None:
        unit = intent.grain[0]
        if unit == "week":
            spec.grain = "week_iso"
        elif unit in ("weekday", "hour"):
            spec.grain = unit
            days = (spec.window.end - spec.window.start).days if spec.window is not None else 0
            if (spec.window is None and not _names_a_column(intent.grain[1].text, profile)) or \
                    days * (24 if unit == "hour" else 1) > MAX_CALENDAR_ROWS:
                # 'sales by weekday' is a cycle over every row, not the last 28 days; 'invoices by weekday in
                # 1997': a calendar of 365 days would be cut to its last 250. Each row's own weekday (or hour)
                # is grouped instead
                spec.grain, spec.shape, spec.time_part = None, "distribution", unit
        elif intent.grain_fiscal and (profile.fiscal or profile.fiscal_year_start):
            spec.grain = {"month": "fy_period", "quarter": "fy_quarter", "year": "fy_year"}.get(unit, unit)
        else:
            spec.grain = unit
    return spec
