"""AmbiQT examples as small SQLite databases, and the schema_mapping archetype measured on them.

An AmbiQT record (https://github.com/testzer0/AmbiQT, MIT) carries its schema as text, three sample values
per column::

    department : creation ("1849", "1903", "1966"), budget_in_billions (21.5, 23.4, 44.6) | head : ...

`parse_schema` reads that text (quoted values may hold commas, parentheses and stray quotes), `build_database`
writes one SQLite file per example: a table per entry, column types from the values (INTEGER, REAL, else
TEXT), row i made of the i-th value of every column (NULL where a column lists fewer). No keys are declared:
the listed samples repeat key values, and the record names no foreign keys.

`evaluate_records` then asks, per example: does `schema_mapping` fire on the question (detection on the
database's profile), and does one of the alternatives `expand_sql` derives from `query1` return the same
rows as `query2` (both readings found)? Rows are compared as sorted multisets with floats rounded. Examples
where `query1` and `query2` already return the same rows are counted separately as uninformative.

Categories: P (tbl-agg, precomputed aggregate tables) and J (tbl-split, a column split off into its own
table) come with questions. C (column synonyms) and T (table synonyms) are built here from the P and J
records plus the synonym files: the record's extra table is dropped (back to the original schema), then
for C one column used by `orig_query` is replaced by its two synonyms (same values, query1 names the first,
query2 the second); for T one table used by `orig_query` is replaced by two tables named by its synonyms
(same columns and rows, query1 reads the first, query2 the second).

Nothing here imports streamlit or openai; the data is read from the dataset folder at run time.
"""
from __future__ import annotations

import json
import math
import re
import sqlite3
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CATEGORIES = {"P": "precomputed aggregate table (tbl-agg)", "J": "column split into its own table (tbl-split)",
              "C": "column synonyms (built from P/J + two_col_synonyms)",
              "T": "table synonyms (built from P/J + two_tbl_synonyms)"}
_NUMBER = re.compile(r"-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_VALUE_END = re.compile(r'\s*(?:,\s*(?=["\-\d.N])|\)\s*(?:,|\||$))')


class AmbiqtError(ValueError):
    """A record or a schema text that cannot be read."""


# -- the schema text ------------------------------------------------------------------------------

@dataclass
class Column:
    name: str
    values: list[Any] = field(default_factory=list)   # str | int | float | None
    quoted: bool = False                              # at least one value was a quoted string

    @property
    def type(self) -> str:
        present = [v for v in self.values if v is not None]
        if self.quoted or not present:
            return "TEXT"
        if all(isinstance(v, int) for v in present):
            return "INTEGER"
        return "REAL"


@dataclass
class Table:
    name: str
    columns: list[Column] = field(default_factory=list)

    def column(self, name: str) -> Column | None:
        return next((c for c in self.columns if c.name.lower() == name.lower()), None)


def parse_schema(text: str) -> list[Table]:
    """`t : c (v, v), c2 (v) | t2 : ...` as tables with their sample values."""
    if not isinstance(text, str) or " : " not in text:
        raise AmbiqtError("schema text: expected 'table : column (values), ... | table : ...'")
    reader = _Reader(text)
    tables: list[Table] = []
    while not reader.done():
        name = reader.until(" : ").strip()
        if not name:
            raise AmbiqtError(f"schema text: empty table name at {reader.pos}")
        table = Table(name)
        while True:
            column_name = reader.name()
            if column_name:
                table.columns.append(reader.values(Column(column_name)))
            if reader.take(", "):
                continue
            if reader.take(" | ") or reader.take(" |") or reader.done():
                break
            raise AmbiqtError(f"schema text: unexpected {reader.text[reader.pos:reader.pos + 20]!r} at {reader.pos}")
        if not table.name.lower().startswith("sqlite_"):  # SQLite's own tables cannot be created
            tables.append(table)
    return tables


