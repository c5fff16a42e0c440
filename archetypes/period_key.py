"""The period a row falls in, as one CASE expression over the calendar's boundaries (no range join).

A series used to join a calendar of [start, end) rows to the fact rows by range, which every engine runs
as a nested loop: periods x rows comparisons. Here each row gets its period's label index from a
balanced tree of comparisons with the same UTC boundaries (``calendar.segments``), about log2(periods)
comparisons per row, and the rows are grouped by that index; the calendar is then joined on equality
to give empty periods their row. Only comparisons and literals are used, so the expression means the
same on SQLite, PostgreSQL and MariaDB, and zones (daylight saving included) stay computed in Python.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence

from sqlglot import exp

Boundary = dt.datetime
Literal = Callable[[Boundary], exp.Expr]


def index_tree(value: exp.Expr, points: Sequence[tuple[Boundary, int | None]], literal: Literal) -> exp.Expr:
    """The label index of `value` given ``calendar.segments`` points (rows before the first boundary or
    after the last are assumed filtered out by the query's own range condition)."""
    stretches = list(points[:-1]) if points and points[-1][1] is None else list(points)
    if not stretches:
        return exp.Null()
    return _tree(value, stretches, 0, len(stretches) - 1, literal)


def _tree(value: exp.Expr, stretches: list[tuple[Boundary, int | None]], low: int, high: int,
          literal: Literal) -> exp.Expr:
    if low == high:
        index = stretches[low][1]
        return exp.Null() if index is None else exp.Literal.number(index)
    middle = (low + high + 1) // 2
    condition = exp.LT(this=value.copy(), expression=literal(stretches[middle][0]))
    return exp.Case(ifs=[exp.If(this=condition, true=_tree(value, stretches, low, middle - 1, literal))],
                    default=_tree(value, stretches, middle, high, literal))


def zoned_index(value: exp.Expr, zone_value: exp.Expr | None,
                trees: dict[str, exp.Expr]) -> exp.Expr:
    """One tree per zone, chosen by the row's zone column (a single zone needs no choice)."""
    if zone_value is None:
        return next(iter(trees.values()))
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=zone_value.copy(), expression=exp.Literal.string(zone)), true=tree)
                         for zone, tree in trees.items()])
