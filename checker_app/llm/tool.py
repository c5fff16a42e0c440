"""The render_ask_user_question tool as the model sees it, and what is made of a call.

The input is the clarification contract of `checker_app.clarify` (a discriminated union of `choice`
and `query_choice`, missing `type` inferred), plus two things the model must get right:

* `quote`: word for word, the part of the user's question the ask is about. An ask whose quote is not
  in the question is dropped (it is about something else, or an earlier turn).
* `suggestions`: answer chips as a list of lists, paired with `questions` by position before
  anything is filtered, never keyed by repeating the question text. Missing entries are empty lists,
  non-list entries are coerced to empty, extras are ignored.

A call that does not fit the contract is "malformed": its raw input is kept, and the person is
offered retry / skip / answer in plain text instead of a dead end.
"""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from adapters import CheckerError, parse_query
from checker_app.clarify import (
    AskUserQuestionInput,
    ChoiceQuestion,
    ClarificationError,
    QueryChoiceQuestion,
    parse_question,
    question_dict,
)
from checker_app.llm.strict import strict_schema
from checker_app.llm.textcall import read_text_call

TOOL_NAME = "render_ask_user_question"
TOOL_DESCRIPTION = (
    "Ask the user before writing SQL when the question has one of the ambiguity shapes. One entry per "
    "question; `quote` repeats word for word the part of the user's question it is about; "
    "`suggestions[i]` are answer chips for `questions[i]` ([] when none). The user can always answer "
    "'Other' in their own words.")
RECOVERY = (
    {"action": "retry", "label": "Ask the model again"},
    {"action": "skip", "label": "Skip the question and use the rules' readings"},
    {"action": "answer_text", "label": "Answer in plain text"},
)

_FIELD_NOTES = {
    "quote": "Word for word, the part of the user's question this asks about.",
    "archetype": "The id of the ambiguity shape this question resolves.",
    "sql": "query_choice only: one read-only SELECT whose first column gives the live options.",
    "header": "A short tab label (a few words).",
}


def tool_schema(archetype_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    """The strict JSON schema of the tool's input, derived from the clarify models."""
    schema = AskUserQuestionInput.model_json_schema()
    for name in ("ChoiceQuestion", "QueryChoiceQuestion"):
        props = schema["$defs"][name]["properties"]
        for field_name, note in _FIELD_NOTES.items():
            if field_name in props:
                props[field_name]["description"] = note
        if archetype_ids:
            props["archetype"] = {"anyOf": [{"type": "string", "enum": list(archetype_ids)}, {"type": "null"}],
                                  "description": _FIELD_NOTES["archetype"]}
        schema["$defs"][name]["required"] = sorted(set(schema["$defs"][name].get("required", [])) | {"type", "quote"})
    schema["properties"]["suggestions"] = {
        "type": "array", "items": {"type": "array", "items": {"type": "string"}},
        "description": "Answer chips per question, by position: suggestions[i] belongs to questions[i].",
    }
    schema["required"] = ["questions", "suggestions"]
    return strict_schema(schema)


def tool_definition(archetype_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "function", "function": {"name": TOOL_NAME, "description": TOOL_DESCRIPTION,
                                             "strict": True, "parameters": tool_schema(archetype_ids)}}


# -- reading a call ----------------------------------------------------------------------------------

@dataclass
class Dropped:
    index: int
    question: str
    quote: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "question": self.question, "quote": self.quote, "reason": self.reason}


@dataclass
class ToolCallResult:
    """What came of the model's chance to ask.

    status: asked (valid questions kept) | dropped (every ask dropped) | malformed | none (no call).
    """

    status: str
    questions: list[ChoiceQuestion | QueryChoiceQuestion] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)
    raw_input: Any = None
    error: str | None = None
    tool_call_id: str | None = None
    text: str | None = None  # what the model wrote instead of (or next to) a call
    written_as: str | None = None  # the call was in the message text: tagged | question | bare | named

    def to_dict(self) -> dict[str, Any]:
        payload: dict[str, Any] = {
            "status": self.status,
            "questions": [question_dict(q, exclude_none=True) for q in self.questions],
            "dropped": [d.to_dict() for d in self.dropped],
        }
        if self.tool_call_id:
            payload["tool_call_id"] = self.tool_call_id
        if self.text:
            payload["text"] = self.text
        if self.written_as:
            payload["written_as_text"] = self.written_as
        if self.status == "malformed":
            payload["error"] = self.error
            payload["raw_input"] = self.raw_input
            payload["recovery"] = [dict(r) for r in RECOVERY]
        return payload


def pair_suggestions(questions: list[Any], suggestions: Any) -> list[list[str]]:
    """suggestions[i] for questions[i], paired before anything is filtered."""
    rows = suggestions if isinstance(suggestions, list) else []
    paired: list[list[str]] = []
    for i in range(len(questions)):
        row = rows[i] if i < len(rows) else []
        paired.append([s.strip() for s in row if isinstance(s, str) and s.strip()] if isinstance(row, list) else [])
    return paired


