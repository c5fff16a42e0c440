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
from sqlglot.optimizer.scope import traverse_scope, walk_in_scope

from adapters.safety import parse_query
from adapters.schema import SchemaInfo, TableInfo
from archetypes.mappings import Mapping, schema_mappings

MAX_ALTERNATIVES = 8
_DIALECTS = {"postgresql": "postgres", "mariadb": "mysql", "sqlite3": "sqlite"}
_FUNCTIONS: dict[type, str] = {exp.Max: "max", exp.Min: "min", exp.Avg: "avg", exp.Sum: "sum"}
_BUILD = {"max": exp.Max, "min": exp.Min, "avg": exp.Avg, "sum": exp.Sum}


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
        return self.query.sql(dialect=_DIALECTS.get(dialect, dialect))

    def to_dict(self) -> dict[str, object]:
        return {"label": self.label, "sql": self.sql, "mappings": [
            {"kind": m.kind, "from": m.named_value, "to": m.value, "inverse": m.inverse} for m in self.mappings]}


def expand_sql(sql: str | exp.Query, schema, dialect: str = "sqlite", *, read: str | None = None,  # noqa: ANN001
               mappings: Sequence[Mapping] = (), limit: int = MAX_ALTERNATIVES) -> list[Alternative]:
    """The alternatives of `sql` on `schema` (a SchemaProfile or a SchemaInfo), rendered for `dialect`.

    `read` is the dialect the SQL is written in (default: `dialect`). `mappings` adds question-dependent
    mappings (the schema_mapping detection's `column` mappings) to the schema's own. The statement must be a
    single read-only query (else `adapters.UnsafeStatementError`). The original statement is not among the
    alternatives; an empty list means the schema offers no other mapping for it."""
    dialect = _DIALECTS.get(dialect, dialect)
    query = sql.copy() if isinstance(sql, exp.Query) else parse_query(sql, _DIALECTS.get(read or dialect,
                                                                                       read or dialect))
    tables = _tables(schema)
    known = list(mappings) + [m for m in _static(schema, tables) if m not in mappings]
    original = query.sql(dialect=dialect)
    found: list[Alternative] = []
    seen = {original}
    groups = _groups(known)
    applied: list[tuple[list[Mapping], exp.Query]] = []
    for group in groups:
        rewritten = apply_mappings(query, group, tables)
        if rewritten is None:
            continue
        text = rewritten.sql(dialect=dialect)
        if text in seen:
            continue
        seen.add(text)
        group = _used(group, rewritten)
        applied.append((group, rewritten))
        found.append(Alternative(_label(group), text, group[0], tuple(group[1:]), rewritten))
    independent = _independent([g for g, _ in applied])
    if len(independent) > 1:
        combined: exp.Query | None = query
        for group in independent:
            combined = apply_mappings(combined, group, tables) or combined
        text = combined.sql(dialect=dialect)
        if text not in seen:
            merged = [m for g in independent for m in g]
            found.append(Alternative(" + ".join(_label(g) for g in independent), text, merged[0], tuple(merged[1:]),
                                     combined))
    return found[:max(0, int(limit))]


def _tables(schema) -> dict[str, TableInfo]:  # noqa: ANN001
    if isinstance(schema, SchemaInfo):
        return {t.name: t for t in schema.tables}
    return dict(schema.tables)


def _static(schema, tables: dict[str, TableInfo]) -> list[Mapping]:  # noqa: ANN001
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
    groups: dict[tuple, list[Mapping]] = {}
    for mapping in mappings:
        if mapping.kind in ("split", "aggregate"):
            key = (mapping.kind, mapping.inverse, mapping.table.lower(), mapping.other_table.lower())
        else:
            key = (mapping.kind, mapping.inverse, mapping.table.lower(), mapping.other_table.lower(),
                   (mapping.column or "").lower(), (mapping.other_column or "").lower())
        groups.setdefault(key, []).append(mapping)
    return list(groups.values())


def _used(group: list[Mapping], rewritten: exp.Query) -> list[Mapping]:
    """The mappings of a group the rewrite actually used (the aggregate columns it reads), for the label."""
    if group[0].inverse or group[0].kind not in ("split", "aggregate"):
        return group
    names = {c.name.lower() for c in rewritten.find_all(exp.Column)}
    return [m for m in group if (m.other_column or "").lower() in names] or group


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


