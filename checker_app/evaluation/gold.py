"""Gold-answer evaluation: does some reading of the checker return what an analyst's SQL returns?

A gold case is one JSONL line (format in tests/fixtures/gold/README.md)::

    {"q": "which store sells the most laptops?", "db": "demo", "answer": "top",
     "readings": [{"label": "revenue", "sql": "SELECT ..."}, {"label": "units", "sql": "SELECT ..."}]}

Gold SQL is written for SQLite; on another engine it is transpiled by sqlglot and its identifiers are
mapped to that engine's spelling (case- and underscore-insensitively: Chinook's `AlbumId` is `album_id` on
PostgreSQL). Answers are compared by execution (AMBROSIA's AllFound measured on the real engines):

* ``top``: the winner, the non-numeric values of the first row (or its numbers when it has no labels);
* ``value``: one number, the first numeric cell of the first row (a share matches as a fraction or a percent);
* ``rows``: the set of rows, order-insensitive, with the checker's columns matched to the gold ones by value.

Scores per database: *gold found* (the share of gold readings some checker reading matches), *all found*
(the cases whose every gold reading was matched), *precision* (the share of the checker's readings that
match a gold reading), *false clear* (the verdict is clear or benign while no reading matched) and
*partial* (the verdict is partial: words were not read).
"""
from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from adapters import CheckerError, Database, RunResult
from checker_app.evaluation.table import gold_header, gold_row, share

ANSWERS = ("top", "value", "rows")
# The shapes a case may be tagged with ("shape": optional); an untagged case's shape is inferred from its SQL.
SHAPES = ("ranking", "aggregate", "ratio", "share", "change", "absence", "condition", "distribution", "superlative",
          "list", "lookup")
_KEYS = {"q", "db", "readings", "answer", "note", "shape"}
REL_TOLERANCE = 1e-6
ABS_TOLERANCE = 0.005


class GoldFileError(CheckerError):
    """A gold-case file that cannot be read, or a line that is not a valid case."""


@dataclass(frozen=True)
class GoldReading:
    label: str
    sql: str


@dataclass(frozen=True)
class GoldCase:
    question: str
    db: str
    readings: tuple[GoldReading, ...]
    answer: str
    note: str = ""
    shape: str = ""
    where: str = ""

    @property
    def clear(self) -> bool:
        return len(self.readings) == 1


