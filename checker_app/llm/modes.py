"""How a server takes structured output, learnt once per server (base_url) for the process.

Servers differ: OpenAI, vLLM, Ollama and llama-server take `response_format: json_schema`;
llama-cpp-python refuses it (HTTP 500, "Input should be 'text' or 'json_object'") but takes
`json_object`; some take neither. The ladder, best first:

    json_schema   the schema is enforced by the server (grammar-constrained)
    json_object   a JSON object; the schema goes into the prompt, and into `response_format.schema`,
                  which llama-cpp-python turns into a grammar (others ignore it)
    text          no response_format; the schema goes into the prompt, the JSON is taken from the text

A server that refuses streaming is asked again without it, and that too is remembered.
A refusal of `response_format` steps down the ladder and is remembered for the server, so the next
check does not pay for the refused request again. Every mode's reply is validated against the same
schema (`checker_app.llm.readings`).
"""
from __future__ import annotations

import json
import threading
from typing import Any

MODES = ("json_schema", "json_object", "text")


class ServerModes:
    """The mode that works, per server. One instance per process (SERVER_MODES); `forget` for tests."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modes: dict[str, str] = {}
        self._refused: set[tuple[str, str]] = set()

    def current(self, server: str) -> str:
        with self._lock:
            return self._modes.get(server, MODES[0])

    def step_down(self, server: str, refused: str) -> str | None:
        """The next mode after `refused`, remembered for `server` (None when none is left)."""
        index = MODES.index(refused) + 1
        if index >= len(MODES):
            return None
        with self._lock:
            if MODES.index(self._modes.get(server, MODES[0])) < index:
                self._modes[server] = MODES[index]
            return self._modes[server]

    def refuse(self, server: str, feature: str) -> None:
        """Remember that `server` refuses a request feature (e.g. "stream")."""
        with self._lock:
            self._refused.add((server, feature))

    def refuses(self, server: str, feature: str) -> bool:
        with self._lock:
            return (server, feature) in self._refused

    def forget(self) -> None:
        with self._lock:
            self._modes.clear()
            self._refused.clear()

    def snapshot(self) -> dict[str, str]:
        with self._lock:
            return dict(self._modes)


SERVER_MODES = ServerModes()


def response_format_for(mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    if mode == "json_schema":
        return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}
    if mode == "json_object":
        return {"type": "json_object", "schema": schema}
    return None


def schema_instruction(mode: str, schema: dict[str, Any]) -> str:
    """What the prompt must add when the server does not enforce the schema itself ("" when it does)."""
    if mode == "json_schema":
        return ""
    return ("Answer with one JSON object and nothing else (no prose, no code fence), matching this JSON schema "
            "exactly:\n" + json.dumps(schema, ensure_ascii=False, separators=(",", ":")))
