"""The trace diagnostic: what a saved conversation shows about the clarification loop, by pattern code.

The largest failure window of the clarification loop is omission: the model answers an ambiguous
question with SQL and never calls the tool, and the runtime does not know. This reads saved traces
offline and flags it, judging "ambiguous" with the rules classifier (the archetype detectors on the
database's profile), not a keyword regex: "the most units in 2024" names its metric and is not flagged.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from adapters import CheckerError, parse_query
from adapters.dialects import ENGINE_DIALECTS
from checker_app.clarify import ClarificationError, parse_tool_input
from checker_app.diagnose.traces import Conversation, ToolCall
from checker_app.llm.lint import lint_sql
from checker_app.llm.tool import TOOL_NAME


@dataclass(frozen=True)
class Pattern:
    code: str
    name: str
    summary: str


PATTERNS: tuple[Pattern, ...] = (
    Pattern("D001", "unasked-ambiguity",
            "SQL ran after a question the rules find ambiguous, with no clarification call in between"),
    Pattern("D002", "placeholder-sql",
            "SQL with parameter placeholders ($1, ?, %s, :name): the dashboard cannot substitute them"),
    Pattern("D003", "pending-clarification",
            "a clarification tool call left without an answer (the wizard's dead end)"),
    Pattern("D004", "malformed-clarification",
            "a clarification tool call whose input does not fit the contract"),
)
BY_CODE = {p.code: p for p in PATTERNS}
SQL_KEYS = ("sql", "query", "statement")
_SQL_NAME_WORDS = ("sql", "query", "database", "execute")
# PostgreSQL first: it reads every placeholder style a model writes ($1, %s, %(name)s), so the others are
# named as PostgreSQL reads them; then the remaining engines in their usual order
LINT_DIALECTS = ("postgres", *(d for d in ENGINE_DIALECTS if d != "postgres"))

# question text -> [(archetype id, evidence words)]
Classifier = Callable[[str], list[tuple[str, str]]]


@dataclass
class Finding:
    code: str
    conversation: str
    message_index: int
    detail: str
    message_id: str | None = None
    tool_call_id: str | None = None
    evidence: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return BY_CODE[self.code].name

    def where(self) -> str:
        return f"{self.conversation} message {self.message_index + 1}" + (
            f" ({self.message_id})" if self.message_id else "")

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "name": self.name, "conversation": self.conversation,
                "message_index": self.message_index, "message_id": self.message_id,
                "tool_call_id": self.tool_call_id, "detail": self.detail, "evidence": dict(self.evidence)}

    def text(self) -> str:
        return f"{self.where()}: {self.code} {self.name}: {self.detail}"


@dataclass
class DiagnoseReport:
    source: str
    conversations: int = 0
    messages: int = 0
    questions: int = 0
    sql_calls: int = 0
    clarification_calls: int = 0
    findings: list[Finding] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        counted = Counter(f.code for f in self.findings)
        return {p.code: counted.get(p.code, 0) for p in PATTERNS}

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "conversations": self.conversations, "messages": self.messages,
                "questions": self.questions, "sql_calls": self.sql_calls,
                "clarification_calls": self.clarification_calls, "counts": self.counts(),
                "patterns": [{"code": p.code, "name": p.name, "summary": p.summary} for p in PATTERNS],
                "findings": [f.to_dict() for f in self.findings]}

    def text(self) -> str:
        lines = [f"{self.source}: {self.conversations} conversation(s), {self.messages} message(s), "
                 f"{self.questions} question(s), {self.sql_calls} SQL call(s), "
                 f"{self.clarification_calls} clarification call(s)"]
        lines += [f.text() for f in self.findings]
        counts = ", ".join(f"{code} {n}" for code, n in self.counts().items() if n)
        lines.append(f"findings: {counts}" if counts else "no findings")
        return "\n".join(lines)


def rules_classifier(profile: Any, lookup: Any = None) -> Classifier:
    """The rules' archetype detectors as the judge of "ambiguous"."""
    from archetypes import detect

    def classify(question: str) -> list[tuple[str, str]]:
        try:
            return [(d.archetype, d.evidence) for d in detect(question, profile, lookup)]
        except CheckerError:
            return []

    return classify


