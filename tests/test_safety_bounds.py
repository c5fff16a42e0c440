"""Bounded in time, bytes and connections, on the real engines.

A local TCP listener that accepts and never answers stands in for a stuck server (no `kill -STOP` of a
shared server); every other test uses the throwaway demo databases.
"""
from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest
import sqlalchemy as sa

from adapters import Database, Job, Limits, deadline, functions, parse_db_option, run_side_by_side
from adapters.connections import POOL_SIZE
from adapters.database import cap_rows
from adapters.fetch import CELL_LIMIT_CHARS
from adapters.safety import parse_query
from adapters.sessions import MAX_PER_SERVER
from tests.support import assert_valid

HANG_GUARD_S = 120  # a subprocess that outlives this is hung (a guard, not a timing goal)


@pytest.fixture
def silent_port():
    """A port on 127.0.0.1 whose listener accepts connections and never sends a byte."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(64)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(timeout=2)
    for conn in accepted:
        conn.close()
    server.close()


def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker_app", *args], capture_output=True, text=True,
                          timeout=HANG_GUARD_S, env=env)


@pytest.mark.parametrize("scheme", ["postgresql", "mysql"])
def test_a_silent_server_gives_one_line_and_the_process_ends(silent_port, demo_urls, scheme) -> None:
    silent = f"silent={scheme}://u@127.0.0.1:{silent_port}/db"
    out = _cli("check", "How many products are there?", "--db", silent, "--timeout", "1")
    assert out.returncode == 2, out
    assert out.stderr.startswith("error: ") and out.stderr.count("\n") == 1, out.stderr
    # next to a healthy engine, `run` prints both results and exits (no worker joined at exit)
    out = _cli("run", "SELECT 1 AS one", "--db", f"demo={demo_urls['sqlite']}", "--db", silent, "--timeout", "1",
               "--json")
    assert out.returncode == 1, out
    results = json.loads(out.stdout)["results"]
    assert results["demo"]["status"] == "ok"
    assert results["silent"]["status"] in ("error", "timeout")
    assert results["silent"]["error"]["kind"] in ("connection", "timeout")


def test_a_connect_timeout_is_a_connection_error_and_leaks_no_thread(silent_port) -> None:
    db = Database(parse_db_option(f"postgresql://u@127.0.0.1:{silent_port}/db"), Limits(time_limit_s=1.0))
    before = threading.active_count()
    for _ in range(3):
        result = db.run("SELECT 1")
        assert result.status == "error" and result.error.kind == "connection", result.error
    db.dispose()
    assert threading.active_count() <= before


def test_the_runner_returns_at_the_deadline_while_a_cell_is_stuck(demo_urls) -> None:
    """A cell blocked for good (a stuck engine) is a timeout at the check's deadline; its thread is a daemon."""
    db = Database(parse_db_option(f"demo={demo_urls['sqlite']}"))
    release = threading.Event()

    def stuck(database: Database, sql: str, limits: Limits):  # a RunOne
        release.wait()
        return database.run(sql, limits)

    with deadline.within(1.0):
        results = run_side_by_side([Job("a", {"demo": "SELECT 1"})], [db], Limits(time_limit_s=30), run_one=stuck)
    assert not release.is_set()
    assert results["a"]["demo"].status == "timeout"
    stuck_threads = [t for t in threading.enumerate() if t.name.startswith("runner")]
    assert stuck_threads and all(t.daemon for t in stuck_threads)
    release.set()


def test_a_process_with_a_stuck_worker_still_exits() -> None:
    script = textwrap.dedent("""
        import threading
        from adapters import Job, Limits, deadline, parse_db_option, Database, run_side_by_side
        db = Database(parse_db_option("sqlite:///:memory:"))
        forever = threading.Event()
        with deadline.within(0.5):
            out = run_side_by_side([Job("a", {"sqlite": "SELECT 1"})], [db], Limits(),
                                   run_one=lambda d, s, l: forever.wait())
        print(out["a"]["sqlite"].status)
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert out.returncode == 0 and out.stdout.strip() == "timeout", out


def test_a_check_past_its_deadline_runs_nothing_more(demo_urls) -> None:
    db = Database(parse_db_option(f"demo={demo_urls['sqlite']}"))
    with deadline.within(0.0):
        result = db.run("SELECT 1")
    assert result.status == "timeout" and "deadline" in result.error.message
    assert deadline.check_budget_s(5) >= 5 and deadline.check_budget_s(100) == 400


# -- bytes -----------------------------------------------------------------------------------------

_MEMORY_SCRIPT = """
import resource, sys, json
from adapters import Database, Limits, parse_db_option
db = Database(parse_db_option(sys.argv[1]), Limits(time_limit_s=20, row_cap=100000))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
result = db.run(sys.argv[2])
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"status": result.status, "rows": result.row_count, "reason": result.truncated_reason,
                  "error": result.error.message if result.error else None, "grew_mb": (after - before) / 1024}))
