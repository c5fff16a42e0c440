"""A currency's exchange rate asked for: 'the euro exchange rate on 14 march 2025', 'avg eur to usd rate in q1
2025', 'usd value of 10000 yen on 2025-03-14'. The rate table's own column for that currency, on the day or
over the window named, not money summed. A rate named with one currency only can be quoted either way (the
stored units of the target per unit, or its inverse): two readings, two answers."""
from __future__ import annotations

import re
from dataclasses import dataclass

from archetypes import lexicon
from archetypes.intent import Intent, Span
from archetypes.model import Detection, Reading
from archetypes.naming import phrase, slug
from archetypes.profile import Fact, Measure, SchemaProfile
from archetypes.profile.model import RateTable, TimeColumn
from archetypes.query import QuerySpec, RowCondition

# a currency's usual words; three-letter codes the rate table holds are read as themselves
_CURRENCY_WORDS = {"dollar": "USD", "dollars": "USD", "usd": "USD", "$": "USD", "buck": "USD", "bucks": "USD",
                   "euro": "EUR", "euros": "EUR", "eur": "EUR", "€": "EUR", "pound": "GBP", "pounds": "GBP",
                   "sterling": "GBP", "gbp": "GBP", "£": "GBP", "yen": "JPY", "jpy": "JPY", "¥": "JPY",
                   "loonie": "CAD", "franc": "CHF", "francs": "CHF", "yuan": "CNY", "renminbi": "CNY",
                   "rupee": "INR", "rupees": "INR", "real": "BRL", "reais": "BRL", "peso": "MXN", "pesos": "MXN",
                   "won": "KRW", "rand": "ZAR", "zloty": "PLN", "krona": "SEK", "krone": "NOK"}
_TOKEN = re.compile(r"[a-z]+|[$€£¥]")
_RATE_WORDS = re.compile(r"\b(?:(?:exchange|fx|conversion|currency)\s+)?rates?\b|\bexchange\b|\bfx\b")
# '10000 yen in dollars', 'usd value of 10000 yen', 'what are 500 euros worth'
_AMOUNT = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(?=[a-z$€£¥])")
_WORTH = re.compile(r"\b(?:value|worth|in|to|into)\b")
_AGG = (("avg", re.compile(r"\b(?:avg|average|mean|typical)\b")),
        ("max", re.compile(r"\b(?:highest|max|maximum|peak|strongest|top|best)\b")),
        ("min", re.compile(r"\b(?:lowest|min|minimum|weakest|worst|bottom)\b")))


@dataclass
class RateAsked:
    """What the question asks of the rate table: the currency, how many units of it, how it is aggregated."""

    code: str
    target_named: bool
    amount: float | None
    agg: str | None
    read: list[Span]


def rate_asked(intent: Intent, profile: SchemaProfile) -> RateAsked | None:
    """The currency a rate is asked of, or None when the question is not about the rate table's rates."""
    rates = profile.rate_table
    if rates is None:
        return None
    held = next((c.codes for c in profile.currency_columns if c.table == rates.table), ())
    named: list[tuple[str, Span]] = []
    for m in _TOKEN.finditer(intent.lower):
        code = _CURRENCY_WORDS.get(m.group(0)) or (m.group(0).upper() if m.group(0).upper() in held and
                                                   len(m.group(0)) == 3 else None)
        if code is not None and code in held + (rates.target,):
            named.append((code, Span(m.start(), m.end(), intent.question[m.start():m.end()])))
    others = {code for code, _ in named if code != rates.target}
    said_rate = list(_RATE_WORDS.finditer(intent.lower))
    amount = next((m for m in _AMOUNT.finditer(intent.lower) if any(s.start == m.end() for _, s in named)), None)
    target_named = any(code == rates.target for code, _ in named)
    worth = re.search(r"\bworth\b", intent.lower)
    if len(others) != 1 or not said_rate and not (amount is not None and _WORTH.search(intent.lower)) and \
            not (worth is not None and target_named):  # 'what was the euro worth in dollars'
        return None
    if amount is None and (intent.money is not None or {w for w, _, _ in intent.tokens} & lexicon.SALES_WORDS):
        return None  # 'revenue in euros at the current rate': money summed, converted
    read = [span for _, span in named] + [Span(m.start(), m.end(), intent.question[m.start():m.end()])
                                          for m in said_rate]
    agg = None
    for name, pattern in _AGG:
        if (found := pattern.search(intent.lower)) is not None:
            agg = name
            read.append(Span(found.start(), found.end(), intent.question[found.start():found.end()]))
            break
    if worth is not None:
        read.append(Span(worth.start(), worth.end(), intent.question[worth.start():worth.end()]))
    value = None
    if amount is not None:
        value = float(amount.group(1).replace(",", ""))
        read.append(Span(amount.start(1), amount.end(1), intent.question[amount.start(1):amount.end(1)]))
        read += [Span(m.start(), m.end(), intent.question[m.start():m.end()])
                 for m in _WORTH.finditer(intent.lower)]
    return RateAsked(others.pop(), target_named, value, agg, read)


def apply_rate(asked: RateAsked, profile: SchemaProfile, spec: QuerySpec) -> Detection | None:
    """The rate spec: the rate column for the currency, averaged over the window (one row on one day), and
    the quoting question when only one currency was named."""
    rates = profile.rate_table
    assert rates is not None
    info = profile.tables[rates.table]
    spec.fact = Fact(table=rates.table, measures=[], row_count=info.row_count,
                     time=TimeColumn(rates.table, rates.date_column, date_only=rates.date_only))
    spec.measure = _stored(rates, asked)
    spec.agg = asked.agg or "avg"  # one row a day: the average of one day's rate is that rate
    spec.count_table, spec.group, spec.limit, spec.filters = None, None, None, []
    spec.conditions = [RowCondition(rates.table, rates.currency_column, "eq", (asked.code,),
                                    label=f"{phrase(rates.currency_column)} is {asked.code}")]
    if asked.target_named or asked.amount is not None:
        return None
    from archetypes.unit import ARCHETYPE

    stored, inverse = _stored(rates, asked), _inverse(rates, asked)

    def quoted(measure: Measure):
        def apply(spec: QuerySpec) -> None:
            spec.measure = measure
        return apply

    readings = [Reading(f"{rates.target.lower()}_per_{asked.code.lower()}", f"{rates.target} per {asked.code} "
                        f"(as stored)", quoted(stored)),
                Reading(f"{asked.code.lower()}_per_{rates.target.lower()}", f"{asked.code} per {rates.target}",
                        quoted(inverse))]
    span = asked.read[0]
    return ARCHETYPE.detection(span, readings, question=f"Which way is the {asked.code} rate quoted?")


def _stored(rates: RateTable, asked: RateAsked) -> Measure:
    if asked.amount is not None:
        amount = f"{asked.amount:g}"
        return Measure(slug(f"{rates.target} value"), f"{amount} × {phrase(rates.rate_column)} ({rates.target} "
                       f"value of {amount} {asked.code})", "expression", rates.table, (rates.rate_column,),
                       expression=f"{amount} * {rates.rate_column}")
    return Measure(slug(rates.rate_column), phrase(rates.rate_column), "sum", rates.table, (rates.rate_column,))


def _inverse(rates: RateTable, asked: RateAsked) -> Measure:
    return Measure(slug(f"{asked.code} per {rates.target}"), f"{asked.code} per {rates.target} (1 ÷ "
                   f"{phrase(rates.rate_column)})", "expression", rates.table, (rates.rate_column,),
                   expression=f"1.0 / {rates.rate_column}")
