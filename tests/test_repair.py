"""The repair pass for "ambiguous column" errors, on live SQLite, PostgreSQL and MariaDB.

Data-driven: tests/fixtures/repair/cases.yaml (broken SQL, expected rule, repaired SQL or candidates)
runs on every engine its syntax allows, against the small schema in tests/fixtures/repair/abc.sql and
against Chinook. No database is mocked.
"""
from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import yaml
from click.testing import CliRunner

from adapters import Database, DatabaseConfig, EngineErrorInfo, Job, Limits, parse_url, run_side_by_side
from adapters.classify import classify_mssql_message
from adapters.dialects import sqlglot_dialect
from adapters.repair import (
    PASSES,
    AmbiguousReference,
    UnparseableSQL,
    find_ambiguous_columns,
    recognise,
    recognise_mssql,
    repair_statement,
    run_with_repair,
)
from adapters.repair.names import key
from adapters.repair.rewrite import same_apart_from_qualifiers
from adapters.repair.run import schema_of
from adapters.schema import ColumnInfo, SchemaInfo, TableInfo
from checker_app.commands.repair import repair as repair_command
from tests.support import BACKENDS, PG_ADMIN_URL

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "repair"
CASES: list[dict[str, Any]] = yaml.safe_load((FIXTURES / "cases.yaml").read_text(encoding="utf-8"))
LIMITS = Limits(time_limit_s=10.0, row_cap=500)
SAFE = ("equi_join_key", "using_column")
LOG_KEYS = {"original_sql", "dialect", "error", "error_offset", "column", "rule", "sql", "candidates", "agree",
            "clarification", "problem", "references", "note"}


def for_engine(case: dict[str, Any], backend: str) -> dict[str, Any]:
    merged = {k: v for k, v in case.items() if k not in BACKENDS}
    merged.update(case.get(backend) or {})
    return merged


def _load_script(url: str, script: str) -> None:
    engine = sa.create_engine(url)
    try:
        with engine.begin() as conn:
            for statement in script.split(";"):
                lines = [ln for ln in statement.splitlines() if ln.strip() and not ln.strip().startswith("--")]
                if lines:
                    conn.exec_driver_sql("\n".join(lines))
    finally:
        engine.dispose()


def _database(name: str, url: str) -> Database:
    return Database(DatabaseConfig(name, parse_url(url)), LIMITS)


@pytest.fixture(scope="module")
def abc_urls(session_servers) -> dict[str, str]:
    script = (FIXTURES / "abc.sql").read_text(encoding="utf-8")
    urls: dict[str, str] = {}
    for backend in BACKENDS:
        urls[backend] = session_servers.create(backend, prefix="ac_repair")
        _load_script(urls[backend], script)
    return urls


@pytest.fixture(scope="module")
def abc_dbs(abc_urls) -> Any:
    dbs = {backend: _database(backend, url) for backend, url in abc_urls.items()}
    yield dbs
    for db in dbs.values():
        db.dispose()


@pytest.fixture(scope="module")
def chinook_dbs(chinook_urls) -> Any:
    dbs = {backend: _database(backend, url) for backend, url in chinook_urls.items()}
    yield dbs
    for db in dbs.values():
        db.dispose()


PARAMS = [pytest.param(case, backend, id=f"{case['id']}-{backend}")
          for case in CASES for backend in case.get("engines", BACKENDS)]


def test_fixture_file_is_big_enough_and_unique():
    ids = [case["id"] for case in CASES]
    assert len(ids) == len(set(ids))
    assert len(CASES) >= 40
    assert any(case["schema"] == "chinook" for case in CASES)
    assert {for_engine(c, "sqlite")["rule"] for c in CASES} >= {"equi_join_key", "using_column", "candidates", "none"}


