"""The checker's own statements are sent from the tree it built (`adapters.built`), not parsed again from
their text; the safety check still walks every tree it sends, and text from anyone else is parsed.

On the three real engines: every reading of the demo's and the history schema's labelled and gold
questions sends what the text path sends (the same text, or one the engine's dialect parses into the same
statement), the example questions give the same answers both ways, and a built statement whose tree
writes, locks, calls a refused function or reads a secret catalog is refused whatever its text says.
"""
from __future__ import annotations

import copy
import pickle
from functools import partial

import pytest
import sqlglot
from sqlglot import exp

from adapters import Database, Limits, parse_query
from adapters.built import BuiltStatement
from adapters.database import capped_as_written, checked_text, sent_text
from adapters.dialects import sqlglot_dialect
from archetypes.query import written_statement
from checker_app.pipeline import CheckOptions, analyse_on, check
from tests.support import BACKENDS, each_engine, fixture_questions

EXAMPLES = ("What is the top-selling product?", "How are sales trending?", "Revenue by month",
            "Show daily order counts for June 2025", "Total revenue in dollars", "How many products are there?")



def _same_as_the_text_path(question: str, databases: list[Database]) -> int:
    """Each reading, on each engine's own analysis: the text sent from its tree is the text the parse of
    its statement sends, or parses (in the engine's dialect) into the very same statement. Returns how
    many statements were compared."""
    compared = 0
    limits = Limits()
    for db in databases:
        dialect = sqlglot_dialect(db.dialect)
        for reading in analyse_on(db, question, CheckOptions(), None).interpretations:
            built = reading.statement(db.dialect)
            assert isinstance(built, BuiltStatement) and built == reading.sql(db.dialect)
            from_tree = checked_text(built, db.dialect, limits, frozenset())
            from_text = sent_text(parse_query(reading.sql(db.dialect), db.dialect), db.dialect, limits)
            if from_tree != from_text:
                assert sqlglot.parse_one(from_tree, read=dialect) == sqlglot.parse_one(from_text, read=dialect), (
                    f"{db.name}: {reading.label!r} of {question!r}")
            parse_query(from_tree, db.dialect)  # what is sent passes the text path's own check too
            compared += 1
    return compared


def test_demo_readings_send_what_the_text_path_sends(demo) -> None:
    assert sum(_same_as_the_text_path(q, demo) for q in fixture_questions("labelled/demo.jsonl", "gold/demo.jsonl")) > 1000


def test_history_readings_send_what_the_text_path_sends(history) -> None:
    assert sum(_same_as_the_text_path(q, history) for q in fixture_questions("gold/history/history.jsonl")) > 100


def _written_once(question: str, databases: list[Database]) -> int:
    """Each reading's statement, sent as written for the report (capped by appending its LIMIT, or as it is),
    is exactly what writing its tree again sends. Returns how many were sent as written."""
    compared = 0
    for db in databases:
        for reading in analyse_on(db, question, CheckOptions(), None).interpretations:
            for limits in (Limits(), Limits(row_cap=5)):  # a ranking's LIMIT 10 kept, then capped below it
                text, first = written_statement(reading.query, db.dialect)
                again = sent_text(written_statement(reading.query, db.dialect)[1], db.dialect, limits, owned=True)
                built = BuiltStatement(text, db.dialect, lambda q=reading.query, d=db.dialect: written_statement(q, d)[1], first)
                sent = checked_text(built, db.dialect, limits, frozenset())
                assert sent == again, (db.name, reading.label, limits, sent, again)
                compared += capped_as_written(written_statement(reading.query, db.dialect)[1], text,
                                              limits.row_cap) is not None
    return compared


def test_a_statement_is_sent_as_written_for_the_report(demo) -> None:
    questions = fixture_questions("labelled/demo.jsonl", "gold/demo.jsonl")
    assert sum(_written_once(q, demo) for q in questions) > 1000


@pytest.mark.parametrize("question", EXAMPLES)
def test_built_and_text_statements_give_the_same_answers(demo, question) -> None:
    for db in demo:
        for reading in analyse_on(db, question, CheckOptions(), None).interpretations:
            built, text = db.run(reading.statement(db.dialect)), db.run(reading.sql(db.dialect))
            assert built.ok and text.ok, (db.name, reading.label, built.error, text.error)
            assert (built.columns, built.rows, built.truncated) == (text.columns, text.rows, text.truncated)
            assert type(built.sql) is str and built.sql == text.sql


def _built(text: str, tree_sql: str, dialect: str) -> BuiltStatement:
    """A statement whose text says one thing and whose tree another: what is checked and sent is the tree."""
    return BuiltStatement(text, dialect, lambda: sqlglot.parse_one(tree_sql, read=sqlglot_dialect(dialect)))  # type: ignore[return-value]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_tree_is_what_is_checked_and_sent(demo, backend) -> None:
    db = next(d for d in demo if d.name == backend)
    sent = db.run(_built("SELECT 1 AS n", "SELECT 2 AS n", db.dialect))
    assert sent.ok and [list(r) for r in sent.rows] == [[2]]
    # the same text from anyone else is a text: parsed, and checked apart from the built statement
    assert [list(r) for r in db.run("SELECT 1 AS n").rows] == [[1]]
    # a built statement of another dialect is not this engine's tree: its text is parsed
    other = "mysql" if sqlglot_dialect(db.dialect) != "mysql" else "postgres"
    assert [list(r) for r in db.run(_built("SELECT 3 AS n", "SELECT 4 AS n", other)).rows] == [[3]]


