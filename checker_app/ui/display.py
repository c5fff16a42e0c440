"""What the page puts on screen for a report: verdict words, top answers, chart data, SQL per dialect."""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

from adapters import RunResult
from adapters.results import json_value
from checker_app.report import ReadingResult, Report

# The examples the articles use (ranking metric, entity name, timeframe, calendar vs fiscal, units).
EXAMPLES: tuple[str, ...] = (
    "What is the top-selling product?",
    "Show me revenue for Acme",
    "How have sales trended recently?",
    "Show revenue by month",
    "What were sales yesterday?",
)
DIALECTS: tuple[tuple[str, str], ...] = (("sqlite", "SQLite"), ("postgres", "PostgreSQL"), ("mysql", "MySQL/MariaDB"))
COLUMNS_BEFORE_TABS = 3
CHART_TOP_N = 3


@dataclass(frozen=True)
class VerdictView:
    kind: str        # material | benign | clear | unanswered | anchored
    headline: str    # stakeholder words
    detail: str


def verdict_readings(report: Report) -> list[ReadingResult]:
    """The readings the verdict is judged on: the rules' when the model's are there too (engine both)."""
    rules = [r for r in report.interpretations if r.source != "model"]
    return rules or list(report.interpretations)


def verdict_view(report: Report) -> VerdictView:
    judged = verdict_readings(report)
    n = len(judged)
    view = _verdict_view(report, n)
    if n < len(report.interpretations):
        return VerdictView(view.kind, view.headline, view.detail + " (Judged on the rules' readings; the model's "
                           "are compared with them under “Rules vs model”.)")
    return view


def _verdict_view(report: Report, n: int) -> VerdictView:
    if report.answers and n == 1:
        chosen = ", ".join(f"{k} = {v}" for k, v in report.answers.items())
        return VerdictView("anchored", "answered: one reading, anchored to your choice",
                           f"The SQL below follows your answer ({chosen}); chosen names and values are "
                           "embedded as quoted literals, never as parameters.")
    if n == 1 and (report.extra.get("model") or {}).get("answered"):
        return VerdictView("anchored", "answered: one reading, following your answer",
                           "The model wrote the SQL below after your plain-text answer; any value it names is "
                           "embedded as a quoted literal, never as a parameter.")
    kind = report.verdict
    if kind == "material":
        return VerdictView(kind, f"{n} readings, {report.distinct_answers} different answers",
                           "The answer depends on how the question is read. Choose a reading before trusting a number.")
    if kind == "benign":
        return VerdictView(kind, f"ambiguous wording, same answer ({n} readings agree)",
                           "The question can be read several ways, but on this data every reading gives the same answer.")
    if kind == "clear":
        return VerdictView(kind, "clear", "No ambiguity found: the question has one reading.")
    return VerdictView(kind, report.verdict_text,
                       "The readings could not be compared (not enough of them ran). Answer the clarification "
                       "below or check the engines.")


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def row_label(columns: Sequence[str], row: Sequence[Any]) -> str:
    """Who a row names: its non-numeric values joined (or its numbers, formatted, when it has no names)."""
    values = [json_value(v) for v in row]
    labels = [str(v) for v in values if not _numeric(v) and v is not None]
    if labels:
        return " / ".join(labels)
    return ", ".join("NULL" if v is None else format_number(float(v)) for v in values)


def _labelled(row: Sequence[Any]) -> bool:
    return any(not _numeric(json_value(v)) and v is not None for v in row)


def row_measure(row: Sequence[Any]) -> float | None:
    """The row's first number (its measure)."""
    for value in row:
        value = json_value(value)
        if _numeric(value):
            return float(value)
    return None


def format_number(value: float | None) -> str:
    if value is None:
        return ""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.2f}"


def at_a_glance(readings: Sequence[ReadingResult], limit: int = 8) -> list[tuple[str, str, str]]:
    """(reading, who its first row names, the number) for the verdict box: the answers in one look."""
    return [(r.label, *top_parts(r)) for r in readings[:limit]]


def top_answer(reading: ReadingResult) -> str:
    """The reading's headline answer: what its first row names, with the number."""
    result = reading.first_ok()
    if result is None:
        return "no answer"
    if not result.rows:
        return "no rows"
    row = result.rows[0]
    label, measure = row_label(result.columns, row), row_measure(row)
    return f"{label} ({format_number(measure)})" if _labelled(row) and measure is not None else label


def top_parts(reading: ReadingResult) -> tuple[str, str]:
    """(who the first row names, "column = number") for a headline; the number part may be empty."""
    result = reading.first_ok()
    if result is None:
        return "no answer", ""
    if not result.rows:
        return "no rows", ""
    row = result.rows[0]
    label = row_label(result.columns, row)
    if not _labelled(row):
        return label, ", ".join(result.columns)
    for column, value in zip(result.columns, row):
        value = json_value(value)
        if _numeric(value):
            return label, f"{column} = {format_number(float(value))}"
    return label, ""


