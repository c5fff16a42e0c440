"""The repair log: what was wrong, what was tried, what each try returned. Part of the JSON contract.

{"original_sql", "dialect", "error": {kind, code, message, position} | null, "error_offset", "column", "rule",
 "sql": applied fix | null, "candidates": [{"label", "value", "sql", "status", "columns", "rows",
 "row_count", "truncated", "error"}], "agree": true | false | null, "clarification": {...} | null,
 "problem": one line | null, "references": [{column, scope, clause, kind, candidates, rule, chosen,
 proof, position}], "note": one line}
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from adapters.clarification import ChoiceQuestion
from adapters.errors import EngineErrorInfo
from adapters.results import RunResult, json_value

LOG_ROWS = 50  # rows of each candidate's answer kept in the log


@dataclass
class RepairAttempt:
    """One repaired statement: the safe fix, or one candidate reading."""

    label: str
    value: str
    sql: str
    status: str | None = None          # None until run
    columns: list[str] = field(default_factory=list)
    rows: list[list[Any]] = field(default_factory=list)
    row_count: int | None = None
    truncated: bool = False
    error: EngineErrorInfo | None = None

    def record(self, result: RunResult) -> None:
        self.status = result.status
        self.columns = list(result.columns)
        self.rows = [[json_value(v) for v in row] for row in result.rows[:LOG_ROWS]]
        self.row_count = result.row_count
        self.truncated = result.truncated or result.row_count > LOG_ROWS
        self.error = result.error

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"label": self.label, "value": self.value, "sql": self.sql, "status": self.status}
        if self.status is not None:
            data.update(columns=self.columns, rows=self.rows, row_count=self.row_count, truncated=self.truncated,
                        error=self.error.to_dict() if self.error else None)
        return data


@dataclass
class RepairLog:
    """Everything one repair did, for the JSON report and the page."""

    original_sql: str
    dialect: str
    error: EngineErrorInfo | None = None
    error_offset: int | None = None   # 0-based offset in original_sql of the reference the engine pointed to
    column: str | None = None
    rule: str = "none"
    sql: str | None = None
    candidates: list[RepairAttempt] = field(default_factory=list)
    agree: bool | None = None
    clarification: ChoiceQuestion | None = None   # which table's column is meant (adapters.clarification.column_choice)
    problem: str | None = None
    references: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
    subject: str = ""   # the column(s) a clarification asks about (not part of the JSON)

    def to_dict(self) -> dict[str, Any]:
        return {
            "original_sql": self.original_sql,
            "dialect": self.dialect,
            "error": self.error.to_dict() if self.error else None,
            "error_offset": self.error_offset,
            "column": self.column,
            "rule": self.rule,
            "sql": self.sql,
            "candidates": [c.to_dict() for c in self.candidates],
            "agree": self.agree,
            "clarification": self.clarification.to_dict() if self.clarification else None,
            "problem": self.problem,
            "references": list(self.references),
            "note": self.note,
        }