def parse_gold(text: str, where: str = "<string>") -> GoldCase:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise GoldFileError(f"{where}: not valid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(data, dict):
        raise GoldFileError(f"{where}: expected a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise GoldFileError(f"{where}: unknown key(s) {', '.join(unknown)}")
    for key in ("q", "db"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise GoldFileError(f'{where}: "{key}" must be a non-empty string')
    readings = data.get("readings")
    if not isinstance(readings, list) or not readings:
        raise GoldFileError(f'{where}: "readings" must be a non-empty list')
    parsed = []
    for item in readings:
        if not isinstance(item, dict) or not isinstance(item.get("sql"), str) or not item["sql"].strip():
            raise GoldFileError(f'{where}: each reading needs a "sql" string')
        parsed.append(GoldReading(str(item.get("label") or ""), item["sql"]))
    answer = data.get("answer") or infer_answer(parsed[0].sql)
    if answer not in ANSWERS:
        raise GoldFileError(f'{where}: "answer" must be one of {", ".join(ANSWERS)}')
    if data.get("shape") not in (None, "", *SHAPES):
        raise GoldFileError(f'{where}: "shape" must be one of {", ".join(SHAPES)}')
    return GoldCase(data["q"], data["db"], tuple(parsed), answer, str(data.get("note") or ""),
                    str(data.get("shape") or ""), where)


def load_gold(path: str | Path) -> list[GoldCase]:
    """Every case of a .jsonl file, or of every .jsonl file under a directory (sorted)."""
    root = Path(path)
    files = sorted(root.rglob("*.jsonl")) if root.is_dir() else [root]
    cases: list[GoldCase] = []
    for file in files:
        try:
            lines = file.read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError) as err:
            raise GoldFileError(f"{file}: cannot read ({err})") from None
        for number, line in enumerate(lines, 1):
            if line.strip():
                cases.append(parse_gold(line, f"{file.name}:{number}"))
    return cases


def is_gold_file(path: str | Path) -> bool:
    """Whether a case file holds gold readings (else it is an archetype-label file)."""
    root = Path(path)
    files = sorted(root.rglob("*.jsonl")) if root.is_dir() else [root]
    for file in files:
        for line in file.read_text(encoding="utf-8").splitlines():
            if line.strip():
                try:
                    return "readings" in json.loads(line)
                except json.JSONDecodeError:
                    return False
    return False


def infer_answer(sql: str) -> str:
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return "rows"
    if isinstance(tree, exp.Select) and tree.args.get("limit") is not None and tree.args.get("order"):
        return "top"
    if isinstance(tree, exp.Select) and not tree.args.get("group") and any(
            isinstance(e.unalias(), exp.AggFunc) or e.find(exp.AggFunc) for e in tree.expressions) and \
            len(tree.expressions) <= 2:
        return "value"
    return "rows"


def infer_shape(case: GoldCase) -> str:
    """A label for the figures per shape: the case's tag, else one guessed from the first gold statement (some
    guesses are coarser than the tags: "change or share", "average or ratio")."""
    if case.shape:
        return case.shape
    sql = case.readings[0].sql.upper()
    if "NOT EXISTS" in sql or "NOT IN" in sql or "LEFT JOIN" in sql and "IS NULL" in sql:
        return "absence"
    if "HAVING" in sql:
        return "condition on totals"
    if "CASE WHEN" in sql and ("- SUM" in sql or "-SUM" in sql or "/ SUM" in sql or "NULLIF" in sql):
        return "change or share"
    if "STRFTIME" in sql and "GROUP BY" in sql:
        return "distribution or series"
    if "AVG(" in sql or "/" in sql:
        return "average or ratio"
    if "GROUP BY" not in sql and "SUM(" not in sql and "COUNT(" not in sql:
        return "list or lookup"
    if "ORDER BY" in sql and "LIMIT" in sql:
        return "ranking"
    return "aggregate"


# -- running gold SQL on an engine ---------------------------------------------------------------------

def _norm(name: str) -> str:
    return name.replace("_", "").replace(" ", "").lower()


def adapt(sql: str, db: Database, schema: Mapping[str, list[str]]) -> str:
    """Gold SQLite text for `db`: identifiers spelled as that engine's schema spells them, transpiled
    (on PostgreSQL a substring of a timestamp is taken of its text, and strftime('%w') is EXTRACT(DOW))."""
    if db.dialect == "sqlite":
        return sql
    tree = sqlglot.parse_one(sql, read="sqlite")
    if db.dialect == "postgres":
        for node in list(tree.find_all(exp.Substring)):
            node.set("this", exp.cast(node.this, "TEXT"))
        for node in list(tree.find_all(exp.TimeToStr)):
            if node.args["format"].name == "%w":
                node.replace(exp.Extract(this=exp.var("DOW"), expression=exp.cast(node.this, "TIMESTAMP")))
    tables = {_norm(t): t for t in schema}
    columns = {_norm(c): c for cols in schema.values() for c in cols}
    for node in tree.find_all(exp.Table):
        found = tables.get(_norm(node.name))
        if found is not None:
            node.set("this", exp.Identifier(this=found, quoted=True))
    for node in tree.find_all(exp.Column):
        found = columns.get(_norm(node.name))
        if found is not None:
            node.set("this", exp.Identifier(this=found, quoted=True))
    return tree.sql(dialect=db.dialect)


# -- comparing answers -----------------------------------------------------------------------------------

def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float, Decimal)):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= max(ABS_TOLERANCE, REL_TOLERANCE * max(abs(a), abs(b)))


def _label(value: Any) -> str:
    return " ".join(str(value).split()).casefold()


def _cell(value: Any) -> Any:
    number = _number(value)
    if number is not None:
        return round(number, 2)
    if value is None:
        return None
    text = str(value).strip()
    return text[:19] if len(text) >= 10 and text[4:5] == "-" else _label(text)


