"""Plain-text lines for the model part and the rules-vs-model comparison (the `check` command's output)."""
from __future__ import annotations

import json
from typing import Any


def model_lines(extra: dict[str, Any]) -> list[str]:
    model = extra.get("model")
    if not model:
        return []
    settings = model.get("settings") or {}   # None: model mode was off before it read any settings
    usage = model.get("usage") or {}
    lines = [f"\nModel ({settings.get('model', '?')} at {settings.get('base_url', '?')}): {model['status']}"
             + (f": {model['off']}" if model.get("off") else "")]
    if model.get("failure"):
        for failure in model.get("failures", []):
            if failure["step"] == "clarify" and failure["kind"] == "malformed":
                continue  # shown with the clarification below, with its raw input and the ways on
            lines.append(f"  failed at {failure['step']} ({failure['kind']}): {failure['message']}")
            if failure.get("raw") is not None:
                lines.append(f"    raw reply: {_short(failure['raw'])}")
    for fallback in model.get("fallbacks", []):
        lines.append(f"  {fallback['step']}: the server refused {fallback['mode']}, used {fallback['next']} "
                     f"(remembered for this server): {_short(fallback['reason'])}")
    for error in model.get("model_errors", []):
        what = "unknown archetype id" if error.get("kind") == "unknown_archetype" else "invalid reading"
        lines.append(f"  model error, {what} at {error['where']}: {_short(error.get('value'), 120)} ({error['message']})")
    clarification = model.get("clarification")
    if model.get("answered"):
        lines.append("  answers given: not asked again; the model got them as the tool output")
    elif clarification:
        lines.extend(clarification_lines(clarification))
    for archetype in model.get("archetypes", []):
        flag = "" if archetype.get("quote_found") else "  (quote not in the question)"
        known = "" if archetype.get("known") else "  (not a registry archetype)"
        lines.append(f"  * {archetype['id']}: \"{archetype['evidence']}\"{flag}{known}")
    for reading in model.get("readings", []):
        replaced = [p for p in reading.get("placeholders", []) if p.get("replaced_with")]
        for p in replaced:
            lines.append(f"  {reading['id']}: placeholder {p['placeholder']} replaced by {p['replaced_with']}")
        if reading.get("transpiled"):
            lines.append(f"  {reading['id']}: written in {reading['written_in']}, transpiled for each engine")
        if reading.get("ambiguous_columns"):
            lines.append(f"  {reading['id']}: ambiguous column(s) for the repair pass: "
                         + "; ".join(reading["ambiguous_columns"]))
        if reading.get("as_of") and not reading.get("anchored_from"):
            lines.append(f"  {reading['id']}: reads the clock ({', '.join(reading['clock'])}) but the data ends "
                         f"{reading['as_of']}: {reading['id']}@as_of is the same reading anchored to that date")
        if reading.get("error"):
            lines.append(f"  {reading['id']}: not run: {reading['error']}")
    if usage.get("attempts", usage.get("calls")):
        steps = ", ".join(f"{name} {s['total_tokens']:,}" + (f", first token {s['first_token_s']:.1f} s"
                                                             if s.get("first_token_s") is not None else "")
                          for name, s in usage.get("by_step", {}).items())
        failed = usage.get("attempts", 0) - usage.get("calls", 0)
        attempts = f" (+{failed} failed attempt(s), {usage.get('timeouts', 0)} timed out)" if failed > 0 else ""
        estimated = " (some counted from the stream)" if usage.get("estimated") else ""
        lines.append(f"  tokens: {usage['total_tokens']:,}{estimated} in {usage['calls']} call(s){attempts}, "
                     f"{usage.get('seconds', 0):.1f} s ({steps})")
    comparison = extra.get("comparison")
    if comparison:
        lines.append(f"\nRules vs model: {comparison['summary']}")
        for row in comparison.get("readings", []):
            same = ("same answer as " + ", ".join(row["same_answer_as"]) if row["same_answer_as"]
                    else "no rules reading gives this answer" if row.get("answer") is not None else "no answer")
            sql = f"; same SQL as {row['same_sql_as']}" if row.get("same_sql_as") else ""
            lines.append(f"  {row['model_reading']} {row['label']!r}: {same}{sql}")
        if comparison.get("rules_answers_missing_from_model"):
            lines.append("  rules readings no model reading matches: "
                         + ", ".join(comparison["rules_answers_missing_from_model"]))
    return lines


def clarification_lines(clarification: dict[str, Any]) -> list[str]:
    status = clarification["status"]
    lines: list[str] = []
    if clarification.get("written_as_text"):
        lines.append(f"  the model wrote its call as text ({clarification['written_as_text']}), not as a tool call")
    if status == "none":
        lines.append("  the model did not ask" + (f"; it wrote: {_short(clarification['text'])}"
                                                  if clarification.get("text") else ""))
    for q in clarification.get("questions", []):
        options = ", ".join(o["label"] for o in q.get("options", [])) or q.get("sql", "")
        lines.append(f"  asks ({q['type']}) about \"{q.get('quote', '')}\": {q['question']} [{options}; Other]")
    for d in clarification.get("dropped", []):
        lines.append(f"  dropped ask {d['question']!r} (quote {d['quote']!r}): {d['reason']}")
    if status == "malformed":
        lines.append(f"  malformed clarification call: {clarification.get('error')}")
        lines.append(f"    raw input: {_short(clarification.get('raw_input'))}")
        lines.append("    retry: run the same command again | skip: --engine rules | "
                     "answer in plain text: --reply \"...\"")
    return lines


def _short(value: Any, limit: int = 400) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
