"""The schema, not the wording, is ambiguous: a question word reaches the same data through several tables or
columns. A column also kept in a table split off from its base ('country': `singer.country` or
`singer_country.country` joined on the key), a precomputed aggregate table next to the rows it summarises
('average age': `AVG(singer.age)` or `singer_age.avg_age`), two tables with the same columns, or one word that
fits several columns of the table asked about ('customer name': a company name or a contact name).

One reading per mapping: the statement as named, then the same statement read through each other mapping
(`archetypes.expand.apply_mappings`), so every reading runs side by side like any archetype's.
"""
from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from sqlglot import exp

from archetypes.archetype import Archetype, Context
from archetypes.expand import apply_mappings
from archetypes.intent import Span, stem
from archetypes.mappings import Mapping, norm, schema_mappings
from archetypes.model import Detection, Reading
from archetypes.naming import singular, words
from archetypes.profile import SchemaProfile
from archetypes.query import QuerySpec, build, col, literal, table_ref

ID = "schema_mapping"
HEADER = "Which data"
WHEN = ("A word in the request reaches the same data through several parts of the schema: a column kept both in "
        "a table and in a table split off from it, a precomputed aggregate table next to the rows it summarises, "
        "two tables with the same columns, or several columns of one table that fit the word.")
ASK = "Which table or column should this come from?"
REASON = ("Each mapping is a different query; a split-off or precomputed table can hold other values than the "
          "rows it came from, so the answers can differ, and a prompt author cannot tell from one SQL statement "
          "that it was one of several.")

MAX_READINGS = 6
_GENERIC = frozenset({"id", "in", "of", "the", "a", "an", "and", "or", "to", "by", "per", "num", "no", "is", "yn",
                      "at", "on", "for", "with", "from", "as", "nr", "pk", "fk"})
# everyday words for what a column holds (generic English, like intent.SYNONYMS for tables)
_WORD_SYNONYMS = {"old": "age", "older": "age", "oldest": "age", "young": "age", "younger": "age",
                  "youngest": "age", "tall": "height", "taller": "height", "tallest": "height", "heavy": "weight",
                  "heavier": "weight", "heaviest": "weight", "expensive": "price", "cheap": "price",
                  "cheapest": "price", "costly": "price", "nation": "country", "nationality": "country",
                  "attendee": "attendance", "attendees": "attendance", "born": "birth", "earn": "salary",
                  "earns": "salary", "paid": "salary", "wage": "salary", "wages": "salary"}
_NAMEISH = frozenset({"name", "date", "title", "phone", "address", "email", "city", "country", "price", "code",
                      "number", "description", "status", "type", "region", "time"})
# question words for an aggregate, by function
_AGGREGATE_WORDS = [
    ("max", r"max(?:imum|imal)?|highest|largest|biggest|greatest|most expensive|priciest|longest|oldest|latest|"
            r"last|final|most recent|top"),
    ("min", r"min(?:imum|imal)?|lowest|smallest|least|fewest|cheapest|shortest|youngest|earliest|first"),
    ("avg", r"average|avg|mean|typical"),
    ("sum", r"total|sum|overall|combined|altogether|in all|all together"),
]
_AGGREGATE = [(f, re.compile(r"\b(?:" + p + r")\b")) for f, p in _AGGREGATE_WORDS]
_WEAK_SUM = re.compile(r"\b(?:how many|how much|number of)\b")  # a sum only when nothing else is asked
_NEGATED = re.compile(r"(?:\bnot|n't|\bexcept|\bother than|\bexcluding|!=|<>)\s*(?:in\s+|equal to\s+|the\s+)?[\"'“]?$")
_GROUP = re.compile(r"\b(?:for each|for every|each|per|by|grouped by|different)\s+(?:the\s+)?(?!all\b)"
                    r"([a-z][a-z ]{0,40})")


