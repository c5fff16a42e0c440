"""Ranking language (top / best / most / popular / active) with no metric: rank by what?"""
from __future__ import annotations

import re

from archetypes.archetype import Archetype, Context
from archetypes.intent import Span, scope_noun
from archetypes.model import Detection, Reading
from archetypes.naming import phrase, plural, singular, words
from archetypes.profile import Fact, Measure
from archetypes.query import QuerySpec

ID = "ranking_metric"
HEADER = "Metric"
WHEN = ("Ranking language like top / best / most / leading / popular / active is used without a clear metric, "
        "and the schema has several measures that can rank the thing asked about; or a figure with several "
        "defensible definitions is asked for (basket size, a change that can be absolute or relative).")
ASK = "Which metric?"
REASON = ("The question does not name the figure it means, and each defensible one (money or units, distinct "
          "purchases, before or after a discount, a count or an amount) can give a different answer: a different "
          "winner, total or trend.")


def detect(ctx: Context) -> Detection | None:
    intent = ctx.intent
    if ctx.base.counted_by_value:
        return None  # 'how many surgeries': the rows of that kind are the figure, said
    # 'which is more popular, vip or general': the two values side by side are what is ranked
    entity = intent.group.entity if intent.group is not None else ctx.base.group if ctx.base.sides else None
    if intent.ranking is None or intent.explicit_measure or entity is None:
        net, sold = gross_or_net(ctx), sold_figure(ctx)
        if net is not None and sold is not None:
            # 'sales by category': before or after the discount, or the units: three figures
            span = Span(sold.span[0], sold.span[1], sold.evidence)
            return ARCHETYPE.detection(span, net.readings + sold.readings[1:],
                                       question="Sales as money before or after the discount, or as units?")
        return net or sold or unnamed_figure(ctx) or total_of_rows(ctx)
    filters = tuple(f.entity.table for f in ctx.base.filters)
    if ctx.base.partition is not None:  # 'top 3 albums per genre': the figure must reach the genre too
        filters += (ctx.base.partition.table,)
    options = ctx.profile.measures_reaching(entity.table, via=filters)
    from archetypes import lexicon

    money_named = intent.money is not None or any(t[0] in lexicon.MONEY_WORDS for t in intent.tokens)
    if money_named and any(m.money for _, m in options):
        # 'top 5 guests by total spend': money is named, so only money ranks them (not adults or ratings)
        options = [(f, m) for f, m in options if m.money]
    said = [t[0] for t in intent.tokens]
    options = [(f, m) for f, m in options if m.kind != "sum" or m.money or not lexicon.physical(m.columns, said)]
    own = ctx.profile.facts.get(entity.table) if entity.column_only else None
    counted = next((m for m in own.measures if m.kind == "count"), None) if own is not None else None
    if own is not None and counted is not None and all(m != counted for _, m in options):
        options.insert(0, (own, counted))  # 'the most popular service level': how many of the rows have each one
    if _HOW_OFTEN.search(intent.ranking.text.lower()):
        # 'the most popular service level': how many rows chose it comes first (shown within the cap)
        options.sort(key=lambda o: o[1].kind not in ("count", "count_distinct"))
    readings = [Reading(m.value, m.label, _apply(fact, m)) for fact, m in options]
    rated = _rating_reaching(ctx, entity.table) if not money_named and intent.ranking.text.lower().split()[-1] in \
        _QUALITY_WORDS else None
    if rated is not None:  # 'who is the best instructor': how well rated, beside how much they sell
        readings.insert(0, rated)
    if len(readings) < 2:
        return None
    question = f"Rank {plural(entity.noun)} by which metric?"
    return ARCHETYPE.detection(intent.ranking, readings, question=question)


_HOW_OFTEN = re.compile(r"\b(?:popular|common|frequent|often|busiest|usual)\b")
_QUALITY_WORDS = frozenset({"best", "worst", "greatest", "finest", "strongest", "weakest", "poorest"})


