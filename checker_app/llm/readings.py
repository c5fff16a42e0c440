"""The model's interpretations, as structured output: the archetypes it sees, and per reading a label and one SQL."""
from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from checker_app.llm.errors import ModelFailure
from checker_app.llm.strict import strict_schema

RAW_LIMIT = 4_000  # characters of an unusable reply kept for the report


class SeenArchetype(BaseModel):
    model_config = ConfigDict(extra="ignore")
    id: str = Field(min_length=1, description="The shape's id from the list in the instructions.")
    quote: str = Field(description="Word for word, the words of the question that carry this shape.")


class ModelReading(BaseModel):
    model_config = ConfigDict(extra="ignore")
    label: str = Field(min_length=1, description="A few words naming this reading.")
    sql: str = Field(min_length=1, description="One read-only SELECT that answers the question under this reading.")


class ModelInterpretations(BaseModel):
    model_config = ConfigDict(extra="ignore")
    archetypes: list[SeenArchetype] = Field(description="The ambiguity shapes in the question; [] when clear.")
    readings: list[ModelReading] = Field(min_length=1, description="Every defensible reading, one SQL each.")


def response_format() -> dict[str, Any]:
    return {"type": "json_schema", "json_schema": {"name": "interpretations", "strict": True,
                                                   "schema": strict_schema(ModelInterpretations.model_json_schema())}}


def clip(raw: Any) -> Any:
    if isinstance(raw, str) and len(raw) > RAW_LIMIT:
        return raw[:RAW_LIMIT] + f"… ({len(raw):,} characters)"
    return raw


def read_interpretations(content: Any) -> ModelInterpretations:
    """Parse the reply text; ModelFailure("malformed") for text that is not JSON, ("schema") for JSON that
    does not fit. Both keep the raw reply."""
    if not isinstance(content, str) or not content.strip():
        raise ModelFailure("empty", "the model returned no interpretations", raw=content)
    text = content.strip()
    if text.startswith("```"):  # a fenced reply from a server without structured output
        text = text.strip("`").removeprefix("json").strip()
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ModelFailure("malformed", f"interpretations are not valid JSON ({err.msg} at character {err.pos})",
                           raw=clip(content)) from None
    try:
        return ModelInterpretations.model_validate(data)
    except ValidationError as err:
        first = err.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "reply"
        raise ModelFailure("schema", f"interpretations do not fit the schema ({where}: {first['msg']})",
                           raw=clip(content)) from None
