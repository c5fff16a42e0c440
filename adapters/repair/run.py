"""Run a statement; on an engine's ambiguous-column error, repair it and run the repair(s).

Has the signature of `adapters.runner.RunOne`: `run_side_by_side(jobs, dbs, run_one=run_with_repair)`.

* A safe fix (equi_join_key, using_column) is rerun; the result is the rerun's, with the log in `repairs`.
* Candidates are all run. If their answers agree, the result is the first candidate's run and the log
  says they agree. If they differ, the result stays the original error: the log holds every candidate's
  SQL and answer and a clarification question. Never one silent pick.
* Anything else (schema unreadable, column in no table...): the original error, with the log's `problem`.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlglot import exp

from adapters.clarification import column_choice
from adapters.database import Database, Limits, sent_text
from adapters.errors import CheckerError
from adapters.repair.log import RepairLog
from adapters.repair.names import sqlglot_dialect
from adapters.repair.problems import SchemaUnavailable
from adapters.repair.recognise import original_offset, recognise
from adapters.repair.statement import RepairOutcome, repair_statement
from adapters.results import RunResult
from adapters.safety import parse_query
from adapters.schema import SchemaInfo

MAX_PARALLEL = 4


def schema_of(db: Database) -> SchemaInfo:
    """The connection's schema, read once and shared with everything else that caches it."""
    try:
        return db.schema()
    except CheckerError as err:
        raise SchemaUnavailable(str(err)) from None
    except Exception as err:  # noqa: BLE001 - a driver error outside SQLAlchemy's wrapping
        raise SchemaUnavailable(f"cannot read the schema: {str(err).splitlines()[0] if str(err) else err}") from None


def run_with_repair(db: Database, sql: str, limits: Limits) -> RunResult:
    result = db.run(sql, limits)
    ambiguous = recognise(result.error) if result.status == "error" else None
    if ambiguous is None:
        return result
    try:
        schema = schema_of(db)
    except SchemaUnavailable as err:
        record = RepairLog(original_sql=sql, dialect=sqlglot_dialect(db.dialect), error=result.error,
                           column=ambiguous.column or None, problem=str(err),
                           note=f"nothing rewritten: {err}")
        result.repairs = [record.to_dict()]
        return result
    outcome = repair_statement(sql, schema, db.dialect, error=result.error)
    if outcome.record is not None and result.error is not None and result.error.position:
        outcome.record.error_offset = original_offset(sql, _ran_text(sql, db.dialect, limits), result.error.position,
                                                      sqlglot_dialect(db.dialect))
    return apply_outcome(db, sql, limits, result, outcome)


def _ran_text(sql: str, dialect: str, limits: Limits) -> str:
    """The text `Database.run` sent for `sql` (re-rendered from the checked tree)."""
    try:
        query = parse_query(sql, dialect)
    except CheckerError:
        return sql
    return sent_text(query, dialect, limits)


def apply_outcome(db: Database, sql: str, limits: Limits, original: RunResult, outcome: RepairOutcome) -> RunResult:
    record = outcome.record
    assert record is not None
    if outcome.sql is not None:
        rerun = db.run(outcome.sql, limits)
        rerun.repairs = [record.to_dict()]
        return rerun
    if not outcome.candidates:
        original.repairs = [record.to_dict()]
        return original
    runs = _run_all(db, [c.sql for c in outcome.candidates], limits)
    for attempt, run in zip(record.candidates, runs):
        attempt.record(run)
    all_ok = all(run.ok for run in runs)
    record.agree = _agree(runs, _ordered(sql, db.dialect)) if all_ok else None
    options = [(a.label, a.value) for a in record.candidates]
    if record.agree:
        record.sql = outcome.candidates[0].sql
        record.clarification = None
        record.note += f"; all {len(runs)} candidates give the same answer on this data: ran {record.candidates[0].value}"
        chosen = runs[0]
        chosen.repairs = [record.to_dict()]
        return chosen
    if record.agree is False:
        record.clarification = column_choice(record.subject or record.column or "", options, True)
        record.note += "; the answers differ: the user must choose"
    else:
        failed = [a.label for a, run in zip(record.candidates, runs) if not run.ok]
        record.note += f"; could not compare the answers ({', '.join(failed)} failed)"
    original.repairs = [record.to_dict()]
    return original


def _run_all(db: Database, statements: list[str], limits: Limits) -> list[RunResult]:
    if len(statements) == 1:
        return [db.run(statements[0], limits)]
    with ThreadPoolExecutor(max_workers=min(MAX_PARALLEL, len(statements)), thread_name_prefix="repair") as pool:
        return list(pool.map(lambda text: db.run(text, limits), statements))


def _agree(runs: list[RunResult], ordered: bool) -> bool:
    """Same columns and the same rows (in order when the statement orders them, else as a multiset)."""
    first = runs[0]
    return all(run.columns == first.columns and first.same_answer(run, ordered) for run in runs[1:])


def _ordered(sql: str, dialect: str) -> bool:
    try:
        import sqlglot

        tree = sqlglot.parse_one(sql, read=sqlglot_dialect(dialect) or None)
    except Exception:  # noqa: BLE001 - unparseable: compared as unordered
        return False
    return isinstance(tree, exp.Query) and tree.args.get("order") is not None
