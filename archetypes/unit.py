"""Money asked for or summed across several currency codes ('in dollars', 'total revenue')."""
from __future__ import annotations

import re

from archetypes import lexicon
from archetypes.archetype import Archetype, Context
from archetypes.model import Detection, Reading
from archetypes.query import QuerySpec, build

ID = "unit"
HEADER = "Currency"
WHEN = ("Money is asked for ('in dollars') or summed ('total revenue') while the amounts are recorded in several "
        "currency codes.")
ASK = "Which currency treatment?"
REASON = ("Adding amounts in different currency codes gives a number in no currency; keeping one currency, converting "
          "at the rate of the day, or reporting per currency each give a different, defensible answer.")


# 'clients that paid in dollars', 'visits billed in yen': the rows recorded in it, never money converted into it
_PAID_IN = re.compile(r"\b(?:paid|pay|pays|paying|billed|charged|invoiced|settled)\s+(?:(?:in|with)\s+)?$")


def detect(ctx: Context) -> Detection | None:
    intent, profile = ctx.intent, ctx.profile
    if intent.rate_subject:
        return None
    span = intent.money or (intent.currency if intent.money_context else None)
    base = ctx.base
    if span is None and base.measure is not None and base.measure.money:
        span = intent.ranking or intent.superlative or _measure_span(ctx)
    if span is None and base.measure is not None and base.measure.money:
        # 'sales in may': its money reading sums the amounts, in whatever currency each was recorded
        sold = next(((w, a, b) for w, a, b in intent.tokens if w in lexicon.SALES_WORDS), None)
        if sold is not None:
            from archetypes.intent import Span

            span = Span(sold[1], sold[2], ctx.question[sold[1]:sold[2]])
    if span is None and base.measure is not None and base.measure.money and not lexicon.names_a_figure(intent.tokens):
        from archetypes.intent import Span

        span = Span(0, len(ctx.question), ctx.question)  # money no word named ('refunds'): in several currency codes
    if span is None and intent.ranking is not None and intent.group is not None and not intent.explicit_measure:
        # a ranking whose readings include a money measure ('top-selling': revenue among them)
        if any(m.money for _, m in profile.measures_reaching(intent.group.entity.table)):
            span = intent.ranking
    if span is None:
        return None
    fact = base.fact or profile.primary_fact()
    asked_money = base.measure is not None and base.measure.money and base.fact is not None and \
        base.measure.table == base.fact.table  # an amount the question named ('average nightly rate')
    if fact is None or not asked_money and not any(m.money for f in profile.fact_list() for m in f.measures):
        return None
    if base.fact is not None and not any(m.money for m in base.fact.measures) and not asked_money:
        # (an amount the question named on rows that are no money fact, 'average nightly rate', keeps its rows)
        money_fact = next((f for f in profile.fact_list() if any(m.money for m in f.measures)
                           and (intent.group is None or profile.path(f.table, intent.group.entity.table) is not None)),
                          None)
        if money_fact is None:
            return None
        fact = money_fact
    found = profile.currency_for(fact, base.measure if base.measure is not None and base.measure.money else None)
    if found is None or len(found[0].codes) < 2:
        return None
    codes = found[0].codes
    present = codes_in_scope(ctx)
    if present is not None and len(present) <= 1:
        # the rows asked about are in one currency: ambiguous only if another currency is asked for
        if not present or intent.currency_named in (None, present[0]):
            return None
    rate = profile.rate_table
    target = intent.currency_named or (rate.target if rate else None) or found[0].most_rows or codes[0]
    # rows grouped by what keeps its own currency (a shop's): keeping one currency keeps only the groups in it, a
    # ranking of some of them; unless that currency is what was asked ('which shop sells most in dollars')
    holders = frozenset() if intent.currency_named else frozenset(c.table for c in profile.currency_columns)
    readings = [Reading(f"only_{target.lower()}", f"Only amounts recorded in {target}",
                        _apply("only", target, holders))]
    if present is not None and target not in present:
        readings = []  # 'berlin vs london': none of their amounts is in dollars, keeping only those keeps nothing
    paid_in = intent.currency is not None and intent.currency_named is not None and \
        _PAID_IN.search(intent.lower[:intent.currency.start]) is not None
    if rate is not None and fact.time is not None and not paid_in:  # ('paid in dollars': the rows paid so)
        into = intent.currency_named if intent.currency_named in codes else rate.target
        # first: converting is what an analyst reports a total over several currency codes as; keeping one currency
        # drops rows, and one total per currency answers with several figures
        readings.insert(0, Reading(f"converted_to_{into.lower()}",
                                f"Every currency converted to {into} at the rate of the day ({rate.table})",
                                _apply("convert", into)))
        said = _CONVERTED.search(intent.lower)
        if said is not None:
            # 'converted at order-date rates', 'converted to usd': the treatment is said, so it is applied
            from archetypes.intent import Span

            readings[0].apply(base)  # type: ignore[misc]
            ctx.extra.setdefault("read", []).append(Span(said.start(), said.end(),
                                                         ctx.question[said.start():said.end()]))
            return None
    if not intent.currency_named:  # 'revenue in usd', 'over $1000': one currency asked, not one total per code
        readings.append(Reading("per_currency", f"One total per currency ({', '.join(codes)})", _apply("per", None)))
    if rate is None and not intent.currency_named:
        # 'which city brings in the most money', 'average payment amount' with nothing to convert by: each
        # currency's own figure is a reading (never the most common one alone, passed off as the answer)
        readings[-1:-1] = [Reading(f"only_{code.lower()}", f"Only amounts recorded in {code}",
                                   _apply("only", code, holders))
                           for code in codes[:3] if code != target and (present is None or code in present)]
    return ARCHETYPE.detection(span, readings, question=f"Amounts are in {len(codes)} currency codes: which treatment?")


