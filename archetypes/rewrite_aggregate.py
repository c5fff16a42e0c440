"""Rewrites through precomputed aggregate tables (`archetypes.mappings`), one SELECT scope at a time.

* aggregate    AGG(t.x) -> a.agg_x, FROM t -> FROM a, each call matched on its function AND its column,
               when every other column the statement reads from t is in a too. GROUP BY and HAVING are
               kept: the precomputed table is not known to hold one row per group (AmbiQT's tables keep
               every base column, keys included, so a group's value can repeat on each of its rows), and
               where it does they change nothing. In a grouped (or otherwise aggregating) statement the
               precomputed column is read as MAX(a.agg_x), the group's value either way, because PostgreSQL
               refuses a bare column that is neither grouped nor aggregated. A statement that also aggregates
               another column of t (AVG(y) with no precomputed avg_y) is not rewritten: over the precomputed
               rows that is another number.
* unaggregate  a.agg_x -> AGG(t.x). In place when `a` is the only source and nothing else aggregates:
               FROM a -> FROM t, the plain columns of SELECT / ORDER BY grouped, conditions on precomputed
               columns moved from WHERE to HAVING. Otherwise (a joined, the statement aggregates itself, a
               precomputed column in GROUP BY, in an aggregate or next to a plain column in one condition)
               `a` becomes a derived table `(SELECT plain..., AGG(x) AS agg_x FROM t GROUP BY plain...)`,
               so no aggregate lands in WHERE / ON / GROUP BY and none is nested in another.
"""
from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp
from sqlglot.optimizer.scope import walk_in_scope

from adapters.schema import TableInfo
from archetypes.mappings import Mapping
from archetypes.rewrite_view import Record, View, conjuncts, drop_source, ident, inside, spelled, swap_table

FUNCTIONS: dict[type, str] = {exp.Max: "max", exp.Min: "min", exp.Avg: "avg", exp.Sum: "sum"}
BUILD: dict[str, type[exp.Func]] = {"max": exp.Max, "min": exp.Min, "avg": exp.Avg, "sum": exp.Sum}


def aggregate(view: View, mappings: Sequence[Mapping], tables: dict[str, TableInfo], record: Record) -> bool:
    """AGG(t.x) -> a.agg_x with FROM t -> FROM a, when every other column read from t is in a too."""
    first = mappings[0]  # table = T, other_table = A
    target = tables.get(first.other_table.lower())
    if target is None:
        return False
    by_key = {(m.function, (m.column or "").lower()): m for m in mappings}
    changed = False
    for alias in view.aliases_of(first.table):
        calls = []
        for node in walk_in_scope(view.select):
            argument = node.this if type(node) in FUNCTIONS else None
            if isinstance(argument, exp.Column) and view.owner(argument) == alias:
                mapping = by_key.get((FUNCTIONS[type(node)], argument.name.lower()))
                if mapping is not None:
                    calls.append((node, mapping))
        if not calls:
            continue
        within = {id(c) for node, _ in calls for c in node.find_all(exp.Column)}
        if any(isinstance(c.find_ancestor(exp.AggFunc, exp.Select), exp.AggFunc) for c in view.owned(alias)
               if id(c) not in within):
            continue  # AVG(y) without a precomputed avg_y: over the precomputed rows it is another number
        partner = _partner(view, alias, first)
        if first.partner and partner is None:
            continue  # built over T joined to P: only a statement that joins them reads the same rows
        link = view.link(alias, partner, first.partner_key) if partner else None
        on = link.args.get("on") if link is not None else None
        rest = [c for a in (alias, partner) if a for c in view.owned(a) if id(c) not in within and not inside(c, on)]
        if any(target.column(c.name) is None for c in rest) or view.starred(alias) or (
                partner and view.starred(partner)):
            continue  # the aggregate table lacks a column the statement also reads
        view.qualify()
        if partner is not None:
            for column in view.owned(partner):
                if not inside(column, on):
                    column.set("table", view.ident(alias))
            drop_source(view, partner, alias)
        aggregated = view.select.args.get("group") is not None or any(
            isinstance(n, exp.AggFunc) and all(n is not node for node, _ in calls) for n in walk_in_scope(view.select))
        for node, mapping in calls:
            qualifier = node.this.args.get("table")
            column = exp.Column(this=ident(spelled(tables, mapping.other_table, mapping.other_column or "")),
                                table=qualifier.copy() if qualifier is not None else None)
            node.replace(exp.Max(this=column) if aggregated else column)
            record.use(mapping)
        swap_table(view, alias, first.other_table)
        changed = True
    return changed


def _partner(view: View, alias: str, mapping: Mapping) -> str | None:
    """The alias of the mapping's partner table joined to `alias` on the partner key."""
    if not mapping.partner:
        return None
    return next((p for p in view.aliases_of(mapping.partner) if view.link(alias, p, mapping.partner_key)), None)


