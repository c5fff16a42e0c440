"""A name that matches several distinct rows: 'revenue for Acme' (three clients), 'the Music playlist'
(two playlists of that name), 'Santana' (the artist and every 'Santana Feat. ...'). Options are live rows."""
from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, replace
from functools import lru_cache

from sqlglot import exp

from archetypes import lexicon
from archetypes.archetype import Archetype, Context
from archetypes.intent import Span
from archetypes.model import Detection, Reading
from archetypes.naming import fold, phrase, singular, slug, words
from archetypes.profile import Entity, SchemaProfile
from archetypes.query import EntityFilter, QuerySpec, col, literal, name_expression, table_ref
from archetypes.roles import OpenRole, role_name
from archetypes.values import MAX_KINDS, lemma

ID = "entity"
HEADER = "Which one"
WHEN = ("A name in the request matches several distinct records: three clients contain 'Acme', two playlists "
        "are called 'Music', 'Santana' is an artist and part of several other artists' names.")
ASK = "Which one do you mean?"
REASON = ("Each match is a different set of rows; adding them up or picking one silently gives a number for "
          "something the person did not ask about.")

ALL = "all_matches"
MAX_OPTIONS = 20
_SAFE_TERM = re.compile(r"[^\w\s'’&./\-]", re.UNICODE)


@dataclass(frozen=True)
class Match:
    entity: Entity
    key: str | None
    name: str


def known_filters(ctx: Context) -> list[EntityFilter]:
    """The rows the question names without ambiguity: a key ('store 3'), or a name matching one row."""
    found = [EntityFilter(entity, (value,), column=entity.key[0]) for entity, value, _ in ctx.intent.key_refs]
    matched = name_matches(ctx)
    wider = ctx.extra.get("wider_names") or {}
    found += [_filter(pool[0]) for span, pool in matched if len(pool) == 1 and span not in wider]
    found += [EntityFilter(pool[0].entity, tuple(sorted({m.name for m in pool}))) for span, pool in name_matches(ctx)
              if len(pool) > 1 and _as_pattern(ctx, span, pool)]
    # ('customer 42' is a key and a name of that row: one filter)
    return [f for i, f in enumerate(found) if not any(_same_rows(f, g) for g in found[:i])]


def _same_rows(a: EntityFilter, b: EntityFilter) -> bool:
    return a.entity.table == b.entity.table and a.values == b.values and a.negate == b.negate and \
        (a.column or a.entity.key[:1] and a.entity.key[0]) == (b.column or b.entity.key[:1] and b.entity.key[0])


_PATTERN_BEFORE = re.compile(r"\b(?:contains?|containing|includes?|including|matching|match|like|with)\s+(?:the\s+"
                             r"(?:word|text|name)\s+)?['\"“]?$")


def _as_pattern(ctx: Context, span: Span, pool: list[Match]) -> bool:
    """'clients whose name contains Acme': every match is asked for, not one of them."""
    return len({m.entity.table for m in pool}) == 1 and bool(_PATTERN_BEFORE.search(ctx.intent.lower[:span.start]))


def detect(ctx: Context) -> Detection | None:
    compared = {v for side in ctx.base.sides for v in side.values}
    present = [replace(f, via=None) for f in ctx.base.filters]  # a filter given its role is still the same one
    for flt in known_filters(ctx):
        if flt not in present and not (compared and set(flt.values) <= compared):
            ctx.base.filters.append(flt)  # one match: not ambiguous, the question means it (not a side compared)
    found: Detection | None = None
    wider = ctx.extra.get("wider_names") or {}
    for span, pool in name_matches(ctx):
        if span in wider and found is None:
            found = _wider_detection(span, pool[0], wider[span])
        if len(pool) == 1 or _as_pattern(ctx, span, pool):
            continue
        if found is not None:
            continue
        found = _detection(span, pool)
    return found


