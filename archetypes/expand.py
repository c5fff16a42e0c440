"""Expand one SQL statement into the statements that answer the same question through the schema's other
mappings (see `archetypes.mappings`): read a split-off column through its table, replace `AGG(t.x)` by a
precomputed aggregate table's column, read a twin table, use another column a question word fits.

    >>> expand_sql("SELECT name, country FROM singer", profile, "sqlite")
    [Alternative(label='country from singer_country (joined to singer on singer_id)',
                 sql='SELECT singer.name, singer_country.country FROM singer JOIN singer_country ON ...', ...)]

Everything is a sqlglot rewrite, one scope (SELECT) at a time: a column belongs to the table of its
qualifier, or, unqualified, to the one source of that scope that has the column (schema lookup; an
ambiguous or unknown column is left as written). A mapping that does not touch the statement gives nothing;
`apply_mappings` is the building block the schema_mapping archetype uses for its readings.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.optimizer.scope import traverse_scope

from adapters.dialects import sqlglot_dialect
from adapters.safety import parse_query
from adapters.schema import SchemaInfo, TableInfo
from archetypes.mappings import Mapping, schema_mappings
from archetypes.rewrite_aggregate import aggregate, unaggregate
from archetypes.rewrite_split import column, split, twin, unsplit
from archetypes.rewrite_view import Record, View

MAX_ALTERNATIVES = 8


@dataclass
class Alternative:
    """Another statement for the same question: its label, its SQL in the requested dialect, the mapping
    that produced it (`also`: further mappings applied together with it)."""

    label: str
    sql: str
    mapping: Mapping
    also: tuple[Mapping, ...] = ()
    query: exp.Query | None = field(default=None, repr=False, compare=False)

    @property
    def mappings(self) -> tuple[Mapping, ...]:
        return (self.mapping, *self.also)

    def sql_for(self, dialect: str) -> str:
        assert self.query is not None
        return self.query.sql(dialect=sqlglot_dialect(dialect))

    def to_dict(self) -> dict[str, object]:
        return {"label": self.label, "sql": self.sql, "mappings": [
            {"kind": m.kind, "from": m.named_value, "to": m.value, "inverse": m.inverse} for m in self.mappings]}


def expand_sql(sql: str | exp.Query, schema, dialect: str = "sqlite", *, read: str | None = None,
               mappings: Sequence[Mapping] = (), limit: int = MAX_ALTERNATIVES) -> list[Alternative]:
    """The alternatives of `sql` on `schema` (a SchemaProfile or a SchemaInfo), rendered for `dialect`.

    `read` is the dialect the SQL is written in (default: `dialect`). `mappings` adds question-dependent
    mappings (the schema_mapping detection's `column` mappings) to the schema's own. The statement must be a
    single read-only query (else `adapters.UnsafeStatementError`). The original statement is not among the
    alternatives; an empty list means the schema offers no other mapping for it."""
    dialect = sqlglot_dialect(dialect)
    query = sql.copy() if isinstance(sql, exp.Query) else parse_query(sql, sqlglot_dialect(read or dialect))
    tables = _tables(schema)
    known = list(mappings) + [m for m in _static(schema, tables) if m not in mappings]
    original = query.sql(dialect=dialect)
    found: list[Alternative] = []
    seen = {original}
    groups = _groups(known)
    applied: list[tuple[list[Mapping], list[Mapping], Record]] = []
    for group in groups:
        rewritten, record = rewrite(query, group, tables)
        if rewritten is None:
            continue
        text = rewritten.sql(dialect=dialect)
        if text in seen:
            continue
        seen.add(text)
        used = record.used or group[:1]
        applied.append((group, used, record))
        found.append(Alternative(_label(used, record), text, used[0], tuple(used[1:]), rewritten))
    independent = _independent([g for g, _, _ in applied])
    if len(independent) > 1:
        combined: exp.Query = query
        for group in independent:
            combined = apply_mappings(combined, group, tables) or combined
        text = combined.sql(dialect=dialect)
        if text not in seen:
            parts = [(used, record) for group, used, record in applied if any(group is g for g in independent)]
            merged = [m for used, _ in parts for m in used]
            found.append(Alternative(" + ".join(_label(u, r) for u, r in parts), text, merged[0], tuple(merged[1:]),
                                     combined))
    return found[:max(0, int(limit))]


def _tables(schema) -> dict[str, TableInfo]:
    if isinstance(schema, SchemaInfo):
        return {t.name: t for t in schema.tables}
    return dict(schema.tables)


def _static(schema, tables: dict[str, TableInfo]) -> list[Mapping]:
    from archetypes.mappings import find_mappings

    forward = schema_mappings(schema) if hasattr(schema, "cache") else find_mappings(tables)
    found = list(forward)
    for mapping in forward:
        if mapping.kind in ("split", "aggregate"):
            found.append(mapping.reverse())
    return found


def _groups(mappings: Iterable[Mapping]) -> list[list[Mapping]]:
    """Mappings that make one alternative together: every column a split table or an aggregate table
    offers for the same base table; everything else alone."""
    groups: dict[tuple[str | bool, ...], list[Mapping]] = {}
    for mapping in mappings:
        key: tuple[str | bool, ...]
        if mapping.kind in ("split", "aggregate"):
            key = (mapping.kind, mapping.inverse, mapping.table.lower(), mapping.other_table.lower())
        else:
            key = (mapping.kind, mapping.inverse, mapping.table.lower(), mapping.other_table.lower(),
                   (mapping.column or "").lower(), (mapping.other_column or "").lower())
        groups.setdefault(key, []).append(mapping)
    return list(groups.values())


def _independent(groups: list[list[Mapping]]) -> list[list[Mapping]]:
    """Groups that can be applied together: each touches a different base table, none undoes another."""
    chosen: list[list[Mapping]] = []
    touched: set[str] = set()
    for group in groups:
        tables = {group[0].table.lower(), group[0].other_table.lower()}
        if tables & touched:
            continue
        touched |= tables
        chosen.append(group)
    return chosen


def _label(group: list[Mapping], record: Record | None = None) -> str:
    """What the alternative reads through: only the mappings the rewrite used (`record`)."""
    first = group[0]
    if record is not None and record.dropped and not record.used:
        return f"{first.other_table} without the join to {first.table}"
    if len(group) == 1:
        return first.label()
    if first.kind == "split" and not first.inverse:
        columns = ", ".join(m.other_column or "" for m in group)
        return f"{columns} from {first.other_table} (joined to {first.table} on {', '.join(a for a, _ in first.key)})"
    if first.kind == "aggregate" and not first.inverse:
        columns = ", ".join(m.other_column or "" for m in group)
        calls = ", ".join(f"{(m.function or 'agg').upper()}({m.table}.{m.column})" for m in group)
        return f"precomputed {columns} from {first.other_table} instead of {calls}"
    return "; ".join(m.label() for m in group)


# -- rewriting ------------------------------------------------------------------------------------

def apply_mappings(query: exp.Query, mappings: Sequence[Mapping], tables: dict[str, TableInfo]) -> exp.Query | None:
    """A copy of `query` read through `mappings` (all of the same kind, direction and tables), or None when
    they do not touch it or cannot be applied without changing what else it reads."""
    rewritten, _ = rewrite(query, mappings, tables)
    return rewritten


def rewrite(query: exp.Query, mappings: Sequence[Mapping], tables: dict[str, TableInfo]
            ) -> tuple[exp.Query | None, Record]:
    """`apply_mappings`, with the record of what the rewrite read through and dropped."""
    record = Record()
    if not mappings:
        return None, record
    copy = query.copy()
    lowered = {name.lower(): info for name, info in tables.items()}
    changed = False
    first = mappings[0]
    for scope in list(traverse_scope(copy)):
        if not isinstance(scope.expression, exp.Select):
            continue
        view = View(scope.expression, scope.sources, lowered)
        if first.kind == "split":
            changed |= (unsplit if first.inverse else split)(view, mappings, lowered, record)
        elif first.kind == "aggregate":
            changed |= (unaggregate if first.inverse else aggregate)(view, mappings, lowered, record)
        elif first.kind == "twin":
            changed |= twin(view, first, lowered, record)
        elif first.kind == "column":
            changed |= column(view, mappings, record)
    return (copy if changed else None), record
