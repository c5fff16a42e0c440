"""The schema_mapping archetype and `expand_sql` measured on AmbiQT examples (https://github.com/testzer0/AmbiQT).

Per example (`ambiqt_records.Example`), on the SQLite database built from its schema text
(`ambiqt_schema.build_database`), every statement run through `adapters.Database.run` (read-only, time
limit, row cap):

* does `schema_mapping` fire on the question (detection on the database's profile);
* is the example distinguishable: query1 and query2 return different rows (and query2's rows are defined by
  the query, not picked by the engine: a bare column in a grouped query is SQLite's choice of row);
* from query1: does one of the alternatives `expand_sql` derives return query2's rows (both readings found);
* mislabelled: an alternative that runs and returns neither reading's rows (a third answer under the same
  question's label);
* for each model with outputs for the example: does its top-1 return one reading's rows, and then does an
  alternative of that top-1 return the other reading's (the other reading found); its mislabelled
  alternatives; and the model's own top-5 "both found" (AmbiQT's headline measure: one of its five
  statements returns query1's rows and one returns query2's, compared here by execution on the built database).

Rows are compared as sorted multisets of `adapters.results.comparable` values, up to the order of the columns
(`same`), and a top-level `ORDER BY ... LIMIT n` is answered with its ties (`with_ties`): on three-row
databases a tie at the limit otherwise lets the engine's pick make `ORDER BY x DESC LIMIT 1` and `WHERE x =
(SELECT MAX(x) ...)` look like different questions. A J record's split-off table is a vertical split of its
base table (`ambiqt_records.vertical_split`). A record that cannot be read
or built, or whose query2 does not run, is counted as an error with its reason, never the end of the run.
"""
from __future__ import annotations

import itertools
import tempfile
import time
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from adapters import Database, Limits, UnsafeStatementError, introspect, parse_db_option
from checker_app.evaluation.ambiqt_records import Example, load_path
from checker_app.evaluation.ambiqt_schema import AmbiqtError, build_database
from checker_app.evaluation.table import figure as _fmt
from checker_app.evaluation.table import share as _share
from checker_app.evaluation.table import text_table as _table

__all__ = ["AmbiqtError", "AmbiqtReport", "CategoryScore", "ModelScore", "Outcome", "evaluate_examples",
           "evaluate_example", "load_path", "report_text", "selected"]

CATEGORIES = {"P": "precomputed aggregate table (tbl-agg)", "J": "column split into its own table (tbl-split)",
              "C": "column synonyms (built from P/J + two_col_synonyms)",
              "T": "table synonyms (built from P/J + two_tbl_synonyms)"}
LIMITS = Limits(time_limit_s=5.0, row_cap=10_000)
Rows = tuple[tuple[Any, ...], ...]


@dataclass
class ModelOutcome:
    top1: str | None = None          # "query1" / "query2": the reading the model's top-1 returns, else None
    other_found: bool = False        # an alternative of the top-1 returns the other reading's rows
    mislabelled: list[str] = field(default_factory=list)
    top5_both: bool = False          # the model's own five statements hold both readings

    def to_dict(self) -> dict[str, Any]:
        return {"top1": self.top1, "other_found": self.other_found, "mislabelled": self.mislabelled,
                "top5_both": self.top5_both}


@dataclass
class Outcome:
    example: Example
    fired: bool = False
    found: bool = False
    informative: bool = False       # distinguishable: query1 and query2 return different rows
    engine_defined: bool = False    # query2 reads a bare column in an aggregating query: its rows are the engine's pick
    alternatives: int = 0
    mislabelled: list[str] = field(default_factory=list)
    error: str | None = None
    controls: int = 0               # questions of the same database about other columns, asked of this one
    controls_fired: int = 0         # ... on which schema_mapping fired anyway
    models: dict[str, ModelOutcome] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.example.category, "index": self.example.index, "question": self.example.question,
                "fired": self.fired, "found": self.found, "informative": self.informative,
                "engine_defined": self.engine_defined, "alternatives": self.alternatives, "mislabelled": self.mislabelled, "controls": self.controls,
                "controls_fired": self.controls_fired, "error": self.error,
                "models": {k: m.to_dict() for k, m in self.models.items()}}


