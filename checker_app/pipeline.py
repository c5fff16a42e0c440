"""Question in, report out: detect, expand, render per engine, run side by side, compare.

The first configured database is the primary: its analysis decides the readings and the as-of date.
An engine whose profile reads the same shares that analysis and renders its readings in its own dialect;
any other builds the same readings (matched by their choices) from its own profile, since identifiers may
be spelled differently there (Chinook is snake_case on PostgreSQL).
"""
from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from adapters import CheckerError, Database, Job, Limits, deadline, decode_input
from adapters.safety import MAX_QUESTION_BYTES
from adapters.threads import DaemonPool
from checker_app.analysis_memo import analysis_memo
from checker_app.preparing import prepare
from checker_app.profiles import load_profile, lookup_for
from checker_app.report import ENGINES, Detection, EngineInfo, ModelReport, ReadingResult, Report, Understood
from checker_app.statements import Answered, Rendered, run_statements
from checker_app.verdict import divergence, engines_agree


@dataclass
class CheckOptions:
    answers: dict[str, str] = field(default_factory=dict)
    as_of: dt.date | None = None
    cap: int = 8
    limits: Limits | None = None
    profile_overrides: Path | None = None
    repair: bool = True
    engine: str = "rules"           # rules | model | both (model mode lives in checker_app.llm)
    reply: str | None = None        # a plain-text answer to the model's clarification
    model_settings: Any = None      # checker_app.llm.ModelSettings; None: read from the environment
    answered: Answered | None = None  # statement answers kept across checks (`batch`): reused, not sent again


