"""The one place that talks to the model: the `openai` SDK against any OpenAI-compatible server.

Explicit timeout, small `max_retries`, and a bounded number of calls at once: when every slot is
taken a check skips the model (fails open) instead of queueing behind other checks. Every SDK error
becomes a ModelFailure with a one-word kind; tokens are counted even when the reply is unusable.
"""
from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from checker_app.llm.errors import ModelFailure
from checker_app.llm.settings import ModelSettings
from checker_app.llm.usage import Usage


@dataclass
class Reply:
    """The first choice of one chat completion."""

    message: Any               # openai ChatCompletionMessage
    finish_reason: str | None


class ModelClient:
    def __init__(self, settings: ModelSettings) -> None:
        if not settings.enabled:
            raise ModelFailure("off", settings.off_reason or "model mode is off")
        import openai

        self.settings = settings
        self._openai = openai
        self._sdk = openai.OpenAI(api_key=settings.api_key, base_url=settings.base_url,
                                  timeout=settings.timeout_s, max_retries=settings.max_retries)
        self._slots = threading.BoundedSemaphore(settings.max_concurrent)

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
             tools: list[dict[str, Any]] | None = None, tool_choice: Any = None, response_format: dict[str, Any] | None = None) -> Reply:
        kwargs: dict[str, Any] = {"model": self.settings.model, "messages": messages}
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = tool_choice or "auto"
        if response_format:
            kwargs["response_format"] = response_format
        completion = self._call(kwargs)
        counted = getattr(completion, "usage", None)
        usage.add(step, getattr(counted, "prompt_tokens", 0), getattr(counted, "completion_tokens", 0))
        choices = getattr(completion, "choices", None) or []
        if not choices or getattr(choices[0], "message", None) is None:
            raise ModelFailure("empty", "the model returned no message")
        message = choices[0].message
        refusal = getattr(message, "refusal", None)
        if refusal:
            raise ModelFailure("refused", f"the model refused: {_first_line(refusal)}")
        return Reply(message=message, finish_reason=getattr(choices[0], "finish_reason", None))

    def _call(self, kwargs: dict[str, Any]) -> Any:
        openai = self._openai
        timeout = self.settings.timeout_s
        try:
            return self._sdk.chat.completions.create(**kwargs)
        except openai.APITimeoutError:
            retries = self.settings.max_retries
            raise ModelFailure("timeout", f"no answer within {timeout:g} s "
                                          f"({retries} retr{'y' if retries == 1 else 'ies'})") from None
        except openai.APIConnectionError as err:
            raise ModelFailure("connection", f"cannot reach {self.settings.base_url or 'the OpenAI API'}: "
                                             f"{_first_line(_cause(err))}") from None
        except openai.APIStatusError as err:
            raise ModelFailure("http", f"HTTP {err.status_code}: {_first_line(_status_message(err))}",
                               status=err.status_code) from None
        except openai.APIError as err:  # a 2xx body the SDK cannot read
            raise ModelFailure("malformed", f"unreadable reply: {_first_line(str(err))}") from None
        except Exception as err:  # noqa: BLE001 - fail open on anything the SDK raises
            raise ModelFailure("malformed",
                               f"unreadable reply ({type(err).__name__}): {_first_line(str(err))}") from None


def _cause(err: BaseException) -> str:
    cause = err.__cause__ or err.__context__
    return str(cause) if cause is not None and str(cause) else str(err)


def _status_message(err: Any) -> str:
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return getattr(err, "message", "") or str(err)


def _first_line(text: str, limit: int = 300) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


@functools.lru_cache(maxsize=8)
def client_for(settings: ModelSettings) -> ModelClient:
    """One client (connection pool and call slots) per settings, shared by every check in the process."""
    return ModelClient(settings)
