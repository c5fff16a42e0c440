"""Error kinds come from the typed errors (CheckerError.kind and its subclasses), never from message text.

On the three real engines: each refusal before the engine (syntax, read_only, other for bad input) and each
engine error (unknown_column, ambiguous_column, unknown_function, timeout, connection; permission is in
test_safety_bounds.py) comes out with its kind through
`Database.run`; `run` exits by class (2 for SQL that does not parse, 3 for a refused statement); model SQL
carries its kind from the lint to the reading's result, including refusals whose text names no kind.
"""
from __future__ import annotations

import pytest
import sqlalchemy as sa
from click.testing import CliRunner

from adapters import (
    CheckerError,
    Database,
    EngineErrorInfo,
    InputError,
    Limits,
    NotReadOnlyError,
    UnparseableStatementError,
    UnsafeStatementError,
    parse_db_option,
    parse_query,
)
from adapters.errors import ERROR_KINDS, EngineError
from checker_app.llm.hook import reading_results
from checker_app.llm.lint import lint_sql
from checker_app.llm.model_sql import model_sql
from checker_app.llm.part import ModelPart
from tests.support import BACKENDS, connect

# (SQL, the kind it is refused with before any engine sees it); none of these messages says "read-only"
# except the writes, so a text sniff could not tell the last three apart
REFUSED = [
    ("SELEC name FROM items", "syntax", UnparseableStatementError),
    ("SELECT name FROM (", "syntax", UnparseableStatementError),
    ("SELECT 'unterminated", "syntax", UnparseableStatementError),
    ("DELETE FROM items", "read_only", NotReadOnlyError),
    ("WITH d AS (DELETE FROM items RETURNING *) SELECT * FROM d", "read_only", NotReadOnlyError),
    ("SELECT 1; SELECT 2", "read_only", NotReadOnlyError),
    ("SELECT pg_sleep(1)", "read_only", NotReadOnlyError),
    ("SELECT * FROM pg_authid", "read_only", NotReadOnlyError),
    ("SELECT /*! 1 */ 2", "read_only", NotReadOnlyError),
]


@pytest.fixture(scope="module")
def item_dbs(session_servers) -> dict[str, Database]:
    """Two tables sharing a column name on each engine (an ambiguous reference has something to find)."""
    databases = {}
    for backend in BACKENDS:
        url = session_servers.create(backend, prefix="ac_kinds")
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE items (id INTEGER PRIMARY KEY, name VARCHAR(20))")
            conn.exec_driver_sql("CREATE TABLE tags (id INTEGER PRIMARY KEY, name VARCHAR(20))")
            conn.exec_driver_sql("INSERT INTO items VALUES (1, 'a'), (2, 'b')")
            conn.exec_driver_sql("INSERT INTO tags VALUES (1, 'x')")
        engine.dispose()
        databases[backend] = Database(parse_db_option(f"{backend}={url}"), Limits(time_limit_s=3.0, row_cap=100))
    yield databases
    for db in databases.values():
        db.dispose()


@pytest.mark.parametrize(("sql", "kind", "cls"), REFUSED, ids=[r[0][:30] for r in REFUSED])
def test_parse_query_raises_the_typed_variant(sql: str, kind: str, cls: type) -> None:
    with pytest.raises(UnsafeStatementError) as info:
        parse_query(sql, "postgres")
    assert type(info.value) is cls and info.value.kind == kind and kind in ERROR_KINDS
    assert isinstance(info.value, CheckerError) and "\n" not in str(info.value)


def test_a_parse_error_keeps_sqlglots_structured_errors() -> None:
    with pytest.raises(UnparseableStatementError) as info:
        parse_query("SELECT name FROM (", "sqlite")
    first = info.value.errors[0]
    assert (first["line"], first["col"], first["highlight"]) == (1, 18, "(")
    assert "Token token_type" in first["description"]      # sqlglot's own text is kept as it is ...
    assert "Token token_type" not in str(info.value)         # ... and the one line shown names the token
    assert str(info.value).endswith("Line 1, Col: 18.")
    with pytest.raises(UnparseableStatementError) as tokens:  # the tokenizer fails before the parser
        parse_query("SELECT 'unterminated", "sqlite")
    assert tokens.value.errors == []


def test_every_error_has_a_kind() -> None:
    assert CheckerError("x").kind == "other" and InputError("x").kind == "other"
    assert UnsafeStatementError("cannot render for tsql").kind == "other"  # a dialect that cannot write it
    assert EngineError("pg", EngineErrorInfo("timeout", "57014", "canceled")).kind == "timeout"


@pytest.mark.parametrize("backend", BACKENDS)
def test_refusals_reach_the_result_with_their_kind(item_dbs, backend) -> None:
    db = item_dbs[backend]
    for sql, kind, _ in REFUSED:
        result = db.run(sql)
        assert (result.status, result.error.kind if result.error else None) == ("rejected", kind), sql
    for bad in ("", "SELECT 1\x00"):  # input that is no statement at all
        result = db.run(bad)
        assert result.status == "rejected" and result.error is not None and result.error.kind == "other"