def _label(group: list[Mapping]) -> str:
    first = group[0]
    if len(group) == 1:
        return first.label()
    if first.kind == "split" and not first.inverse:
        columns = ", ".join(m.other_column or "" for m in group)
        return f"{columns} from {first.other_table} (joined to {first.table} on {', '.join(a for a, _ in first.key)})"
    if first.kind == "aggregate" and not first.inverse:
        columns = ", ".join(m.other_column or "" for m in group)
        return f"precomputed {columns} from {first.other_table} instead of aggregating {first.table}.{first.column}"
    return "; ".join(m.label() for m in group)


# -- rewriting ------------------------------------------------------------------------------------

def apply_mappings(query: exp.Query, mappings: Sequence[Mapping], tables: dict[str, TableInfo]) -> exp.Query | None:
    """A copy of `query` read through `mappings` (all of the same kind, direction and tables), or None when
    they do not touch it or cannot be applied without changing what else it reads."""
    if not mappings:
        return None
    copy = query.copy()
    lowered = {name.lower(): info for name, info in tables.items()}
    changed = False
    for scope in list(traverse_scope(copy)):
        if not isinstance(scope.expression, exp.Select):
            continue
        view = _View(scope.expression, scope.sources, lowered)
        first = mappings[0]
        if first.kind == "split" and not first.inverse:
            changed |= _split(view, mappings, lowered)
        elif first.kind == "split":
            changed |= _unsplit(view, mappings, lowered)
        elif first.kind == "aggregate" and not first.inverse:
            changed |= _aggregate(view, mappings, lowered)
        elif first.kind == "aggregate":
            changed |= _unaggregate(view, mappings, lowered)
        elif first.kind == "twin":
            changed |= _twin(view, first, lowered)
        elif first.kind == "column":
            changed |= _column(view, mappings)
    return copy if changed else None


class _View:
    """One SELECT: its table sources by alias and the columns it reads itself (not its subqueries')."""

    def __init__(self, select: exp.Select, sources: dict, tables: dict[str, TableInfo]) -> None:
        self.select = select
        self.tables: dict[str, exp.Table] = {}
        for alias, source in sources.items():
            if isinstance(source, exp.Table) and source.name.lower() in tables:
                self.tables[alias] = source
        self.lookup = tables
        self.columns = [n for n in walk_in_scope(select) if isinstance(n, exp.Column) and not isinstance(
            n.this, exp.Star)]
        self.outputs = {e.alias_or_name.lower() for e in select.expressions if isinstance(e, exp.Alias)}

    def table_of(self, alias: str) -> str:
        return self.tables[alias].name.lower()

    def owner(self, column: exp.Column) -> str | None:
        """The alias of the source `column` belongs to, None when unknown, ambiguous or outside."""
        if column.table:
            qualifier = column.table
            if qualifier in self.tables:
                return qualifier
            return next((a for a in self.tables if a.lower() == qualifier.lower()), None)
        if column.name.lower() in self.outputs and _in_order(column):
            return None  # ORDER BY an output name
        owners = [a for a in self.tables if self.lookup[self.table_of(a)].column(column.name) is not None]
        return owners[0] if len(owners) == 1 else None

    def aliases_of(self, table: str) -> list[str]:
        return [a for a in self.tables if self.table_of(a) == table.lower()]

    def qualify(self) -> None:
        """Qualify every resolvable column with its source's alias (before another source joins)."""
        for column in self.columns:
            if not column.table:
                owner = self.owner(column)
                if owner is not None:
                    column.set("table", self.ident(owner))
        star = next((e for e in self.select.expressions if isinstance(e, exp.Star)), None)
        if star is not None:
            index = self.select.expressions.index(star)
            stars = [exp.Column(this=exp.Star(), table=self.ident(a)) for a in self.tables]
            self.select.set("expressions", self.select.expressions[:index] + stars
                            + self.select.expressions[index + 1:])

    def ident(self, alias: str) -> exp.Identifier:
        """The source's own identifier for `alias` (its alias, else its name), quoting as written."""
        node = self.tables.get(alias)
        if node is not None:
            named = node.args.get("alias")
            own = named.this if named is not None and named.this is not None else node.this
            if isinstance(own, exp.Identifier) and own.name == alias:
                return own.copy()
        return exp.to_identifier(alias)

    def fresh_alias(self, name: str) -> str:
        taken = {a.lower() for a in self.tables} | {t.name.lower() for t in self.tables.values()}
        candidate, n = name, 2
        while candidate.lower() in taken:
            candidate, n = f"{name}_{n}", n + 1
        return candidate