def matches(gold: RunResult, got: RunResult, answer: str) -> bool:
    """Whether the checker's result `got` gives the gold answer."""
    if not gold.ok or not got.ok:
        return False
    if not gold.rows:
        return not got.rows
    if not got.rows:
        return False
    if answer == "value":
        wanted = next((n for n in (_number(v) for v in gold.rows[0]) if n is not None), None)
        if wanted is None:
            return _label(gold.rows[0][0]) in {_label(v) for v in got.rows[0]}
        numbers = [n for n in (_number(v) for v in got.rows[0]) if n is not None]
        return any(_close(wanted, n) or _close(wanted * 100, n) or _close(wanted, n * 100) for n in numbers)
    if answer == "top":
        first, other = gold.rows[0], got.rows[0]
        labels = [_label(v) for v in first if _number(v) is None and v is not None]
        if labels:
            # the winner is the first label (a name); later text columns are details (an email, a date)
            have = {_label(v) for v in other}
            # a name split in two columns (first, last) on one side is the same winner as the full name
            joined = " ".join(labels[:2]) if len(labels) > 1 else None
            # a day asked, the moment returned: '2025-10-05' is the day of '2025-10-05 00:00:00'
            day = labels[0] if re.fullmatch(r"\d{4}-\d{2}-\d{2}", labels[0]) else None
            return labels[0] in have or _month_name(labels[0]) in have or joined in have or \
                day is not None and any(h[:10] == day and h[10:11] in (" ", "t") for h in have)
        numbers = [n for n in (_number(v) for v in other) if n is not None]
        return all(any(_close(float(g), n) for n in numbers) for g in first if _number(g) is not None)
    keys = {i for i, name in enumerate(gold.columns or ()) if re.search(r"(?:^|_|[a-z])id$", str(name), re.I)}
    return _same_rows(gold.rows, got.rows) or len(got.rows) == len(gold.rows) and bool(keys) and \
        _same_rows_but_keys(gold.rows, [[_cell(v) for v in row] for row in got.rows], keys)


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")


def _month_name(label: str) -> str | None:
    """'2024-02' -> 'february': a month of one year named by its name."""
    m = re.fullmatch(r"(?:\d{4}-)?(\d{2})", label)
    return _MONTHS[int(m.group(1)) - 1] if m and 1 <= int(m.group(1)) <= 12 else None


_QUARTER_LABEL = re.compile(r"^\d{4}-q([1-4])$")


def _same_rows(gold: list[list[Any]], got: list[list[Any]]) -> bool:
    if _rows_match(gold, got):
        return True
    # the quarters of one year numbered on one side and labelled on the other ('1997-Q1' is quarter 1)
    numbered = [[float(m.group(1)) if isinstance(v, str) and (m := _QUARTER_LABEL.match(v.strip().lower())) else v
                 for v in row] for row in got]
    if numbered != got and _rows_match(gold, numbered):
        return True
    # the days of the week numbered on one side (0 = Sunday, SQLite's %w, a number or its text) and named on the
    # other
    for number in (float, str):
        days = [[number(_WEEKDAYS.index(v.strip().lower())) if isinstance(v, str) and v.strip().lower() in _WEEKDAYS
                 else v for v in row] for row in got]
        if days != got and _rows_match(gold, days):
            return True
    return False


_WEEKDAYS = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")


def _rows_match(gold: list[list[Any]], got: list[list[Any]]) -> bool:
    wanted = {tuple(_cell(v) for v in row) for row in gold}
    width = len(gold[0])
    have = [[_cell(v) for v in row] for row in got]
    if not have:
        return False
    if len(have[0]) < width:  # (two rows may share a name: counted as rows, not as distinct names)
        # the gold lists details next to each row (a name and its email): the same rows, by fewer columns
        cells = [[_cell(v) for v in row] for row in gold]
        narrow = len(have[0])
        mine = sorted(tuple(r) for r in have)
        for columns in itertools.combinations(range(width), narrow):
            if len(gold) == len(have) and any(
                    sorted(tuple(row[i] for i in order) for row in cells) == mine
                    for order in itertools.permutations(columns)):
                return True
        return _same_rows_by_name(gold, got)
    if len({tuple(r) for r in have}) < len(wanted):
        return False
    for columns in itertools.permutations(range(len(have[0])), width):
        chosen = {tuple(row[i] for i in columns) for row in have}
        if chosen == wanted or len(chosen) == len(wanted) and _close_rows(wanted, chosen):
            return True
    return _same_rows_by_name(gold, got)


_CENT = 0.0101  # cells are rounded to cents (_cell): a half cent either side lands one cent apart