@dataclass
class CategoryScore:
    category: str
    examples: int = 0
    fired: int = 0
    found: int = 0
    informative: int = 0
    found_informative: int = 0
    mislabelled: int = 0            # examples with at least one mislabelled alternative
    engine_defined: int = 0         # query2's rows are the engine's pick (left out of the distinguishable)
    errors: int = 0
    controls: int = 0
    controls_fired: int = 0

    @property
    def fires_share(self) -> float | None:
        return _share(self.fired, self.examples)

    @property
    def found_share(self) -> float | None:
        return _share(self.found, self.examples)

    @property
    def informative_share(self) -> float | None:
        return _share(self.found_informative, self.informative)

    @property
    def control_share(self) -> float | None:
        return _share(self.controls_fired, self.controls)

    def add(self, outcome: Outcome) -> None:
        self.examples += 1
        self.fired += outcome.fired
        self.found += outcome.found
        self.informative += outcome.informative
        self.found_informative += outcome.found and outcome.informative
        self.mislabelled += bool(outcome.mislabelled)
        self.engine_defined += outcome.engine_defined
        self.errors += outcome.error is not None
        self.controls += outcome.controls
        self.controls_fired += outcome.controls_fired

    def to_dict(self) -> dict[str, Any]:
        return {"category": self.category, "examples": self.examples, "fires": self.fires_share,
                "both_found": self.found_share, "fired": self.fired, "found": self.found,
                "informative": self.informative, "found_informative": self.found_informative,
                "both_found_informative": self.informative_share, "mislabelled": self.mislabelled,
                "engine_defined": self.engine_defined,
                "controls": self.controls, "controls_fired": self.controls_fired,
                "control_fires": self.control_share, "errors": self.errors}


@dataclass
class ModelScore:
    model: str
    examples: int = 0               # distinguishable examples with this model's outputs
    top1_matches: int = 0           # ... whose top-1 returns one of the readings
    other_found: int = 0            # ... and an alternative of it the other reading
    mislabelled: int = 0            # examples with a mislabelled alternative of the top-1
    top5_both: int = 0              # the model's own top-5 holds both readings

    @property
    def other_share(self) -> float | None:
        return _share(self.other_found, self.top1_matches)

    @property
    def top5_share(self) -> float | None:
        return _share(self.top5_both, self.examples)

    def add(self, outcome: ModelOutcome) -> None:
        self.examples += 1
        self.top1_matches += outcome.top1 is not None
        self.other_found += outcome.other_found
        self.mislabelled += bool(outcome.mislabelled)
        self.top5_both += outcome.top5_both

    def to_dict(self) -> dict[str, Any]:
        return {"model": self.model, "examples": self.examples, "top1_matches": self.top1_matches,
                "other_found": self.other_found, "other_found_share": self.other_share,
                "mislabelled": self.mislabelled, "top5_both": self.top5_both, "top5_both_share": self.top5_share}


@dataclass
class AmbiqtReport:
    scores: dict[str, CategoryScore]
    outcomes: list[Outcome]
    models: dict[str, ModelScore] = field(default_factory=dict)
    seconds: float = 0.0

    def pooled(self) -> ModelScore:
        """Every model's examples together."""
        total = ModelScore("all models")
        for m in self.models.values():
            for name in ("examples", "top1_matches", "other_found", "mislabelled", "top5_both"):
                setattr(total, name, getattr(total, name) + getattr(m, name))
        return total

    def to_dict(self) -> dict[str, Any]:
        return {"categories": {k: s.to_dict() for k, s in self.scores.items()},
                "models": {k: m.to_dict() for k, m in self.models.items()},
                "all_models": self.pooled().to_dict(),
                "seconds": round(self.seconds, 2),
                "errors": [o.to_dict() for o in self.outcomes if o.error],
                "misses": [o.to_dict() for o in self.outcomes if not o.error and (
                    not (o.fired and o.found) or o.mislabelled
                    or any(m.top1 and (not m.other_found or m.mislabelled) for m in o.models.values()))]}