class _Reader:
    def __init__(self, text: str) -> None:
        self.text, self.pos = text.strip(), 0

    def done(self) -> bool:
        return self.pos >= len(self.text)

    def take(self, token: str) -> bool:
        if self.text.startswith(token, self.pos):
            self.pos += len(token)
            return True
        return False

    def until(self, token: str) -> str:
        end = self.text.find(token, self.pos)
        if end < 0:
            raise AmbiqtError(f"schema text: expected {token!r} after {self.pos}")
        value, self.pos = self.text[self.pos:end], end + len(token)
        return value

    def name(self) -> str:
        match = re.compile(r"[^(,|]*").match(self.text, self.pos)
        raw = match.group(0) if match else ""
        self.pos += len(raw)
        return raw.strip()

    def values(self, column: Column) -> Column:
        if not self.take("("):
            return column
        while not self.take(")"):
            self.take(" ")
            if self.text.startswith('"', self.pos):
                column.values.append(self._quoted())
                column.quoted = True
            else:
                match = re.compile(r"[^,)]*").match(self.text, self.pos)
                raw = match.group(0)
                self.pos += len(raw)
                column.values.append(_scalar(raw.strip()))
            self.take(",")
            if self.done():
                raise AmbiqtError(f"schema text: unclosed values of {column.name!r}")
        return column

    def _quoted(self) -> str:
        start = self.pos + 1
        search = start
        while True:
            end = self.text.find('"', search)
            if end < 0:
                raise AmbiqtError(f"schema text: unclosed string at {self.pos}")
            if _VALUE_END.match(self.text, end + 1) or end + 1 >= len(self.text):
                self.pos = end + 1
                return self.text[start:end]
            search = end + 1


def _scalar(raw: str) -> Any:
    if raw in ("", "None", "null", "NULL"):
        return None
    if _NUMBER.fullmatch(raw):
        number = float(raw)
        return int(number) if re.fullmatch(r"-?\d+", raw) else number
    return raw


# -- one SQLite file per example -------------------------------------------------------------------

def quote_identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def create_statements(tables: Sequence[Table]) -> list[str]:
    statements = []
    for table in tables:
        columns = ", ".join(f"{quote_identifier(c.name)} {c.type}" for c in table.columns) or '"_" TEXT'
        statements.append(f"CREATE TABLE {quote_identifier(table.name)} ({columns})")
    return statements


def rows_of(table: Table) -> list[tuple]:
    count = max((len(c.values) for c in table.columns), default=0)
    return [tuple(c.values[i] if i < len(c.values) else None for c in table.columns) for i in range(count)]


def build_database(tables: Sequence[Table], path: str | Path) -> str:
    """Write `tables` into a new SQLite file at `path` (values bound as parameters); returns its URL."""
    path = Path(path)
    if path.exists():
        path.unlink()
    conn = sqlite3.connect(path)
    try:
        for table, statement in zip(tables, create_statements(tables)):
            conn.execute(statement)
            rows = rows_of(table)
            if rows and table.columns:
                marks = ", ".join("?" for _ in table.columns)
                conn.executemany(f"INSERT INTO {quote_identifier(table.name)} VALUES ({marks})", rows)
        conn.commit()
    finally:
        conn.close()
    return f"sqlite:///{path}"


# -- records and categories ----------------------------------------------------------------------

@dataclass
class Example:
    category: str
    index: int
    question: str
    query1: str
    query2: str
    tables: list[Table]
    db_id: str = ""
    source: str = ""
    mapped: tuple[str, str] | None = None   # (table, column) the ambiguity is about, from the record's split_map
    original: str = ""                      # the Spider query on the original schema (orig_query)

    def reads(self, table: str, column: str) -> bool:
        """Whether the original query names the column (or, column empty, the table) at all."""
        text = (self.original or self.query1).lower()
        return re.search(r"(?<![a-z0-9_])" + re.escape((column or table).lower()) + r"(?![a-z0-9_])", text) is not None


def load_records(path: str | Path) -> list[dict]:
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise AmbiqtError(f"{path}: cannot read AmbiQT records: {err}") from None
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise AmbiqtError(f"{path}: expected a JSON array of records")
    return data


def category_of(record: dict, path: str | Path = "") -> str:
    """P when the extra table holds aggregates (split_map lists max_/avg_ columns), J when it holds a column."""
    split = record.get("split_map")
    if isinstance(split, dict) and split:
        first = next(iter(split.values()))
        return "P" if isinstance(first, list) else "J"
    name = str(path)
    return "P" if "agg" in name else "J"


def examples_from(records: Sequence[dict], path: str | Path = "") -> list[Example]:
    found = []
    for index, record in enumerate(records):
        missing = [k for k in ("question", "query1", "query2", "schema_with_content") if not record.get(k)]
        if missing:
            raise AmbiqtError(f"{path}: record {index} lacks {', '.join(missing)}")
        found.append(Example(category_of(record, path), index, record["question"], record["query1"],
                             record["query2"], parse_schema(record["schema_with_content"]),
                             str(record.get("db_id", "")), str(path), _mapped(record),
                             str(record.get("orig_query") or record["query1"])))
    return found


