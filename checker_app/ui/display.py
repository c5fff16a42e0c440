"""What the page puts on screen for a report: verdict words, top answers, chart data, SQL per dialect.

The words the CLI prints too (answers, captions, repairs, folded SQL) live in checker_app.readout, which both
import; they are re-exported here under the names the page code uses."""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

from adapters import RunResult
from adapters.dialects import DIALECT_NAMES, ENGINE_DIALECTS
from adapters.results import json_value
from checker_app import format as fmt
from checker_app.readout import CAP_WORDS as CAP_WORDS
from checker_app.readout import ERROR_WORDS, pretty_sql, reading_answer, unanswered
from checker_app.readout import SUBJECT as SUBJECT
from checker_app.readout import (  # re-exported: the page scripts call these as display.<name>
    engine_disagreement as engine_disagreement,
)
from checker_app.readout import (
    evidence_words as evidence_words,
)
from checker_app.readout import (
    explanation_of as explanation_of,
)
from checker_app.readout import (
    fold_sql as fold_sql,
)
from checker_app.readout import (
    notes_to_show as notes_to_show,
)
from checker_app.readout import (
    reading_currency as reading_currency,
)
from checker_app.readout import (
    repair_lines as repair_lines,
)
from checker_app.readout import (
    result_caption as result_caption,
)
from checker_app.readout import (
    table_records as table_records,
)
from checker_app.report import ReadingResult, Report, plain

# The examples the articles use (ranking metric, entity name, timeframe, calendar vs fiscal, units).
EXAMPLES: tuple[str, ...] = (
    "What is the top-selling product?",
    "Show me revenue for Acme",
    "How have sales trended recently?",
    "Show revenue by month",
    "What were sales yesterday?",
)
DIALECTS: tuple[tuple[str, str], ...] = tuple((d, DIALECT_NAMES[d]) for d in ENGINE_DIALECTS)  # the page's switch
COLUMNS_BEFORE_TABS = 3


@dataclass(frozen=True)
class VerdictView:
    kind: str        # material | benign | clear | unanswered | anchored
    headline: str    # stakeholder words
    detail: str


def verdict_view(report: Report) -> VerdictView:
    judged = report.judged_readings
    n = len(judged)
    view = _verdict_view(report, n)
    if n < len(report.interpretations):
        return VerdictView(view.kind, view.headline, view.detail + " (Judged on the rules' readings; the model's "
                           "are compared with them under “Rules vs model”.)")
    return view


def _verdict_view(report: Report, n: int) -> VerdictView:
    if report.verdict == "partial":  # the report's one verdict (checker_app.verdict) wins over the readings
        return VerdictView("partial", report.verdict_text, "Some words of the question were not read, so no "
                           "reading answers the whole question. Rephrase them with the names the data uses.")
    if report.answers and n == 1:
        chosen = ", ".join(f"{archetype_name(k)}: {v}" for k, v in report.answers.items())
        return VerdictView("anchored", "answered: one reading, anchored to your choice",
                           f"The SQL below follows your answer ({chosen}); chosen names and values are "
                           "embedded as quoted literals, never as parameters.")
    if n == 1 and report.model is not None and report.model.answered:
        return VerdictView("anchored", "answered: one reading, following your answer",
                           "The model wrote the SQL below after your plain-text answer; any value it names is "
                           "embedded as a quoted literal, never as a parameter.")
    kind = report.verdict
    if kind == "material":
        return VerdictView(kind, report.verdict_text,
                           "The answer depends on how the question is read. Choose a reading before trusting a number.")
    if kind == "benign":
        return VerdictView(kind, report.verdict_text,
                           "The question can be read several ways, but on this data every reading gives the same answer.")
    if kind == "clear":
        return VerdictView(kind, "clear", "No ambiguity found: the question has one reading.")
    missing = next((a for a in plain(report.archetypes) if str(a.get("id")) == "insufficient_info"), None)
    if missing is not None:
        return VerdictView(kind, "more information needed", f"{missing.get('ask') or 'Say what the question is about.'} "
                           "Choose below what it should run on, or rephrase the question.")
    failed, runs = unanswered(report.interpretations)
    if runs and failed == runs:
        return VerdictView(kind, "no reading finished", "Every run ended in an engine error or the time limit: each "
                           "engine's status is below. Run again, or raise the time limit in the sidebar.")
    return VerdictView(kind, report.verdict_text,
                       "Fewer than two readings gave an answer, so they cannot be compared. Answer the clarification "
                       "below to run the one you mean.")


def _numeric(value: Any) -> bool:
    return fmt.is_number(value)