@pytest.mark.parametrize("case,backend", PARAMS)
def test_case(case: dict[str, Any], backend: str, request: pytest.FixtureRequest) -> None:
    c = for_engine(case, backend)
    db: Database = request.getfixturevalue("abc_dbs" if c["schema"] == "abc" else "chinook_dbs")[backend]
    dialect = sqlglot_dialect(backend)
    schema = schema_of(db)
    sql = c["sql"]
    expect_error = not c.get("runs") and not c.get("error_kind")

    # 1. run with repair on the live engine; the engine's own error is kept in the log
    result = run_with_repair(db, sql, LIMITS)
    if c.get("runs"):
        assert result.ok and result.repairs == [], result.error
    elif c.get("error_kind"):
        assert result.error is not None and result.error.kind == c["error_kind"]
        assert recognise(result.error) is None and result.repairs == []
    else:
        assert len(result.repairs) == 1, (result.status, result.error)
        engine_error = EngineErrorInfo(**result.repairs[0]["error"])
        assert engine_error.kind == "ambiguous_column", engine_error
        detail = recognise(engine_error)
        assert detail is not None and key(detail.column) == key(c["column"])

    # 2. static detection agrees with the engine: fixable before it ever fails
    references = find_ambiguous_columns(sql, schema, dialect)
    assert bool(references) == expect_error, [r.to_dict() for r in references]

    # 3. the static repair, and the same repair driven by the engine's error
    outcome = repair_statement(sql, schema, dialect)
    _check_outcome(outcome, c, sql, dialect)
    if not expect_error:
        return
    driven = repair_statement(sql, schema, dialect, error=engine_error)
    _check_outcome(driven, c, sql, dialect)

    # 4. what run_with_repair did with it: the rerun, or every candidate run side by side
    log = result.repairs[0]
    assert set(log) == LOG_KEYS
    assert log["original_sql"] == sql and log["error"]["kind"] == "ambiguous_column"
    assert log["rule"] == c["rule"]
    json.dumps(log)  # the log is plain JSON
    if c["rule"] in SAFE:
        assert result.ok, result.error
        assert result.sql == c["repaired"] == log["sql"]
        assert log["candidates"] == [] and log["clarification"] is None
    elif c["rule"] == "candidates":
        assert [a["label"] for a in log["candidates"]] == c["candidates"]
        assert all(a["status"] == "ok" for a in log["candidates"]), log["candidates"]
        assert log["agree"] is c["agree"]
        if c["agree"]:
            assert result.ok and log["sql"] == log["candidates"][0]["sql"] and log["clarification"] is None
        else:  # never one silent fix: the original error stays, with a question
            assert result.status == "error" and result.error == engine_error
            assert log["sql"] is None
            question = log["clarification"]
            assert question["type"] == "choice" and question["multiSelect"] is False
            assert [o["label"] for o in question["options"]] == c["candidates"]
            answers = {json.dumps(a["rows"]) for a in log["candidates"]}
            assert len(answers) > 1
    else:
        assert result.status == "error" and result.error == engine_error
        assert log["sql"] is None and log["candidates"] == [] and c["problem"] in log["problem"]


def _check_outcome(outcome, c: dict[str, Any], sql: str, dialect: str) -> None:
    assert outcome.rule == c["rule"], (outcome.problem, outcome.log.get("note"))
    if c["rule"] in SAFE:
        assert outcome.sql == c["repaired"]
        assert outcome.candidates == [] and outcome.problem is None
        if not c.get("expands_star"):  # only qualifiers change (a star is expanded only when needed)
            assert same_apart_from_qualifiers(sql, outcome.sql, dialect)
    elif c["rule"] == "candidates":
        assert outcome.sql is None and outcome.problem is None
        assert [x.label for x in outcome.candidates] == c["candidates"]
        if "candidate_sql" in c:
            assert [x.sql for x in outcome.candidates] == c["candidate_sql"]
        for candidate in outcome.candidates:
            assert c.get("expands_star") or same_apart_from_qualifiers(sql, candidate.sql, dialect)
        assert outcome.log["clarification"]["options"][0]["label"] == c["candidates"][0]
    else:
        assert outcome.sql is None and outcome.candidates == []
        if c.get("problem"):
            assert c["problem"] in outcome.problem


