"""The clarification wizard of the first article, as a state machine the page only draws.

One question per step, taken from the report's archetypes (each detection carries a `choice` or
`query_choice` clarification). A `query_choice` fetches its options live; a failed fetch is reported
differently from one that found no rows. Submissions go through `checker_app.clarify.answer_question`
(no empty submission, no "Other" without text). A malformed clarification never blocks the page: it can
be retried, skipped, or answered in plain text.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import sqlglot
from sqlglot.errors import SqlglotError

from adapters import Database, UnsafeStatementError
from adapters.results import json_value
from checker_app.clarify import (
    Answer,
    ChoiceQuestion,
    ClarificationError,
    Option,
    QueryChoiceQuestion,
    answer_question,
    archetype_answers,
    parse_question,
    tool_output,
)
from checker_app.report import plain
from checker_app.ui.config import redact
from checker_app.ui.highlight import archetype_id

MAX_OPTIONS = 200

Question = ChoiceQuestion | QueryChoiceQuestion


@dataclass
class OptionsFetch:
    """Live options of a query_choice question."""

    status: str                                   # ok | empty | failed
    options: list[Option] = field(default_factory=list)
    message: str = ""
    engine: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _for_engine(sql: str, db: Database, read: str | None) -> str:
    """The options query in the engine's dialect (the rules write it in sqlglot's generic dialect).
    Never the raw text: what cannot be re-rendered is not run (`Database.run` re-renders it again)."""
    try:
        return sqlglot.transpile(sql, read=read, write=db.dialect)[0]
    except (SqlglotError, IndexError):
        raise UnsafeStatementError(f"the options query cannot be rendered for {db.dialect}") from None


def _pick(columns: list[str], names: tuple[str, ...]) -> int | None:
    lowered = [c.lower() for c in columns]
    return next((lowered.index(n) for n in names if n in lowered), None)


def options_from_rows(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[Option]:
    """Options from a live query: the `label` (or `name`) column names an option, `value` (else the
    label) is what the answer carries; with a `key` (or `id`) column, names that repeat are told apart
    as "name [key]", the way the entity archetype spells such readings."""
    columns = list(columns)
    label_at = _pick(columns, ("label", "name"))
    if label_at is None:
        label_at = 0 if len(columns) < 2 or _pick(columns, ("key", "id")) != 0 else 1
    value_at = _pick(columns, ("value",))
    key_at = _pick(columns, ("key", "id"))
    cleaned = [[None if v is None else str(json_value(v)).strip() for v in row] for row in rows if row]
    labels = [row[label_at] for row in cleaned if len(row) > label_at and row[label_at]]
    repeated = {label for label in labels if labels.count(label) > 1}
    options: list[Option] = []
    seen: set[str] = set()
    for row in cleaned:
        label = row[label_at] if len(row) > label_at else None
        if not label:
            continue
        value = row[value_at] if value_at is not None and row[value_at] else label
        if label in repeated and key_at is not None and row[key_at]:
            label = value = f"{label} [{row[key_at]}]"
        if label not in seen:
            seen.add(label)
            options.append(Option(label=label, value=value))
    return options


def fetch_options(sql: str, databases: Sequence[Database], secrets: Sequence[str] = (),
                  static: Sequence[Option] = (), read: str | None = None) -> OptionsFetch:
    """Run a query_choice SELECT on the first engine that answers (rows become options as
    `options_from_rows` says). Distinguishes a failed query from one that returned no rows. Options the
    question already lists whose values the query does not return (say "all matches combined") are
    kept after the live ones."""
    failures: list[str] = []
    for db in databases:
        try:
            result = db.run(_for_engine(sql, db, read))
        except Exception as err:  # noqa: BLE001 - the wizard must never crash the page
            failures.append(f"{db.name}: {type(err).__name__}")
            continue
        if not result.ok:
            err = result.error
            failures.append(f"{db.name}: {err.kind + ': ' + err.message if err else result.status}")
            if err is not None and err.kind == "connection":
                continue  # a dead engine: try the next one
            break         # the SQL itself failed
        options = options_from_rows(result.columns, result.rows[:MAX_OPTIONS])
        seen = {o.label for o in options}
        if not options:
            return OptionsFetch("empty", [], "The options query ran but returned no rows.", db.name)
        live_values = {o.resolved_value for o in options}
        extras = [o for o in static if o.resolved_value not in live_values and o.label not in seen]
        return OptionsFetch("ok", options + extras, f"{len(options)} options from {db.name}", db.name)
    detail = redact("; ".join(failures) or "no database to run it on", list(secrets))
    return OptionsFetch("failed", [], f"The options query failed: {detail}")


def steps_from_report(archetypes: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """One wizard step per archetype that carries a clarification (raw dicts, validated per step)."""
    steps = []
    for archetype in plain(archetypes):
        clarification = archetype.get("clarification")
        if clarification is None:
            continue
        raw = dict(clarification) if isinstance(clarification, dict) else {"invalid": clarification}
        raw["archetype"] = archetype_id(archetype)
        if raw.get("sql") is None:
            raw.pop("sql", None)
        steps.append(raw)
    return steps


def reading_values(archetypes: Sequence[dict[str, Any]]) -> dict[str, set[str]]:
    """Per archetype, the values its readings accept; query_choice archetypes (entity names) take any text."""
    values: dict[str, set[str]] = {}
    for archetype in plain(archetypes):
        clarification = archetype.get("clarification") or {}
        if isinstance(clarification, dict) and (clarification.get("type") == "query_choice" or clarification.get("sql")):
            continue
        readings = archetype.get("readings") or []
        allowed = {str(r.get("value")) for r in readings if isinstance(r, dict) and r.get("value") is not None}
        if allowed:
            values[archetype_id(archetype)] = allowed
    return values


@dataclass
class Wizard:
    """Which step, pending or not, and the answers so far."""

    steps: list[dict[str, Any]]
    index: int = 0
    answers: list[Answer] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)  # archetypes the person chose not to answer
    status: str = "pending"                            # pending | done | dismissed
    error: str | None = None                           # why the last submission was refused
    fetched: dict[int, OptionsFetch] = field(default_factory=dict)
    plain_text: bool = False                           # the current step is answered in plain text

    @classmethod
    def from_archetypes(cls, archetypes: Sequence[dict[str, Any]]) -> Wizard | None:
        steps = steps_from_report(archetypes)
        return cls(steps) if steps else None

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    @property
    def total(self) -> int:
        return len(self.steps)

    @property
    def raw(self) -> dict[str, Any]:
        return self.steps[self.index]

    @property
    def archetype(self) -> str:
        return str(self.raw.get("archetype") or "?")

    def question(self) -> Question:
        """The current step, validated (raises ClarificationError when malformed), with live options."""
        question = parse_question(self.raw)
        fetch = self.fetched.get(self.index)
        if isinstance(question, QueryChoiceQuestion) and fetch is not None:
            question = replace(question, options=list(fetch.options))
        return question

    def needs_fetch(self) -> bool:
        """True when the current step is a query_choice whose options were not fetched yet."""
        if not self.pending or self.index in self.fetched:
            return False
        try:
            return isinstance(parse_question(self.raw), QueryChoiceQuestion)
        except ClarificationError:
            return False

    def load_options(self, databases: Sequence[Database], secrets: Sequence[str] = ()) -> OptionsFetch:
        try:
            static = parse_question(self.raw).options
        except ClarificationError:
            static = []
        fetch = fetch_options(str(self.raw.get("sql") or ""), databases, secrets, static)
        self.fetched[self.index] = fetch
        return fetch

    def retry(self) -> None:
        """Forget the current step's fetched options and refusal, so it is fetched and shown again."""
        self.fetched.pop(self.index, None)
        self.error = None
        self.plain_text = False

    def _advance(self) -> None:
        self.error = None
        self.plain_text = False
        self.index += 1
        if self.index >= len(self.steps):
            self.index = len(self.steps) - 1
            self.status = "done"

    def submit(self, selected: Sequence[str], other_text: str = "", notes: str = "",
               other_checked: bool = False) -> bool:
        """Validate and record the current step; False (with `error` set) when refused."""
        if not self.pending:
            return False
        try:
            answer = answer_question(self.question(), list(selected), other_text, notes, other_checked)
        except ClarificationError as err:
            self.error = str(err)
            return False
        self.answers.append(answer)
        self._advance()
        return True

    def submit_plain(self, text: str, notes: str = "") -> bool:
        """Answer the current step in plain text (also when its clarification is malformed)."""
        if not self.pending:
            return False
        if not text.strip():
            self.error = "type an answer"
            return False
        raw_type = self.raw.get("type")
        kind = raw_type if raw_type in ("choice", "query_choice") else ("query_choice" if self.raw.get("sql") else "choice")
        question = str(self.raw.get("question") or self.raw.get("header") or self.archetype)
        self.answers.append(Answer(type=kind, question=question, freeText=text.strip(),
                                   notes=notes.strip() or None, archetype=self.archetype))
        self._advance()
        return True

    def skip_step(self) -> None:
        if self.pending:
            self.skipped.append(self.archetype)
            self._advance()

    def dismiss(self) -> None:
        """Skip the whole clarification: the question box comes back, the readings stay as they are."""
        self.status = "dismissed"
        self.error = None

    def choose(self, choices: dict[str, str], archetypes: Sequence[dict[str, Any]]) -> bool:
        """Answer every remaining step at once with one reading's choices (a verdict bullet was clicked);
        a step whose archetype the reading does not choose is skipped. False when nothing was answered."""
        if not self.pending:
            return False
        labels = {highlight_id: {str(r.get("value")): str(r.get("label") or r.get("value"))
                                 for r in a.get("readings") or [] if isinstance(r, dict)}
                  for a in plain(archetypes) if (highlight_id := archetype_id(a))}
        answered = False
        while self.pending:
            raw, aid = self.raw, self.archetype
            value = choices.get(aid)
            if value is None:
                self.skip_step()
                continue
            kind = raw.get("type") if raw.get("type") in ("choice", "query_choice") else "choice"
            label = labels.get(aid, {}).get(value, value)
            self.answers.append(Answer(type=kind, question=str(raw.get("question") or raw.get("header") or aid),
                                       choice=Option(label=label, value=value), archetype=aid))
            answered = True
            self._advance()
        return answered

    def output(self) -> dict[str, Any]:
        """The tool output the article describes: answers, plus memoryHint only for user-authored text."""
        return tool_output(self.answers)

    def anchored(self, archetypes: Sequence[dict[str, Any]]) -> tuple[dict[str, str], list[str]]:
        """({archetype: value} to anchor the SQL on, answers that stay plain text)."""
        return archetype_answers(self.answers, reading_values(archetypes))
