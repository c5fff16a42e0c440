"""Errors the archetypes raise on purpose (subclasses of the project's one base class)."""
from __future__ import annotations

from adapters.errors import CheckerError


class ArchetypeError(CheckerError):
    """Base of the archetypes' errors."""


class UnknownAnswerError(ArchetypeError):
    """An answer names an archetype that did not fire, or a value that is not among its readings."""

    def __init__(self, archetype: str, value: str, allowed: list[str]) -> None:
        shown = ", ".join(repr(v) for v in allowed[:12]) or "none"
        super().__init__(f"{archetype}: {value!r} is not one of the readings ({shown})")
        self.archetype = archetype
        self.value = value
        self.allowed = allowed


class ProfileOverrideError(ArchetypeError):
    """The profile overrides file cannot be read or has the wrong shape."""
