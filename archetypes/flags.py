"""A yes/no column named by the question ('discontinued items', 'items that are not discontinued'):
a condition on the rows read, never a word passed over while every row is counted."""
from __future__ import annotations

from dataclasses import dataclass

from adapters.schema import ColumnInfo
from archetypes.intent import Intent, Span
from archetypes.naming import singular, words
from archetypes.profile import SchemaProfile
from archetypes.query import RowCondition

_TRUE = {"1", "true", "t", "y", "yes"}
_FALSE = {"0", "false", "f", "n", "no"}
_NEGATIONS = {"not", "non", "no", "never", "isn't", "aren't", "wasn't", "weren't"}
# a yes/no column whose 'yes' takes a row out of use ('discontinued'), and the words for its 'no'
RETIRED = frozenset({"discontinued", "retired", "obsolete", "deprecated", "inactive", "archived", "delisted"})
_IN_USE = frozenset({"active", "available", "current", "live"})


def is_yes_no(column: ColumnInfo) -> bool:
    values = {str(v).strip().lower() for v in column.samples}
    return column.family == "boolean" or bool(values) and values <= _TRUE | _FALSE


@dataclass(frozen=True)
class FlagMention:
    span: Span
    condition: RowCondition


def flag_mentions(intent: Intent, profile: SchemaProfile, tables: set[str]) -> list[FlagMention]:
    """One condition per question word that is the one-word name of a yes/no column of a table read."""
    flags: dict[str, tuple[str, str, set[str]]] = {}
    in_use: dict[str, tuple[str, str, set[str]]] = {}
    for table in sorted(tables):
        info = profile.tables.get(table)
        if info is None:
            continue
        for column in info.columns:
            parts = words(column.name)
            values = {str(v).strip().lower() for v in column.samples}
            if len(parts) == 1 and is_yes_no(column):
                flags.setdefault(singular(parts[0]), (table, column.name, values))
                if parts[0].endswith("ed"):  # 'which items did we discontinue'
                    flags.setdefault(parts[0][:-1], (table, column.name, values))
                if parts[0] in RETIRED and not any(w in flags for w in _IN_USE):
                    for word in _IN_USE:  # 'active items': the ones not discontinued
                        in_use.setdefault(word, (table, column.name, values))
    out: list[FlagMention] = []
    tokens = intent.tokens
    for index, (word, start, end) in enumerate(tokens):
        found = flags.get(singular(word))
        opposite = found is None and word in in_use
        if opposite:
            found = in_use[word]
        if found is None:
            continue
        table, name, values = found
        negated = index > 0 and tokens[index - 1][0] in _NEGATIONS or \
            index > 1 and tokens[index - 2][0] in _NEGATIONS and tokens[index - 1][0] in ("been", "yet", "be")
        if opposite:
            if negated:
                continue  # 'not active' is left to the words around it
            negated = True
            out.append(FlagMention(Span(start, end, intent.question[start:end]),
                                   RowCondition(table, name, "eq", (next((v for v in sorted(values) if v in _FALSE),
                                                                         "0"),),
                                                label=f"not {' '.join(words(name))}")))
            continue
        wanted = _FALSE if negated else _TRUE
        value = next((v for v in sorted(values) if v in wanted), "0" if negated else "1")
        label = f"{'not ' if negated else ''}{' '.join(words(name))}"
        first = start if not negated else next(s for w, s, _ in tokens[max(0, index - 2):index] if w in _NEGATIONS)
        out.append(FlagMention(Span(first, end, intent.question[first:end]),
                               RowCondition(table, name, "eq", (value,), label=label)))
    return out
