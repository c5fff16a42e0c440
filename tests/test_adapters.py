"""The adapters against the live engines: safety, limits, typed errors, runner, introspection, CLI."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sqlalchemy as sa

from adapters import (
    ConfigError,
    Database,
    InputError,
    Job,
    Limits,
    UnsafeStatementError,
    decode_input,
    introspect,
    parse_db_option,
    parse_db_options,
    parse_query,
    run_side_by_side,
)
from adapters.classify import classify, classify_mssql_message
from adapters.connections import create_engine
from tests.support import BACKENDS

FIXTURES = Path(__file__).parent / "fixtures"
UNSAFE = [
    tuple(part.strip() for part in line.split("||"))
    for line in (FIXTURES / "unsafe_sql.txt").read_text().splitlines()
    if line.strip() and not line.startswith("#")
]
ITEMS = [(i, f"item {i % 13}", i * 1.25) for i in range(1, 3001)]


def _create_items(url: str) -> None:
    engine = sa.create_engine(url)
    meta = sa.MetaData()
    items = sa.Table("items", meta, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("name", sa.String(40)), sa.Column("amount", sa.Numeric(10, 2)))
    other = sa.Table("other", meta, sa.Column("id", sa.Integer, primary_key=True, autoincrement=False),
                     sa.Column("item_id", sa.Integer, sa.ForeignKey("items.id")), sa.Column("name", sa.String(40)))
    meta.create_all(engine)
    with engine.begin() as conn:
        conn.execute(items.insert(), [{"id": i, "name": n, "amount": a} for i, n, a in ITEMS])
        conn.execute(other.insert(), [{"id": i, "item_id": i, "name": f"other {i}"} for i in range(1, 11)])
    engine.dispose()


def _checksum(url: str) -> tuple:
    engine = sa.create_engine(url)
    with engine.connect() as conn:
        rows = conn.exec_driver_sql("SELECT COUNT(*), SUM(id), MAX(name) FROM items").one()
    engine.dispose()
    return tuple(rows)


@pytest.fixture
def item_dbs(servers) -> dict[str, Database]:
    databases = {}
    for backend in BACKENDS:
        url = servers.create(backend, prefix="ac_adapt")
        _create_items(url)
        databases[backend] = Database(parse_db_option(f"{backend}={url}"), Limits(time_limit_s=2.0, row_cap=100))
    yield databases
    for db in databases.values():
        db.dispose()


# -- refusing before the engine ---------------------------------------------------------------------

@pytest.mark.parametrize("sql,expected", UNSAFE, ids=[c[0][:40] for c in UNSAFE])
def test_unsafe_statements_are_refused_with_a_reason(sql: str, expected: str) -> None:
    with pytest.raises(UnsafeStatementError) as info:
        parse_query(sql, "postgres")
    assert expected.lower() in str(info.value).lower()
    assert "\n" not in str(info.value)


def test_unsafe_statements_never_change_data_on_any_engine(item_dbs, servers) -> None:
    before = {name: _checksum(db.config.url.render_as_string(hide_password=False)) for name, db in item_dbs.items()}
    for name, db in item_dbs.items():
        for sql, _ in UNSAFE:
            result = db.run(sql)
            assert result.status == "rejected", (name, sql)
            assert result.error is not None and result.error.message
            assert result.error.kind == ("syntax" if "cannot parse" in result.error.message else "read_only")
    after = {name: _checksum(db.config.url.render_as_string(hide_password=False)) for name, db in item_dbs.items()}
    assert after == before


@pytest.mark.parametrize("backend", BACKENDS)
def test_engine_itself_refuses_writes_inside_the_guard(item_dbs, backend) -> None:
    """The parser is the first wall; the engine's read-only transaction or file mode is the second."""
    db = item_dbs[backend]
    with pytest.raises(Exception) as info:
        with db.engine.connect() as conn, db._guard(conn, db.limits) as prepare:
            cursor = conn.connection.dbapi_connection.cursor()
            cursor.execute(prepare("DELETE FROM items"))
    assert classify(info.value, db.backend).kind == "read_only"
    assert _checksum(db.config.url.render_as_string(hide_password=False))[0] == len(ITEMS)


def test_input_that_is_not_text_or_too_large() -> None:
    with pytest.raises(InputError, match="not valid UTF-8"):
        decode_input(b"SELECT '\xff\xfe'")
    with pytest.raises(InputError, match="not valid UTF-8"):
        decode_input(b"SELECT '\xff'".decode("utf-8", "surrogateescape"))  # how argv carries bad bytes
    with pytest.raises(InputError, match="limit"):
        decode_input("SELECT 1 " + "-" * 200_000)
    with pytest.raises(InputError, match="empty"):
        decode_input("   ")


