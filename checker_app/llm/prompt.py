"""The system prompt, generated from the archetype registry and the schema profile.

Four parts, in order: the blanket guardrail; one when / ask / reason entry per archetype (every
archetype in the registry, in registry order); the literal-substitution rule; a compact summary of the
schema and of the roles the profile inferred. `ambiguity-checker prompt` prints it for prompt authors.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from adapters.dialects import DIALECT_NAMES
from checker_app.llm.tool import TOOL_NAME

MAX_TABLES = 60
MAX_ENUM_VALUES = 12  # a text column whose whole domain is this small is listed with its values

GUARDRAIL = (
    f"Do not act on presumed user intentions. When the user's question has one of the shapes below, do not "
    f"pick a reading yourself: call {TOOL_NAME} before writing any SQL, with one question per shape you see. "
    "In each question, `quote` repeats word for word the part of the user's question it is about (an ask "
    "whose quote is not in the question is dropped), `archetype` names the shape, and `suggestions[i]` holds "
    "the answer chips for `questions[i]`. Use `choice` for a fixed list of options and `query_choice` with a "
    "read-only SELECT when the options are values in the database (names, ids). The user can always answer "
    "in their own words.")
LITERAL_RULE = (
    "When the user has chosen a value, write it into the SQL as a quoted string literal: if they pick "
    "\"United States\" for country, write WHERE country = 'United States', never WHERE country = $1, ?, %s "
    "or :country. The dashboard that shows your SQL cannot substitute parameters: the SQL you emit is the "
    "SQL that runs.")
SQL_RULES = (
    "Write exactly one read-only SELECT (or WITH ... SELECT) per reading, in the {dialect} dialect, using only "
    "the tables and columns listed below. No comments, no trailing semicolon, no statements that write.")


def archetype_entries(registry: Sequence[Any] | None = None) -> list[dict[str, str]]:
    """{id, when, ask, reason} for every archetype, in registry order."""
    if registry is None:
        from archetypes import ARCHETYPES as registry  # noqa: N811
    return [{"id": a.id, "when": a.when, "ask": a.ask, "reason": a.reason} for a in registry]


def archetype_ids(registry: Sequence[Any] | None = None) -> tuple[str, ...]:
    return tuple(e["id"] for e in archetype_entries(registry))


def _column_text(table: Any, column: Any, fk_targets: dict[str, str]) -> str:
    text = f"{column.name} {column.type.lower()}"
    if column.name in getattr(table, "primary_key", []):
        text += " PK"
    if column.name in fk_targets:
        text += f" -> {fk_targets[column.name]}"
    samples = list(getattr(column, "samples", []) or [])
    if getattr(column, "family", "") == "text" and 0 < len(samples) <= MAX_ENUM_VALUES:
        text += " [" + ", ".join(samples) + "]"
    return text


def schema_summary(profile: Any) -> str:
    """Tables (with row counts, keys, small value domains) and the roles the profile inferred."""
    tables = list(getattr(profile, "tables", {}).values())
    lines = [f"Tables ({DIALECT_NAMES.get(profile.dialect, profile.dialect or 'SQL')}):"]
    for table in tables[:MAX_TABLES]:
        fk_targets = {}
        for fk in getattr(table, "foreign_keys", []):
            for col, ref in zip(fk.columns, fk.ref_columns):
                fk_targets[col] = f"{fk.ref_table}.{ref}"
        columns = ", ".join(_column_text(table, c, fk_targets) for c in table.columns)
        lines.append(f"- {table.name} ({table.row_count:,} rows): {columns}")
    if len(tables) > MAX_TABLES:
        lines.append(f"- … {len(tables) - MAX_TABLES} more tables not listed")
    roles = _roles(profile)
    if roles:
        lines.append("Roles inferred from the data:")
        lines.extend(f"- {r}" for r in roles)
    return "\n".join(lines)


def _roles(profile: Any) -> list[str]:
    roles: list[str] = []
    for fact in getattr(profile, "facts", {}).values():
        measures = ", ".join(m.label for m in fact.measures) or "row counts"
        time = f"; time {fact.time.table}.{fact.time.column}" if fact.time else ""
        roles.append(f"fact {fact.table}: measures {measures}{time}")
    entities = [f"{e.table}.{'+'.join(e.name_columns)}" for e in getattr(profile, "entities", {}).values()]
    if entities:
        roles.append("names: " + ", ".join(entities))
    zones = [f"{z.table}.{z.column}" for z in getattr(profile, "zone_columns", [])]
    if zones:
        roles.append("business time zones: " + ", ".join(zones))
    currencies = [f"{c.table}.{c.column} ({', '.join(c.codes[:8])})" for c in getattr(profile, "currency_columns", [])]
    if currencies:
        roles.append("currencies: " + ", ".join(currencies))
    rate = getattr(profile, "rate_table", None)
    if rate is not None:
        roles.append(f"exchange rates: {rate.table}.{rate.rate_column} by {rate.currency_column} and "
                     f"{rate.date_column}, into {rate.target}")
    fiscal = getattr(profile, "fiscal", None)
    if fiscal is not None:
        roles.append(f"fiscal calendar: {fiscal.table} ({len(fiscal.periods)} periods)")
    earliest, latest = getattr(profile, "earliest", None), getattr(profile, "latest", None)
    if earliest and latest:
        roles.append(f"data from {earliest:%Y-%m-%d} to {latest:%Y-%m-%d}")
    as_of = getattr(profile, "as_of", None)
    if as_of:
        roles.append(f"relative dates ('last month', 'yesterday') count back from {as_of.isoformat()}")
    return roles


def system_prompt(profile: Any, registry: Sequence[Any] | None = None) -> str:
    dialect = DIALECT_NAMES.get(getattr(profile, "dialect", ""), getattr(profile, "dialect", "") or "SQL")
    parts = ["You write SQL for data questions about one database, and you ask before guessing.",
             "", GUARDRAIL, "", "Ambiguity shapes (when / ask / reason):"]
    for n, entry in enumerate(archetype_entries(registry), 1):
        parts += [f"{n}. {entry['id']}", f"   when: {entry['when']}", f"   ask: {entry['ask']}",
                  f"   reason: {entry['reason']}"]
    parts += ["", LITERAL_RULE, "", SQL_RULES.format(dialect=dialect), "", schema_summary(profile)]
    return "\n".join(parts)


READINGS_INSTRUCTION = (
    "List the ambiguity shapes you see in the question (each with its id and a word-for-word quote of the "
    "words that carry it), then every defensible reading of the whole question, each with a short label "
    "and one SQL query. Readings must differ in meaning, not in style. At most {cap} readings. If the "
    "question is clear, give one reading and no shapes.")
ANSWERED_INSTRUCTION = (
    "The user already answered the clarification (tool output below): give the reading(s) that answer, "
    "with every chosen value written as a quoted literal.")
