"""Dialect names, once: what callers may pass (SQLAlchemy backend names too) -> the sqlglot dialect."""
from __future__ import annotations

from typing import Literal, get_args

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
