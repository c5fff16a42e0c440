"""JSON schemas in the strict subset OpenAI-compatible servers enforce for tools and structured output.

Derived from pydantic models, so the contract has one source: every object closes
(`additionalProperties: false`) and lists every property as required, optional ones become nullable,
and keywords that carry no constraint (defaults, titles, discriminator hints) go.

Nothing that pydantic enforces is dropped: the schema sent must be the schema validated, else a
grammar-constrained server produces what validation then refuses (an empty string where pydantic
wants `min_length=1`). String lengths, outside the strict subset, become the equivalent `pattern`
(`^[\\s\\S]{1,}$` accepts exactly the strings of length >= 1, whitespace included, as pydantic does).
A constraint with no strict equivalent raises instead of being lost.
"""
from __future__ import annotations

import copy
from typing import Any

from adapters import CheckerError

_DROP = ("default", "title", "discriminator")
_LENGTHS = ("minLength", "maxLength")


class StrictSchemaError(CheckerError, ValueError):
    """A constraint of the pydantic schema that the strict subset cannot carry."""


def _length_pattern(node: dict[str, Any]) -> None:
    low, high = node.pop("minLength", None), node.pop("maxLength", None)
    if low is None and high is None:
        return
    if "pattern" in node:
        raise StrictSchemaError("a string with both a length and a pattern has no strict equivalent")
    node["pattern"] = "^[\\s\\S]{" + f"{low or 0},{'' if high is None else high}" + "}$"


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A strict copy of a pydantic JSON schema (`Model.model_json_schema()`)."""
    return _strict(copy.deepcopy(schema), top=True)


def _strict(node: Any, top: bool = False) -> Any:
    if isinstance(node, list):
        return [_strict(n) for n in node]
    if not isinstance(node, dict):
        return node
    has_default = node.get("default") is not None  # a field with a real default is simply required
    for key in _DROP:
        node.pop(key, None)
    _length_pattern(node)
    if "const" in node:
        node["enum"] = [node.pop("const")]
    if "oneOf" in node:
        node["anyOf"] = node.pop("oneOf")
    for key in ("$defs", "properties"):
        if key in node:
            node[key] = {name: _strict(value) for name, value in node[key].items()}
    for key in ("items", "anyOf", "additionalProperties"):
        if key in node and not isinstance(node[key], bool):
            node[key] = _strict(node[key])
    if has_default:
        node["x-has-default"] = True
    if node.get("type") == "object" or "properties" in node:
        properties = node.setdefault("properties", {})
        required = set(node.get("required", []))
        for name, value in properties.items():
            if name not in required and not _nullable(value) and not value.pop("x-has-default", False):
                properties[name] = {"anyOf": [value, {"type": "null"}]}
            elif isinstance(value, dict):
                value.pop("x-has-default", None)
        node["required"] = list(properties)
        node["additionalProperties"] = False
        node["type"] = "object"
    return node


def _nullable(node: dict[str, Any]) -> bool:
    if node.get("type") == "null" or (isinstance(node.get("type"), list) and "null" in node["type"]):
        return True
    return any(isinstance(n, dict) and n.get("type") == "null" for n in node.get("anyOf", []))


def check_strict(schema: dict[str, Any]) -> list[str]:
    """Where `schema` leaves the strict subset (empty when it is strict); used by the tests."""
    problems: list[str] = []

    def walk(node: Any, path: str) -> None:
        if isinstance(node, list):
            for i, n in enumerate(node):
                walk(n, f"{path}[{i}]")
            return
        if not isinstance(node, dict):
            return
        for key in _DROP + _LENGTHS + ("oneOf", "const"):
            if key in node:
                problems.append(f"{path}: {key}")
        if "properties" in node:
            if node.get("additionalProperties") is not False:
                problems.append(f"{path}: additionalProperties is not false")
            if sorted(node.get("required", [])) != sorted(node["properties"]):
                problems.append(f"{path}: not every property is required")
        for key, value in node.items():
            if isinstance(value, (dict, list)) and key != "enum":
                walk(value, f"{path}.{key}")

    walk(schema, "$")
    return problems