# -- question terms -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Mention:
    table: str
    column: str
    span: Span
    full: bool                             # every content word of the column is in the question (or its compact name)
    matched: frozenset[str] = frozenset()  # the column's words the question has
    size: int = 1                          # how many of the column's words (tokens) the mention spans


def _tokens(ctx: Context) -> list[tuple[str, int, int]]:
    return ctx.intent.tokens


# Both are pure functions of short strings, called for every (column word, question token) pair of a
# schema: memoised, detection stays in the thousands of questions per second.
@functools.lru_cache(maxsize=65536)
def _forms(token: str) -> frozenset[str]:
    return frozenset({token, singular(token), stem(token), stem(singular(token))})


@functools.lru_cache(maxsize=262144)
def _word_hits(word: str, token: str) -> bool:
    if word == token or _forms(word) & _forms(token) or _WORD_SYNONYMS.get(token) == word:
        return True
    if len(word) >= 3 and len(token) >= len(word) + 2 and token.startswith(word):
        return True  # lat -> latitude, long -> longitude
    common = len(_common_prefix(word, token))
    return common >= 5 and len(word) - common <= 3 and len(token) - common <= 3  # arrived / arrival


def _common_prefix(a: str, b: str) -> str:
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return a[:n]


@functools.lru_cache(maxsize=16384)
def _column_words(column: str) -> tuple[list[str], str]:
    """The column's content words and its compact name ('surfacearea')."""
    return [w for w in words(column) if w not in _GENERIC], "".join(words(column))


@functools.lru_cache(maxsize=4096)
def _windows(tokens: tuple[tuple[str, int, int], ...]) -> dict[str, tuple[int, int, int]]:
    """Two and three adjacent tokens written together, and their singular: (start, end, size), first wins."""
    found: dict[str, tuple[int, int, int]] = {}
    for size in (2, 3):
        for index in range(len(tokens) - size + 1):
            window = tokens[index:index + size]
            joined = "".join(t for t, _, _ in window)
            for key in (joined, singular(joined)):
                found.setdefault(key, (window[0][1], window[-1][2], size))
    return found


@functools.lru_cache(maxsize=4096)
def _compounds(tokens: tuple[tuple[str, int, int], ...]) -> dict[str, tuple[int, int]]:
    """Two tokens at most three apart written together, in either order, singular or not: (start, end)."""
    found: dict[str, tuple[int, int]] = {}
    for index, (token, start, _) in enumerate(tokens):
        for later in tokens[index + 1:index + 4]:
            for a in (token, singular(token)):
                for b in (later[0], singular(later[0])):
                    found.setdefault(a + b, (start, later[2]))
                    found.setdefault(b + a, (start, later[2]))
    return found


def mention(table: str, column: str, tokens: list[tuple[str, int, int]], question: str) -> Mention | None:
    """Where the question names `table.column`: by its words (singular, stem, abbreviation), its compact
    name split over tokens ('surface area' for surfacearea), or a word inside a compound name ('fee' in
    campusfee)."""
    parts, compact = _column_words(column)
    if not parts or not tokens:
        return None
    hits: list[tuple[int, int, str]] = []
    matched: set[str] = set()
    for part in parts:
        for token, start, end in tokens:
            if _word_hits(part, token):
                hits.append((start, end, part))
                matched.add(part)
    windows = _windows(tuple(tokens))
    window = windows.get(compact) or windows.get(singular(compact))
    if window is not None:
        start, end, size = window
        return Mention(table, column, Span(start, end, question[start:end]), True, frozenset(parts), size)
    if len(parts) == 1 and len(compact) >= 6:
        # a compound name in words, in either order, a short word between: 'type of pet' for pettype
        compound = _compounds(tuple(tokens)).get(compact)
        if compound is not None:
            start, end = compound
            return Mention(table, column, Span(start, end, question[start:end]), True, frozenset(parts), 2)
    if len(parts) == 1 and len(compact) >= 6:
        for token, start, end in tokens:
            if 3 <= len(token) <= len(compact) - 3 and token not in _GENERIC and (
                    compact.startswith(token) or compact.endswith(token) or compact.endswith(singular(token))):
                hits.append((start, end, token))
                matched.add(token)
    if not hits:
        return None
    hits.sort()
    start, end, first = hits[0]
    seen = {first}
    for begin, finish, part in hits[1:]:  # the first run of other words close by ('release year')
        if begin - end > 12:
            break
        if part not in seen:
            seen.add(part)
            end = max(end, finish)
    return Mention(table, column, Span(start, end, question[start:end]), matched >= set(parts), frozenset(matched),
                   len(matched))


