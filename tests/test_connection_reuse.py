"""What a new connection costs on MariaDB: PyMySQL's preferred-mode TLS context is built once per process
and shared by later connections (a URL's own ssl options are PyMySQL's), and the catalog snapshot read in
two queries is the one the joined query gave (real server)."""
from __future__ import annotations

import pytest
import sqlalchemy as sa

from adapters import Database, parse_db_option
from adapters.catalog import _from_rows, snapshot
from adapters.connections import create_engine
from adapters.pymysql_tls import _preferred

JOINED = """
SELECT c.TABLE_NAME, c.COLUMN_NAME, c.COLUMN_TYPE, t.TABLE_ROWS,
       CONCAT(COALESCE(t.TABLE_ROWS, ''), ':', COALESCE(t.UPDATE_TIME, ''))
FROM information_schema.COLUMNS c
JOIN information_schema.TABLES t ON t.TABLE_SCHEMA = c.TABLE_SCHEMA AND t.TABLE_NAME = c.TABLE_NAME
WHERE c.TABLE_SCHEMA = DATABASE() AND t.TABLE_TYPE = 'BASE TABLE'
ORDER BY c.TABLE_NAME, c.ORDINAL_POSITION
"""


def _new_connection_context(engine: sa.Engine) -> object:
    with engine.connect() as conn:
        raw = conn.connection.dbapi_connection
        assert conn.exec_driver_sql("SELECT 1").scalar() == 1
        context = getattr(raw, "ctx", None)
        conn.invalidate()  # the next checkout opens a new connection
    return context


def test_connections_share_one_preferred_tls_context(servers) -> None:
    url = servers.create("mysql")
    engines = [create_engine(parse_db_option(url)) for _ in range(2)]
    try:
        contexts = [_new_connection_context(engine) for engine in engines for _ in range(2)]
    finally:
        for engine in engines:
            engine.dispose()
    assert contexts[0] is not None and all(c is contexts[0] for c in contexts)
    assert _preferred == [contexts[0]]


def test_url_ssl_options_are_left_to_pymysql(servers) -> None:
    url = sa.make_url(servers.create("mysql")).update_query_dict({"ssl_disabled": "true"})
    engine = create_engine(parse_db_option(url.render_as_string(hide_password=False)))
    try:
        assert _new_connection_context(engine) is None  # no TLS at all, as the URL says
    finally:
        engine.dispose()


def test_mysql_snapshot_is_the_joined_query(demo_urls) -> None:
    engine = sa.create_engine(demo_urls["mysql"])
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("CREATE VIEW big_orders AS SELECT * FROM orders")  # a view's columns are left out
            try:
                joined = _from_rows(conn.exec_driver_sql(JOINED).all())
                assert snapshot(conn) == joined
                assert len(joined.rows) > 3
            finally:
                conn.exec_driver_sql("DROP VIEW big_orders")
    finally:
        engine.dispose()


@pytest.mark.parametrize("backend", ["postgresql", "mysql"])
def test_a_connection_is_pinged_only_after_idling(servers, backend, monkeypatch) -> None:
    """A connection just reset on its return is handed out without a ping (one round trip per statement
    less); one idle past `PING_AFTER_S` is pinged, and one the server closed meanwhile is replaced, so the
    statement still runs (what `pool_pre_ping` did on every checkout)."""
    from adapters import sessions

    db = Database(parse_db_option(servers.create(backend)))
    pings: list[object] = []
    ping = db.engine.dialect.do_ping
    monkeypatch.setattr(db.engine.dialect, "do_ping", lambda raw: pings.append(raw) or ping(raw))
    try:
        for _ in range(3):
            assert db.run("SELECT 1").rows == [[1]]
        assert pings == []
        monkeypatch.setattr(sessions, "PING_AFTER_S", -1.0)  # every connection has idled long enough
        with db.engine.connect() as conn:
            pid = conn.exec_driver_sql(
                "SELECT pg_backend_pid()" if backend == "postgresql" else "SELECT CONNECTION_ID()").scalar()
        admin = sa.create_engine(servers.create(backend), poolclass=sa.pool.NullPool)
        with admin.connect() as conn:
            conn.exec_driver_sql(f"SELECT pg_terminate_backend({pid})" if backend == "postgresql" else f"KILL {pid}")
        admin.dispose()
        result = db.run("SELECT 1")
        assert result.ok, result.error
        assert result.rows == [[1]] and pings
    finally:
        db.dispose()
