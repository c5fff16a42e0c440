"""Model mode settings, read from the environment (any OpenAI-compatible server).

OPENAI_API_KEY          no key: model mode is off and says so (local servers take any non-empty key)
OPENAI_BASE_URL         e.g. http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM
CHECKER_MODEL           model name (default gpt-4o-mini)
CHECKER_MODEL_TIMEOUT   seconds per model call (default 20)
CHECKER_MODEL_RETRIES   retries per call inside the SDK (default 1)
CHECKER_MODEL_CONCURRENCY  model calls at once per process; beyond that a check skips the model (default 2)
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from adapters import ConfigError

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_S = 20.0
DEFAULT_RETRIES = 1
DEFAULT_CONCURRENCY = 2


def without_credentials(url: str) -> str:
    """The URL with any user:password@ and query string removed (a proxy URL may carry a token)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = host + (f":{parts.port}" if parts.port else "") if "@" in parts.netloc else parts.netloc
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


@dataclass(frozen=True)
class ModelSettings:
    api_key: str = ""
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_RETRIES
    max_concurrent: int = DEFAULT_CONCURRENCY

    @property
    def enabled(self) -> bool:
        return bool(self.api_key.strip())

    @property
    def off_reason(self) -> str | None:
        if self.enabled:
            return None
        return "model mode is off: OPENAI_API_KEY is not set"

    def describe(self) -> dict[str, object]:
        """What the report may show: never the key."""
        return {"model": self.model, "base_url": without_credentials(self.base_url or "https://api.openai.com/v1"),
                "timeout_s": self.timeout_s, "max_retries": self.max_retries, "enabled": self.enabled}

    def __repr__(self) -> str:  # keep the key out of logs and tracebacks
        return (f"ModelSettings(model={self.model!r}, base_url={without_credentials(self.base_url or '')!r}, timeout_s={self.timeout_s}, "
                f"max_retries={self.max_retries}, max_concurrent={self.max_concurrent}, enabled={self.enabled})")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelSettings:
        env = os.environ if env is None else env
        return cls(
            api_key=env.get("OPENAI_API_KEY", "").strip(),
            base_url=env.get("OPENAI_BASE_URL", "").strip() or None,
            model=env.get("CHECKER_MODEL", "").strip() or DEFAULT_MODEL,
            timeout_s=_number(env, "CHECKER_MODEL_TIMEOUT", DEFAULT_TIMEOUT_S, float),
            max_retries=int(_number(env, "CHECKER_MODEL_RETRIES", DEFAULT_RETRIES, int)),
            max_concurrent=max(1, int(_number(env, "CHECKER_MODEL_CONCURRENCY", DEFAULT_CONCURRENCY, int))),
        )


def _number(env: Mapping[str, str], name: str, default: float, kind: type) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value < 0 or (kind is float and value == 0):
        raise ConfigError(f"{name}={raw!r} must be positive")
    return value