# -- recognising engine errors ----------------------------------------------------------------------

def test_recognise_live_errors_with_codes_and_positions(abc_dbs):
    sql = "SELECT a.name FROM a JOIN b ON a.id = b.id WHERE id > 1 LIMIT 5"
    offset = sql.index("id > 1")
    seen = {}
    for backend, db in abc_dbs.items():
        result = db.run(sql, LIMITS)
        detail = recognise(result.error)
        assert detail is not None and detail.column == "id", result.error
        seen[backend] = detail
    assert seen["postgresql"].error.code == "42702" and seen["postgresql"].position == offset + 1
    assert seen["mysql"].error.code == "1052" and seen["mysql"].clause == "where"
    assert seen["sqlite"].error.message == "ambiguous column name: id"
    static = find_ambiguous_columns(sql, schema_of(abc_dbs["postgresql"]), "postgres")
    assert [r.position for r in static] == [offset]


def test_engine_position_is_mapped_back_to_the_statement(abc_dbs):
    # no LIMIT: the row cap makes Database.run regenerate the text PostgreSQL reports positions in
    sql = "SELECT   a.name\nFROM a JOIN b ON a.id = b.id\nWHERE   id > 1"
    result = run_with_repair(abc_dbs["postgresql"], sql, LIMITS)
    log = result.repairs[0]
    assert log["error"]["position"] is not None
    assert log["error_offset"] == sql.index("id > 1")


def test_ambiguous_output_column_error_in_order_by(abc_dbs):
    result = abc_dbs["postgresql"].run("SELECT a.name, b.name FROM a JOIN b ON a.id = b.id ORDER BY name", LIMITS)
    detail = recognise(result.error)
    assert detail is not None and detail.kind == "output" and detail.column == "name"


def test_using_column_error_is_recognised_and_left_alone(abc_dbs):
    sql = "SELECT a.name FROM a JOIN b ON a.id = b.id JOIN c USING (id)"
    result = run_with_repair(abc_dbs["postgresql"], sql, LIMITS)
    assert recognise(result.error).kind == "using"
    assert "matches a.id, b.id on the left" in result.repairs[0]["problem"] and result.repairs[0]["sql"] is None


def test_sql_server_error_209_by_number_and_message():
    message = "Msg 209, Level 16, State 1, Line 1\nAmbiguous column name 'CustomerID'."
    by_number = recognise_mssql(message, 209)
    assert by_number is not None and by_number.column == "CustomerID" and by_number.error.code == "209"
    assert recognise_mssql("Ambiguous column name 'id'.").column == "id"
    assert recognise_mssql("Invalid column name 'x'.", 207) is None
    assert recognise(classify_mssql_message("Ambiguous column name 'id'.", 209)).column == "id"


def test_other_errors_are_not_recognised():
    assert recognise(None) is None
    assert recognise(EngineErrorInfo("unknown_column", "42703", 'column "x" does not exist')) is None
    assert recognise(EngineErrorInfo("syntax", "1064", "You have an error in your SQL syntax")) is None
    pg = recognise(EngineErrorInfo("ambiguous_column", "42702", 'column reference "Track""Id" is ambiguous', 8))
    assert pg.column == 'Track"Id' and pg.position == 8


def _sales_schema() -> SchemaInfo:
    def table(name: str, *columns: tuple[str, str]) -> TableInfo:
        return TableInfo(name, [ColumnInfo(c, t, "numeric" if t == "INT" else "text") for c, t in columns])

    return SchemaInfo([
        table("Customers", ("CustomerID", "INT"), ("Name", "NVARCHAR(50)")),
        table("Orders", ("OrderID", "INT"), ("CustomerID", "INT"), ("Name", "NVARCHAR(50)")),
    ], dialect="tsql")


