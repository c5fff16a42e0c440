"""The check report: one pydantic model tree, serialised once at the edge (`Report.to_dict`).

The wire form is a public contract: the README's "The JSON report" section, and its JSON Schema
(`ambiguity-checker schema`, committed as docs/report.schema.json, see checker_app.contract).

Results stay the adapters' `RunResult` dataclasses at run time (the page formats their driver values,
the verdict compares them at the precision of their types); they serialise through `RunResult.to_dict`
and are described in the schema by `EngineResult`.
"""
from __future__ import annotations

import datetime as dt
from typing import Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    SerializerFunctionWrapHandler,
    computed_field,
    field_serializer,
    field_validator,
    model_serializer,
)
from pydantic_core import core_schema as cs

from adapters import RunResult
from adapters.errors import ERROR_KINDS
from checker_app.clarify import Answer, ChoiceQuestion, QueryChoiceQuestion, Question
from checker_app.verdict import Verdict, judge

Source = Literal["rules", "model", "pasted"]
Engine = Literal["rules", "model", "both"]          # who reads the question
ENGINES: tuple[str, ...] = get_args(Engine)
VerdictKind = Literal["material", "benign", "clear", "partial", "answered", "unanswered"]


class Wire(BaseModel):
    """A part of the report: no unknown keys, so the schema says exactly what is there."""

    model_config = ConfigDict(extra="forbid")


# -- what one engine returned for one statement (the adapters' part of the contract) ----------------

class ErrorInfo(Wire):
    kind: str = Field(json_schema_extra={"enum": list(ERROR_KINDS)})   # the kinds adapters.errors defines
    code: str | None
    message: str
    position: int | None = None


class RepairCandidate(Wire):
    label: str
    value: str
    sql: str
    status: str | None
    columns: list[str] = Field(default_factory=list)
    rows: list[list[Any]] = Field(default_factory=list)
    row_count: int | None = None
    truncated: bool = False
    error: ErrorInfo | None = None


class RepairReference(Wire):
    """One ambiguous reference the repair pass looked at, and what it decided (adapters.repair.statement)."""

    column: str
    scope: str
    clause: str
    kind: str
    position: int | None
    candidates: list[str]
    rule: str
    chosen: str | None
    proof: list[str]


class RepairEntry(Wire):
    """One repair log entry (adapters.repair.log.RepairLog)."""

    original_sql: str
    dialect: str
    error: ErrorInfo | None
    error_offset: int | None
    column: str | None
    rule: str
    sql: str | None
    candidates: list[RepairCandidate]
    agree: bool | None
    clarification: ChoiceQuestion | None              # which table's column is meant (the clarify contract)
    problem: str | None
    references: list[RepairReference]
    note: str


class EngineResult(Wire):
    """The wire form of adapters.RunResult."""

    engine: str
    dialect: str
    sql: str
    status: Literal["ok", "error", "timeout", "rejected"]
    columns: list[str]
    rows: list[list[Any]]
    row_count: int
    truncated: bool
    truncated_reason: str | None = None   # the row cap, the byte budget, or cells cut
    elapsed_ms: float
    error: ErrorInfo | None
    repairs: list[RepairEntry]


class _DescribedAs:
    """Describe a run-time object in the JSON Schema by the model of its wire form."""

    def __init__(self, wire: type[BaseModel]) -> None:
        self.wire = wire

    def __get_pydantic_json_schema__(self, _schema: cs.CoreSchema, handler: Any) -> Any:
        return handler(self.wire.__pydantic_core_schema__)


def _is_run_result(value: Any) -> RunResult:
    if not isinstance(value, RunResult):
        raise TypeError(f"expected a RunResult, got {type(value).__name__}")
    return value


Result = Annotated[RunResult, PlainValidator(_is_run_result), PlainSerializer(lambda r: r.to_dict()),
                   _DescribedAs(EngineResult)]


# -- detections ---------------------------------------------------------------------------------------

class ReadingOption(Wire):
    value: str
    label: str


