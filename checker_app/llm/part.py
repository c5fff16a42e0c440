"""What model mode contributes to one check, and the JSON it adds to the report under "model"."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from checker_app.llm.errors import ModelFailure
from checker_app.llm.model_sql import ModelSQL
from checker_app.llm.readings import clip
from checker_app.llm.tool import ToolCallResult
from checker_app.llm.usage import Usage


@dataclass
class ModelPart:
    """status: ok | partial (something failed, readings came) | failed (no readings) | off."""

    settings: dict[str, Any] = field(default_factory=dict)
    detections: list[dict[str, Any]] = field(default_factory=list)
    readings: list[ModelSQL] = field(default_factory=list)
    clarification: ToolCallResult | None = None
    usage: Usage = field(default_factory=Usage)
    failures: list[dict[str, Any]] = field(default_factory=list)
    answered: bool = False      # answers were given: a resubmit is not asked again (the loop breaker)
    tool_output: dict[str, Any] | None = None  # the answers payload the model was given (with memoryHint)
    capped: bool = False
    elapsed_ms: float = 0.0
    off: str | None = None
    model_errors: list[dict[str, Any]] = field(default_factory=list)  # unknown archetype ids, invalid readings
    fallbacks: list[dict[str, Any]] = field(default_factory=list)     # structured-output modes the server refused
    structured_output: str | None = None                              # the mode the readings came in

    def fail(self, step: str, failure: ModelFailure) -> None:
        entry = failure.to_dict(step)
        if failure.raw is not None:
            entry["raw"] = clip(failure.raw)
        self.failures.append(entry)

    @property
    def failure(self) -> dict[str, Any] | None:
        return self.failures[0] if self.failures else None

    @property
    def status(self) -> str:
        if self.off:
            return "off"
        if not self.failures:
            return "ok"
        return "partial" if self.readings else "failed"

    @property
    def archetype_ids(self) -> list[str]:
        return [d["id"] for d in self.detections]

    def failure_text(self) -> str | None:
        """One line for the report's notes, or None when nothing failed."""
        if self.off:
            return self.off
        if not self.failures:
            return None
        first = self.failures[0]
        more = f" (+{len(self.failures) - 1} more)" if len(self.failures) > 1 else ""
        return f"model part failed at {first['step']} ({first['kind']}): {first['message']}{more}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "off": self.off,
            "failure": self.failure,
            "failures": list(self.failures),
            "settings": dict(self.settings),
            "archetypes": list(self.detections),
            "clarification": self.clarification.to_dict() if self.clarification else None,
            "answered": self.answered,
            "tool_output": self.tool_output,
            "readings": [r.to_dict() for r in self.readings],
            "model_errors": list(self.model_errors),
            "structured_output": self.structured_output,
            "fallbacks": list(self.fallbacks),
            "capped": self.capped,
            "usage": self.usage.to_dict(),
            "elapsed_ms": round(self.elapsed_ms, 1),
        }
