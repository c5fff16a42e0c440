"""The package's one error type, and the edge where driver errors become it.

Seeding talks to servers through several drivers whose messages can be multi-line, can echo the
URL, and (for a malformed URL) can contain the password. Callers get a ``SeedError`` with one line
of text that never contains the password; the original exception is not chained (``from None``) so
a printed traceback cannot leak it either.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from adapters.errors import CheckerError  # seed_db builds on adapters (the layering in DESIGN.md)
from adapters.urls import scrub

_MAX_DETAIL = 300


class SeedError(CheckerError):
    """Seeding or checksumming failed; ``str(err)`` is one line without secrets."""

    def __init__(self, message: str, *, url_display: str | None = None) -> None:
        super().__init__(one_line(message))
        self.url_display = url_display


def one_line(text: str, limit: int = _MAX_DETAIL) -> str:
    """Collapse whitespace (newlines, tabs) into single spaces and cap the length."""
    flat = re.sub(r"\s+", " ", text).strip()
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def describe(exc: BaseException) -> str:
    """A short human description of a driver or SQLAlchemy exception (the DBAPI error if wrapped)."""
    inner = getattr(exc, "orig", None) or exc
    message = str(inner).strip() or type(inner).__name__
    return f"{type(inner).__name__}: {message}"


@contextmanager
def translate_errors(context: str, secrets: Iterable[str | None] = (), url_display: str | None = None) -> Iterator[None]:
    """Turn any exception inside the block into ``SeedError("<context>: <detail>")``, scrubbed."""
    secrets = tuple(secrets)
    try:
        yield
    except SeedError as err:
        raise SeedError(scrub(str(err), secrets), url_display=url_display or err.url_display) from None
    except Exception as exc:  # noqa: BLE001 - this is the error edge of the package
        raise SeedError(scrub(f"{context}: {describe(exc)}", secrets), url_display=url_display) from None
