"""Identifier and question words: naming-style independent (snake_case, PascalCase, camelCase alike)."""
from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
# The one word tokeniser of question text (lower-cased): "don't" and "customer’s" are one word each. The
# grounding's tokens (archetypes.lexicon.TOKEN) are these words plus %, currency signs and '#12'.
# a word may hold accented Latin letters ('maría garcía' is two words, not 'mar', 'a', 'garc', 'a')
WORD = re.compile(r"[a-z0-9\u00df-\u00f6\u00f8-\u00ff\u0100-\u024f]+(?:['’][a-z]+)?")
_IRREGULAR = {"people": "person", "children": "child", "men": "man", "women": "woman", "data": "data",
              "series": "series", "news": "news", "status": "status", "analysis": "analysis",
              "address": "address", "business": "business", "class": "class", "sales": "sale", "species": "species",
              "statuses": "status", "analyses": "analysis"}


def words(identifier: str) -> tuple[str, ...]:
    """`InvoiceLine`, `invoice_line`, `invoiceLine` -> ('invoice', 'line')."""
    parts: list[str] = []
    for chunk in re.split(r"[^A-Za-z0-9]+", identifier):
        parts.extend(m.group(0).lower() for m in _CAMEL.finditer(chunk))
    return tuple(parts)


def fold(text: str) -> str:
    """Lowercase text without accents or typographic apostrophes: 'Köhler' and 'kohler' are typed alike,
    'Luís Gonçalves' is 'luis goncalves' (a keyboard without the letters). Same length for Latin letters."""
    text = text.lower().replace("’", "'")
    if text.isascii():
        return text
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def slug(text: str) -> str:
    """A stable lowercase slug: 'America/New_York' -> 'america_new_york', 'Acme Corp' -> 'acme_corp'."""
    folded = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    return re.sub(r"[^a-z0-9]+", "_", folded).strip("_") or "x"


@lru_cache(maxsize=8192)
def singular(word: str) -> str:
    word = word.lower()
    if len(word) > 4 and word.endswith(("'s", "’s")):  # a possessive names its table ('supplier's goods')
        word = word[:-2]
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    compound = _COMPOUND_PLURAL.search(word)
    if compound is not None and word not in _MEN_NOT_PLURAL:  # 'salespeople', 'chairwomen', 'foremen'
        return word[:compound.start()] + _IRREGULAR[compound.group(0)]
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


# the irregular plurals that end compounds ('salespeople': a salesperson), and the words ending so that are not
# plurals at all ('specimen')
_COMPOUND_PLURAL = re.compile(r"(?:people|women|men|children)$")
_MEN_NOT_PLURAL = frozenset({"specimen", "abdomen", "omen", "regimen", "acumen", "stamen", "hymen", "semen", "amen",
                             "yamen"})
_MAN_NOT_SINGULAR = frozenset({"human", "german", "roman", "shaman", "talisman", "caiman", "ottoman", "walkman"})
_COMPOUND_SINGULAR = re.compile(r"(?:person|woman|man|child)$")
_PLURAL_OF = {"person": "people", "woman": "women", "man": "men", "child": "children"}


def person_compound(noun: str) -> bool:
    """'salesperson', 'chairwoman', 'foreman': a person by the compound's head ('human' and 'german' are not)."""
    return _COMPOUND_SINGULAR.search(noun) is not None and noun.split()[-1] not in _MAN_NOT_SINGULAR


# nouns with no plural of their own ('how many staff', not 'staffs')
_UNCOUNTED = frozenset({"staff", "personnel", "equipment", "inventory", "data", "information", "feedback",
                        "software", "hardware", "furniture", "stock", "series", "species"})


def plural(word: str) -> str:
    if word.split()[-1:] and word.split()[-1] in _UNCOUNTED:
        return word
    compound = _COMPOUND_SINGULAR.search(word)
    if compound is not None and person_compound(word):  # 'salesperson': salespeople
        return word[:compound.start()] + _PLURAL_OF[compound.group(0)]
    if word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    return word + "s"


def phrase(identifier: str) -> str:
    """Human words for an identifier, singular head: 'line_items' -> 'line item'."""
    parts = list(words(identifier))
    if parts:
        parts[-1] = singular(parts[-1])
    return " ".join(parts)


# words of a table's name that say how the rows are kept, not what they are ('returns_log', 'stock_on_hand')
_KEEPING_WORDS = frozenset({"log", "logs", "history", "histories", "record", "records", "entry", "entries", "data",
                            "table", "tbl"})
_TAIL_PREPOSITIONS = frozenset({"on", "by", "per", "of", "in", "at", "for"})


def row_noun(table: str) -> str:
    """The noun one row of `table` is ('returns_log': a return, 'stock_on_hand': stock, 'line_items': an item)."""
    said = phrase(table).split()
    cut = next((i for i, w in enumerate(said) if i > 0 and w in _TAIL_PREPOSITIONS), len(said))
    said = said[:cut]
    while len(said) > 1 and said[-1] in _KEEPING_WORDS:
        said.pop()
    return said[-1] if said else "row"


def word_spans(lower: str) -> list[tuple[str, int, int]]:
    """The words of lower-cased text with their offsets."""
    return [(m.group(0), m.start(), m.end()) for m in WORD.finditer(lower)]


def same_root(said: str, word: str, least: int = 4, slack: int = 2) -> bool:
    """Two words of one root: at least `least` first letters shared, and all but `slack` of the shorter
    ('ship' and 'shipped', 'delivery' and 'delivered'; with 3 and 4, 'paying' and 'payments')."""
    common = 0
    for a, b in zip(said, word):
        if a != b:
            break
        common += 1
    return common >= least and common >= min(len(said), len(word)) - slack
