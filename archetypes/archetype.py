"""The shape every archetype module fills in: a when / ask / reason triple and a detector."""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from adapters.clarification import Option, clarification
from archetypes.intent import Intent, Span
from archetypes.model import Detection, Reading
from archetypes.profile import Lookup, SchemaProfile
from archetypes.query import QuerySpec


@dataclass
class Context:
    """One question as every detector sees it (read once, shared)."""

    question: str
    intent: Intent
    profile: SchemaProfile
    lookup: Lookup | None
    as_of: dt.date | None
    base: QuerySpec
    extra: dict[str, Any] = field(default_factory=dict)
    grounding: Any = None          # archetypes.analyse.Grounded: values, operators, the shape read


@dataclass(frozen=True)
class Archetype:
    id: str
    header: str
    when: str
    ask: str
    reason: str
    detect: Callable[[Context], Detection | None]

    def detection(self, span: Span, readings: list[Reading], *, question: str | None = None,
                  kind: str = "choice", sql: str | None = None, options: list[Option] | None = None,
                  multi: bool = False) -> Detection:
        asked = clarification(kind, header=self.header, question=question or self.ask, multi=multi, sql=sql,
                              options=options if options is not None else [Option(r.label, r.value) for r in readings])
        return Detection(archetype=self.id, evidence=span.text, span=(span.start, span.end), when=self.when,
                         ask=self.ask, reason=self.reason, clarification=asked, readings=readings)