def _words(text: str) -> str:
    """Lower-case words with punctuation, hyphens and dashes as spaces ("top-selling" is "top selling")."""
    text = text.replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[^\w']+|(?<!\w)'|'(?!\w)", " ", text.lower())
    return " " + " ".join(text.split()) + " "


def quote_in_question(quote: Any, question: str) -> bool:
    """Word for word, whole words only (case, punctuation, hyphens and runs of spaces aside)."""
    if not isinstance(quote, str):
        return False
    needle = _words(quote)
    return bool(needle.strip()) and needle in _words(question)


def quote_span(quote: str, question: str) -> list[int] | None:
    """[start, end) of the quote in the question, punctuation and hyphens aside (None when not found)."""
    words = _words(quote).split()
    if not words:
        return None
    pattern = r"(?<!\w)" + r"[\W_]+".join(re.escape(w) for w in words) + r"(?!\w)"
    found = re.search(pattern, question.replace("\u2019", "'"), re.IGNORECASE)
    return [found.start(), found.end()] if found else None


def _without_nulls(raw: dict[str, Any]) -> dict[str, Any]:
    """Strict schemas send a field they leave out as null: null means "not given"."""
    cleaned = {k: v for k, v in raw.items() if v is not None}
    if isinstance(cleaned.get("options"), list):
        cleaned["options"] = [{k: v for k, v in o.items() if v is not None} if isinstance(o, dict) else o
                              for o in cleaned["options"]]
    return cleaned


def _with_suggestions(raw: dict[str, Any], chips: list[str]) -> dict[str, Any]:
    if not chips:
        return raw
    options = raw.get("options")
    if options is None or options == []:
        return {**raw, "options": [{"label": c} for c in chips]}
    if isinstance(options, list):
        labels = {o.get("label") for o in options if isinstance(o, dict)}
        return {**raw, "options": options + [{"label": c} for c in chips if c not in labels]}
    return raw  # a wrong-typed `options` stays wrong: validation reports it


def parse_arguments(arguments: Any) -> Any:
    """The call's arguments as JSON data (servers send a JSON string; a few send an object)."""
    if isinstance(arguments, (dict, list)):
        return arguments
    if not isinstance(arguments, str):
        raise ClarificationError(f"tool input is {type(arguments).__name__}, not JSON text")
    try:
        return json.loads(arguments)
    except json.JSONDecodeError as err:
        raise ClarificationError(f"tool input is not valid JSON ({err.msg} at character {err.pos})") from None


def read_tool_input(arguments: Any, question: str) -> ToolCallResult:
    """Validate one render_ask_user_question call against the contract and the user's question."""
    try:
        data = parse_arguments(arguments)
        if not isinstance(data, dict):
            raise ClarificationError(f"tool input must be an object, got {type(data).__name__}")
        raw_questions = data.get("questions")
        if not isinstance(raw_questions, list) or not raw_questions:
            raise ClarificationError("malformed clarification tool call (questions: must be a non-empty list)")
        chips = pair_suggestions(raw_questions, data.get("suggestions"))
        parsed: list[ChoiceQuestion | QueryChoiceQuestion] = []
        for i, raw in enumerate(raw_questions):
            if not isinstance(raw, dict):
                raise ClarificationError(f"malformed clarification tool call (questions.{i}: not an object)")
            try:
                parsed.append(parse_question(_with_suggestions(_without_nulls(raw), chips[i])))
            except ClarificationError as err:
                raise ClarificationError(f"{err} in questions.{i}") from None
    except ClarificationError as err:
        return ToolCallResult(status="malformed", raw_input=arguments, error=str(err))

    kept: list[ChoiceQuestion | QueryChoiceQuestion] = []
    dropped: list[Dropped] = []
    for i, asked in enumerate(parsed):
        reason = None
        if not asked.quote.strip():
            reason = "no quote of the user's question"
        elif not quote_in_question(asked.quote, question):
            reason = "the quote is not in the user's question"
        elif isinstance(asked, QueryChoiceQuestion):
            try:
                parse_query(asked.sql)
            except CheckerError as err:
                reason = f"its options query was refused: {err}"
        if reason:
            dropped.append(Dropped(i, asked.question, asked.quote, reason))
        else:
            kept.append(asked)
    return ToolCallResult(status="asked" if kept else "dropped", questions=kept, dropped=dropped,
                          raw_input=arguments)


def read_reply(message: Any, question: str) -> ToolCallResult:
    """What the model's message did with the chance to ask: no call, a call, or a malformed one."""
    text = (getattr(message, "content", None) or "").strip() or None
    calls = list(getattr(message, "tool_calls", None) or [])
    if not calls:
        written = read_text_call(text, TOOL_NAME)
        if written is None:
            return ToolCallResult(status="none", text=text)
        if written.arguments is None:
            result = ToolCallResult(status="malformed", raw_input=text, error=written.error)
        else:
            result = read_tool_input(written.arguments, question)
            if result.status == "malformed":
                result.raw_input = text
        result.text, result.written_as = text, written.form
        return result
    call = calls[0]
    function = getattr(call, "function", None)
    name = getattr(function, "name", None)
    arguments = getattr(function, "arguments", None)
    if name != TOOL_NAME:
        return ToolCallResult(status="malformed", raw_input=arguments, tool_call_id=getattr(call, "id", None),
                              error=f"unknown tool {name!r} (expected {TOOL_NAME})", text=text)
    result = read_tool_input(arguments, question)
    result.tool_call_id = getattr(call, "id", None)
    result.text = text
    if len(calls) > 1:
        result.dropped.append(Dropped(-1, "", "", f"{len(calls) - 1} further tool call(s) ignored"))
    return result