def _in_order(column: exp.Column) -> bool:
    return column.find_ancestor(exp.Order, exp.Select) is not None and isinstance(
        column.find_ancestor(exp.Order, exp.Select), exp.Order)


def _ident(name: str) -> exp.Identifier:
    """Names the rewrite writes are quoted (a column may be called `rank` or `order`)."""
    return exp.Identifier(this=name, quoted=True)


def _spelled(tables: dict[str, TableInfo], table: str, column: str) -> str:
    found = tables[table.lower()].column(column) if table.lower() in tables else None
    return found.name if found is not None else column


def _split(view: _View, mappings: Sequence[Mapping], tables: dict[str, TableInfo]) -> bool:
    first = mappings[0]
    if first.other_table.lower() not in tables:
        return False
    wanted = {m.column.lower(): m for m in mappings if m.column}
    changed = False
    for alias in view.aliases_of(first.table):
        refs = [c for c in view.columns if view.owner(c) == alias and c.name.lower() in wanted]
        if not refs:
            continue
        view.qualify()
        joined = view.fresh_alias(first.other_table)
        for ref in refs:
            mapping = wanted[ref.name.lower()]
            ref.set("table", _ident(joined))
            ref.set("this", _ident(_spelled(tables, first.other_table, mapping.other_column or ref.name)))
        condition = exp.and_(*[exp.EQ(this=exp.column(_ident(theirs), _ident(joined)),
                                      expression=exp.column(_ident(_spelled(tables, first.table, ours)),
                                                            view.ident(alias)))
                               for ours, theirs in first.key])
        table = exp.Table(this=_ident(first.other_table))
        if joined != first.other_table:
            table.set("alias", exp.TableAlias(this=_ident(joined)))
        view.select.join(table, on=condition, copy=False)
        view.tables[joined] = table
        changed = True
    return changed


def _unsplit(view: _View, mappings: Sequence[Mapping], tables: dict[str, TableInfo]) -> bool:
    """Columns read from a split-off table S, read from its base table T instead."""
    first = mappings[0]  # table = S, other_table = T
    wanted = {m.column.lower(): m for m in mappings if m.column}
    changed = False
    for alias in view.aliases_of(first.table):
        refs = [c for c in view.columns if view.owner(c) == alias and c.name.lower() in wanted]
        if not refs:
            continue
        join = next((j for j in view.select.args.get("joins") or [] if j.this is view.tables[alias]), None)
        base = _joined_base(view, join, alias, first) if join is not None else None
        if base is not None:
            view.qualify()
            for ref in refs:
                ref.set("table", view.ident(base))
                ref.set("this", _ident(_spelled(tables, first.other_table, wanted[ref.name.lower()].other_column
                                                or ref.name)))
            on = join.args.get("on")
            rest = [c for c in view.columns if view.owner(c) == alias and (on is None or not _inside(c, on))]
            if not rest:
                join.pop()
                del view.tables[alias]
            changed = True
        elif join is None and len(view.tables) == 1:
            changed |= _swap_table(view, alias, first.other_table)
    return changed


def _joined_base(view: _View, join: exp.Join, alias: str, mapping: Mapping) -> str | None:
    """The alias of the base table the split table is joined to on its key, if any."""
    on = join.args.get("on")
    if on is None:
        return None
    for other in view.aliases_of(mapping.other_table):
        pairs = {(a.lower(), b.lower()) for a, b in mapping.key}
        found = set()
        for eq in on.find_all(exp.EQ):
            left, right = eq.this, eq.expression
            if isinstance(left, exp.Column) and isinstance(right, exp.Column):
                sides = {view.owner(left): left.name.lower(), view.owner(right): right.name.lower()}
                if alias in sides and other in sides:
                    found.add((sides[alias], sides[other]))
        if found and found <= pairs | {(b, a) for a, b in pairs}:
            return other
    return None