def _choice_key(choices: dict[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(choices.items()))


def analyse_on(db: Database, question: str, options: CheckOptions, as_of: dt.date | None) -> Any:
    """The analysis of `question` on `db`'s profile, kept with that profile (`analysis_memo`): a question
    asked again on the same profile (`batch`, the page) is not analysed again."""
    profile = load_profile(db, options.profile_overrides)
    return analysis_memo(profile).get(
        (question, _choice_key(options.answers), as_of, options.cap, options.engine == "rules", dt.date.today()),
        lambda: _analysed(db, profile, question, options, as_of))


def analyse_ahead(question: str, databases: Sequence[Database], options: CheckOptions) -> Future[None]:
    """Analyse `question` on the primary in the background, into the profile's memo (`analyse_on`), so that
    its `check` finds the analysis made: `batch` reads the next question while the engines answer this one's
    statements (the analysis is most of a first-time question's own CPU). The memo's key is the check's own
    (the same question text, options and as-of date), so the report is the one `check` would make alone. Never
    raises: a question that cannot be analysed is analysed again by its check, which says why."""
    pool = DaemonPool(1, "ahead")

    def analyse() -> None:
        try:
            text = decode_input(question, what="question", limit=MAX_QUESTION_BYTES).strip()
            if databases and text:
                analyse_on(databases[0], text, options, options.as_of)
        except Exception:  # noqa: BLE001 - the check itself reports what went wrong
            pass

    try:
        return pool.submit(analyse)
    finally:
        pool.shutdown()


def _analysed(db: Database, profile: Any, question: str, options: CheckOptions, as_of: dt.date | None) -> Any:
    from archetypes import UnknownAnswerError, analyse

    answers = dict(options.answers)
    while True:
        try:
            return analyse(question, profile, lookup=lookup_for(db), answers=answers or None, as_of=as_of,
                           cap=options.cap)
        except UnknownAnswerError as err:
            # with the model involved, an answer may concern an archetype only the model found: the
            # rules go on without it (the model still receives it); with the rules alone it is an error
            if options.engine == "rules" or err.archetype not in answers:
                raise
            del answers[err.archetype]
        except OverflowError as err:  # date arithmetic at the calendar's ends (a 9999-12-31 sentinel in the data)
            raise CheckerError(f"{db.name}: dates out of range ({err}); try --as-of YYYY-MM-DD") from None


def _analyses(question: str, databases: Sequence[Database], options: CheckOptions, notes: list[str],
              profiles: dict[str, Callable[[], Any]]) -> dict[str, Any]:
    """{engine name: its analysis}, the primary's first. An engine whose profile reads as an earlier one's
    (the same `reading_signature`: the same schema and data, spelled in another dialect) shares that
    analysis, and only its rendering differs; any other is analysed on its own profile. An engine that
    cannot be analysed is a note (an error when none can). `profiles`: a call per engine that waits for its
    profile (`preparing.prepare`), so the primary is analysed while the others' are still being read."""
    from archetypes.profile.signature import reading_signature

    analyses: dict[str, Any] = {}
    by_signature: dict[str, Any] = {}
    primary = None
    for db in databases:
        try:
            profile = profiles[db.name]()
            if isinstance(profile, CheckerError):
                raise profile
            signature = reading_signature(profile)
            shared = by_signature.get(signature)
            if shared is not None:
                analyses[db.name] = shared
                continue
            as_of = primary.as_of if primary else options.as_of
            analysis = analyse_on(db, question, options, as_of)
        except CheckerError as err:
            if primary is None and db is databases[-1]:
                raise
            notes.append(f"{db.name}: {err}")
            continue
        analyses[db.name] = analysis
        primary = primary or analysis
        if as_of is not None or profile.as_of is not None:
            # with no date at all the primary reads without an anchor, where the others are given the
            # primary's (today), and some archetypes fire only with one: each is then analysed on its own
            by_signature.setdefault(signature, analysis)
    assert primary is not None
    return analyses


def check(question: str, databases: Sequence[Database], options: CheckOptions | None = None) -> Report:
    """The whole check for one question, within one overall deadline (`deadline.check_budget_s`).
    Raises CheckerError only for input that cannot be checked at all."""
    options = options or CheckOptions()
    with deadline.within(deadline.check_budget_s((options.limits or Limits()).time_limit_s)):
        return _check(question, databases, options)


def _check(question: str, databases: Sequence[Database], options: CheckOptions) -> Report:
    started = time.perf_counter()
    question = decode_input(question, what="question", limit=MAX_QUESTION_BYTES).strip()
    if not databases:
        raise CheckerError("no database configured")
    notes: list[str] = []
    prepared = prepare(databases, options.profile_overrides)
    analyses = _analyses(question, databases, options, notes, prepared.profiles)
    primary = next(iter(analyses.values()))
    notes.extend(primary.notes)
    warnings_at = len(notes)  # the privilege warnings go here once checked: nothing waits for them before the statements

    readings: list[ReadingResult] = []
    statements: dict[int, Rendered] = {}  # {id(reading): its statement per engine, written as the runner sends it}
    for interpretation in primary.interpretations:
        reading = ReadingResult(id=interpretation.id, label=interpretation.label, choices=dict(interpretation.choices),
                                explanation=interpretation.explanation, lists=interpretation.lists,
                                side_by_side=interpretation.side_by_side, top_n=interpretation.top_n)
        key = _choice_key(interpretation.choices)
        writers = {}
        for db in databases:
            analysis = analyses.get(db.name)
            # by its id first: two archetypes of one kind ('last month' and 'new', both timeframes) share a key in
            # `choices`, so two readings may have the same choices
            match = None if analysis is None else next(
                (i for i in analysis.interpretations if i.id == interpretation.id), None) or next(
                (i for i in analysis.interpretations if _choice_key(i.choices) == key), None)
            if match is not None:
                writers[db.name] = partial(match.statement, db.dialect)  # sent from its tree, not parsed again
            elif analysis is not None:
                notes.append(f"{db.name}: no SQL for reading {interpretation.label!r} on this schema")
        statements[id(reading)] = Rendered(writers)
        readings.append(reading)

    archetypes = [Detection.from_rules(d) for d in primary.detections]
    rules_archetypes: list[Detection] | None = None
    capped, total = primary.capped, primary.total_readings
    rules_readings, model_readings, model, part = readings, [], None, None
    if options.engine != "rules":
        part, model_readings = _model_mode(question, databases, analyses, options, notes)
        model = ModelReport.from_part(part)
        if options.engine == "model" and model_readings:  # else: fail open to the rules' result
            # the rules' archetypes stay in the report: the page routes answers by them
            rules_archetypes = archetypes
            rules_readings, archetypes = [], list(model.archetypes)
            capped, total = part.capped, len(model_readings)
    readings = rules_readings + model_readings

    jobs = [Job(r.id, statements.get(id(r), r.sql)) for r in readings]
    by_reading = run_statements(jobs, [db for db in databases if db.name in analyses], options.limits, options.repair,
                                options.answered)
    warnings = (prepared.privileges[db.name]() for db in databases if db.name in analyses)
    notes[warnings_at:warnings_at] = [w for w in warnings if isinstance(w, str) and w]
    for reading, job in zip(readings, jobs):
        # every statement is written by now (the runner asked for each); the report keeps the texts alone
        reading.sql = {name: str(text) for name, text in job.sql.items()}
        reading.results = {**reading.results, **by_reading.get(reading.id, {})}
        reading.engines_agree = engines_agree(list(reading.results.values()))
    comparison = None
    if part is not None and options.engine == "both":
        from checker_app.llm.hook import comparison as compare_with_model

        comparison = compare_with_model(archetypes, rules_readings, part, model_readings, next(iter(analyses)))

    verdict_on = rules_readings or model_readings
    divergent, distinct = divergence(verdict_on)
    return Report(
        question=question,
        as_of=primary.as_of,
        engines=[EngineInfo(**db.describe()) for db in databases],
        archetypes=archetypes,
        understood=Understood.from_analysis(primary.understood),
        interpretations=readings,
        divergent=divergent,
        distinct_answers=distinct,
        answers=dict(options.answers),
        capped=capped,
        total_readings=total,
        notes=notes,
        elapsed_ms=(time.perf_counter() - started) * 1000,
        engine=options.engine if options.engine != "rules" else None,
        model=model,
        comparison=comparison,
        rules_archetypes=rules_archetypes,
    )


def _model_mode(question: str, databases: Sequence[Database], analyses: dict[str, Any], options: CheckOptions,
                notes: list[str]) -> tuple[Any, list[ReadingResult]]:
    """The model's part (fails open: a failure is a note, never an exception) and its readings."""
    from checker_app.llm.hook import model_part, reading_results

    if options.engine not in ENGINES:
        raise CheckerError(f"unknown engine {options.engine!r}: use {', '.join(ENGINES)}")
    db = next(d for d in databases if d.name in analyses)
    part = model_part(question, db, load_profile(db, options.profile_overrides), answers=dict(options.answers),
                      reply=options.reply, cap=options.cap, settings=options.model_settings)
    model_readings = reading_results(part, [d for d in databases if d.name in analyses])
    failure = part.failure_text()
    if failure:
        notes.append(failure + ("" if model_readings else "; showing the rules' result"))
    return part, model_readings