class Detection(Wire):
    """One archetype that fired (`id`, the one key naming it): the words that triggered it, what to ask, and
    the readings it implies."""

    id: str
    evidence: str
    span: tuple[int, int] | None
    when: str = ""
    ask: str = ""
    reason: str = ""
    clarification: Question | None = None
    readings: list[ReadingOption] = Field(default_factory=list)
    source: Literal["rules", "model"] = "rules"
    quote_found: bool | None = None   # model detections: whether the quote is in the question
    known: bool | None = None         # model detections: whether the id is a registered archetype

    @property
    def live(self) -> bool:
        """Its options come from a live query (entity names): any typed value is an answer."""
        return isinstance(self.clarification, QueryChoiceQuestion)

    @property
    def values(self) -> set[str]:
        return {r.value for r in self.readings}

    @classmethod
    def from_rules(cls, detection: Any) -> Detection:
        """An archetypes.model.Detection, converted once (its clarification, the same dataclass, checked against
        the clarify contract with the archetype and the quoted words filled in)."""
        from checker_app.clarify import parse_question

        clarification = parse_question({**detection.clarification.to_dict(), "archetype": detection.archetype,
                                        "quote": detection.evidence})
        return cls(id=detection.archetype, evidence=detection.evidence, span=tuple(detection.span),
                   # the detection's own question ("Sales in money or in units?") over its archetype's generic ask
                   when=detection.when, ask=clarification.question or detection.ask, reason=detection.reason,
                   clarification=clarification,
                   readings=[ReadingOption(value=r.value, label=r.label) for r in detection.readings])


class IgnoredWords(Wire):
    text: str
    span: tuple[int, int]
    suggestions: list[str] = Field(default_factory=list)
    reason: str = ""                    # why, when a reading could not apply the words


class ReadAsWord(Wire):
    """Words read as other words, and said: a misspelt schema or operator word ('cusomers' read as 'customer',
    'averge' as 'average'), a year in two digits ("'97" as '1997') or a shorthand ('ppl' as 'people')."""

    text: str
    span: tuple[int, int]
    word: str


class Understood(Wire):
    """Whether every content word of the question was read; the words that were not, and the misspelt
    words read as schema words."""

    complete: bool = True
    ignored: list[IgnoredWords] = Field(default_factory=list)
    read_as: list[ReadAsWord] = Field(default_factory=list)

    @classmethod
    def from_analysis(cls, understood: Any) -> Understood:
        return cls(complete=understood.complete,
                   ignored=[IgnoredWords(text=i.text, span=tuple(i.span), suggestions=list(i.suggestions),
                                         reason=getattr(i, "reason", "")) for i in understood.ignored],
                   read_as=[ReadAsWord(text=r.text, span=tuple(r.span), word=r.word)
                            for r in getattr(understood, "read_as", ())])


# -- readings -----------------------------------------------------------------------------------------

class ReadingResult(Wire):
    """One interpretation (or pasted statement): its SQL and result on every engine."""

    id: str
    label: str
    choices: dict[str, str] = Field(default_factory=dict)
    source: Source = "rules"
    explanation: str = ""                                        # what the SQL computes, in one sentence
    sql: dict[str, str] = Field(default_factory=dict)            # engine name -> SQL text
    results: dict[str, Result] = Field(default_factory=dict)     # engine name -> result
    engines_agree: bool | None = None
    lists: bool = False                                          # a list: no rows is the answer 'none'
    side_by_side: int = 0                                        # rows: this many values named, in that order
    top_n: int = 0                                               # rows: the top N asked for, compared as a set (1: the winner)

    def first_ok(self) -> RunResult | None:
        return next((r for r in self.results.values() if r.ok), None)

    def top_row(self) -> list[Any] | None:
        result = self.first_ok()
        return list(result.rows[0]) if result and result.rows else None


class EngineInfo(Wire):
    name: str
    backend: str
    dialect: str
    url: str                            # never with a password
    warning: str | None = None          # connected with more privileges than reading needs


# -- model mode ---------------------------------------------------------------------------------------

class Placeholder(Wire):
    """A placeholder the model left in its SQL, and the literal it was replaced by (None: not known)."""

    placeholder: str
    replaced_with: str | None = None


class ModelReading(Wire):
    """One reading the model wrote, after the safety check and lint (checker_app.llm.model_sql.ModelSQL)."""

    id: str
    label: str
    sql: str
    placeholders: list[Placeholder]
    error: str | None
    written_in: str | None = None                                   # the dialect the model wrote it in
    transpiled: bool = False                                         # rewritten for each engine's dialect
    unknown_columns: list[str] = Field(default_factory=list)         # "t.c (t has: ...)"
    ambiguous_columns: list[str] = Field(default_factory=list)       # for the repair pass
    clock: list[str] = Field(default_factory=list)                   # how it reads the clock, when it does
    as_of: dt.date | None = None                                     # set when the clock is past the data
    anchored_from: str | None = None                                 # the reading this one re-anchors


class ModelSettingsInfo(Wire):
    """The model settings a check ran with, as the report may show them (never the key)."""

    model: str
    base_url: str                      # without credentials
    timeout_s: float
    max_retries: int
    enabled: bool
    max_tokens: dict[str, int]         # step -> tokens
    temperature: float | None
    stream: bool


class DroppedAsk(Wire):
    """A question the model asked that was dropped (its quote is not in the user's question, ...)."""

    index: int
    question: str
    quote: str
    reason: str


