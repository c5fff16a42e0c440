"""What a report says in words, for the CLI and the page alike: answers, engine captions and errors,
repairs, SQL pretty-printed with long calendars and CASE trees folded, the notes to show, the subject a person chose.

A neutral module: the CLI (checker_app/commands) and the page's logic (checker_app/ui) both import it,
and neither imports the other (tests/test_layers.py fails on a cross import). No streamlit, no click.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from adapters import RunResult
from checker_app import format as fmt
from checker_app.answers import Answer, answer_of
from checker_app.report import Detection, ReadingResult, Report


def reading_currency(reading: ReadingResult) -> str | None:
    """The currency the reading's amounts are in, when its unit choice says so."""
    return fmt.currency_of_choices(reading.choices, [reading.label])


def reading_answer(reading: ReadingResult) -> Answer:
    """What the reading answers, by the shape of its rows (see checker_app.ui.shape)."""
    return answer_of(reading.first_ok(), reading_currency(reading), getattr(reading, "side_by_side", 0))


def explanation_of(reading: ReadingResult) -> str:
    """The one sentence of what the reading's SQL computes (when the analysis wrote one)."""
    return str(getattr(reading, "explanation", "") or "")


def top_answer(reading: ReadingResult) -> str:
    """The reading's headline answer, with the number behind it."""
    return reading_answer(reading).text


def engine_disagreement(reading: ReadingResult) -> list[tuple[str, str]]:
    """(engine, its answer) when engines disagree on this reading in a way a person can see, else [].

    Rows that only differ beyond the precision shown (15360815.010000004 and 15360815.01) are not a
    disagreement: a warning above identical tables would be noise."""
    if reading.engines_agree is not False:
        return []
    currency = reading_currency(reading)
    answered = [(name, r) for name, r in reading.results.items() if r.ok]
    shown = {tuple(map(tuple, table_records(r, currency)[1])) for _, r in answered}
    if len(shown) < 2:
        return []
    return [(name, answer_of(r, currency).text) for name, r in answered]


def evidence_words(evidence: str, question: str, quotes: tuple[str, str] = ("“", "”")) -> str:
    """The words an archetype fired on, quoted ("“top-selling”"), or "the whole question" when its evidence is
    the question itself (a detector that no single word triggers: quoting it all repeats the question)."""
    if not evidence.strip() or " ".join(evidence.split()).lower() == " ".join(question.split()).lower():
        return "the whole question"
    return f"{quotes[0]}{evidence}{quotes[1]}"


def result_caption(result: RunResult) -> str:
    """One line per engine: status, rows, time; an error in plain words."""
    if result.ok:
        more = " (row cap reached)" if result.truncated else ""
        rows = f"{fmt.number(result.row_count)} row{'s' if result.row_count != 1 else ''}"
        return f"{rows}{more} in {result.elapsed_ms:,.0f} ms"
    return error_words(result)


ERROR_WORDS = {
    "timeout": "did not finish within the time limit",
    "syntax": "the engine could not parse the SQL",
    "ambiguous_column": "a column name matches more than one table",
    "unknown_column": "a column does not exist on this engine",
    "read_only": "the statement tried to change data and was stopped",
    "connection": "the engine could not be reached",
    "rejected": "refused before it ran",
}


def error_words(result: RunResult) -> str:
    """Why a run gave no answer, in words a stakeholder reads, with the engine's own message after."""
    err = result.error
    kind = err.kind if err is not None else result.status
    words = ERROR_WORDS.get(kind) or ERROR_WORDS.get(result.status) or "the engine returned an error"
    after = f" after {result.elapsed_ms:,.0f} ms" if result.elapsed_ms and result.status == "timeout" else ""
    message = (err.message.splitlines() or [""])[0] if err is not None and err.message else ""
    return f"{words}{after}" + (f" ({message})" if message and result.status != "timeout" else "")


def unanswered(items: Sequence[ReadingResult]) -> tuple[int, int]:
    """(runs that did not answer: error or timeout, all runs) over every reading and engine. SQL refused
    before it ran (a model's unsafe SQL or unfilled placeholder) is not a run: its panel says why."""
    runs = [r for item in items for r in item.results.values() if r.status != "rejected"]
    return sum(1 for r in runs if not r.ok), len(runs)


