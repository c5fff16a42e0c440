"""Nothing to run the question on: no subject in it, or a subject the schema does not have."""
from __future__ import annotations

from archetypes.archetype import Archetype, Context
from archetypes.intent import Span
from archetypes.model import Detection, Option

ID = "insufficient_info"
HEADER = "Subject"
WHEN = ("The user is providing insufficient or ambiguous information about the data: the request names nothing "
        "to run on ('run the analysis', 'how did we do?') or a subject the schema does not contain.")
ASK = "What should this run on? Name the measure or the records you mean."
REASON = ("Guessing a subject spends a full run on a question nobody asked; one question to the person costs "
          "less than a confident answer about the wrong data.")


def detect(ctx: Context) -> Detection | None:
    from archetypes.entity import clean_term, known_value, name_matches

    intent = ctx.intent
    span: Span | None = None
    values = ctx.extra.get("value_spans") or []
    unknown = intent.unknown_subject
    names = [span for span, _ in ctx.extra.get("names") or []]
    if unknown is not None and any(v.start <= unknown.start < v.end for v in values + names):
        unknown = None  # the word names a data value ('refund' -> a status 'refunded', 'airpods' a product)
    shape = ctx.grounding.shape if ctx.grounding is not None else None
    if unknown is not None and shape is not None and any(s.start <= unknown.start < s.end for s in shape.read):
        unknown = None  # a word the shape read ('length of stay': the span from check-in to check-out)
    if ctx.base.shape != "aggregate" and ctx.base.fact is not None and unknown is None:
        return None  # a shape was read (a busiest weekday, a best month): it runs on the main fact
    if ctx.base.measure is not None and ctx.base.measure.kind == "expression" and ctx.base.fact is not None and \
            unknown is None:
        return None  # a figure of the rows' own columns was read (the days between two of their dates)
    if ctx.base.per_table is not None and ctx.base.fact is not None and unknown is None:
        return None  # a ratio was read ('aov in 1997'): money per order
    if ctx.base.having is not None and ctx.base.group is not None and ctx.base.fact is not None and unknown is None:
        return None  # a condition on each one's total was read ('who has ordered more than 25 times')
    if values and intent.schema_hits == 0 and unknown is None:
        return None
    if unknown is not None and (intent.absent_subject or (intent.group is None
                                                                          and intent.how_many is None)):
        span = unknown
        question = f"This database has no '{span.text}'. What should this run on?"
    elif intent.schema_hits == 0 and not intent.key_refs and not name_matches(ctx) and not any(
            known_value(ctx.profile, clean_term(n.text)) for n in intent.names):
        text = ctx.question
        span = Span(0, len(text), text)
        question = ASK
    else:
        return None
    return ARCHETYPE.detection(span, [], question=question, options=_suggestions(ctx))


def _suggestions(ctx: Context) -> list[Option]:
    options: list[Option] = []
    primary = ctx.profile.primary_fact()
    if primary is not None:
        options.extend(Option(m.label, m.value) for m in primary.measures[:4])
    for entity in list(ctx.profile.entities.values())[:4]:
        if len(options) >= 6:
            break
        options.append(Option(f"Number of {entity.noun} rows", f"count:{entity.noun}"))
    return options


ARCHETYPE = Archetype(ID, HEADER, WHEN, ASK, REASON, detect)
