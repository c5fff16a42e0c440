"""Model mode for one question: the chance to ask (the tool), then the readings (structured output).

Fails open, visibly: any failure is recorded on the ModelPart with its step and kind, and the caller
keeps the rules' result. The tool step is skipped on a resubmit (answers given), so a person is never
asked twice about the same question; the answers reach the model as the tool's output payload
(with the deterministic memoryHint when they include the person's own words).
"""
from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from checker_app.clarify import Answer, Option, tool_output
from checker_app.llm.client import ModelClient, client_for
from checker_app.llm.errors import ModelFailure
from checker_app.llm.model_sql import model_sql
from checker_app.llm.modes import SERVER_MODES, response_format_for, schema_instruction
from checker_app.llm.part import ModelPart
from checker_app.llm.prompt import (
    ANSWERED_INSTRUCTION,
    READINGS_INSTRUCTION,
    archetype_entries,
    system_prompt,
)
from checker_app.llm.readings import SCHEMA_NAME, Interpretations, interpretations_schema, read_interpretations
from checker_app.llm.settings import ModelSettings
from checker_app.llm.tool import quote_span, read_reply, tool_definition

DEFAULT_CAP = 8


def _stops(failure: ModelFailure) -> bool:
    """After these the server is unlikely to answer the next call either: do not double the wait."""
    if failure.kind in ("timeout", "connection", "busy", "context"):
        return True
    if failure.param:  # the server refused a parameter of this request (even as HTTP 500): the next call differs
        return False
    status = failure.status or 0
    return failure.kind == "http" and (status in (401, 403, 429) or status >= 500)


def clarification_answers(answers: Mapping[str, str], reply: str | None,
                          registry: Sequence[Any] | None = None, asked: str | None = None) -> list[Answer]:
    """The person's answers in the tool output's shape: picked readings, plus any plain-text reply."""
    asks = {e["id"]: e["ask"] for e in archetype_entries(registry)}
    result = [Answer(type="choice", question=asks.get(archetype, archetype), archetype=archetype,
                     choice=Option(label=value)) for archetype, value in answers.items()]
    if reply and reply.strip():
        result.append(Answer(type="choice", question=asked or "Clarification", freeText=reply.strip()))
    return result


def run_model(question: str, profile: Any, *, settings: ModelSettings | None = None, client: ModelClient | None = None,
              answers: Mapping[str, str] | None = None, reply: str | None = None, cap: int = DEFAULT_CAP,
              registry: Sequence[Any] | None = None) -> ModelPart:
    """Everything model mode says about `question`; never raises for model problems."""
    settings = settings or (client.settings if client else ModelSettings.from_env())
    part = ModelPart(settings=settings.describe())
    if not settings.enabled:
        part.off = settings.off_reason
        return part
    started = time.perf_counter()
    answers = dict(answers or {})
    try:
        client = client or client_for(settings)
        with client.slot():
            entries = archetype_entries(registry)
            system = {"role": "system", "content": system_prompt(profile, registry)}
            part.answered = bool(answers) or bool(reply and reply.strip())
            if part.answered:
                given = clarification_answers(answers, reply, registry)
                part.tool_output = tool_output(given)
            elif not _ask(client, part, system, question, tuple(e["id"] for e in entries)):
                return part
            _interpret(client, part, system, question, profile, entries, answers, reply, cap)
    except ModelFailure as failure:  # busy, or no client
        part.fail("model", failure)
    except Exception as err:  # noqa: BLE001 - model mode must never break the check: say so instead
        first = (str(err).splitlines() or [""])[0][:300]
        part.fail("model", ModelFailure("internal", f"{type(err).__name__}: {first}"))
    finally:
        part.elapsed_ms = (time.perf_counter() - started) * 1000
    return part