_WEAK = frozenset({"number", "count", "amount", "total", "value", "type", "code", "date", "time", "name", "first",
                   "last", "used", "other"})


def _table_words(table: str) -> set[str]:
    return {singular(w) for w in words(table)} | set(words(table))


def _table_named(ctx: Context, table: str, tokens: list[tuple[str, int, int]]) -> bool:
    """The question names the table: one of its (non-generic) words, or a profile target for it."""
    if any(t.entity.table == table for t in ctx.intent.targets):
        return True
    whole = mention(table, table, tokens, ctx.question)
    if whole is not None and whole.full:
        return True
    own = [w for w in words(table) if w not in _GENERIC and len(w) > 2]
    return any(_word_hits(w, token) for w in own for token, _, _ in tokens)


def _naming_span(ctx: Context, table: str, tokens: list[tuple[str, int, int]]) -> Span | None:
    """Where the question names the table by all the words of its name ('tv channel', 'owners'), or where a
    profile target for it is; None when it does not."""
    target = next((t for t in ctx.intent.targets if t.entity.table == table and not t.entity.column_only), None)
    if target is not None:
        return target.span
    whole = mention(table, table, tokens, ctx.question)
    return whole.span if whole is not None and whole.full else None


def accepted_mention(ctx: Context, table: str, column: str,
                     tokens: list[tuple[str, int, int]]) -> Mention | None:
    """`mention`, kept only when it points at this column of this table: the table is named in the question
    (or the column only exists there, or the mention is a full name of two words or more); no other column
    of the table is named more fully over the same words ('bed type' is bedtype, not beds); and a partial
    mention rests on a word no other column of the table has, that is neither the table's own noun nor a
    weak word like 'number' or 'amount'."""
    found = _mentions(ctx, table, tokens)
    hit = found.get(column)
    if hit is None:
        return None
    info = ctx.profile.tables[table]
    parts = [w for w in words(column) if w not in _GENERIC]
    related = {m.other_table for m in schema_mappings(ctx.profile) if m.table == table} | {table}
    elsewhere = [n for n, t in ctx.profile.tables.items() if n not in related and t.column(column) is not None]
    if not _table_named(ctx, table, tokens):
        if not (hit.full and len(parts) >= 2) and (not hit.full or any(_table_named(ctx, n, tokens)
                                                                       for n in elsewhere)):
            return None  # the question points at another table with this column, or only half names it
        if any(n not in related and {singular(w) for w in hit.matched} <= _table_words(n)
               and _table_named(ctx, n, tokens)
               for n in ctx.profile.tables):
            return None  # 'customer' names the customer table, not bank.no_of_customers
    for other, theirs in found.items():
        if other == column or not theirs.full or theirs.size <= hit.size:
            continue
        if theirs.span.start <= hit.span.start and hit.span.end <= theirs.span.end:
            return None
    if hit.full:
        return hit
    evidence = set(hit.matched) - _WEAK - _table_words(table)
    if not evidence:
        return None
    for other_column in info.columns:
        if other_column.name == column:
            continue
        names = set(words(other_column.name))
        if evidence & (names | {singular(w) for w in names}):
            return None
    return hit


