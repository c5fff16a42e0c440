"""Dialect names, once: what callers may pass (SQLAlchemy backend names too) -> the sqlglot dialect."""
from __future__ import annotations

# the sqlglot dialects of the three engines the checker runs on, in the order reports list them
ENGINE_DIALECTS: tuple[str, ...] = ("sqlite", "postgres", "mysql")

SQLGLOT_DIALECTS = {
    "postgres": "postgres", "postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql", "sqlite": "sqlite",
    "sqlite3": "sqlite", "tsql": "tsql", "mssql": "tsql", "sqlserver": "tsql", "": "",
}


def sqlglot_dialect(dialect: str | None) -> str:
    """The sqlglot dialect for an engine, backend or dialect name (unknown names pass through, lower-cased)."""
    return SQLGLOT_DIALECTS.get((dialect or "").lower(), (dialect or "").lower())