def _ask(client: ModelClient, part: ModelPart, system: dict[str, Any], question: str, ids: tuple[str, ...]) -> bool:
    """The model's chance to ask. False when the next call should not be tried. A server that refused the tool
    (`tools` or `tool_choice`) is remembered: later checks go straight to the readings, and say so."""
    if SERVER_MODES.refuses(client.server, "tools"):
        part.fallbacks.append({"step": "clarify", "mode": "tools", "next": "no clarification call",
                               "reason": "this server refused tools earlier in this process"})
        return True
    try:
        reply = client.chat("clarify", [system, {"role": "user", "content": question}], part.usage,
                            tools=[tool_definition(ids)])
    except ModelFailure as failure:
        part.fail("clarify", failure)
        if failure.param in ("tools", "tool_choice"):
            SERVER_MODES.refuse(client.server, "tools")
        return not _stops(failure)
    part.clarification = read_reply(reply.message, question)
    for i, asked in enumerate(part.clarification.questions):
        if asked.archetype is not None and asked.archetype not in ids:  # a call written as text is not enforced
            part.model_errors.append({"kind": "unknown_archetype", "where": f"clarify.questions.{i}.archetype",
                                      "message": "not an archetype of the registry", "value": asked.archetype})
            asked.archetype = None
    if part.clarification.status == "malformed":
        part.failures.append({"step": "clarify", "kind": "malformed",
                              "message": part.clarification.error or "malformed tool call"})
    return True


def _interpret(client: ModelClient, part: ModelPart, system: dict[str, Any], question: str, profile: Any,
               entries: list[dict[str, str]], answers: dict[str, str], reply: str | None, cap: int) -> None:
    ids = tuple(e["id"] for e in entries)
    text = f"Question: {question}\n\n" + READINGS_INSTRUCTION.format(cap=cap)
    if part.tool_output is not None:
        text += "\n\n" + ANSWERED_INSTRUCTION + "\n" + json.dumps(part.tool_output, ensure_ascii=False)
    parsed = _structured(client, part, system, text, ids)
    if parsed is None:
        return
    known = {e["id"]: e for e in entries}
    for seen in parsed.archetypes:
        entry = known[seen.id]
        span = quote_span(seen.quote, question)
        part.detections.append({
            "id": seen.id, "evidence": seen.quote, "quote_found": span is not None,
            "known": True, "span": span, "when": entry["when"], "ask": entry["ask"], "reason": entry["reason"],
            "source": "model"})
    part.model_errors += [dict(e.to_dict(), kind="unknown_archetype") for e in parsed.unknown_archetypes]
    part.model_errors += [dict(e.to_dict(), kind="invalid_reading") for e in parsed.invalid_readings]
    values = dict(answers)
    if reply and reply.strip():
        values.setdefault("answer", reply.strip())
    part.capped = len(parsed.readings) > cap
    for n, reading in enumerate(parsed.readings[:cap], 1):
        part.readings += model_sql(f"model:{n}", reading.label.strip(), reading.sql.strip(), profile, values,
                                   declared=reading.dialect)


def _structured(client: ModelClient, part: ModelPart, system: dict[str, Any], text: str,
                ids: tuple[str, ...]) -> Interpretations | None:
    """The readings call in the best structured-output mode the server takes (remembered per server)."""
    schema = interpretations_schema(ids)
    mode = SERVER_MODES.current(client.server)
    while True:
        instruction = schema_instruction(mode, schema)
        content = text + ("\n\n" + instruction if instruction else "")
        try:
            message = client.chat("interpret", [system, {"role": "user", "content": content}], part.usage,
                                  response_format=response_format_for(mode, SCHEMA_NAME, schema)).message
            parsed = read_interpretations(getattr(message, "content", None), ids)
        except ModelFailure as failure:
            lower = SERVER_MODES.step_down(client.server, mode) if failure.param == "response_format" else None
            if lower is None:
                part.fail("interpret", failure)
                return None
            part.fallbacks.append({"step": "interpret", "mode": mode, "next": lower, "reason": failure.message})
            mode = lower
            continue
        part.structured_output = mode
        return parsed
