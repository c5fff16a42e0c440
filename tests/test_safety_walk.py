"""The safety checks read a statement's nodes from one list (`functions.tree_nodes`) instead of walking the
tree twice: the list is `walk()`'s order, node for node, so the first refusal named is the one named before,
and a writing node is still named before a refused function met earlier in the walk."""
from __future__ import annotations

import pytest
import sqlglot

from adapters.errors import NotReadOnlyError
from adapters.functions import tree_nodes
from adapters.safety import check_query
from tests.test_safety_attacks import CASES

STATEMENTS = [
    ("postgres", "SELECT a, b FROM t JOIN u ON t.id = u.t_id WHERE a IN (1, 2, 3) AND b LIKE 'x%' ORDER BY a LIMIT 5"),
    ("mysql", "WITH x AS (SELECT COUNT(*) AS n FROM t GROUP BY k HAVING COUNT(*) > 1) SELECT n FROM x UNION ALL SELECT 1"),
    ("sqlite", "SELECT CASE WHEN a > 1 THEN 'x' ELSE 'y' END, strftime('%Y', d) FROM t WHERE EXISTS (SELECT 1 FROM u)"),
]


@pytest.mark.parametrize("dialect, sql", STATEMENTS + [(e if e != "any" else "postgres", s) for e, s, _ in CASES])
def test_tree_nodes_is_the_walk(dialect, sql) -> None:
    dialect = {"postgresql": "postgres"}.get(dialect, dialect)
    try:
        trees = [t for t in sqlglot.parse(sql.replace("{tmp}", "/tmp/x"), read=dialect) if t is not None]
    except sqlglot.errors.SqlglotError:
        pytest.skip("not parsed by sqlglot (refused as unparseable)")
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