def _mapped(record: dict) -> tuple[str, str] | None:
    split = record.get("split_map")
    if not isinstance(split, dict) or not split:
        return None
    table, what = next(iter(split.items()))
    if isinstance(what, list):
        return (table, str(what[0]).split("_", 1)[1]) if what and "_" in str(what[0]) else None
    return table, str(what)


def _base_tables(record: dict) -> list[Table]:
    """The record's schema without the table AmbiQT added (the split-off or aggregate table)."""
    tables = parse_schema(record["schema_with_content"])
    split = record.get("split_map") or {}
    added = set()
    for base, what in split.items():
        columns = what if isinstance(what, list) else [what]
        if isinstance(what, list):
            added.add(f"{base}_{columns[0].split('_', 1)[1]}".lower())
        else:
            added.add(f"{base}_{what}".lower())
    return [t for t in tables if t.name.lower() not in added]


def synonym_examples(records: Sequence[dict], synonyms: dict, kind: str, limit: int | None = None) -> list[Example]:
    """C (kind 'column') or T (kind 'table') variants of P/J records, built as the module docstring says."""
    import sqlglot
    from sqlglot import exp

    found: list[Example] = []
    seen: set[tuple[str, str]] = set()
    for index, record in enumerate(records):
        if limit is not None and len(found) >= limit:
            break
        db = synonyms.get(record.get("db_id", ""), {})
        sql = record.get("orig_query") or record.get("query1")
        if not db or not sql or (record.get("db_id"), sql) in seen:
            continue
        try:
            tree = sqlglot.parse_one(sql, read="mysql")
        except Exception:  # noqa: BLE001 - a record whose SQL sqlglot cannot read is skipped
            continue
        tables = _base_tables(record)
        by_name = {t.name.lower(): t for t in tables}
        used = [t.name.lower() for t in tree.find_all(exp.Table) if t.name.lower() in by_name]
        if not used or len(set(used)) > 1 and kind == "column":
            continue
        entries = {k.lower(): v for k, v in db.items()}
        if kind == "table":
            name, target = used[0], ""
            pair = entries.get(name)
            if not (isinstance(pair, list) and len(pair) == 2) or any(_clash(p, by_name) for p in pair):
                continue
            first, second = (_identifier(p) for p in pair)
            original = by_name[name]
            variant = [t for t in tables if t.name.lower() != name]
            variant += [Table(first, original.columns), Table(second, original.columns)]
            query1, query2 = _rename_table(tree, name, first), _rename_table(tree, name, second)
        else:
            name = used[0]
            columns = {k.lower(): v for k, v in (entries.get(name) or {}).items()}
            referenced = [c.name.lower() for c in tree.find_all(exp.Column)]
            target = next((c for c in referenced if c in columns and by_name[name].column(c) is not None
                           and isinstance(columns[c], list) and len(columns[c]) == 2), None)
            if target is None:
                continue
            first, second = (_identifier(p) for p in columns[target])
            if first.lower() == second.lower() or any(by_name[name].column(p) for p in (first, second)):
                continue
            original = by_name[name]
            replaced: list[Column] = []
            for column in original.columns:
                if column.name.lower() == target:
                    replaced += [Column(first, list(column.values), column.quoted),
                                 Column(second, list(column.values), column.quoted)]
                else:
                    replaced.append(column)
            variant = [Table(t.name, replaced) if t is original else t for t in tables]
            query1, query2 = _rename_column(tree, target, first), _rename_column(tree, target, second)
        seen.add((record.get("db_id"), sql))
        found.append(Example("T" if kind == "table" else "C", index, record["question"], query1, query2, variant,
                             str(record.get("db_id", "")), mapped=(name, target if kind == "column" else ""),
                             original=sql))
    return found


def _identifier(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text.strip()).strip("_").lower() or "x"


def _clash(name: str, by_name: dict[str, Table]) -> bool:
    return _identifier(name) in by_name


def _rename_table(tree: Any, old: str, new: str) -> str:
    from sqlglot import exp

    copy = tree.copy()
    for table in copy.find_all(exp.Table):
        if table.name.lower() == old:
            if not table.alias:
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            table.set("this", exp.to_identifier(new))
    return copy.sql(dialect="sqlite")


def _rename_column(tree: Any, old: str, new: str) -> str:
    from sqlglot import exp

    copy = tree.copy()
    for column in copy.find_all(exp.Column):
        if column.name.lower() == old:
            column.set("this", exp.to_identifier(new))
    return copy.sql(dialect="sqlite")


