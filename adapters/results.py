"""The result of running one statement on one engine: the adapters' part of the JSON contract."""
from __future__ import annotations

import base64
import datetime as dt
import math
import uuid
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
    """A value normalised for comparing answers across engines (SQLite floats vs NUMERIC decimals)."""
    value = json_value(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        # 8 significant digits: SQLite sums money as floats, the servers as exact decimals
        return float(f"{float(value):.8g}")
    if isinstance(value, str) and len(value) >= 19 and value[4] == "-" and value[10] in " T":
        return value[:19].replace("T", " ")
    return value


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
        """The rows, normalised so that equal answers from different engines compare equal."""
        return tuple(tuple(comparable(v) for v in row) for row in self.rows)

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
