"""Money asked for or summed across several currency codes ('in dollars', 'total revenue')."""
from __future__ import annotations

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


def detect(ctx: Context) -> Detection | None:
    intent, profile = ctx.intent, ctx.profile
    if intent.rate_subject:
        return None
    span = intent.money or (intent.currency if intent.money_context else None)
    if span is None:
        return None
    fact = ctx.base.fact or profile.primary_fact()
    if fact is None or not any(m.money for m in fact.measures):
        return None
    found = profile.currency_for(fact)
    if found is None or len(found[0].codes) < 2:
        return None
    codes = found[0].codes
    present = _currencies_in_scope(ctx)
    if present is not None and len(present) <= 1:
        # the rows asked about are in one currency: ambiguous only if another currency is asked for
        if not present or intent.currency_named in (None, present[0]):
            return None
    rate = profile.rate_table
    target = intent.currency_named or (rate.target if rate else None) or codes[0]
    readings = [Reading(f"only_{target.lower()}", f"Only amounts recorded in {target}", _apply("only", target))]
    if rate is not None and fact.time is not None:
        readings.append(Reading(f"converted_to_{rate.target.lower()}",
                                f"Every currency converted to {rate.target} at the rate of the day ({rate.table})",
                                _apply("convert", rate.target)))
    readings.append(Reading("per_currency", f"One total per currency ({', '.join(codes)})", _apply("per", None)))
    return ARCHETYPE.detection(span, readings, question=f"Amounts are in {len(codes)} currency codes: which treatment?")


def _currencies_in_scope(ctx: Context) -> list[str] | None:
    """The currency codes of the rows the question is restricted to (a store, a customer), via one cached
    lookup; None when the question is not restricted or no lookup is available."""
    base = ctx.base
    if not base.filters or ctx.lookup is None or base.fact is None or base.measure is None:
        return None
    key = ("currency scope", base.fact.table, tuple((f.entity.table, f.column, f.values) for f in base.filters),
           base.window)
    if key in ctx.profile.cache:
        return ctx.profile.cache[key]
    spec = base.copy()
    spec.group, spec.grain, spec.limit, spec.notes = None, None, None, []
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


def _apply(mode: str, code: str | None):
    def apply(spec: QuerySpec) -> None:
        spec.currency_mode, spec.currency_target = mode, code
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)


def mixed_note(spec: QuerySpec, profile) -> str | None:
    """A note when a reading sums money across several currency codes without the unit archetype firing
    (e.g. ranking by revenue): the number is still shown, but people should know what it adds up."""
    if spec.currency_mode or spec.fact is None or spec.measure is None or not spec.measure.money:
        return None
    found = profile.currency_for(spec.fact)
    if found is None or len(found[0].codes) < 2:
        return None
    return (f"{spec.measure.value} adds amounts recorded in {len(found[0].codes)} currency codes "
            f"({', '.join(found[0].codes)}) without conversion")