class _Runner:
    """One example's database: statements run through `Database.run`, answers as sorted multisets."""

    def __init__(self, url: str) -> None:
        self.db = Database(parse_db_option(f"ambiqt={url}"), LIMITS)

    def answer(self, sql: str) -> Rows | None:
        """The statement's rows as a sorted multiset; a top-level `ORDER BY ... LIMIT n` with its ties
        (`with_ties`), so which of two tied rows the engine returns first never decides a comparison."""
        tied = with_ties(sql)
        result = self.db.run(tied) if tied is not None else None
        if result is None or not result.ok:
            result = self.db.run(sql)
        return tuple(sorted(result.answer(), key=repr)) if result.ok else None

    def lookup(self, query: Any) -> list[tuple]:
        from archetypes.query import lookup_sql

        result = self.db.run(lookup_sql(query, "sqlite"))
        if not result.ok:
            raise RuntimeError(f"profile lookup failed: {result.error}")
        return [tuple(row) for row in result.rows]


def with_ties(sql: str) -> str | None:
    """`sql` with its top-level `ORDER BY keys LIMIT n` (no OFFSET) answered as `FETCH FIRST n ROWS WITH TIES`
    (SQLite has no WITH TIES): the same SELECT without ORDER BY and LIMIT, ranked by `RANK() OVER (ORDER BY
    keys)`, the rows ranked n or better. `... ORDER BY x DESC LIMIT 1` then answers like `... WHERE x = (SELECT
    MAX(x) ...)` where the largest value is tied, and like itself where it is not. None when the statement has no
    such LIMIT or cannot be read."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except (sqlglot.errors.SqlglotError, RecursionError):  # a model's output may nest without end
        return None
    limit, order = tree.args.get("limit"), tree.args.get("order")
    if not isinstance(tree, exp.Select) or limit is None or order is None or tree.args.get("offset") is not None:
        return None
    count = limit.expression
    if not isinstance(count, exp.Literal) or not count.is_int:
        return None
    inner = tree.copy()
    inner.set("limit", None)
    inner.set("order", None)
    named = {e.alias_or_name.lower(): e.unalias() for e in inner.expressions if isinstance(e, exp.Alias)}
    keys = []
    for ordered in order.expressions:
        key = ordered.copy()
        term = key.this
        if isinstance(term, exp.Literal) and term.is_int and 0 < int(term.name) <= len(inner.expressions):
            key.set("this", inner.expressions[int(term.name) - 1].unalias().copy())  # ORDER BY 2
        elif isinstance(term, exp.Column) and not term.table and term.name.lower() in named:
            key.set("this", named[term.name.lower()].copy())                        # ORDER BY an alias
        keys.append(key)
    if any(isinstance(e, exp.Star) or isinstance(e, exp.Column) and isinstance(e.this, exp.Star)
           for e in inner.expressions):
        return None  # `SELECT *` cannot be renamed column by column
    names = [f"_c{i}" for i in range(len(inner.expressions))]
    inner.set("expressions", [exp.alias_(e.unalias(), n) for e, n in zip(inner.expressions, names)] + [
        exp.alias_(exp.Window(this=exp.Anonymous(this="RANK"), order=exp.Order(expressions=keys)), "_rank")])
    outer = exp.select(*names).from_(inner.subquery("_ranked")).where(
        exp.LTE(this=exp.column("_rank"), expression=exp.Literal.number(int(count.name))))
    if tree.args.get("distinct"):
        outer.set("distinct", exp.Distinct())
    return outer.sql(dialect="sqlite")


def same(a: Rows | None, b: Rows | None) -> bool:
    """Whether two answers hold the same rows up to the order of their columns (as Spider's execution match
    does: `SELECT AVG(x), SUM(y)` answers what `SELECT SUM(y), AVG(x)` does)."""
    if a is None or b is None:
        return a is b
    if a == b:
        return True
    widths = {len(r) for r in a + b}
    if len(a) != len(b) or len(widths) != 1 or not 1 < (width := widths.pop()) <= 6:
        return False
    return any(tuple(sorted((tuple(r[i] for i in order) for r in a), key=repr)) == b
               for order in itertools.permutations(range(width)))


def _among(rows: Rows | None, answers: Sequence[Rows | None]) -> bool:
    return any(same(rows, other) for other in answers)


def _alternatives(sql: str, profile: Any) -> list[Any]:
    from archetypes.expand import expand_sql

    for read in ("mysql", "sqlite"):  # Spider's SQL is MySQL-flavoured ("text" is a string)
        try:
            return expand_sql(sql, profile, "sqlite", read=read)
        except UnsafeStatementError:
            continue
    return []


def _check(runner: _Runner, sql: str, profile: Any, readings: tuple[Rows, Rows], want: Rows
           ) -> tuple[bool, list[str], int]:
    """Whether an alternative of `sql` returns `want`, the labels of those giving a third answer, how many."""
    found, third = False, []
    alternatives = _alternatives(sql, profile)
    for alternative in alternatives:
        rows = runner.answer(alternative.sql)
        if rows is None:
            continue
        if same(rows, want):
            found = True
        elif not _among(rows, readings):
            third.append(alternative.label)
    return found, third, len(alternatives)


def _model(runner: _Runner, top5: Sequence[str], profile: Any, readings: tuple[Rows, Rows]) -> ModelOutcome:
    outcome = ModelOutcome()
    answers = [runner.answer(sql) for sql in top5]
    outcome.top5_both = _among(readings[0], answers) and _among(readings[1], answers)
    if answers and answers[0] and _among(answers[0], readings):  # no rows identify no reading
        outcome.top1 = "query1" if same(answers[0], readings[0]) else "query2"
        other = readings[1] if outcome.top1 == "query1" else readings[0]
        outcome.other_found, outcome.mislabelled, _ = _check(runner, top5[0], profile, readings, other)
    return outcome


def engine_defined(sql: str) -> bool:
    """Whether `sql` reads a column that is neither grouped nor aggregated in an aggregating SELECT (SQLite and
    MariaDB answer with some row's value, PostgreSQL refuses): its rows are not the query's to define."""
    try:
        tree = sqlglot.parse_one(sql, read="mysql")
    except sqlglot.errors.SqlglotError:
        return False
    for select in tree.find_all(exp.Select):
        group = select.args.get("group")
        grouped = {c.name.lower() for c in group.find_all(exp.Column)} if group is not None else set()
        if group is None and not any(isinstance(n, exp.AggFunc) for e in select.expressions for n in e.walk()):
            continue
        for expression in select.expressions:
            for column in expression.find_all(exp.Column):
                if column.name.lower() not in grouped and not isinstance(
                        column.find_ancestor(exp.AggFunc, exp.Select), exp.AggFunc):
                    return True
    return False


def evaluate_example(example: Example, workdir: str | Path, controls: Sequence[str] = ()) -> Outcome:
    """Build the example's database, detect on the question, expand query1 (and each model's top-1), compare;
    then ask the `controls` (questions about other columns of the same database) and count where it fires."""
    from archetypes import build_profile, detect

    outcome = Outcome(example, controls=len(controls))
    if example.problem:
        outcome.error = example.problem
        return outcome
    try:
        url = build_database(example.tables, Path(workdir) / f"{example.category}_{example.index}.sqlite")
    except AmbiqtError as err:
        outcome.error = str(err)
        return outcome
    runner = _Runner(url)
    try:
        profile = build_profile(introspect(runner.db.engine, dialect="sqlite"), runner.lookup)

        def fires(question: str) -> bool:
            return any(d.archetype == "schema_mapping" for d in detect(question, profile, runner.lookup))

        outcome.fired = fires(example.question)
        outcome.controls_fired = sum(fires(q) for q in controls)
        first, second = runner.answer(example.query1), runner.answer(example.query2)
        if second is None or first is None:
            outcome.error = f"{'query2' if second is None else 'query1'} does not run on the built database"
            return outcome
        outcome.engine_defined = engine_defined(example.query2)
        outcome.informative = not same(first, second) and not outcome.engine_defined
        outcome.found, outcome.mislabelled, outcome.alternatives = _check(
            runner, example.query1, profile, (first, second), second)
        if outcome.engine_defined:
            outcome.mislabelled = []  # against rows the engine picked, a third answer says nothing
        if outcome.informative:
            for model, top5 in example.outputs.items():
                outcome.models[model] = _model(runner, top5, profile, (first, second))
        return outcome
    except Exception as err:  # noqa: BLE001 - one broken example is an error row, not the end of the run
        outcome.error = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
        return outcome
    finally:
        runner.db.dispose()


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
        if (other.problem or not other.question.strip() or other.db_id != example.db_id
                or other.question == example.question or other.question in found or other.reads(table, column)):
            continue
        found.append(other.question)
    return found


def selected(example: Example, only: Collection[str] | None) -> bool:
    """Whether `only` (items `J` for a category, `J:43` for one record; None for all) names the example."""
    if only is None:
        return True
    return any(item.upper() == example.category or item.upper() == f"{example.category}:{example.index}"
               for item in only)


def evaluate_examples(examples: Sequence[Example], progress: Callable[[int], None] | None = None,
                      controls: int = 2, only: Collection[str] | None = None) -> AmbiqtReport:
    """Every example (or those `only` names, `selected`), control questions drawn from all of them."""
    started = time.perf_counter()
    report = AmbiqtReport({}, [])
    with tempfile.TemporaryDirectory(prefix="ambiqt_") as workdir:
        for n, example in enumerate((e for e in examples if selected(e, only)), 1):
            outcome = evaluate_example(example, workdir, control_questions(example, examples, controls))
            Path(workdir, f"{example.category}_{example.index}.sqlite").unlink(missing_ok=True)
            report.outcomes.append(outcome)
            report.scores.setdefault(example.category, CategoryScore(example.category)).add(outcome)
            for model, result in outcome.models.items():
                report.models.setdefault(model, ModelScore(model)).add(result)
            if progress:
                progress(n)
    report.seconds = time.perf_counter() - started
    return report


def report_text(report: AmbiqtReport) -> str:
    rows = [("category", "examples", "fires", "both found", "distinguishable: both found", "engine-defined",
             "mislabelled", "control fires", "errors")]
    for key in sorted(report.scores, key=lambda k: "PJCT".find(k)):
        s = report.scores[key]
        rows.append((f"{key} {CATEGORIES.get(key, '')}", str(s.examples), _fmt(s.fires_share), _fmt(s.found_share),
                     f"{_fmt(s.informative_share)} ({s.found_informative}/{s.informative})", str(s.engine_defined),
                     str(s.mislabelled),
                     f"{_fmt(s.control_share)} ({s.controls_fired}/{s.controls})", str(s.errors)))
    lines = _table(rows)
    lines.append("")
    lines.append("fires: share of examples where schema_mapping fires on the question. both found: share where an "
                 "alternative expanded from query1 returns query2's rows; distinguishable: counted only where query1 "
                 "and query2 return different rows on the built database; engine-defined: query2 reads a column neither "
                 "grouped nor aggregated in an aggregating query, so its rows are the engine's pick (left out of "
                 "distinguishable). Rows compare as multisets, up to column order, a top-level ORDER BY ... LIMIT n with its "
                 "ties. mislabelled: examples with an alternative "
                 "that runs and returns neither reading's rows. control fires: questions of the same database about "
                 "other columns, asked of the example's database: share where it fires anyway.")
    if report.models:
        rows = [("model (distinguishable J examples)", "examples", "top-1 is a reading", "other reading found",
                 "mislabelled", "model's own top-5 both found")]
        for name in sorted(report.models):
            m = report.models[name]
            rows.append((name, str(m.examples), str(m.top1_matches), f"{_fmt(m.other_share)} ({m.other_found})",
                         str(m.mislabelled), f"{_fmt(m.top5_share)} ({m.top5_both})"))
        m = report.pooled()
        rows.append(("all models", str(m.examples), str(m.top1_matches), f"{_fmt(m.other_share)} ({m.other_found})",
                     str(m.mislabelled), f"{_fmt(m.top5_share)} ({m.top5_both})"))
        lines += ["", *_table(rows), "",
                  "other reading found: of the examples whose top-1 returns one reading's rows, the share where an "
                  "alternative expanded from it returns the other's. model's own top-5 both found: AmbiQT's "
                  "headline measure, by execution on the built database."]
    errors = [o for o in report.outcomes if o.error]
    if errors:
        lines += ["", f"errors ({len(errors)}):"]
        lines += [f"  {o.example.category} {o.example.index}: {o.error}" for o in errors[:20]]
        if len(errors) > 20:
            lines.append(f"  ... and {len(errors) - 20} more (--json lists all)")
    lines.append(f"{sum(s.examples for s in report.scores.values())} examples in {report.seconds:.1f} s")
    return "\n".join(lines)
