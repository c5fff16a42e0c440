"""The model scored like the rules: `eval FILE --engine model|both` on the gold-answer cases.

Each case goes through model mode as a check does (the clarification step, then the readings, each
reading linted, checked against the profile and run with the repair pass), and every reading's result
is compared with the gold SQL's by `checker_app.evaluation.gold.matches`, exactly as the rules' are:
gold found, all found, precision, false clear, partial. On top of those, what only a model has:

* *asked*: the share of cases with several gold readings on which the model asked a clarification
  (and, apart, how often it asked on clear ones);
* tokens, calls and seconds per question, and the time to the first token;
* failures per case (the server refused, a malformed reply, a timeout...), counted by kind and named
  with the case. A failing case is scored as it is: no reading found the gold answer. It never stops
  the run.

The model's verdict is `checker_app.verdict.judge` on its own readings (archetypes it saw or several
readings, answers that differ), without the rules' word accounting: "partial" is the rules' verdict, never the model's; a case
where the model gave no reading at all is "failed".
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from adapters import Database, Job, Limits, RunResult
from checker_app.evaluation.gold import (
    CaseResult,
    GoldCase,
    GoldReport,
    Scores,
    evaluate_gold,
    infer_shape,
    rules_checker,
)
from checker_app.evaluation.gold import report_text as gold_text
from checker_app.evaluation.table import figure, gold_header, gold_row, share
from checker_app.llm.errors import ModelFailure
from checker_app.llm.part import ModelPart
from checker_app.llm.settings import ModelSettings

#: What a failure kind means, for the summary (the kinds of checker_app.llm.errors / client).
KIND_TEXT = {
    "http": "the server refused the request", "context": "the prompt does not fit the server's context",
    "timeout": "timed out", "connection": "server not reachable", "malformed": "malformed reply",
    "schema": "reply does not fit the schema", "length": "cut at max_tokens", "refused": "the model refused",
    "empty": "empty reply", "busy": "no free call slot", "internal": "internal error",
}


@dataclass
class ModelCase:
    """What model mode did on one case, beside its gold scores."""

    where: str
    several: bool                      # the case has several gold readings
    clarification: str                 # asked | dropped | malformed | none | not tried
    failures: list[dict[str, Any]] = field(default_factory=list)
    model_errors: int = 0
    structured_output: str | None = None
    refused_modes: list[str] = field(default_factory=list)   # structured-output modes the server refused
    written_as: str | None = None      # the clarification call came as message text (tagged, bare, ...)
    usage: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def asked(self) -> bool:
        return self.clarification == "asked"

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.where, "clarification": self.clarification, "failures": list(self.failures),
                "model_errors": self.model_errors, "structured_output": self.structured_output,
                "refused_modes": list(self.refused_modes), "written_as_text": self.written_as, "usage": dict(self.usage), "seconds": round(self.seconds, 3)}


class ModelChecker:
    """A gold `Checker` (case, db) -> (verdict, one result per reading, words not read) for the model,
    keeping what it did per case in `cases` (keyed by the case itself: `where` repeats across a directory's
    files of the same name, gold/demo.jsonl and gold/later/demo.jsonl)."""

    def __init__(self, settings: ModelSettings, *, cap: int = 8, limits: Limits | None = None,
                 repair: bool = True) -> None:
        self.settings, self.cap, self.limits, self.repair = settings, cap, limits, repair
        self.cases: dict[GoldCase, ModelCase] = {}

    def __call__(self, case: GoldCase, db: Database) -> tuple[str, list[RunResult], list[str]]:
        from checker_app.llm.hook import reading_results
        from checker_app.llm.run import run_model
        from checker_app.profiles import load_profile
        from checker_app.statements import run_statements

        record = ModelCase(case.where, not case.clear, "not tried")
        self.cases[case] = record
        part = ModelPart()
        try:
            part = run_model(case.question, load_profile(db), settings=self.settings, cap=self.cap)
            readings = reading_results(part, [db])
            ran = run_statements([Job(r.id, r.sql) for r in readings], [db], self.limits, self.repair)
            for reading in readings:
                reading.results = {**reading.results, **ran.get(reading.id, {})}
            results = [r.results[db.name] for r in readings if db.name in r.results]
            verdict = _verdict(part, readings)
        except Exception as err:  # noqa: BLE001 - one case's trouble is that case's failure, never the run's
            first = (str(err).splitlines() or [""])[0][:300]
            part.fail("eval", ModelFailure("internal", f"{type(err).__name__}: {first}"))
            results, verdict = [], "failed"
        record.clarification = part.clarification.status if part.clarification else (
            "answered" if part.answered else "not tried")
        record.failures = [{"step": f["step"], "kind": f["kind"], "message": f["message"]} for f in part.failures]
        record.model_errors = len(part.model_errors)
        record.structured_output = part.structured_output
        record.refused_modes = [f["mode"] for f in part.fallbacks]
        record.written_as = part.clarification.written_as if part.clarification else None
        record.usage = part.usage.to_dict()
        record.seconds = part.elapsed_ms / 1000
        return verdict, results, []


def _verdict(part: ModelPart, readings: list[Any]) -> str:
    from checker_app.verdict import divergence, judge

    if not readings:
        return "failed"
    divergent, distinct = divergence(readings)
    # several readings are an ambiguity even when the model named no registry archetype (as the report judges it)
    return judge(readings, ambiguous=bool(part.detections) or len(readings) > 1, divergent=divergent, distinct=distinct,
                 archetypes=part.archetype_ids).kind


# -- the scores ---------------------------------------------------------------------------------------------

@dataclass
class ModelScores:
    """The model-only figures over a set of cases."""

    cases: int = 0
    several: int = 0
    asked_several: int = 0
    clear: int = 0
    asked_clear: int = 0
    failed_cases: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    model_errors: int = 0
    modes: Counter[str] = field(default_factory=Counter)
    refused: Counter[str] = field(default_factory=Counter)
    text_calls: int = 0
    calls: int = 0
    attempts: int = 0
    tokens: int = 0
    seconds: float = 0.0
    first_token: list[float] = field(default_factory=list)

    def add(self, record: ModelCase) -> None:
        self.cases += 1
        if record.several:
            self.several += 1
            self.asked_several += record.asked
        else:
            self.clear += 1
            self.asked_clear += record.asked
        self.failed_cases += bool(record.failures)
        self.failures.update(f["kind"] for f in record.failures)
        self.model_errors += record.model_errors
        self.modes.update([record.structured_output] if record.structured_output else [])
        self.refused.update(record.refused_modes)
        self.text_calls += record.written_as is not None
        self.calls += int(record.usage.get("calls", 0))
        self.attempts += int(record.usage.get("attempts", 0))
        self.tokens += int(record.usage.get("total_tokens", 0))
        self.seconds += record.seconds
        self.first_token += [s["first_token_s"] for s in record.usage.get("by_step", {}).values()
                             if s.get("first_token_s") is not None]

    def to_dict(self) -> dict[str, Any]:
        return {"cases": self.cases, "asked_when_several": share(self.asked_several, self.several, 3),
                "asked_when_clear": share(self.asked_clear, self.clear, 3), "several_readings": self.several,
                "failed_cases": self.failed_cases, "failures": dict(sorted(self.failures.items())),
                "model_errors": self.model_errors, "structured_output": dict(sorted(self.modes.items())),
                "refused_modes": dict(sorted(self.refused.items())), "calls_written_as_text": self.text_calls,
                "calls": self.calls, "attempts": self.attempts,
                "tokens_per_question": share(self.tokens, self.cases, 1),
                "seconds_per_question": share(self.seconds, self.cases, 2),
                "first_token_s": share(sum(self.first_token), len(self.first_token), 2)}


@dataclass
class ModelEval:
    """The model's gold report, with what model mode did on each case."""

    report: GoldReport
    cases: dict[GoldCase, ModelCase]
    settings: dict[str, Any]

    def record(self, result: CaseResult) -> ModelCase | None:
        return self.cases.get(result.case)

    def scores(self, results: Iterable[CaseResult] | None = None) -> ModelScores:
        scores = ModelScores()
        for result in self.report.results if results is None else results:
            record = self.record(result)
            if record is not None:
                scores.add(record)
        return scores

    @property
    def failed(self) -> list[tuple[CaseResult, ModelCase]]:
        return [(r, m) for r in self.report.results if (m := self.record(r)) is not None and m.failures]

    def to_dict(self) -> dict[str, Any]:
        payload = self.report.to_dict()
        for entry, result in zip(payload["cases"], self.report.results):
            record = self.record(result)
            if record is not None:
                entry["model"] = record.to_dict()
        per_db: dict[str, list[CaseResult]] = {}
        for result in self.report.results:
            per_db.setdefault(result.case.db, []).append(result)
        payload["model"] = {"settings": dict(self.settings), "overall": self.scores().to_dict(),
                            "per_db": {db: self.scores(rs).to_dict() for db, rs in sorted(per_db.items())}}
        return payload