def _mentions(ctx: Context, table: str, tokens: list[tuple[str, int, int]]) -> dict[str, Mention]:
    key = f"mentions:{table}"
    if key not in ctx.extra:
        found: dict[str, Mention] = {}
        for column in ctx.profile.tables[table].columns:
            hit = mention(table, column.name, tokens, ctx.question)
            if hit is not None:
                found[column.name] = hit
        ctx.extra[key] = found
    return ctx.extra[key]


def aggregates_near(ctx: Context, span: Span) -> list[str]:
    """Aggregate functions the question asks of the words at `span`, in the question's order: those in the
    60 characters before it, else anywhere in the question; 'how many' / 'number of' is a sum only when no
    other aggregate is asked."""
    lower = ctx.intent.lower
    begin = max(0, span.start - 60)
    for text, _offset in ((lower[begin:span.start], begin), (lower, 0)):
        found = sorted((m.start(), function) for function, pattern in _AGGREGATE for m in pattern.finditer(text))
        if not found and _WEAK_SUM.search(text):
            found = [(0, "sum")]
        if found:
            ordered: list[str] = []
            for _, function in found:
                if function not in ordered:
                    ordered.append(function)
            return ordered
    return []


# -- detection ---------------------------------------------------------------------------------------

@dataclass
class Found:
    mention: Mention
    groups: list[list[Mapping]]     # each group is one alternative reading


def detect(ctx: Context) -> Detection | None:
    found = _static_matches(ctx) or _column_matches(ctx)
    if not found:
        return None
    return _detection(ctx, found)


def _static_matches(ctx: Context) -> list[Found]:
    """Split, aggregate and twin mappings whose named column (or table) the question mentions."""
    mappings = schema_mappings(ctx.profile)
    if not mappings:
        return []
    tokens = _tokens(ctx)
    values = _question_values(ctx)
    by_column: dict[tuple[str, str], list[Mapping]] = {}
    twins: dict[str, list[Mapping]] = {}
    for mapping in mappings:
        if mapping.kind == "twin":
            twins.setdefault(mapping.table, []).append(mapping)
        elif mapping.column:
            by_column.setdefault((mapping.table, mapping.column), []).append(mapping)
    found: list[Found] = []
    for (table, column), group in by_column.items():
        hit = accepted_mention(ctx, table, column, tokens) or _value_mention(
            ctx, [(table, column)] + [(m.other_table, m.other_column or "") for m in group], values)
        if hit is None:
            continue
        splits = [m for m in group if m.kind == "split"]
        aggregates = [m for m in group if m.kind == "aggregate"]
        if aggregates:
            asked = aggregates_near(ctx, hit.span)
            aggregates = [m for m in aggregates if m.function in asked]
        groups = _by_other_table(splits) + _by_other_table(aggregates) + [[m] for m in group if m.kind == "column"]
        if groups:
            found.append(Found(hit, groups))
    for table, group in twins.items():
        if found and any(f.mention.table == table for f in found):
            continue
        hit = _table_mention(ctx, table, tokens)
        if hit is not None and not any(f.mention.table in {m.other_table for m in group} for f in found):
            found.append(Found(hit, [[m] for m in group]))
    found.sort(key=lambda f: (not f.mention.full, f.mention.span.start))
    return found


def _by_other_table(mappings: list[Mapping]) -> list[list[Mapping]]:
    groups: dict[str, list[Mapping]] = {}
    for mapping in mappings:
        groups.setdefault(mapping.other_table, []).append(mapping)
    return list(groups.values())


