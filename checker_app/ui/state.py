"""The checker page as a state machine: question -> report -> wizard (pending) -> anchored re-check.

The page keeps one `PageState` in its session and calls these functions on events; it never decides
anything itself. Every failure ends in a `Problem` the page shows with a way on (retry, skip, or
answer in plain text): nothing needs a page reload.
"""
from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters import CheckerError, Database, InputError
from checker_app.pipeline import CheckOptions, check
from checker_app.report import Report
from checker_app.ui.config import redact
from checker_app.ui.wizard import Wizard


@dataclass(frozen=True)
class Problem:
    """Something that went wrong, in words, with the ways on the page offers."""

    kind: str                 # input | engine | clarification | internal
    message: str
    actions: tuple[str, ...]  # retry | skip | plain

    @classmethod
    def from_error(cls, err: BaseException, secrets: Sequence[str], actions: tuple[str, ...] = ("retry", "skip")) -> Problem:
        if isinstance(err, InputError):
            return cls("input", redact(str(err), list(secrets)), ("skip",))
        if isinstance(err, CheckerError):
            return cls("engine", redact(str(err), list(secrets)), actions)
        first = (str(err).splitlines() or [""])[0][:300]
        return cls("internal", redact(f"unexpected {type(err).__name__}: {first}", list(secrets)), actions)


@dataclass
class PageState:
    question: str = ""
    report: Report | None = None
    problem: Problem | None = None
    wizard: Wizard | None = None
    anchored: Report | None = None
    anchored_problem: Problem | None = None
    tool_output: dict[str, Any] | None = None
    plain_answers: list[str] = field(default_factory=list)
    url_question: str | None = None     # the ?q= already run, so a rerun does not run it again
    check_seconds: float = 0.0
    generation: int = 0                 # bumped per check and per wizard start: fresh widget keys

    @property
    def wizard_pending(self) -> bool:
        return self.wizard is not None and self.wizard.pending

    @property
    def show_question_box(self) -> bool:
        """The article's rule: while a clarification is pending the question box is hidden."""
        return not self.wizard_pending

    def reset(self) -> None:
        """Back to an empty page (the ?q= already run and the widget generation survive)."""
        url_question, generation = self.url_question, self.generation
        self.__init__()  # type: ignore[misc]
        self.url_question, self.generation = url_question, generation + 1


def normalise(report: Report) -> Report:
    """Give every archetype entry an `id` (detections name it `archetype`; the report's text wants `id`)."""
    for archetype in report.archetypes:
        if isinstance(archetype, dict) and "id" not in archetype and archetype.get("archetype"):
            archetype["id"] = archetype["archetype"]
    return report


def run_check(state: PageState, question: str, databases: Sequence[Database], options: CheckOptions,
              secrets: Sequence[str] = ()) -> None:
    """Check `question`; on success the wizard is pending when the report has clarifications."""
    state.reset()
    state.question = question.strip()
    started = time.perf_counter()
    try:
        report = check(question, databases, options)
    except Exception as err:  # noqa: BLE001 - shown as a Problem, never a traceback
        state.problem = Problem.from_error(err, secrets)
        return
    finally:
        state.check_seconds = time.perf_counter() - started
    state.report = normalise(report)
    state.question = report.question
    if report.archetypes and not report.answers:
        state.wizard = Wizard.from_archetypes(report.archetypes)


def anchored_options(base: CheckOptions, answers: dict[str, str], report: Report) -> CheckOptions:
    """The re-check's options: the same limits and as-of date, plus the answers."""
    return dataclasses.replace(base, answers={**base.answers, **answers}, as_of=report.as_of or base.as_of)


def finish_wizard(state: PageState, databases: Sequence[Database], options: CheckOptions,
                  secrets: Sequence[str] = ()) -> None:
    """After the last step: the tool output, then the anchored re-check (quoted literals in the SQL)."""
    if state.wizard is None or state.report is None:
        return
    state.tool_output = state.wizard.output()
    anchored, plain = state.wizard.anchored(state.report.archetypes)
    state.plain_answers = plain
    state.anchored = None
    state.anchored_problem = None
    if not anchored:
        return
    try:
        state.anchored = normalise(check(state.report.question, databases,
                                         anchored_options(options, anchored, state.report)))
    except Exception as err:  # noqa: BLE001
        state.anchored_problem = Problem.from_error(err, secrets, ("retry", "skip", "plain"))


def reopen_wizard(state: PageState) -> None:
    """Start the clarification again (after a refused anchor, to answer differently or in plain text)."""
    if state.report is not None:
        state.wizard = Wizard.from_archetypes(state.report.archetypes)
        state.generation += 1
        state.anchored = None
        state.anchored_problem = None
        state.tool_output = None
        state.plain_answers = []
