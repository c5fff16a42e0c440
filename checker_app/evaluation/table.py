"""Score tables as text, once for every evaluation (gold answers, labelled archetypes, AmbiQT, the model's).

A share is None when there is nothing to divide by (printed "-", never 0.00), so an empty group never
reads as a score of zero.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# the gold-answer figures, in the order of their columns (keys of evaluation.gold.Scores.to_dict)
GOLD_COLUMNS = (("cases", "cases"), ("gold found", "gold_found"), ("all found", "all_found"),
                ("precision", "precision"), ("false clear", "false_clear"), ("partial", "partial"))


def share(part: float, whole: int, digits: int | None = None) -> float | None:
    """part / whole (rounded to `digits` when given), None when whole is 0."""
    if not whole:
        return None
    return part / whole if digits is None else round(part / whole, digits)


def figure(value: float | None) -> str:
    """A share as printed: two decimals, "-" when there was nothing to count."""
    return "-" if value is None else f"{value:.2f}"


def text_table(rows: Sequence[Sequence[str]]) -> list[str]:
    """A header row and its rows aligned: the first column to the left, the figures to the right, a rule under
    the header."""
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines


def gold_header(width: int = 22) -> str:
    """The gold-answer table's header; its rows are `gold_row`, in fixed columns so sections line up."""
    return " ".join([" " * width] + [title.rjust(max(len(title), 5)) for title, _ in GOLD_COLUMNS])


def gold_row(name: str, figures: Mapping[str, Any], width: int = 22) -> str:
    cells = [str(figures[key]) if key == "cases" else figure(figures[key]) for _, key in GOLD_COLUMNS]
    return " ".join([name.ljust(width)] + [c.rjust(max(len(title), 5)) for c, (title, _) in zip(cells, GOLD_COLUMNS)])
