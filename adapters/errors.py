"""Typed errors for the adapters, one base class (the sqlglot/errors.py pattern).

Every error carries a one-line message that is safe to show: no password, no traceback.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


class CheckerError(Exception):
    """Base of every error this project raises on purpose.

    `kind` says what went wrong in one word, so callers branch on the class or its kind and never on the
    message text. Engine-side kinds are the JSON contract's ERROR_KINDS; "other" is the default."""

    kind: str = "other"


class ConfigError(CheckerError):
    """A connection option or setting that cannot be used (bad --db value, unknown backend)."""


class UnsafeStatementError(CheckerError):
    """A statement refused before it reaches any engine (not a single read-only query, or one that cannot be
    written for an engine's dialect). The two variants below are what `adapters.safety.parse_query` raises."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class UnparseableStatementError(UnsafeStatementError):
    """The SQL does not parse. `errors` keeps sqlglot's structured ParseError.errors (description, line, col,
    start_context, highlight, end_context); empty when the tokenizer failed before the parser ran."""

    kind = "syntax"

    def __init__(self, reason: str, errors: Sequence[Mapping[str, Any]] = ()) -> None:
        super().__init__(reason)
        self.errors: list[dict[str, Any]] = [dict(e) for e in errors]


class NotReadOnlyError(UnsafeStatementError):
    """The SQL parses but is not one read-only query the checker may run: a write or lock anywhere in the tree,
    several statements, a user-variable assignment, an executable comment, a function or catalog off the
    allow-list."""

    kind = "read_only"


class InputError(CheckerError):
    """Input text that cannot be processed at all (not UTF-8, too large, empty)."""


class IntrospectionError(CheckerError):
    """The schema of a connection could not be read."""


# The kinds of engine error, part of the JSON contract.
ERROR_KINDS = ("syntax", "ambiguous_column", "unknown_column", "unknown_function", "permission", "timeout",
               "read_only", "connection", "other")


@dataclass(frozen=True)
class EngineErrorInfo:
    """What an engine said when it refused or failed a statement."""

    kind: str
    code: str | None
    message: str
    position: int | None = None  # 1-based character offset where the engine reports one

    def to_dict(self) -> dict[str, object]:
        return {"kind": self.kind, "code": self.code, "message": self.message, "position": self.position}


class EngineError(CheckerError):
    """A driver error turned into a typed error at the edge."""

    def __init__(self, engine: str, info: EngineErrorInfo) -> None:
        super().__init__(f"{engine}: {info.kind}: {info.message}")
        self.engine = engine
        self.info = info
        self.kind = info.kind