class RecoveryAction(Wire):
    action: Literal["retry", "skip", "answer_text"]
    label: str


class ToolCall(Wire):
    """What came of the model's chance to ask (checker_app.llm.tool.ToolCallResult)."""

    status: Literal["asked", "dropped", "malformed", "none"]
    questions: list[Question] = Field(default_factory=list)
    dropped: list[DroppedAsk] = Field(default_factory=list)
    tool_call_id: str | None = None
    text: str | None = None                  # what the model wrote instead of (or next to) a call
    written_as_text: str | None = None       # the call came in the message text: tagged | question | bare | named
    error: str | None = None                 # malformed only, with raw_input and recovery
    raw_input: Any = None
    recovery: list[RecoveryAction] = Field(default_factory=list)

    @model_serializer(mode="wrap")
    def _present_keys(self, handler: SerializerFunctionWrapHandler):  # unannotated: the schema stays the model's
        data = handler(self)
        for key in ("tool_call_id", "text", "written_as_text"):
            if data.get(key) is None:
                data.pop(key, None)
        if self.status != "malformed":
            for key in ("error", "raw_input", "recovery"):
                data.pop(key, None)
        return data


class ToolOutput(Wire):
    """The answers the model was given as its tool's output; memoryHint only for user-authored text."""

    answers: list[Answer]
    memoryHint: str | None = None  # noqa: N815 - the wire name

    @model_serializer(mode="wrap")
    def _present_keys(self, handler: SerializerFunctionWrapHandler):  # unannotated: the schema stays the model's
        data = handler(self)
        data["answers"] = [{k: v for k, v in a.items() if v is not None} for a in data["answers"]]
        if data.get("memoryHint") is None:
            data.pop("memoryHint", None)
        return data

    def to_dict(self) -> dict[str, Any]:
        return self.model_dump(mode="json")


class ModelFailureInfo(Wire):
    """One step of the model part that gave nothing usable (checker_app.llm.errors.ModelFailure)."""

    kind: str                          # off | busy | timeout | connection | http | malformed | refused | ...
    message: str
    step: str = ""                     # clarify | interpret | ...
    status: int | None = None          # the HTTP status, when the server answered with one
    param: str | None = None           # the request parameter the server refused
    phase: str | None = None           # timeouts: prompt (no token yet) or generation
    raw: Any = None                    # what came back, clipped


class ModelFallback(Wire):
    """A structured-output mode the server refused, and the one used instead."""

    step: str
    mode: str
    next: str
    reason: str


class ModelError(Wire):
    """Something the model wrote that the checker could not use: an unknown archetype id, an invalid reading."""

    kind: Literal["unknown_archetype", "invalid_reading"]
    where: str
    message: str
    value: Any = None


class TokenUsage(Wire):
    """Token usage and time: requests sent (attempts), the ones that gave a reply (calls), their tokens."""

    calls: int = 0
    attempts: int = 0
    timeouts: int = 0
    retries: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    estimated: bool = False        # some tokens were counted from stream chunks, not a usage block
    seconds: float = 0.0


class StepUsage(TokenUsage):
    """One step's usage (checker_app.llm.usage.StepUsage)."""

    first_token_s: float | None = None   # of the last attempt that produced a token


class ModelUsage(TokenUsage):
    """Every model token and second of one check (checker_app.llm.usage.Usage), and each step's."""

    by_step: dict[str, StepUsage] = Field(default_factory=dict)


class ModelReport(Wire):
    """What model mode contributed (checker_app.llm.part.ModelPart)."""

    status: Literal["ok", "partial", "failed", "off"]
    off: str | None
    failure: ModelFailureInfo | None
    failures: list[ModelFailureInfo]
    settings: ModelSettingsInfo | None                                 # None: model mode is off
    archetypes: list[Detection]
    clarification: ToolCall | None
    answered: bool
    tool_output: ToolOutput | None
    readings: list[ModelReading]
    model_errors: list[ModelError] = Field(default_factory=list)       # unknown archetype ids, invalid readings
    structured_output: str | None = None                               # the mode the readings came in
    fallbacks: list[ModelFallback] = Field(default_factory=list)       # structured-output modes refused
    capped: bool
    usage: ModelUsage
    elapsed_ms: float

    @field_validator("settings", mode="before")
    @classmethod
    def _no_settings(cls, value: Any) -> Any:
        return value or None  # a part that never read its settings has an empty dict

    @classmethod
    def from_part(cls, part: Any) -> ModelReport:
        """A checker_app.llm.part.ModelPart, converted once."""
        data = part.to_dict()
        data["archetypes"] = [Detection.model_validate(d) for d in data["archetypes"]]
        return cls.model_validate(data)