def sql_of(call: ToolCall) -> str | None:
    """The SQL a tool call runs, or None when it is not a SQL call."""
    if call.name == TOOL_NAME:
        return None
    named = any(word in call.name.lower() for word in _SQL_NAME_WORDS)
    if isinstance(call.input, str):
        return call.input if named and call.input.strip() else None
    if not isinstance(call.input, dict):
        return None
    for key in SQL_KEYS:
        text = call.input.get(key)
        if isinstance(text, str) and text.strip() and (key == "sql" or named or _parses(text)):
            return text
    return None


def _parses(text: str) -> bool:
    for dialect in LINT_DIALECTS:
        try:
            parse_query(text, dialect)
            return True
        except CheckerError:
            continue
    return False


def placeholders(sql: str) -> list[str]:
    for dialect in LINT_DIALECTS:
        result = lint_sql(sql, dialect)
        if result.read_as is not None:
            return [f.placeholder for f in result.findings]
    return []


def _clarification_problem(call: ToolCall) -> str | None:
    if call.error:
        return f"the tool reported an error: {call.error}"
    data = call.input
    if isinstance(data, str):
        return "its input is not valid JSON"
    try:
        parse_tool_input(data)
    except ClarificationError as err:
        return str(err)
    return None


def diagnose(conversations: Iterable[Conversation], classify: Classifier, source: str = "trace") -> DiagnoseReport:
    report = DiagnoseReport(source=source)
    for conv in conversations:
        report.conversations += 1
        report.messages += len(conv.messages)
        _walk(conv, classify, report)
    return report


def _walk(conv: Conversation, classify: Classifier, report: DiagnoseReport) -> None:
    question: tuple[int, str, list[tuple[str, str]]] | None = None
    clarified = flagged = last_assistant_asked = False
    last_user = max((m.index for m in conv.messages if m.role == "user"), default=-1)
    for message in conv.messages:
        if message.role == "user":
            if message.text and not last_assistant_asked:
                report.questions += 1
                question = (message.index, message.text, classify(message.text))
                clarified = flagged = False
            last_assistant_asked = False
            continue
        asked_here = False
        for call in message.calls:
            where = {"conversation": conv.id, "message_index": message.index, "message_id": message.id,
                     "tool_call_id": call.id}
            if call.name == TOOL_NAME:
                report.clarification_calls += 1
                clarified = True
                asked_here = asked_here or not call.answered  # the next user text answers it in plain words
                _check_clarification(call, message.index > last_user, where, report)
                continue
            sql = sql_of(call)
            if sql is None:
                continue
            report.sql_calls += 1
            if question and question[2] and not clarified and not flagged:
                flagged = True
                shapes = "; ".join(f'{a}: "{e}"' for a, e in question[2])
                report.findings.append(Finding(
                    "D001", detail=f"{question[1]!r} is ambiguous ({shapes}) and {call.name or 'a tool'} ran SQL "
                                   f"without a {TOOL_NAME} call",
                    evidence={"question": question[1], "question_index": question[0],
                              "archetypes": [{"archetype": a, "evidence": e} for a, e in question[2]], "sql": sql},
                    **where))
            found = placeholders(sql)
            if found:
                report.findings.append(Finding("D002", detail=f"SQL uses {', '.join(found)} instead of quoted "
                                               "literals", evidence={"sql": sql, "placeholders": found}, **where))
        if message.calls or message.text:
            last_assistant_asked = asked_here


def _check_clarification(call: ToolCall, at_end: bool, where: dict[str, Any], report: DiagnoseReport) -> None:
    problem = _clarification_problem(call)
    if problem:
        report.findings.append(Finding("D004", detail=problem, evidence={"raw_input": call.input}, **where))
    if isinstance(call.input, dict):
        for i, q in enumerate(call.input.get("questions") or []):
            if isinstance(q, dict) and isinstance(q.get("sql"), str):
                found = placeholders(q["sql"])
                if found:
                    report.findings.append(Finding(
                        "D002", detail=f"the options query of question {i + 1} uses {', '.join(found)}",
                        evidence={"sql": q["sql"], "placeholders": found}, **where))
    if not call.answered:
        state = f" (state {call.state})" if call.state else ""
        detail = ("left pending at the end of the trace: the person never answered" if at_end
                  else "never answered: the conversation moved on without its output")
        report.findings.append(Finding("D003", detail=detail + state, evidence={"input": call.input}, **where))
