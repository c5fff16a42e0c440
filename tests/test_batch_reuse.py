"""`batch` sends a statement once: a later question with the same reading on the same engine reuses the
answer (`CheckOptions.answered`), and only answers are kept (an error or a timeout is sent again)."""
from __future__ import annotations

from adapters import Database, Job
from checker_app.pipeline import CheckOptions, check
from checker_app.statements import run_statements


def _sent(databases: list[Database], monkeypatch) -> list[tuple[str, str]]:
    """(engine, statement) of every statement the engines receive (the real run, recorded)."""
    sent: list[tuple[str, str]] = []
    for db in databases:
        original = db.run

        def run(sql, limits=None, _original=original, _name=db.name):
            sent.append((_name, sql))
            return _original(sql, limits)

        monkeypatch.setattr(db, "run", run)
    return sent


def _answers(report) -> list[dict[str, object]]:
    return [{name: (result.status, result.rows) for name, result in r.results.items()} for r in report.interpretations]


def test_a_reading_answered_earlier_in_the_batch_is_not_sent_again(demo_databases, monkeypatch) -> None:
    sent = _sent(demo_databases, monkeypatch)
    options = CheckOptions(answered={})
    first = check("What is the top-selling product?", demo_databases, options)
    statements = {(name, sql) for r in first.interpretations for name, sql in r.sql.items()}
    assert statements and statements <= set(sent)
    sent.clear()
    second = check("What is the top-selling product?", demo_databases, options)
    assert not statements & set(sent)
    assert _answers(second) == _answers(first)
    assert [r.sql for r in second.interpretations] == [r.sql for r in first.interpretations]
    again = check("What is the top-selling product?", demo_databases)  # no batch: every statement is sent
    assert statements <= set(sent)
    assert _answers(again) == _answers(first)


def test_an_error_is_sent_again(demo_databases) -> None:
    answered: dict = {}
    jobs = [Job("bad", {db.name: "SELECT no_such_column FROM products" for db in demo_databases}),
            Job("good", {db.name: "SELECT COUNT(*) FROM products" for db in demo_databases})]
    first = run_statements(jobs, demo_databases, answered=answered)
    assert all(r.status == "error" for r in first["bad"].values())
    assert all(r.ok for r in first["good"].values())
    assert {key[1] for key in answered} == {"SELECT COUNT(*) FROM products"}
    second = run_statements(jobs, demo_databases, answered=answered)
    assert all(r.status == "error" for r in second["bad"].values())
    assert [r.rows for r in second["good"].values()] == [r.rows for r in first["good"].values()]
