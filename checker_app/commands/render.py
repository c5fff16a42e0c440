"""Plain-text rendering of run results for the terminal."""
from __future__ import annotations

from adapters import RunResult
from adapters.results import json_value

MAX_CELL = 40
MAX_ROWS_SHOWN = 20


def _cell(value: object) -> str:
    text = "NULL" if value is None else str(json_value(value))
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def table_text(columns: list[str], rows: list[list[object]], limit: int = MAX_ROWS_SHOWN) -> str:
    shown = [[_cell(v) for v in row] for row in rows[:limit]]
    widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(columns)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(columns, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in shown]
    if len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more rows")
    return "\n".join(lines)


def result_text(result: RunResult) -> str:
    head = f"[{result.engine}] {result.status} in {result.elapsed_ms:.0f} ms"
    if result.ok:
        head += f", {result.row_count} row(s)" + (" (truncated)" if result.truncated else "")
        body = table_text(result.columns, result.rows) if result.columns else ""
    else:
        err = result.error
        body = f"{err.kind} ({err.code or 'no code'}): {err.message}" if err else ""
    for repair in result.repairs:
        body += f"\nrepair: {repair.get('rule', '')} -> {repair.get('sql', '')}"
    return head + ("\n" + body if body else "")
