"""Token usage per check: every model call counts, the clarification included (a question is not free)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class StepUsage:
    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, int]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "total_tokens": self.total_tokens}


@dataclass
class Usage:
    steps: dict[str, StepUsage] = field(default_factory=dict)

    def add(self, step: str, prompt_tokens: int | None, completion_tokens: int | None) -> None:
        """Record one call (a call the server answered without a usage block still counts as a call)."""
        entry = self.steps.setdefault(step, StepUsage())
        entry.calls += 1
        entry.prompt_tokens += int(prompt_tokens or 0)
        entry.completion_tokens += int(completion_tokens or 0)

    @property
    def calls(self) -> int:
        return sum(s.calls for s in self.steps.values())

    @property
    def prompt_tokens(self) -> int:
        return sum(s.prompt_tokens for s in self.steps.values())

    @property
    def completion_tokens(self) -> int:
        return sum(s.completion_tokens for s in self.steps.values())

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_dict(self) -> dict[str, Any]:
        return {"calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "total_tokens": self.total_tokens,
                "by_step": {name: s.to_dict() for name, s in self.steps.items()}}

    def text(self) -> str:
        parts = ", ".join(f"{name} {s.total_tokens:,}" for name, s in self.steps.items())
        return f"{self.calls} call(s), {self.total_tokens:,} tokens" + (f" ({parts})" if parts else "")
