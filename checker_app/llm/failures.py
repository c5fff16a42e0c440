"""What a server's error means, read from its whole message (kept whole in the failure reason).

Servers differ in how they say the same thing; these are the wordings seen on the servers the
README documents (llama.cpp's llama-server, llama-cpp-python, Ollama, vLLM, OpenAI):

* the prompt does not fit the context window: llama-cpp-python `context_length_exceeded` ("This model's
  maximum context length is 2048 tokens"), llama-server `exceed_context_size_error` ("exceeds the
  available context size"), vLLM ("maximum context length"), OpenAI `context_length_exceeded`;
* a request parameter the server refuses: llama-cpp-python answers a pydantic validation error as
  HTTP 500 (`'loc': ('body', 'response_format', 'type')`), others as 400 or 422. A refusal is
  deterministic: retrying it only doubles the wait.
"""
from __future__ import annotations

import re
from typing import Any

from checker_app.llm.errors import ModelFailure

MESSAGE_LIMIT = 2_000
CONTEXT_HINT = ("start the server with a larger context (llama-server --ctx-size, llama-cpp-python --n_ctx, "
                "Ollama num_ctx, vLLM --max-model-len) or lower CHECKER_MODEL_MAX_TOKENS")
_CONTEXT = re.compile(r"context[ _](length|window|size)|maximum context|n_ctx|exceed_context_size", re.I)
_LOC = re.compile(r"""['"]loc['"]\s*:\s*[(\[]\s*['"]body['"]\s*,\s*['"](\w+)['"]""")
_PARAMS = ("response_format", "tool_choice", "tools", "stream_options", "stream", "max_tokens", "temperature")


def whole(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """The server's message on one line, whole up to `limit` characters."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def status_message(err: Any) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
        if body.get("message"):  # vLLM: {"object": "error", "message": ...}
            return str(body["message"])
        if body.get("detail"):   # FastAPI's 422
            return str(body["detail"])
    return getattr(err, "message", "") or str(err)


def _code(err: Any) -> str:
    body = getattr(err, "body", None)
    inner = body.get("error", body) if isinstance(body, dict) else None
    if isinstance(inner, dict):
        return f"{inner.get('code') or ''} {inner.get('type') or ''}"
    return ""


def refused_param(status: int, message: str) -> str | None:
    """The request parameter a validation refusal names (None when the error is not one)."""
    found = _LOC.search(message)
    if found:
        return found.group(1)
    if status in (400, 422, 500) and ("validation error" in message.lower() or status != 500):
        return next((p for p in _PARAMS if p in message), None)
    return None


def status_failure(err: Any) -> ModelFailure:
    """An HTTP error status as a ModelFailure carrying the server's whole message."""
    status = int(getattr(err, "status_code", 0) or 0)
    message = status_message(err)
    if _CONTEXT.search(message) or _CONTEXT.search(_code(err)):
        return ModelFailure("context", f"the prompt does not fit the model's context window (HTTP {status}: "
                                       f"{whole(message)}); {CONTEXT_HINT}", status=status)
    return ModelFailure("http", f"HTTP {status}: {whole(message)}", status=status,
                        param=refused_param(status, message))


def retriable(failure: ModelFailure) -> bool:
    """Worth one more attempt: a dropped connection, a timeout, an overloaded or failing server.
    Never a refusal of the request itself (it fails the same way every time)."""
    if failure.kind in ("timeout", "connection"):
        return True
    if failure.kind != "http" or failure.param:
        return False
    return failure.status in (408, 409, 429) or (failure.status or 0) >= 500