def _wider_detection(span: Span, exact: Match, holders: list[Match]) -> Detection:
    """'metal' where the kinds are Metal and Heavy Metal: the one kind of that name, or every kind whose name
    holds the word; the two count different rows."""
    one = EntityFilter(exact.entity, (exact.name,))
    every = EntityFilter(exact.entity, (exact.name, *sorted({m.name for m in holders})))
    readings = [Reading(slug(exact.name), f"{exact.name} only", _apply_value(one)),
                Reading(f"{slug(exact.name)}_and_more", f"every {exact.entity.noun} named '{span.text}': "
                        f"{', '.join(every.values)}", _apply_value(every))]
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}' do you mean?")


def _detection(span: Span, pool: list[Match]) -> Detection:
    names = [m.name for m in pool]
    duplicated = len(set(names)) < len(names)
    readings = []
    for match in pool[:MAX_OPTIONS]:
        value = f"{match.name} [{match.key}]" if duplicated and match.key is not None else match.name
        readings.append(Reading(value, f"{value} ({match.entity.noun})", _apply(_filter(match, duplicated))))
    tables = {m.entity.table for m in pool}
    entity = pool[0].entity
    if len(tables) == 1:
        combined = EntityFilter(entity, tuple(sorted({m.name for m in pool})))
        readings.append(Reading(ALL, f"All {len(pool)} matches combined", _apply(combined)))
    for reading in readings:
        reading.custom = lambda value, e=entity: Reading(value, f"{value} ({e.noun})",
                                                          _apply(EntityFilter(e, (value,))))
    return ARCHETYPE.detection(span, readings, kind="query_choice", question=f"Which '{span.text}' do you mean?",
                               sql=_lookup_sql(entity, span.text))


def _filter(match: Match, by_key: bool = False) -> EntityFilter:
    if by_key and match.key is not None and len(match.entity.key) == 1:
        return EntityFilter(match.entity, (match.key,), column=match.entity.key[0], shown=match.name)
    return EntityFilter(match.entity, (match.name,))


def _apply(flt: EntityFilter):
    def apply(spec: QuerySpec) -> None:
        spec.filters.append(flt)
    return apply


# -- live name lookups -----------------------------------------------------------------------------

def clean_term(term: str) -> str:
    cleaned = _SAFE_TERM.sub("", term.lower().replace("’", "'")).replace("%", "").replace("_", " ").strip()
    return re.sub(r"(?<=\w)'s$", "", cleaned)  # 'steve's email': the name is steve ('chef anton's' still matches)


def lookup_query(entity: Entity, term: str) -> exp.Select:
    """SELECT key, name FROM entity WHERE LOWER(name) LIKE '%term%' (the term is a quoted literal)."""
    name = name_expression(entity, "t0")
    key = col(entity.key[0], "t0") if len(entity.key) == 1 else exp.Null()
    return (exp.select(exp.alias_(key, "key", quoted=True), exp.alias_(name.copy(), "name", quoted=True))
            .from_(table_ref(entity.table, "t0"))
            .where(exp.Like(this=exp.Lower(this=name.copy()), expression=literal(f"%{clean_term(term)}%")))
            .order_by(exp.column("name", quoted=True), exp.column("key", quoted=True))
            .limit(MAX_OPTIONS * 3))


@lru_cache(maxsize=1024)
def _lookup_sql(entity: Entity, term: str) -> str:
    return lookup_query(entity, term).sql()


def name_matches(ctx: Context) -> list[tuple[Span, list[Match]]]:
    """Candidate names in the question with the rows they could mean (cached per profile and term)."""
    if "names" in ctx.extra:
        return ctx.extra["names"]
    found = []
    values = ctx.extra.get("value_spans") or []
    for span in ctx.intent.names:
        if any(v.start < span.end and span.start < v.end for v in values):
            continue  # a data value of a low-cardinality column: grounded as a filter already
        term = clean_term(span.text)
        if len(term) < 2 or known_value(ctx.profile, term):
            continue
        matches = _matches(ctx.profile, term, ctx.lookup)
        pool = _resolve(matches, term, _adjacent_tables(ctx, span), ctx.profile)
        if _CALLED.search(ctx.intent.lower[:span.start]) and any(fold(m.name) == fold(term) for m in pool):
            pool = [m for m in pool if fold(m.name) == fold(term)]  # 'the playlist called Music': that name, whole
        if span.text.islower() and " " not in term:
            whole = pool
            pool = _one_word_pool(pool, term)  # 'single track': a word inside one title is not its name
            holders = _kinds_holding(whole, pool, term, ctx)
            if holders:
                ctx.extra.setdefault("wider_names", {})[span] = holders
        if pool:
            found.append((span, pool))
    ctx.extra["names"] = found
    return found


