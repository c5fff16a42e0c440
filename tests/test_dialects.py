"""The dialect statements are written with (`adapters.dialects.writing_dialect`) writes what sqlglot's own
dialect writes: for SQLite a writer whose CAST reads its type directly instead of parsing five type names."""
from __future__ import annotations

import pytest
import sqlglot

from adapters.dialects import writing_dialect
from archetypes.query import written_statement
from tests.support import connect, fixture_questions

CASTS = ("CAST(a AS DATE)", "CAST(a AS TIMESTAMP)", "CAST(a AS DATETIME)", "CAST(a AS TIME)", "CAST(a AS INT)",
         "CAST(a AS DOUBLE)", "CAST(a AS TEXT)", "CAST(a AS DECIMAL(10, 2))", "CAST(a AS my_type)",
         "TRY_CAST(a AS INT)", "TRY_CAST(a AS DATE)", "CAST(CAST(a AS DATE) AS TIMESTAMPNTZ)", "a / 3",
         "CAST('2025-01-01' AS TIMESTAMPTZ)")


@pytest.mark.parametrize("read", ["", "duckdb", "postgres"])  # TIMESTAMP is TIMESTAMP, TIMESTAMPNTZ, TIMESTAMP
@pytest.mark.parametrize("expression", CASTS)
def test_sqlite_casts_are_written_as_sqlglot_writes_them(expression, read) -> None:
    tree = sqlglot.parse_one(f"SELECT {expression} AS x FROM t", read=read or None)
    assert tree.sql(dialect=writing_dialect("sqlite")) == tree.sql(dialect="sqlite")


def test_other_dialects_are_sqlglots_own() -> None:
    assert writing_dialect("postgresql") == "postgres" and writing_dialect("mysql") == "mysql"


def test_every_demo_reading_is_written_as_sqlglot_writes_it(demo_urls) -> None:
    connected = connect(demo_urls["sqlite"])
    compared = 0
    for question in fixture_questions("labelled/demo.jsonl", "gold/demo.jsonl"):
        for reading in connected.analyse(question).interpretations:
            for dialect in ("sqlite", "postgres", "mysql"):
                text, tree = written_statement(reading.query, dialect)
                assert text == tree.sql(dialect=dialect), (question, reading.label, dialect)
                compared += 1
    assert compared > 1000