def _inside(node: exp.Expression, ancestor: exp.Expression) -> bool:
    parent = node
    while parent is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False


def _aggregate(view: _View, mappings: Sequence[Mapping], tables: dict[str, TableInfo]) -> bool:
    """AGG(t.x) -> a.agg_x with FROM t -> FROM a, when every other column read from t is in a too."""
    first = mappings[0]
    target = tables.get(first.other_table.lower())
    if target is None or not first.column:
        return False
    by_function = {m.function: m for m in mappings}
    changed = False
    for alias in view.aliases_of(first.table):
        calls = []
        for node in walk_in_scope(view.select):
            function = _FUNCTIONS.get(type(node))
            argument = node.this if function else None
            if (function in by_function and isinstance(argument, exp.Column) and view.owner(argument) == alias
                    and argument.name.lower() == first.column.lower()):
                calls.append((node, by_function[function]))
        if not calls:
            continue
        inside = {id(c) for node, _ in calls for c in node.find_all(exp.Column)}
        rest = [c for c in view.columns if view.owner(c) == alias and id(c) not in inside]
        if any(target.column(c.name) is None for c in rest):
            continue  # the aggregate table lacks a column the statement also reads
        view.qualify()
        for node, mapping in calls:
            qualifier = node.this.args.get("table")
            node.replace(exp.Column(this=_ident(_spelled(tables, mapping.other_table, mapping.other_column or "")),
                                    table=qualifier.copy() if qualifier is not None else None))
        _swap_table(view, alias, first.other_table)
        changed = True
    return changed


def _unaggregate(view: _View, mappings: Sequence[Mapping], tables: dict[str, TableInfo]) -> bool:
    """a.agg_x -> AGG(t.x) with FROM a -> FROM t, when every other column read from a is in t too."""
    first = mappings[0]  # table = A, column = agg column, other_table = T, other_column = x
    base = tables.get(first.other_table.lower())
    if base is None:
        return False
    by_column = {m.column.lower(): m for m in mappings if m.column}
    changed = False
    for alias in view.aliases_of(first.table):
        refs = [c for c in view.columns if view.owner(c) == alias and c.name.lower() in by_column]
        if not refs:
            continue
        ids = {id(c) for c in refs}
        rest = [c for c in view.columns if view.owner(c) == alias and id(c) not in ids]
        if any(base.column(c.name) is None for c in rest):
            continue
        view.qualify()
        for ref in refs:
            mapping = by_column[ref.name.lower()]
            column = exp.Column(this=_ident(_spelled(tables, mapping.other_table, mapping.other_column or "")),
                                table=ref.args.get("table"))
            ref.replace(_BUILD[mapping.function or "sum"](this=column))
        _swap_table(view, alias, first.other_table)
        changed = True
    return changed


def _twin(view: _View, mapping: Mapping, tables: dict[str, TableInfo]) -> bool:
    if mapping.other_table.lower() not in tables:
        return False
    changed = False
    for alias in view.aliases_of(mapping.table):
        changed |= _swap_table(view, alias, mapping.other_table)
    return changed


def _column(view: _View, mappings: Sequence[Mapping]) -> bool:
    changed = False
    for mapping in mappings:
        for alias in view.aliases_of(mapping.table):
            for ref in [c for c in view.columns if view.owner(c) == alias
                        and c.name.lower() == (mapping.column or "").lower()]:
                ref.set("this", _ident(mapping.other_column or ref.name))
                changed = True
    return changed


def _swap_table(view: _View, alias: str, new_table: str) -> bool:
    """FROM old [AS alias] -> FROM new [AS alias]; qualifiers naming the old table follow it."""
    node = view.tables[alias]
    old = node.name
    explicit = bool(node.alias)
    node.set("this", _ident(new_table))
    node.set("db", None)
    node.set("catalog", None)
    if not explicit:
        for column in walk_in_scope(view.select):
            if isinstance(column, exp.Column) and column.table and column.table.lower() == old.lower():
                column.set("table", _ident(new_table))
    return True