def codes_in_scope(ctx: Context) -> list[str] | None:
    """The currency codes of the rows the question is restricted to (a store, a customer), via one cached
    lookup; None when the question is not restricted or no lookup is available."""
    base = ctx.base
    if not base.filters or ctx.lookup is None or base.fact is None or base.measure is None:
        return None
    # every part of a filter that changes its rows (a negation, the role it is reached through) is in the key
    key = ("currency scope", base.fact.table,
           tuple((f.entity.table, f.column, f.values, f.negate, f.via) for f in base.filters), base.window)
    if key in ctx.profile.cache:
        return ctx.profile.cache[key]
    spec = QuerySpec(fact=base.fact, measure=base.measure, window=base.window,
                     filters=[f for f in base.filters if f not in base.share_filters])  # a share's whole
    spec.currency_mode, spec.currency_target = "per", None
    query = build(spec, ctx.profile, ctx.as_of)
    present = None
    if query is not None:
        try:
            present = sorted({str(row[0]) for row in ctx.lookup(query) if row and row[0] is not None})
        except Exception:  # noqa: BLE001 - unknown: keep the detection
            present = None
    ctx.profile.cache[key] = present
    return present


def _measure_span(ctx: Context):
    return next((span for measure, span in ctx.intent.measures if measure.money), None)


def _apply(mode: str, code: str | None, holders: frozenset[str] = frozenset()):
    def apply(spec: QuerySpec) -> None:
        if spec.measure is None or not spec.measure.money:
            return  # a count or a quantity is in no currency: the choice changes nothing
        if mode == "per" and (spec.shape != "aggregate" or spec.group is not None and spec.limit):
            spec.invalid = True  # a ranking, share or change per currency is not an answer to the question
            return
        if mode == "only" and spec.group is not None and not spec.group.column_only and spec.group.table in holders \
                and (spec.fact is None or spec.group.table != spec.fact.table):  # (the largest payments: in dollars)
            spec.invalid = True  # 'which shop has the highest...' answered among the dollar shops alone
            return
        spec.currency_mode, spec.currency_target = mode, code
    return apply


# 'converted to usd at order-date rates', 'usd-converted': the conversion said (its rate named or not)
_CONVERTED = re.compile(r"\b(?:[a-z]{3}[- ])?(?:converted|convert|conversion)(?:\s+(?:to|into)\s+[a-z]{3})?"
                        r"(?:\s+(?:at|using|with|by)\s+(?:the\s+)?(?:order[- ]date|daily|day'?s|historical|"
                        r"transaction[- ]date|spot|same[- ]day|the\s+day'?s)?\s*(?:exchange\s+|fx\s+)?rates?)?")


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)


def mixed_note(spec: QuerySpec, profile) -> str | None:
    """A note when a reading sums money across several currency codes without the unit archetype firing
    (e.g. ranking by revenue): the number is still shown, but people should know what it adds up."""
    if spec.currency_mode or spec.fact is None or spec.measure is None or not spec.measure.money or \
            spec.shape in ("absence", "attribute"):
        return None
    found = profile.currency_for(spec.fact, spec.measure)
    if found is None or len(found[0].codes) < 2:
        return None
    return (f"{spec.measure.value} adds amounts recorded in {len(found[0].codes)} currency codes "
            f"({', '.join(found[0].codes)}) without conversion")
