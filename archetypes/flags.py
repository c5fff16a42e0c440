"""A yes/no column named by the question ('discontinued items', 'items that are not discontinued'):
a condition on the rows read, never a word passed over while every row is counted."""
from __future__ import annotations

from dataclasses import dataclass

from archetypes.intent import Intent, Span
from archetypes.naming import singular, words
from archetypes.profile import SchemaProfile
from archetypes.query import RowCondition

_TRUE = {"1", "true", "t", "y", "yes"}
_FALSE = {"0", "false", "f", "n", "no"}
_NEGATIONS = {"not", "non", "no", "never", "isn't", "aren't", "wasn't", "weren't"}


@dataclass(frozen=True)
class FlagMention:
    span: Span
    condition: RowCondition


def flag_mentions(intent: Intent, profile: SchemaProfile, tables: set[str]) -> list[FlagMention]:
    """One condition per question word that is the one-word name of a yes/no column of a table read."""
    flags: dict[str, tuple[str, str, set[str]]] = {}
    for table in tables:
        info = profile.tables.get(table)
        if info is None:
            continue
        for column in info.columns:
            parts = words(column.name)
            values = {str(v).strip().lower() for v in column.samples}
            if len(parts) == 1 and (column.family == "boolean" or values and values <= _TRUE | _FALSE):
                flags.setdefault(singular(parts[0]), (table, column.name, values))
    out: list[FlagMention] = []
    tokens = intent.tokens
    for index, (word, start, end) in enumerate(tokens):
        found = flags.get(singular(word))
        if found is None:
            continue
        table, name, values = found
        negated = index > 0 and tokens[index - 1][0] in _NEGATIONS or \
            index > 1 and tokens[index - 2][0] in _NEGATIONS and tokens[index - 1][0] in ("been", "yet", "be")
        wanted = _FALSE if negated else _TRUE
        value = next((v for v in sorted(values) if v in wanted), "0" if negated else "1")
        label = f"{'not ' if negated else ''}{' '.join(words(name))}"
        first = start if not negated else next(s for w, s, _ in tokens[max(0, index - 2):index] if w in _NEGATIONS)
        out.append(FlagMention(Span(first, end, intent.question[first:end]),
                               RowCondition(table, name, "eq", (value,), label=label)))
    return out
