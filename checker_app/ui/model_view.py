"""Model mode on the page, without streamlit: the engine control, the model panel, rules vs model, and
where the person's answers go.

The page draws what these functions return (`checker_app.pages.model_draw`). Everything here reads the
report the pipeline already built (`report.model`, `report.comparison`): the page never
talks to the model itself. Failures fail open: the rules' readings stay on the page and the panel says
what failed, at which step, and why.
"""
from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters import ConfigError
from checker_app.clarify import Answer, question_dict
from checker_app.pipeline import CheckOptions
from checker_app.readout import pretty_sql
from checker_app.report import ENGINES, Detection, ModelReport, ModelUsage, ReadingResult, Report, ToolCall
from checker_app.ui.display import format_number

ENGINE_LABELS = {"rules": "Rules", "model": "Model", "both": "Both (compare)"}
ENGINE_HELP = ("Who reads the question: the offline rules; a model (any OpenAI-compatible server, set by "
               "OPENAI_API_KEY, OPENAI_BASE_URL and CHECKER_MODEL); or both, compared. When the model fails "
               "the rules' readings are shown.")
STEP_NAMES = {"clarify": "asking (render_ask_user_question)", "interpret": "readings (structured output)",
              "model": "model call"}
STEP_SHORT = {"clarify": "ask (tool)", "interpret": "readings"}


# -- the engine control ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Availability:
    """Whether model mode can run, with which settings (never shown: they hold the key), or why not."""

    settings: Any = None          # checker_app.llm.ModelSettings when enabled
    reason: str | None = None     # why model and both are unavailable

    @property
    def enabled(self) -> bool:
        return self.settings is not None

    def describe(self) -> str:
        """Which model the page would call (no key), or why none."""
        if self.settings is None:
            return self.reason or "model mode is off"
        info = self.settings.describe()
        return f"{info['model']} at {info['base_url']}"


def availability(environ: Mapping[str, str] | None = None) -> Availability:
    """Model mode from the environment, as the `check` command reads it; a bad setting turns it off."""
    from checker_app.llm.settings import ModelSettings

    try:
        settings = ModelSettings.from_env(os.environ if environ is None else environ)
    except ConfigError as err:
        return Availability(None, f"model mode is off: {err}")
    if not settings.enabled:
        return Availability(None, settings.off_reason)
    return Availability(settings)


def engine_from_url(value: str | None, available: Availability) -> tuple[str, str | None]:
    """(engine to run a link with, a warning when the link's engine cannot be used)."""
    value = (value or "").strip().lower()
    if not value or value == "rules":
        return "rules", None
    if value not in ENGINES:
        return "rules", f"the link's engine {value!r} is not one of {', '.join(ENGINES)}: the rules read it"
    if not available.enabled:
        return "rules", f"the link asks for engine {value!r}, but {available.reason}: the rules read it"
    return value, None


def options_for(base: CheckOptions, engine: str, available: Availability, reply: str | None = None) -> CheckOptions:
    """The check's options for `engine` (rules when model mode is off), with the page's model settings."""
    if engine not in ENGINES or (engine != "rules" and not available.enabled):
        engine = "rules"
    return dataclasses.replace(base, engine=engine, reply=(reply or "").strip() or None,
                               model_settings=available.settings if engine != "rules" else None)


# -- the model panel ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Failure:
    step: str
    kind: str
    message: str
    raw: str | None = None

    @property
    def text(self) -> str:
        return f"{STEP_NAMES.get(self.step, self.step)} failed ({self.kind}): {self.message}"


@dataclass(frozen=True)
class Malformed:
    """A tool call that did not fit the contract: its raw input, and the ways on."""

    error: str
    raw: str
    language: str   # json when the raw input parses, else text


@dataclass(frozen=True)
class UsageView:
    calls: int
    prompt_tokens: int
    completion_tokens: int
    rows: list[dict[str, Any]]     # one per step: the table

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def text(self) -> str:
        if not self.calls:
            return "none counted (no model call was answered)"
        return (f"{self.calls} call{'s' if self.calls != 1 else ''} · {format_number(self.total_tokens)} tokens "
                f"({format_number(self.prompt_tokens)} prompt, {format_number(self.completion_tokens)} completion)")


