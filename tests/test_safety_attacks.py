"""The attack corpus (tests/fixtures/attacks.txt) on the real engines, connected as superusers.

Every case must come back `rejected` with its reason, on the engine it names (or every engine), and
afterwards every demo table's checksum is unchanged, no replication slot exists and no file appeared
in the directory the cases name as a target.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
import sqlalchemy as sa
import sqlglot

from adapters import Database, Limits, parse_db_option
from adapters.errors import NotReadOnlyError, UnparseableStatementError
from adapters.functions import ALLOWED, REFUSED, tree_nodes
from adapters.safety import check_query, parse_query
from seed_db.checksums import table_checksums

FIXTURES = Path(__file__).parent / "fixtures"
ENGINES = {"postgres": "postgresql", "mysql": "mysql", "sqlite": "sqlite"}


def _cases() -> list[tuple[str, str, str]]:
    cases = []
    for line in (FIXTURES / "attacks.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            engine, sql, expected = (part.strip() for part in line.split("||"))
            for name in (ENGINES if engine == "any" else (engine,)):
                cases.append((name, sql, expected))
    return cases


CASES = _cases()


@pytest.fixture(scope="module")
def target_dir():
    """A directory every server process may write to; it must stay empty."""
    path = Path(tempfile.mkdtemp(prefix="ac_attack_"))
    os.chmod(path, 0o777)
    yield path
    for child in path.iterdir():
        child.unlink()
    path.rmdir()


@pytest.fixture(scope="module")
def attacked(demo_urls):
    return {name: Database(parse_db_option(f"{name}={demo_urls[backend]}"), Limits(time_limit_s=3.0, row_cap=50))
            for name, backend in ENGINES.items()}


def _slots(url: str) -> int:
    engine = sa.create_engine(url)
    try:
        with engine.connect() as conn:
            return int(conn.exec_driver_sql("SELECT count(*) FROM pg_replication_slots").scalar() or 0)
    finally:
        engine.dispose()


def test_the_corpus_covers_every_engine_and_the_issue() -> None:
    engines = {c[0] for c in CASES}
    assert engines == set(ENGINES)
    named = " ".join(c[1].lower() for c in CASES)
    for function in ("pg_terminate_backend", "pg_create_physical_replication_slot", "lo_export", "pg_read_file",
                     "dblink_exec", "query_to_xml", "pg_authid", "pg_shadow", "load_file", "mysql.user",
                     "get_lock", "benchmark", "/*!"):
        assert function in named, function


def test_every_attack_is_refused_before_the_engine_and_changes_nothing(attacked, demo_urls, target_dir) -> None:
    before = {backend: table_checksums(url) for backend, url in demo_urls.items()}
    slots = _slots(demo_urls["postgresql"])
    wrong = []
    for engine, sql, expected in CASES:
        result = attacked[engine].run(sql.replace("{tmp}", str(target_dir)))
        message = result.error.message if result.error else ""
        if result.status != "rejected" or expected.lower() not in message.lower() or "\n" in message:
            wrong.append(f"{engine}: {sql} -> {result.status}: {message}")
    assert not wrong, "\n".join(wrong)
    assert {backend: table_checksums(url) for backend, url in demo_urls.items()} == before
    assert _slots(demo_urls["postgresql"]) == slots
    assert list(target_dir.iterdir()) == []


def test_refused_functions_are_named_in_the_reason() -> None:
    for name in ("pg_read_file", "get_lock", "lo_export"):
        with pytest.raises(Exception) as info:
            parse_query(f"SELECT {name}('x')", "postgres")
        assert name in str(info.value) and "\n" not in str(info.value)


def test_no_refused_function_is_on_an_allow_list() -> None:
    for dialect, names in ALLOWED.items():
        assert not (names & set(REFUSED)), dialect


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_ordinary_analytics_still_run(attacked, engine) -> None:
    """The allow-list lets the usual analytics through on each engine (aggregates, dates, strings, windows)."""
    sql = {
        "postgres": "SELECT p.name, upper(p.name) AS u, date_trunc('month', now()) AS m, coalesce(p.name, '?') AS c, "
                    "row_number() OVER (ORDER BY p.name) AS r, to_char(now(), 'YYYY') AS y FROM products AS p LIMIT 3",
        "mysql": "SELECT p.name, UPPER(p.name) AS u, DATE_FORMAT(NOW(), '%Y-%m') AS m, IFNULL(p.name, '?') AS c, "
                 "ROW_NUMBER() OVER (ORDER BY p.name) AS r FROM products AS p LIMIT 3",
        "sqlite": "SELECT p.name, upper(p.name) AS u, strftime('%Y-%m', 'now') AS m, ifnull(p.name, '?') AS c, "
                  "row_number() OVER (ORDER BY p.name) AS r FROM products AS p LIMIT 3",
    }[engine]
    result = attacked[engine].run(sql)
    assert result.status == "ok", result.error
    assert result.row_count == 3


def test_a_profile_allows_a_user_function_by_name(attacked) -> None:
    db = Database(attacked["postgres"].config)
    refused = db.run("SELECT ac_missing_udf(1) AS x")
    assert refused.status == "rejected" and "ac_missing_udf" in refused.error.message
    db.allow_functions = frozenset({"ac_missing_udf"})
    allowed = db.run("SELECT ac_missing_udf(1) AS x")
    assert allowed.status == "error" and allowed.error.kind == "unknown_function", allowed.error
    db.allow_functions = frozenset({"pg_read_file"})
    assert db.run("SELECT pg_read_file('/etc/passwd')").status == "rejected"  # refused names stay refused
    db.dispose()


# The safety checks read a statement's nodes from one list (`functions.tree_nodes`) instead of walking the tree
# twice: the list is `walk()`'s order, node for node, so the first refusal named is the one named before, and a
# writing node is still named before a refused function met earlier in the walk.
WALKED = [
    ("postgres", "SELECT a, b FROM t JOIN u ON t.id = u.t_id WHERE a IN (1, 2, 3) AND b LIKE 'x%' ORDER BY a LIMIT 5"),
    ("mysql", "WITH x AS (SELECT COUNT(*) AS n FROM t GROUP BY k HAVING COUNT(*) > 1) SELECT n FROM x UNION ALL SELECT 1"),
    ("sqlite", "SELECT CASE WHEN a > 1 THEN 'x' ELSE 'y' END, strftime('%Y', d) FROM t WHERE EXISTS (SELECT 1 FROM u)"),
]


@pytest.mark.parametrize("dialect, sql", WALKED + [(e if e != "any" else "postgres", s) for e, s, _ in CASES])
def test_tree_nodes_is_the_walk(dialect, sql) -> None:
    dialect = {"postgresql": "postgres"}.get(dialect, dialect)
    try:
        trees = [t for t in sqlglot.parse(sql.replace("{tmp}", "/tmp/x"), read=dialect) if t is not None]
    except sqlglot.errors.SqlglotError:
        # no tree to walk: the statement is refused before any walk, as unparseable (checked, not skipped)
        with pytest.raises(UnparseableStatementError):
            parse_query(sql.replace("{tmp}", "/tmp/x"), dialect)
        return
    for tree in trees:
        assert [id(n) for n in tree_nodes(tree)] == [id(n) for n in tree.walk()]


def test_a_writing_node_is_named_before_an_earlier_refused_function() -> None:
    with pytest.raises(NotReadOnlyError, match="pg_read_file"):
        check_query(sqlglot.parse_one("SELECT pg_read_file('/etc/passwd')", read="postgres"), "postgres")
    tree = sqlglot.parse_one("WITH d AS (DELETE FROM t RETURNING *) SELECT pg_read_file('/etc/passwd') FROM d",
                             read="postgres")
    kinds = [type(n).__name__ for n in tree.walk()]
    assert kinds.index("Anonymous") < kinds.index("Delete")  # the function is met first
    with pytest.raises(NotReadOnlyError, match="DELETE|Delete|delete"):
        check_query(tree, "postgres")
