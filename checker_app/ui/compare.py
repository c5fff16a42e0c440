"""The compare-SQL page: several statements (say, what a model wrote) side by side on every engine.

Each statement is checked and rendered per engine (`checker_app.statements.render_for`), run with the
repair pass (`run_statements`), and the verdict function of a check says whether engines and statements agree.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from sqlglot.errors import SqlglotError
from sqlglot.tokens import Tokenizer, TokenType

from adapters import CheckerError, Database, Job, Limits
from checker_app.report import EngineInfo, ReadingResult
from checker_app.statements import render_for, run_statements
from checker_app.ui.config import redact
from checker_app.ui.display import VerdictView
from checker_app.verdict import Verdict, divergence, engines_agree, judge

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
    engines: list[EngineInfo] = field(default_factory=list)

    def judged(self) -> Verdict:
        return judge(self.items, ambiguous=True, divergent=self.divergent, distinct=self.distinct, noun="statements")

    @property
    def verdict(self) -> str:
        return self.judged().kind

    @property
    def verdict_text(self) -> str:
        return self.judged().text

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
    comparison = Comparison(engines=[EngineInfo(**db.describe()) for db in databases])
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
    results = run_statements(jobs, databases, limits, repair)
    for item in comparison.items:
        item.results = results.get(item.id, {})
        for result in item.results.values():
            if result.error is not None:
                result.error = type(result.error)(result.error.kind, result.error.code,
                                                  redact(result.error.message, list(secrets)), result.error.position)
        item.engines_agree = engines_agree(list(item.results.values()))
    comparison.divergent, comparison.distinct = divergence(comparison.items)
    return comparison