def _close_rows(wanted: set[tuple[Any, ...]], have: set[tuple[Any, ...]]) -> bool:
    """The same rows but for figures rounded on either side of a half cent (37.99499… against 37.99500…: one
    sum taken over invoices, the other over their lines)."""
    left = list(have)
    for row in wanted:
        found = next((i for i, other in enumerate(left) if all(
            abs(a - b) <= _CENT if isinstance(a, float) and isinstance(b, float) else a == b
            for a, b in zip(row, other, strict=True))), None)
        if found is None:
            return False
        left.pop(found)
    return True


def _same_rows_but_keys(gold: list[list[Any]], have: list[list[Any]], key_columns: set[int]) -> bool:
    """The gold lists each row with its key (an id column: two playlists called Music told apart), the reading
    by name and a figure: the same rows, counted as rows, once the gold's key column is set aside."""
    cells = [[_cell(v) for v in row] for row in gold]
    for k in sorted(key_columns):
        keys = [row[k] for row in cells]
        if len(cells[0]) < 2 or len(set(keys)) != len(keys):
            continue
        rest = sorted((tuple(v for i, v in enumerate(row) if i != k) for row in cells), key=repr)
        if not any(isinstance(v, str) for row in rest for v in row):
            continue  # the rows are named by their text, not by other numbers
        for columns in itertools.permutations(range(len(have[0])), len(rest[0])):
            if sorted((tuple(row[i] for i in columns) for row in have), key=repr) == rest:
                return True
    return False


def _same_rows_by_name(gold: list[list[Any]], got: list[list[Any]]) -> bool:
    """The same rows named another way: first and last name in two columns against one full name, a last
    name against the full name, a full name against the gold's name and city. Each gold row's words must be in its
    own row of the reading's, or that row's words in the gold row's, its numbers too, and there are as many rows."""
    if len(gold) != len(got):
        return False

    def key(row: list[Any]) -> tuple[set[str], list[float]]:
        texts = " ".join(_label(v) for v in row if v is not None and _number(v) is None)
        return set(re.findall(r"\w+", texts)), sorted(round(n, 2) for n in (_number(v) for v in row) if n is not None)

    left = [key(r) for r in got]
    for words, numbers in (key(r) for r in gold):
        if not words:
            return False
        found = next((i for i, (w, n) in enumerate(left) if (words <= w or w and w <= words) and all(
            any(_close(x, y) for y in n) for x in numbers)), None)
        if found is None:
            return False
        left.pop(found)
    return True


# -- scoring ------------------------------------------------------------------------------------------------

@dataclass
class CaseResult:
    case: GoldCase
    engine: str
    verdict: str
    readings: int
    gold_found: list[bool]
    matched_readings: int
    errors: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    @property
    def all_found(self) -> bool:
        return all(self.gold_found)

    @property
    def false_clear(self) -> bool:
        return self.verdict in ("clear", "benign") and not any(self.gold_found)

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.case.where, "q": self.case.question, "db": self.case.db, "engine": self.engine,
                "verdict": self.verdict, "readings": self.readings, "gold_found": self.gold_found,
                "matched_readings": self.matched_readings, "errors": self.errors, "ignored": self.ignored}


@dataclass
class Scores:
    cases: int = 0
    gold: int = 0
    found: int = 0
    all_found: int = 0
    readings: int = 0
    matched: int = 0
    false_clear: int = 0
    partial: int = 0

    def add(self, result: CaseResult) -> None:
        self.cases += 1
        self.gold += len(result.gold_found)
        self.found += sum(result.gold_found)
        self.all_found += result.all_found
        self.readings += result.readings
        self.matched += result.matched_readings
        self.false_clear += result.false_clear
        self.partial += result.verdict == "partial"

    def to_dict(self) -> dict[str, Any]:
        return {"cases": self.cases, "gold_found": share(self.found, self.gold, 3),
                "all_found": share(self.all_found, self.cases, 3), "precision": share(self.matched, self.readings, 3),
                "false_clear": share(self.false_clear, self.cases, 3), "partial": share(self.partial, self.cases, 3),
                "gold_readings": self.gold, "checker_readings": self.readings}