@dataclass
class ModelPanel:
    engine: str
    status: str                    # ok | partial | failed | off
    box: str                       # success | warning | error | info: how loud the headline is
    headline: str
    detail: str
    model: str
    base_url: str
    failures: list[Failure] = field(default_factory=list)
    malformed: Malformed | None = None
    asks: list[dict[str, str]] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)
    said: str | None = None        # what the model wrote instead of asking
    answered: bool = False
    tool_output: dict[str, Any] | None = None
    archetypes: list[Detection] = field(default_factory=list)
    readings: int = 0
    usage: UsageView = field(default_factory=lambda: UsageView(0, 0, 0, []))
    elapsed_ms: float = 0.0
    model_errors: list[str] = field(default_factory=list)   # unknown archetype ids, invalid readings: apart
    notes: list[str] = field(default_factory=list)          # structured-output fallbacks, calls written as text

    @property
    def offers_recovery(self) -> bool:
        """Retry / skip / answer in plain text: for a malformed ask, and for any failure of the model part."""
        return self.malformed is not None or self.status in ("failed", "partial")


def usage_view(usage: ModelUsage | None) -> UsageView:
    usage = usage or ModelUsage()
    rows = [{"step": STEP_SHORT.get(name, name), "calls": s.calls, "failed attempts": s.attempts - s.calls,
             "prompt tokens": s.prompt_tokens, "completion tokens": s.completion_tokens,
             "total tokens": s.total_tokens,
             "first token (s)": "—" if s.first_token_s is None else f"{s.first_token_s:.1f}",
             "seconds": f"{s.seconds:.1f}"} for name, s in usage.by_step.items()]
    return UsageView(usage.calls, usage.prompt_tokens, usage.completion_tokens, rows)


def raw_text(raw: Any) -> tuple[str, str]:
    """(the raw tool input as text, its code language): pretty JSON when it parses, else as sent."""
    if isinstance(raw, (dict, list)):
        return json.dumps(raw, ensure_ascii=False, indent=2), "json"
    text = "" if raw is None else str(raw)
    try:
        return json.dumps(json.loads(text), ensure_ascii=False, indent=2), "json"
    except (json.JSONDecodeError, TypeError):
        return text or "(empty)", "text"


def _model_readings(report: Report) -> list[ReadingResult]:
    return [r for r in report.interpretations if r.source == "model"]


def _ask_line(question: Mapping[str, Any]) -> dict[str, str]:
    options = ", ".join(str(o.get("label")) for o in question.get("options") or [] if isinstance(o, dict))
    kind = question.get("type", "choice")
    if kind == "query_choice":
        options = options or "fetched live from the database"
    return {"question": str(question.get("question", "")), "quote": str(question.get("quote", "")),
            "type": str(kind), "options": options, "archetype": str(question.get("archetype") or "")}


def model_panel(report: Report) -> ModelPanel | None:
    """What the model did for this check, or None when the check did not ask the model."""
    model = report.model
    if model is None:
        return None
    engine = str(report.engine or "model")
    settings = model.settings
    status = model.status
    readings = len(_model_readings(report))
    usage = usage_view(model.usage)
    clarification = model.clarification
    failures = []
    for entry in model.failures:
        if entry.step == "clarify" and entry.kind == "malformed":
            continue  # shown as the malformed call, with its raw input
        failures.append(Failure(entry.step, entry.kind, entry.message,
                                None if entry.raw is None else raw_text(entry.raw)[0]))
    malformed = None
    if clarification is not None and clarification.status == "malformed":
        text, language = raw_text(clarification.raw_input)
        malformed = Malformed(clarification.error or "malformed tool call", text, language)

    rules_stand = ("the rules' readings are shown instead" if engine == "model"
                   else "the rules' readings stand, with nothing to compare them to")
    if status == "off":
        box, headline = "info", f"Model mode is off: {model.off or 'no settings'}"
        detail = f"The check ran on the rules only: {rules_stand}."
    elif status == "failed":
        first = failures[0] if failures else None
        why = first.text if first else ("its clarification call (render_ask_user_question) was malformed"
                                         if malformed else "no readings came back")
        box, headline = "error", f"The model part failed: {why}"
        detail = f"The check went on without it (fail open): {rules_stand}."
    elif status == "partial":
        box = "warning"
        what = failures[0].text if failures else "its clarification call (render_ask_user_question) was malformed" \
            if malformed else "something failed"
        headline = f"The model part partly failed: {what}"
        detail = f"Its {readings} reading(s) are shown, marked “model”."
    else:
        box, headline = "success", f"The model read the question: {len(model.archetypes)} " \
                                   f"archetype(s), {readings} reading(s)"
        detail = "Its readings are in the grid below, marked “model”."
    return ModelPanel(
        engine=engine, status=status, box=box, headline=headline, detail=detail,
        model=settings.model if settings else "?", base_url=settings.base_url if settings else "?", failures=failures,
        malformed=malformed, asks=[_ask_line(q) for q in _questions(clarification)],
        dropped=[f"“{d.question}” (quote “{d.quote}”): {d.reason}"
                 for d in (clarification.dropped if clarification else [])],
        said=clarification.text if clarification and clarification.status == "none" else None,
        answered=model.answered, tool_output=model.tool_output.to_dict() if model.tool_output else None,
        archetypes=list(model.archetypes), readings=readings, usage=usage, elapsed_ms=model.elapsed_ms,
        model_errors=_model_errors(model), notes=_notes(model))