def table_records(result: RunResult, currency: str | None = None) -> tuple[list[str], list[list[str]]]:
    """Columns (made unique for a table widget) and rows in the one number format (money with its currency)."""
    seen: dict[str, int] = {}
    columns = []
    for name in result.columns:
        n = seen.get(name, 0)
        seen[name] = n + 1
        columns.append(name if n == 0 else f"{name}_{n + 1}")
    marked = fmt.columns_of(result)  # a COUNT column is never shown as money
    return columns, [fmt.row_cells(marked, row, currency) for row in result.rows]


def pretty_sql(sql: str, dialect: str) -> str:
    try:
        return sqlglot.transpile(sql, read=dialect, write=dialect, pretty=True)[0]
    except (SqlglotError, IndexError):
        return sql


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return str(error.get("message") or error.get("kind") or "")
    return str(error or "")


def repair_lines(result: RunResult) -> list[str]:
    """Each repair applied to a result, in words (never a raw dict)."""
    lines = []
    for repair in result.repairs:
        column = repair.get("column")
        error = _error_text(repair.get("error"))
        head = (f"column “{column}” is in more than one table" if column else "the engine rejected the SQL") + \
            (f" ({error})" if error else "")
        candidates = repair.get("candidates") or []
        rule = {"equi_join_key": "the join makes both columns equal, so either one answers",
                "using_column": "the tables are joined on this column, so either one answers"}.get(
            str(repair.get("rule")), "")
        if repair.get("sql"):
            lines.append(f"{head}: ran the repaired SQL" + (f" ({rule})" if rule else ""))
        elif repair.get("problem"):
            lines.append(f"{head}: {repair['problem']}")
        elif candidates:
            agree = repair.get("agree")
            verdict = ("every candidate gives the same answer" if agree else
                       "the candidates give different answers: choose one" if agree is False else
                       "the candidates could not be compared")
            lines.append(f"{head}: {len(candidates)} candidates, {verdict}")
        else:
            lines.append(f"{head}: no repair found")
    return lines


FOLD_AFTER = 4  # a CTE of more UNION ALL rows than this is shown folded (a calendar of days or months), and
#               a CASE tree of more buckets than this (the bucket search of a series) too


@dataclass(frozen=True)
class FoldedCase:
    name: str               # what the CASE computes (its alias: period_index)
    subject: str            # the expression it compares (the timestamp column)
    columns: list[str]      # value, from, before
    rows: list[list[str]]   # one row per bucket, in order


@dataclass(frozen=True)
class FoldedSql:
    text: str                                   # the SQL with long calendars folded to their first row
    calendars: list[tuple[str, list[str], list[list[str]]]]  # (CTE name, columns, rows) folded away
    cases: list[FoldedCase] = field(default_factory=list)     # long CASE trees folded to their first bucket


