"""A weekday, an hour of the day or a month in a zone's local time, on every engine, against a count made by hand.

The readings of "Which day of the week gets the most orders?", "At what hour of the day do most orders come
in?" and "Which month had the fewest orders in 2024?" (its year in local days too) turn each UTC timestamp into
local time in the SQL (a small table of each zone's UTC offsets joined to the rows, ``archetypes.shapes``).
The truth is computed apart from the checker: the raw rows fetched by a plain statement, each timestamp converted
by zoneinfo (daylight saving included), counted per local weekday, hour or month. The demo's orders run from the
last day of 2023 to mid-2025, across two spring changes and one autumn change in the US and Europe; a count that
ignores daylight saving is checked to differ, so the case can tell them apart (a month, whose edges move by hours,
is checked to differ from its UTC count).
"""
from __future__ import annotations

import datetime as dt
from collections import Counter
from zoneinfo import ZoneInfo

import pytest

from adapters import Limits
from adapters.results import comparable, same_rows
from archetypes.shapes import MONTHS, WEEKDAYS
from tests.support import BACKENDS, Connected, connect

QUESTIONS = {"weekday": "Which day of the week gets the most orders?",
             "hour": "At what hour of the day do most orders come in?",
             "month": "Which month had the fewest orders in 2024?"}  # its local month was the UTC one


@pytest.fixture(scope="module")
def demo(demo_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in demo_urls.items()}


def _raw(connected: Connected) -> list[tuple[dt.datetime, str, str]]:
    result = connected.db.run("SELECT o.ordered_at, s.time_zone, o.status FROM orders o JOIN stores s ON s.id = o.store_id",
                              Limits(row_cap=100_000))
    assert result.ok and not result.truncated, result.error
    assert len(result.rows) > 1000
    return [(value if isinstance(value, dt.datetime) else dt.datetime.fromisoformat(str(value)), str(zone), str(status))
            for value, zone, status in result.rows]


def _part(which: str, moment: dt.datetime) -> int:
    if which == "month":
        return moment.month
    return (moment.isoweekday() % 7) if which == "weekday" else moment.hour  # 0 = Sunday, as the readings number


def _truth(which: str, rows: list[tuple[dt.datetime, str, str]], zone: str, scope: str,
           daylight_saving: bool = True) -> list[list]:
    """[label, orders] busiest first, ties by the part's number (the readings' order)."""
    counts: Counter[int] = Counter()
    for moment, own, status in rows:
        if scope == "only_completed" and status != "completed":
            continue
        name = own if zone == "local" else zone
        if name == "UTC":
            local = moment
        elif daylight_saving:
            local = moment.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(name)).replace(tzinfo=None)
        else:  # the zone's offset on the data's first day, all year round
            local = moment + (dt.datetime(2024, 1, 1, tzinfo=ZoneInfo(name)).utcoffset() or dt.timedelta())
        if which == "month" and local.year != 2024:
            continue  # 'in 2024': the year of the local day
        counts[_part(which, local)] += 1
    fewest = which == "month"
    ordered = sorted(counts.items(), key=lambda item: (item[1] if fewest else -item[1], item[0]))
    names = {"weekday": WEEKDAYS, "month": ("",) + tuple(MONTHS)}
    return [[names[which][key] if which in names else key, count] for key, count in ordered]


@pytest.mark.parametrize("which", sorted(QUESTIONS))
@pytest.mark.parametrize("backend", BACKENDS)
def test_local_parts_match_a_count_by_hand(demo, backend, which):
    connected = demo[backend]
    rows = _raw(connected)
    analysis = connected.analyse(QUESTIONS[which])
    zones = {i.choices.get("timezone") for i in analysis.interpretations}
    assert {"UTC", "local", "America/New_York", "Europe/Berlin"} <= zones, zones
    moved = 0
    for reading in analysis.interpretations:
        zone, scope = reading.choices["timezone"], reading.choices.get("record_scope", "all")
        got = [[comparable(v) for v in row] for row in connected.run(reading).rows]
        expected = _truth(which, rows, zone, scope)
        assert same_rows(got, expected, ordered=True), (backend, reading.id, got, expected)
        if zone not in ("UTC", "Asia/Tokyo", "America/Puerto_Rico"):  # the zones with daylight saving
            moved += _truth(which, rows, zone, scope, daylight_saving=False) != expected
    if which == "month":  # a month's edges move by hours, not the daylight-saving hour: local against UTC
        local = next(i for i in analysis.interpretations if i.choices["timezone"] == "local")
        assert _truth(which, rows, "UTC", "all") != _truth(which, rows, "local", "all"), local.id
        return
    assert moved, "no reading's answer depends on daylight saving: the case cannot tell a fixed offset apart"