def _table_mention(ctx: Context, table: str, tokens: list[tuple[str, int, int]]) -> Mention | None:
    """A twin table is mentioned by its name or by one of its non-key columns."""
    hit = mention(table, table, tokens, ctx.question)
    if hit is not None and hit.full:
        return Mention(table, "", hit.span, True)
    twins = {table} | {m.other_table for m in schema_mappings(ctx.profile) if m.kind == "twin" and m.table == table}
    own = [m.span for m in _mentions(ctx, table, tokens).values()]
    for name in ctx.profile.tables:
        span = _naming_span(ctx, name, tokens) if name not in twins else None
        if span is not None and not any(a.start < span.end and span.start < a.end for a in own):
            return None  # the question is about another table; a column name they share does not make it this one
    info = ctx.profile.tables[table]
    for column in info.columns:
        if column.name in info.primary_key or words(column.name)[-1:] == ("id",):
            continue
        hit = accepted_mention(ctx, table, column.name, tokens)
        if hit is not None and hit.full:
            return Mention(table, "", hit.span, True)
    return None


def _question_values(ctx: Context) -> list[Span]:
    return list(ctx.intent.names)


def _value_mention(ctx: Context, columns: list[tuple[str, str]], values: list[Span]) -> Mention | None:
    """A value in the question that is a sampled value of the column, or of the column it maps to ('Portugal'
    only in the split-off table)."""
    table, column = columns[0]
    for span in values:
        for name, other in columns:
            info = ctx.profile.tables.get(name)
            found = info.column(other) if info is not None and other else None
            if found is not None and span.text.lower() in {s.lower() for s in found.samples}:
                return Mention(table, column, span, True, frozenset(), 1)
    return None


def _column_matches(ctx: Context) -> list[Found]:
    """One word, several columns of the table asked about ('customer name': company or contact name), or a
    column the profile's synonyms point the word at. Only for a table the question names, only when no column
    of it is named exactly by the word or by the word and its neighbour."""
    found: list[Found] = []
    tokens = _tokens(ctx)
    subjects = []
    for target in ctx.intent.targets:
        if not target.entity.column_only and target.entity.table not in subjects:
            subjects.append(target.entity.table)
    for table in ctx.profile.tables:  # tables without a name column ('shipments') named in the question
        hit = mention(table, table, tokens, ctx.question)
        if hit is not None and hit.full and table not in subjects:
            subjects.append(table)
    synonyms = _synonym_columns(ctx.profile)
    flagged = list(getattr(ctx.grounding, "flags", None) or [])  # 'shipped past the due date': a condition read
    for index, (token, start, end) in enumerate(tokens):
        word = singular(token)
        if any(f.start <= start < f.end for f in flagged):
            continue
        listed = synonyms.get(word) or synonyms.get(token)
        if listed and len(listed) > 1:
            table, first = listed[0]
            group = [[Mapping("column", table, first, t, c)] for t, c in listed[1:] if t == table]
            if group:
                found.append(Found(Mention(table, first, Span(start, end, ctx.question[start:end]), True), group))
                continue
        if word not in _NAMEISH:
            continue
        for table in subjects:
            candidates = _columns_ending_in(ctx.profile, table, word)
            if len(candidates) < 2 or _named_exactly(ctx.profile, table, word, tokens, index):
                continue
            entity = ctx.profile.entities.get(table)
            if entity is not None and len(entity.name_columns) > 1 and set(candidates) <= set(entity.name_columns):
                continue  # first + last name: one name, not two readings
            first = _preferred(ctx.profile, table, candidates)
            rest = [c for c in candidates if c != first]
            span = Span(start, end, ctx.question[start:end])
            found.append(Found(Mention(table, first, span, True),
                               [[Mapping("column", table, first, table, c)] for c in rest]))
    return found


def _columns_ending_in(profile: SchemaProfile, table: str, word: str) -> list[str]:
    info = profile.tables[table]
    keys = set(info.primary_key) | {c for fk in info.foreign_keys for c in fk.columns}
    found = []
    for column in info.columns:
        parts = words(column.name)
        if column.name in keys or len(parts) < 2 or singular(parts[-1]) != word:
            continue
        if column.family == "text" and word in ("name", "title") and not column.samples and info.row_count:
            continue  # sampled nothing: long free text, not a name
        found.append(column.name)
    families = {named.family for c in found if (named := info.column(c)) is not None}
    return found if len(families) == 1 else []


