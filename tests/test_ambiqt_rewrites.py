"""`expand_sql` rewrites through split-off, precomputed-aggregate and join-built aggregate tables, case by case
from `fixtures/schema_mapping/rewrites.txt` (adding a case is adding a line), on SQLite, PostgreSQL and MariaDB:
one alternative returns the expected rows, its label names what it reads and nothing else, and every
alternative runs."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import sqlalchemy as sa

from adapters.results import comparable
from archetypes.expand import expand_sql
from tests.support import BACKENDS, Connected, connect

FIXTURES = Path(__file__).parent / "fixtures" / "schema_mapping"


def _cases() -> list:
    found = []
    for number, line in enumerate((FIXTURES / "rewrites.txt").read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        sql, rows, label, *lacks = [part.strip() for part in line.split(" | ")]
        found.append(pytest.param(sql, json.loads(rows), label.split(), lacks[0].split() if lacks else [],
                                  id=f"rewrites.txt:{number}"))
    return found


@pytest.fixture(scope="module")
def rewrites(session_servers) -> dict[str, Connected]:
    statements = [line for line in (FIXTURES / "rewrites.sql").read_text(encoding="utf-8").splitlines()
                  if line.strip() and not line.startswith("--")]
    connected = {}
    for backend in BACKENDS:
        url = session_servers.create(backend)
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            for statement in statements:
                conn.exec_driver_sql(statement)
        engine.dispose()
        connected[backend] = connect(url)
    return connected


def _answer(rows: list) -> list:
    return sorted((tuple(comparable(v) for v in row) for row in rows), key=repr)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("sql, rows, label, lacks", _cases())
def test_rewrite(rewrites, backend: str, sql: str, rows: list, label: list[str], lacks: list[str]) -> None:
    connected = rewrites[backend]
    alternatives = expand_sql(sql, connected.profile, connected.dialect, read="postgres")
    answers = []
    for alternative in alternatives:
        result = connected.db.run(alternative.sql)
        assert result.ok, (alternative.sql, result.error)
        assert not any(word.lower() in alternative.sql.lower() for word in lacks), alternative.sql
        answers.append((alternative, _answer(result.rows)))
    matching = [a for a, answer in answers if answer == _answer(rows)]
    assert matching, [(a.label, a.sql, answer) for a, answer in answers]
    assert any(all((w[1:].lower() not in a.label.lower()) if w.startswith("-") else (w.lower() in a.label.lower())
                   for w in label) for a in matching), [a.label for a in matching]
