"""Named values side by side: 'rock vs metal sales', 'germany versus usa', 'berlin compared to london',
'beverages or condiments: which sold more?'.

When both sides of the comparison word are data values of one column (a genre and a genre, a country and a
country), an analyst groups the measure by that column, restricted to the values named: one row per value
(WHERE col IN (...) GROUP BY col). Two periods compared ('this year vs last year') ground to time, not to
values, and stay a change between periods (archetypes.change_reader).

A side whose word is the whole of one value and part of others ('metal': Metal, Heavy Metal) is an entity
ambiguity, as elsewhere: that value alone, or all of them added up in the side's one row. A pair held by
several columns (the customer's country and the invoice's billing country) is one too: one reading per
column.
"""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from archetypes import lexicon
from archetypes.grounding import OperatorMention, ValueMention
from archetypes.intent import Intent, Span
from archetypes.model import Detection, Reading
from archetypes.profile import Entity, SchemaProfile
from archetypes.query import EntityFilter, QuerySpec, Side
from archetypes.values import ValueRef, lemma, value_vocabulary

# 'vs', 'versus', 'compared to', 'against'; 'or' only where the question asks which of them
_LINK = re.compile(r"\s+(vs\.?|v\.|versus|compared\s+(?:to|with)|against)\s+")
_OR = re.compile(r"\s+(or)\s+")
_LEADING = frozenset({"the", "our", "in", "for", "at", "of", "from"})
_NOT_A_SIDE = lexicon.TIME_WORDS | frozenset(lexicon.OPERATORS)  # a short word (us) only next to a value like it
# 'did berlin or toronto do better', 'is rock or jazz bigger': which of them, asked without 'which'
_WHICH_DID_BETTER = re.compile(r"^\s*(?:did|does|do|is|was|are|were|has|have)\b.*\bor\b.*\b(?:better|worse|more|"
                               r"bigger|higher|stronger|weaker|larger|smaller|less|fewer|lower)\b")
MAX_READINGS = 8
MAX_SIDES = 5


@dataclass(frozen=True)
class Named:
    """One side as typed: its words and the values they name (per column)."""

    span: Span
    refs: tuple[ValueRef, ...]


@dataclass(frozen=True)
class Versus:
    sides: tuple[Named, ...]
    link: Span
    columns: tuple[tuple[str, str], ...]      # (table, column) holding every side, preferred first


def find(intent: Intent, profile: SchemaProfile) -> Versus | None:
    """The values compared side by side, or None when the sides are not values of one column."""
    lower = intent.lower
    link = _LINK.search(lower)
    if link is None and (re.search(r"\b(?:which|who)\b", lower) or _WHICH_DID_BETTER.search(lower)):
        link = _OR.search(lower)
    if link is None:
        return None
    group = 1
    tokens = [(m.group(0), m.start(), m.end()) for m in lexicon.TOKEN.finditer(lower)]
    left = [t for t in tokens if t[2] <= link.start(group)]
    right = [t for t in tokens if t[1] >= link.end(group)]
    first, second = _left_side(intent, profile, left), _right_side(intent, profile, right)
    if first is None or second is None:
        return None
    sides = [first, second]
    while len(sides) < MAX_SIDES and (more := _LINK.match(lower, sides[-1].span.end)) is not None:
        # 'uk vs usa vs france': every value named in the chain is a side
        following = _right_side(intent, profile, [t for t in tokens if t[1] >= more.end(1)])
        if following is None:
            break
        sides.append(following)
    columns = _shared_columns(intent, profile, tuple(sides))
    if not columns:
        return None
    span = Span(link.start(group), link.end(group), intent.question[link.start(group):link.end(group)])
    return Versus(tuple(sides), span, tuple(columns))


def _lookup(profile: SchemaProfile, intent: Intent, run: list[tuple[str, int, int]]) -> Named | None:
    vocab = value_vocabulary(profile)
    words = tuple(w for w, _, _ in run)
    if len(words) == 1 and (words[0] in _NOT_A_SIDE or words[0].isdigit()):
        return None
    refs = vocab.by_key.get(tuple(lemma(w) for w in words)) or vocab.by_key.get(words)
    if not refs:
        return None
    start, end = run[0][1], run[-1][2]
    return Named(Span(start, end, intent.question[start:end]), tuple(refs))


