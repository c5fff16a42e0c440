"""Do the readings give different answers? Do the engines agree on one reading?

Answers are compared on normalised rows (adapters.results.comparable). Readings that measure
different things (revenue vs units) are compared on who comes out on top, not on the numbers, which
always differ; readings of the same measure (one window vs another) are compared on every value.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters import RunResult


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def rows_of(result: RunResult) -> tuple[tuple[Any, ...], ...]:
    """Normalised rows in a stable order (ties and missing ORDER BY may order rows differently per engine)."""
    return tuple(sorted(result.answer(), key=repr))


def engines_agree(results: Sequence[RunResult]) -> bool | None:
    """True when every engine that answered gave the same rows; None when fewer than two answered."""
    answered = [r for r in results if r.ok]
    if len(answered) < 2:
        return None
    return len({rows_of(r) for r in answered}) == 1


def identity(result: RunResult) -> tuple[Any, ...]:
    """Who the first row names: its non-numeric values (or the whole row when it has none)."""
    rows = result.answer()
    if not rows:
        return ()
    first = rows[0]
    labels = tuple(v for v in first if not _numeric(v))
    return labels or first


def signature(result: RunResult, by_identity: bool) -> tuple[Any, ...]:
    return identity(result) if by_identity else rows_of(result)


def readings_divergent(results: Sequence[RunResult]) -> tuple[bool | None, int]:
    """(divergent, number of distinct answers) over one result per reading; None below two answers."""
    answered = [r for r in results if r.ok]
    if len(answered) < 2:
        return None, len(answered)
    measures = {tuple(c.lower() for c, v in zip(r.columns, r.answer()[0] if r.answer() else ()) if _numeric(v))
                for r in answered}
    by_identity = len(measures) > 1
    distinct = {signature(r, by_identity) for r in answered}
    return len(distinct) > 1, len(distinct)
