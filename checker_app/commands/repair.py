"""`ambiguity-checker repair "SQL"`: run on every engine; repair "ambiguous column" errors and show how.

Per engine: the engine's error, the rule applied (equi_join_key, using_column, candidates, none), the
repaired SQL and its result, or every candidate with its answer and whether the answers agree.
Exit 0 when every engine ends with one answer (as written, repaired, or candidates that agree);
1 when an engine still errors, including candidates whose answers differ (the user must choose);
2 for bad input or options; 3 when the statement is refused as unsafe.
"""
from __future__ import annotations

from typing import Any

import click

from adapters.results import RunResult
from checker_app import format as fmt
from checker_app.commands.common import db_options
from checker_app.commands.render import table_text
from checker_app.commands.run import emit, run_everywhere

CANDIDATE_ROWS_SHOWN = 10

def _error_text(error: dict[str, Any] | None) -> str:
    if not error:
        return ""
    at = f" at {error['position']}" if error.get("position") else ""
    return f"{error['kind']} ({error.get('code') or 'no code'}){at}: {error['message']}"


def repair_text(result: RunResult) -> str:
    """One engine's outcome for the terminal."""
    lines = [f"[{result.engine}] {result.status}"]
    if not result.repairs:
        if result.error:
            lines.append(f"  error: {result.error.kind} ({result.error.code or 'no code'}): {result.error.message}")
        else:
            lines.append("  no ambiguous column: ran as written")
    for log in result.repairs:
        lines.append(f"  error: {_error_text(log.get('error'))}")
        lines.append(f"  rule: {log['rule']}" + (f" ({log['note']})" if log.get("note") and not log.get("problem") else ""))
        if log.get("problem"):
            lines.append(f"  nothing rewritten: {log['problem']}")
        if log["rule"] != "candidates" and log.get("sql"):
            lines.append(f"  repaired: {log['sql']}")
        for candidate in log.get("candidates", []):
            lines.append(f"  candidate {candidate['label']}: {candidate['sql']}")
            if candidate.get("status") == "ok":
                lines.append(f"    {candidate['row_count']} row(s)" + (" (truncated)" if candidate.get("truncated") else ""))
                if candidate.get("columns"):
                    shown = table_text(candidate["columns"], candidate["rows"], CANDIDATE_ROWS_SHOWN)
                    lines += ["    " + line for line in shown.splitlines()]
            elif candidate.get("status"):
                lines.append(f"    {candidate['status']}: {_error_text(candidate.get('error'))}")
        if log.get("agree") is True:
            lines.append("  the candidates agree: same answer whichever is chosen")
        elif log.get("agree") is False:
            lines.append("  the candidates disagree: choose one")
        question = log.get("clarification")
        if question:
            lines.append(f"  question: {question['question']}")
            lines += [f"    - {option['label']}" for option in question["options"]]
    if result.ok and result.columns and (not result.repairs or result.repairs[0].get("sql")):
        lines.append(f"  result: {result.row_count} row(s)" + (" (truncated)" if result.truncated else ""))
        lines += ["  " + line for line in table_text(fmt.columns_of(result), result.rows).splitlines()]
    return "\n".join(lines)


@click.command("repair")
@click.argument("sql")
@click.option("--dialect", "read", default=None, help="Dialect the SQL is written in (default: generic).")
@click.option("--json", "as_json", is_flag=True, help="Print the JSON result (with `repairs` per engine).")
@db_options
def repair(sql: str, read: str | None, as_json: bool, db: tuple[str, ...], timeout: float, max_rows: int) -> None:
    """Run SQL on every engine; repair "ambiguous column" errors (qualify, or one SQL per candidate)."""
    emit(sql, run_everywhere(sql, read, db, timeout, max_rows, repair=True), as_json, repair_text)
