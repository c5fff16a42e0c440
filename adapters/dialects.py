"""Dialect names, once: what callers may pass (SQLAlchemy backend names too) -> the sqlglot dialect."""
from __future__ import annotations

SQLGLOT_DIALECTS = {
    "postgres": "postgres", "postgresql": "postgres", "mysql": "mysql", "mariadb": "mysql", "sqlite": "sqlite",
    "sqlite3": "sqlite", "tsql": "tsql", "mssql": "tsql", "sqlserver": "tsql", "": "",
}


def sqlglot_dialect(dialect: str | None) -> str:
    """The sqlglot dialect for an engine, backend or dialect name (unknown names pass through, lower-cased)."""
    return SQLGLOT_DIALECTS.get((dialect or "").lower(), (dialect or "").lower())
