"""The median of what a mean would average: each row's value ('median track length') or each parent row's total
('median order value': the lines of each order added up, then the middle order).

Written with ROW_NUMBER() and COUNT(*) windows so it is the same statement on the three engines (SQLite has no
MEDIAN, MariaDB's is a window function, PostgreSQL's an ordered-set aggregate): the values ranked within their
group, and the one in the middle kept, or the two middle ones averaged when their number is even
(`2 * rn IN (n, n + 1, n + 2)`, integers only, so no engine's division rules matter).
"""
from __future__ import annotations

from sqlglot import exp

from archetypes.naming import phrase, slug
from archetypes.profile import SchemaProfile
from archetypes.query import QuerySpec, ident, measure_aggregate, per_key, prepare

_NOT_COMPUTED = "a median of this figure is not computed by the rules yet"


def median_column(spec: QuerySpec) -> str:
    name = spec.measure.value if spec.measure else "value"
    if spec.per_table:
        return f"median_{name}_per_{slug(phrase(spec.per_table))}"
    return f"median_{name}"


def computable(spec: QuerySpec) -> bool:
    """A mean of row values or of per-parent totals, over plain rows: what a median replaces."""
    averaged = spec.agg == "avg" and spec.measure is not None and \
        spec.measure.kind in ("product", "sum", "expression")
    per_parent = spec.per_table is not None and not spec.per_all and spec.agg is None
    plain = spec.shape == "aggregate" and not (spec.grain or spec.period_mean or spec.having is not None or
                                               spec.currency_mode == "per" or spec.also_by or spec.partition or
                                               spec.sides or spec.query is not None)
    return plain and spec.fact is not None and (averaged or per_parent)


def build_median(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """The statement, or None with a note when the reading's figure is not one a median can replace."""
    if not computable(spec):
        spec.notes.append(_NOT_COMPUTED)
        spec.invalid = True
        return None
    assert spec.measure is not None  # computable() checked it
    prepared = prepare(spec, profile)
    if prepared is None:
        return None
    source = prepared.source
    carried: list[tuple[exp.Expr, str]] = []
    if prepared.group_expr is not None:
        carried.append((prepared.group_expr, "g"))
        if prepared.group_key is not None:
            carried.append((prepared.group_key, "gk"))
    value: exp.Expr = prepared.value
    keys: list[exp.Expr] = []
    if spec.per_table:
        key = per_key(spec.per_table, source, profile)
        if key is None:
            spec.notes.append(f"{spec.per_table} cannot be reached from {source.root}: no median per it")
            spec.invalid = True
            return None
        keys.append(key)
        value = measure_aggregate(spec.measure, value)  # each parent's own total, or count ('tracks per album')
    inner = source.select.select(*[exp.alias_(e.copy(), name, quoted=True) for e, name in carried],
                                 exp.alias_(value, "v", quoted=True), copy=False)
    for condition in prepared.where:
        inner = inner.where(condition, copy=False)
    if not spec.per_table:
        inner = inner.where(exp.Not(this=exp.Is(this=prepared.value.copy(), expression=exp.Null())), copy=False)
    if keys:
        inner = inner.group_by(*[e.copy() for e, _ in carried], *keys, copy=False)

    def named(name: str) -> exp.Column:
        return exp.column(name, quoted=True)

    partition = [named(name) for _, name in carried]
    number = exp.Window(this=exp.RowNumber(), partition_by=[p.copy() for p in partition],
                        order=exp.Order(expressions=[exp.Ordered(this=named("v"))]))
    size = exp.Window(this=exp.Count(this=exp.Star()), partition_by=[p.copy() for p in partition])
    ranked = exp.select(*[p.copy() for p in partition], named("v"), exp.alias_(number, "rn", quoted=True),
                        exp.alias_(size, "n", quoted=True)).from_(
        exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("m0"))), copy=False)
    if spec.per_table:
        ranked = ranked.where(exp.Not(this=exp.Is(this=named("v"), expression=exp.Null())), copy=False)

    twice = exp.Mul(this=exp.Literal.number(2), expression=named("rn"))
    middle = exp.In(this=twice, expressions=[named("n"), exp.Add(this=named("n"), expression=exp.Literal.number(1)),
                                             exp.Add(this=named("n"), expression=exp.Literal.number(2))])
    metric = median_column(spec)
    outputs: list[exp.Expr] = []
    if spec.group is not None and carried:
        outputs.append(exp.alias_(named("g"), slug(spec.group.noun), quoted=True))
    query = exp.select(*outputs, exp.alias_(exp.Avg(this=named("v")), metric, quoted=True)).from_(
        exp.Subquery(this=ranked, alias=exp.TableAlias(this=ident("m1"))), copy=False).where(middle, copy=False)
    if partition:
        query = query.group_by(*[p.copy() for p in partition], copy=False)
        if spec.limit:
            query = query.order_by(exp.Ordered(this=exp.column(metric, quoted=True), desc=not spec.ascending),
                                   *[exp.Ordered(this=p.copy()) for p in partition], copy=False).limit(spec.limit)
        else:
            query = query.order_by(*[p.copy() for p in partition], copy=False)
    return query
