"""Which records count (issue 11): statuses, validity periods with a far-future sentinel, soft deletes, on
the generated subscription history schema on SQLite, PostgreSQL and MariaDB."""
from __future__ import annotations

import pytest

from adapters.results import comparable
from tests.support import BACKENDS, connect

# question | readings record_scope offers (empty: it must not fire) | a condition every reading's SQL holds
CASES = [
    ("What is the average plan price?", ["current", "all", "valid_at_2025-06-28"], ""),
    ("What is the current average plan price?", [], "valid_to"),
    # a status holding states that count besides the done one (switched, paused): the void one left out, or only
    # the done one
    ("How many subscriptions are there?", ["all", "not_cancelled", "only_active"], ""),
    ("How many customers do we have?", ["not_deleted", "all"], ""),
    ("total invoice amount in 2024", ["all", "only_paid"], "2024"),
]


def _same(value: object) -> object:  # SQLite sums floats, the servers exact decimals: to the cent
    value = comparable(value)
    return round(float(value), 2) if isinstance(value, (int, float)) and not isinstance(value, bool) else value


@pytest.fixture(scope="module")
def history(history_urls):
    connected = {backend: connect(history_urls[backend]) for backend in BACKENDS}
    yield connected
    for c in connected.values():
        c.db.dispose()


@pytest.mark.parametrize("question, readings, holds", CASES)
def test_which_records_count(history, question: str, readings: list[str], holds: str) -> None:
    answers = {}
    for backend, connected in history.items():
        analysis = connected.analyse(question)
        scope = next((d for d in analysis.detections if d.archetype == "record_scope"), None)
        if readings:
            assert scope is not None and [r.value for r in scope.readings] == readings, (backend, analysis.archetypes)
        else:
            assert scope is None, backend
        for interpretation in analysis.interpretations:
            assert holds.lower() in interpretation.sql(connected.dialect).lower().replace('"', "").replace("`", "")
        answers[backend] = {i.id: [tuple(_same(v) for v in row) for row in connected.run(i).rows]
                            for i in analysis.interpretations}
    assert answers["sqlite"] == answers["postgresql"] == answers["mysql"]
    if readings:
        assert len({tuple(v) for v in answers["sqlite"].values()}) > 1  # the scope changes the answer


def test_the_sentinel_is_never_the_latest_date(history) -> None:
    for connected in history.values():
        assert connected.profile.as_of is not None and connected.profile.as_of.year < 9000
