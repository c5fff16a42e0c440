"""Token usage and time per check: every attempt counts, the clarification, timed-out and retried ones included.

A question is not free, and neither is a call that timed out or was retried: `attempts` counts every
request sent, `calls` the ones that gave a reply. Tokens of an attempt that never finished are what
the stream delivered before it was cut (`estimated` when the server sent no usage block). Time to the
first token (the server processing the prompt) is kept apart from the generation after it.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class StepUsage:
    calls: int = 0                 # attempts that gave a reply
    attempts: int = 0              # requests sent, failed and retried ones included
    timeouts: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False        # some tokens were counted from stream chunks, not a usage block
    first_token_s: float | None = None   # of the last attempt that produced a token
    seconds: float = 0.0                 # wall time of every attempt

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "attempts": self.attempts, "timeouts": self.timeouts, "retries": self.retries,
                "prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens, "estimated": self.estimated,
                "first_token_s": None if self.first_token_s is None else round(self.first_token_s, 3),
                "seconds": round(self.seconds, 3)}


@dataclass
class Usage:
    steps: dict[str, StepUsage] = field(default_factory=dict)

    def add(self, step: str, prompt_tokens: int | None, completion_tokens: int | None, *, ok: bool = True,
            timed_out: bool = False, retry: bool = False, estimated: bool = False,
            first_token_s: float | None = None, seconds: float = 0.0) -> None:
        """Record one attempt (an attempt the server answered without a usage block still counts)."""
        entry = self.steps.setdefault(step, StepUsage())
        entry.attempts += 1
        entry.calls += int(ok)
        entry.timeouts += int(timed_out)
        entry.retries += int(retry)
        entry.prompt_tokens += int(prompt_tokens or 0)
        entry.completion_tokens += int(completion_tokens or 0)
        entry.estimated = entry.estimated or estimated
        if first_token_s is not None:
            entry.first_token_s = first_token_s
        entry.seconds += seconds

    def _sum(self, name: str) -> int:
        return sum(getattr(s, name) for s in self.steps.values())

    @property
    def calls(self) -> int:
        return self._sum("calls")

    @property
    def attempts(self) -> int:
        return self._sum("attempts")

    @property
    def prompt_tokens(self) -> int:
        return self._sum("prompt_tokens")

    @property
    def completion_tokens(self) -> int:
        return self._sum("completion_tokens")

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def seconds(self) -> float:
        return sum(s.seconds for s in self.steps.values())

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "attempts": self.attempts, "timeouts": self._sum("timeouts"),
                "retries": self._sum("retries"), "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "total_tokens": self.total_tokens,
                "estimated": any(s.estimated for s in self.steps.values()), "seconds": round(self.seconds, 3),
                "by_step": {name: s.to_dict() for name, s in self.steps.items()}}

    def text(self) -> str:
        parts = ", ".join(f"{name} {s.total_tokens:,}" for name, s in self.steps.items())
        extra = self.attempts - self.calls
        failed = f", {extra} failed attempt(s)" if extra else ""
        return f"{self.calls} call(s){failed}, {self.total_tokens:,} tokens" + (f" ({parts})" if parts else "")
