"""The one place that talks to the model: the `openai` SDK against any OpenAI-compatible server.

Explicit timeout per attempt, a bounded number of calls at once (when every slot is taken a check
skips the model instead of queueing), bounded `max_tokens` per step and `temperature` (0 by default).
Retries are made here, not in the SDK, so that every attempt is counted in `usage` and a refusal of
the request itself (a validation error, even as HTTP 500) is never retried. Replies are streamed by
default: the time to the first token (the server processing the prompt) is measured apart from the
generation, and a timeout says which of the two it hit. Every SDK error becomes a ModelFailure
carrying the server's whole message.
"""
from __future__ import annotations

import contextlib
import functools
import json
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from adapters.urls import scrub
from checker_app.llm.errors import ModelFailure
from checker_app.llm.failures import retriable, status_failure, whole
from checker_app.llm.modes import SERVER_MODES
from checker_app.llm.settings import ModelSettings, secrets_of_settings, without_credentials
from checker_app.llm.stream import Streamed, read_stream
from checker_app.llm.usage import Usage

_NO_USAGE = type("NoUsage", (), {"prompt_tokens": 0, "completion_tokens": 0})()


@dataclass
class Reply:
    """The first choice of one chat completion."""

    message: Any               # openai ChatCompletionMessage, or the same shape put together from a stream
    finish_reason: str | None
    first_token_s: float | None = None


def _prompt_size(messages: list[dict[str, Any]]) -> int:
    """About how many tokens the prompt is (four characters a token), for the failure reason."""
    return len(json.dumps(messages, ensure_ascii=False)) // 4


