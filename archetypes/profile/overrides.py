"""The profile overrides: a team's YAML corrections to the inferred profile, validated at the boundary.

The file is user input, so it is read into typed, frozen records by a validator that refuses unknown keys
(a misspelt key used to be ignored in silence) and wrong types, each with one line naming the key. The
archetypes may not import pydantic (DESIGN.md's package table, tests/test_archetypes.py), so the readers
are the small functions below, one per kind of value, and the keys a table of them. What needs the schema
(a measure's table must be a fact table) is checked when the overrides are applied.
"""
from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import sqlglot

from archetypes.errors import ProfileOverrideError
from archetypes.naming import slug
from archetypes.profile.locales import ZONE_NAMES
from archetypes.profile.model import Measure, SchemaProfile


@dataclass(frozen=True)
class MeasureOverride:
    """A measure a fact table gets (or a measure of the same value it replaces)."""

    value: str
    table: str
    label: str | None = None
    column: str | None = None        # a column summed
    expression: str | None = None    # or SQL over the table's columns
    money: bool = False
    words: tuple[str, ...] = ()      # question words that name it (default: its value)


@dataclass(frozen=True)
class ProfileOverrides:
    """The YAML file's top level (every key optional)."""

    ignore_tables: tuple[str, ...] = ()
    # word -> a table, a measure, or several `table.column` targets (schema_mapping), comma-joined
    synonyms: dict[str, str] = field(default_factory=dict)
    business_time_zone: str | None = None
    fiscal_year_start: int | None = None
    as_of: dt.date | None = None
    measures: tuple[MeasureOverride, ...] = ()
    allow_functions: tuple[str, ...] = ()  # read by the application's safety check


class _Invalid(ValueError):
    """One problem, with the key path it is at."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(f"{where}: {message}")


# -- readers: one per kind of value, each raising _Invalid naming `where` ------------------------------------

def _text(value: Any, where: str) -> str:
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise _Invalid(where, f"expected text, got {type(value).__name__}")
    return str(value)


def _texts(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise _Invalid(where, f"expected a list, got {type(value).__name__}")
    return tuple(_text(item, f"{where}.{i}") for i, item in enumerate(value))


def _synonyms(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict):
        raise _Invalid(where, "expected a mapping of word -> table or measure")
    return {_text(k, where).lower(): ", ".join(_texts(v, f"{where}.{k}")) if isinstance(v, list)
            else _text(v, f"{where}.{k}") for k, v in value.items()}


def _zone(value: Any, where: str) -> str | None:
    zone = _text(value, where)
    if zone and zone not in ZONE_NAMES and zone != "UTC":
        raise _Invalid(where, f"{zone!r} is not an IANA time zone")
    return zone or None


def _month(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 12:
        raise _Invalid(where, "expected a month number 1-12")
    return value


def _date(value: Any, where: str) -> dt.date:
    if isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(_text(value, where))
    except ValueError:
        raise _Invalid(where, f"expected a date YYYY-MM-DD, got {str(value)[:40]!r}") from None


def _flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(where, "expected true or false")
    return value


def _expression(value: Any, where: str) -> str:
    text = _text(value, where)
    try:
        sqlglot.parse_one(text)
    except sqlglot.errors.ParseError as err:
        raise _Invalid(where, f"cannot parse {text!r}: {str(err).splitlines()[0]}") from None
    return text


_MEASURE_KEYS: dict[str, Callable[[Any, str], Any]] = {
    "value": _text, "table": _text, "label": _text, "column": _text, "expression": _expression, "money": _flag,
    "words": _texts,
}


def _measures(value: Any, where: str) -> tuple[MeasureOverride, ...]:
    if not isinstance(value, list):
        raise _Invalid(where, f"expected a list, got {type(value).__name__}")
    return tuple(_measure(item, f"{where}.{i}") for i, item in enumerate(value))


def _measure(value: Any, where: str) -> MeasureOverride:
    fields = _record(value, where, _MEASURE_KEYS)
    for needed in ("value", "table"):
        if needed not in fields:
            raise _Invalid(f"{where}.{needed}", "required (each measure needs at least value and table)")
    return MeasureOverride(**fields)


_KEYS: dict[str, Callable[[Any, str], Any]] = {
    "ignore_tables": _texts, "synonyms": _synonyms, "business_time_zone": _zone, "fiscal_year_start": _month,
    "as_of": _date, "measures": _measures, "allow_functions": _texts,
}


def _record(value: Any, where: str, keys: dict[str, Callable[[Any, str], Any]]) -> dict[str, Any]:
    """The known keys of a mapping, each read by its reader; a null value is the same as a missing key."""
    if not isinstance(value, dict):
        raise _Invalid(where or "top", "expected a mapping")
    fields = {}
    for key, item in value.items():
        path = f"{where}.{key}" if where else str(key)
        if key not in keys:
            raise _Invalid(path, f"not a key of the profile overrides (known: {', '.join(keys)})")
        if item is not None:
            fields[str(key)] = keys[key](item, path)
    return fields


def validated(data: dict[str, Any] | ProfileOverrides | None, where: str = "") -> ProfileOverrides:
    """`data` as overrides, or a ProfileOverrideError of one line naming the key (and `where`, a file)."""
    if isinstance(data, ProfileOverrides):
        return data
    try:
        return ProfileOverrides(**_record(data or {}, "", _KEYS))
    except _Invalid as err:
        raise ProfileOverrideError(f"{where}: {err}" if where else str(err)) from None


def load_profile_overrides(path: str | Path) -> dict[str, Any]:
    """Read and validate the optional YAML file that corrects or extends a profile (its mapping back)."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError, ValueError) as err:  # ValueError: an unquoted date like 2025-13-45
        raise ProfileOverrideError(f"cannot read profile overrides {path}: {str(err).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ProfileOverrideError(f"profile overrides {path}: expected a mapping at the top")
    validated(data, f"profile overrides {path}")
    return data


def apply_overrides(profile: SchemaProfile, overrides: ProfileOverrides) -> SchemaProfile:
    """The profile with the overrides' corrections: a new profile, and new facts where measures were added."""
    facts = dict(profile.facts)
    for item in overrides.measures:
        table = next((n for n in profile.tables if n.lower() == item.table.lower()), None)
        if table is None or table not in facts:
            raise ProfileOverrideError(f"measures: {item.table!r} is not a fact table of this schema")
        measure = Measure(slug(item.value), item.label or item.value, "expression" if item.expression else "sum",
                          table, (item.column,) if item.column else (), money=item.money,
                          expression=item.expression or None,
                          words=tuple(w.lower() for w in item.words or (item.value,)))
        fact = facts[table]
        facts[table] = replace(fact, measures=[m for m in fact.measures if m.value != measure.value] + [measure])
        # the words declared name the declared measure alone ('revenue': the payments, not the built-in line total)
        claimed = set(measure.words)
        facts = {name: replace(f, measures=[m if m is measure else replace(m, words=tuple(w for w in m.words
                                                                                        if w not in claimed))
                                            for m in f.measures]) for name, f in facts.items()}
    return replace(profile, facts=facts, synonyms=dict(overrides.synonyms),
                   business_time_zone=overrides.business_time_zone or profile.business_time_zone,
                   fiscal_year_start=overrides.fiscal_year_start if overrides.fiscal_year_start is not None
                   else profile.fiscal_year_start,
                   as_of=overrides.as_of or profile.as_of)
