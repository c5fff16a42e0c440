"""Plain-text rendering of run results for the terminal."""
from __future__ import annotations

from adapters import RunResult
from checker_app import format as fmt

MAX_CELL = 40
MAX_ROWS_SHOWN = 20


def _cut(text: str) -> str:
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def table_text(columns: list[str], rows: list[list[object]], limit: int = MAX_ROWS_SHOWN,
               currency: str | None = None) -> str:
    """Rows as an aligned table in the one number format (numbers right-aligned)."""
    shown = [[_cut(v) for v in fmt.row_cells(columns, row, currency)] for row in rows[:limit]]
    numeric = [bool(rows) and all(fmt.is_number(r[i]) or r[i] is None for r in rows[:limit])
               for i in range(len(columns))]
    widths = [max([len(c)] + [len(r[i]) for r in shown]) for i, c in enumerate(columns)]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if right else v.ljust(w) for v, w, right in zip(values, widths, numeric)).rstrip()

    lines = [line(list(columns)), "  ".join("-" * w for w in widths)]
    lines += [line(row) for row in shown]
    if len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more rows")
    return "\n".join(lines)


def result_text(result: RunResult) -> str:
    """One engine's result: status, rows (the one number format), and the repair log in full."""
    head = f"[{result.engine}] {result.status} in {result.elapsed_ms:,.0f} ms"
    if result.ok:
        head += f", {fmt.number(result.row_count)} row(s)" + (" (truncated)" if result.truncated else "")
        body = table_text(fmt.columns_of(result), result.rows) if result.columns else ""
    else:
        err = result.error
        body = f"{err.kind} ({err.code or 'no code'}): {err.message}" if err else ""
    for repair in result.repairs:
        body += "\n" + repair_text(repair)
    return head + ("\n" + body if body else "")


def repair_text(repair: dict) -> str:
    """A repair log entry: what the engine said, the rule, the SQL run, or each candidate and its rows."""
    error = repair.get("error") or {}
    message = error.get("message") if isinstance(error, dict) else str(error)
    lines = [f"repair: {message or 'engine error'}" + (f" (column {repair['column']})" if repair.get("column") else ""),
             f"  rule: {repair.get('rule') or 'none'}" + (f": {repair['note']}" if repair.get("note") else "")]
    if repair.get("sql"):
        lines.append(f"  ran: {repair['sql']}")
    for candidate in repair.get("candidates") or []:
        lines.append(f"  candidate {candidate.get('label')}: {candidate.get('sql')}")
        if candidate.get("status") == "ok" and candidate.get("columns"):
            lines.append("    " + table_text(candidate["columns"], candidate.get("rows") or [], limit=3).replace(
                "\n", "\n    "))
        elif candidate.get("status"):
            lines.append(f"    {candidate.get('status')}")
    if repair.get("agree") is False:
        lines.append("  the candidates give different answers: choose one (ambiguity-checker repair shows the question)")
    elif repair.get("problem"):
        lines.append(f"  {repair['problem']}")
    return "\n".join(lines)