def _rating_reaching(ctx: Context, table: str) -> Reading | None:
    """The average of a rating column of rows that reach `table` ('best instructor': the reviews' average rating
    of their courses), as a reading; a rating is averaged, never added up."""
    from archetypes import lexicon

    profile = ctx.profile
    found = [(name, c.name) for name, info in profile.tables.items() for c in info.columns
             if c.family == "numeric" and set(words(c.name)) & lexicon.RATING_WORDS and name != table and
             profile.path(name, table) is not None]
    # a rating given ('rating', 'stars') before a score earned ('quiz score')
    found.sort(key=lambda f: not set(words(f[1])) & {"rating", "ratings", "stars"})
    for name, column in found[:1]:
        info = profile.tables[name]
        fact = profile.facts.get(name) or Fact(table=name, measures=[], row_count=info.row_count)
        measure = Measure(column.lower(), f"Average {phrase(column)}", "sum", name, (column,))

        def apply(spec: QuerySpec, fact: Fact = fact, measure: Measure = measure) -> None:
            spec.fact, spec.measure, spec.agg, spec.count_table, spec.per_table = fact, measure, "avg", None, None
        return Reading(measure.value, f"Average {phrase(column)} (of the {plural(phrase(name))})", apply)
    return None


def gross_or_net(ctx: Context) -> Detection | None:
    """Money summed over lines that carry a discount: before it or after it are both 'sales'."""
    base = ctx.base
    # an attribute superlative ('priciest product') ranks rows by a column: no summed money to net
    if base.fact is None or base.measure is None or base.measure.kind != "product" or \
            base.shape in ("absence", "attribute"):
        return None
    siblings = [m for m in base.fact.measures if m.kind == "product" and m.money]
    said = {w for w, _, _ in ctx.intent.tokens}
    if len(siblings) >= 2 and said & {"net", "gross"}:
        # 'sales by employee, net': the figure said, wherever the word stands (never the other one under its name)
        net = "net" in said
        wanted = next((m for m in siblings if any("net" in w.split() for w in m.words) == net), None)
        if wanted is not None:
            base.measure = wanted
        return None
    if len(siblings) < 2:
        return None
    span = next((s for m, s in ctx.intent.measures if m in siblings), None) or (
        ctx.intent.ranking if ctx.intent.group is not None else None) or ctx.intent.superlative
    if span is None:
        from archetypes.intent import Span

        span = Span(0, len(ctx.question), ctx.question)
    readings = [Reading(m.value, m.label, _apply(base.fact, m)) for m in siblings]
    return ARCHETYPE.detection(span, readings, question="Before or after the discount?")


def sold_figure(ctx: Context) -> Detection | None:
    """'Iron maiden sales last year', 'how much did we sell': what was sold is counted in money or in units, and
    the two name different winners and totals. Only a money word, a unit word or a count settles it."""
    from archetypes import lexicon

    base, intent = ctx.base, ctx.intent
    # a change of sales ('how did our sales change from 2023 to 2024') and sales by weekday are counted the same
    # two ways
    if base.fact is None or base.measure is None or not base.measure.money or \
            base.shape not in ("aggregate", "change", "distribution", "share"):
        return None
    # 'how much' asks for an amount, which units sold also are
    money_named = intent.money is not None and intent.money.text.lower() != "how much"
    figures = [m for m, span in intent.measures if not (m.kind == "count" and scope_noun(intent, span))]
    if intent.explicit_measure or figures or money_named or intent.how_many or \
            {"net", "gross"} & {w for w, _, _ in intent.tokens}:  # ('net' and 'gross' are money)
        return None
    # 'sales' of a value ('Sales Support Agent') sells nothing; 'order 10250' names a row
    inside = (ctx.extra.get("value_spans") or []) + [s for _, _, s in intent.key_refs]
    # 'sells', and the buyer's verbs when no figure is named ('which region books the most seafood')
    sold = [t for t in intent.tokens if (t[0] in lexicon.SALES_WORDS or t[0] in lexicon.BUYING_VERBS or
                                         singular(t[0]) in lexicon.BUYING_VERBS) and
            not any(s.start <= t[1] and t[2] <= s.end for s in inside)]
    if not sold:
        return None
    units = next((m for m in base.fact.measures if m.kind == "sum" and not m.money and
                  not lexicon.physical(m.columns, ())), None)  # ('sales' in kilos: no)
    if units is None:
        return None
    from archetypes.intent import Span

    span = Span(sold[0][1], sold[0][2], ctx.question[sold[0][1]:sold[0][2]])
    readings = [Reading(base.measure.value, base.measure.label, _apply(base.fact, base.measure)),
                Reading(units.value, units.label, _apply(base.fact, units))]
    # (a second amount of money on the same rows, 'price charged' beside 'declared value': which one is sales?)
    readings[1:1] = [Reading(m.value, m.label, _apply(base.fact, m)) for m in base.fact.measures
                     if m.money and m.kind == base.measure.kind == "sum" and m != base.measure]
    purchases = next((m for m in base.fact.measures if m.kind == "count_distinct"), None)
    if base.shape == "distribution" and purchases is not None:
        # 'sales by day of week': the busiest day by the number of sales made is as defensible as by money or units
        readings.append(Reading(purchases.value, purchases.label, _apply(base.fact, purchases)))
        return ARCHETYPE.detection(span, readings, question="Sales in money, in units or as purchases made?")
    return ARCHETYPE.detection(span, readings, question="Sales in money or in units?")