def chart_rows(readings: Sequence[ReadingResult], top_n: int = CHART_TOP_N) -> list[dict[str, Any]]:
    """What the chart compares: [{reading, answer, value, share}].

    Readings whose rows name things (products, currencies) give their top rows, each as a share of that
    reading's leader (the readings measure different things, so shares are what compare). When fewer
    than two readings name things but several return one number each, each reading is one bar
    (answer = the reading, share of the largest). Fewer than two readings to compare: no chart."""
    named: list[dict[str, Any]] = []
    single: list[dict[str, Any]] = []
    mixed = any(r.source == "model" for r in readings)
    for reading in readings:
        result = reading.first_ok()
        if result is None or not result.rows:
            continue
        name = f"{reading.label} (model)" if mixed and reading.source == "model" else reading.label
        if _labelled(result.rows[0]):
            picked = [(row_label(result.columns, r), row_measure(r)) for r in result.rows[:top_n]]
            picked = [(label, value) for label, value in picked if value is not None]
            if picked:
                leader = max(abs(v) for _, v in picked) or 1.0
                named += [{"reading": name, "answer": label, "value": value,
                           "share": round(100.0 * value / leader, 1)} for label, value in picked]
        elif len(result.rows) == 1 and (value := row_measure(result.rows[0])) is not None:
            single.append({"reading": name, "answer": name, "value": value})
    if len({r["reading"] for r in named}) >= 2:
        return named
    if len(single) >= 2:
        leader = max(abs(r["value"]) for r in single) or 1.0
        return [{**r, "share": round(100.0 * r["value"] / leader, 1)} for r in single]
    return []


def engine_disagreement(reading: ReadingResult) -> list[tuple[str, str]]:
    """(engine, its top answer) when engines disagree on this reading, else []."""
    if reading.engines_agree is not False:
        return []
    out = []
    for name, result in reading.results.items():
        if result.ok:
            out.append((name, row_label(result.columns, result.rows[0]) if result.rows else "no rows"))
    return out


def engines_to_show(reading: ReadingResult, engines: Sequence[str]) -> tuple[list[str], list[str]]:
    """(engines whose rows are shown in full, engines that returned the same rows as the first).

    When every engine that answered agrees, one table says it all; the others get a line. Engines that
    failed, or that disagree, are always shown in full."""
    ran = [name for name in engines if name in reading.results]
    ok = [name for name in ran if reading.results[name].ok]
    if reading.engines_agree is True and len(ok) > 1:
        first = ok[0]
        return [name for name in ran if name == first or name not in ok], ok[1:]
    return ran, []


def result_caption(result: RunResult) -> str:
    """One line per engine: status, rows, time."""
    if result.ok:
        more = " (row cap reached)" if result.truncated else ""
        return f"{result.row_count} row{'s' if result.row_count != 1 else ''}{more} in {result.elapsed_ms:.0f} ms"
    err = result.error
    if err is None:
        return result.status
    kind = "" if err.kind in (result.status, "other") else f"{err.kind}: "
    return f"{result.status} after {result.elapsed_ms:.0f} ms: {kind}{err.message}" if result.elapsed_ms else \
        f"{result.status}: {kind}{err.message}"


def unanswered(items: Sequence[ReadingResult]) -> tuple[int, int]:
    """(runs that did not answer: error or timeout, all runs) over every reading and engine. SQL refused
    before it ran (a model's unsafe SQL or unfilled placeholder) is not a run: its panel says why."""
    runs = [r for item in items for r in item.results.values() if r.status != "rejected"]
    return sum(1 for r in runs if not r.ok), len(runs)


def table_records(result: RunResult) -> tuple[list[str], list[list[Any]]]:
    """Columns (made unique for a table widget) and JSON-safe rows."""
    seen: dict[str, int] = {}
    columns = []
    for name in result.columns:
        n = seen.get(name, 0)
        seen[name] = n + 1
        columns.append(name if n == 0 else f"{name}_{n + 1}")
    return columns, [[json_value(v) for v in row] for row in result.rows]


def pretty_sql(sql: str, dialect: str) -> str:
    try:
        return sqlglot.transpile(sql, read=dialect, write=dialect, pretty=True)[0]
    except (SqlglotError, IndexError):
        return sql


def sql_in_dialect(reading: ReadingResult, engines: Sequence[dict[str, str]], dialect: str) -> tuple[str, str]:
    """The reading's SQL in `dialect`: an engine's own SQL where one speaks it, else transpiled from the
    first engine's. Returns (sql, where it came from)."""
    dialect_of = {e["name"]: e.get("dialect", "") for e in engines}
    for name, sql in reading.sql.items():
        if dialect_of.get(name) == dialect:
            return pretty_sql(sql, dialect), f"as run on {name}"
    for name, sql in reading.sql.items():
        source = dialect_of.get(name) or None
        try:
            return sqlglot.transpile(sql, read=source, write=dialect, pretty=True)[0], f"transpiled from {name}"
        except (SqlglotError, IndexError):
            return sql, f"as written for {name} (could not transpile)"
    refused = next((r.sql for r in reading.results.values() if r.sql), "")
    return (refused, "as written (refused before it ran)") if refused else ("", "no SQL")


def default_dialect(engines: Sequence[dict[str, str]]) -> str:
    return engines[0].get("dialect", "sqlite") if engines else "sqlite"


def repair_lines(result: RunResult) -> list[str]:
    """Each repair applied to a result, in words."""
    lines = []
    for repair in result.repairs:
        rule = repair.get("rule") or "repair"
        column = repair.get("column")
        error = repair.get("error")
        head = f"{rule}" + (f" on column {column!r}" if column else "")
        if error:
            head += f" after: {error}"
        candidates = repair.get("candidates") or []
        if repair.get("sql"):
            lines.append(f"{head} -> ran the repaired SQL")
        elif candidates:
            verdict = "all candidates agree" if repair.get("agree") else "candidates disagree: choose one"
            lines.append(f"{head} -> {len(candidates)} candidates, {verdict}")
        else:
            lines.append(head)
    return lines