def _left_side(intent: Intent, profile: SchemaProfile, tokens: list[tuple[str, int, int]]) -> Named | None:
    """The value ending right before the comparison word, or one word before it ('the uk office vs ...')."""
    longest = value_vocabulary(profile).longest
    for skip in (0, 1):
        end = len(tokens) - skip
        if skip and (end <= 0 or not tokens[-1][0].isalpha()):
            break
        for size in range(min(longest, end), 0, -1):
            found = _lookup(profile, intent, tokens[end - size:end])
            if found is not None:
                return found
    return None


def _right_side(intent: Intent, profile: SchemaProfile, tokens: list[tuple[str, int, int]]) -> Named | None:
    """The value right after the comparison word (past an article)."""
    while tokens and tokens[0][0] in _LEADING:
        tokens = tokens[1:]
    longest = value_vocabulary(profile).longest
    for size in range(min(longest, len(tokens)), 0, -1):
        found = _lookup(profile, intent, tokens[:size])
        if found is not None:
            return found
    return None


def _shared_columns(intent: Intent, profile: SchemaProfile, sides: tuple[Named, ...]) -> list[tuple[str, str]]:
    """The columns holding every side, those of a table the question names first (as a value alone is read);
    a column no table of events reaches is no comparison."""
    held = [dict.fromkeys((r.table, r.column) for r in side.refs) for side in sides]
    shared = [c for c in held[0] if all(c in other for other in held[1:]) and _reachable(profile, c[0])]
    named = {t.entity.table for t in intent.targets}
    preferred = [c for c in shared if c[0] in named]
    if preferred:
        return preferred
    names = [c for c in shared if all(any(r.name_column for r in s.refs if (r.table, r.column) == c) for s in sides)]
    return names[:1] if len(names) == 1 and len(shared) > 1 else shared


def _reachable(profile: SchemaProfile, table: str) -> bool:
    return table in profile.facts or any(profile.path(f.table, table) is not None for f in profile.facts.values())


def claims(versus: Versus, mention: ValueMention) -> bool:
    """The mention is one of the sides (read here, not as a filter of its own)."""
    return any(s.span.start <= mention.span.start < s.span.end or mention.span.start <= s.span.start <
               mention.span.end for s in versus.sides)


def links(intent: Intent, spans: list[Span]) -> list[Span]:
    """The comparison words between consecutive sides ('vs' twice in 'uk vs usa vs france')."""
    found = []
    for before, after in zip(spans, spans[1:]):
        m = _LINK.match(intent.lower, before.end) or _OR.match(intent.lower, before.end)
        if m is not None and m.end() <= after.start + 1:
            found.append(Span(m.start(1), m.end(1), intent.question[m.start(1):m.end(1)]))
    return found


def asked(intent: Intent) -> list[Span]:
    """The comparative that asks which side wins ('did berlin or toronto do better'): read, as the sides are
    shown side by side."""
    m = _WHICH_DID_BETTER.search(intent.lower)
    if m is None:
        return []
    word = re.search(r"\b(?:better|worse)\b", intent.lower[m.start():m.end()])
    return [Span(m.start() + word.start(), m.start() + word.end(), intent.question[m.start() + word.start():
                                                                                m.start() + word.end()])] if word else []


def is_link(versus: Versus, mention: OperatorMention) -> bool:
    """The operator is a comparison word between the sides ('vs' in 'uk vs usa vs france')."""
    return versus.sides[0].span.end <= mention.span.start < versus.sides[-1].span.start


# -- readings -----------------------------------------------------------------------------------------

def _options(profile: SchemaProfile, side: Named, column: tuple[str, str]) -> list[Side]:
    """What one side can mean in one column: the values it names, and when its word is also part of other
    values ('metal' in Heavy Metal), all of them added up."""
    refs = [r for r in side.refs if (r.table, r.column) == column]
    exact = tuple(dict.fromkeys(r.value for r in refs))
    label = " + ".join(exact)
    options = [Side(label, exact)]
    if any(r.initials or r.demonym for r in refs):
        return options  # 'la', 'german': the abbreviation names its value, no other
    info = profile.tables[column[0]].column(column[1])
    term = re.compile(r"(?<!\w)" + re.escape(side.span.text.lower()) + r"(?!\w)")
    wider = sorted(s for s in (info.samples if info is not None else ()) if s not in exact and term.search(s.lower()))
    if wider:
        values = exact + tuple(wider)
        options.append(Side(" + ".join(values), values))
    return options