class ModelClient:
    def __init__(self, settings: ModelSettings) -> None:
        if not settings.enabled:
            raise ModelFailure("off", settings.off_reason or "model mode is off")
        import openai

        self.settings = settings
        self._openai = openai
        self._sdk = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url,
                                  timeout=settings.timeout_s, max_retries=0)
        self._slots = threading.BoundedSemaphore(settings.max_concurrent)

    @property
    def server(self) -> str:
        """The server this client talks to, without credentials (the key of what is remembered about it)."""
        return without_credentials(self.settings.base_url or "https://api.openai.com/v1")

    @contextlib.contextmanager
    def slot(self) -> Iterator[None]:
        """Hold one of the concurrent-call slots, or fail open at once (never wait for one)."""
        if not self._slots.acquire(blocking=False):
            raise ModelFailure("busy", f"the model is busy ({self.settings.max_concurrent} call(s) already "
                                       "running); skipped rather than queued")
        try:
            yield
        finally:
            self._slots.release()

    def chat(self, step: str, messages: list[dict[str, Any]], usage: Usage, *,
             tools: list[dict[str, Any]] | None = None, tool_choice: Any = None,
             response_format: dict[str, Any] | None = None) -> Reply:
        """One completion, retried where worth it; a failure's message never shows a credential."""
        try:
            return self._chat(step, messages, usage, tools=tools, tool_choice=tool_choice,
                              response_format=response_format)
        except ModelFailure as failure:
            secrets = secrets_of_settings(self.settings)
            failure.message = scrub(failure.message, secrets)
            if isinstance(failure.raw, str):
                failure.raw = scrub(failure.raw, secrets)
            raise

    def _chat(self, step: str, messages: list[dict[str, Any]], usage: Usage, *,
              tools: list[dict[str, Any]] | None, tool_choice: Any,
              response_format: dict[str, Any] | None) -> Reply:
        settings = self.settings
        kwargs: dict[str, Any] = {"model": settings.model, "messages": messages,
                                  "max_tokens": settings.max_tokens_for(step), "temperature": settings.temperature}
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = tool_choice or "auto"
        if response_format:
            kwargs["response_format"] = response_format
        stream = settings.stream and not SERVER_MODES.refuses(self.server, "stream")
        for attempt in range(settings.max_retries + 1):
            try:
                reply = self._attempt(step, kwargs, usage, retry=attempt > 0, stream=stream)
                break
            except ModelFailure as failure:
                if stream and failure.param in ("stream", "stream_options"):
                    SERVER_MODES.refuse(self.server, "stream")  # asked again at once, without streaming
                    reply = self._attempt(step, kwargs, usage, retry=True, stream=False)
                    break
                if attempt >= settings.max_retries or not retriable(failure):
                    if attempt:
                        failure.message += f" (after {attempt + 1} attempts)"
                    raise
        message = reply.message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise ModelFailure("refused", f"the model refused: {whole(refusal)}")
        if reply.finish_reason == "length":
            text = getattr(message, "content", None)
            calls = getattr(message, "tool_calls", None) or []
            raw = text or "".join(getattr(c.function, "arguments", "") or "" for c in calls) or None
            raise ModelFailure("length", f"the reply was cut at max_tokens={kwargs['max_tokens']}: the model ran "
                                         "on past the limit (raise CHECKER_MODEL_MAX_TOKENS if its answers need "
                                         "more)", raw=raw)
        return reply

    # -- one attempt -----------------------------------------------------------------------------

    def _attempt(self, step: str, kwargs: dict[str, Any], usage: Usage, *, retry: bool, stream: bool) -> Reply:
        started = time.perf_counter()
        streamed = Streamed()
        try:
            if stream:
                stream = self._sdk.chat.completions.create(**kwargs, stream=True,
                                                          stream_options={"include_usage": True})
                read_stream(stream, started, self.settings.timeout_s, streamed)
                if streamed.cut:
                    raise self._timeout(kwargs, streamed, time.perf_counter() - started)
                reply = Reply(streamed.message(), streamed.finish_reason, streamed.first_token_s)
                if streamed.chunks == 0 and streamed.finish_reason is None and streamed.usage is None:
                    raise ModelFailure("empty", "the server's stream ended without a message")
                prompt, completion, estimated = streamed.tokens()
            else:
                completion_ = self._sdk.chat.completions.create(**kwargs)
                streamed.usage = getattr(completion_, "usage", None) or _NO_USAGE
                prompt, completion, estimated = streamed.tokens()
                choices = getattr(completion_, "choices", None) or []
                if not choices or getattr(choices[0], "message", None) is None:
                    raise ModelFailure("empty", "the model returned no message")
                reply = Reply(choices[0].message, getattr(choices[0], "finish_reason", None))
        except ModelFailure as failure:
            self._count(step, usage, streamed, failure, retry, started)
            raise
        except Exception as err:  # noqa: BLE001 - every SDK or transport error fails open, typed
            failure = self._failure(err, kwargs, streamed, time.perf_counter() - started)
            self._count(step, usage, streamed, failure, retry, started)
            raise failure from None
        usage.add(step, prompt, completion, retry=retry, estimated=estimated, first_token_s=reply.first_token_s,
                  seconds=time.perf_counter() - started)
        return reply

    @staticmethod
    def _count(step: str, usage: Usage, streamed: Streamed, failure: ModelFailure, retry: bool, started: float) -> None:
        prompt, completion, estimated = streamed.tokens()
        answered = failure.kind not in ("timeout", "connection", "http", "context")
        usage.add(step, prompt, completion, ok=answered, timed_out=failure.kind == "timeout", retry=retry,
                  estimated=estimated, first_token_s=streamed.first_token_s, seconds=time.perf_counter() - started)

    def _timeout(self, kwargs: dict[str, Any], streamed: Streamed, elapsed: float) -> ModelFailure:
        limit = self.settings.timeout_s
        if streamed.first_token_s is None:
            return ModelFailure("timeout", f"no first token within {limit:g} s: the model was still processing the "
                                           f"prompt (about {_prompt_size(kwargs['messages']):,} tokens); a local "
                                           "server may need a larger CHECKER_MODEL_TIMEOUT", phase="prompt")
        return ModelFailure("timeout", f"no complete answer within {limit:g} s: the first token came after "
                                       f"{streamed.first_token_s:.1f} s, then {streamed.chunks:,} token(s) in "
                                       f"{elapsed - streamed.first_token_s:.1f} s of generation (max_tokens="
                                       f"{kwargs['max_tokens']})", phase="generation")

    def _failure(self, err: Exception, kwargs: dict[str, Any], streamed: Streamed, elapsed: float) -> ModelFailure:
        openai = self._openai
        if isinstance(err, openai.APITimeoutError) or _transport(err, "TimeoutException"):
            return self._timeout(kwargs, streamed, elapsed)
        if isinstance(err, openai.APIConnectionError) or _transport(err, "TransportError"):
            return ModelFailure("connection", f"cannot reach {self.server}: {whole(_cause(err), 300)}")
        if isinstance(err, openai.APIStatusError):
            return status_failure(err)
        if isinstance(err, openai.APIError):  # a 2xx body the SDK cannot read, or an error event in a stream
            return ModelFailure("malformed", f"unreadable reply: {whole(str(err))}")
        return ModelFailure("malformed", f"unreadable reply ({type(err).__name__}): {whole(str(err))}")


def _transport(err: BaseException, name: str) -> bool:
    """An error of the SDK's HTTP transport (raised unwrapped while a stream is read), by class name: the
    transport package differs between SDK versions (httpx, httpx2)."""
    return any(cls.__name__ == name and cls.__module__.startswith("httpx") for cls in type(err).__mro__)


def _cause(err: BaseException) -> str:
    cause = err.__cause__ or err.__context__
    return str(cause) if cause is not None and str(cause) else str(err)


@functools.lru_cache(maxsize=8)
def client_for(settings: ModelSettings) -> ModelClient:
    """One client (connection pool and call slots) per settings, shared by every check in the process."""
    return ModelClient(settings)
