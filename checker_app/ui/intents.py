"""What a click on the page asks for, as small dataclasses (no streamlit here).

A button's callback records one intent (`pages.draw.queue`); the page carries it out at the top of its next
run, where a `match` on the class replaces reading positions out of a tuple. Each field is named, typed and
checked by mypy, so a new button cannot pass its arguments in the wrong order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Check:
    """Check a question (typed, an example, a suggestion for a word not read, or a shared link)."""

    question: str
    engine: str | None = None       # rules | model | both; None: the page's engine control
    warning: str | None = None      # why a shared link's engine was not used


@dataclass(frozen=True)
class Rerun:
    """Run the current question again: as it was (the same engine and plain-text reply), or on the rules alone."""

    rules_only: bool = False


@dataclass(frozen=True)
class ModelReply:
    """A plain-text answer for the model, sent with the current question."""

    text: str


@dataclass(frozen=True)
class Pick:
    """Anchor the SQL on one reading, by its id (a click on an answer in the verdict box)."""

    reading_id: str


@dataclass(frozen=True)
class Finish:
    """Run the anchored SQL of the wizard's answers (the wizard finished, or its run is retried)."""


@dataclass(frozen=True)
class Reopen:
    """Answer the clarification again; `plain_text` opens it on the plain-text answer."""

    plain_text: bool = False


@dataclass(frozen=True)
class Dismiss:
    """Skip a problem: the check's (the page starts over) or the anchored run's (the readings stand)."""

    which: Literal["check", "anchored"]


@dataclass(frozen=True)
class UseCandidate:
    """The compare page: a repair candidate becomes the statement, and runs."""

    sql: str
    label: str = ""


Intent = Check | Rerun | ModelReply | Pick | Finish | Reopen | Dismiss | UseCandidate

PROBLEM_ACTIONS = ("retry", "skip", "plain")


def for_problem(prefix: Literal["check", "anchored"], action: str) -> Intent:
    """The intent of a problem's button (`Problem.actions`: retry | skip | plain) where the problem is shown:
    the check's (retry reruns it) or the anchored run's (retry runs the anchored SQL again, plain reopens the
    wizard on its plain-text answer)."""
    if action not in PROBLEM_ACTIONS:
        raise ValueError(f"no such problem action: {action!r}")
    if action == "skip":
        return Dismiss(prefix)
    if prefix == "check":
        return Rerun() if action == "retry" else Reopen(plain_text=True)
    return Finish() if action == "retry" else Reopen(plain_text=True)