def test_sql_server_statement_repaired_offline():
    """No SQL Server here: recognise its error and repair T-SQL against a hand-written schema."""
    schema = _sales_schema()
    error = classify_mssql_message("Ambiguous column name 'CustomerID'.", 209)
    sql = "SELECT TOP 5 CustomerID, [Name] FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID"
    outcome = repair_statement(sql, schema, "tsql", error=error)
    assert outcome.rule == "candidates"  # Name is open; CustomerID is the join key
    assert [c.label for c in outcome.candidates] == ["c.Name (Customers)", "o.Name (Orders)"]
    assert outcome.candidates[0].sql == (
        "SELECT TOP 5 c.CustomerID, c.[Name] FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID")
    fix = repair_statement("SELECT TOP 5 CustomerID FROM Customers c JOIN Orders o ON o.CustomerID = c.CustomerID",
                           schema, "tsql", error=error)
    assert fix.rule == "equi_join_key" and fix.sql.startswith("SELECT TOP 5 c.CustomerID FROM")


# -- static detection -----------------------------------------------------------------------------

def test_static_detection_scopes_clauses_and_candidates(abc_dbs):
    schema = schema_of(abc_dbs["sqlite"])
    sql = ("WITH w AS (SELECT id FROM a JOIN b ON b.a_id = a.id) "
           "SELECT name FROM a JOIN b ON a.id = b.id "
           "WHERE EXISTS (SELECT 1 FROM c WHERE c.qty = lvl) AND a.id IN (SELECT id FROM w) ORDER BY code")
    refs = find_ambiguous_columns(sql, schema, "sqlite")
    assert all(isinstance(r, AmbiguousReference) for r in refs)
    found = [(r.column, r.scope, r.clause, r.candidates) for r in refs]
    assert found == [
        ("id", "CTE w", "select", ("a.id", "b.id")),
        ("name", "main query", "select", ("a.name", "b.name")),
        ("lvl", "subquery in WHERE", "where", ("a.lvl", "b.lvl")),  # correlated: the outer tables
        ("code", "main query", "order", ("a.code", "b.code")),
    ]
    assert all(sql[r.position:r.position + len(r.column)] == r.column for r in refs)
    json.dumps([r.to_dict() for r in refs])


def test_static_detection_is_not_fooled_by_sqlglot_traps(abc_dbs):
    schema = schema_of(abc_dbs["postgresql"])
    # an unknown column is not an ambiguous one
    assert find_ambiguous_columns("SELECT nope FROM a JOIN b ON a.id = b.id", schema, "postgres") == []
    # a correlated subquery binds to its own table first, not to the outer ones
    inner = "SELECT a.id FROM a JOIN b ON b.id = a.id WHERE EXISTS (SELECT 1 FROM c WHERE c.b_id = id)"
    assert find_ambiguous_columns(inner, schema, "postgres") == []
    # ...and an outer column is ambiguous among the outer tables only
    outer = "SELECT a.id FROM a JOIN b ON b.a_id = a.id WHERE EXISTS (SELECT 1 FROM c WHERE c.qty = lvl)"
    (ref,) = find_ambiguous_columns(outer, schema, "postgres")
    assert ref.tables == ("a", "b")
    # identifiers compare case-insensitively; the qualifier is written as the statement spells it
    outcome = repair_statement("SELECT ID FROM A JOIN B ON A.ID = B.ID", schema, "postgres")
    assert outcome.sql == "SELECT A.ID FROM A JOIN B ON A.ID = B.ID"


def test_registry_is_an_ordered_tuple():
    assert [p.__name__ for p in PASSES] == ["unqualifiable", "equi_join_key", "using_column", "candidates"]


# -- bad input --------------------------------------------------------------------------------------

def test_unparseable_sql_rewrites_nothing(abc_dbs):
    schema = schema_of(abc_dbs["sqlite"])
    with pytest.raises(UnparseableSQL):
        find_ambiguous_columns("SELECT FROM WHERE", schema, "sqlite")
    error = EngineErrorInfo("ambiguous_column", "42702", 'column reference "id" is ambiguous', 8)
    outcome = repair_statement("SELECT id FROM a JOIN b ON (", schema, "postgres", error=error)
    assert outcome.rule == "none" and outcome.sql is None and outcome.candidates == []
    assert outcome.problem.startswith("cannot parse the SQL")
    assert outcome.log["error"] == error.to_dict() and outcome.log["column"] == "id"
    assert "\n" not in outcome.problem