def _model_errors(model: ModelReport) -> list[str]:
    lines = []
    for error in model.model_errors:
        what = "unknown archetype id" if error.kind == "unknown_archetype" else "invalid reading"
        value = json.dumps(error.value, ensure_ascii=False)
        lines.append(f"{what} {value[:120]} at {error.where}: {error.message}")
    return lines


def _questions(clarification: ToolCall | None) -> list[dict[str, Any]]:
    """The model's asks as the plain dicts the wizard validates per step."""
    return [question_dict(q, exclude_none=True) for q in (clarification.questions if clarification else [])]


def _notes(model: ModelReport) -> list[str]:
    lines = [f"The server refused {f.mode} and {f.next} was used (remembered for this server): {f.reason}"
             for f in model.fallbacks]
    written = model.clarification.written_as_text if model.clarification else None
    if written:
        lines.append(f"The model wrote its clarification call as text ({written}), not as a tool call; it was "
                     "read through the same contract.")
    return lines


def model_note(report: Report) -> str | None:
    """The note the pipeline adds for a failed or off model part (the model panel shows it in full)."""
    model = report.model
    if model is None or model.status == "ok":
        return None
    off = model.off
    return next((n for n in report.notes if n.startswith("model part failed") or (off and n.startswith(off))), None)


def reading_captions(report: Report) -> dict[str, list[str]]:
    """Per model reading: placeholders replaced by literals, and why it was not run."""
    captions: dict[str, list[str]] = {}
    for entry in report.model.readings if report.model is not None else []:
        lines = [f"placeholder {p.placeholder} replaced by {p.replaced_with}"
                 for p in entry.placeholders if p.replaced_with]
        if entry.error:
            lines.append(f"not run: {entry.error}")
        if lines:
            captions[entry.id] = lines
    return captions


# -- rules vs model ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class SqlPair:
    """A model reading and the rules reading that gives the same answer, with different SQL."""

    model_label: str
    model_sql: str
    rules_label: str
    rules_sql: str


@dataclass
class ComparisonView:
    summary: str
    engine: str | None
    rules_only: list[str]
    both: list[str]
    model_only: list[str]
    rows: list[dict[str, str]]          # one per model reading: the table
    missing: list[str]                  # rules readings whose answer no model reading gives
    results: str                        # differ | same | unknown
    sql: str                            # differs | same | unknown
    pairs: list[SqlPair] = field(default_factory=list)
    failed: dict[str, list[str]] = field(default_factory=dict)  # readings that gave no answer, per side

    @property
    def results_text(self) -> str:
        failed = [f"{len(ids)} {side} reading(s)" for side, ids in self.failed.items() if ids]
        if self.results == "unknown" and failed:
            return ("Answers cannot be compared in full: " + " and ".join(failed) + " gave no answer; a set of "
                    "answers is only the same when every reading ran.")
        return {"differ": "The answers differ: rules and model do not give the same set of answers.",
                "same": "Same set of answers from the rules and the model.",
                }.get(self.results, "Answers cannot be compared (one side has no answer).")

    @property
    def sql_text(self) -> str:
        return {"differs": "The SQL differs (compared after normalising).",
                "same": "Every model reading's SQL matches a rules reading's SQL."}.get(self.sql, "")


