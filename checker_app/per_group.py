"""Top N per group results ('top 3 products per category'): the answer is the set of (group, row) pairs, not
the figures and not the largest row (no streamlit here; the verdict and the answer summary both ask).

The statement (``archetypes.top_per_group``) lists per row its group's columns, the ranked row's label, the
figure, ``rank_in_group`` (ROW_NUMBER: ties broken by key) and ``tied_in_group`` (how many rows of the group
share that figure). When more rows share the figure at the cut than are shown, the group's last rows are one
pick of a tie: only the rows above the tie are known to be the answer, so two readings are told apart on those.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from adapters import RunResult
from adapters.results import comparable, same_value
from archetypes.top_per_group import RANK_COLUMN, TIED_COLUMN


@dataclass(frozen=True)
class GroupTop:
    """One group's rows: the labels shown, those above the figure at the cut (known to be in the answer), and
    whether the tie at the cut goes on past the rows shown."""

    shown: frozenset[Any]
    certain: frozenset[Any]
    open: bool = False
    unshown: int = 0          # rows of the group sharing the figure at the cut that are not shown


def is_per_group(result: RunResult) -> bool:
    columns = [c.lower() for c in result.columns]
    return RANK_COLUMN in columns and TIED_COLUMN in columns and columns.index(TIED_COLUMN) >= 3


def groups(result: RunResult) -> dict[tuple[Any, ...], GroupTop]:
    """{group: its rows}, keyed by the group's columns (its name)."""
    columns = [c.lower() for c in result.columns]
    rank, tied = columns.index(RANK_COLUMN), columns.index(TIED_COLUMN)
    figure, label = rank - 1, rank - 2
    rows: dict[tuple[Any, ...], list[Sequence[Any]]] = {}
    for row in result.rows:
        rows.setdefault(tuple(comparable(v) for v in row[:label]), []).append(row)
    out: dict[tuple[Any, ...], GroupTop] = {}
    for key, members in rows.items():
        last = max(members, key=lambda r: r[rank])
        at_cut = [r for r in members if same_value(r[figure], last[figure])]
        shown = frozenset(comparable(r[label]) for r in members)
        sharing = int(last[tied]) if last[tied] is not None else len(at_cut)
        if sharing > len(at_cut):
            certain = frozenset(comparable(r[label]) for r in members if not same_value(r[figure], last[figure]))
            out[key] = GroupTop(shown, certain, True, sharing - len(at_cut))
        else:
            out[key] = GroupTop(shown, shown)
    return out


def _same_group(a: GroupTop, b: GroupTop) -> bool | None:
    if not a.open and not b.open:
        return a.shown == b.shown
    if len(a.shown) != len(b.shown):
        return False
    if a.open and b.open:
        return None  # both picked from a tie: which rows the ties hold is not known
    shown, closed = (a, b) if a.open else (b, a)
    return None if shown.certain <= closed.shown else False


def same_answer(a: dict[tuple[Any, ...], GroupTop], b: dict[tuple[Any, ...], GroupTop]) -> bool | None:
    """True or False when the rows decide it: the same groups with the same rows in each; None when a tie at
    a cut leaves it open (the rows above the ties agree)."""
    if set(a) != set(b):
        return False
    verdicts = [_same_group(a[k], b[k]) for k in a]
    if any(v is False for v in verdicts):
        return False
    return None if any(v is None for v in verdicts) else True


def open_ties(result: RunResult) -> int:
    """How many groups end in a tie that goes on past the rows shown."""
    return sum(g.open for g in groups(result).values())
