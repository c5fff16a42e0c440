"""A scripted OpenAI-compatible HTTP server for tests: the real `openai` SDK talks to it over real HTTP.

    server = ScriptedLLM().start()
    server.push(tool_call_reply({...}), structured_reply({...}))
    settings = server.settings(timeout_s=1.0)
    ...
    server.requests  # every JSON body received, in order

Each POST to /v1/chat/completions takes the next scripted response. An empty script answers 500
"script exhausted", so a test that makes more calls than it scripted fails loudly.

It answers the way real servers do:
* a request with `"stream": true` gets server-sent events: a completion scripted as JSON is cut into
  one chunk per word (a "token"), the last chunk carries `usage` when `stream_options.include_usage`
  asks; `raw_events` replays recorded events byte for byte (tests/fixtures/llm/streams.jsonl);
* `max_tokens` is honoured like llama.cpp does (the reply stops there with `finish_reason: "length"`),
  unless the scripted reply says `ignore_max_tokens` (a server that runs on);
* `first_token_s` waits after the headers before the first event (a cold prompt being processed),
  `token_s` between chunks (a slow generation), `delay_s` before anything at all;
* `body` as text is sent byte for byte (tests/fixtures/llm/errors.jsonl holds recorded error bodies).
"""
from __future__ import annotations

import json
import re
import threading
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).parent / "fixtures" / "llm"


@dataclass
class Scripted:
    body: Any                      # dict -> JSON; str -> sent as is (invalid JSON allowed)
    status: int = 200
    delay_s: float = 0.0           # before the response starts
    headers: dict[str, str] = field(default_factory=dict)
    first_token_s: float = 0.0     # streamed: after the headers, before the first event
    token_s: float = 0.0           # streamed: between events
    ignore_max_tokens: bool = False
    raw_events: list[str] | None = None  # streamed: these events byte for byte ("data: ..." without "\n\n")


def fixture_lines(name: str) -> list[dict[str, Any]]:
    """The cases of tests/fixtures/llm/NAME.jsonl: one JSON object a line (blank and # lines skipped)."""
    lines = (FIXTURES / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip() and not line.lstrip().startswith("#")]


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


def text_reply(content: str, *, usage: tuple[int, int] = (100, 20), **options: Any) -> Scripted:
    return Scripted(completion({"content": content}, usage=usage), **options)


def structured_reply(payload: Any, *, usage: tuple[int, int] = (150, 60), **options: Any) -> Scripted:
    """A structured-output reply: the content is the JSON text of `payload` (or `payload` itself if a string)."""
    return text_reply(payload if isinstance(payload, str) else json.dumps(payload), usage=usage, **options)


def error_reply(status: int, message: str = "scripted failure") -> Scripted:
    return Scripted({"error": {"message": message, "type": "server_error", "code": None}}, status=status,
                    headers={"retry-after-ms": "10"})  # an SDK retry comes at once


def recorded_error(case: dict[str, Any]) -> Scripted:
    """An error fixture line (tests/fixtures/llm/errors.jsonl) as the server sent it."""
    return Scripted(case["body"], status=case["status"], headers={"retry-after-ms": "10"})


_TOKEN = re.compile(r"\s*\S+\s*|\s+")


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text or "")


def stream_events(body: dict[str, Any], request: dict[str, Any], *, ignore_max_tokens: bool = False) -> list[str]:
    """A scripted completion as the events a streaming server sends, cut at the request's max_tokens."""
    choice = body["choices"][0]
    message = choice["message"]
    limit = None if ignore_max_tokens else request.get("max_tokens")
    base = {"id": body.get("id", "chatcmpl-test"), "object": "chat.completion.chunk", "created": body.get("created", 0),
            "model": body.get("model", "scripted")}

    def chunk(delta: dict[str, Any], finish: str | None = None) -> str:
        return "data: " + json.dumps({**base, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})

    events = [chunk({"role": "assistant", "content": None})]
    pieces: list[tuple[str, Any]] = [("content", t) for t in _tokens(message.get("content") or "")]
    for n, call in enumerate(message.get("tool_calls") or []):
        function = call["function"]
        pieces.append(("call", {"index": n, "id": call["id"], "type": "function",
                                "function": {"name": function["name"], "arguments": ""}}))
        pieces += [("call", {"index": n, "function": {"arguments": t}}) for t in _tokens(function["arguments"])]
    finish = choice.get("finish_reason") or "stop"
    written = 0
    for kind, piece in pieces:
        if limit is not None and written >= limit:
            finish = "length"
            break
        events.append(chunk({"content": piece} if kind == "content" else {"tool_calls": [piece]}))
        written += 1
    events.append(chunk({}, finish))
    if (request.get("stream_options") or {}).get("include_usage"):
        scripted = body.get("usage") or {}
        whole = written == len(pieces)  # the scripted count, unless the reply was cut
        events.append("data: " + json.dumps({**base, "choices": [], "usage": _usage(
            scripted.get("prompt_tokens", 0), scripted.get("completion_tokens", written) if whole else written)}))
    events.append("data: [DONE]")
    return events


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

    def settings(self, **overrides: Any):  # a ModelSettings
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

            def _stream(self, reply: Scripted, body: dict[str, Any]) -> None:
                events = reply.raw_events if reply.raw_events is not None else stream_events(
                    reply.body, body, ignore_max_tokens=reply.ignore_max_tokens)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Cache-Control", "no-cache")
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.flush()
                if reply.first_token_s and owner._closing.wait(reply.first_token_s):
                    return
                for n, event in enumerate(events):
                    if n and reply.token_s and owner._closing.wait(reply.token_s):
                        return
                    self.wfile.write(event.encode("utf-8") + b"\n\n")
                    self.wfile.flush()
                self.close_connection = True

            def do_POST(self) -> None:  # http.server's name
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
                try:
                    if body.get("stream") and reply.status == 200 and (
                            reply.raw_events is not None or isinstance(reply.body, dict)):
                        self._stream(reply, body)
                        return
                    data = reply.body if isinstance(reply.body, (bytes, str)) else json.dumps(reply.body)
                    payload = data.encode("utf-8") if isinstance(data, str) else data
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
    """A started scripted server, stopped after the test; what was learnt about servers is forgotten."""
    server = ScriptedLLM().start()
    yield server
    server.stop()
    from checker_app.llm.modes import SERVER_MODES

    SERVER_MODES.forget()
