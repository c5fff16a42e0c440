"""What the archetypes hand back: detections, readings, interpretations, the analysis.

A detection's clarification is the one clarification model, `adapters.clarification` (re-exported here).
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlglot import exp

from adapters.built import BuiltStatement
from adapters.clarification import ChoiceQuestion as ChoiceQuestion  # re-exported: the one clarification model
from adapters.clarification import Clarification as Clarification
from adapters.clarification import Option as Option
from adapters.clarification import QueryChoiceQuestion as QueryChoiceQuestion
from adapters.clarification import Question
from adapters.dialects import ENGINE_DIALECTS

if TYPE_CHECKING:
    from archetypes.query import QuerySpec


# A reading changes the base query spec into its own variant (None: shares the base query).
Apply = Callable[["QuerySpec"], None]


@dataclass
class Reading:
    value: str
    label: str
    apply: Apply | None = field(default=None, repr=False, compare=False)
    custom: Callable[[str], Reading] | None = field(default=None, repr=False, compare=False)  # typed answers

    def to_dict(self) -> dict[str, str]:
        return {"value": self.value, "label": self.label}


@dataclass
class Detection:
    archetype: str
    evidence: str
    span: tuple[int, int]
    when: str
    ask: str
    reason: str
    clarification: Question
    readings: list[Reading] = field(default_factory=list)

    def reading(self, value: str) -> Reading | None:
        return next((r for r in self.readings if r.value == value), None) or next(
            (r for r in self.readings if r.value.lower() == value.lower()), None)

    def to_dict(self) -> dict[str, Any]:
        return {"archetype": self.archetype, "evidence": self.evidence, "span": list(self.span),
                "when": self.when, "ask": self.ask, "reason": self.reason,
                "clarification": self.clarification.to_dict(),
                "readings": [r.to_dict() for r in self.readings]}


@dataclass(frozen=True)
class IgnoredSpan:
    """Words of the question that no grounding rule read: reported, never guessed at."""

    text: str
    span: tuple[int, int]
    suggestions: tuple[str, ...] = ()   # close schema words or data values ('Brasil' -> 'Brazil')
    reason: str = ""                    # why it was not read, when a reading could not apply it

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "span": list(self.span), "suggestions": list(self.suggestions),
                "reason": self.reason}


@dataclass(frozen=True)
class ReadAsSpan:
    """A misspelt schema word read as the word it is one edit from ('cusomers' as 'customer'): said, not silent."""

    text: str
    span: tuple[int, int]
    word: str

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "span": list(self.span), "word": self.word}


@dataclass(frozen=True)
class Understood:
    """Whether every content word of the question was read (and reflected in the readings)."""

    complete: bool = True
    ignored: tuple[IgnoredSpan, ...] = ()
    read_as: tuple[ReadAsSpan, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"complete": self.complete, "ignored": [i.to_dict() for i in self.ignored],
                "read_as": [r.to_dict() for r in self.read_as]}


@dataclass
class Interpretation:
    """One defensible reading of the whole question, with its candidate query."""

    id: str
    label: str
    choices: dict[str, str]
    query: exp.Query = field(repr=False)
    explanation: str = ""          # one plain-English sentence: what the SQL computes
    lists: bool = False            # a list of rows: no rows is the answer 'none', not a failure
    side_by_side: int = 0          # the rows are this many named values, in the order named ('rock vs metal')
    top_n: int = 0                 # 'top 3 composers': the first N rows are the answer (1: the winner asked for)
    written: dict[str, str] = field(default_factory=dict, repr=False, compare=False)  # dialect -> text, once

    def sql(self, dialect: str) -> str:
        """The runnable text for 'sqlite' | 'postgres' | 'mysql', written once per dialect (an analysis
        kept for a question asked again is not written again; the query is not changed after analysis)."""
        from archetypes.query import render

        if dialect not in self.written:
            self.written[dialect] = render(self.query, dialect)
        return self.written[dialect]

    def statement(self, dialect: str) -> BuiltStatement:
        """`sql(dialect)` with the tree it is written from, so it is sent without being parsed again
        (`adapters.built`); the tree is not kept here (a kept analysis keeps its texts only)."""
        from archetypes.query import written_statement

        def tree() -> exp.Query:
            return written_statement(self.query, dialect)[1]

        if dialect in self.written:
            return BuiltStatement(self.written[dialect], dialect, tree)
        text, first = written_statement(self.query, dialect)
        self.written[dialect] = text
        return BuiltStatement(text, dialect, tree, first)

    def to_dict(self, dialects: tuple[str, ...] = ENGINE_DIALECTS) -> dict[str, Any]:
        return {"id": self.id, "label": self.label, "choices": dict(self.choices),
                "explanation": self.explanation, "sql": {d: self.sql(d) for d in dialects}}


@dataclass
class Analysis:
    question: str
    as_of: dt.date
    detections: list[Detection]
    interpretations: list[Interpretation]
    capped: bool = False
    total_readings: int = 0
    notes: list[str] = field(default_factory=list)
    understood: Understood = field(default_factory=Understood)

    @property
    def archetypes(self) -> list[str]:
        return [d.archetype for d in self.detections]

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "as_of": self.as_of.isoformat(),
                "detections": [d.to_dict() for d in self.detections],
                "interpretations": [i.to_dict() for i in self.interpretations],
                "capped": self.capped, "total_readings": self.total_readings, "notes": list(self.notes),
                "understood": self.understood.to_dict()}
