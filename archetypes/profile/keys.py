"""Keys and the join graph: which columns identify rows, and the many-to-one steps between tables."""
from __future__ import annotations

from adapters.schema import ColumnInfo, TableInfo
from archetypes.naming import words
from archetypes.profile.model import Edge


def join_graph(tables: dict[str, TableInfo]) -> dict[str, list[Edge]]:
    """{table: its many-to-one steps}, from the declared foreign keys between the tables kept."""
    return {name: _edges(table, tables) for name, table in tables.items()}


def _edges(table: TableInfo, tables: dict[str, TableInfo]) -> list[Edge]:
    found = []
    for fk in table.foreign_keys:
        ref = next((n for n in tables if n.lower() == fk.ref_table.lower()), None)
        if ref and fk.columns and ref != table.name:
            found.append(Edge(table.name, tuple(fk.columns), ref, tuple(fk.ref_columns)))
    # engines list a table's keys in different sequences (SQLite's catalog backwards): the same schema must join the
    # same way everywhere. Of two keys to one table, the one named after it ('employee_id' to employees, not
    # 'reviewer_id') comes first, then the table's column order.
    position = {c.name: i for i, c in enumerate(table.columns)}
    return sorted(found, key=lambda e: (not _named_after(e), position.get(e.columns[0], len(position))))


def _named_after(edge: Edge) -> bool:
    """'employee_id' points at employees, 'EmployeeId' at Employee: the key's words hold the table's noun."""
    noun = [w.rstrip("s") for w in words(edge.ref_table)]
    return bool(noun) and noun[-1] in [w.rstrip("s") for w in words(edge.columns[0])]


def fk_columns(table: TableInfo) -> set[str]:
    return {c for fk in table.foreign_keys for c in fk.columns}


def is_key(table: TableInfo, column: ColumnInfo) -> bool:
    """A key is never a figure or a name: primary, foreign, or named like one ('..._id', '..._key')."""
    parts = words(column.name)
    return (column.name in table.primary_key or column.name in fk_columns(table)
            or (bool(parts) and parts[-1] in ("id", "key", "pk", "fk")))
