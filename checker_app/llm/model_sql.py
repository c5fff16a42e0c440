"""One reading as the model wrote it, checked before anything runs.

In order: the dialect it was written in (declared, else detected), the safety check and placeholder
lint in that dialect, the columns against the schema profile (unknown ones stop it; ambiguous ones
go on to the repair pass), and the clock: a reading that uses `now()` / `CURRENT_DATE` / `date('now')`
on data whose as-of date is in the past is flagged, and the same reading anchored to the as-of date
is offered next to it (`model:N@as_of`).
"""
from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from checker_app.llm.columns import ColumnCheck, check_columns
from checker_app.llm.dialects import anchored, now_calls, written_dialect
from checker_app.llm.lint import LintResult, lint_sql


@dataclass
class ModelSQL:
    id: str
    label: str
    sql: str
    lint: LintResult = field(repr=False)
    written_in: str = ""
    target: str = ""
    columns: ColumnCheck = field(default_factory=ColumnCheck)
    clock: list[str] = field(default_factory=list)        # how it reads the clock, when it does
    as_of: dt.date | None = None                           # set when the clock is past the data
    anchored_from: str | None = None                       # the reading this one re-anchors

    def problem(self) -> str | None:
        """Why it is not run (None when it is)."""
        return self.lint.problem() or self.columns.problem()

    def problem_kind(self) -> str | None:
        """The kind of `problem()` (adapters.errors.ERROR_KINDS), from the typed refusal, never its text."""
        if self.lint.problem() is not None:
            return self.lint.problem_kind()
        return "unknown_column" if self.columns.problem() is not None else None

    def to_dict(self) -> dict[str, Any]:
        payload = {"id": self.id, "label": self.label, "sql": self.sql, **self.lint.to_dict(),
                   "written_in": self.written_in, "transpiled": self.written_in != self.target,
                   **self.columns.to_dict(), "clock": list(self.clock),
                   "as_of": self.as_of.isoformat() if self.as_of else None, "anchored_from": self.anchored_from}
        payload["error"] = self.problem()
        return payload


def _today() -> dt.date:
    return dt.date.today()


def model_sql(reading_id: str, label: str, sql: str, profile: Any, values: Mapping[str, str], *,
              declared: str | None = None) -> list[ModelSQL]:
    """The reading, and its re-anchored twin when it reads a clock that is past the data."""
    target = getattr(profile, "dialect", "") or "sqlite"
    written = written_dialect(sql, target, declared)
    lint = lint_sql(sql, written, values)
    reading = ModelSQL(reading_id, label, sql, lint, written_in=written, target=target)
    if lint.query is None:
        return [reading]
    reading.columns = check_columns(lint.query, profile, lint.read_as or written)
    reading.clock = now_calls(lint.query, lint.read_as or written)
    as_of = getattr(profile, "as_of", None)
    if not reading.clock or as_of is None or as_of >= _today():
        return [reading]
    reading.as_of = as_of
    tree = anchored(lint.query, as_of)
    twin_lint = dataclasses.replace(lint, sql=tree.sql(dialect=lint.read_as or written), query=tree,
                                    findings=list(lint.findings))
    twin = ModelSQL(f"{reading_id}@as_of", f"{label} (as of {as_of.isoformat()})", twin_lint.sql, twin_lint,
                    written_in=written, target=target, columns=reading.columns, anchored_from=reading_id)
    return [reading, twin]