def _install(entity: Entity, sides: tuple[Side, ...]):
    def apply(spec: QuerySpec) -> None:
        if spec.sides:
            old = tuple(v for s in spec.sides for v in s.values)
            spec.filters = [f for f in spec.filters if not (f.values == old and not f.negate and f.column is None)]
        spec.filters.append(EntityFilter(entity, tuple(v for s in sides for v in s.values)))
        spec.group, spec.also_by, spec.limit, spec.sides = entity, None, None, sides
    return apply


def apply(versus: Versus, spec: QuerySpec, profile: SchemaProfile, intent: Intent) -> Detection | None:
    """The first reading applied to `spec`; the others as an entity detection when there are any."""
    from archetypes.entity import ARCHETYPE

    combos: list[tuple[tuple[str, str], tuple[Side, ...]]] = []
    for column in versus.columns:
        for sides in itertools.product(*[_options(profile, s, column) for s in versus.sides]):
            combos.append((column, tuple(sides)))
    combos = combos[:MAX_READINGS]
    readings = []
    for column, sides in combos:
        ref = next(r for r in versus.sides[0].refs if (r.table, r.column) == column)
        entity = ref.target(profile)
        said = "; ".join(f"{s.span.text} = {side.label}" for s, side in zip(versus.sides, sides))
        where = f" as {column[0]}.{column[1]}" if len(versus.columns) > 1 else ""
        named = " vs ".join(side.label for side in sides)
        value = f"{column[0]}.{column[1]}" if len({c for c, _ in combos}) == len(combos) else \
            f"{column[0]}.{column[1]}: {named}" if where else named
        readings.append(Reading(value, f"{said}{where}", _install(entity, sides)))
    readings[0].apply(spec)  # type: ignore[misc]
    if len(readings) == 1:
        return None
    start, end = versus.sides[0].span.start, versus.sides[-1].span.end
    span = Span(start, end, intent.question[start:end])
    asked = " and ".join(f"'{s.span.text}'" for s in versus.sides)
    return ARCHETYPE.detection(span, readings, question=f"Which {asked} do you mean?")


# -- names of rows ('iron maiden vs metallica') ------------------------------------------------------------

def named_rows(intent: Intent, matches: list) -> tuple[list[Span], Entity, tuple[Side, ...], Span] | None:
    """Rows named on both sides of the comparison word, each name one row of the same entity (names looked up
    live: archetypes.entity.name_matches gives (span, rows) pairs): the names' spans, the entity, the sides
    and the comparison word."""
    lower = intent.lower
    link = _LINK.search(lower) or (_OR.search(lower) if re.search(r"\b(?:which|who)\b", lower) else None)
    single = sorted(((span, pool[0]) for span, pool in matches if len(pool) == 1), key=lambda item: item[0].start)
    if link is None or not single:
        return None
    left = next((item for item in single if item[0].end == link.start()), None)
    if left is None:
        return None
    chain = [left]
    while link is not None and len(chain) < MAX_SIDES:
        after = re.match(r"(?:the\s+|our\s+)?", lower[link.end():])
        start = link.end() + (after.end() if after else 0)
        following = next((item for item in single if item[0].start == start), None)
        if following is None:
            break
        chain.append(following)
        link = _LINK.match(lower, following[0].end)
    entity = chain[0][1].entity
    if len(chain) < 2 or any(m.entity != entity for _, m in chain):
        return None
    sides = tuple(Side(m.name, (m.name,)) for _, m in chain)
    first = _LINK.search(lower) or _OR.search(lower)
    assert first is not None  # found above
    return [s for s, _ in chain], entity, sides, Span(first.start(1), first.end(1), intent.question[first.start(1):first.end(1)])


def install_rows(found: tuple[list[Span], Entity, tuple[Side, ...], Span], spec: QuerySpec) -> None:
    """The names' own filters (one row each, which no row holds together) become the sides."""
    _, entity, sides, _ = found
    names = {v for side in sides for v in side.values}
    spec.filters = [f for f in spec.filters if not (f.entity == entity and f.column is None and set(f.values) <= names)]
    _install(entity, sides)(spec)
