"""One overall deadline per check: every statement and introspection under it gets at most what is left.

The deadline travels in a context variable, so a library caller sets it once (`within(seconds)`) and
the runner's worker threads inherit it (they run in a copy of the caller's context).
"""
from __future__ import annotations

import contextlib
import contextvars
import time
from collections.abc import Iterator

_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar("checker_deadline", default=None)


def check_budget_s(time_limit_s: float) -> float:
    """The bound on one whole check with a per-statement limit of `time_limit_s` (stated in the README)."""
    return max(30.0, 4 * time_limit_s)


@contextlib.contextmanager
def within(seconds: float) -> Iterator[None]:
    """Everything inside ends within `seconds` (an enclosing, earlier deadline still wins)."""
    end = time.monotonic() + seconds
    outer = _DEADLINE.get()
    token = _DEADLINE.set(end if outer is None else min(outer, end))
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining(default: float) -> float:
    """Seconds left before the deadline, at most `default` (which is all there is without a deadline)."""
    end = _DEADLINE.get()
    return default if end is None else min(default, end - time.monotonic())


def passed() -> bool:
    end = _DEADLINE.get()
    return end is not None and time.monotonic() >= end