def row_label(columns: Sequence[str], row: Sequence[Any]) -> str:
    """Who a row names: its non-numeric values joined (or its numbers, formatted, when it has no names)."""
    values = [v if fmt.is_number(v) else json_value(v) for v in row]
    labels = [fmt.cell(v) for v in values if not _numeric(v) and v is not None]
    if labels:
        return " / ".join(labels)
    return ", ".join(fmt.cell(v) for v in values)


def format_number(value: float | None) -> str:
    """The one number format (checker_app.format)."""
    return fmt.number(value)


def at_a_glance(readings: Sequence[ReadingResult], limit: int = 8) -> list[tuple[str, str, str]]:
    """(reading, its answer, the number behind it) for the verdict box: the answers in one look."""
    return [(r.label, *top_parts(r)) for r in readings[:limit]]


def top_parts(reading: ReadingResult) -> tuple[str, str]:
    """(the reading's answer, the number or range behind it); the second part may be empty."""
    answer = reading_answer(reading)
    return answer.headline, answer.detail


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


def sql_in_dialect(reading: ReadingResult, engines: Sequence[dict[str, str]], dialect: str) -> tuple[str, str]:
    """The reading's SQL in `dialect`: an engine's own SQL where one speaks it, else transpiled from the
    first engine's. Returns (sql, where it came from)."""
    dialect_of = {e["name"]: e.get("dialect", "") for e in plain(engines)}
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
    return plain(engines)[0].get("dialect", "sqlite") if engines else "sqlite"


def repair_candidates(result: RunResult) -> list[dict[str, Any]]:
    """Every candidate of a repair that offered several: {label, sql, status, columns, rows}."""
    out = []
    for repair in result.repairs:
        for candidate in repair.get("candidates") or []:
            if isinstance(candidate, dict):
                out.append(candidate)
    return out


def unique_columns(columns: Sequence[str]) -> list[str]:
    """Column names made unique for a table widget (`n`, `n_2`)."""
    seen: dict[str, int] = {}
    out = []
    for name in columns:
        n = seen.get(name, 0)
        seen[name] = n + 1
        out.append(name if n == 0 else f"{name}_{n + 1}")
    return out


def format_row(columns: Sequence[str], row: Sequence[Any], currency: str | None = None) -> list[str]:
    return fmt.row_cells(columns, row, currency)


def candidate_caption(candidate: dict[str, Any]) -> str:
    """A repair candidate's result in words: rows, or why it gave none."""
    status = candidate.get("status")
    if status is None:
        return "not run"
    if status == "ok":
        count = candidate.get("row_count")
        count = len(candidate.get("rows") or []) if count is None else count
        return f"{fmt.number(count)} row{'s' if count != 1 else ''}"
    error = candidate.get("error") or {}
    return f"no answer: {ERROR_WORDS.get(error.get('kind') if isinstance(error, dict) else '', status)}"


ARCHETYPE_NAMES = {
    "ranking_metric": "ranking metric", "timeframe": "timeframe", "insufficient_info": "missing information",
    "custom_visualization": "chart type", "entity": "which one", "timezone": "time zone",
    "aggregation_level": "level of detail", "unit": "currency", "schema_mapping": "which table",
}


def archetype_name(archetype_id: str) -> str:
    """An archetype in plain words (the id is what --answer takes)."""
    return ARCHETYPE_NAMES.get(archetype_id, archetype_id.replace("_", " "))


def dialect_name(dialect: str) -> str:
    return dict(DIALECTS).get(dialect, dialect)


def choice_label(archetypes: Sequence[dict[str, Any]], archetype_id: str, value: str) -> str:
    """The words of a chosen value: its reading's label, else the value itself."""
    for archetype in plain(archetypes):
        if str(archetype.get("id")) != archetype_id:
            continue
        for reading in archetype.get("readings") or []:
            if isinstance(reading, dict) and str(reading.get("value")) == value:
                return str(reading.get("label") or value)
    return value


def answered_words(report: Report, archetypes: Sequence[dict[str, Any]] = ()) -> str:
    """An anchored answer in words: "USB-C Cable, by units"."""
    reading = report.interpretations[0] if report.interpretations else None
    headline = reading_answer(reading).headline if reading is not None else "no reading"
    words = []
    for archetype_id, value in report.answers.items():
        label = choice_label(archetypes or report.archetypes, archetype_id, value).split(" (")[0].strip()
        words.append(f"by {label[:1].lower() + label[1:]}" if archetype_id == "ranking_metric" else label)
    return ", ".join([headline, *words])