def _named_exactly(profile: SchemaProfile, table: str, word: str, tokens: list[tuple[str, int, int]],
                   index: int) -> bool:
    """A column is named by the word alone ('name'), or by the word and the one before it ('contact name',
    'order date'); 'customer name' names none of CompanyName / ContactName."""
    info = profile.tables[table]
    if any(words(c.name) == (word,) for c in info.columns):
        return True
    before = singular(tokens[index - 1][0]) if index > 0 else ""
    if not before:
        return False
    return any(tuple(singular(p) for p in words(c.name))[-2:] == (before, word) for c in info.columns)


def _preferred(profile: SchemaProfile, table: str, candidates: list[str]) -> str:
    """The column a plain reading would use: the profile's name column, else the first in the table."""
    entity = profile.entities.get(table)
    if entity is not None and entity.name_columns and entity.name_columns[0] in candidates:
        return entity.name_columns[0]
    return candidates[0]


def _synonym_columns(profile: SchemaProfile) -> dict[str, list[tuple[str, str]]]:
    """Profile synonyms whose target is `table.column` (or several, comma separated): word -> columns."""
    cached = profile.cache.get("column_synonyms")
    if cached is not None:
        return cached
    found: dict[str, list[tuple[str, str]]] = {}
    lowered = {n.lower(): n for n in profile.tables}
    for word, target in profile.synonyms.items():
        for item in str(target).split(","):
            if "." not in item:
                continue
            table_name, column_name = item.strip().rsplit(".", 1)
            table = lowered.get(table_name.strip().lower())
            column = profile.tables[table].column(column_name.strip()) if table else None
            if table is not None and column is not None:
                found.setdefault(singular(word.lower()), []).append((table, column.name))
    profile.cache["column_synonyms"] = found
    return found


# -- readings -------------------------------------------------------------------------------------------

def _detection(ctx: Context, found: list[Found]) -> Detection:
    first = found[0]
    base = _base_query(ctx, found)
    if base is not None:
        ctx.base.query = base
    named = Reading(_named_value(first), _named_label(first), None)
    readings = [named]
    for item in found:
        for group in item.groups:
            value = _group_value(group)
            if len(readings) >= MAX_READINGS or any(r.value == value for r in readings):
                continue
            readings.append(Reading(value, _group_label(group), _apply(group)))
    question = f"Where should '{first.mention.span.text}' come from?"
    return ARCHETYPE.detection(first.mention.span, readings, question=question)


def _named_value(item: Found) -> str:
    mapping = item.groups[0][0]
    return mapping.named_value if mapping.kind == "column" else norm(mapping.table)


def _named_label(item: Found) -> str:
    mapping = item.groups[0][0]
    if mapping.kind == "column":
        return f"{mapping.column} of {mapping.table}"
    if mapping.kind == "aggregate":
        return f"Aggregate {mapping.table}.{mapping.column} row by row"
    if mapping.kind == "twin":
        return f"Table {mapping.table}"
    return f"{mapping.column} of {mapping.table} itself"


def _group_value(group: list[Mapping]) -> str:
    first = group[0]
    return first.value if first.kind == "column" else norm(first.other_table)


def _group_label(group: list[Mapping]) -> str:
    first = group[0]
    if first.kind == "column":
        return f"{first.other_column} of {first.other_table}"
    if first.kind == "aggregate":
        columns = ", ".join(m.other_column or "" for m in group)
        return f"Precomputed {columns} of {first.other_table}"
    if first.kind == "twin":
        return f"Table {first.other_table} (same columns)"
    on = ", ".join(a for a, _ in first.key)
    return f"{first.other_column} of {first.other_table} (joined on {on})"


def _apply(group: list[Mapping]):
    def apply(spec: QuerySpec) -> None:
        spec.mappings = list(group)
    return apply


# -- the statement the readings rewrite ------------------------------------------------------------------

