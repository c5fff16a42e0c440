"""A yes/no column named by the question ('discontinued items', 'items that are not discontinued'), or a row's
two dates compared ('parcels shipped late': shipped after required): a condition on the rows read, never a word
passed over while every row is counted."""
from __future__ import annotations

import re
from dataclasses import dataclass

from adapters.column_types import is_date_only
from adapters.schema import ColumnInfo
from archetypes.intent import Intent, Span
from archetypes.naming import phrase, same_root, singular, words
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


def yes_no_value(values: set[str], yes: bool) -> str:
    """The column's own spelling of yes or no ('1' / '0', 'true' / 'false'), '1' or '0' when its samples lack it."""
    return next((v for v in sorted(values) if v in (_TRUE if yes else _FALSE)), "1" if yes else "0")


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
            if len(parts) == 2 and parts[0] in ("is", "has", "was"):
                parts = parts[1:]  # 'is_escalated': named 'escalated'
            values = {str(v).strip().lower() for v in column.samples}
            if len(parts) == 1 and is_yes_no(column):
                flags.setdefault(singular(parts[0]), (table, column.name, values))
                if parts[0].endswith("ed"):  # 'which items did we discontinue'
                    flags.setdefault(parts[0][:-1], (table, column.name, values))
                for prefix in ("un", "non", "non-"):  # 'unpaid fines': the column's 'no'
                    in_use.setdefault(prefix + parts[0], (table, column.name, values))
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
            if not negated:  # 'not active' is left to the words around it
                out.append(FlagMention(Span(start, end, intent.question[start:end]),
                                       RowCondition(table, name, "eq", (yes_no_value(values, False),),
                                                    label=f"not {' '.join(words(name))}", asked=True)))
            continue
        value = yes_no_value(values, not negated)
        label = f"{'not ' if negated else ''}{' '.join(words(name))}"
        first = start if not negated else next(s for w, s, _ in tokens[max(0, index - 2):index] if w in _NEGATIONS)
        out.append(FlagMention(Span(first, end, intent.question[first:end]),
                               RowCondition(table, name, "eq", (value,), label=label, asked=True)))
    return out


# 'sales with a discount', 'discounted lines', 'sold without a discount': a figure of the row said to be there
# (above 0) or not (0 or none); not when the figure is compared with a number ('with a discount above 10%')
_HAVING_A = r"(?:with|had|has|have|got|gotten|get|gets|getting|received|receive|given|having|carry|carried)\s+(?:a|an|any|some)\s+"
_WITHOUT_A = r"(?:without|w/o|with\s+no|had\s+no|has\s+no|have\s+no|no)\s+(?:a\s+|an\s+|any\s+)?"
_NOT_COMPARED = r"(?!\s+(?:above|over|below|under|of|greater|less|more|higher|lower|between|bigger|larger|smaller|"
_NOT_COMPARED += r"at\s+least|at\s+most|>|<|=|\$|\d))"


def amount_mentions(intent: Intent, profile: SchemaProfile, tables: set[str]) -> list[FlagMention]:
    """One condition per figure column (one word: 'discount') said to be there or not: above 0, or 0 or none."""
    out: list[FlagMention] = []
    keys_of = {t: set(profile.tables[t].primary_key) | {c for e in profile.edges.get(t, ()) for c in e.columns}
               for t in tables if t in profile.tables}
    for table in sorted(keys_of):
        for column in profile.tables[table].columns:
            parts = words(column.name)
            if column.family != "numeric" or len(parts) != 1 or column.name in keys_of[table] or \
                    is_yes_no(column) or parts[0] in ("id", "key", "number", "no", "count", "year"):
                continue
            noun = singular(parts[0])
            for negated, pattern in ((False, _HAVING_A + noun + r"s?\b" + _NOT_COMPARED),
                                     (False, noun + r"(?:ed|d)\b"),
                                     (True, _WITHOUT_A + noun + r"s?\b" + _NOT_COMPARED)):
                for m in re.finditer(r"\b" + pattern, intent.lower):
                    label = f"no {phrase(column.name)}" if negated else f"{phrase(column.name)} above 0"
                    condition = RowCondition(table, column.name, "le_or_null" if negated else "gt", ("0",), label,
                                             asked=True)
                    span = Span(m.start(), m.end(), intent.question[m.start():m.end()])
                    if not any(f.span.start < span.end and span.start < f.span.end for f in out):
                        out.append(FlagMention(span, condition))
    return out


_NOT_DONE = frozenset({"not", "yet", "still", "havent", "haven't", "hasnt", "hasn't", "didnt", "didn't", "isnt",
                       "isn't", "arent", "aren't", "wasnt", "wasn't", "werent", "weren't", "no"})


