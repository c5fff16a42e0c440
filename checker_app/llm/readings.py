"""The model's interpretations, as structured output: the archetypes it sees, and per reading a label and one SQL.

The schema sent is the schema validated: `interpretations_schema(ids)` is the strict form of the
pydantic models below with the archetype id an enum of the registry's ids, and a reply is checked
against that very schema (jsonschema) before the models are built. Problems inside one entry are the
model's error, kept apart without losing the rest of the reply: an archetype id that is not in the
registry (`"a"`, `":ranking_metric"`, `""`) is an unknown archetype, never an archetype; a reading with
an empty label or SQL is an invalid reading. Only a reply whose whole shape is wrong fails.
The JSON is found in the reply whatever the server's mode: bare, fenced, or inside prose.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from adapters.dialects import EngineDialect
from checker_app.llm.errors import ModelFailure
from checker_app.llm.extract import json_values
from checker_app.llm.strict import strict_schema

RAW_LIMIT = 4_000  # characters of an unusable reply kept for the report
SCHEMA_NAME = "interpretations"


class SeenArchetype(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(description="The shape's id from the list in the instructions.")
    quote: str = Field(description="Word for word, the words of the question that carry this shape.")


class ModelReading(BaseModel):
    model_config = ConfigDict(extra="ignore")
    label: str = Field(min_length=1, description="A few words naming this reading.")
    sql: str = Field(min_length=1, description="One read-only SELECT that answers the question under this reading.")
    dialect: EngineDialect | None = Field(
        default=None, description="The SQL dialect the query is written in.")


class ModelInterpretations(BaseModel):
    model_config = ConfigDict(extra="ignore")
    archetypes: list[SeenArchetype] = Field(description="The ambiguity shapes in the question; [] when clear.")
    readings: list[ModelReading] = Field(min_length=1, description="Every defensible reading, one SQL each.")


def interpretations_schema(archetype_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    """The strict schema sent (and validated): the archetype id is an enum of the registry's ids."""
    schema = strict_schema(ModelInterpretations.model_json_schema())
    if archetype_ids:
        seen = schema["$defs"]["SeenArchetype"]["properties"]["id"]
        seen["enum"] = list(archetype_ids)
    return schema


def response_format(archetype_ids: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "strict": True,
                                                   "schema": interpretations_schema(archetype_ids)}}


def clip(raw: Any) -> Any:
    if isinstance(raw, str) and len(raw) > RAW_LIMIT:
        return raw[:RAW_LIMIT] + f"… ({len(raw):,} characters)"
    return raw


@dataclass
class EntryError:
    """One entry of the reply the model got wrong (shown apart, never used)."""

    where: str            # "archetypes.2" | "readings.0"
    message: str
    value: Any = None

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.where, "message": self.message, "value": self.value}


@dataclass
class Interpretations:
    archetypes: list[SeenArchetype] = field(default_factory=list)
    readings: list[ModelReading] = field(default_factory=list)
    unknown_archetypes: list[EntryError] = field(default_factory=list)
    invalid_readings: list[EntryError] = field(default_factory=list)


def _where(path: Any) -> str:
    return ".".join(str(p) for p in path) or "reply"


def _entry_errors(data: Any, schema: dict[str, Any]) -> tuple[dict[tuple[str, int], str], str | None]:
    """Errors by (list, index) for entries, and the first error of the reply's shape (None if none)."""
    from jsonschema import Draft202012Validator

    entries: dict[tuple[str, int], str] = {}
    shape: str | None = None
    for error in sorted(Draft202012Validator(schema).iter_errors(data), key=lambda e: list(map(str, e.path))):
        path = list(error.path)
        if len(path) >= 2 and path[0] in ("archetypes", "readings") and isinstance(path[1], int):
            entries.setdefault((path[0], path[1]), f"{_where(path)}: {error.message}")
        elif shape is None:
            shape = f"{_where(path)}: {error.message}"
    return entries, shape


def _normalised(data: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    """Entries as a strict server would send them: keys the schema does not know dropped, nullable keys
    left out filled with null (without a schema-enforcing server, a model writes neither consistently)."""
    defs = schema["$defs"]
    for key, name in (("archetypes", "SeenArchetype"), ("readings", "ModelReading")):
        props = defs[name]["properties"]
        if isinstance(data.get(key), list):
            data[key] = [{k: e.get(k) for k in props if k in e or _nullable(props[k])} if isinstance(e, dict) else e
                         for e in data[key]]
    return data


def _nullable(node: dict[str, Any]) -> bool:
    return any(isinstance(n, dict) and n.get("type") == "null" for n in node.get("anyOf", []))


def read_interpretations(content: Any, archetype_ids: tuple[str, ...] = ()) -> Interpretations:
    """Parse the reply text against the schema sent. ModelFailure("malformed") for text holding no JSON
    object, ("schema") for JSON whose shape does not fit; both keep the raw reply."""
    if not isinstance(content, str) or not content.strip():
        raise ModelFailure("empty", "the model returned no interpretations", raw=content)
    objects = [v for v in json_values(content) if isinstance(v, dict)]
    if not objects:
        raise ModelFailure("malformed", "interpretations are not valid JSON (no JSON object in the reply)",
                           raw=clip(content))
    schema = interpretations_schema(archetype_ids)
    data = _normalised(dict(next((o for o in objects if "readings" in o), objects[0])), schema)
    entries, shape = _entry_errors(data, schema)
    if shape is not None:
        raise ModelFailure("schema", f"interpretations do not fit the schema ({shape})", raw=clip(content))
    result = Interpretations()
    for i, raw in enumerate(data["archetypes"]):
        problem = entries.get(("archetypes", i))
        if problem is None:
            result.archetypes.append(SeenArchetype.model_validate(raw))
        else:
            value = raw.get("id") if isinstance(raw, dict) else raw
            result.unknown_archetypes.append(EntryError(f"archetypes.{i}", problem, value))
    for i, raw in enumerate(data["readings"]):
        problem = entries.get(("readings", i))
        if problem is None:
            result.readings.append(ModelReading.model_validate(raw))
        else:
            result.invalid_readings.append(EntryError(f"readings.{i}", problem, raw))
    if not result.readings:
        first = result.invalid_readings[0].message if result.invalid_readings else "no reading"
        raise ModelFailure("schema", f"interpretations do not fit the schema ({first})", raw=clip(content))
    return result


def schema_text(archetype_ids: tuple[str, ...] = ()) -> str:
    return json.dumps(interpretations_schema(archetype_ids), ensure_ascii=False)
