"""Rewrites through split-off columns, twin tables and duplicate columns (`archetypes.mappings`), one SELECT
scope at a time.

* split    T.c read through the split-off table S: S joined on the key, or the join already there reused.
* unsplit  S.c read from T itself: through the T already joined to S on the key (then S's join, or S as the
           FROM table, is dropped), else S swapped for T. A statement that joins S only to filter T's rows
           (reads nothing from it) gets the reading without that join.
"""
from __future__ import annotations

from collections.abc import Sequence

from sqlglot import exp

from adapters.schema import TableInfo
from archetypes.mappings import Mapping
from archetypes.rewrite_view import Record, View, drop_source, ident, inside, spelled, swap_table


def split(view: View, mappings: Sequence[Mapping], tables: dict[str, TableInfo], record: Record) -> bool:
    first = mappings[0]  # table = T, other_table = S
    if first.other_table.lower() not in tables:
        return False
    wanted = {m.column.lower(): m for m in mappings if m.column}
    changed = False
    for alias in view.aliases_of(first.table):
        refs = [c for c in view.owned(alias) if c.name.lower() in wanted]
        if not refs:
            continue
        view.qualify()
        joined = next((s for s in view.aliases_of(first.other_table)
                       if view.link(alias, s, first.key) is not None), None)
        if joined is None:
            joined = _join(view, alias, first, tables)
        for ref in refs:
            mapping = wanted[ref.name.lower()]
            ref.set("table", view.ident(joined))
            ref.set("this", ident(spelled(tables, first.other_table, mapping.other_column or ref.name)))
            record.use(mapping)
        changed = True
    return changed


def _join(view: View, alias: str, mapping: Mapping, tables: dict[str, TableInfo]) -> str:
    joined = view.fresh_alias(mapping.other_table)
    condition = exp.and_(*[exp.EQ(this=exp.column(ident(theirs), ident(joined)),
                                  expression=exp.column(ident(spelled(tables, mapping.table, ours)), view.ident(alias)))
                           for ours, theirs in mapping.key])
    table = exp.Table(this=ident(mapping.other_table))
    if joined != mapping.other_table:
        table.set("alias", exp.TableAlias(this=ident(joined)))
    view.select.join(table, on=condition, copy=False)
    view.tables[joined] = table
    return joined


def unsplit(view: View, mappings: Sequence[Mapping], tables: dict[str, TableInfo], record: Record) -> bool:
    """Columns read from a split-off table S, read from its base table T instead."""
    first = mappings[0]  # table = S, other_table = T, key = (S column, T column) pairs
    if first.other_table.lower() not in tables:
        return False
    wanted = {m.column.lower(): m for m in mappings if m.column}
    keys = {a.lower(): b for a, b in first.key}
    changed = False
    for alias in list(view.aliases_of(first.table)):
        refs = [c for c in view.owned(alias) if c.name.lower() in wanted]
        base = next((b for b in view.aliases_of(first.other_table) if view.link(alias, b, first.key) is not None),
                    None)
        if base is None:
            if refs:
                view.qualify()
                for ref in refs:
                    ref.set("this", ident(spelled(tables, first.other_table, wanted[ref.name.lower()].other_column
                                                  or ref.name)))
                    record.use(wanted[ref.name.lower()])
                changed |= swap_table(view, alias, first.other_table)
            continue
        link = view.link(alias, base, first.key)
        on = link.args.get("on") if link is not None else None
        view.qualify()
        for column in [c for c in view.owned(alias) if not inside(c, on)]:
            name = column.name.lower()
            target = wanted[name].other_column if name in wanted else keys.get(name, column.name)
            column.set("table", view.ident(base))
            column.set("this", ident(spelled(tables, first.other_table, target or column.name)))
            if name in wanted:
                record.use(wanted[name])
        drop_source(view, alias, base)
        if not refs:
            record.dropped.append(first.table)
        changed = True
    return changed


def twin(view: View, mapping: Mapping, tables: dict[str, TableInfo], record: Record) -> bool:
    if mapping.other_table.lower() not in tables:
        return False
    changed = False
    for alias in view.aliases_of(mapping.table):
        changed |= swap_table(view, alias, mapping.other_table)
        record.use(mapping)
    return changed


def column(view: View, mappings: Sequence[Mapping], record: Record) -> bool:
    changed = False
    for mapping in mappings:
        for alias in view.aliases_of(mapping.table):
            for ref in [c for c in view.owned(alias) if c.name.lower() == (mapping.column or "").lower()]:
                ref.set("this", ident(mapping.other_column or ref.name))
                record.use(mapping)
                changed = True
    return changed
