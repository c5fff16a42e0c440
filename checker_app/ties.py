"""Ties at the top of a result: which rows share the winning figure, and whether the tie may go on past the
rows returned (no streamlit here; the answer summary and the verdict both ask).

A ranking is ordered by its figure and cut at a LIMIT, and the engine breaks ties by whatever comes next in
the ORDER BY (a name, a key). On Chinook 256 tracks sell 2 units each: "the top-selling track" by units is
no one track, and the first of them is only first in the alphabet. So the rows that share the first row's
figure (or, in rows listed in no figure order, the largest figure) are the winners together; when every
row returned shares it and the statement's LIMIT (or the row cap) is what stopped the rows, more rows may
share it too, and all that can be said is "at least N".
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from adapters import RunResult
from adapters.results import is_number, same_value


@dataclass(frozen=True)
class Tie:
    """The rows at the top: their indexes in row order (one when nothing ties) and whether more rows than
    those returned may share the figure."""

    rows: tuple[int, ...]
    open: bool = False

    @property
    def tied(self) -> bool:
        return len(self.rows) > 1

    def count_words(self) -> str:
        """"8" or "at least 10"."""
        return f"at least {len(self.rows)}" if self.open else str(len(self.rows))


def _figure(value: Any) -> float | None:
    return float(value) if is_number(value) else None


def ordered(values: Sequence[float | None]) -> bool:
    """The rows come ordered by the figure, either way (a ranking lowest first included)."""
    known = [float("-inf") if v is None else v for v in values]
    pairs = list(zip(known, known[1:]))
    return all(a >= b for a, b in pairs) or all(a <= b for a, b in pairs)


def top_tie(rows: Sequence[Sequence[Any]], column: int | None, result: RunResult | None = None) -> Tie:
    """The rows sharing the top figure of `column`: the first row's in rows ordered by it, else the largest.
    `result` (the statement that returned the rows) says whether a tie of every row may go on past them."""
    if column is None or not rows:
        return Tie((0,) if rows else ())
    values = [_figure(r[column]) if column < len(r) else None for r in rows]
    if ordered(values):
        top = values[0]
    else:
        top = max((v for v in values if v is not None), default=None)
    if top is None:
        return Tie((0,))
    at = tuple(i for i, v in enumerate(values) if v is not None and same_value(v, top))
    if ordered(values):  # ordered: the tie is the run of rows from the first
        run = 0
        while run < len(at) and at[run] == run:
            run += 1
        at = at[:run]
    return Tie(at, open=len(at) > 1 and len(at) == len(rows) and (result is None or may_continue(result)))


def may_continue(result: RunResult) -> bool:
    """Whether rows past those returned may exist: the row cap cut them, or the statement's own top-level
    LIMIT (or FETCH FIRST) is filled; a statement that cannot be read is taken as cut (the cautious side)."""
    if result.truncated:
        return True
    try:
        tree = sqlglot.parse_one(result.sql, read=result.dialect or None)
    except (SqlglotError, ValueError):
        return True
    limit = tree.args.get("limit") if isinstance(tree, exp.Query) else None
    if limit is None:
        return False
    count = limit.expression if isinstance(limit, exp.Limit) else limit.args.get("count")
    if isinstance(count, exp.Literal) and count.is_int:
        return len(result.rows) >= int(count.name)
    return True
