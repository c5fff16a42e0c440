"""Why the model part failed. Every kind fails open: the check goes on with the rules' result."""
from __future__ import annotations

from typing import Any, Literal

from adapters import CheckerError

FailureKind = Literal["off", "busy", "timeout", "connection", "http", "context", "length", "malformed", "schema",
                      "refused", "empty", "internal"]


class ModelFailure(CheckerError):
    """A model call that gave nothing usable. `kind` says why in one word; `raw` keeps what came back."""

    def __init__(self, kind: FailureKind, message: str, *, status: int | None = None, raw: Any = None,
                 param: str | None = None, phase: str | None = None) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message
        self.status = status
        self.raw = raw
        self.param = param    # the request parameter the server refused (e.g. "response_format")
        self.phase = phase    # timeouts: "prompt" (no token yet) or "generation"

    def to_dict(self, step: str = "") -> dict[str, Any]:
        payload: dict[str, Any] = {"kind": self.kind, "message": self.message}
        if step:
            payload["step"] = step
        if self.status is not None:
            payload["status"] = self.status
        if self.param:
            payload["param"] = self.param
        if self.phase:
            payload["phase"] = self.phase
        return payload