"""
HUGE = {
    "postgresql": "SELECT repeat('x', 1000000) AS r FROM generate_series(1, 100000)",
    "mysql": "SELECT REPEAT('x', 1000000) AS r FROM seq_1_to_100000",
}


@pytest.mark.parametrize("backend", sorted(HUGE))
def test_a_huge_result_stops_at_the_byte_budget(demo_urls, backend) -> None:
    out = subprocess.run([sys.executable, "-c", _MEMORY_SCRIPT, demo_urls[backend], HUGE[backend]],
                         capture_output=True, text=True, timeout=HANG_GUARD_S)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["status"] == "ok", report
    assert "byte budget" in report["reason"] and "cut" in report["reason"]
    assert 0 < report["rows"] < 1000
    assert report["grew_mb"] < 400, report  # 100 GB of answer; the budget is 16 MB plus driver buffers


def test_sqlite_refuses_a_gigabyte_blob_instead_of_running_out_of_memory(demo_urls) -> None:
    db = Database(parse_db_option(demo_urls["sqlite"]))
    result = db.run("SELECT randomblob(1000000000) AS b")
    assert result.status == "error" and "too big" in result.error.message


def test_long_cells_are_cut_with_a_marker(demo_urls) -> None:
    db = Database(parse_db_option(demo_urls["postgresql"]))
    result = db.run("SELECT repeat('x', 200000) AS r")
    assert result.status == "ok" and result.truncated
    cell = result.rows[0][0]
    assert cell.startswith("x" * CELL_LIMIT_CHARS) and "200,000" in cell and len(cell) < CELL_LIMIT_CHARS + 100


@pytest.mark.parametrize("sql,dialect", [
    ("SELECT g FROM generate_series(1, 100000) AS t(g) FETCH FIRST 100000 ROWS ONLY", "postgres"),
    ("SELECT g FROM generate_series(1, 100000) AS t(g) ORDER BY g FETCH FIRST 100000 ROWS WITH TIES", "postgres"),
    ("SELECT TOP 100000 name FROM products", "tsql"),
])
def test_fetch_first_and_top_get_the_row_cap(demo_urls, sql, dialect) -> None:
    capped = cap_rows(parse_query(sql, dialect), 10).sql(dialect="postgres")
    assert "11" in capped
    db = Database(parse_db_option(demo_urls["postgresql"]), Limits(row_cap=10))
    rendered = parse_query(sql, dialect).sql(dialect="postgres")
    result = db.run(rendered)
    assert result.status == "ok", result.error
    assert result.row_count == 10 and result.truncated and "row cap" in result.truncated_reason


# -- sessions and connections --------------------------------------------------------------------------

def test_postgres_sessions_are_reset_on_return(demo_urls) -> None:
    db = Database(parse_db_option(demo_urls["postgresql"]))
    with db.engine.connect() as conn:
        pid = conn.exec_driver_sql("SELECT pg_backend_pid()").scalar()
        conn.exec_driver_sql("SELECT pg_advisory_lock(4242)")
        conn.exec_driver_sql("SET application_name = 'ac-leaked'")
        conn.commit()
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT pg_backend_pid()").scalar() == pid  # the same pooled session
        held = conn.exec_driver_sql(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND pid = pg_backend_pid()").scalar()
        assert held == 0
        assert conn.exec_driver_sql("SHOW application_name").scalar() == "ambiguity-checker"
        conn.rollback()
    db.dispose()


def test_mariadb_sessions_are_reset_on_return(demo_urls) -> None:
    db = Database(parse_db_option(demo_urls["mysql"]))
    with db.engine.connect() as conn:
        session = conn.exec_driver_sql("SELECT CONNECTION_ID()").scalar()
        conn.exec_driver_sql("SET @ac_leak := 42")
        assert conn.exec_driver_sql("SELECT GET_LOCK('ac_leak', 0)").scalar() == 1
        conn.commit()
    with db.engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT CONNECTION_ID()").scalar() == session
        assert conn.exec_driver_sql("SELECT @ac_leak").scalar() is None
        assert conn.exec_driver_sql("SELECT IS_USED_LOCK('ac_leak')").scalar() is None
        assert conn.exec_driver_sql("SELECT @@character_set_client").scalar() == "utf8mb4"
        conn.rollback()
    db.dispose()


def test_connections_per_server_are_capped_in_the_process(demo_urls) -> None:
    url = demo_urls["postgresql"]
    name = sa.make_url(url).database
    databases = [Database(parse_db_option(url), Limits(time_limit_s=20)) for _ in range(3)]
    admin = sa.create_engine(url)
    peak, done = [0], threading.Event()

    def watch() -> None:
        with admin.connect() as conn:
            while not done.is_set():
                count = conn.exec_driver_sql(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = 'ambiguity-checker' "
                    "AND state = 'active'",
                    (name,)).scalar()
                peak[0] = max(peak[0], int(count or 0))
                conn.rollback()
                time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    slow = "SELECT count(*) AS n FROM generate_series(1, 2000000) AS a(x)"
    workers = [threading.Thread(target=databases[i % 3].run, args=(slow,)) for i in range(24)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=HANG_GUARD_S)
    done.set()
    watcher.join(timeout=5)
    admin.dispose()
    engine = databases[0].engine
    assert all(db.engine is engine for db in databases)  # one pool per URL in the process
    opened = engine.pool.checkedin() + engine.pool.checkedout()
    for db in databases:
        db.dispose()
    assert 1 <= peak[0] <= MAX_PER_SERVER
    assert opened <= POOL_SIZE


# -- answers that are not answers, error kinds ------------------------------------------------------------

def test_mariadb_statements_stopped_by_the_time_limit_never_come_back_ok(demo_urls, monkeypatch) -> None:
    for name in ("benchmark", "get_lock"):
        monkeypatch.delitem(functions.REFUSED, name)
    db = Database(parse_db_option(demo_urls["mysql"]), Limits(time_limit_s=0.5))
    db.allow_functions = frozenset({"benchmark", "get_lock"})
    result = db.run("SELECT BENCHMARK(1000000000, MD5('x')) AS b")
    assert result.status == "timeout", (result.status, result.rows)
    holder = sa.create_engine(demo_urls["mysql"])
    with holder.connect() as conn:
        assert conn.exec_driver_sql("SELECT GET_LOCK('ac_wait', 0)").scalar() == 1
        waited = db.run("SELECT GET_LOCK('ac_wait', 30) AS l")
        assert waited.status == "timeout", (waited.status, waited.rows)
        conn.exec_driver_sql("SELECT RELEASE_LOCK('ac_wait')")
    holder.dispose()
    db.dispose()


def test_mariadb_permission_and_unknown_function_errors_have_their_kinds(demo_urls) -> None:
    admin = sa.create_engine(demo_urls["mysql"], isolation_level="AUTOCOMMIT")
    user = "ac_nogrant"
    with admin.connect() as conn:
        conn.exec_driver_sql(f"DROP USER IF EXISTS '{user}'@'%%'")
        conn.exec_driver_sql(f"CREATE USER '{user}'@'%%' IDENTIFIED BY 'Ng-pw-1'")
    try:
        url = sa.make_url(demo_urls["mysql"]).set(username=user, password="Ng-pw-1")
        db = Database(parse_db_option(f"mysql://{user}:Ng-pw-1@{url.host}:{url.port}/"))
        denied = db.run(f"SELECT * FROM {url.database}.products")
        assert denied.error.kind == "permission" and denied.error.code == "1142", denied.error
        db.allow_functions = frozenset({"ac_no_such_fn"})
        unknown = Database(parse_db_option(demo_urls["mysql"]))
        unknown.allow_functions = frozenset({"ac_no_such_fn"})
        missing = unknown.run("SELECT ac_no_such_fn(1) AS x")
        assert missing.error.kind == "unknown_function" and missing.error.code == "1305", missing.error
        db.dispose()
        unknown.dispose()
    finally:
        with admin.connect() as conn:
            conn.exec_driver_sql(f"DROP USER IF EXISTS '{user}'@'%%'")
        admin.dispose()


def test_the_report_warns_once_per_engine_connected_as_superuser(demo_urls) -> None:
    out = _cli("check", "How many products are there?", "--json", "--db", f"pg={demo_urls['postgresql']}",
               "--db", f"maria={demo_urls['mysql']}", "--db", f"lite={demo_urls['sqlite']}")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert_valid(report)
    warnings = {e["name"]: e.get("warning") for e in report["engines"]}
    assert warnings["pg"] and "superuser" in warnings["pg"]
    assert warnings["maria"] and "ALL PRIVILEGES" in warnings["maria"]
    assert warnings["lite"] is None
    assert sum(1 for n in report["notes"] if n.startswith("pg: ")) == 1
