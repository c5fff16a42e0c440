"""Downloads: the JSON report, a Markdown summary for stakeholders, CSV per result."""
from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Sequence
from typing import Any

from adapters import RunResult
from checker_app import format as fmt
from checker_app.readout import CAP_WORDS, evidence_words, fold_sql, notes_to_show, result_caption, top_answer
from checker_app.report import ReadingResult, Report
from checker_app.ui.display import verdict_view


def slug(text: str, limit: int = 40) -> str:
    words = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return (words[:limit].rstrip("-") or "question")


def report_json(report: Report) -> str:
    return json.dumps(report.to_dict(), ensure_ascii=False, indent=2, default=str)


def result_csv(result: RunResult, currency: str | None = None) -> str:
    """The rows in the one number format, plain (no separators, no currency) so a spreadsheet reads numbers;
    money keeps two decimals."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(result.columns)
    marked = fmt.columns_of(result)  # a COUNT column is never money
    for row in result.rows:
        writer.writerow(fmt.row_cells(marked, row, currency, plain=True))
    return buffer.getvalue()


def _cell(text: Any) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _label(reading: ReadingResult) -> str:
    return f"{reading.label} (model)" if reading.source == "model" else reading.label


def _details(summary: str, body: list[str]) -> list[str]:
    """A collapsed block (GitHub and most Markdown viewers draw <details> closed until clicked)."""
    return ["", f"<details><summary>{summary}</summary>", "", *body, "", "</details>"]


def _sql_markdown(name: str, sql: str, dialect: str) -> list[str]:
    """One engine's SQL, pretty-printed with long calendars and CASE trees folded, collapsed."""
    folded = fold_sql(sql, dialect or "sqlite")
    note = []
    if folded.calendars or folded.cases:
        parts = [f"the calendar {n} ({len(rows):,} rows)" for n, _, rows in folded.calendars]
        parts += [f"the CASE {c.name} ({len(c.rows):,} buckets of {c.subject})" for c in folded.cases]
        note = ["", f"Folded: {', '.join(parts)}; the JSON report holds the full SQL."]
    return _details(f"SQL ({name})", ["```sql", folded.text, "```", *note])


def readings_markdown(readings: Sequence[ReadingResult], dialects: dict[str, str] | None = None) -> list[str]:
    lines = ["| # | Reading | Answer | Engines |", "|---|---|---|---|"]
    for n, reading in enumerate(readings, 1):
        engines = "; ".join(f"{name}: {result_caption(r)}" for name, r in reading.results.items()) or "not run"
        lines.append(f"| {n} | {_cell(_label(reading))} | {_cell(top_answer(reading))} | {_cell(engines)} |")
    for n, reading in enumerate(readings, 1):
        lines += ["", f"### {n}. {_label(reading)}"]
        if reading.engines_agree is False:
            lines.append("**The engines disagree on this reading.**")
        explanation = str(getattr(reading, "explanation", "") or "")
        if explanation:
            lines += ["", explanation]
        for name, sql in reading.sql.items():
            lines += _sql_markdown(name, sql, (dialects or {}).get(name, ""))
    return lines


def markdown_summary(report: Report, tool_output: dict[str, Any] | None = None) -> str:
    """A short summary a stakeholder can read: verdict, why, each reading's answer and SQL."""
    view = verdict_view(report)
    lines = [f"# Ambiguity check: {report.question}", "", f"**Verdict:** {view.headline}", "", view.detail, ""]
    engines = ", ".join(f"{e.name} ({e.backend})" for e in report.engines)
    lines.append(f"As of {report.as_of or '-'}; engines: {engines or '-'}.")
    if report.answers:
        lines.append("Anchored to: " + ", ".join(f"{k} = {v!r}" for k, v in report.answers.items()) + ".")
    if report.archetypes:
        lines += ["", "## Why it is ambiguous", ""]
        for archetype in report.archetypes:
            on = evidence_words(archetype.evidence, report.question, ('"', '"'))
            lines.append(f"* **{archetype.id}** on {on}. "
                         f"Ask: {archetype.ask} Why: {archetype.reason}")
    ignored = report.understood.ignored if report.understood is not None else []
    if ignored:
        lines += ["", "## Not understood", ""]
        for item in ignored:
            also = f" Did you mean: {', '.join(item.suggestions[:5])}?" if item.suggestions else ""
            reason = (item.reason or "no column, value or phrase of this database matches it").rstrip(".")
            lines.append(f"* ~~{item.text}~~: {reason}.{also}")
    if report.capped:
        lines += ["", f"Showing {len(report.interpretations)} of {report.total_readings} readings, {CAP_WORDS}."]
    lines += ["", "## Readings", ""]
    lines += readings_markdown(report.interpretations, {e.name: e.dialect for e in report.engines})
    if tool_output:
        lines += ["", "## Clarification answers"]
        lines += _details("Tool output (the answers as the agent receives them)",
                          ["```json", json.dumps(tool_output, ensure_ascii=False, indent=2), "```"])
    if report.model is not None:
        from checker_app.llm.text import model_lines

        model = model_lines(report.model_dump(mode="json", include={"model", "comparison"}))
        lines += ["", "## Model", "", "```text", *[line.lstrip("\n") for line in model], "```"]
    notes = notes_to_show(report)  # each once; the cap and the archetypes' asks are said above
    if notes:
        lines += ["", "## Notes", ""] + [f"* {note}" for note in notes]
    return "\n".join(lines) + "\n"
