"""The result of running one statement on one engine: the adapters' part of the JSON contract."""
from __future__ import annotations

import base64
import datetime as dt
import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any, Literal

from adapters.errors import EngineErrorInfo

Status = Literal["ok", "error", "timeout", "rejected"]


def json_value(value: Any) -> Any:
    """A driver value as plain JSON (Decimal -> float, dates -> ISO text, bytes -> base64)."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() and abs(value) < 2**53 else float(value)
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat(sep=" ") if isinstance(value, dt.datetime) else value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, uuid.UUID):
        return str(value)
    return str(value)


def comparable(value: Any) -> Any:
    """A value as answers are compared: JSON-like, booleans as numbers, timestamps to the second."""
    value = json_value(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, str) and len(value) >= 19 and value[4] == "-" and value[10] in " T":
        return value[:19].replace("T", " ")
    return value


# The one tolerance of answer comparison: floats agree to this relative precision (SQLite sums money as
# floats: 15360815.010000004 is the servers' exact 15360815.01), and an exact decimal is only as
# precise as its type keeps (MariaDB's AVG has 4 decimals): half a unit of its last place.
REL_TOLERANCE = 1e-11  # a cent in a billion; float sums over a million rows drift far less


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float, Decimal)) and not isinstance(value, bool)


def _half_unit(value: Any) -> float:
    """Half a unit in the last decimal place an exact decimal keeps (0 for ints, floats, integral decimals)."""
    if isinstance(value, Decimal) and value.is_finite():
        exponent = value.as_tuple().exponent
        if isinstance(exponent, int) and exponent < 0:
            return 0.5 * 10.0 ** exponent
    return 0.0


def same_value(a: Any, b: Any) -> bool:
    """Do two driver values give the same answer, at the precision of their types?"""
    if is_number(a) and is_number(b):
        x, y = float(a), float(b)
        if not (math.isfinite(x) and math.isfinite(y)):
            return x == y or (math.isnan(x) and math.isnan(y))
        tolerance = max(_half_unit(a), _half_unit(b), REL_TOLERANCE * max(abs(x), abs(y)))
        return abs(x - y) <= tolerance * (1 + 1e-12)
    return comparable(a) == comparable(b)


def same_row(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))


def _order_key(row: Sequence[Any]) -> tuple[Any, ...]:
    # numbers coarsely (nearly equal values sort together), everything else by its text
    return tuple(("n", float(f"{float(v):.6g}")) if is_number(v) else ("s", repr(comparable(v))) for v in row)


def same_rows(a: Sequence[Sequence[Any]], b: Sequence[Sequence[Any]], ordered: bool = False) -> bool:
    """Do two answers hold the same rows (in order when `ordered`, else as a multiset)?"""
    if len(a) != len(b):
        return False
    if ordered:
        return all(same_row(x, y) for x, y in zip(a, b))
    left, right = sorted(a, key=_order_key), sorted(b, key=_order_key)
    if all(same_row(x, y) for x, y in zip(left, right)):
        return True
    if len(a) > 200:  # a near-tie sorted differently on each side: match rows one by one, when affordable
        return False
    unmatched = list(right)
    for row in left:
        match = next((i for i, other in enumerate(unmatched) if same_row(row, other)), None)
        if match is None:
            return False
        unmatched.pop(match)
    return True


@dataclass
class RunResult:
    """One statement on one engine."""

    engine: str
    dialect: str
    sql: str
    status: Status
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    row_count: int = 0
    truncated: bool = False
    truncated_reason: str | None = None   # the row cap, the byte budget, or cells cut
    elapsed_ms: float = 0.0
    error: EngineErrorInfo | None = None
    repairs: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def answer(self) -> tuple[tuple[Any, ...], ...]:
        """The rows as hashable comparable values (exact: compare answers with same_answer, which has the
        tolerance; the AmbiQT evaluation still keys rows by this)."""
        return tuple(tuple(comparable(v) for v in row) for row in self.rows)

    def same_answer(self, other: RunResult, ordered: bool = False) -> bool:
        """Same rows as `other`, at the precision of the values' types (see same_value)."""
        return same_rows(self.rows, other.rows, ordered)

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "dialect": self.dialect,
            "sql": self.sql,
            "status": self.status,
            "columns": list(self.columns),
            "rows": [[json_value(v) for v in row] for row in self.rows],
            "row_count": self.row_count,
            "truncated": self.truncated,
            "truncated_reason": self.truncated_reason,
            "elapsed_ms": round(self.elapsed_ms, 2),
            "error": self.error.to_dict() if self.error else None,
            "repairs": list(self.repairs),
        }
