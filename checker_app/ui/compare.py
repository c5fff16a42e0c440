"""The compare-SQL page: several statements (say, what a model wrote) side by side on every engine.

Each statement is checked and rendered per engine (`checker_app.commands.run.render_for`), run with the
repair pass, and the same verdicts as a check say whether engines and statements agree.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot.errors import SqlglotError
from sqlglot.tokens import Tokenizer, TokenType

from adapters import CheckerError, Database, Job, Limits, run_side_by_side
from adapters.runner import RunOne
from checker_app.commands.run import render_for
from checker_app.report import ReadingResult
from checker_app.ui.config import redact
from checker_app.ui.display import VerdictView
from checker_app.verdict import engines_agree, readings_divergent

MAX_STATEMENTS = 12
_LABEL = re.compile(r"^\s*--\s*(.+?)\s*$")

EXAMPLE_SQL = """-- by revenue
SELECT p.name, SUM(oi.unit_price * oi.quantity) AS revenue
FROM order_items oi JOIN products p ON oi.product_id = p.id
GROUP BY p.name ORDER BY revenue DESC LIMIT 3;

-- by units
SELECT p.name, SUM(oi.quantity) AS units
FROM order_items oi JOIN products p ON oi.product_id = p.id
GROUP BY p.name ORDER BY units DESC LIMIT 3;
"""


@dataclass
class Statement:
    label: str
    sql: str


@dataclass
class Comparison:
    items: list[ReadingResult] = field(default_factory=list)
    rejected: dict[str, str] = field(default_factory=dict)   # item id -> why it was not run
    divergent: bool | None = None
    distinct: int = 0
    engines: list[dict[str, str]] = field(default_factory=list)

    @property
    def verdict(self) -> str:
        if self.divergent is True:
            return "material"
        if self.divergent is False:
            return "benign"
        return "unanswered"

    def view(self) -> VerdictView:
        """The verdict as the pages show it."""
        if len(self.items) == 1:
            return self._one_view()
        detail = {"material": "The statements give different answers: decide which one answers the question.",
                  "benign": "Every statement gives the same answer on this data."}.get(
            self.verdict, "Not enough statements ran to compare them.")
        kind = "same" if self.verdict == "benign" else self.verdict  # same SQL answer: good news here
        return VerdictView(kind, self.verdict_text, detail)

    def _one_view(self) -> VerdictView:
        """One statement and no other mapping of it: what it answers, and whether a repair needs a choice."""
        item = self.items[0]
        if item.id in self.rejected:
            return VerdictView("unanswered", "the statement was not run", self.rejected[item.id])
        repairs = [r for result in item.results.values() for r in result.repairs]
        if any(r.get("candidates") and r.get("agree") is False for r in repairs):
            return VerdictView("material", "1 statement, an ambiguous column: the candidates give different answers",
                               "The engines could not tell which table a column comes from. Each candidate is "
                               "shown below with its SQL and result: use the one you mean.")
        if item.first_ok() is None:
            return VerdictView("unanswered", "1 statement, no engine answered", "Each engine's status is below.")
        repaired = " after a repair" if repairs else ""
        return VerdictView("same", f"1 statement, answered{repaired}",
                           "This schema offers no other mapping for it (no split-off column or precomputed table "
                           "answers it another way); it ran on every engine.")

    @property
    def verdict_text(self) -> str:
        n = len(self.items)
        if self.divergent is True:
            return f"{n} statements, {self.distinct} different answers"
        if self.divergent is False:
            return f"{n} statements, same answer"
        if n < 2:
            return "paste at least two statements to compare"
        return "fewer than two statements ran: nothing to compare"


def _label_of(chunk: str, n: int) -> str:
    for line in chunk.strip().splitlines():
        match = _LABEL.match(line)
        if match:
            return match.group(1)[:60]
        if line.strip():
            break
    return f"Statement {n}"


def split_statements(text: str) -> list[Statement]:
    """Statements separated by top-level semicolons (not those inside strings or comments); a leading
    `-- comment` names a statement."""
    try:
        tokens = Tokenizer().tokenize(text)
        cuts = [t.end for t in tokens if t.token_type == TokenType.SEMICOLON]
    except Exception:  # noqa: BLE001 - untokenizable text: one statement, reported when it is parsed
        cuts = []
    chunks, start = [], 0
    for cut in cuts:
        chunks.append(text[start:cut])  # without the semicolon itself
        start = cut + 1
    chunks.append(text[start:])
    statements = []
    for chunk in chunks:
        body = "\n".join(line for line in chunk.splitlines() if not _LABEL.match(line)).strip()
        if body:
            statements.append(Statement(_label_of(chunk, len(statements) + 1), body))
    return statements


def default_run_one(repair: bool = True) -> RunOne:
    """The repair pass, or a plain run."""
    if repair:
        from adapters.repair import run_with_repair

        return run_with_repair
    return lambda db, sql, limits: db.run(sql, limits)


def expand_statements(statements: Sequence[Statement], databases: Sequence[Database],
                      read: str | None = None) -> list[Statement]:
    """Each pasted statement followed by the statements that answer it through the schema's other mappings
    (split-off columns, precomputed aggregate tables, ...), read from the first connection's schema."""
    from checker_app.expansion import with_alternatives

    if not databases:
        return list(statements)
    return with_alternatives(list(statements), databases[0], read or None, limit=MAX_STATEMENTS)


def compare(statements: Sequence[Statement], databases: Sequence[Database], limits: Limits | None = None,
            read: str | None = None, repair: bool = True, secrets: Sequence[str] = ()) -> Comparison:
    comparison = Comparison(engines=[db.config.describe() for db in databases])
    jobs: list[Job] = []
    for n, statement in enumerate(statements[:MAX_STATEMENTS], 1):
        item = ReadingResult(id=f"s{n}", label=statement.label, choices={}, source="pasted")
        comparison.items.append(item)
        try:
            item.sql = render_for(statement.sql, read or None, list(databases))
        except (CheckerError, SqlglotError, ValueError) as err:
            comparison.rejected[item.id] = redact(str(err).splitlines()[0] if str(err) else "rejected", list(secrets))
            item.sql = {db.name: statement.sql for db in databases}
            continue
        jobs.append(Job(item.id, item.sql))
    results = run_side_by_side(jobs, databases, limits, run_one=default_run_one(repair)) if jobs else {}
    for item in comparison.items:
        item.results = results.get(item.id, {})
        for result in item.results.values():
            if result.error is not None:
                result.error = type(result.error)(result.error.kind, result.error.code,
                                                  redact(result.error.message, list(secrets)), result.error.position)
        item.engines_agree = engines_agree(list(item.results.values()))
    firsts = [r for i in comparison.items if (r := i.first_ok()) is not None]
    comparison.divergent, comparison.distinct = readings_divergent(firsts)
    return comparison