@pytest.mark.parametrize("backend", BACKENDS)
def test_engine_errors_come_out_with_their_kind(item_dbs, backend) -> None:
    db = item_dbs[backend]
    cases = {
        "SELECT nope FROM items": "unknown_column",
        "SELECT name FROM items JOIN tags ON items.id = tags.id": "ambiguous_column",
    }
    for sql, kind in cases.items():
        result = db.run(sql, Limits(time_limit_s=3.0, row_cap=100))
        assert result.status == "error" and result.error is not None, (sql, result)
        assert result.error.kind == kind, (sql, result.error)
    slow = ("SELECT COUNT(*) FROM items a, items b, items c, items d, items e, items f, items g, items h, "
            "items i, items j, items k, items l, items m, items n, items o, items p, items q, items r, items s, "
            "items t, items u, items v, items w, items x, items y, items z")  # 2**26 rows, cancelled
    lpad = db.run("SELECT LPAD(name, 3, 'x') AS padded FROM items ORDER BY id")  # SQLite has no LPAD
    if backend == "sqlite":
        assert lpad.status == "error" and lpad.error is not None and lpad.error.kind == "unknown_function", lpad
    else:
        assert lpad.ok and [list(r) for r in lpad.rows] == [["xxa"], ["xxb"]], lpad.error
    timed = db.run(slow, Limits(time_limit_s=0.3, row_cap=10))
    assert timed.status == "timeout" and timed.error is not None and timed.error.kind == "timeout"


@pytest.mark.parametrize("backend", ["postgresql", "mysql"])
def test_an_engine_that_cannot_be_reached_is_a_connection_error(backend) -> None:
    url = {"postgresql": "postgresql+psycopg://u@127.0.0.1:1/x", "mysql": "mysql+pymysql://u@127.0.0.1:1/x"}[backend]
    result = Database(parse_db_option(f"{backend}={url}"), Limits(time_limit_s=3.0, row_cap=10)).run("SELECT 1")
    assert result.error is not None and result.error.kind == "connection", result


@pytest.fixture(scope="module")
def sqlite_db(item_dbs) -> str:
    return item_dbs["sqlite"].config.url.render_as_string(hide_password=False)


def test_run_exits_by_class(sqlite_db) -> None:
    from checker_app.commands.run import run

    runner = CliRunner()
    unparseable = runner.invoke(run, ["SELEC name FROM items", "--db", sqlite_db])
    refused = runner.invoke(run, ["SELECT pg_sleep(1)", "--db", sqlite_db])  # its message says no "read-only"
    assert unparseable.exit_code == 2 and "cannot parse" in unparseable.output
    assert refused.exit_code == 3 and "rejected: function pg_sleep is not allowed" in refused.output


@pytest.mark.parametrize(("sql", "kind"), [
    ("SELECT name FROM (", "syntax"),
    ("DELETE FROM items", "read_only"),
    ("SELECT pg_sleep(1)", "read_only"),               # the hook's old text sniff called this "syntax"
    ("SELECT 1; SELECT 2", "read_only"),
    ("SELECT name FROM items WHERE name = $1", "syntax"),  # a placeholder with no value to put there
    ("SELECT name FROM items", None),
])
def test_lint_carries_the_kind(sql: str, kind: str | None) -> None:
    lint = lint_sql(sql, "postgres")
    assert lint.problem_kind() == kind and (lint.problem() is None) == (kind is None)


def test_a_placeholder_only_postgres_reads_still_parses_for_mysql() -> None:
    lint = lint_sql("SELECT name FROM items WHERE name = %s", "mysql", {"name": "a"})
    assert lint.read_as == "postgres" and lint.problem() is None and lint.problem_kind() is None


@pytest.mark.parametrize("backend", BACKENDS)
def test_model_sql_is_rejected_with_its_kind_on_every_engine(item_dbs, backend) -> None:
    db = item_dbs[backend]
    profile = connect(db.config.url.render_as_string(hide_password=False)).profile
    cases = {
        "refused": ("SELECT pg_sleep(1)", "read_only"),
        "write": ("DELETE FROM items", "read_only"),
        "broken": ("SELECT name FROM (", "syntax"),
        "missing": ("SELECT colour FROM items", "unknown_column"),
        "fine": ("SELECT name FROM items ORDER BY id", None),
    }
    part = ModelPart(readings=[r for key, (sql, _) in cases.items() for r in model_sql(key, key, sql, profile, {})])
    readings = {r.id: r for r in reading_results(part, [db])}
    for key, (_, kind) in cases.items():
        result = readings[key].results.get(db.name)
        if kind is None:
            assert result is None and db.name in readings[key].sql
            assert [list(r) for r in db.run(readings[key].sql[db.name]).rows] == [["a"], ["b"]]
        else:
            assert result is not None and result.status == "rejected", key
            assert result.error is not None and result.error.kind == kind, (key, result.error)


def test_every_error_class_of_the_lower_layers_is_a_checker_error() -> None:
    """One base: an error class defined in adapters, archetypes or seed_db that is not a CheckerError would
    escape every `except CheckerError` as a crash (TooManyConnections once did)."""
    import importlib
    import inspect
    import pkgutil

    from adapters.sessions import TooManyConnections

    assert issubclass(TooManyConnections, CheckerError) and TooManyConnections("busy").kind == "connection"
    outside = []
    for package in ("adapters", "archetypes", "seed_db"):
        root = importlib.import_module(package)
        for info in pkgutil.walk_packages(root.__path__, f"{package}."):
            module = importlib.import_module(info.name)
            for name, cls in inspect.getmembers(module, inspect.isclass):
                if (cls.__module__ == info.name and issubclass(cls, Exception) and not name.startswith("_")
                        and not issubclass(cls, CheckerError)):
                    outside.append(f"{info.name}.{name}")
    assert outside == []
