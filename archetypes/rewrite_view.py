"""One SELECT scope as the schema-mapping rewrites see it (`archetypes.rewrite_split`, `rewrite_aggregate`).

A column belongs to the table of its qualifier, or, unqualified, to the one source of the scope that has the
column (schema lookup; an ambiguous or unknown column is left as written). `Record` collects what a rewrite
did, so an alternative's label names only the mappings the statement reads.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.optimizer.scope import walk_in_scope

from adapters.schema import TableInfo
from archetypes.mappings import Mapping


@dataclass
class Record:
    """What one rewrite did: the mappings it read through, the joins it dropped."""

    used: list[Mapping] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)

    def use(self, mapping: Mapping) -> None:
        if mapping not in self.used:
            self.used.append(mapping)


class View:
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
        if column.name.lower() in self.outputs and in_order(column):
            return None  # ORDER BY an output name
        owners = [a for a in self.tables if self.lookup[self.table_of(a)].column(column.name) is not None]
        return owners[0] if len(owners) == 1 else None

    def owned(self, alias: str) -> list[exp.Column]:
        return [c for c in self.columns if self.owner(c) == alias]

    def aliases_of(self, table: str) -> list[str]:
        return [a for a in self.tables if self.table_of(a) == table.lower()]

    def starred(self, alias: str) -> bool:
        """`*` or `alias.*` reads every column of the source."""
        for e in self.select.expressions:
            if isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this, exp.Star) and (
                    not e.table or self.owner(exp.column("x", e.table)) == alias):
                return True
        return False

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

    def join_of(self, alias: str) -> exp.Join | None:
        return next((j for j in self.select.args.get("joins") or [] if j.this is self.tables.get(alias)), None)

    def link(self, first: str, second: str, key: Iterable[tuple[str, str]]) -> exp.Join | None:
        """The inner join that links `first` and `second` on `key` (pairs of their columns) and on nothing
        else; None when they are not joined that way."""
        pairs = {(a.lower(), b.lower()) for a, b in key}
        for join in (self.join_of(first), self.join_of(second)):
            if join is None or join.args.get("on") is None or join.side or join.kind and join.kind.upper() != "INNER":
                continue
            on = join.args["on"]
            found: set[tuple[str, str]] = set()
            for part in conjuncts(on):
                if not (isinstance(part, exp.EQ) and isinstance(part.this, exp.Column)
                        and isinstance(part.expression, exp.Column)):
                    found = set()
                    break
                sides = {self.owner(part.this): part.this.name.lower(),
                         self.owner(part.expression): part.expression.name.lower()}
                if first not in sides or second not in sides:
                    found = set()
                    break
                found.add((sides[first], sides[second]))
            if found and found <= pairs:
                return join
        return None


def conjuncts(condition: exp.Expr) -> list[exp.Expr]:
    """`a AND b AND c` as [a, b, c] (parentheses around the whole are looked through)."""
    while isinstance(condition, exp.Paren):
        condition = condition.this
    if isinstance(condition, exp.And):
        return conjuncts(condition.this) + conjuncts(condition.expression)
    return [condition]


def in_order(column: exp.Column) -> bool:
    return isinstance(column.find_ancestor(exp.Order, exp.Select), exp.Order)


def ident(name: str) -> exp.Identifier:
    """Names the rewrite writes are quoted (a column may be called `rank` or `order`)."""
    return exp.Identifier(this=name, quoted=True)


def spelled(tables: dict[str, TableInfo], table: str, column: str) -> str:
    found = tables[table.lower()].column(column) if table.lower() in tables else None
    return found.name if found is not None else column


def inside(node: exp.Expr, ancestor: exp.Expr | None) -> bool:
    parent: exp.Expr | None = node
    while parent is not None and ancestor is not None:
        if parent is ancestor:
            return True
        parent = parent.parent
    return False


def swap_table(view: View, alias: str, new_table: str) -> bool:
    """FROM old [AS alias] -> FROM new [AS alias]; qualifiers naming the old table follow it."""
    node = view.tables[alias]
    old = node.name
    explicit = bool(node.alias)
    node.set("this", ident(new_table))
    node.set("db", None)
    node.set("catalog", None)
    if not explicit:
        for column in walk_in_scope(view.select):
            if isinstance(column, exp.Column) and column.table and column.table.lower() == old.lower():
                column.set("table", ident(new_table))
    return True


def drop_source(view: View, alias: str, base: str) -> None:
    """Remove source `alias`, joined to `base`: its join, or, when it is the FROM table, put `base` (and the
    rest of base's join, dropped) in its place."""
    own = view.join_of(alias)
    if own is not None:
        own.pop()
    else:
        base_join = view.join_of(base)
        if base_join is not None:
            base_join.pop()
            view.tables[alias].replace(view.tables[base])
    del view.tables[alias]
