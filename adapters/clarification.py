"""The clarification contract, once: a question for the person in the first article's wire shape.

Two shapes: `ChoiceQuestion` (static options) and `QueryChoiceQuestion` (a SELECT that fetches live
options). They live in the lowest layer that asks one (the repair pass asks which table's column is meant;
the archetypes ask what a word means) and are plain dataclasses, so the core packages stay free of pydantic
(DESIGN.md's package table). `checker_app.clarify` validates untrusted input (a model's tool call, a wizard
step) into these very classes with pydantic, which reads a stdlib dataclass's fields, the constraints in
their `metadata` (min_length, max_length: pydantic's own Field arguments) and `__pydantic_config__`; the
report's JSON Schema and the model's tool schema are generated from them. No pydantic import here.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

_IGNORE_UNKNOWN_KEYS = {"extra": "ignore"}  # a model's call may carry keys of its own: they are dropped


@dataclass(frozen=True)
class Option:
    # One answer to offer: its label, and the value the SQL is anchored on (the label when None). The classes
    # that reach the JSON Schemas carry comments, not docstrings: pydantic would put a docstring in the schema.
    __pydantic_config__ = _IGNORE_UNKNOWN_KEYS

    label: str = field(metadata={"min_length": 1})
    value: str | None = None

    @property
    def resolved_value(self) -> str:
        return self.value if self.value is not None else self.label

    def to_dict(self) -> dict[str, Any]:
        return {"label": self.label, "value": self.value}


@dataclass(kw_only=True)
class Clarification:
    """What both shapes share. `archetype` and `quote` are the checker's additions to the article's shape:
    which archetype the answer resolves, and the words of the user's question it asks about."""

    __pydantic_config__ = _IGNORE_UNKNOWN_KEYS

    header: str = field(default="", metadata={"max_length": 60})
    question: str = field(metadata={"min_length": 1})
    multiSelect: bool = False  # noqa: N815 - the wire name
    archetype: str | None = None
    quote: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The article's wire shape (type, header, question, multiSelect, options; sql for query_choice)."""
        raise NotImplementedError

    def _wire(self, kind: str, options: list[Option]) -> dict[str, Any]:
        return {"type": kind, "header": self.header, "question": self.question, "multiSelect": self.multiSelect,
                "options": [o.to_dict() for o in options]}


@dataclass(kw_only=True)
class ChoiceQuestion(Clarification):
    type: Literal["choice"] = "choice"
    options: list[Option] = field(metadata={"min_length": 1})

    @property
    def sql(self) -> None:
        """A static choice has no options query (read alike on both shapes)."""
        return None

    def to_dict(self) -> dict[str, Any]:
        return self._wire(self.type, self.options)


@dataclass(kw_only=True)
class QueryChoiceQuestion(Clarification):
    type: Literal["query_choice"] = "query_choice"
    sql: str = field(metadata={"min_length": 1})
    options: list[Option] = field(default_factory=list)  # filled from the live query

    def to_dict(self) -> dict[str, Any]:
        return {**self._wire(self.type, self.options), "sql": self.sql}


Question = ChoiceQuestion | QueryChoiceQuestion


def clarification(kind: str, *, question: str, header: str = "", multi: bool = False,
                  options: list[Option] | None = None, sql: str | None = None) -> Question:
    """A question of the shape `kind` names ("choice" or "query_choice"); unchecked until the contract
    (`checker_app.clarify.parse_question`) reads it."""
    if kind == "query_choice":
        return QueryChoiceQuestion(header=header, question=question, multiSelect=multi, sql=sql or "",
                                   options=list(options or []))
    return ChoiceQuestion(header=header, question=question, multiSelect=multi, options=list(options or []))


def column_choice(column: str, options: list[tuple[str, str]], differ: bool | None) -> ChoiceQuestion:
    """The repair pass's question: which table's column is meant (label and value per candidate)."""
    names = [label for label, _ in options]
    listed = ", ".join(names[:-1]) + f" and {names[-1]}" if len(names) > 1 else "".join(names)
    why = "and the answers differ" if differ else "and they may give different answers"
    return ChoiceQuestion(header="Column", question=f"`{column}` could be {listed}, {why}. Which one do you mean?",
                          options=[Option(label, value) for label, value in options])