def unnamed_figure(ctx: Context) -> Detection | None:
    """'How are refunds trending?': rows in a state are asked about and no figure is named: how many of them,
    or the money they carry. Summing money alone would answer a question about value that was not asked."""
    from archetypes import lexicon

    base, intent = ctx.base, ctx.intent
    # 'which month had the most cancellations': a distribution of them is counted or summed the same two ways
    if base.fact is None or base.measure is None or not base.measure.money or \
            base.shape not in ("aggregate", "distribution"):
        return None
    if intent.measures or intent.explicit_measure or intent.how_many or intent.money or \
            lexicon.names_a_figure(intent.tokens):
        return None
    states = [f for f in base.filters if f.entity.column_only and not f.negate
              and lexicon.is_state_column(words(f.entity.name_columns[0]))]
    if not states:
        return None
    table = states[0].entity.table
    holder = ctx.profile.facts.get(table) or base.fact
    counted = next((m for m in holder.measures if m.kind == "count"), None)
    if counted is None:
        return None
    from archetypes.intent import Span

    readings = [Reading(counted.value, counted.label, _apply(holder, counted)),
                Reading(base.measure.value, base.measure.label, _apply(base.fact, base.measure))]
    return ARCHETYPE.detection(Span(0, len(ctx.question), ctx.question), readings,
                               question=f"How many, or how much? ({states[0].describe()})")


def total_of_rows(ctx: Context) -> Detection | None:
    """'total payments by method': how many payments, or the money they carry. 'Total' before a noun of rows
    that hold an amount asks either, and the two name different winners."""
    import re

    base, intent = ctx.base, ctx.intent
    if base.fact is None or base.measure is None or base.measure.kind != "count" or \
            base.shape not in ("aggregate", "distribution") or intent.money:
        return None
    span = next((s for m, s in intent.measures if m is base.measure or m.value == base.measure.value), None)
    if span is None or re.search(r"\b(?:total|totals|sum of)\s+(?:the\s+|our\s+|all\s+)?$",
                                 intent.lower[:span.start]) is None:
        return None
    money = next((m for m in base.fact.measures if m.money), None)
    if money is None:
        return None
    readings = [Reading(base.measure.value, base.measure.label, _apply(base.fact, base.measure)),
                Reading(money.value, money.label, _apply(base.fact, money))]
    return ARCHETYPE.detection(span, readings, question=f"How many {plural(phrase(base.fact.table))}, or how much?")


def _apply(fact: Fact, measure: Measure):
    def apply(spec: QuerySpec) -> None:
        spec.fact, spec.measure = fact, measure
        spec.count_table = None
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