@dataclass
class GoldReport:
    results: list[CaseResult]
    skipped: list[str] = field(default_factory=list)

    def scores(self, key: Callable[[CaseResult], str] | None = None) -> dict[str, Scores]:
        out: dict[str, Scores] = {}
        for result in self.results:
            name = key(result) if key else "all"
            out.setdefault(name, Scores()).add(result)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"overall": self.scores()["all"].to_dict() if self.results else Scores().to_dict(),
                "per_db": {k: v.to_dict() for k, v in sorted(self.scores(lambda r: r.case.db).items())},
                "per_shape": {k: v.to_dict() for k, v in sorted(self.scores(lambda r: infer_shape(r.case)).items())},
                "cases": [r.to_dict() for r in self.results], "skipped": list(self.skipped)}


Checker = Callable[[GoldCase, Database], tuple[str, list[RunResult], list[str]]]


def rules_checker(cap: int = 8) -> Checker:
    """The rules' readings of a case on one database, checked as `check` checks a question (one run path,
    one verdict): (verdict, one result per reading, words not read)."""
    from checker_app.pipeline import CheckOptions, check

    def run(case: GoldCase, db: Database) -> tuple[str, list[RunResult], list[str]]:
        report = check(case.question, [db], CheckOptions(cap=cap))
        results = [r.results[db.name] for r in report.interpretations if db.name in r.results]
        return report.verdict, results, [i.text for i in report.understood.ignored]

    return run


def evaluate_gold(cases: Iterable[GoldCase], databases: Mapping[str, Database],
                  checker: Checker | None = None) -> GoldReport:
    checker = checker or rules_checker()
    report = GoldReport(results=[])
    schemas: dict[str, dict[str, list[str]]] = {}
    for case in cases:
        db = databases.get(case.db)
        if db is None:
            report.skipped.append(f"{case.where}: no --db {case.db}")
            continue
        if case.db not in schemas:
            from checker_app.profiles import load_schema

            schemas[case.db] = {t.name: [c.name for c in t.columns] for t in load_schema(db).tables}
        errors: list[str] = []
        gold_results = []
        for reading in case.readings:
            try:
                result = db.run(adapt(reading.sql, db, schemas[case.db]))
            except (sqlglot.errors.SqlglotError, CheckerError) as err:
                errors.append(f"gold {reading.label or '?'}: {str(err).splitlines()[0]}")
                continue
            if not result.ok:
                errors.append(f"gold {reading.label or '?'}: {result.error.message if result.error else result.status}")
            gold_results.append(result)
        try:
            verdict, got, ignored = checker(case, db)
        except CheckerError as err:
            verdict, got, ignored = "error", [], []
            errors.append(f"checker: {str(err).splitlines()[0]}")
        found = [any(matches(g, r, case.answer) for r in got) for g in gold_results]
        matched = sum(1 for r in got if any(matches(g, r, case.answer) for g in gold_results))
        report.results.append(CaseResult(case, db.name, verdict, len(got), found, matched, errors, ignored))
    return report


def report_text(report: GoldReport) -> str:
    lines = [gold_header()]

    def row(name: str, scores: Scores) -> str:
        return gold_row(name, scores.to_dict())

    for name, scores in sorted(report.scores(lambda r: r.case.db).items()):
        lines.append(row(name, scores))
    if report.results:
        lines.append(row("all", report.scores()["all"]))
    lines.append("")
    tagged = sum(bool(r.case.shape) for r in report.results)
    lines.append("per shape" + ("" if tagged == len(report.results) else
                                f" ({tagged} of {len(report.results)} cases tagged; the others' shape is "
                                "guessed from their SQL)"))
    for name, scores in sorted(report.scores(lambda r: infer_shape(r.case)).items()):
        lines.append(row(name, scores))
    missed = [r for r in report.results if not r.all_found]
    if missed:
        lines.append("")
        lines.append("not all found:")
        for result in missed:
            lost = [g.label or str(i + 1) for i, (g, ok) in enumerate(zip(result.case.readings, result.gold_found))
                    if not ok]
            why = f"; not read: {', '.join(result.ignored)}" if result.ignored else ""
            lines.append(f"  {result.case.where} [{result.verdict}] {result.case.question!r}: missed "
                         f"{', '.join(lost) or 'all'}{why}")
    for problem in (e for r in report.results for e in r.errors):
        lines.append(f"  error: {problem}")
    for skip in report.skipped:
        lines.append(f"  skipped: {skip}")
    return "\n".join(lines)
