"""What a status word says besides its filter: the date of that state ('tickets resolved yesterday': the
status, or every row the resolved date names), the rows still under way beside 'open' ('open tickets': pending
ones too?), and a time asked of a state the data records no date of ('visits cancelled in march': only the
visit's own date can be bounded). Each returns what it found; analyse adds it to the reading."""
from __future__ import annotations

from archetypes import lexicon
from archetypes.intent import Intent, Span
from archetypes.model import Detection, Reading
from archetypes.naming import phrase, plural, singular, words
from archetypes.profile import SchemaProfile
from archetypes.query import EntityFilter, QuerySpec
from archetypes.record_scope import ARCHETYPE
from archetypes.values import lemma

# states of a row still under way besides 'open': an open ticket may be one waiting on the client
_UNDER_WAY_TOO = frozenset({"pending", "in progress", "in_progress", "on hold", "on_hold", "waiting", "new",
                            "reopened", "assigned", "escalated", "awaiting reply", "awaiting_reply"})


def open_or_unfinished(intent: Intent, profile: SchemaProfile, base: QuerySpec) -> Detection | None:
    """'how many open tickets': status 'open' only, or every ticket not finished (open, pending, on hold)."""
    flt = next((f for f in base.filters if f.entity.column_only and not f.negate and len(f.values) == 1 and
                str(f.values[0]).lower() == "open" and lexicon.is_state_column(words(f.entity.name_columns[0]))),
               None)
    if flt is None:
        return None
    column = profile.tables[flt.entity.table].column(flt.entity.name_columns[0])
    others = tuple(v for v in (column.samples if column is not None else ()) if v.lower() in _UNDER_WAY_TOO)
    if not others:
        return None
    wider = EntityFilter(flt.entity, (flt.values[0], *others), column=flt.column, via=flt.via)

    def unfinished(spec: QuerySpec) -> None:
        # (in a share the filter is the part: widened there too, never the whole alone)
        spec.filters = [wider if f == flt else f for f in spec.filters]
        spec.share_filters = [wider if f == flt else f for f in spec.share_filters]

    name = phrase(flt.entity.name_columns[0])
    readings = [Reading("only_open", f"Only {name} {flt.values[0]}", lambda spec: None),
                Reading("not_finished", f"Every one not finished ({name} {', '.join((flt.values[0], *others))})",
                        unfinished)]
    return ARCHETYPE.detection(Span(0, len(intent.question), intent.question), readings, question=f"Only '{flt.values[0]}', or {', '.join(others)} too?")


_RATE_NOUNS = frozenset({"rate", "rates", "ratio", "share", "percentage", "percent", "pct", "%", "proportion"})
# states of a row still under way: a rate of how rows ended may leave them out of the whole
_STILL_GOING = _UNDER_WAY_TOO | frozenset({"open", "active", "in_progress", "in progress", "ongoing", "running",
                                           "enrolled", "scheduled", "processing"})


def rate_of_settled(intent: Intent, base: QuerySpec, profile: SchemaProfile) -> Detection | None:
    """'what is the completion rate': completed of every enrollment, or of those that have ended one way or
    another (the active ones cannot have completed yet). Asked when the rows' state column holds states still
    under way and the part is a state that ends them."""
    part = next((f for f in base.share_filters if f.entity.column_only and not f.negate and
                 lexicon.is_state_column(words(f.entity.name_columns[0]))), None)
    if base.shape != "share" or part is None or any(str(v).lower() in _STILL_GOING for v in part.values) or \
            not any(str(v).lower() in lexicon.CLOSING_WORDS | lexicon.NEVER_HAPPENED for v in part.values) or \
            any(key.split(".")[0] in (part.entity.table, base.fact.table if base.fact else "")
                for key in profile.open_ends):
        return None  # (only a state that ends a row; rows valid over a period have their own scopes)
    column = profile.tables[part.entity.table].column(part.entity.name_columns[0])
    going = tuple(v for v in (column.samples if column is not None else ()) if v.lower() in _STILL_GOING)
    if not going:
        return None
    settled = EntityFilter(part.entity, going, column=part.column, negate=True, via=part.via)

    def only_settled(spec: QuerySpec) -> None:
        spec.filters = [*spec.filters, settled]

    name = phrase(part.entity.name_columns[0])
    readings = [Reading("of_all", f"Of every {phrase(base.fact.table) if base.fact else 'row'}", lambda spec: None),
                Reading("of_settled", f"Of those no longer {', '.join(going)} ({name} not {', '.join(going)})",
                        only_settled)]
    return ARCHETYPE.detection(Span(0, len(intent.question), intent.question), readings,
                               question=f"Of every row, or leaving out those still {', '.join(going)}?")


