"""Saved conversation traces, read into one shape whatever the chat format.

Accepted files: JSON (a list of messages, {"messages": [...]}, a list of conversations, or
{"conversations": [...]}) and JSONL (a message per line, or a conversation per line). Accepted message
formats:

* AI SDK UI messages (the first article): `parts` with `{"type": "text"}` and tool parts
  `{"type": "tool-NAME", "toolCallId", "state", "input", "output"}` (also `dynamic-tool` with `toolName`,
  and v4 `tool-invocation` / `toolInvocations`);
* OpenAI chat messages: `tool_calls` on assistant messages, answers in `{"role": "tool"}` messages;
* content blocks with `tool_use` / `tool_result`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from adapters import CheckerError
from checker_app.llm.extract import decoded

MAX_TRACE_BYTES = 20_000_000


class TraceError(CheckerError):
    """A trace file that cannot be read as conversations."""


@dataclass
class ToolCall:
    id: str | None
    name: str
    input: Any                    # parsed JSON where it was JSON text; else as found
    answered: bool                # an output (or error) came back for it
    state: str | None = None      # AI SDK state when given
    error: str | None = None      # the tool's own error (AI SDK output-error)


@dataclass
class Message:
    index: int                    # position in the conversation, 0-based
    role: str
    text: str = ""
    id: str | None = None
    calls: list[ToolCall] = field(default_factory=list)


@dataclass
class Conversation:
    id: str
    messages: list[Message]


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content
                         if isinstance(b, dict) and b.get("type") in ("text", "input_text", "output_text"))
    return ""


def _ai_sdk_call(part: dict[str, Any]) -> ToolCall | None:
    kind = str(part.get("type", ""))
    if kind == "tool-invocation" and isinstance(part.get("toolInvocation"), dict):
        inv = part["toolInvocation"]
        return ToolCall(inv.get("toolCallId"), str(inv.get("toolName", "")), decoded(inv.get("args")),
                        answered=inv.get("state") == "result" or "result" in inv, state=inv.get("state"))
    if kind == "dynamic-tool" or (kind.startswith("tool-") and kind != "tool-invocation"):
        name = str(part.get("toolName") or kind.removeprefix("tool-"))
        state = part.get("state")
        answered = state in ("output-available", "output-error", "output-denied") or "output" in part
        return ToolCall(part.get("toolCallId"), name, decoded(part.get("input", part.get("args"))), answered=answered,
                        state=state, error=part.get("errorText") if state == "output-error" else None)
    if kind == "tool_use":
        return ToolCall(part.get("id"), str(part.get("name", "")), decoded(part.get("input")), answered=False)
    return None


def _message(index: int, raw: dict[str, Any]) -> Message:
    role = str(raw.get("role", "")).lower()
    message = Message(index=index, role=role, id=raw.get("id"))
    texts = []
    parts = raw.get("parts") if isinstance(raw.get("parts"), list) else None
    blocks = raw.get("content") if isinstance(raw.get("content"), list) else None
    for part in (parts or []) + (blocks or []):
        if not isinstance(part, dict):
            continue
        if part.get("type") in ("text", "input_text", "output_text"):
            texts.append(str(part.get("text", "")))
        call = _ai_sdk_call(part)
        if call is not None:
            message.calls.append(call)
    if isinstance(raw.get("content"), str) and not texts:  # v4 messages repeat their parts' text here
        texts.append(raw["content"])
    for inv in raw.get("toolInvocations") or []:
        if isinstance(inv, dict):
            message.calls.append(ToolCall(inv.get("toolCallId"), str(inv.get("toolName", "")), decoded(inv.get("args")),
                                          answered=inv.get("state") == "result", state=inv.get("state")))
    for call in raw.get("tool_calls") or []:
        if isinstance(call, dict):
            function = call.get("function") or {}
            message.calls.append(ToolCall(call.get("id"), str(function.get("name", call.get("name", ""))),
                                          decoded(function.get("arguments", call.get("arguments"))), answered=False))
    message.text = "\n".join(t for t in texts if t).strip()
    return message


def _answered_ids(raws: list[dict[str, Any]]) -> set[str]:
    """Tool calls answered by a later message (OpenAI `tool` messages, `tool_result` blocks)."""
    ids: set[str] = set()
    for raw in raws:
        if raw.get("role") == "tool" and raw.get("tool_call_id"):
            ids.add(str(raw["tool_call_id"]))
        for block in raw.get("content") if isinstance(raw.get("content"), list) else []:
            if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("tool_use_id"):
                ids.add(str(block["tool_use_id"]))
    return ids


def conversation(raws: list[Any], conv_id: str) -> Conversation:
    dicts = [r for r in raws if isinstance(r, dict)]
    if len(dicts) != len(raws):
        raise TraceError(f"{conv_id}: every message must be a JSON object")
    answered = _answered_ids(dicts)
    messages = []
    for i, raw in enumerate(dicts):
        message = _message(i, raw)
        for call in message.calls:
            if call.id and call.id in answered:
                call.answered = True
        if message.role != "tool":
            messages.append(message)
    return Conversation(conv_id, messages)


def _is_message(value: Any) -> bool:
    return isinstance(value, dict) and "role" in value


def conversations_from_data(data: Any, name: str) -> list[Conversation]:
    if isinstance(data, dict) and isinstance(data.get("conversations"), list):
        data = data["conversations"]
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        return [conversation(data["messages"], str(data.get("id") or name))]
    if isinstance(data, list) and all(_is_message(m) for m in data):
        return [conversation(data, name)]
    if isinstance(data, list) and all(isinstance(c, dict) and isinstance(c.get("messages"), list) for c in data):
        return [conversation(c["messages"], str(c.get("id") or f"{name}#{i + 1}")) for i, c in enumerate(data)]
    raise TraceError(f"{name}: expected chat messages (objects with a 'role'), or conversations with 'messages'")


def read_trace_text(text: str, name: str = "trace") -> list[Conversation]:
    """Conversations from the text of a JSON or JSONL trace file."""
    stripped = text.strip()
    if not stripped:
        raise TraceError(f"{name}: empty file")
    try:
        return conversations_from_data(json.loads(stripped), name)
    except json.JSONDecodeError:
        pass
    lines = []
    for number, line in enumerate(stripped.splitlines(), 1):
        if not line.strip():
            continue
        try:
            lines.append(json.loads(line))
        except json.JSONDecodeError as err:
            raise TraceError(f"{name}:{number}: not JSON ({err.msg})") from None
    if all(_is_message(m) for m in lines):
        return [conversation(lines, name)]
    if all(isinstance(c, dict) and isinstance(c.get("messages"), list) for c in lines):
        return [conversation(c["messages"], str(c.get("id") or f"{name}:{i + 1}")) for i, c in enumerate(lines)]
    raise TraceError(f"{name}: JSONL lines must all be messages or all be conversations")


def read_trace(path: str | Path) -> list[Conversation]:
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise TraceError(f"{path}: {err.strerror or err}") from None
    if len(raw) > MAX_TRACE_BYTES:
        raise TraceError(f"{path}: {len(raw):,} bytes; the limit is {MAX_TRACE_BYTES:,}")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise TraceError(f"{path}: not UTF-8 text") from None
    return read_trace_text(text, path.name)