def fold_sql(sql: str, dialect: str) -> FoldedSql:
    """Pretty SQL where a long literal calendar (a CTE of many `SELECT ... UNION ALL`) keeps its first row and
    a comment, and a long CASE tree over one expression (`CASE WHEN t < '2025-06-16' THEN CASE ...`, the bucket
    search of a series) keeps its first bucket and its last; what was folded is returned as tables to show
    folded. Never a 5,000 px block of SQL."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect)
    except (SqlglotError, ValueError):
        return FoldedSql(sql, [])
    calendars = []
    for cte in list(tree.find_all(exp.CTE)):
        selects = _union_selects(cte.this)
        if selects is None or len(selects) <= FOLD_AFTER:
            continue
        columns = [e.alias_or_name for e in selects[0].expressions]
        rows = [[_literal_text(e) for e in s.expressions] for s in selects]
        first = selects[0].copy()
        first.add_comments([f" ... {len(selects) - 1:,} more rows like this one (folded) "])
        cte.set("this", first)
        calendars.append((cte.alias_or_name, columns, rows))
    cases = []
    for case in [c for c in tree.find_all(exp.Case) if c.find_ancestor(exp.Case) is None]:
        folded = _fold_case(case, dialect)
        if folded is not None:
            cases.append(folded)
    if not calendars and not cases:
        return FoldedSql(pretty_sql(sql, dialect), [])
    return FoldedSql(tree.sql(dialect=dialect, pretty=True), calendars, cases)


def _case_buckets(node: exp.Expression, dialect: str) -> tuple[list[exp.Expression], list[exp.Expression], str] | None:
    """(the buckets' values in order, the boundaries between them, the compared expression) of a CASE tree
    whose every condition is `subject < boundary` on one subject; None for any other CASE. In order: the
    values of a WHEN's branch all lie below its boundary, the ELSE's at or above the last one."""
    if not isinstance(node, exp.Case):
        return [node], [], ""
    values: list[exp.Expression] = []
    bounds: list[exp.Expression] = []
    subject = ""
    branches = [(i.this, i.args.get("true")) for i in node.args.get("ifs") or []]
    default = node.args.get("default")
    if not branches or default is None:
        return None
    for condition, branch in branches:
        if not isinstance(condition, exp.LT) or branch is None:
            return None
        inner = _case_buckets(branch, dialect)
        if inner is None:
            return None
        here = condition.this.sql(dialect=dialect)
        if subject and here != subject or inner[2] and inner[2] != here:
            return None
        subject = here
        values += inner[0]
        bounds += inner[1] + [condition.expression]
    inner = _case_buckets(default, dialect)
    if inner is None or inner[2] and inner[2] != subject:
        return None
    return values + inner[0], bounds + inner[1], subject


def _fold_case(case: exp.Case, dialect: str) -> FoldedCase | None:
    found = _case_buckets(case, dialect)
    if found is None or len(found[0]) <= FOLD_AFTER:
        return None
    values, bounds, subject = found
    text = [_bound_text(b) for b in bounds]
    rows = [[_literal_text(v), text[i - 1] if i else "", text[i] if i < len(text) else ""]
            for i, v in enumerate(values)]
    head = values[0].copy()
    head.add_comments([f" ... {len(values) - 2:,} more buckets, one per boundary (folded) "])
    first = exp.If(this=exp.LT(this=exp.maybe_parse(subject, dialect=dialect), expression=bounds[0].copy()),
                   true=head)
    case.set("ifs", [first])
    case.set("default", values[-1].copy())
    parent = case.parent
    name = parent.alias if isinstance(parent, exp.Alias) else "CASE"
    return FoldedCase(name, subject, ["value", "from", "before"], rows)


def _union_selects(node: exp.Expression) -> list[exp.Select] | None:
    if isinstance(node, exp.Select):
        return [node] if not node.args.get("from") else None
    if isinstance(node, exp.Union):
        left, right = _union_selects(node.this), _union_selects(node.expression)
        return left + right if left is not None and right is not None else None
    return None


def _bound_text(node: exp.Expression) -> str:
    """A boundary as the value it names: `CAST('2025-06-16 00:00:00' AS DATETIME)` is 2025-06-16 00:00:00."""
    inner = node.this if isinstance(node, exp.Cast) else node
    return inner.name if isinstance(inner, exp.Literal) else _literal_text(node)


def _literal_text(node: exp.Expression) -> str:
    inner = node.this if isinstance(node, exp.Alias) else node
    return inner.name if isinstance(inner, exp.Literal) else inner.sql()


_CAP_NOTE = ("combinations of readings; showing", "readings (capped)", "readings; showing")
CAP_WORDS = "at least one for every value of every archetype where the cap allows"


def disagreements(report: Report) -> list[str]:
    """One line per reading whose engines give answers a person can tell apart ('reading [1]: sqlite: 364 rows;
    pg: 146 rows'): the same SQL answering differently means a schema or an engine reads it another way."""
    out = []
    for n, reading in enumerate(report.interpretations, 1):
        answers = engine_disagreement(reading)
        if answers:
            out.append(f"the engines disagree on reading [{n}]: " + "; ".join(f"{e}: {a}" for e, a in answers))
    return out


def notes_to_show(report: Report) -> list[str]:
    """The report's notes, each once, without the cap (the page says it in one line of its own) and without
    the ask of an archetype that fired (its own line says it)."""
    seen: set[str] = set()
    out = disagreements(report)  # said with the verdict: a 'clear' answer the engines do not agree on is no answer
    asks = [str(a.ask) for a in report.archetypes if len(str(a.ask or "")) > 12]  # each said on its archetype's line
    for note in report.notes:
        if note in seen or (report.capped and any(p in note for p in _CAP_NOTE)) or any(a in note for a in asks):
            continue
        seen.add(note)
        out.append(note)
    return out


SUBJECT = "insufficient_info"


def subject_question(question: str, archetypes: Sequence[Detection], value: str) -> str | None:
    """The question naming the subject a person chose for an `insufficient_info` ask ("Show me the numbers"
    and "units" make "Show me the numbers (units)"), so the rules read it again; None when that archetype did
    not fire. A value that is not one of its options is taken as the person's own words."""
    for archetype in archetypes:
        if archetype.id != SUBJECT:
            continue
        options = archetype.clarification.options if archetype.clarification is not None else []
        label = next((o.label for o in options if o.resolved_value == value), value)
        words = label.split(" (")[0] if label != value else label
        return f"{question.rstrip()} ({words})"
    return None
