"""A scripted OpenAI-compatible HTTP server for tests: the real `openai` SDK talks to it over real HTTP.

    server = ScriptedLLM().start()
    server.push(tool_call_reply({...}), structured_reply({...}))
    settings = server.settings(timeout_s=1.0)
    ...
    server.requests  # every JSON body received, in order

Each POST to /v1/chat/completions takes the next scripted response (status, body, delay). An empty
script answers 500 "script exhausted", so a test that makes more calls than it scripted fails loudly.
"""
from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest


@dataclass
class Scripted:
    body: Any                      # dict -> JSON; str -> sent as is (invalid JSON allowed)
    status: int = 200
    delay_s: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)


def _usage(prompt: int, completion: int) -> dict[str, int]:
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}


def completion(message: dict[str, Any], *, finish_reason: str = "stop",
               usage: tuple[int, int] = (100, 20)) -> dict[str, Any]:
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": "scripted",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason,
                         "logprobs": None}],
            "usage": _usage(*usage)}


def tool_call_reply(arguments: Any, *, name: str = "render_ask_user_question", usage: tuple[int, int] = (120, 40),
                    content: str | None = None) -> Scripted:
    """A reply calling one tool; `arguments` is JSON-encoded unless it is already a string (raw text)."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return Scripted(completion({"content": content, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": name, "arguments": text}}]},
        finish_reason="tool_calls", usage=usage))


def text_reply(content: str, *, usage: tuple[int, int] = (100, 20)) -> Scripted:
    return Scripted(completion({"content": content}, usage=usage))


def structured_reply(payload: Any, *, usage: tuple[int, int] = (150, 60)) -> Scripted:
    """A structured-output reply: the content is the JSON text of `payload` (or `payload` itself if a string)."""
    return text_reply(payload if isinstance(payload, str) else json.dumps(payload), usage=usage)


def error_reply(status: int, message: str = "scripted failure") -> Scripted:
    return Scripted({"error": {"message": message, "type": "server_error", "code": None}}, status=status,
                    headers={"retry-after-ms": "10"})  # an SDK retry comes at once


class ScriptedLLM:
    def __init__(self) -> None:
        self.script: deque[Scripted] = deque()
        self.requests: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._server: ThreadingHTTPServer | None = None

    # -- scripting -------------------------------------------------------------------------------

    def push(self, *responses: Scripted, times: int = 1) -> ScriptedLLM:
        with self._lock:
            for _ in range(times):
                self.script.extend(responses)
        return self

    def _next(self, body: dict[str, Any]) -> Scripted:
        with self._lock:
            self.requests.append(body)
            if self.script:
                return self.script.popleft()
        return error_reply(500, "script exhausted: the test made more model calls than it scripted")

    # -- serving ---------------------------------------------------------------------------------

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def settings(self, **overrides: Any):  # noqa: ANN201 - a ModelSettings
        from checker_app.llm.settings import ModelSettings

        values = {"api_key": "test-key", "base_url": self.base_url, "model": "scripted-model",
                  "timeout_s": 5.0, "max_retries": 0, "max_concurrent": 2, **overrides}
        return ModelSettings(**values)

    def start(self) -> ScriptedLLM:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw or b"{}")
                except json.JSONDecodeError:
                    body = {"_raw": raw.decode("utf-8", "replace")}
                body["_path"] = self.path
                reply = owner._next(body)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    reply = error_reply(404, f"no route {self.path}")
                if reply.delay_s and owner._closing.wait(reply.delay_s):
                    return
                data = reply.body if isinstance(reply.body, (bytes, str)) else json.dumps(reply.body)
                payload = data.encode("utf-8") if isinstance(data, str) else data
                try:
                    self.send_response(reply.status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for key, value in reply.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, name="scripted-llm",
                         daemon=True).start()
        return self

    def stop(self) -> None:
        self._closing.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None


@pytest.fixture
def llm() -> Iterator[ScriptedLLM]:
    """A started scripted server, stopped after the test."""
    server = ScriptedLLM().start()
    yield server
    server.stop()