# -- running on the engines ------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_rows_are_capped_and_flagged(item_dbs, backend) -> None:
    db = item_dbs[backend]
    result = db.run("SELECT id, name FROM items ORDER BY id")
    assert result.status == "ok"
    assert result.row_count == 100 and result.truncated
    assert result.rows[0][0] == 1 and result.rows[-1][0] == 100
    small = db.run("SELECT id FROM items ORDER BY id LIMIT 5")
    assert small.row_count == 5 and not small.truncated
    assert result.elapsed_ms > 0


@pytest.mark.parametrize("backend", BACKENDS)
def test_percent_and_colon_are_not_placeholders(item_dbs, backend) -> None:
    result = item_dbs[backend].run("SELECT '%Y-%m' AS fmt, ':name' AS named FROM items WHERE id = 1")
    assert result.status == "ok", result.error
    assert result.rows == [["%Y-%m", ":name"]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_long_cross_join_ends_at_the_time_limit(item_dbs, backend) -> None:
    db = item_dbs[backend]
    started = time.monotonic()
    result = db.run("SELECT COUNT(*) FROM items a, items b, items c", Limits(time_limit_s=1.0, row_cap=10))
    took = time.monotonic() - started
    assert result.status == "timeout", result.error
    assert result.error.kind == "timeout" and result.error.code
    assert took < 15  # cancelled by the engine, not run to completion (minutes)
    assert db.run("SELECT COUNT(*) FROM items").rows == [[len(ITEMS)]]  # the pool is still usable


@pytest.mark.parametrize("backend,sql,kind", [
    (b, sql, kind) for b in BACKENDS for sql, kind in [
        ("SELECT id FROM items JOIN other ON other.item_id = items.id", "ambiguous_column"),
        ("SELECT no_such_column FROM items", "unknown_column"),
    ]
])
def test_engine_errors_are_typed_with_codes(item_dbs, backend, sql, kind) -> None:
    result = item_dbs[backend].run(sql)
    assert result.status == "error"
    assert result.error.kind == kind, result.error
    if backend != "sqlite":
        assert result.error.code in {"ambiguous_column": ("42702", "1052"), "unknown_column": ("42703", "1054")}[kind]
    assert "id" in result.error.message or "no_such_column" in result.error.message


@pytest.mark.parametrize("backend", BACKENDS)
def test_engine_syntax_errors_are_classified(item_dbs, backend) -> None:
    db = item_dbs[backend]
    with pytest.raises(Exception) as info:
        with db.engine.connect() as conn:
            conn.connection.dbapi_connection.cursor().execute("SELECT FROM WHERE")
    assert classify(info.value, db.backend).kind == "syntax"


def test_sql_server_ambiguous_column_is_recognised_by_number_and_text() -> None:
    info = classify_mssql_message("Msg 209, Level 16, State 1\nAmbiguous column name 'id'.", 209)
    assert (info.kind, info.code) == ("ambiguous_column", "209")
    assert classify_mssql_message("Ambiguous column name 'name'.").kind == "ambiguous_column"


# -- connections and passwords ------------------------------------------------------------------------

def test_db_options_names_and_hidden_passwords() -> None:
    configs = parse_db_options(["sqlite:///a.db", "pg=postgresql://u:s3cret@localhost/x", "mysql://root@h/y",
                                "sqlite:///b.db"])
    assert [c.name for c in configs] == ["sqlite", "pg", "mysql", "sqlite2"]
    assert [c.dialect for c in configs] == ["sqlite", "postgres", "mysql", "sqlite"]
    assert "s3cret" not in repr(configs[1]) and "s3cret" not in configs[1].display_url
    assert "s3cret" not in json.dumps(configs[1].describe())
    with pytest.raises(ConfigError) as info:
        parse_db_option("oracle://u:s3cret@h/x")
    assert "s3cret" not in str(info.value)
    with pytest.raises(ConfigError) as info:
        parse_db_option("not a url with s3cret")
    assert "s3cret" not in str(info.value)
    assert parse_db_option("41=sqlite:///a.db").name == "41"  # a newcomer's label, all digits
    with pytest.raises(ConfigError, match="not a database label"):
        parse_db_option("my shop=sqlite:///a.db")


def test_a_dead_engine_and_a_wrong_password_do_not_stop_the_others(item_dbs) -> None:
    dead = Database(parse_db_option("dead=postgresql+psycopg://root:s3cret@127.0.0.1:1/nowhere"))
    bad_password = Database(parse_db_option("badpw=mysql+pymysql://nobody_here:s3cret@127.0.0.1:3306/test"))
    databases = [*item_dbs.values(), dead, bad_password]
    rendered = {db.name: "SELECT COUNT(*) FROM items" for db in item_dbs.values()}
    rendered |= {"dead": "SELECT 1", "badpw": "SELECT 1"}
    results = run_side_by_side([Job("q", rendered)], databases)["q"]
    for name in item_dbs:
        assert results[name].rows == [[len(ITEMS)]]
    for name in ("dead", "badpw"):
        assert results[name].status == "error" and results[name].error.kind == "connection"
        message = results[name].error.message
        assert "s3cret" not in message and "\n" not in message and message


# -- side by side -------------------------------------------------------------------------------------

def test_three_statements_on_three_engines_at_once_without_leaks(item_dbs) -> None:
    statements = {
        "count": "SELECT COUNT(*) AS n FROM items",
        "top": "SELECT name, SUM(amount) AS total FROM items GROUP BY name ORDER BY total DESC LIMIT 3",
        "slow": "SELECT COUNT(*) FROM items a, items b, items c",
    }
    jobs = [Job(key, {db.name: sql for db in item_dbs.values()}) for key, sql in statements.items()]
    started = time.monotonic()
    results = run_side_by_side(jobs, list(item_dbs.values()), Limits(time_limit_s=1.5, row_cap=50))
    took = time.monotonic() - started
    assert took < 1.5 * 3 + 5  # the three slow cells ran at the same time, not one after another
    first, *others = [results["top"][name] for name in item_dbs]
    assert all(first.same_answer(other) for other in others), [r.rows for r in (first, *others)]  # same answer
    assert all(results["count"][name].rows == [[len(ITEMS)]] for name in item_dbs)
    assert all(results["slow"][name].status == "timeout" for name in item_dbs)
    for db in item_dbs.values():
        assert db.engine.pool.checkedout() == 0


# -- introspection ------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", BACKENDS)
def test_introspection_reads_tables_keys_counts_and_samples(item_dbs, backend) -> None:
    db = item_dbs[backend]
    schema = introspect(db.engine, dialect=db.dialect)
    items, other = schema.table("items"), schema.table("other")
    assert items.row_count == len(ITEMS) and other.row_count == 10
    assert items.primary_key == ["id"]
    assert [(fk.columns, fk.ref_table) for fk in other.foreign_keys] == [(["item_id"], "items")]
    assert items.column("amount").family == "numeric" and items.column("name").family == "text"
    assert len(items.column("name").samples) == 13


@pytest.mark.parametrize("backend", BACKENDS)
def test_introspection_works_on_chinook(chinook_urls, backend) -> None:
    db = Database(parse_db_option(chinook_urls[backend]))
    schema = introspect(db.engine, dialect=db.dialect)
    names = {t.name.lower().replace("_", "") for t in schema.tables}
    assert {"artist", "album", "track", "invoiceline", "genre"} <= names
    track = next(t for t in schema.tables if t.name.lower() == "track")
    assert track.row_count == 3503
    assert {fk.ref_table.lower().replace("_", "") for fk in track.foreign_keys} >= {"album", "genre", "mediatype"}
    db.dispose()


def test_a_missing_sqlite_file_is_named_not_created(tmp_path) -> None:
    missing = tmp_path / "nope.sqlite"
    result = Database(parse_db_option(f"sqlite:///{missing}")).run("SELECT 1")
    assert result.status == "error" and result.error.kind == "connection"
    assert result.error.message == f"no SQLite file at {missing}"
    assert not missing.exists()


def test_sqlite_connections_are_read_only_files(tmp_path) -> None:
    path = tmp_path / "x.sqlite"
    _create_items(f"sqlite:///{path}")
    engine = create_engine(parse_db_option(f"sqlite:///{path}"))
    with pytest.raises(Exception) as info:
        with engine.connect() as conn:
            conn.connection.dbapi_connection.cursor().execute("DELETE FROM items")
    assert "readonly" in str(info.value).lower() or "read-only" in str(info.value).lower()
    engine.dispose()


# -- the run command ----------------------------------------------------------------------------------

def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "checker_app", *args], capture_output=True, text=True, timeout=120)


