"""The one place that keeps credentials out of anything shown: URLs, driver messages, error lines.

SQLAlchemy's `render_as_string(hide_password=True)` hides `url.password` only: a `?password=` query
parameter is printed whole, and an unencoded `@` in a password moves its tail into the host. Every
output (engine descriptions, `seed`, error messages, the page) goes through `display_url` or `scrub`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote, quote_plus

from sqlalchemy.engine import URL, make_url

MASK = "***"
SECRET_PARAMETERS = frozenset(("password", "passwd", "pwd", "sslpassword", "sslkey", "ssl_key", "token",
                               "api_key", "apikey", "secret"))
_URL_TOKEN = re.compile(r"(?P<scheme>\b[A-Za-z][A-Za-z0-9+.\-]*://)(?P<rest>[^\s'\"<>]*)")
_SECRET_PARAMETER = re.compile(
    r"(?i)(?P<key>\b(?:" + "|".join(sorted(SECRET_PARAMETERS)) + r"))=(?P<value>[^&\s'\"]*)")


def repair_userinfo(text: str, url: URL) -> URL:
    """`url` re-read when an unencoded `@` in the password made SQLAlchemy put its tail in the host."""
    if not url.host or "@" not in url.host:
        return url
    scheme, _, rest = text.strip().partition("://")
    authority_end = len(rest)
    for stop in ("?",):
        if stop in rest:
            authority_end = min(authority_end, rest.index(stop))
    head = rest[:authority_end]
    at = head.rfind("@")
    userinfo, hostpart = head[:at], head[at + 1:]
    username, _, password = userinfo.partition(":")
    fixed = make_url(f"{scheme}://{hostpart}{rest[authority_end:]}")
    return fixed.set(username=username or None, password=password or None)


def secrets_of(url: URL) -> list[str]:
    """Every credential a URL carries: the password and secret query parameters."""
    found = [str(url.password)] if url.password else []
    for key, value in url.query.items():
        if key.lower() in SECRET_PARAMETERS:
            found.extend([value] if isinstance(value, str) else list(value))
    return [s for s in found if s]


def display_url(url: URL | str) -> str:
    """The URL as it may be shown: password and secret query parameters replaced by ***."""
    if isinstance(url, str):
        return scrub_url_text(url)
    query = {k: (MASK if k.lower() in SECRET_PARAMETERS else v) for k, v in url.query.items()}
    shown = url.set(query=query).render_as_string(hide_password=True)
    return shown.replace(quote_plus(MASK), MASK).replace(quote(MASK, safe=""), MASK)


def scrub_url_text(text: str) -> str:
    """Credentials removed from text that may be or contain a URL that cannot even be parsed."""
    text = _URL_TOKEN.sub(lambda m: m["scheme"] + _without_password(m["rest"]), text)
    return _SECRET_PARAMETER.sub(lambda m: f"{m['key']}={MASK}", text)


def _without_password(rest: str) -> str:
    """`user:password@host/...` -> `user:***@host/...`; the userinfo ends at the last `@` before any `?`."""
    at = rest.split("?", 1)[0].rfind("@")
    if at < 0 or ":" not in rest[:at]:
        return rest
    return rest[:at].split(":", 1)[0] + ":" + MASK + rest[at:]


def scrub(text: str, secrets: Iterable[str | None] = ()) -> str:
    """`text` with every secret (raw or URL-encoded) replaced by ***, and any URL's credentials hidden."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        for form in {secret, quote(secret, safe=""), quote_plus(secret)}:
            text = text.replace(form, MASK)
    return scrub_url_text(text)


def secrets_in_texts(values: Iterable[str]) -> list[str]:
    """The credentials in `[NAME=]URL` strings (for scrubbing text shown next to them)."""
    found: list[str] = []
    for value in values:
        name, sep, rest = value.partition("=")
        for text in ((rest, value) if sep and "://" in rest else (value,)):
            try:
                found.extend(secrets_of(repair_userinfo(text, make_url(text.strip()))))
                break
            except Exception:  # noqa: BLE001 - not a URL in this split
                continue
    return found