def load_examples(path: str | Path, limit: int | None = None, synonyms_dir: str | Path | None = None) -> list[Example]:
    """Examples of one AmbiQT file: P/J records as they are; a synonyms file (two_col_synonyms.json or
    two_tbl_synonyms.json) gives C/T variants built from the P and J files found next to it."""
    path = Path(path)
    if "synonyms" in path.name:
        synonyms = _load_json(path)
        root = Path(synonyms_dir) if synonyms_dir else path.parent.parent
        records = []
        for name in ("tbl-agg/train.json", "tbl-split/validation-even.json"):
            if (root / name).exists():
                records.extend(load_records(root / name))
        if not records:
            raise AmbiqtError(f"{path}: the tbl-agg / tbl-split records to build variants from are not in {root}")
        kind = "table" if "tbl" in path.name else "column"
        return synonym_examples(records, synonyms, kind, limit)
    examples = examples_from(load_records(path), path)
    return examples[:limit] if limit is not None else examples


KNOWN_FILES = ("tbl-agg/train.json", "tbl-split/validation-even.json", "col-synonyms/two_col_synonyms.json",
               "tbl-synonyms/two_tbl_synonyms.json")


def load_path(path: str | Path, limit: int | None = None) -> list[Example]:
    """Examples of a file, or of every known AmbiQT file under a directory (`limit` per file)."""
    path = Path(path)
    if path.is_file():
        return load_examples(path, limit)
    if not path.is_dir():
        raise AmbiqtError(f"{path}: no such file or directory")
    root = path / "benchmark" if (path / "benchmark").is_dir() else path
    files = [root / name for name in KNOWN_FILES if (root / name).is_file()]
    if not files:
        raise AmbiqtError(f"{path}: none of {', '.join(KNOWN_FILES)} is there")
    examples: list[Example] = []
    for file in files:
        examples.extend(load_examples(file, limit))
    return examples


def _load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise AmbiqtError(f"{path}: cannot read: {err}") from None


# -- measuring -------------------------------------------------------------------------------------

@dataclass
class Outcome:
    example: Example
    fired: bool
    found: bool
    informative: bool               # query1 and query2 return different rows
    alternatives: int = 0
    error: str | None = None
    controls: int = 0               # questions of the same database about other columns, asked of this one
    controls_fired: int = 0         # ... on which schema_mapping fired anyway

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.example.category, "index": self.example.index, "question": self.example.question,
                "fired": self.fired, "found": self.found, "informative": self.informative,
                "alternatives": self.alternatives, "controls": self.controls,
                "controls_fired": self.controls_fired, "error": self.error}


@dataclass
class CategoryScore:
    category: str
    examples: int = 0
    fired: int = 0
    found: int = 0
    informative: int = 0
    found_informative: int = 0
    errors: int = 0
    controls: int = 0
    controls_fired: int = 0

    @property
    def fires_share(self) -> float | None:
        return self.fired / self.examples if self.examples else None

    @property
    def found_share(self) -> float | None:
        return self.found / self.examples if self.examples else None

    @property
    def control_share(self) -> float | None:
        return self.controls_fired / self.controls if self.controls else None

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "examples": self.examples, "fires": self.fires_share,
                "both_found": self.found_share, "fired": self.fired, "found": self.found,
                "informative": self.informative, "found_informative": self.found_informative,
                "controls": self.controls, "controls_fired": self.controls_fired,
                "control_fires": self.control_share, "errors": self.errors}


@dataclass
class AmbiqtReport:
    scores: dict[str, CategoryScore]
    outcomes: list[Outcome]
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"categories": {k: s.to_dict() for k, s in self.scores.items()},
                "seconds": round(self.seconds, 2),
                "misses": [o.to_dict() for o in self.outcomes if not (o.fired and o.found)]}


def rows_key(rows: Iterable[Sequence[Any]]) -> list[tuple]:
    """Rows as a sorted multiset, floats rounded (engines and sums differ in the last digits)."""
    def cell(value: Any) -> Any:
        if isinstance(value, float):
            return ("n", round(value, 6)) if math.isfinite(value) else ("n", str(value))
        if isinstance(value, int) and not isinstance(value, bool):
            return ("n", float(value))
        if value is None:
            return ("z", "")
        return ("s", str(value))
    return sorted(tuple(cell(v) for v in row) for row in rows)


def _run(conn: sqlite3.Connection, sql: str) -> list[tuple] | None:
    deadline = time.monotonic() + 5.0
    conn.set_progress_handler(lambda: 1 if time.monotonic() > deadline else 0, 10_000)
    try:
        return conn.execute(sql).fetchmany(10_000)
    except sqlite3.Error:
        return None
    finally:
        conn.set_progress_handler(None, 0)


