"""Model mode inside the check pipeline: model readings as ReadingResults, and rules vs model.

The model's SQL takes the rules' path: the safety check and the placeholder lint here, then the same
side-by-side run with the repair pass. SQL the lint refuses (unsafe, unparseable, a placeholder with
no known value) is reported as a rejected result on every engine instead of being sent anywhere.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlglot.errors import SqlglotError

from adapters import Database, EngineErrorInfo, RunResult
from adapters.results import json_value, same_row
from checker_app.llm.part import ModelPart
from checker_app.llm.run import run_model
from checker_app.llm.settings import ModelSettings
from checker_app.report import (
    ENGINES,
    ArchetypeSplit,
    ComparedReading,
    ComparisonFailures,
    Detection,
    ModelComparison,
    ReadingResult,
)
from checker_app.verdict import identity

__all__ = ["ENGINES", "comparison", "model_part", "reading_results"]


def model_part(question: str, db: Database, profile: Any, *, answers: dict[str, str], reply: str | None,
               cap: int, settings: ModelSettings | None = None) -> ModelPart:
    return run_model(question, profile, settings=settings or ModelSettings.from_env(), answers=answers,
                     reply=reply, cap=cap)


def reading_results(part: ModelPart, databases: Sequence[Database]) -> list[ReadingResult]:
    """One ReadingResult(source="model") per model reading, with SQL per engine (or a rejection)."""
    readings = []
    for model_sql in part.readings:
        reading = ReadingResult(id=model_sql.id, label=model_sql.label, choices={}, source="model")
        problem, kind = model_sql.problem(), model_sql.problem_kind() or "other"
        for db in databases:
            if problem is None:
                try:
                    reading.sql[db.name] = model_sql.lint.render(db.dialect)
                    continue
                except SqlglotError as err:
                    problem = f"cannot write this SQL for {db.dialect}: {str(err).splitlines()[0]}"
                    kind = "syntax"
            reading.results[db.name] = RunResult(engine=db.name, dialect=db.dialect, sql=model_sql.sql,
                                                 status="rejected", error=EngineErrorInfo(kind, None, problem))
        readings.append(reading)
    return readings


def _answer(reading: ReadingResult, engine: str | None) -> tuple[Any, ...] | None:
    result = reading.results.get(engine) if engine else None
    if result is None or not result.ok:
        result = reading.first_ok()
    return identity(result) if result is not None and result.ok else None


def _normal_sql(reading: ReadingResult, engine: str | None) -> str | None:
    import sqlglot

    text = reading.sql.get(engine or "") or next(iter(reading.sql.values()), None)
    if not text:
        return None
    result = reading.results.get(engine or "")
    dialect = result.dialect if result else None
    try:
        return sqlglot.parse_one(text, read=dialect).sql(dialect=dialect, normalize=True, pretty=False)
    except SqlglotError:
        return " ".join(text.split()).lower()


def _in(answer: tuple[Any, ...], answers: Sequence[tuple[Any, ...]]) -> bool:
    return any(same_row(answer, other) for other in answers)


def comparison(rules_archetypes: Sequence[Detection], rules: Sequence[ReadingResult], part: ModelPart,
               model: Sequence[ReadingResult], engine: str | None) -> ModelComparison:
    """Which archetypes each found, where their SQL differs, and where their answers differ."""
    rule_ids = [a.id for a in rules_archetypes]
    model_ids = part.archetype_ids
    rule_answers = {r.id: _answer(r, engine) for r in rules}
    rule_sql = {r.id: _normal_sql(r, engine) for r in rules}
    rows, model_answers = [], []
    for reading in model:
        answer = _answer(reading, engine)
        sql = _normal_sql(reading, engine)
        if answer is not None:
            model_answers.append(answer)
        rows.append(ComparedReading(
            model_reading=reading.id, label=reading.label,
            same_sql_as=next((rid for rid, s in rule_sql.items() if sql and s == sql), None),
            same_answer_as=[rid for rid, a in rule_answers.items() if answer is not None and a is not None
                            and same_row(a, answer)],
            answer=[json_value(v) for v in answer] if answer is not None else None))
    rules_answered = [a for a in rule_answers.values() if a is not None]
    failed = ComparisonFailures(rules=[rid for rid, a in rule_answers.items() if a is None],
                                model=[r.model_reading for r in rows if r.answer is None])
    results_differ = None if not model_answers or not rules_answered else not (
        all(_in(a, rules_answered) for a in model_answers) and all(_in(a, model_answers) for a in rules_answered))
    if results_differ is False and (failed.rules or failed.model):
        results_differ = None  # the same answers among those that ran is not the same set of answers
    unmatched = [rid for rid, a in rule_answers.items() if model_answers and a is not None and not _in(a, model_answers)]
    sql_differs = bool(model) and (any(r.same_sql_as is None for r in rows) or len(model) != len(rules))
    both = [a for a in rule_ids if a in model_ids]
    result = ModelComparison(
        engine=engine,
        archetypes=ArchetypeSplit(rules=rule_ids, model=model_ids, both=both,
                                  rules_only=[a for a in rule_ids if a not in model_ids],
                                  model_only=[a for a in model_ids if a not in rule_ids]),
        readings=rows,
        rules_answers_missing_from_model=unmatched,
        failed=failed,
        model_errors=len(part.model_errors),
        sql_differs=sql_differs if model else None,
        results_differ=results_differ,
    )
    result.summary = _summary(result, part, len(rules), len(model))
    return result


def _summary(comp: ModelComparison, part: ModelPart, n_rules: int, n_model: int) -> str:
    if part.status in ("off", "failed"):
        return f"no comparison: {part.failure_text()}"
    arch = comp.archetypes
    if not arch.rules_only and not arch.model_only:
        found = "the same archetypes" if arch.both else "no archetype"
        bits = [f"rules and model found {found}"]
    else:
        rules_only, model_only = ", ".join(arch.rules_only) or "-", ", ".join(arch.model_only) or "-"
        bits = [f"rules only: {rules_only}; model only: {model_only}"]
    bits.append(f"{n_rules} rules reading(s), {n_model} model reading(s)")
    if comp.results_differ is True:
        bits.append("their answers differ")
    elif comp.results_differ is False:
        bits.append("same set of answers")
    elif comp.failed.rules or comp.failed.model:
        bits.append("answers cannot be compared in full")
    if comp.failed.model:
        bits.append(f"{len(comp.failed.model)} model reading(s) gave no answer ({', '.join(comp.failed.model)})")
    if comp.failed.rules:
        bits.append(f"{len(comp.failed.rules)} rules reading(s) gave no answer")
    if comp.model_errors:
        bits.append(f"{comp.model_errors} model error(s) (unknown archetype ids, invalid readings), shown apart")
    if comp.sql_differs:
        bits.append("the SQL differs")
    return "; ".join(bits)