def dated_deed_mentions(intent: Intent, profile: SchemaProfile, tables: set[str]) -> list[FlagMention]:
    """'paid invoices', 'unpaid invoices', 'invoices not yet paid': the deed a row's own date records (paid_on), said
    of the rows: that date set, or empty. 'never paid' is left to the absence it asks ('owners who never paid an
    invoice': none of their invoices paid)."""
    out: list[FlagMention] = []
    dated: dict[str, tuple[str, str]] = {}
    for table in sorted(tables):
        info = profile.tables.get(table)
        for column in info.columns if info is not None else ():
            deeds = set(words(column.name)) & _DONE_AT
            if column.family == "temporal" and column.nullable and len(deeds) == 1:
                dated.setdefault(next(iter(deeds)), (table, column.name))
    tokens = intent.tokens
    for index, (word, start, end) in enumerate(tokens):
        negated_word = word.startswith("un") and word[2:] in dated
        deed = word[2:] if negated_word else word
        if deed not in dated:
            continue
        before = [w for w, _, _ in tokens[max(0, index - 3):index]]
        after = tokens[index + 1][0] if index + 1 < len(tokens) else ""
        table, dated_column = dated[deed]
        if after in ("to", "via", "from", "through", "by", "with") and not negated_word:
            continue  # 'shipped to germany', 'shipped via x': where or how, said of every row sent
        negators = [w for w in before if w in _NOT_DONE]
        if (negators or "never" in before) and not negated_word and \
                any(t.entity.table == table for t in intent.targets[:1]):
            continue  # 'parcels that never shipped', 'that havent shipped': their own pending state, read where it is
        negated = negated_word or bool(negators) and "never" not in before
        first = start if not negated or negated_word else next(s for w, s, _ in tokens[max(0, index - 3):index]
                                                               if w in _NOT_DONE)
        condition = RowCondition(table, dated_column, "is_null" if negated else "not_null", (),
                                 label=f"{' '.join(words(dated_column))} {'is empty' if negated else 'is set'}",
                                 asked=True)
        out.append(FlagMention(Span(first, end, intent.question[first:end]), condition))
    return out


# 'late' / 'on time' / 'early': a row's date of the deed against its date due, both on the row
_DUE = frozenset({"required", "due", "promised", "expected", "deadline", "target", "scheduled", "requested"})
_DONE_AT = frozenset({"shipped", "delivered", "completed", "closed", "resolved", "returned", "paid", "arrived",
                      "finished", "fulfilled", "done", "submitted", "dispatched"})
_TIMELINESS = {"late": "after", "overdue": "after", "delayed": "after", "early": "before", "on time": "on_time",
               "on-time": "on_time"}
TIMELINESS_WORDS = re.compile(r"\b(late|overdue|delayed|early|on[ -]time|behind schedule|"
                              r"(?:past|after|beyond)\s+(?:the|their|its|our)\s+(?:due|required|promised)(?:\s+date)?)\b")


_WENT_OUT = re.compile(r"\b(?:went|go|goes|gone|sent|got)\s+out\s+$")


def _timeliness(said: str) -> str:
    """'shipped past their required date' is late."""
    return "after" if said.startswith(("past", "after", "beyond", "behind")) else _TIMELINESS[said.replace("-", " ")]


def timeliness_mentions(intent: Intent, profile: SchemaProfile, tables: set[str]) -> list[FlagMention]:
    """'parcels shipped late', 'late shipment rate', 'on-time deliveries': the date the deed was done against the
    date it was due, on the rows read. The deed's date is the one the question names, or the only one."""
    out: list[FlagMention] = []
    said = {w for w, _, _ in intent.tokens}
    for m in TIMELINESS_WORDS.finditer(intent.lower):
        vague = intent.vague_time
        if vague is not None and vague.start <= m.start() < vague.end:
            continue  # 'sales of late': a time, not a deed done after its date
        for table in sorted(tables):
            info = profile.tables.get(table)
            if info is None:
                continue
            dated = [c.name for c in info.columns if c.family == "temporal"]
            due = [c for c in dated if set(words(c)) & _DUE]
            done = [c for c in dated if set(words(c)) & _DONE_AT and c not in due]
            named = [c for c in done if any(same_root(x, w) for w in set(words(c)) & _DONE_AT for x in said)]
            actual = named[0] if len(named) == 1 else done[0] if len(done) == 1 else None
            if len(due) != 1 or actual is None:
                continue
            op = _timeliness(m.group(1))
            anchor = profile.as_of or (profile.latest.date() if profile.latest is not None else None)
            if m.group(1) == "overdue" and anchor is not None:
                # 'shipments that are overdue': not done yet and past the day due (those done late are late)
                out.append(FlagMention(Span(m.start(), m.end(), intent.question[m.start():m.end()]), RowCondition(
                    table, actual, "overdue", (due[0], anchor.isoformat()),
                    label=f"no {phrase(actual)} yet and {phrase(due[0])} before {anchor.isoformat()}", asked=True)))
                break
            label = {"after": f"{phrase(actual)} after {phrase(due[0])}", "before": f"{phrase(actual)} before "
                     f"{phrase(due[0])}", "on_time": f"{phrase(actual)} on or before {phrase(due[0])}"}[op]
            start = m.start()
            before = [t for t in intent.tokens if t[2] <= m.start()]
            deed = set(words(actual)) & _DONE_AT
            if before and any(same_root(before[-1][0], w) for w in deed):
                start = before[-1][1]  # 'ship late', 'shipped late': the deed's word is read with it
            elif (out_went := _WENT_OUT.search(intent.lower[:m.start()])) is not None:
                start = out_went.start()  # 'went out past their required date': sent, after the day due
            due_column, done_column = info.column(due[0]), info.column(actual)
            by_day = due_column is not None and done_column is not None and is_date_only(due_column.type) and \
                not is_date_only(done_column.type)  # 'promised_by' a day, 'delivered_at' a moment
            out.append(FlagMention(Span(start, m.end(), intent.question[start:m.end()]),
                                   RowCondition(table, actual, op, (due[0], "day") if by_day else (due[0],),
                                                label=label, asked=True)))
            break
    return out

