"""One streamed chat completion read to the end, or to the deadline, with the time to its first token.

A local model first processes the whole prompt (tens of seconds on a small CPU) and only then writes;
streaming is how the two are told apart. Content and tool-call deltas are put back together into one
message like a non-streamed reply's. The deadline covers the whole attempt: a server that keeps
sending tokens (a runaway generation) is cut there, and the tokens it sent are still counted.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any


@dataclass
class Streamed:
    content: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, Any]] = field(default_factory=dict)
    refusal: list[str] = field(default_factory=list)
    finish_reason: str | None = None
    chunks: int = 0                      # chunks that carried text: about one token each
    usage: Any = None
    first_token_s: float | None = None
    cut: bool = False                    # stopped at the deadline

    def message(self) -> Any:
        calls = [SimpleNamespace(id=c["id"], type="function",
                                 function=SimpleNamespace(name=c["name"], arguments="".join(c["arguments"])))
                 for _, c in sorted(self.calls.items())]
        return SimpleNamespace(role="assistant", content="".join(self.content) or None, tool_calls=calls or None,
                               refusal="".join(self.refusal) or None)

    def tokens(self) -> tuple[int, int, bool]:
        """(prompt, completion, estimated): the usage block when the server sent one, else chunks seen."""
        if self.usage is not None:
            return (int(getattr(self.usage, "prompt_tokens", 0) or 0),
                    int(getattr(self.usage, "completion_tokens", 0) or 0), False)
        return 0, self.chunks, True


def _take(chunk: Any, into: Streamed, started: float) -> None:
    if getattr(chunk, "usage", None) is not None:
        into.usage = chunk.usage
    for choice in getattr(chunk, "choices", None) or []:
        if getattr(choice, "index", 0) != 0:
            continue
        delta = getattr(choice, "delta", None)
        wrote = False
        if delta is not None:
            if getattr(delta, "content", None):
                into.content.append(delta.content)
                wrote = True
            if getattr(delta, "refusal", None):
                into.refusal.append(delta.refusal)
            for call in getattr(delta, "tool_calls", None) or []:
                entry = into.calls.setdefault(getattr(call, "index", 0) or 0,
                                              {"id": None, "name": None, "arguments": []})
                entry["id"] = entry["id"] or getattr(call, "id", None)
                function = getattr(call, "function", None)
                if function is not None:
                    entry["name"] = entry["name"] or getattr(function, "name", None)
                    if getattr(function, "arguments", None):
                        entry["arguments"].append(function.arguments)
                wrote = True
        if wrote:
            into.chunks += 1
            if into.first_token_s is None:
                into.first_token_s = time.perf_counter() - started
        if getattr(choice, "finish_reason", None):
            into.finish_reason = choice.finish_reason


def read_stream(stream: Any, started: float, deadline_s: float, into: Streamed) -> Streamed:
    """Read `stream` into `into` until it ends or `deadline_s` after `started` has passed (then `cut`)."""
    try:
        for chunk in stream:
            _take(chunk, into, started)
            if time.perf_counter() - started > deadline_s and into.finish_reason is None:
                into.cut = True
                break
    finally:
        close = getattr(stream, "close", None)
        if close is not None:
            close()
    return into
