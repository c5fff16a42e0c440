"""The least-privilege role: `ambiguity-checker role` statements run on the real servers, the checker
connected through the role gets no privilege warning, and the engine itself refuses what the parser does."""
from __future__ import annotations

import subprocess
import sys
import uuid

import pytest
import sqlalchemy as sa

from adapters import Database, parse_db_option

PASSWORD = "Ro-pw-0123"


def _statements(url: str, role: str) -> list[str]:
    out = subprocess.run([sys.executable, "-m", "checker_app", "role", "--db", url, "--name", role],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = [line for line in out.stdout.splitlines() if line.strip() and not line.startswith(("--", "\\"))]
    return [line.replace("choose-a-password", PASSWORD) for line in lines]


def _execute(url: str, statements: list[str]) -> None:
    engine = sa.create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            cursor = conn.connection.dbapi_connection.cursor()  # no parameters: '%' is not a placeholder
            for statement in statements:
                cursor.execute(statement)
            cursor.close()
    finally:
        engine.dispose()


@pytest.fixture
def roles(demo_urls):
    made: list[tuple[str, str]] = []
    yield made
    for backend, role in made:
        drop = ([f"DROP OWNED BY {role}", f"DROP ROLE IF EXISTS {role}"] if backend == "postgresql"
                else [f"DROP USER IF EXISTS '{role}'@'%'"])
        _execute(demo_urls[backend], drop)


@pytest.mark.parametrize("backend", ["postgresql", "mysql"])
def test_the_role_reads_without_a_warning_and_the_engine_refuses_the_rest(demo_urls, roles, backend) -> None:
    admin = Database(parse_db_option(f"admin={demo_urls[backend]}"))
    warning = admin.privilege_warning()
    assert warning and warning.startswith("admin: ") and "ambiguity-checker role" in warning

    role = f"ac_ro_{uuid.uuid4().hex[:8]}"
    roles.append((backend, role))
    _execute(demo_urls[backend], _statements(demo_urls[backend], role))
    url = sa.make_url(demo_urls[backend]).set(username=role, password=PASSWORD)
    reader = Database(parse_db_option(f"reader={url.render_as_string(hide_password=False)}"))
    ok = reader.run("SELECT count(*) AS n FROM products")
    assert ok.status == "ok" and ok.rows[0][0] > 0, ok.error
    assert reader.privilege_warning() is None

    # past the parser (straight to the engine), the role itself cannot read files or write
    denied = "SELECT pg_read_file('/etc/passwd')" if backend == "postgresql" else "SELECT LOAD_FILE('/etc/passwd')"
    with reader.engine.connect() as conn:
        if backend == "postgresql":
            with pytest.raises(sa.exc.DBAPIError) as info:
                conn.exec_driver_sql(denied)
            assert info.value.orig.sqlstate == "42501"
        else:
            assert conn.exec_driver_sql(denied).scalar() is None  # no FILE privilege: NULL, not the file
        conn.rollback()
        with pytest.raises(sa.exc.DBAPIError):
            conn.exec_driver_sql("DELETE FROM products")
    admin.dispose()
    reader.dispose()


def test_sqlite_has_no_roles_and_says_what_to_do(demo_urls) -> None:
    out = subprocess.run([sys.executable, "-m", "checker_app", "role", "--db", demo_urls["sqlite"]],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and "mode=ro" in out.stdout


def test_a_role_name_that_is_not_an_identifier_is_a_one_line_error(demo_urls) -> None:
    out = subprocess.run([sys.executable, "-m", "checker_app", "role", "--db", demo_urls["postgresql"],
                          "--name", "x; DROP TABLE products"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "not a plain identifier" in out.stderr