_CALLED = re.compile(r"\b(?:called|named|titled)\s+[\"'“‘]?$")


def _adjacent_tables(ctx: Context, span: Span) -> tuple[set[str], set[str]]:
    """Tables named right next to the name ('the album X', 'the X playlist')."""
    before, after = set(), set()
    for target in ctx.intent.targets:
        gap = ctx.intent.lower[target.span.end:span.start].strip() if target.span.end <= span.start else None
        if gap in ("", "the", "called", "named", "titled"):
            before.add(target.entity.table)
        elif 0 <= target.span.start - span.end <= 2 and \
                target.span.text.lower() == singular(target.span.text.lower()):
            after.add(target.entity.table)  # 'the grunge playlist' is its name; 'iron maiden albums' are the band's
    return before, after


def _resolve(matches: list[Match], term: str, adjacent: tuple[set[str], set[str]],
             profile: SchemaProfile | None = None) -> list[Match]:
    """The rows the term could mean: whole-word matches, restricted to a table named just before the term
    ('the album X') or just after it when that table has the exact name ('the X playlist'); an exact name
    wins over other tables."""
    term = fold(term)
    pattern = re.compile(r"(?<!\w)" + re.escape(term) + r"(?!\w)")
    pool = [m for m in matches if pattern.search(fold(m.name))]
    before, after = adjacent
    exact = {m.entity.table for m in pool if fold(m.name) == term}
    near = {t for t in before if any(m.entity.table == t for m in pool)} or (after & exact)
    if near:
        pool = [m for m in pool if m.entity.table in near]
    exact = {m.entity.table for m in pool if fold(m.name) == term}
    if exact:  # and a person called by the first name ('frank': the album Frank, or Frank Harris)
        pool = [m for m in pool if m.entity.table in exact or _first_name(m, term)]
    if len(exact) > 1 and profile is not None and not near:
        # 'iron maiden': the artist, its album and its song share the name; the row the others point at
        # (the artist) is what a name alone means
        top = [t for t in exact if all(o == t or profile.path(o, t) is not None for o in exact)]
        if len(top) == 1:
            pool = [m for m in pool if m.entity.table == top[0] and fold(m.name) == term]
    seen: set[tuple[str, str | None, str]] = set()
    unique = []
    for match in sorted(pool, key=_order):
        marker = (match.entity.table, match.key, match.name)
        if marker not in seen:
            seen.add(marker)
            unique.append(match)
    return unique


def _order(match: Match) -> tuple:
    """Engine-independent order (collations differ): name case-insensitively, then key numerically."""
    key = match.key or ""
    return (match.name.lower(), match.name, int(key) if key.isdigit() else 0, key)


def known_value(profile: SchemaProfile, term: str) -> bool:
    """The term is a value of a plain text column ('Brazil' in a country column): a filter, not a name."""
    values = profile.cache.get("plain_values")
    if values is None:
        names = {(e.table, c) for e in profile.entities.values() for c in e.name_columns}
        values = {s.lower() for t in profile.tables.values() for c in t.columns
                  if c.family == "text" and (t.name, c.name) not in names for s in c.samples if len(s) <= 40}
        profile.cache["plain_values"] = values
    return term in values


