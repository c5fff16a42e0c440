"""Top N per group: a ranking of one entity's rows within each row of another ('top 3 albums per genre',
'best selling track in each genre', 'biggest spender in each country').

One statement, the same on SQLite, PostgreSQL and MariaDB (all three have window functions):

* the fact's rows aggregated per (group, ranked row), by the foreign keys the rows already hold where they
  can (names are joined to the grouped rows afterwards, as ``query._keyed_ranking`` does), with every
  filter, record scope, window and currency treatment of the reading (``query.prepare``);
* ``ROW_NUMBER() OVER (PARTITION BY group key ORDER BY figure DESC, ranked key)`` numbers the rows in each
  group (the key breaks ties the same way on every engine), and ``COUNT(*) OVER (PARTITION BY group key,
  figure)`` says how many rows of the group share each figure, so a tie at the cut can be seen;
* an outer query keeps ``rank_in_group <= N``, listed by group name, then rank.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp

from archetypes.naming import slug
from archetypes.profile import Entity, SchemaProfile
from archetypes.query import (
    QuerySpec,
    _compare,
    _From,
    col,
    ident,
    metric_column,
    metric_expression,
    name_expression,
    prepare,
    table_ref,
)

RANK_COLUMN = "rank_in_group"
TIED_COLUMN = "tied_in_group"


@dataclass
class _Dimension:
    """One side of the ranking (the group, or the rows ranked in it): what the aggregate groups by, and the
    label and key the ranking reads after it (joined by key when the rows hold a foreign key to the entity)."""

    inner: list[tuple[exp.Expr, str]] = field(default_factory=list)
    label: exp.Expr | None = None
    key: exp.Expr | None = None
    join: tuple[exp.Table, exp.Expr] | None = None


def _dimension(entity: Entity, prefix: str, source: _From, profile: SchemaProfile, spec: QuerySpec) -> _Dimension | None:
    fact = spec.fact
    assert fact is not None
    route = profile.path(fact.table, entity.table)
    if route is None:
        spec.notes.append(f"{entity.noun} cannot be reached from {fact.table}; no top rows within it")
        spec.invalid = True
        return None
    out = _Dimension()
    keyed = not entity.column_only and len(entity.key) == 1
    if keyed and route and tuple(route[-1].ref_columns) == tuple(entity.key):
        held = col(route[-1].columns[0], source.alias_for(route[:-1]))
        out.inner.append((held, f"{prefix}_key"))
        alias = prefix
        out.key = col(entity.key[0], alias)
        out.label = name_expression(entity, alias)
        out.join = (table_ref(entity.table, alias), exp.EQ(this=out.key.copy(), expression=col(f"{prefix}_key", "s")))
        return out
    alias = source.alias_for(route)
    out.inner.append((name_expression(entity, alias), f"{prefix}_name"))
    out.label = col(f"{prefix}_name", "s")
    if keyed:
        out.inner.append((col(entity.key[0], alias), f"{prefix}_key"))
        out.key = col(f"{prefix}_key", "s")
    return out


def build_top_per_group(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """The top `spec.limit` (1 when none was asked) rows of `spec.group` within each row of `spec.partition`,
    by the reading's figure, highest first (lowest with `spec.ascending`)."""
    item, within, measure = spec.group, spec.partition, spec.measure
    if item is None or within is None or measure is None or spec.fact is None:
        return None
    prepared = prepare(spec, profile, join_group=False)
    if prepared is None:
        return None
    source = prepared.source
    groups = _dimension(within, "grp", source, profile, spec)
    ranked = _dimension(item, "item", source, profile, spec)
    if groups is None or ranked is None:
        return None
    metric_name = metric_column(spec)
    metric_value = metric_expression(spec, measure, prepared.value, source, profile)
    if metric_value is None:
        return None
    # the aggregate: one row per (group, ranked row); builders with copy=False, the trees are ours (a ranking per
    # currency is no reading: the unit archetype drops it)
    carried = groups.inner + ranked.inner
    inner = source.select.select(*[exp.alias_(e.copy(), name, quoted=True) for e, name in carried],
                                 exp.alias_(metric_value, metric_name, quoted=True), copy=False)
    for condition in prepared.where:
        inner = inner.where(condition, copy=False)
    inner = inner.group_by(*[e.copy() for e, _ in carried], copy=False)
    if spec.having is not None:
        inner = inner.having(_compare(metric_value.copy(), spec.having), copy=False)

    assert groups.label is not None and ranked.label is not None  # set by _dimension
    figure = col(metric_name, "s")
    partition = [(groups.key or groups.label).copy()]
    order: list[exp.Expr] = []
    if spec.per_table or spec.agg:  # a ratio or an average can be NULL: last on every engine
        order.append(exp.Ordered(this=exp.Case(ifs=[exp.If(this=exp.Is(this=figure.copy(), expression=exp.Null()),
                                                            true=exp.Literal.number(1))],
                                               default=exp.Literal.number(0))))
    order += [exp.Ordered(this=figure.copy(), desc=not spec.ascending),
              exp.Ordered(this=(ranked.key or ranked.label).copy())]
    number = exp.Window(this=exp.RowNumber(), partition_by=partition, order=exp.Order(expressions=order))
    sharing = exp.Window(this=exp.Count(this=exp.Star()),
                         partition_by=[p.copy() for p in partition] + [figure.copy()])
    group_name, item_name = slug(within.noun), slug(item.noun)
    if item_name == group_name:
        item_name = f"{item_name}_ranked"
    shown = [(group_name, groups.label), (item_name, ranked.label), (metric_name, figure)]
    middle = exp.select(*[exp.alias_(e.copy(), name, quoted=True) for name, e in shown],
                        exp.alias_(number, RANK_COLUMN, quoted=True), exp.alias_(sharing, TIED_COLUMN, quoted=True)
                        ).from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("s"))), copy=False)
    for side in (ranked, groups):
        if side.join is not None:
            middle = middle.join(side.join[0], on=side.join[1], copy=False)

    names = [name for name, _ in shown] + [RANK_COLUMN, TIED_COLUMN]
    keep = exp.LTE(this=exp.column(RANK_COLUMN, quoted=True), expression=exp.Literal.number(spec.limit or 1))
    listed = [exp.column(group_name, quoted=True), exp.column(RANK_COLUMN, quoted=True)]
    return (exp.select(*[exp.column(name, quoted=True) for name in names])
            .from_(exp.Subquery(this=middle, alias=exp.TableAlias(this=ident("ranked"))), copy=False)
            .where(keep, copy=False)
            .order_by(*listed, copy=False))