class ArchetypeSplit(Wire):
    rules: list[str]
    model: list[str]
    both: list[str]
    rules_only: list[str]
    model_only: list[str]


class ComparedReading(Wire):
    model_reading: str
    label: str
    same_sql_as: str | None
    same_answer_as: list[str]
    answer: list[Any] | None


class ComparisonFailures(Wire):
    """The readings that gave no answer, per side."""

    rules: list[str] = Field(default_factory=list)
    model: list[str] = Field(default_factory=list)


class ModelComparison(Wire):
    """Rules vs model (engine both): archetypes found by each, readings whose SQL or answers differ."""

    engine: str | None
    archetypes: ArchetypeSplit
    readings: list[ComparedReading]
    rules_answers_missing_from_model: list[str]
    failed: ComparisonFailures = Field(default_factory=ComparisonFailures)
    model_errors: int = 0
    sql_differs: bool | None
    results_differ: bool | None
    summary: str = ""


# -- the report ---------------------------------------------------------------------------------------

class Report(Wire):
    question: str
    as_of: dt.date | None
    divergent: bool | None              # readings give different answers; None: fewer than two answered
    distinct_answers: int
    engines: list[EngineInfo]
    archetypes: list[Detection]
    understood: Understood = Field(default_factory=Understood)
    interpretations: list[ReadingResult]
    answers: dict[str, str] = Field(default_factory=dict)
    capped: bool = False
    total_readings: int = 0
    notes: list[str] = Field(default_factory=list)
    elapsed_ms: float = 0.0
    # model mode only (absent from the JSON otherwise)
    engine: Engine | None = None
    model: ModelReport | None = None
    comparison: ModelComparison | None = None
    rules_archetypes: list[Detection] | None = None

    @field_serializer("elapsed_ms")
    def _rounded(self, value: float) -> float:
        return round(value, 1)

    @model_serializer(mode="wrap")
    def _model_mode_keys(self, handler: SerializerFunctionWrapHandler):  # unannotated: the schema stays the model's
        data = handler(self)
        for key in ("engine", "model", "comparison", "rules_archetypes"):
            if data.get(key) is None:
                data.pop(key, None)
        return data

    @computed_field  # type: ignore[prop-decorator]
    @property
    def ambiguous(self) -> bool:
        """At least one archetype fired."""
        return bool(self.archetypes)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> VerdictKind:
        return self.judged().kind

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict_text(self) -> str:
        return self.judged().text

    @property
    def judged_readings(self) -> list[ReadingResult]:
        """The readings the verdict is judged on: the rules' when the model's are there too (engine both)."""
        return [r for r in self.interpretations if r.source != "model"] or list(self.interpretations)

    @property
    def answered(self) -> str | None:
        """How the person's answer anchored the readings, in words, or None."""
        if self.answers:
            return "anchored to your choice (" + ", ".join(f"{k} = {v}" for k, v in self.answers.items()) + ")"
        return "following your answer" if self.model is not None and self.model.answered else None

    def judged(self) -> Verdict:
        readings = self.judged_readings
        # the model may give several readings without a registry archetype (none named, or only unknown ids):
        # several readings are still several, never "clear: one reading"
        several = len(readings) > 1 and all(r.source == "model" for r in readings)
        return judge(readings, ambiguous=self.ambiguous or several, divergent=self.divergent,
                     distinct=self.distinct_answers, answered=self.answered, understood=self.understood,
                     archetypes=[a.id for a in self.archetypes])

    def to_dict(self) -> dict[str, Any]:
        """The JSON report (plain values only)."""
        return self.model_dump(mode="json")

    @property
    def rules_detections(self) -> list[Detection]:
        """The rules' archetypes: the report's own, or the ones kept where the model's replaced them."""
        return self.rules_archetypes if self.rules_archetypes is not None else [
            a for a in self.archetypes if a.source == "rules"]


def plain(items: Any) -> list[Any]:
    """Report parts (detections, engines, ignored words) as plain JSON dicts, for page helpers that read
    dicts; dicts pass through unchanged."""
    return [i.model_dump(mode="json") if isinstance(i, BaseModel) else i for i in items]


__all__ = [
    "ENGINES", "ArchetypeSplit", "ChoiceQuestion", "ComparedReading", "ComparisonFailures", "Detection", "Engine", "EngineInfo", "EngineResult", "ErrorInfo",
    "IgnoredWords", "ModelComparison", "ModelReading", "ModelReport", "QueryChoiceQuestion", "ReadingOption",
    "ReadingResult", "RepairEntry", "Report", "Result", "Source", "plain", "Understood", "VerdictKind",
]