def _touches(query: exp.Query | None, found: list[Found], profile: SchemaProfile) -> bool:
    if query is None:
        return False
    return any(apply_mappings(query, group, profile.tables) is not None for item in found for group in item.groups)


def _base_query(ctx: Context, found: list[Found]) -> exp.Query | None:
    """The plain statement for the question when the measure-based query does not read the mapped column:
    the named table's columns the question mentions (aggregated where it asks), its values as filters, its
    'for each' column as the group."""
    try:
        built = build(ctx.base.copy(), ctx.profile, ctx.as_of)
    except Exception:  # noqa: BLE001 - no measure-based query: the plain one stands in
        built = None
    if _touches(built, found, ctx.profile):
        return None
    first = found[0]
    table = first.mention.table
    info = ctx.profile.tables.get(table)
    if info is None:
        return None
    tokens = _tokens(ctx)
    mentions: list[Mention] = []
    asks_ids = any(t in ("id", "ids", "key", "keys") for t, _, _ in tokens)
    for column in info.columns:
        if words(column.name)[-1:] in (("id",), ("key",)) and not asks_ids and column.name != first.mention.column:
            continue
        hit = mention(table, column.name, tokens, ctx.question)
        if hit is not None and (hit.full or column.name == first.mention.column):
            mentions.append(hit)
    if first.mention.column and not any(m.column == first.mention.column for m in mentions):
        mentions.append(first.mention)
    mentions.sort(key=lambda m: m.span.start)
    group_columns = _group_columns(ctx, table, tokens)
    aggregated = {m.other_table: m for item in found for g in item.groups for m in g if m.kind == "aggregate"}
    outputs: list[exp.Expr] = []
    grouped = False
    for hit in mentions:
        if not hit.column:
            continue
        reference = col(hit.column, "t0")
        functions = aggregates_near(ctx, hit.span) if (aggregated and hit.column == first.mention.column) else []
        if functions:
            for function in functions:
                outputs.append({"max": exp.Max, "min": exp.Min, "avg": exp.Avg, "sum": exp.Sum}[function](
                    this=reference.copy()))
            grouped = True
        elif hit.column not in group_columns:
            outputs.append(reference)
    if not outputs:
        outputs = [col(c.name, "t0") for c in info.columns[:3]]
    select = exp.select(*[col(c, "t0") for c in group_columns], *outputs).from_(table_ref(table, "t0"))
    for condition in _value_filters(ctx, table):
        select = select.where(condition)
    if group_columns and grouped:
        select = select.group_by(*[col(c, "t0") for c in group_columns])
    return select


def _group_columns(ctx: Context, table: str, tokens: list[tuple[str, int, int]]) -> list[str]:
    info = ctx.profile.tables[table]
    found: list[str] = []
    asks_ids = any(t in ("id", "ids", "key", "keys") for t, _, _ in tokens)
    for m in _GROUP.finditer(ctx.intent.lower):
        window = [t for t in tokens if m.start(1) <= t[1] < m.start(1) + 30]
        for column in info.columns:
            if words(column.name)[-1:] in (("id",), ("key",)) and not asks_ids:
                continue
            hit = mention(table, column.name, window, ctx.question)
            if hit is not None and hit.full and column.name not in found:
                found.append(column.name)
                break
    return found[:2]


def _value_filters(ctx: Context, table: str) -> list[exp.Expr]:
    """`column = 'value'` for each question value that is a sampled value of the table ('<>' after 'not')."""
    info = ctx.profile.tables[table]
    found: list[exp.Expr] = []
    for span in ctx.intent.names:
        for column in info.columns:
            match = next((s for s in column.samples if s.lower() == span.text.lower()), None)
            if match is not None:
                negated = _NEGATED.search(ctx.intent.lower[max(0, span.start - 20):span.start]) is not None
                compare = exp.NEQ if negated else exp.EQ
                found.append(compare(this=col(column.name, "t0"), expression=literal(match)))
                break
    return found


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