def _matches(profile: SchemaProfile, term: str, lookup) -> list[Match]:
    key = ("names", term, lookup is not None)
    if key in profile.cache:
        return profile.cache[key]
    found: list[Match] = []
    for entity in profile.entities.values():
        if lookup is not None:
            try:
                rows = lookup(lookup_query(entity, term))
            except Exception:  # noqa: BLE001 - a failed lookup falls back to the sampled values
                rows = None
            if rows is not None:
                found.extend(Match(entity, None if r[0] is None else str(r[0]), str(r[1]))
                             for r in rows if len(r) > 1 and r[1] is not None)
                if not rows and len(term) >= 4:  # 'leonie kohler': LIKE keeps the accents of 'Köhler'
                    found.extend(m for m in _accented_names(profile, entity, lookup) if fold(term) in fold(m.name))
                continue
        if len(entity.name_columns) == 1:
            column = profile.tables[entity.table].column(entity.name_columns[0])
            if column is not None:
                found.extend(Match(entity, None, s) for s in column.samples if term in s.lower())
    profile.cache[key] = found
    return found


# 'more than once': a number of times, never a lowercase name looked up (the track 'Once'); left unread
# where no condition reads it
_COUNT_WORDS = frozenset({"once", "twice", "thrice"})

MAX_ACCENT_SCAN = 5000  # rows of names read once to match them without accents; larger tables are not scanned


def _accented_names(profile: SchemaProfile, entity: Entity, lookup) -> list[Match]:
    """The names of the entity holding a letter outside ASCII, read once per profile (no engine folds accents
    the same way: SQLite's LOWER does not, MariaDB's collation does)."""
    key = ("accented names", entity.table)
    if key in profile.cache:
        return profile.cache[key]
    found: list[Match] = []
    if profile.tables[entity.table].row_count <= MAX_ACCENT_SCAN:
        name = name_expression(entity, "t0")
        keyed = col(entity.key[0], "t0") if len(entity.key) == 1 else exp.Null()
        query = exp.select(exp.alias_(keyed, "key", quoted=True), exp.alias_(name, "name", quoted=True)) \
            .from_(table_ref(entity.table, "t0")).limit(MAX_ACCENT_SCAN)
        try:
            rows = lookup(query)
        except Exception:  # noqa: BLE001 - a failed scan only means no accent-free match
            rows = []
        found = [Match(entity, None if r[0] is None else str(r[0]), str(r[1])) for r in rows or []
                 if len(r) > 1 and r[1] is not None and not str(r[1]).isascii()]
    profile.cache[key] = found
    return found


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)


# -- names typed in lowercase ----------------------------------------------------------------------

_NAME_JOINERS = frozenset({"", "&", "/", "-", "'", "’", "&amp;"})
MAX_NAME_WORDS = 4
MAX_ONE_WORD_MATCHES = 5


def lowercase_names(intent, profile: SchemaProfile, lookup, taken: list[Span]) -> list[Span]:
    """Names typed the way people type them ('acme', 'iron maiden', 'chef anton', 'ac/dc'): runs of words
    no other reader knows, looked up live among the rows' names. A run of several words must match a name
    as a phrase; one word must begin a name or be one, so that an ordinary word ('well') inside a long
    title is not taken for it."""
    from archetypes.intent import STOPWORDS, vocabulary

    if lookup is None:
        return []
    schema = vocabulary(profile)
    known = lexicon.FUNCTION_WORDS | lexicon.TIME_WORDS | lexicon.FACT_WORDS | frozenset(lexicon.OPERATORS)

    def unknown(word: str, start: int) -> bool:
        if any(s.start <= start < s.end for s in taken):
            return False
        base = singular(word)
        # ('people' is who is counted, never the department 'People Ops' typed in lowercase)
        return not (word in known or base in known or word in STOPWORDS or word.isdigit() or word[0] in "#$€£¥%"
                    or base in lexicon.PEOPLE_NOUNS or word in lexicon.PEOPLE_NOUNS
                    or base in schema.known or word in schema.known or (base,) in schema.tables
                    or word in _COUNT_WORDS)

    runs: list[list[tuple[str, int, int]]] = []
    previous_end = -10
    for m in lexicon.TOKEN.finditer(intent.lower):
        word, start, end = m.group(0), m.start(), m.end()
        if not unknown(word, start):
            previous_end = -10
            continue
        gap = intent.lower[previous_end:start].strip() if previous_end >= 0 else None
        if runs and gap in _NAME_JOINERS:
            runs[-1].append((word, start, end))
        else:
            runs.append([(word, start, end)])
        previous_end = end
    found: list[Span] = []
    for run in runs:
        found += [_whole_name(span, intent, profile, lookup)
                  for span in _names_in_run(run[:MAX_NAME_WORDS], intent, profile, lookup)]
    return found


