"""What a check keeps for the next one, on the three real engines: the analysis of a question on a profile
(`checker_app.analysis_memo`), each reading's text per dialect (`Interpretation.sql`), and the checked text
of each statement sent (`Database.run`). A repeated check gives the same report; other options, another day
of the profile or a refreshed profile analyse again; a refused statement is checked again."""
from __future__ import annotations

import pytest

from adapters import Limits
from adapters.memo import BoundedMemo
from archetypes.query import render
from checker_app.analysis_memo import analysis_memo
from checker_app.pipeline import CheckOptions, analyse_on, check
from checker_app.profiles import load_profile, refresh_profiles
from tests.support import BACKENDS, untimed

QUESTION = "What is the top-selling product?"


def test_a_question_asked_again_is_not_analysed_again(demo_databases) -> None:
    first = check(QUESTION, demo_databases)
    memo = analysis_memo(load_profile(demo_databases[0]))
    kept = len(memo)
    second = check(QUESTION, demo_databases)
    assert len(memo) == kept
    assert untimed(second.to_dict()) == untimed(first.to_dict())
    options = CheckOptions()
    assert analyse_on(demo_databases[0], QUESTION, options, None) is analyse_on(demo_databases[0], QUESTION, options, None)


def test_other_options_are_analysed_apart(demo_databases) -> None:
    plain = analyse_on(demo_databases[0], QUESTION, CheckOptions(), None)
    answered = analyse_on(demo_databases[0], QUESTION, CheckOptions(answers={"ranking_metric": "units"}), None)
    capped = analyse_on(demo_databases[0], QUESTION, CheckOptions(cap=2), None)
    assert len({id(plain), id(answered), id(capped)}) == 3
    assert len(answered.interpretations) < len(plain.interpretations)
    assert len(capped.interpretations) == 2


def test_a_refreshed_profile_analyses_again(demo_databases) -> None:
    before = analyse_on(demo_databases[0], QUESTION, CheckOptions(), None)
    refresh_profiles([demo_databases[0]])
    after = analyse_on(demo_databases[0], QUESTION, CheckOptions(), None)
    assert after is not before
    assert [i.sql(demo_databases[0].dialect) for i in after.interpretations] == [i.sql(demo_databases[0].dialect) for i in before.interpretations]


def test_a_reading_is_written_once_per_dialect(demo_databases) -> None:
    analysis = analyse_on(demo_databases[0], QUESTION, CheckOptions(), None)
    for db in demo_databases:
        for interpretation in analysis.interpretations:
            text = interpretation.sql(db.dialect)
            assert interpretation.sql(db.dialect) is text
            assert text == render(interpretation.query, db.dialect)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_statement_sent_again_is_not_checked_again(demo_databases, backend) -> None:
    db = next(d for d in demo_databases if d.name == backend)
    db._sent = BoundedMemo(2)
    first = db.run("SELECT name FROM products ORDER BY id")
    again = db.run("SELECT name FROM products ORDER BY id")
    assert first.ok and again.ok and again.rows == first.rows and len(db._sent) == 1
    capped = db.run("SELECT name FROM products ORDER BY id", Limits(row_cap=3))  # another cap, another text
    assert capped.row_count == 3 and capped.truncated and len(db._sent) == 2
    for _ in range(2):
        refused = db.run("DELETE FROM products")
        assert refused.status == "rejected"
    assert len(db._sent) == 2
    db.run("SELECT COUNT(*) FROM products")
    assert len(db._sent) == 2  # the oldest dropped
