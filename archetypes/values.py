"""The data values a question can name: the vocabulary of low-cardinality text columns.

A category, a status, a country, a shop or a genre is written in a question as a word ("laptops",
"completed", "japan", "the london shop"). Values come from the sampled distinct values introspection
already keeps per text column, are matched case-insensitively and by lemma (singular or plural), and a
near miss ("labtops", "Brasil") is only ever a suggestion, never a filter.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import simplemma
from rapidfuzz import fuzz, process

from archetypes.lexicon import COUNTRY_CODES
from archetypes.naming import WORD, fold, singular, words
from archetypes.profile import Entity, SchemaProfile

MAX_VALUE_WORDS = 5            # longer texts are descriptions, not values anyone types
NEAR_MISS_SCORE = 80           # rapidfuzz ratio for a suggestion ('labtops' -> 'laptops' scores 86)
_NOT_VALUE_COLUMNS = {"email", "phone", "fax", "address", "street", "zip", "postal", "url", "password", "hash",
                      "description", "comment", "comments", "note", "notes", "composer", "bytes", "token"}


@lru_cache(maxsize=16384)
def lemma(word: str) -> str:
    """English lemma of one lowercase word ('laptops' -> 'laptop', 'genres' -> 'genre')."""
    word = fold(word)  # 'sao paulo' names São Paulo
    if len(word) <= 3 or word.isdigit():
        return word
    found = simplemma.lemmatize(word, lang="en").lower()
    return _EVENT_NOUNS.get(found, found)


# the noun of a state's event is the state's verb ('cancellation rate' asks about 'cancelled' rows), and the
# lemmatiser leaves British doubled consonants ('cancelled' -> 'cancell')
_EVENT_NOUNS = {"cancellation": "cancel", "cancelation": "cancel", "cancell": "cancel", "completion": "complete",
                "shipment": "ship", "delivery": "deliver", "approval": "approve", "rejection": "reject",
                "expiration": "expire", "expiry": "expire", "renewal": "renew", "suspension": "suspend"}


def value_key(text: str) -> tuple[str, ...]:
    """The lemma tuple a value or a question phrase is matched by."""
    return tuple(lemma(w) for w in WORD.findall(fold(text)))


@dataclass(frozen=True)
class ValueRef:
    """One value of one column: what a filter on it needs."""

    table: str
    column: str
    value: str
    name_column: bool          # the column names the rows of an entity table (an item's name)
    initials: bool = False     # matched by the initials of its words ('ny' for New York), not by its words
    demonym: bool = False      # matched by its people's adjective ('german' for Germany)
    kind_word: bool = False    # matched by one distinctive word of a kind's name ('videos' for a media type)

    def target(self, profile: SchemaProfile) -> Entity:
        """The entity the filter goes through: the table's own entity when this is its name column, else the
        column used like an entity (grouped and filtered by its value)."""
        entity = profile.entities.get(self.table)
        if entity is not None and entity.name_columns == (self.column,):
            return entity
        info = profile.tables[self.table]
        return Entity(table=self.table, name_columns=(self.column,), noun=" ".join(words(self.column)),
                      key=tuple(info.primary_key), row_count=info.row_count, column_only=True)


@dataclass(frozen=True)
class ValueVocabulary:
    by_key: dict[tuple[str, ...], tuple[ValueRef, ...]]
    longest: int
    spellings: tuple[str, ...]          # every value word, for near-miss suggestions
    spelling_values: dict[str, str]     # value word -> a value holding it


# names of at most this many rows (branches, cities, regions) are also found by their initials ('la', 'ny');
# longer name lists would make every pair of letters somebody's initials
MAX_ABBREVIATED = 60


def _initials(value: str) -> str | None:
    """'New York' -> 'ny', 'Los Angeles' -> 'la': a name of two or three words, each starting with a letter."""
    parts = value.split()
    if not 2 <= len(parts) <= 3 or not all(p[:1].isalpha() and p[:1].isupper() for p in parts):
        return None
    return "".join(p[0] for p in parts).lower()


def _demonyms_of() -> dict[str, tuple[tuple[str, ...], ...]]:
    from archetypes.lexicon import DEMONYMS

    found: dict[str, list[tuple[str, ...]]] = {}
    for demonym, places in DEMONYMS.items():
        for country in places:
            key = value_key(demonym)
            found.setdefault(" ".join(value_key(country)), []).append(key)
            if key[-1].endswith("n"):  # 'canadians', 'germans': the people, said in the plural
                found[" ".join(value_key(country))].append((*key[:-1], key[-1] + "s"))
    return {k: tuple(v) for k, v in found.items()}


_DEMONYMS_OF = _demonyms_of()


# a period stored as its noun ('year', 'month'), said as an adjective ('annual plans', 'monthly subscribers')
_CYCLE_ADJECTIVES = {"year": ("annual", "yearly"), "month": ("monthly",), "week": ("weekly",), "day": ("daily",),
                     "quarter": ("quarterly",)}


# a company's legal form, never said when it is named ('Google Inc.', 'Franchi S.p.A.', 'JetBrains s.r.o.')
_LEGAL_FORM = re.compile(r"[\s,]+(?:inc|incorporated|ltd|limited|llc|plc|corp|corporation|co|gmbh|ag|s\.?\s?a|"
                         r"s\.?p\.?a|s\.?r\.?o|s\.?a\.?r\.?l|b\.?v|n\.?v|ab|oy|as|ltda|pty)\.?\s*$", re.IGNORECASE)


def _called(value: str) -> tuple[str, ...] | None:
    """How a company is called, when its value says more: without its legal form ('Apple Inc.'), or before a
    dash that spells it out ('Embraer - Empresa Brasileira de Aeronáutica S.A.')."""
    short = value.split(" - ")[0] if " - " in value else value
    short = _LEGAL_FORM.sub("", short).strip()
    key = value_key(short)
    if short == value or not key or len(key) > MAX_VALUE_WORDS or all(len(w) < 4 for w in key):
        return None
    return key


def value_vocabulary(profile: SchemaProfile) -> ValueVocabulary:
    cached = profile.cache.get("value_vocabulary")
    if cached is not None:
        return cached
    skip = {(c.table, c.column) for c in profile.currency_columns} | {(z.table, z.column) for z in profile.zone_columns}
    by_key: dict[tuple[str, ...], list[ValueRef]] = {}
    spelling_values: dict[str, str] = {}
    code_tables = {c.table for c in profile.currency_columns
                   if c.column in profile.tables[c.table].primary_key}  # a table of currency codes: units, not filters
    for name, table in profile.tables.items():
        if profile.rate_table is not None and name == profile.rate_table.table or name in code_tables:
            continue
        keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
        entity = profile.entities.get(name)
        for column in table.columns:
            if column.family != "text" or not column.samples or column.name in keys or (name, column.name) in skip:
                continue
            if set(words(column.name)) & _NOT_VALUE_COLUMNS:
                continue
            is_name = entity is not None and column.name in entity.name_columns
            for value in column.samples:
                key = value_key(value)
                called = _called(value)
                if called is not None and called not in by_key:  # 'google': the company 'Google Inc.'
                    by_key[called] = [ValueRef(name, column.name, value, is_name)]
                if not key or len(key) > MAX_VALUE_WORDS or all(w.isdigit() for w in key):
                    continue
                ref = ValueRef(name, column.name, value, is_name)
                bucket = by_key.setdefault(key, [])
                if ref not in bucket:
                    bucket.append(ref)
                for word in WORD.findall(value.lower()):
                    if len(word) > 3:
                        spelling_values.setdefault(word, value)
                coded = COUNTRY_CODES.get(value) if len(value) == 2 and "country" in words(column.name) else None
                for said_country in coded or ():  # 'germany' -> the code 'DE' of a country column
                    country = ValueRef(name, column.name, value, is_name)
                    if country not in by_key.setdefault(value_key(said_country), []):
                        by_key[value_key(said_country)].append(country)
                for said in _CYCLE_ADJECTIVES.get(" ".join(key), ()):  # 'annual' -> the value 'year'
                    cycle = ValueRef(name, column.name, value, is_name)
                    if cycle not in by_key.setdefault((said,), []):
                        by_key[(said,)].append(cycle)
                for demonym in _DEMONYMS_OF.get(" ".join(key), ()):  # 'german' -> the value 'Germany'
                    named_by = ValueRef(name, column.name, value, is_name, demonym=True)
                    if named_by not in by_key.setdefault(demonym, []):
                        by_key[demonym].append(named_by)
                short = _initials(value) if is_name and len(column.samples) <= MAX_ABBREVIATED else None
                if short is not None:
                    abbreviated = ValueRef(name, column.name, value, is_name, initials=True)
                    if abbreviated not in by_key.setdefault((short,), []):
                        by_key[(short,)].append(abbreviated)
    _kind_words(profile, by_key)
    vocab = ValueVocabulary({k: tuple(v) for k, v in by_key.items()}, max([len(k) for k in by_key] + [1]),
                            tuple(spelling_values), spelling_values)
    profile.cache["value_vocabulary"] = vocab
    return vocab


def _kind_words(profile: SchemaProfile, by_key: dict[tuple[str, ...], list[ValueRef]]) -> None:
    """A distinctive word of a kind's multi-word name names that kind ('videos': the media type 'Protected MPEG-4
    video file'; 'punk': the genre 'Alternative & Punk'), when no value is that word itself. A word most of the
    kinds share ('audio', 'file') tells none apart; schema and grammar words are never values."""
    from archetypes import lexicon

    schema_words = {w for name, table in profile.tables.items() for w in
                    [*words(name), *(x for c in table.columns for x in words(c.name))]}
    common = lexicon.FUNCTION_WORDS | lexicon.FACT_WORDS | lexicon.TIME_WORDS | schema_words
    for name, entity in profile.entities.items():
        table = profile.tables.get(name)
        if table is None or entity.column_only or not {singular(w) for w in words(name)} & lexicon.KIND_TABLE_WORDS or \
                len(entity.name_columns) != 1:
            continue
        column = table.column(entity.name_columns[0])
        if column is None or not column.samples or len(column.samples) > MAX_KINDS:
            continue
        holding: dict[str, list[str]] = {}
        for value in column.samples:
            parts = WORD.findall(fold(value))
            for word in parts if len(parts) > 1 else ():
                acronym = len(word) == 3 and re.search(r"\b" + re.escape(word.upper()) + r"\b", value) is not None
                if (len(word) >= 4 or acronym) and not word.isdigit() and word not in common and \
                        lemma(word) not in common:  # ('aac': the media type 'AAC audio file')
                    holding.setdefault(lemma(word), []).append(value)
        for word, values in holding.items():
            if (word,) in by_key or len(values) >= 0.8 * len(column.samples):
                continue
            by_key[(word,)] = [ValueRef(name, column.name, v, True, kind_word=True) for v in dict.fromkeys(values)]


MAX_KINDS = 30  # more rows than this are a list of things, not of kinds


def kinds_holding(profile: SchemaProfile, ref: ValueRef) -> tuple[str, ...]:
    """The other kinds whose names hold this kind's whole name as words ('Heavy Metal' for 'Metal', 'Rock And
    Roll' for 'Rock'): 'metal' may mean the one kind or every kind so named. Only a short list of kinds'
    names counts (a genre, a category), not names of things."""
    from archetypes import lexicon

    column = profile.tables[ref.table].column(ref.column)
    kinds = {singular(w) for w in [*words(ref.table), *words(ref.column)]} & lexicon.KIND_TABLE_WORDS
    if ref.kind_word or column is None or not column.samples or len(column.samples) > MAX_KINDS or not kinds:
        return ()
    own = value_key(ref.value)
    if not own:
        return ()
    return tuple(v for v in column.samples if v != ref.value and len(value_key(v)) > len(own) and any(
        value_key(v)[i:i + len(own)] == own for i in range(len(value_key(v)) - len(own) + 1)))


def territories_holding(profile: SchemaProfile, ref: ValueRef) -> tuple[str, ...]:
    """The values of the same column that are territories of the country `ref` names ('PR' beside 'US', 'Puerto
    Rico' beside 'United States'): 'in the us' may mean the country row alone, or with them."""
    from archetypes.lexicon import TERRITORIES

    column = profile.tables[ref.table].column(ref.column)
    if column is None or not column.samples:
        return ()
    said = ref.value.strip().lower()
    held = next((places for names, places in TERRITORIES.items() if said in names), ())
    names = {name for place in held for name in place}
    return tuple(v for v in column.samples if v.strip().lower() in names)


def near_miss(word: str, profile: SchemaProfile, extra: tuple[str, ...] = ()) -> tuple[str, ...]:
    """Close spellings of an unread word among the data's values and `extra` schema words (suggestions)."""
    if len(word) < 4:
        return ()
    vocab = value_vocabulary(profile)
    choices = list(vocab.spellings) + [w for w in extra if len(w) > 3]
    found = process.extract(word.lower(), choices, scorer=fuzz.ratio, score_cutoff=NEAR_MISS_SCORE, limit=3)
    out: list[str] = []
    for choice, _, _ in found:
        shown = vocab.spelling_values.get(choice, choice)
        # 'revenues' for 'revenue' is the same unread word; 'ana costa' for 'cost' a name that merely holds it
        if shown not in out and singular(choice) != singular(word.lower()) and \
                abs(len(choice) - len(word)) <= max(2, len(word) // 3):
            out.append(shown)
    return tuple(out)