def test_run_command_json_contract_and_exit_codes(item_dbs) -> None:
    db_args = [arg for db in item_dbs.values()
               for arg in ("--db", f"{db.name}={db.config.url.render_as_string(hide_password=False)}")]
    done = _cli("run", "SELECT name, COUNT(*) AS n FROM items GROUP BY name ORDER BY name LIMIT 2", *db_args, "--json")
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert set(payload["results"]) == set(BACKENDS)
    for result in payload["results"].values():
        assert result["status"] == "ok"
        assert set(result) >= {"status", "columns", "rows", "row_count", "truncated", "elapsed_ms", "error"}
        assert result["rows"] == [["item 0", 230], ["item 1", 231]]
    refused = _cli("run", "SELECT 1; DROP TABLE items", *db_args)
    assert refused.returncode == 3 and "exactly one statement" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    broken = _cli("run", "SELECT missing FROM items", *db_args)
    assert broken.returncode == 1 and "unknown_column" in broken.stdout
    bad = _cli("run", "SELECT 1", "--db", "pg=postgresql+psycopg://u:s3cret@127.0.0.1:1/x", "--json")
    assert bad.returncode == 1 and "s3cret" not in bad.stdout + bad.stderr
    assert json.loads(bad.stdout)["results"]["pg"]["error"]["kind"] == "connection"
