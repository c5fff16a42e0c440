"""Model mode settings, read from the environment (any OpenAI-compatible server).

OPENAI_API_KEY          no key: model mode is off and says so (local servers take any non-empty key)
OPENAI_BASE_URL         e.g. http://localhost:11434/v1 for Ollama, http://localhost:8000/v1 for vLLM
CHECKER_MODEL           model name (default gpt-4o-mini)
CHECKER_MODEL_TIMEOUT   seconds per model call (default 20)
CHECKER_MODEL_RETRIES   retries per call inside the SDK (default 1)
CHECKER_MODEL_CONCURRENCY  model calls at once per process; beyond that a check skips the model (default 2)
CHECKER_MODEL_MAX_TOKENS   tokens the model may write per call: N for every step, or clarify=N,interpret=M
                           (default clarify=512,interpret=1536; a runaway generation stops there)
CHECKER_MODEL_TEMPERATURE  sampling temperature (default 0: the same question gives the same reading)
CHECKER_MODEL_STREAM       1 (default): stream replies, so the time to the first token is measured apart
                           from the generation; 0 for a server that cannot stream
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

from sqlalchemy.engine import make_url

from adapters import ConfigError
from adapters.urls import display_url
from adapters.urls import secrets_of as url_secrets

DEFAULT_MODEL = "gpt-4o-mini"
DEFAULT_TIMEOUT_S = 20.0
DEFAULT_RETRIES = 1
DEFAULT_CONCURRENCY = 2
DEFAULT_MAX_TOKENS = (("clarify", 512), ("interpret", 1536))
DEFAULT_TEMPERATURE = 0.0


def without_credentials(url: str) -> str:
    """The URL as it may be shown (a proxy URL may carry a password or a token): the project's one
    URL-credential scrubber (`adapters.urls`) for the userinfo, and no query string at all (an API's base
    URL needs none to be recognised, and a proxy's token may hide under any parameter name)."""
    return display_url(url.split("?", 1)[0].split("#", 1)[0])


def secrets_of_settings(settings: ModelSettings) -> list[str]:
    """What must never be shown: the key, and any credential in the base URL."""
    found = [settings.api_key] if settings.api_key else []
    if settings.base_url:
        try:
            found += url_secrets(make_url(settings.base_url))
        except Exception:  # noqa: BLE001 - not a URL SQLAlchemy can read: display_url still scrubs its text
            pass
    return found


@dataclass(frozen=True)
class ModelSettings:
    api_key: str = ""
    base_url: str | None = None
    model: str = DEFAULT_MODEL
    timeout_s: float = DEFAULT_TIMEOUT_S
    max_retries: int = DEFAULT_RETRIES
    max_concurrent: int = DEFAULT_CONCURRENCY
    max_tokens: tuple[tuple[str, int], ...] = DEFAULT_MAX_TOKENS  # per step; a hashable mapping
    temperature: float = DEFAULT_TEMPERATURE
    stream: bool = True

    def __post_init__(self) -> None:
        if isinstance(self.max_tokens, dict):  # ModelSettings(max_tokens={"interpret": 800}) in code and tests
            object.__setattr__(self, "max_tokens", tuple({**dict(DEFAULT_MAX_TOKENS), **self.max_tokens}.items()))

    def max_tokens_for(self, step: str) -> int:
        limits = dict(self.max_tokens)
        return limits.get(step) or limits.get("*") or max(limits.values(), default=1536)

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
                "timeout_s": self.timeout_s, "max_retries": self.max_retries, "enabled": self.enabled,
                "max_tokens": dict(self.max_tokens), "temperature": self.temperature, "stream": self.stream}

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
            max_tokens=_max_tokens(env.get("CHECKER_MODEL_MAX_TOKENS", "")),
            temperature=_temperature(env.get("CHECKER_MODEL_TEMPERATURE", "")),
            stream=_flag(env, "CHECKER_MODEL_STREAM", True),
        )


def _max_tokens(raw: str) -> tuple[tuple[str, int], ...]:
    """`N` (every step) or `clarify=N,interpret=M` (steps left out keep their default)."""
    raw = raw.strip()
    if not raw:
        return DEFAULT_MAX_TOKENS
    limits = dict(DEFAULT_MAX_TOKENS)
    for item in raw.split(","):
        step, _, value = item.strip().rpartition("=")
        if step and step.strip() not in limits:
            raise ConfigError(f"CHECKER_MODEL_MAX_TOKENS: unknown step {step.strip()!r} (steps: {', '.join(limits)})")
        if not value.strip().isdigit() or int(value) < 1:
            raise ConfigError(f"CHECKER_MODEL_MAX_TOKENS={raw!r}: {value.strip()!r} is not a positive whole number")
        for name in ([step.strip()] if step else list(limits)):
            limits[name] = int(value)
    return tuple(limits.items())


def _temperature(raw: str) -> float:
    if not raw.strip():
        return DEFAULT_TEMPERATURE
    try:
        value = float(raw)
    except ValueError:
        raise ConfigError(f"CHECKER_MODEL_TEMPERATURE={raw!r} is not a number") from None
    if not 0 <= value <= 2:
        raise ConfigError(f"CHECKER_MODEL_TEMPERATURE={raw!r} must be between 0 and 2")
    return value


def _flag(env: Mapping[str, str], name: str, default: bool) -> bool:
    raw = env.get(name, "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "true", "yes", "on"):
        return True
    if raw in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name}={raw!r}: use 1 or 0")


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