HOSTILE = (
    "DELETE FROM products",
    "WITH d AS (DELETE FROM products RETURNING *) SELECT * FROM d",
    "SELECT * FROM products FOR UPDATE",
    "SELECT pg_sleep(1)",
    "SELECT pg_read_file('/etc/passwd')",
    "SELECT load_file('/etc/passwd')",
    "SELECT get_lock('x', 1)",
    "SELECT * FROM pg_authid",
    "SELECT * FROM mysql.user",
    "SELECT not_a_known_function(1)",
)


def _own(tree_sql: str, dialect: str) -> BuiltStatement:
    """A built statement whose text is its tree's own text, as the checker writes them."""
    read = sqlglot_dialect(dialect)
    tree = sqlglot.parse_one(tree_sql, read=read)
    return BuiltStatement(tree.sql(dialect=read), dialect, lambda: sqlglot.parse_one(tree_sql, read=read))  # type: ignore[return-value]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("tree_sql", HOSTILE)
def test_a_hostile_tree_is_refused(demo, backend, tree_sql) -> None:
    db = next(d for d in demo if d.name == backend)
    try:
        statement = _own(tree_sql, db.dialect)
    except sqlglot.errors.SqlglotError:
        pytest.skip(f"{db.dialect} does not parse {tree_sql!r}")
    for _ in range(2):  # a refused statement is checked again, never kept
        refused = db.run(statement)
        assert refused.status == "rejected", (tree_sql, refused.rows)
        assert refused.error is not None and refused.error.kind == "read_only"
    # behind an innocent text too: the tree is what is checked
    disguised = _built(f"SELECT 1 AS disguised_{abs(hash(tree_sql))}", tree_sql, db.dialect)
    assert db.run(disguised).status == "rejected"


def test_a_tree_that_is_not_one_query_is_refused(demo) -> None:
    db = demo[0]
    for tree in (exp.Drop(this=exp.to_table("products"), kind="TABLE"), sqlglot.parse_one("SELECT 1; DROP TABLE products")):
        statement = BuiltStatement(tree.sql(), db.dialect, lambda tree=tree: tree)  # type: ignore[misc]
        assert db.run(statement).status == "rejected"


def test_a_built_text_sent_again_is_sent_as_checked(demo) -> None:
    """The memo keeps a built statement's checked text by its text (the checker writes the text from the tree):
    a statement with the same text is sent as the first was, and only a checked tree is ever sent."""
    db = demo[0]
    assert [list(r) for r in db.run(_built("SELECT 5 AS kept", "SELECT 5 AS kept", db.dialect)).rows] == [[5]]
    again = db.run(_built("SELECT 5 AS kept", "SELECT pg_read_file('/etc/passwd') AS kept", db.dialect))
    assert [list(r) for r in again.rows] == [[5]]


def test_an_oversized_built_statement_is_refused_like_a_text(demo) -> None:
    db = demo[0]
    text = "SELECT 1 AS n -- " + "x" * 100_001
    assert db.run(BuiltStatement(text, db.dialect, lambda: sqlglot.parse_one("SELECT 1 AS n"))).status == "rejected"  # type: ignore[return-value]
    assert db.run(text).status == "rejected"


def test_a_tree_is_handed_over_once_and_copies_are_text() -> None:
    first = sqlglot.parse_one("SELECT 1")
    statement = BuiltStatement("SELECT 1", "sqlite", lambda: sqlglot.parse_one("SELECT 1"), first)  # type: ignore[return-value]
    assert statement.tree() is first
    assert statement.tree() is not first and statement.tree() == first
    for kept in (copy.copy(statement), copy.deepcopy(statement), pickle.loads(pickle.dumps(statement)), str(statement)):
        assert type(kept) is str and kept == "SELECT 1"


def test_a_report_keeps_texts_only(demo) -> None:
    report = check("What is the top-selling product?", demo)
    for reading in report.interpretations:
        assert reading.sql and all(type(text) is str for text in reading.sql.values())
        assert all(type(result.sql) is str and result.ok for result in reading.results.values())


def test_lookups_send_what_the_text_path_sends(demo_urls, monkeypatch) -> None:
    """The lookups the rules run while reading a question (entity names, latest timestamps, currencies) are
    sent from their trees too: recorded on fresh connections (nothing analysed yet), each sends what its
    parsed text sends, on the three engines."""
    import archetypes.query

    recorded: list[tuple[exp.Query, str]] = []
    original = archetypes.query.lookup_statement

    def recording(query: exp.Query, dialect: str) -> tuple[str, exp.Query]:
        recorded.append((query.copy(), dialect))
        return original(query, dialect)

    monkeypatch.setattr(archetypes.query, "lookup_statement", recording)
    for databases in each_engine(demo_urls):
        for question in EXAMPLES + ("What are the leading products in Germany?", "tokyo orders by hour of day"):
            for db in databases:
                analyse_on(db, question, CheckOptions(), None)
    monkeypatch.undo()
    assert len(recorded) > 20
    limits = Limits()
    for query, dialect in recorded:
        text, tree = original(query, dialect)
        assert text == archetypes.query.lookup_sql(query, dialect)
        built = BuiltStatement(text, dialect, partial(_second_tree, query, dialect), tree)
        from_tree = checked_text(built, dialect, limits, frozenset())
        from_text = sent_text(parse_query(text, dialect), dialect, limits)
        read = sqlglot_dialect(dialect)
        assert from_tree == from_text or sqlglot.parse_one(from_tree, read=read) == sqlglot.parse_one(from_text, read=read)


def _second_tree(query: exp.Query, dialect: str) -> exp.Query:
    from archetypes.query import lookup_statement

    return lookup_statement(query, dialect)[1]
