"""The checker page as a state machine: question -> report -> wizard (pending) -> anchored re-check.

With the model reading too (engine model or both), its asks (render_ask_user_question) join the wizard,
answers the rules cannot anchor reach the model as a plain-text reply, and every check's token usage is
logged for the question.

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
from checker_app.readout import SUBJECT, subject_question
from checker_app.report import Report
from checker_app.ui.config import redact
from checker_app.ui.model_view import model_steps, route_answers, rules_accept, rules_archetypes_for, rules_values
from checker_app.ui.wizard import Wizard, steps_from_report


@dataclass(frozen=True)
class Problem:
    """Something that went wrong, in words, with the ways on the page offers."""

    kind: str                 # input | engine | clarification | internal
    message: str
    actions: tuple[str, ...]  # retry | skip | plain

    @classmethod
    def from_error(cls, err: BaseException, secrets: Sequence[str], actions: tuple[str, ...] = ("retry", "skip")) -> Problem:
        if isinstance(err, InputError):  # the question box above is the way on: no button to explain
            return cls("input", redact(str(err), list(secrets)), ())
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
    url_engine: str | None = None       # the ?engine= it ran with
    check_seconds: float = 0.0
    generation: int = 0                 # bumped per check and per wizard start: fresh widget keys
    engine: str = "rules"               # who read the question shown: rules | model | both
    reply: str | None = None            # the plain-text answer the model got with this report
    reply_open: bool = False            # the model panel's "Answer in plain text" box is open
    reply_error: str | None = None      # why the plain-text answer was refused (empty)
    link_warning: str | None = None     # a link's engine that could not be used, and why
    sent_to_model: list[str] = field(default_factory=list)  # answers the model got as plain text
    usage_log: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # tokens per check, this question

    @property
    def wizard_pending(self) -> bool:
        return self.wizard is not None and self.wizard.pending

    def reset(self) -> None:
        """Back to an empty page (the ?q= already run and the widget generation survive)."""
        url_question, url_engine, generation = self.url_question, self.url_engine, self.generation
        self.__init__()  # type: ignore[misc]
        self.url_question, self.url_engine, self.generation = url_question, url_engine, generation + 1

    @property
    def tokens_spent(self) -> int:
        """Every model token this question cost on the page so far (checks, retries, re-checks)."""
        return sum(int(usage.get("total_tokens", 0)) for _, usage in self.usage_log)

    def log_usage(self, what: str, report: Report | None) -> None:
        usage = report.model.usage.model_dump(mode="json") if report is not None and report.model is not None else {}
        if usage.get("calls"):
            self.usage_log.append((what, usage))


def build_wizard(report: Report) -> Wizard | None:
    """One step per clarification: the rules' archetypes, then the model's asks (render_ask_user_question)
    about anything the rules do not already ask about."""
    steps = steps_from_report(report.archetypes)
    extra, shared = model_steps(report, {str(s.get("archetype")) for s in steps})
    for step in steps:
        if step.get("archetype") in shared:
            step["also_model"] = True
    steps += extra
    return Wizard(steps) if steps else None


def run_check(state: PageState, question: str, databases: Sequence[Database], options: CheckOptions,
              secrets: Sequence[str] = ()) -> None:
    """Check `question`; on success the wizard is pending when the report has clarifications (unless
    the model was already answered in plain text)."""
    same, log = question.strip() == state.question, list(state.usage_log)
    state.reset()
    state.question = question.strip()
    state.engine, state.reply = options.engine, options.reply
    if same:
        state.usage_log = log
    started = time.perf_counter()
    try:
        report = check(question, databases, options)
    except Exception as err:  # noqa: BLE001 - shown as a Problem, never a traceback
        state.problem = Problem.from_error(err, secrets)
        return
    finally:
        state.check_seconds = time.perf_counter() - started
    state.report = report
    state.question = report.question
    state.log_usage("check with your plain-text answer" if options.reply else "check", report)
    if not report.answers and not options.reply:
        state.wizard = build_wizard(report)


def anchored_options(base: CheckOptions, answers: dict[str, str], report: Report) -> CheckOptions:
    """The re-check's options: the same limits and as-of date, plus the answers."""
    return dataclasses.replace(base, answers={**base.answers, **answers}, as_of=report.as_of or base.as_of)


def finish_wizard(state: PageState, databases: Sequence[Database], options: CheckOptions,
                  secrets: Sequence[str] = ()) -> None:
    """After the last step: the tool output, then the anchored re-check (quoted literals in the SQL)."""
    if state.wizard is None or state.report is None:
        return
    state.tool_output = state.wizard.output()
    state.anchored = None
    state.anchored_problem = None
    state.sent_to_model = []
    if options.engine == "rules":
        anchored, plain = state.wizard.anchored(state.report.archetypes)
        state.plain_answers = plain
        reply = None
    else:  # the rules anchor what they can; the model gets everything (typed words as a plain-text reply)
        rules = rules_archetypes_for(state.report)
        anchored, state.sent_to_model = route_answers(state.wizard.answers, rules_accept(rules_values(rules)))
        state.plain_answers = []
        reply = "\n".join(state.sent_to_model) or None
    if not anchored and not reply:
        return
    question = state.report.question
    if SUBJECT in anchored:  # the subject the question lacked: read the question again naming it
        question = subject_question(question, state.report.archetypes, anchored.pop(SUBJECT)) or question
    try:
        state.anchored = check(question, databases, dataclasses.replace(
            anchored_options(options, anchored, state.report), reply=reply))
    except Exception as err:  # noqa: BLE001
        state.anchored_problem = Problem.from_error(err, secrets, ("retry", "skip", "plain"))
        return
    state.log_usage("re-check with your answers", state.anchored)


def choose_reading(state: PageState, reading_id: str) -> bool:
    """A verdict bullet was clicked: answer the clarification with that reading's choices (the page then
    runs the anchored re-check). False when the reading is unknown or the wizard is not pending."""
    if state.report is None or state.wizard is None or not state.wizard.pending:
        return False
    reading = next((r for r in state.report.interpretations if r.id == reading_id), None)
    if reading is None or not reading.choices:
        return False
    return state.wizard.choose(dict(reading.choices), rules_archetypes_for(state.report))


def reopen_wizard(state: PageState) -> None:
    """Start the clarification again (after a refused anchor, to answer differently or in plain text)."""
    if state.report is not None:
        state.wizard = build_wizard(state.report)
        state.generation += 1
        state.anchored = None
        state.anchored_problem = None
        state.tool_output = None
        state.plain_answers = []
        state.sent_to_model = []