def unaggregate(view: View, mappings: Sequence[Mapping], tables: dict[str, TableInfo], record: Record) -> bool:
    """a.agg_x -> AGG(t.x), in place or through a derived table (see the module docstring)."""
    first = mappings[0]  # table = A, column = agg column, other_table = T, other_column = x
    base = tables.get(first.other_table.lower())
    if base is None:
        return False
    by_column = {(m.column or "").lower(): m for m in mappings}
    changed = False
    for alias in list(view.aliases_of(first.table)):
        refs = [c for c in view.owned(alias) if c.name.lower() in by_column]
        if not refs or view.starred(alias):
            continue
        ids = {id(c) for c in refs}
        plain = [c for c in view.owned(alias) if id(c) not in ids]
        partner = tables.get((first.partner or "").lower())
        if any(base.column(c.name) is None and (partner is None or partner.column(c.name) is None) for c in plain):
            continue
        view.qualify()
        for ref in refs:
            record.use(by_column[ref.name.lower()])
        if not first.partner and _in_place(view, refs, plain):
            _rewrite_in_place(view, alias, refs, plain, by_column, tables, first.other_table)
        else:
            _derive(view, alias, refs, plain, by_column, tables, first)
        changed = True
    return changed


def _in_place(view: View, refs: list[exp.Column], plain: list[exp.Column]) -> bool:
    if len(view.tables) != 1 or view.select.args.get("joins"):
        return False
    if any(isinstance(n, exp.AggFunc) for n in walk_in_scope(view.select)):
        return False  # the statement aggregates over the precomputed rows itself
    group = view.select.args.get("group")
    if any(inside(r, group) or isinstance(r.find_ancestor(exp.AggFunc, exp.Select), exp.AggFunc) for r in refs):
        return False
    where = view.select.args.get("where")
    if where is not None:
        for part in conjuncts(where.this):
            if any(inside(r, part) for r in refs) and any(inside(c, part) for c in plain):
                return False  # one condition on a precomputed and a plain column
    return True


def _rewrite_in_place(view: View, alias: str, refs: list[exp.Column], plain: list[exp.Column],
                      by_column: dict[str, Mapping], tables: dict[str, TableInfo], base: str) -> None:
    select = view.select
    where = select.args.get("where")
    moved: list[exp.Expr] = []
    if where is not None:
        kept: list[exp.Expr] = []
        for part in conjuncts(where.this):
            (moved if any(inside(r, part) for r in refs) else kept).append(part)
        select.set("where", exp.Where(this=exp.and_(*kept)) if kept else None)
    for ref in refs:
        ref.replace(_call(ref, by_column, tables))
    if moved:
        having = select.args.get("having")
        condition = exp.and_(*([having.this] if having is not None else []), *moved)
        select.set("having", exp.Having(this=condition))
    if select.args.get("group") is None:
        in_where = select.args.get("where")
        grouped: dict[str, exp.Column] = {}
        for column in plain:
            if not inside(column, in_where):
                grouped.setdefault(column.name.lower(), column)
        if grouped:
            select.group_by(*[c.copy() for c in grouped.values()], copy=False)
    swap_table(view, alias, base)


def _call(ref: exp.Column, by_column: dict[str, Mapping], tables: dict[str, TableInfo]) -> exp.Expr:
    mapping = by_column[ref.name.lower()]
    qualifier = ref.args.get("table")
    column = exp.Column(this=ident(spelled(tables, mapping.other_table, mapping.other_column or "")),
                        table=qualifier.copy() if qualifier is not None else None)
    return BUILD[mapping.function or "sum"](this=column)


def _derive(view: View, alias: str, refs: list[exp.Column], plain: list[exp.Column],
            by_column: dict[str, Mapping], tables: dict[str, TableInfo], mapping: Mapping) -> None:
    """`a` as `(SELECT plain..., AGG(x) AS agg_x FROM t [JOIN p ON key] GROUP BY plain...)`."""
    base, partner = mapping.other_table, mapping.partner
    names: dict[str, exp.Column] = {}
    for column in plain:
        owner = base if tables[base.lower()].column(column.name) is not None or not partner else partner
        names.setdefault(column.name.lower(), exp.column(ident(spelled(tables, owner, column.name)),
                                                         ident(owner) if partner else None))
    outputs: list[exp.Expr] = [c.copy() for c in names.values()]
    done: set[str] = set()
    for ref in refs:
        each = by_column[ref.name.lower()]
        if ref.name.lower() in done:
            continue
        done.add(ref.name.lower())
        argument = exp.column(ident(spelled(tables, base, each.other_column or "")), ident(base) if partner else None)
        outputs.append(exp.alias_(BUILD[each.function or "sum"](this=argument),
                                  ident(spelled(tables, each.table, ref.name))))
    inner = exp.select(*outputs).from_(exp.Table(this=ident(base)))
    if partner:
        inner = inner.join(exp.Table(this=ident(partner)), on=exp.and_(*[
            exp.EQ(this=exp.column(ident(spelled(tables, base, b)), ident(base)),
                   expression=exp.column(ident(spelled(tables, partner, p)), ident(partner)))
            for b, p in mapping.partner_key]))
    if names:
        inner = inner.group_by(*[c.copy() for c in names.values()])
    node = view.tables.pop(alias)
    node.replace(exp.Subquery(this=inner, alias=exp.TableAlias(this=_alias_ident(node))))


def _alias_ident(node: exp.Table) -> exp.Identifier:
    named = node.args.get("alias")
    own = named.this if named is not None and named.this is not None else node.this
    return own.copy() if isinstance(own, exp.Identifier) else exp.to_identifier(node.alias_or_name)