def test_column_in_no_table_is_a_clear_error(abc_dbs):
    schema = schema_of(abc_dbs["sqlite"])
    error = EngineErrorInfo("ambiguous_column", None, "ambiguous column name: colour")
    outcome = repair_statement("SELECT colour FROM a JOIN b ON a.id = b.id", schema, "sqlite", error=error)
    assert outcome.rule == "none" and outcome.sql is None
    assert "`colour` is in no table" in outcome.problem
    assert outcome.log["error"]["message"] == "ambiguous column name: colour"
    # a non-ambiguity error is not repaired either
    other = EngineErrorInfo("unknown_column", None, "no such column: colour")
    assert "not an ambiguous-column error" in repair_statement("SELECT colour FROM a", schema, "sqlite", other).problem


def test_engine_and_schema_disagree_rewrites_nothing(abc_dbs):
    schema = schema_of(abc_dbs["sqlite"])
    error = EngineErrorInfo("ambiguous_column", None, "ambiguous column name: lvl")
    outcome = repair_statement("SELECT lvl FROM a", schema, "sqlite", error=error)
    assert outcome.rule == "none" and "resolves to one table" in outcome.problem


def test_unreadable_schema_keeps_the_engine_error(servers):
    """A PostgreSQL role that may read a and b but not a third table cannot introspect the schema."""
    url = servers.create("postgresql", prefix="ac_repair_noschema")
    _load_script(url, (FIXTURES / "abc.sql").read_text(encoding="utf-8") + ";CREATE TABLE secret (id INT)")
    role = f"ac_repair_{uuid.uuid4().hex[:8]}"
    admin = sa.create_engine(PG_ADMIN_URL, isolation_level="AUTOCOMMIT")
    owner = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    db = None
    try:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"CREATE ROLE {role} LOGIN")
        with owner.connect() as conn:
            conn.exec_driver_sql(f"GRANT SELECT ON a, b TO {role}")
        db = _database("postgres", str(sa.make_url(url).set(username=role).render_as_string(hide_password=False)))
        sql = "SELECT id FROM a JOIN b ON a.id = b.id"
        result = run_with_repair(db, sql, LIMITS)
        assert result.status == "error" and result.error.kind == "ambiguous_column"
        (log,) = result.repairs
        assert log["problem"].startswith("cannot read the schema") and log["sql"] is None
        assert log["error"]["code"] == "42702" and log["column"] == "id" and log["rule"] == "none"
    finally:
        if db is not None:
            db.dispose()
        with owner.connect() as conn:
            conn.exec_driver_sql(f"DROP OWNED BY {role}")
        owner.dispose()
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP ROLE IF EXISTS {role}")
        admin.dispose()


# -- where it runs: the side-by-side runner and the CLI ------------------------------------------------

CHINOOK_NAME = {
    "sqlite": "SELECT Name FROM Track JOIN Genre ON Track.GenreId = Genre.GenreId WHERE TrackId <= 3 ORDER BY 1",
    "mysql": "SELECT Name FROM Track JOIN Genre ON Track.GenreId = Genre.GenreId WHERE TrackId <= 3 ORDER BY 1",
    "postgresql": "SELECT name FROM track JOIN genre ON track.genre_id = genre.genre_id WHERE track_id <= 3 ORDER BY 1",
}
CHINOOK_KEY = {
    "sqlite": "SELECT GenreId, COUNT(*) FROM Track JOIN Genre ON Track.GenreId = Genre.GenreId GROUP BY 1 ORDER BY 1",
    "mysql": "SELECT GenreId, COUNT(*) FROM Track JOIN Genre ON Track.GenreId = Genre.GenreId GROUP BY 1 ORDER BY 1",
    "postgresql": "SELECT genre_id, COUNT(*) FROM track JOIN genre ON track.genre_id = genre.genre_id GROUP BY 1 ORDER BY 1",
}