def examples_for(profiles: Sequence[Any]) -> tuple[str, ...]:
    """Example questions for the connected schema: the articles' own on the demo database, else the same
    shapes of question built from the first profile's facts and entities (never demo table names)."""
    from seed_db.schema import SEED_TABLES

    if not profiles:
        return EXAMPLES
    profile = profiles[0]
    if set(SEED_TABLES) <= set(profile.tables):
        return EXAMPLES
    fact = profile.primary_fact()
    if fact is None:
        return EXAMPLES[:1]
    nouns = []
    for entity in profile.entities.values():
        path = profile.path(fact.table, entity.table)
        if path is not None and entity.table != fact.table and not entity.column_only:
            nouns.append((len(path), -entity.row_count, entity.noun))
    nouns.sort()
    noun = nouns[0][2] if nouns else fact.table.lower()
    money = any(m.money for m in fact.measures)
    # things sold: a price times a quantity, or units summed (order lines, invoice lines). A fact of money alone
    # (a gym's payments, a subscription's invoices) sells no member or customer: its examples say revenue
    from archetypes.lexicon import physical

    # (a weight or a distance summed is no units sold: a parcel's kilos make no 'top-selling' anything)
    # (cargo tonnes, minutes watched: a figure summed is no units sold unless it is the quantity of the lines)
    sold = money and any(m.kind == "product" or (m.value == "units" and not physical(m.columns, ()))
                         for m in fact.measures)
    from archetypes.lexicon import PEOPLE_NOUNS
    from archetypes.naming import singular

    person = bool(noun.split()) and singular(noun.split()[-1]) in PEOPLE_NOUNS  # a rider is not 'top-selling'
    nearest = [n for n in nouns if n[0] == nouns[0][0]] if nouns else []
    goods = sorted(nearest, key=lambda n: -n[1])  # what is sold: of the nearest, the fewest rows (the catalogue)
    if sold and len(goods) > 1:
        noun = goods[0][2]  # ('the top-selling store item', not 'the top-selling player')
        person = singular(noun.split()[-1]) in PEOPLE_NOUNS
    if sold and not person:
        out = [f"What is the top-selling {noun}?"]
        said = ["How have sales trended recently?", "Show revenue by month", "What were sales yesterday?"]
    elif sold:  # ('the top buyer': sold, but to people, none of them 'top-selling')
        out = [f"What is the top {noun}?"]
        said = ["How have sales trended recently?", "Show revenue by month", "What were sales yesterday?"]
    elif money:
        out = [f"What is the top {noun}?"]
        amount = _amount_words(profile, fact)
        # (a month's total, not 'yesterday': a fee or a price has no day of its own to ask about)
        said = [f"How has the {amount} trended recently?", f"Show the {amount} by month",
                f"What was the total {amount} last month?"]
    else:
        what = fact.measures[0].label.split(" (")[0].lower() if fact.measures else "rows"
        what = what.removeprefix("sum of ")  # 'how have watch minutes trended', not 'sum of watch minutes'
        out = [f"What is the top {noun}?"]
        said = [f"How have {what} trended recently?", f"Show {what} by month", f"What were {what} yesterday?"]
    if fact.time is not None:
        out += said
    other = next((n[2] for n in nouns if n[2] != noun), None)
    if other is not None:
        from archetypes.naming import plural

        out.append(f"How many {plural(other)} are there?")  # ('properties', not 'propertys')
    return tuple(dict.fromkeys(out))


def _amount_words(profile: Any, fact: Any) -> str:
    """What the money of a fact is called in its own words ('revenue' only where the schema says so): 'donation
    amount', 'price charged'."""
    from archetypes.naming import phrase, singular, words

    vocabulary = {w for t in profile.tables.values() for c in t.columns for w in words(c.name)}
    if "revenue" in vocabulary:
        return "revenue"
    measure = next(m for m in fact.measures if m.money)
    said = " ".join(words(measure.columns[0])) if measure.columns else measure.value
    owner = singular(phrase(fact.table).split()[-1]) if phrase(fact.table) else ""
    # a bare 'amount' or 'total' is said with its rows' noun: the donation amount
    return f"{owner} {said}" if said in ("amount", "total", "value", "sum") and owner else said


def problem_words(kind: str, message: str) -> str:
    """A problem in plain words: what happened, and what to do."""
    if kind == "input":
        return f"{message[:1].upper() + message[1:]}. Type a data question in the box above, or click an example."
    if kind == "engine":
        return f"No engine could answer: {message}. Check the connections in the sidebar, then retry."
    return message


_COUNT_ROWS = re.compile(r"^Number of (.+) rows$")


def choice_words(label: str) -> str:
    """A clarification option in plain words ("Number of currency rows" is "How many currency records")."""
    match = _COUNT_ROWS.match(str(label))
    return f"How many {match.group(1)} records there are" if match else str(label)