MAX_NAME_TAIL = 4  # words past a name's first ones that may still be the name ('stairway' ... 'to heaven')


def _whole_name(span: Span, intent, profile: SchemaProfile, lookup, *, grammar_only: bool = False,
                shortest: int = 2) -> Span:
    """The span grown over the words around it while they are, with it, part of a row's name, kept where the
    whole is a name ('stairway to heaven': 'to' is grammar, yet part of the title; 'back to black'); else the span
    as found. `grammar_only` grows it over grammar words alone, into a name of at least `shortest` words. Grown
    one word at a time, each step looked up: a few lookups, not one per combination."""
    tokens = list(lexicon.TOKEN.finditer(intent.lower))
    tail = [m for m in tokens if m.start() >= span.end][:MAX_NAME_TAIL]
    head = [m for m in tokens if m.end() <= span.start][-MAX_NAME_TAIL:][::-1]
    if grammar_only:
        tail = list(itertools.takewhile(lambda m: m.group(0) in lexicon.FUNCTION_WORDS, tail))
        head = list(itertools.takewhile(lambda m: m.group(0) in lexicon.FUNCTION_WORDS, head))
    own = len(lexicon.TOKEN.findall(span.text))

    def names(start: int, end: int) -> list[Match]:
        term = clean_term(intent.question[start:end])
        return _matches(profile, term, lookup) if len(term) >= 3 else []

    start, end, best = span.start, span.end, span
    size = own
    for side, steps in (("right", tail), ("left", head)):
        for m in steps:
            grown = (start, m.end()) if side == "right" else (m.start(), end)
            found = names(*grown)
            if not found:
                break
            start, end, size = grown[0], grown[1], size + 1
            term = fold(clean_term(intent.question[start:end]))
            if size >= shortest and any(fold(x.name) == term for x in found):
                best = Span(start, end, intent.question[start:end])
    return best


def titles_around_values(intent, profile: SchemaProfile, lookup, spans: list[Span]) -> list[Span]:
    """'revenue from let there be rock': a value ('rock', a genre) with the grammar words around it is the whole
    title of a row: the title, not the value."""
    if lookup is None:
        return []
    out = []
    for span in spans:
        grown = _whole_name(span, intent, profile, lookup, grammar_only=True, shortest=3)
        if grown != span:
            out.append(grown)
    return out


def _kinds_holding(whole: list[Match], pool: list[Match], term: str, ctx: Context) -> list[Match]:
    """The other kinds whose names hold the one kind's name as a word ('Heavy Metal' for 'metal', 'Rock And
    Roll' for 'rock'), in a short list of kinds (a genre, a category; not titles of things), unless the
    question names them too."""
    kinds = {singular(w) for w in words(pool[0].entity.table)} & lexicon.KIND_TABLE_WORDS if pool else set()
    if len(pool) != 1 or fold(pool[0].name) != fold(term) or pool[0].entity.row_count > MAX_KINDS or not kinds:
        return []  # 'airpods': a product, and 'AirPods Pro' another one, not a kind of it
    question = fold(ctx.intent.lower)
    return [m for m in whole if m.entity.table == pool[0].entity.table and m.name != pool[0].name and
            fold(m.name) not in question]


def _one_word_pool(pool: list[Match], term: str) -> list[Match]:
    """One lowercase word names rows only as a whole name, or as the first word of a few names and of nothing
    else ('acme', 'iphone'); an ordinary word inside titles ('live', 'single') names none."""
    term = fold(term)
    begins = re.compile(r"^" + re.escape(term) + r"(?!\w)")
    starting = [m for m in pool if begins.search(fold(m.name))]
    exact = [m for m in pool if fold(m.name) in (term, f"the {term}")]  # 'trooper': The Trooper, its 'the' grammar
    if exact:
        return exact + [m for m in pool if _first_name(m, term)]
    if lemma(term) != term and not (term.endswith("s") and term.startswith(lemma(term))):
        return []  # an inflected word ('wrote', 'sold') begins a title ('Wrote A Song For Everyone'), names nothing;
        # a plural noun ('cables') may begin a name ('Cables & Chargers') as it is
    if len(starting) == len(pool) <= MAX_ONE_WORD_MATCHES:
        return starting
    # 'jane': a person's first name (Jane Peacock) before a title that merely holds the word ('Mary Jane')
    people = [m for m in starting if _first_name(m, term)]
    return people if len(people) <= MAX_ONE_WORD_MATCHES else []


