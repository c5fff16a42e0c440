"""`query.reading_key`: the analysis drops a reading whose statement is written like an earlier one's, keyed
cheaper than writing it whole (a series' calendar by its literals). Equal keys must be exactly equal texts.
"""
from __future__ import annotations

import sys

from sqlglot import exp

from archetypes import analyse
from archetypes.query import reading_key
from checker_app.profiles import load_profile, lookup_for
from tests.support import fixture_questions


def _built(monkeypatch, db, questions: list[str]) -> list[list[exp.Query]]:
    """Every statement each analysis keyed to drop duplicates, one list per question."""
    module = sys.modules["archetypes.analyse"]  # the package exports the function under the module's name
    keyed: list[list[exp.Query]] = []

    def recording(query: exp.Query):
        keyed[-1].append(query)
        return reading_key(query)

    monkeypatch.setattr(module, "reading_key", recording)
    profile, lookup = load_profile(db), lookup_for(db)
    for question in questions:
        keyed.append([])
        analyse(question, profile, lookup=lookup)
    return keyed


def test_equal_keys_are_equal_statements(monkeypatch, demo, history) -> None:
    series = 0
    for db, files in ((demo[0], ("labelled/demo.jsonl", "gold/demo.jsonl")), (history[0], ("gold/history/history.jsonl",))):
        for queries in _built(monkeypatch, db, fixture_questions(*files)):
            texts = [query.sql() for query in queries]
            keys = [reading_key(query) for query in queries]
            assert [query.sql() for query in queries] == texts  # the calendar put back where it was
            series += sum(1 for key in keys if key[1])
            for i in range(len(queries)):
                for j in range(i):
                    assert (keys[i] == keys[j]) == (texts[i] == texts[j]), texts[i]
    assert series > 20  # the calendar's own key was taken, not only whole texts


def test_a_stand_in_said_elsewhere_keys_the_whole_text(demo) -> None:
    profile, lookup = load_profile(demo[0]), lookup_for(demo[0])
    query = next(i.query for i in analyse("Revenue by month", profile, lookup=lookup).interpretations)
    assert reading_key(query)[1]
    query.where(exp.EQ(this=exp.Literal.string("checker_calendar_rows"), expression=exp.Literal.string("x")), copy=False)
    assert reading_key(query) == (query.sql(), ())
