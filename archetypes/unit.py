"""Money asked for or summed across several currencies ('in dollars', 'total revenue')."""
from __future__ import annotations

from archetypes.archetype import Archetype, Context
from archetypes.model import Detection, Reading
from archetypes.query import QuerySpec

ID = "unit"
HEADER = "Currency"
WHEN = ("Money is asked for ('in dollars') or summed ('total revenue') while the amounts are recorded in several "
        "currencies.")
ASK = "Which currency treatment?"
REASON = ("Adding amounts in different currencies gives a number in no currency; keeping one currency, converting "
          "at the rate of the day, or reporting per currency each give a different, defensible answer.")


def detect(ctx: Context) -> Detection | None:
    intent, profile = ctx.intent, ctx.profile
    span = intent.currency or intent.money
    if span is None:
        return None
    fact = ctx.base.fact or profile.primary_fact()
    if fact is None or not any(m.money for m in fact.measures):
        return None
    found = profile.currency_for(fact)
    if found is None or len(found[0].codes) < 2:
        return None
    codes = found[0].codes
    rate = profile.rate_table
    target = intent.currency_code or (rate.target if rate else None) or codes[0]
    readings = [Reading(f"only_{target.lower()}", f"Only amounts recorded in {target}", _apply("only", target))]
    if rate is not None and fact.time is not None:
        readings.append(Reading(f"converted_to_{rate.target.lower()}",
                                f"All currencies converted to {rate.target} at the rate of the day ({rate.table})",
                                _apply("convert", rate.target)))
    readings.append(Reading("per_currency", f"One total per currency ({', '.join(codes)})", _apply("per", None)))
    return ARCHETYPE.detection(span, readings, question=f"Amounts are in {len(codes)} currencies: which treatment?")


def _apply(mode: str, code: str | None):
    def apply(spec: QuerySpec) -> None:
        spec.currency_mode, spec.currency_code = mode, code
    return apply


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