# people nouns whose rows are often bands or firms ('Frank Zappa & Captain Beefheart', 'Frankenversand')
_STAGE_NAMES = frozenset({"artist", "author", "supplier", "vendor", "seller", "owner", "account", "contact"})


def _first_name(match: Match, term: str) -> bool:
    """A person (a first and a last name, or a row of people) whose first name is the term."""
    noun = singular(match.entity.noun.split()[-1])
    person = len(match.entity.name_columns) > 1 or noun in lexicon.PEOPLE_NOUNS and noun not in _STAGE_NAMES
    return person and fold(match.name).startswith(fold(term) + " ")


MAX_TITLE_WORDS = 8


def _names_of(entity: Entity, term: str, lookup, profile: SchemaProfile) -> list[str]:
    """The names of `entity`'s rows holding `term` (one lookup, cached), not every table's."""
    key = ("names of", entity.table, term)
    if key not in profile.cache:
        try:
            rows = lookup(lookup_query(entity, term))
        except Exception:  # noqa: BLE001 - a failed lookup names nothing
            rows = []
        profile.cache[key] = [str(r[1]) for r in rows if len(r) > 1 and r[1] is not None]
    return profile.cache[key]


def titles_after_nouns(intent, profile: SchemaProfile, lookup) -> list[Span]:
    """'the album let there be rock', 'the song back in black': the words right after a table's noun that are,
    whole, the name of one of its rows, however common each word is ('rock' is also a genre, 'let there be'
    grammar). Looked up live; the longest run that is a whole name wins."""
    if lookup is None:
        return []
    found: list[Span] = []
    tokens = list(lexicon.TOKEN.finditer(intent.lower))
    for target in intent.targets:
        entity = profile.entities.get(target.entity.table)
        if entity is None or entity.column_only or not entity.name_columns:
            continue
        after = [m for m in tokens if m.start() >= target.span.end][:MAX_TITLE_WORDS]
        if after and after[0].group(0) in ("called", "named", "titled"):
            after = after[1:]
        for size in range(len(after), 0, -1):
            start, end = after[0].start(), after[size - 1].end()
            text = intent.question[start:end]
            term = clean_term(text)
            if len(term) < 3 or size == 1 and term in lexicon.FUNCTION_WORDS:
                continue
            if any(fold(name) == fold(term) for name in _names_of(entity, term, lookup, profile)):
                found.append(Span(start, end, text))
                break
    return found


def _names_in_run(run: list[tuple[str, int, int]], intent, profile: SchemaProfile, lookup) -> list[Span]:
    """The longest sub-run, from the left, that names rows."""
    out: list[Span] = []
    index = 0
    while index < len(run):
        for size in range(len(run) - index, 0, -1):
            start, end = run[index][1], run[index + size - 1][2]
            text = intent.question[start:end]
            term = clean_term(text)
            if len(term) < 3:
                continue
            pool = _resolve(_matches(profile, term, lookup), term, (set(), set()), profile)
            if size == 1:
                pool = _one_word_pool(pool, term)
            if pool and len(pool) <= MAX_OPTIONS:
                out.append(Span(start, end, text))
                index += size
                break
        else:
            index += 1
    return out


