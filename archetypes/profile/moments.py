"""Values read back from an engine (datetimes, dates, ISO text from SQLite) as naive UTC datetimes and dates."""
from __future__ import annotations

import datetime as dt
from typing import Any


def as_datetime(value: Any) -> dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time())
    text = str(value).strip().replace("T", " ")
    for candidate in (text[:19], text[:16], text[:10]):
        try:
            return dt.datetime.fromisoformat(candidate)
        except ValueError:
            continue
    return None


def as_date(value: Any) -> dt.date | None:
    moment = as_datetime(value)
    return moment.date() if moment else None
