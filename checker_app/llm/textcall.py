"""A clarification call the model wrote in its message text instead of `tool_calls`.

Small local models (and servers whose chat template has no tool support) write the call as text.
Seen forms, each read into the tool's arguments and then through the same contract as a real call
(normalizeQuestionType, the quote check, suggestions paired by position):

* `<tools>{"name": "render_ask_user_question", "arguments": {...}}</tools>` (or `<tool_call>`);
* a fenced json block holding one ChoiceQuestion (or a list of them, or `{"questions": [...]}`);
* a bare `{"function": "render_ask_user_question", ...}`, arguments nested or inline;
* the literal `functions.render_ask_user_question:` followed by the arguments, or by nothing usable.

Text that names the tool, or holds a question-shaped object, but gives no readable arguments is a
malformed call (its raw text is kept), never "the model did not ask".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from checker_app.llm.extract import decoded, json_values

_CALL_KEYS = ("name", "function", "tool", "tool_name")
_ARG_KEYS = ("arguments", "parameters", "input", "args")
_QUESTION_KEYS = {"options", "sql", "type", "multiSelect", "quote", "header"}


@dataclass
class TextCall:
    """What the text holds: `arguments` to validate (None when unreadable), and why it counts as a call."""

    arguments: Any
    form: str             # tagged | question | bare | named
    error: str | None = None


def _names_tool(value: Any, tool: str) -> bool:
    if not isinstance(value, dict):
        return False
    for key in _CALL_KEYS:
        named = value.get(key)
        if isinstance(named, dict):
            named = named.get("name")
        if isinstance(named, str) and named.strip().removeprefix("functions.") == tool:
            return True
    return False


def _arguments_of(call: dict[str, Any]) -> Any:
    function = call.get("function")
    if isinstance(function, dict) and any(k in function for k in _ARG_KEYS):
        call = function
    for key in _ARG_KEYS:
        if key in call:
            return decoded(call[key])
    return {k: v for k, v in call.items() if k not in _CALL_KEYS and k != "type"}


def _is_question(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("question"), str) and bool(_QUESTION_KEYS & set(value))


def read_text_call(text: str | None, tool: str) -> TextCall | None:
    """The call written in `text`, or None when the text is not a call at all."""
    if not text or not text.strip():
        return None
    values = json_values(text)
    for value in values:
        if _names_tool(value, tool):
            return TextCall(_arguments_of(value), "tagged" if "<tool" in text else "bare")
    form = "named" if tool in text else "question"
    for value in values:
        if isinstance(value, dict) and isinstance(value.get("questions"), list):
            return TextCall(value, form)
        if _is_question(value):
            return TextCall({"questions": [value], "suggestions": [[]]}, form)
        if isinstance(value, list) and value and all(_is_question(v) for v in value):
            return TextCall({"questions": value, "suggestions": [[] for _ in value]}, form)
    if tool in text:
        return TextCall(None, "named", f"the model wrote a {tool} call as text with no readable arguments")
    return None