def value_columns_detection(span: Span, refs: list, profile: SchemaProfile, negate: bool = False) -> Detection:
    """A value held by several columns ('USA': the customer's country and the invoice's billing country):
    one reading per column, each filtering on that column. Reporting it read without a filter would answer
    a question about every country."""
    readings = []
    columns = list(dict.fromkeys((r.table, r.column) for r in refs))
    targets = {(t, c): next(r for r in refs if (r.table, r.column) == (t, c)).target(profile) for t, c in columns}
    nouns = [e.noun for e in targets.values()]
    for table, column in columns:
        chosen = [r for r in refs if (r.table, r.column) == (table, column)]
        target = targets[(table, column)]
        if nouns.count(target.noun) > 1:  # 'country' of the clients or of the staff: said whose
            target = replace(target, noun=f"{phrase(table)}'s {target.noun}")
        flt = EntityFilter(target, tuple(dict.fromkeys(r.value for r in chosen)), negate=negate)
        readings.append(Reading(f"{table}.{column}", f"{span.text} as {table}.{column}", _apply_value(flt)))
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}' do you mean?")


def wider_value_detection(span: Span, ref, wider: tuple[str, ...], profile: SchemaProfile) -> Detection:
    """'metal' where the kinds are Metal and Heavy Metal: the one kind of that name, or every kind whose name
    holds the word; the two count different rows."""
    entity = ref.target(profile)
    one = EntityFilter(entity, (ref.value,))
    every = EntityFilter(entity, (ref.value, *wider))
    readings = [Reading(slug(ref.value), f"{ref.value} only", _apply_value(one)),
                Reading(f"{slug(ref.value)}_and_more", f"every {entity.noun} named '{span.text}': "
                        f"{', '.join(every.values)}", _apply_value(every))]
    return ARCHETYPE.detection(span, readings, question=f"Which '{span.text}' do you mean?")


def territories_detection(span: Span, ref, held: tuple[str, ...]) -> Detection:
    """'shops in the us' where Puerto Rico is a country row of its own: the country alone (the filter as read,
    through whichever role it was read with), or with its territories."""
    def with_territories(spec: QuerySpec) -> None:
        def widened(flt: EntityFilter) -> EntityFilter:
            if flt.negate or flt.values != (ref.value,) or flt.entity.table != ref.table:
                return flt
            return EntityFilter(flt.entity, (ref.value, *held), column=flt.column, via=flt.via, shown=flt.shown)
        spec.filters = [widened(f) for f in spec.filters]
        spec.share_filters = [widened(f) for f in spec.share_filters]

    readings = [Reading(slug(ref.value), f"{ref.value} only", lambda spec: None),
                Reading(f"{slug(ref.value)}_and_territories", f"{ref.value} with its territories: {', '.join(held)}",
                        with_territories)]
    return ARCHETYPE.detection(span, readings, question=f"'{span.text}' alone, or with its territories "
                                                        f"({', '.join(held)})?")


def _apply_value(flt: EntityFilter):
    def apply(spec: QuerySpec) -> None:
        spec.filters.append(flt)
        if flt.entity.table in spec.counted_by_value:  # 'how many surgeries': the rows of that kind, counted
            spec.fact, spec.measure = spec.counted_by_value[flt.entity.table]
            spec.count_table = None
        if spec.shape == "share" and not spec.share_filters and not spec.share_conditions:
            spec.share_filters.append(flt)  # the value is the part of a share ('share of revenue from laptops');
            # with a part already named ('cancelled ... in porto') the place scopes the whole
    return apply


def role_detection(span: Span, role: OpenRole, spec: QuerySpec) -> Detection:
    """One reading per table the filter's or the group's rows are reached through: 'germany' as the customer's
    country or as the store's."""
    readings = [Reading(f"via_{option.via}", option.label(role.goal), _apply_role(role.index, option.via))
                for option in role.options]
    what = phrase(role.goal) or role.goal
    return ARCHETYPE.detection(span, readings, question=f"Whose {what}: " +
                               " or ".join(f"the {role_name(o.via)}'s" for o in role.options) + "?")


def _apply_role(index: int | None, via: str):
    def apply(spec: QuerySpec) -> None:
        if index is None:
            spec.group_via = via
        elif index < len(spec.filters):
            old = spec.filters[index]
            spec.filters[index] = replace(old, via=via)
            spec.share_filters = [spec.filters[index] if f is old else f for f in spec.share_filters]
    return apply