def test_side_by_side_runner_repairs_on_every_engine(chinook_dbs):
    dbs = list(chinook_dbs.values())
    results = run_side_by_side([Job("name", CHINOOK_NAME), Job("key", CHINOOK_KEY)], dbs, LIMITS,
                               run_one=run_with_repair)
    for db in dbs:
        name = results["name"][db.name]
        assert name.status == "error" and name.error.kind == "ambiguous_column"
        (log,) = name.repairs
        assert log["rule"] == "candidates" and log["agree"] is False and len(log["candidates"]) == 2
        assert log["candidates"][0]["rows"] != log["candidates"][1]["rows"]
        key_result = results["key"][db.name]
        assert key_result.ok and key_result.repairs[0]["rule"] == "equi_join_key"
    first, *others = [results["key"][db.name] for db in dbs]
    assert all(first.same_answer(other) for other in others) and len(first.rows) == 25  # 25 genres, same counts


def _cli(*args: str) -> Any:
    return CliRunner().invoke(repair_command, list(args), catch_exceptions=False)


def test_cli_repairs_and_reports_json(abc_urls):
    dbs = [arg for url in abc_urls.values() for arg in ("--db", url)]
    result = _cli("SELECT id FROM a JOIN b ON a.id = b.id ORDER BY 1", *dbs, "--json")
    assert result.exit_code == 0, result.output
    payload = json.loads(result.output)
    assert set(payload["results"]) == {"sqlite", "postgres", "mysql"}
    for engine_result in payload["results"].values():
        assert engine_result["status"] == "ok" and engine_result["rows"] == [[1], [2], [3]]
        assert engine_result["repairs"][0]["rule"] == "equi_join_key"
        assert engine_result["repairs"][0]["error"]["kind"] == "ambiguous_column"

    result = _cli("SELECT name FROM a JOIN b ON b.a_id = a.id ORDER BY 1", *dbs)
    assert result.exit_code == 1  # the candidates disagree: the user must choose
    assert result.output.count("rule: candidates") == 3
    assert "candidate a.name: SELECT a.name" in result.output and "question:" in result.output

    result = _cli("SELECT a.name FROM a JOIN b ON a.id = b.id ORDER BY 1", "--db", abc_urls["sqlite"])
    assert result.exit_code == 0 and "no ambiguous column" in result.output


def test_cli_bad_input(abc_urls):
    result = _cli("SELECT FROM WHERE", "--db", abc_urls["sqlite"])
    assert result.exit_code == 2 and "cannot parse" in result.output
    result = _cli("SELECT nope FROM a JOIN b ON a.id = b.id", "--db", abc_urls["sqlite"], "--json")
    assert result.exit_code == 1
    engine_result = json.loads(result.output)["results"]["sqlite"]
    assert engine_result["error"]["kind"] == "unknown_column" and engine_result["repairs"] == []



def test_run_repairs_unless_told_not_to_and_says_whether_engines_agree(abc_urls):
    from checker_app.commands.run import run as run_command

    dbs = [arg for url in abc_urls.values() for arg in ("--db", url)]
    sql = "SELECT id FROM a JOIN b ON a.id = b.id ORDER BY 1"
    repaired = CliRunner().invoke(run_command, [sql, *dbs, "--json"], catch_exceptions=False)
    assert repaired.exit_code == 0, repaired.output
    payload = json.loads(repaired.output)
    assert payload["engines_agree"] is True
    assert all(r["repairs"][0]["rule"] == "equi_join_key" for r in payload["results"].values())
    text = CliRunner().invoke(run_command, [sql, *dbs], catch_exceptions=False)
    assert "rule: equi_join_key" in text.output and "Engines agree" in text.output
    raw = CliRunner().invoke(run_command, [sql, *dbs, "--no-repair", "--json"], catch_exceptions=False)
    assert raw.exit_code == 1
    results = json.loads(raw.output)["results"].values()
    assert all(r["error"]["kind"] == "ambiguous_column" and r["repairs"] == [] for r in results)
