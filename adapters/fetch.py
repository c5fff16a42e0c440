"""Fetch a result incrementally, bounded in rows and bytes.

The row cap bounds rows, not bytes: `SELECT repeat('x', 1000000) FROM generate_series(1, 100000)` is a
few bytes of SQL and gigabytes of answer. So rows are read a batch at a time from a streaming cursor
(psycopg's single-row `stream`, pymysql's unbuffered `SSCursor`, SQLite's stepping cursor), long cells
are cut with a marker, and reading stops at a byte budget; the result says why it was cut.
"""
from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

RESULT_BUDGET_BYTES = 16 * 1024 * 1024   # per result
CELL_LIMIT_CHARS = 64 * 1024             # per cell: longer texts and blobs are cut with a marker
BATCH_ROWS = 100


@dataclass
class Fetched:
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    truncated_reason: str | None = None
    complete: bool = True    # False: reading stopped early, the driver still holds unread rows


def cell_marker(size: int) -> str:
    return f"…[cut: {size:,} in all]"


def _bounded_cell(value: Any) -> tuple[Any, int, bool]:
    """(value, its approximate size in bytes, whether it was cut)."""
    if isinstance(value, str):
        if len(value) > CELL_LIMIT_CHARS:
            return value[:CELL_LIMIT_CHARS] + cell_marker(len(value)) + " characters", CELL_LIMIT_CHARS, True
        return value, len(value), False
    if isinstance(value, (bytes, bytearray, memoryview)):
        data = bytes(value)
        if len(data) > CELL_LIMIT_CHARS:
            return data[:CELL_LIMIT_CHARS], CELL_LIMIT_CHARS, True
        return data, len(data), False
    return value, 16, False


def bounded_rows(batches: Iterator[list[Any]], row_cap: int, budget: int = RESULT_BUDGET_BYTES) -> Fetched:
    """Read rows from `batches` until the cap (plus the one row that says there were more) or the budget."""
    fetched = Fetched()
    used, cut, reasons = 0, False, []
    for batch in batches:
        for row in batch:
            cells = [_bounded_cell(v) for v in row]
            cut = cut or any(c[2] for c in cells)
            used += sum(c[1] for c in cells) + 8
            fetched.rows.append([c[0] for c in cells])
            if len(fetched.rows) > row_cap:
                reasons.append(f"more than {row_cap:,} rows (the row cap)")
                break
            if used > budget:
                reasons.append(f"the result passed {budget // (1024 * 1024)} MB (the byte budget)")
                fetched.complete = False
                break
        else:
            continue
        break
    if cut:
        reasons.append(f"cells longer than {CELL_LIMIT_CHARS:,} characters were cut")
    fetched.truncated_reason = "; ".join(reasons) or None
    return fetched


def batches_of(cursor: Any, size: int = BATCH_ROWS) -> Iterator[list[Any]]:
    while True:
        rows = cursor.fetchmany(size)
        if not rows:
            return
        yield [list(r) for r in rows]


def stream_batches(rows: Iterator[Any], size: int = BATCH_ROWS) -> Iterator[list[Any]]:
    batch: list[Any] = []
    for row in rows:
        batch.append(list(row))
        if len(batch) >= size:
            yield batch
            batch = []
    if batch:
        yield batch