def evaluate_model(cases: Iterable[GoldCase], databases: Mapping[str, Database], settings: ModelSettings, *,
                   cap: int = 8, limits: Limits | None = None) -> ModelEval:
    checker = ModelChecker(settings, cap=cap, limits=limits)
    return ModelEval(evaluate_gold(cases, databases, checker), checker.cases, settings.describe())


def evaluate_engines(cases: list[GoldCase], databases: Mapping[str, Database], engine: str,
                     settings: ModelSettings | None = None, *, cap: int = 8,
                     limits: Limits | None = None) -> tuple[GoldReport | None, ModelEval | None]:
    """(the rules' report, the model's): one of them None unless `engine` is "both"."""
    rules = evaluate_gold(cases, databases, rules_checker(cap)) if engine in ("rules", "both") else None
    model = None
    if engine in ("model", "both"):
        model = evaluate_model(cases, databases, settings or ModelSettings.from_env(), cap=cap, limits=limits)
    return rules, model


# -- text ---------------------------------------------------------------------------------------------------

def _score_row(name: str, scores: Scores, width: int) -> str:
    return gold_row(name, scores.to_dict(), width)


def side_by_side(rules: GoldReport, model: GoldReport) -> list[str]:
    """The rules' and the model's scores per database, one row each."""
    width = 28
    lines = [gold_header(width)]

    def rows(key: Any) -> None:
        rules_by, model_by = rules.scores(key), model.scores(key)
        for name in sorted(set(rules_by) | set(model_by)):
            for who, scores in (("rules", rules_by.get(name)), ("model", model_by.get(name))):
                if scores is not None:
                    lines.append(_score_row(f"{name} {who}", scores, width))

    rows(lambda r: r.case.db)
    for who, report in (("rules", rules), ("model", model)):
        if report.results:
            lines.append(_score_row(f"all {who}", report.scores()["all"], width))
    lines += ["", "per shape"]
    rows(lambda r: infer_shape(r.case))
    return lines


