"""The archetypes, in the order they are checked and listed. Read top to bottom; add one by adding a line."""
from __future__ import annotations

from archetypes import (
    aggregation_level,
    custom_visualization,
    entity,
    insufficient_info,
    ranking_metric,
    record_scope,
    schema_mapping,
    timeframe,
    timezone,
    unit,
)
from archetypes.archetype import Archetype

ARCHETYPES: tuple[Archetype, ...] = (
    ranking_metric.ARCHETYPE,        # top / best / most without a metric
    timeframe.ARCHETYPE,             # recency or trend without a window
    insufficient_info.ARCHETYPE,     # nothing (known) to run it on
    custom_visualization.ARCHETYPE,  # interactive / map / sankey / dashboard
    entity.ARCHETYPE,                # a name matching several rows or columns
    timezone.ARCHETYPE,              # day boundaries over several zones
    aggregation_level.ARCHETYPE,     # calendar vs fiscal, week conventions
    unit.ARCHETYPE,                  # amounts in several currency codes
    record_scope.ARCHETYPE,          # which rows count: statuses, validity periods, deleted rows
    schema_mapping.ARCHETYPE,        # one word, several tables or columns (split, precomputed, twin, synonyms)
)

BY_ID = {a.id: a for a in ARCHETYPES}
ORDER = {a.id: index for index, a in enumerate(ARCHETYPES)}


def guardrails() -> str:
    """The archetypes as when / ask / reason entries, in registry order (for a model prompt or the docs)."""
    blocks = [f"{a.id}:\n  when: {a.when}\n  ask: {a.ask}\n  reason: {a.reason}" for a in ARCHETYPES]
    return "\n\n".join(blocks)