def undated_state(intent: Intent, profile: SchemaProfile, base: QuerySpec) -> list[tuple[Span, str]]:
    """'visits cancelled in march', 'how are refunds trending': the time asked is when the rows reached the state,
    but the data records no date of it; the rows' own date (when the visit was booked) is all a reading can bound.
    Said, never passed off as the answer."""
    fact = base.fact
    if fact is None or fact.time is None:
        return []
    said = intent.window_span if base.window is not None else intent.vague_time or \
        (intent.grain[1] if intent.grain is not None else None)
    state = next((str(v) for f in base.filters + base.share_filters if f.entity.column_only and not f.negate and
                  lexicon.is_state_column(words(f.entity.name_columns[0])) for v in f.values
                  if str(v).lower().endswith("ed")), None)
    if said is None or state is None:
        return []
    table = profile.tables[fact.time.table]
    stem = lemma(state.lower())
    if any(stem in {lemma(w) for w in words(c.name)} for c in table.columns if c.family == "temporal") or \
            set(words(fact.time.column)) & lexicon.CLOSING_COLUMN_WORDS:
        return []  # the state's own date is there ('resolved_at', read for 'closed' too): it is the one bounded
    tokens = intent.tokens
    at = next((i for i, (w, _, _) in enumerate(tokens) if lemma(w) == stem), None)
    nouns = {singular(w) for w in words(fact.table)} | {singular(w) for w in words(fact.time.table)}
    if at is None or any(singular(w) in nouns for w, _, _ in tokens[at + 1:at + 4]) or said.start < tokens[at][1]:
        return []  # 'cancelled (usd) visits in march', 'visits in 2025 that got cancelled': the visits of a time
    if any(w in _RATE_NOUNS for w, _, _ in tokens[at + 1:at + 3]):
        return []  # 'the cancellation rate this year': the rate of the year's visits, as any rate of a period
    rows = plural(phrase(fact.time.table).split()[-1])
    return [(said, f"the data records no date of being {state.lower()}: only the {rows}' own {phrase(fact.time.column)} "
                   f"can be bounded, which is another question")]


def state_or_date(intent: Intent, base: QuerySpec) -> Detection | None:
    """'tickets resolved yesterday': the window bounds the resolved date, and 'resolved' is also a status; the
    tickets closed since have a resolved date too. Those whose status says so, or every one dated so."""
    assert base.fact is not None and base.fact.time is not None
    dated = {lemma(w) for w in words(base.fact.time.column)}
    state = next((f for f in base.filters if f.entity.column_only and not f.negate and len(f.values) == 1 and
                  lexicon.is_state_column(words(f.entity.name_columns[0])) and
                  lemma(str(f.values[0]).lower()) in dated), None)
    if state is None:
        return None
    column = phrase(base.fact.time.column)

    def by_date(spec: QuerySpec) -> None:
        spec.filters = [f for f in spec.filters if f != state]

    readings = [Reading("by_status", f"Only {plural(phrase(base.fact.table))} whose {phrase(state.entity.name_columns[0])} "
                        f"is {state.values[0]}", lambda spec: None),
                Reading("by_date", f"Every {phrase(base.fact.table)} with a {column} in the window, whatever its "
                        f"{phrase(state.entity.name_columns[0])}", by_date)]
    span = Span(0, len(intent.question), intent.question)
    found = ARCHETYPE.detection(span, readings, question=f"By the {column}, or by the status too?")
    found.reason = (f"Rows with a {column} may be in another state since (closed after being resolved): the status "
                    f"and the date can name different rows.")
    return found