def _answer_text(answer: Any) -> str:
    if answer is None:
        return "no answer"
    values = answer if isinstance(answer, list) else [answer]
    return " / ".join(format_number(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else str(v)
                      for v in values) or "no rows"


def _sql_of(reading: ReadingResult, engine: str | None) -> str:
    return reading.sql.get(engine or "") or next(iter(reading.sql.values()), "") or next(
        (r.sql for r in reading.results.values() if r.sql), "")


def comparison_view(report: Report) -> ComparisonView | None:
    comp = report.comparison
    if comp is None:
        return None
    by_id = {r.id: r for r in report.interpretations}
    label = {rid: r.label for rid, r in by_id.items()}
    engine = comp.engine
    dialect = next((e.dialect for e in report.engines if e.name == engine), None) or "sqlite"
    rows, pairs = [], []
    for row in comp.readings:
        same_answer = [label.get(rid, rid) for rid in row.same_answer_as]
        same_sql = row.same_sql_as
        rows.append({
            "model reading": row.label,
            "its answer": _answer_text(row.answer),
            "same answer as (rules)": ", ".join(same_answer) or ("none" if row.answer is not None else "—"),
            "SQL": f"same as {label.get(same_sql, same_sql)}" if same_sql else "differs",
        })
        model_reading = by_id.get(row.model_reading)
        rules_id = (row.same_answer_as or [None])[0]
        if model_reading is not None and rules_id in by_id and not same_sql:
            pairs.append(SqlPair(model_reading.label, pretty_sql(_sql_of(model_reading, engine), dialect),
                                 label[rules_id], pretty_sql(_sql_of(by_id[rules_id], engine), dialect)))
    arch = comp.archetypes
    differ = comp.results_differ
    sql = comp.sql_differs
    return ComparisonView(
        summary=comp.summary, engine=engine, rules_only=list(arch.rules_only),
        both=list(arch.both), model_only=list(arch.model_only), rows=rows,
        missing=[label.get(rid, rid) for rid in comp.rules_answers_missing_from_model],
        results="differ" if differ is True else "same" if differ is False else "unknown",
        sql="differs" if sql is True else "same" if sql is False else "unknown", pairs=pairs,
        failed={"rules": list(comp.failed.rules), "model": list(comp.failed.model)})


# -- the model's clarification in the page's wizard --------------------------------------------------

def model_steps(report: Report, covered: set[str]) -> tuple[list[dict[str, Any]], set[str]]:
    """The model's asks as wizard steps (source "model"), leaving out archetypes the rules already ask
    about; returns (steps, the covered archetypes the model asked about too)."""
    model = report.model
    clarification = model.clarification if model is not None else None
    if model is None or model.answered or clarification is None or clarification.status != "asked":
        return [], set()
    steps, shared = [], set()
    for question in _questions(clarification):
        archetype = question.get("archetype")
        if archetype and archetype in covered:
            shared.add(archetype)
            continue
        steps.append({**question, "source": "model"})
    return steps, shared


def rules_values(archetypes: Sequence[Detection]) -> dict[str, set[str] | None]:
    """Per archetype the rules detected: the values their readings take (None: any text, the live-options
    archetypes such as entity names)."""
    return {a.id: None if a.live else a.values for a in archetypes if a.source != "model"}


def rules_accept(values: Mapping[str, set[str] | None]) -> Callable[[str | None, str | None], str | None]:
    """A check: the value the rules anchor `archetype` on for an answer (case aside), or None."""

    def accept(archetype: str | None, value: str | None) -> str | None:
        if not archetype or not value or archetype not in values:
            return None
        allowed = values[archetype]
        if allowed is None:
            return value
        return next((v for v in allowed if v == value), None) or next(
            (v for v in allowed if v.lower() == value.lower()), None)

    return accept


def reply_line(answer: Answer) -> str:
    """One answer in words, for the model's plain-text reply."""
    value = answer.value() or ""
    extra = " ".join(x for x in ((answer.freeText if answer.choice is not None and answer.freeText else ""),
                                 f"(notes: {answer.notes})" if answer.notes else "") if x)
    return " ".join(x for x in (f"{answer.question.strip()} {value}".strip(), extra) if x)


def route_answers(answers: Sequence[Answer], accept: Callable[[str | None, str | None], str | None]
                  ) -> tuple[dict[str, str], list[str]]:
    """({archetype: value} the rules can anchor (the model gets them too), lines for the model's
    plain-text reply: everything else, including typed answers and notes)."""
    anchored: dict[str, str] = {}
    text: list[str] = []
    for answer in answers:
        value = accept(answer.archetype, answer.value())
        if value is not None:
            anchored[str(answer.archetype)] = value
        typed_too = bool((answer.notes or "").strip()) or (answer.choice is not None and bool(answer.freeText))
        if value is None or typed_too:
            text.append(reply_line(answer))
    return anchored, text


def rules_archetypes_for(report: Report) -> list[Detection]:
    """The rules' archetypes: the report's own, or, where the model's replaced them (model mode with model
    readings), the ones the pipeline kept under `rules_archetypes`."""
    return report.rules_detections
