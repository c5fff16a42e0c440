"""Dialect names, once: what callers may pass (SQLAlchemy backend names too) -> the sqlglot dialect."""
from __future__ import annotations

from typing import Literal, get_args

from sqlglot import exp
from sqlglot.dialects.dialect import Dialect
from sqlglot.dialects.sqlite import SQLite
from sqlglot.expressions import DType
from sqlglot.generator import Generator
from sqlglot.generators.sqlite import SQLiteGenerator

# the sqlglot dialects of the three engines the checker runs on, in the order reports list them; the Literal is
# for typed fields (a model's declared dialect), the tuple for loops, both the same three names
EngineDialect = Literal["sqlite", "postgres", "mysql"]
ENGINE_DIALECTS: tuple[str, ...] = get_args(EngineDialect)

# how each of them is named to a person (the page's dialect switch, the model's prompt)
DIALECT_NAMES: dict[str, str] = dict(zip(ENGINE_DIALECTS, ("SQLite", "PostgreSQL", "MySQL/MariaDB")))

SQLGLOT_DIALECTS = {
    "postgres": "postgres", "postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql", "sqlite": "sqlite",
    "sqlite3": "sqlite", "tsql": "tsql", "mssql": "tsql", "sqlserver": "tsql", "": "",
}


def sqlglot_dialect(dialect: str | None) -> str:
    """The sqlglot dialect for an engine, backend or dialect name (unknown names pass through, lower-cased)."""
    return SQLGLOT_DIALECTS.get((dialect or "").lower(), (dialect or "").lower())


# -- writing -------------------------------------------------------------------------------------

def writing_dialect(dialect: str) -> str | type[Dialect]:
    """What a statement for `dialect` is written with: sqlglot's dialect, or for SQLite the same one whose
    CAST reads the type it casts to directly. sqlglot's SQLite writer parsed five type names ('date',
    'datetime', 'timestamp', 'timestampntz', 'time') for every CAST it wrote, to compare them with the
    CAST's type: a third of the time of writing a statement that reads a local hour or weekday. The text
    is the same (`tests/test_dialects.py`)."""
    name = sqlglot_dialect(dialect)
    return _CheckerSQLite if name == "sqlite" else name


# SQLite's writer, for these types, writes the function of the same name instead of a CAST
_SQLITE_TIME_FUNCTIONS = {DType.DATE: "DATE", DType.DATETIME: "DATETIME", DType.TIMESTAMP: "DATETIME",
                          DType.TIMESTAMPNTZ: "DATETIME", DType.TIME: "TIME"}


class _SQLiteWriter(SQLiteGenerator):
    def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
        function = _SQLITE_TIME_FUNCTIONS.get(expression.to.this)
        if function is not None:
            return self.func(function, expression.this)
        return Generator.cast_sql(self, expression)  # what SQLiteGenerator defers to (without the prefix)


class _CheckerSQLite(SQLite):
    Generator = _SQLiteWriter
