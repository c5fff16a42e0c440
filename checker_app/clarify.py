"""The clarification contract of the first article: questions in, answers and memoryHint out.

Two question shapes, a discriminated union: `choice` (static options) and `query_choice` (a SELECT
that fetches live options), the dataclasses of `adapters.clarification` (the one model of a question, shared
with the archetypes and the repair pass), validated here with pydantic. A preprocessor infers a missing `type` (options -> choice, sql ->
query_choice). Answers are validated the way the wizard validates them: no empty submission, no
"Other" without text. The memoryHint is deterministic: present, verbatim, only when an answer carries
user-authored text (custom answer or notes).
"""
from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from adapters import CheckerError
from adapters.clarification import ChoiceQuestion, Option, QueryChoiceQuestion

MEMORY_HINT = ("The user provided a custom answer or added notes. This may contain personal preferences, "
               "corrections, or context worth saving to memory.")
OTHER_LABEL = "Other"


class ClarificationError(CheckerError):
    """A clarification question or answer that does not fit the contract."""


def normalize_question_type(raw: Any) -> Any:
    """The article's normalizeQuestionType: infer a missing discriminator instead of failing."""
    if isinstance(raw, dict) and not raw.get("type"):
        if raw.get("sql"):
            return {**raw, "type": "query_choice"}
        if raw.get("options") is not None:
            return {**raw, "type": "choice"}
    return raw


Question = Annotated[ChoiceQuestion | QueryChoiceQuestion, Field(discriminator="type")]
_QUESTION: TypeAdapter[ChoiceQuestion | QueryChoiceQuestion] = TypeAdapter(Question)


class AskUserQuestionInput(BaseModel):
    """The input of the render_ask_user_question tool: at least one question."""

    model_config = ConfigDict(extra="ignore")
    questions: list[Question] = Field(min_length=1)

    @model_validator(mode="before")
    @classmethod
    def _normalize(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("questions"), list):
            return {**data, "questions": [normalize_question_type(q) for q in data["questions"]]}
        return data


def parse_question(raw: dict[str, Any]) -> ChoiceQuestion | QueryChoiceQuestion:
    try:
        return _QUESTION.validate_python(normalize_question_type(raw))
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ClarificationError(f"malformed clarification question ({where}: {first['msg']})") from None


def question_dict(question: ChoiceQuestion | QueryChoiceQuestion, exclude_none: bool = False) -> dict[str, Any]:
    """A question as the contract serialises it (archetype and quote included; JSON values)."""
    return _QUESTION.dump_python(question, mode="json", exclude_none=exclude_none)


def parse_tool_input(raw: Any) -> AskUserQuestionInput:
    try:
        return AskUserQuestionInput.model_validate(raw)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "input"
        raise ClarificationError(f"malformed clarification tool call ({where}: {first['msg']})") from None


class Answer(BaseModel):
    """One answered question, as the tool output carries it."""

    type: Literal["choice", "query_choice"]
    question: str
    choice: Option | list[Option] | None = None
    freeText: str | None = None  # noqa: N815 - the wire name
    notes: str | None = None
    archetype: str | None = Field(default=None, exclude=True)

    def has_custom_content(self) -> bool:
        return bool((self.freeText or "").strip() or (self.notes or "").strip())

    def value(self) -> str | None:
        """The value to anchor the SQL on: the chosen option's value, else the typed text."""
        if isinstance(self.choice, Option):
            return self.choice.resolved_value
        if isinstance(self.choice, list) and self.choice:
            return self.choice[0].resolved_value
        text = (self.freeText or "").strip()
        return text or None


def answer_question(question: ChoiceQuestion | QueryChoiceQuestion, selected: list[str], other_text: str = "",
                    notes: str = "", other_checked: bool = False) -> Answer:
    """Validate one wizard step: refuse an empty submission and "Other" without text."""
    labels = {o.label: o for o in question.options}
    unknown = [s for s in selected if s not in labels and s != OTHER_LABEL]
    if unknown:
        raise ClarificationError(f"not an option: {unknown[0]!r}")
    other_checked = other_checked or OTHER_LABEL in selected
    chosen = [labels[s] for s in selected if s in labels]
    text = other_text.strip()
    if other_checked and not text:
        raise ClarificationError('"Other" needs some text')
    if not chosen and not text:
        raise ClarificationError("choose an option or type an answer")
    if len(chosen) > 1 and not question.multiSelect:
        raise ClarificationError("this question takes one answer")
    choice: Option | list[Option] | None
    choice = chosen if question.multiSelect else (chosen[0] if chosen else None)
    return Answer(type=question.type, question=question.question, choice=choice or None,
                  freeText=text or None, notes=notes.strip() or None, archetype=question.archetype)


def tool_output(answers: list[Answer]) -> dict[str, Any]:
    """What the model sees after the wizard: answers, plus memoryHint only for user-authored text."""
    payload: dict[str, Any] = {"answers": [a.model_dump(exclude_none=True) for a in answers]}
    if any(a.has_custom_content() for a in answers):
        payload["memoryHint"] = MEMORY_HINT
    return payload


def archetype_answers(answers: list[Answer], reading_values: dict[str, set[str]]) -> tuple[dict[str, str], list[str]]:
    """Answers that anchor SQL ({archetype: value}), and the ones that stay plain text (no matching reading).

    `reading_values` lists, per archetype, the values its readings accept; an archetype absent from it
    (the entity archetype) takes any text, embedded later as a quoted literal.
    """
    anchored: dict[str, str] = {}
    plain: list[str] = []
    for answer in answers:
        value = answer.value()
        if not answer.archetype or value is None:
            continue
        allowed = reading_values.get(answer.archetype)
        if allowed is None or value in allowed:
            anchored[answer.archetype] = value
        else:
            plain.append(f"{answer.archetype}: {value}")
    return anchored, plain