def evaluate_example(example: Example, workdir: str | Path, controls: Sequence[str] = ()) -> Outcome:
    """Build the example's database, detect on the question, expand query1, compare with query2; then ask
    the `controls` (questions about other columns of the same database) and count where it fires anyway."""
    from adapters import Database, introspect, parse_db_option
    from archetypes import build_profile, detect
    from archetypes.expand import expand_sql

    url = build_database(example.tables, Path(workdir) / f"{example.category}_{example.index}.sqlite")
    db = Database(parse_db_option(f"ambiqt={url}"))
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    try:
        schema = introspect(db.engine, dialect="sqlite")

        def lookup(query: Any) -> list[tuple]:
            rows = _run(conn, query.sql(dialect="sqlite"))
            if rows is None:
                raise RuntimeError("lookup failed")
            return rows

        profile = build_profile(schema, lookup)

        def fires(question: str) -> bool:
            return any(d.archetype == "schema_mapping" for d in detect(question, profile, lookup))

        fired = fires(example.question)
        control_fired = sum(fires(q) for q in controls)
        first, second = _run(conn, example.query1), _run(conn, example.query2)
        if second is None:
            return Outcome(example, fired, False, False, error="query2 does not run on the built database",
                           controls=len(controls), controls_fired=control_fired)
        target = rows_key(second)
        informative = first is None or rows_key(first) != target
        alternatives = expand_sql(example.query1, profile, "sqlite", read="mysql")
        found = False
        for alternative in alternatives:
            rows = _run(conn, alternative.sql)
            if rows is not None and rows_key(rows) == target:
                found = True
                break
        return Outcome(example, fired, found, informative, len(alternatives), controls=len(controls),
                       controls_fired=control_fired)
    except Exception as err:  # noqa: BLE001 - one broken example is an error row, not the end of the run
        return Outcome(example, False, False, False, error=f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}")
    finally:
        conn.close()
        db.dispose()


def control_questions(example: Example, pool: Sequence[Example], limit: int = 2) -> list[str]:
    """Questions of other examples on the same database whose query never names the mapped column (or, for
    table synonyms, the table): schema_mapping should stay silent on them."""
    if example.mapped is None:
        return []
    table, column = example.mapped
    found: list[str] = []
    for other in pool:
        if len(found) >= limit:
            break
        if (other.db_id != example.db_id or other.question == example.question or other.question in found
                or other.reads(table, column)):
            continue
        found.append(other.question)
    return found


def evaluate_examples(examples: Sequence[Example], progress: Callable[[int], None] | None = None,
                      controls: int = 2) -> AmbiqtReport:
    started = time.perf_counter()
    scores: dict[str, CategoryScore] = {}
    outcomes: list[Outcome] = []
    with tempfile.TemporaryDirectory(prefix="ambiqt_") as workdir:
        for n, example in enumerate(examples, 1):
            outcome = evaluate_example(example, workdir, control_questions(example, examples, controls))
            Path(workdir, f"{example.category}_{example.index}.sqlite").unlink(missing_ok=True)
            outcomes.append(outcome)
            score = scores.setdefault(example.category, CategoryScore(example.category))
            score.examples += 1
            score.fired += outcome.fired
            score.found += outcome.found
            score.informative += outcome.informative
            score.found_informative += outcome.found and outcome.informative
            score.errors += outcome.error is not None
            score.controls += outcome.controls
            score.controls_fired += outcome.controls_fired
            if progress:
                progress(n)
    return AmbiqtReport(scores, outcomes, time.perf_counter() - started)


def report_text(report: AmbiqtReport) -> str:
    rows = [("category", "examples", "fires", "both found", "found (informative)", "control fires", "errors")]
    for key in sorted(report.scores, key=lambda k: "PJCT".find(k)):
        s = report.scores[key]
        rows.append((f"{key} {CATEGORIES.get(key, '')}", str(s.examples), _fmt(s.fires_share), _fmt(s.found_share),
                     f"{s.found_informative}/{s.informative}",
                     f"{_fmt(s.control_share)} ({s.controls_fired}/{s.controls})", str(s.errors)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    lines.append("")
    lines.append("fires: share of examples where schema_mapping fires on the question. both found: share where an "
                 "alternative expanded from query1 returns query2's rows. found (informative): the same, counted only "
                 "where query1 and query2 return different rows on the built database. control fires: questions of "
                 "the same database about other columns, asked of the example's database: share where it fires "
                 "anyway.")
    lines.append(f"{sum(s.examples for s in report.scores.values())} examples in {report.seconds:.1f} s")
    return "\n".join(lines)


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
