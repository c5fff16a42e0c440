"""Model SQL checked against the schema profile before anything runs.

A small model invents columns (`order_items.customer_id`, `product_name`): every engine would refuse
them, one by one, with three different messages. Found here once instead, with the columns the
table does have. A column in several visible tables is not an error: the repair pass qualifies it
when it runs (`adapters.repair`), so it is listed as `ambiguous` and the statement still runs.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, traverse_scope

from adapters.repair import find_ambiguous_columns
from adapters.repair.problems import RepairError
from adapters.schema import SchemaInfo


@dataclass
class ColumnCheck:
    unknown: list[str] = field(default_factory=list)     # "order_items.customer_id (order_items has: ...)"
    ambiguous: list[str] = field(default_factory=list)   # "order_id (order_items, o)"

    def problem(self) -> str | None:
        if not self.unknown:
            return None
        return "not in the schema: " + "; ".join(self.unknown)

    def to_dict(self) -> dict[str, Any]:
        return {"unknown_columns": list(self.unknown), "ambiguous_columns": list(self.ambiguous)}


def _schema(profile: Any) -> SchemaInfo:
    return SchemaInfo(tables=list(getattr(profile, "tables", {}).values()), dialect=getattr(profile, "dialect", ""))


def _names(table: Any) -> list[str]:
    return [c.name for c in table.columns]


def _has(names: list[str], column: str) -> bool:
    return column.lower() in (n.lower() for n in names)


def _outputs(scope: Scope) -> list[str] | None:
    selects = getattr(scope.expression, "selects", [])
    if any(isinstance(s, exp.Star) or (isinstance(s, exp.Column) and isinstance(s.this, exp.Star)) for s in selects):
        return None  # SELECT * of a derived table: its columns are those of its sources
    return list(scope.expression.named_selects)


def _visible(scope: Scope, alias: str) -> Any:
    current: Scope | None = scope
    while current is not None:
        if alias in current.sources:
            return current.sources[alias]
        current = current.parent
    return None


def check_columns(query: exp.Expression, profile: Any, dialect: str) -> ColumnCheck:
    """Unknown tables and columns of `query` against the profile; ambiguous ones the repair pass will fix."""
    schema = _schema(profile)
    result = ColumnCheck()
    if not schema.tables:
        return result
    try:
        scopes = traverse_scope(query.copy())
    except Exception:  # noqa: BLE001 - sqlglot's scope building on exotic syntax: the engines will say
        return result
    for scope in scopes:
        for source in scope.sources.values():
            if isinstance(source, exp.Table) and not scope.is_cte and source.name and schema.table(source.name) is None \
                    and source.name not in _cte_names(query):
                note = f"table {source.name} (tables: {', '.join(t.name for t in schema.tables[:20])})"
                if note not in result.unknown:
                    result.unknown.append(note)
        for column in scope.columns:
            if not column.table or isinstance(column.this, exp.Star):
                continue
            source = _visible(scope, column.table)
            if isinstance(source, exp.Table):
                table = schema.table(source.name)
                if table is not None and not _has(_names(table), column.name):
                    note = f"{column.table}.{column.name} ({table.name} has: {', '.join(_names(table))})"
                    if note not in result.unknown:
                        result.unknown.append(note)
            elif isinstance(source, Scope):
                outputs = _outputs(source)
                if outputs is not None and not _has(outputs, column.name):
                    note = f"{column.table}.{column.name} ({column.table} has: {', '.join(outputs)})"
                    if note not in result.unknown:
                        result.unknown.append(note)
    _unqualified(query, schema, dialect, result)
    return result


def _cte_names(query: exp.Expression) -> set[str]:
    return {cte.alias for cte in query.find_all(exp.CTE)}


def _unqualified(query: exp.Expression, schema: SchemaInfo, dialect: str, result: ColumnCheck) -> None:
    from adapters.repair.statement import analyse

    sql = query.sql(dialect=dialect)
    try:
        _, detection = analyse(sql, schema, dialect)
        ambiguous = find_ambiguous_columns(sql, schema, dialect)
    except RepairError:
        return
    aliases = {s.alias_or_name.lower() for s in query.find_all(exp.Alias)}
    for name, _column in detection.unknown:
        if name.lower() in aliases:
            continue  # ORDER BY revenue: an alias of the select list
        note = f"{name} (in no table the statement reads from)"
        if note not in result.unknown:
            result.unknown.append(note)
    for ref in ambiguous:
        note = f"{ref.column} ({', '.join(ref.candidates)})"
        if note not in result.ambiguous:
            result.ambiguous.append(note)
