"""The check report: what a person (or a script reading JSON) gets back for one question.

The JSON keys are a public contract documented in the README.
"""
from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from adapters import RunResult


@dataclass
class ReadingResult:
    """One interpretation: its SQL and result on every engine."""

    id: str
    label: str
    choices: dict[str, str]
    sql: dict[str, str] = field(default_factory=dict)          # engine name -> SQL text
    results: dict[str, RunResult] = field(default_factory=dict)  # engine name -> result
    engines_agree: bool | None = None
    source: str = "rules"                                       # rules | model
    explanation: str = ""                                       # one sentence: what the SQL computes

    def first_ok(self) -> RunResult | None:
        return next((r for r in self.results.values() if r.ok), None)

    def top_row(self) -> list[Any] | None:
        result = self.first_ok()
        return list(result.rows[0]) if result and result.rows else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "choices": dict(self.choices),
            "source": self.source,
            "explanation": self.explanation,
            "sql": dict(self.sql),
            "results": {name: r.to_dict() for name, r in self.results.items()},
            "engines_agree": self.engines_agree,
        }


@dataclass
class Report:
    question: str
    as_of: dt.date | None
    engines: list[dict[str, str]]
    archetypes: list[dict[str, Any]]
    interpretations: list[ReadingResult]
    divergent: bool | None
    distinct_answers: int
    answers: dict[str, str] = field(default_factory=dict)
    capped: bool = False
    total_readings: int = 0
    notes: list[str] = field(default_factory=list)
    elapsed_ms: float = 0.0
    extra: dict[str, Any] = field(default_factory=dict)  # model mode and later additions
    understood: dict[str, Any] = field(default_factory=lambda: {"complete": True, "ignored": []})

    @property
    def ambiguous(self) -> bool:
        return bool(self.archetypes)

    @property
    def verdict(self) -> str:
        """partial | material | benign | clear | unanswered (readings could not be run or compared). A
        question with words that were not read is never clear or benign: its readings answer part of it."""
        if not self.understood.get("complete", True):
            return "partial"
        if not self.ambiguous:
            return "clear"
        if self.divergent is True:
            return "material"
        if self.divergent is False:
            return "benign"
        return "unanswered"

    @property
    def verdict_text(self) -> str:
        n = len(self.interpretations)
        if self.verdict == "partial":
            words = " and ".join(f"'{i['text']}'" for i in self.understood.get("ignored", []))
            verb = "were" if len(self.understood.get("ignored", [])) > 1 else "was"
            return f"partly understood: {words} {verb} not read"
        if self.verdict == "material":
            return f"{n} readings, {self.distinct_answers} different answers"
        if self.verdict == "benign":
            return f"ambiguous wording, same answer ({n} readings agree)"
        if self.verdict == "clear":
            return "clear: one reading"
        ids = ", ".join(a["id"] for a in self.archetypes)
        return f"ambiguous ({ids}): needs a clarification before anything can be compared"

    def to_dict(self) -> dict[str, Any]:
        return {
            "question": self.question,
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "ambiguous": self.ambiguous,
            "verdict": self.verdict,
            "verdict_text": self.verdict_text,
            "understood": self.understood,
            "divergent": self.divergent,
            "distinct_answers": self.distinct_answers,
            "engines": list(self.engines),
            "archetypes": list(self.archetypes),
            "interpretations": [i.to_dict() for i in self.interpretations],
            "answers": dict(self.answers),
            "capped": self.capped,
            "total_readings": self.total_readings,
            "notes": list(self.notes),
            "elapsed_ms": round(self.elapsed_ms, 1),
            **self.extra,
        }