def model_text(result: ModelEval) -> str:
    """What only the model has: asking, cost, failures by kind and by case."""
    d = result.scores().to_dict()
    settings = result.settings
    lines = [f"model {settings.get('model', '?')} at {settings.get('base_url') or 'api.openai.com'}: "
             f"{d['cases']} case(s)"]
    if d["asked_when_several"] is not None or d["asked_when_clear"] is not None:
        lines.append(f"  asked a clarification: {figure(d['asked_when_several'])} of cases with several gold readings, "
                     f"{figure(d['asked_when_clear'])} of clear ones")
    first = f", first token after {d['first_token_s']:.2f} s" if d["first_token_s"] is not None else ""
    if d["cases"]:
        lines.append(f"  per question: {d['tokens_per_question']:,.0f} tokens, {d['calls'] / d['cases']:.1f} "
                     f"call(s) ({d['attempts']} attempt(s) in all), {d['seconds_per_question']:.2f} s{first}")
    if d["structured_output"]:
        refused = ", ".join(f"{mode} {n}" for mode, n in d["refused_modes"].items())
        lines.append("  readings came as " + ", ".join(f"{mode} {n}" for mode, n in d["structured_output"].items())
                     + (f" (the server refused: {refused}; the mode that works is remembered)" if refused else ""))
    if d["calls_written_as_text"]:
        lines.append(f"  clarification calls written as message text, read through the same contract: "
                     f"{d['calls_written_as_text']}")
    if d["model_errors"]:
        lines.append(f"  model errors (unknown archetype ids, invalid readings): {d['model_errors']}, shown apart")
    if d["failures"]:
        kinds = ", ".join(f"{KIND_TEXT.get(k, k)} ({k}) {n}" for k, n in d["failures"].items())
        lines.append(f"  failed on {d['failed_cases']} of {d['cases']} case(s), scored as not found: {kinds}")
        for case, record in result.failed:
            for failure in record.failures:
                lines.append(f"    {case.case.where} {case.case.question!r}: {failure['step']} ({failure['kind']}): "
                             f"{_short(failure['message'])}")
    else:
        lines.append("  no failure")
    return "\n".join(lines)


def _short(text: str, limit: int = 240) -> str:
    flat = " ".join(str(text).split())
    return flat if len(flat) <= limit else flat[:limit] + "…"


def engines_text(rules: GoldReport | None, model: ModelEval | None) -> str:
    if model is None:
        assert rules is not None
        return gold_text(rules)
    parts = []
    if rules is not None:
        parts += ["rules vs model", *side_by_side(rules, model.report), ""]
    parts += ["model" if rules is not None else "model readings, scored like the rules'", gold_text(model.report),
              "", model_text(model)]
    return "\n".join(parts)
