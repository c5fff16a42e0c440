"""JSON schemas in the strict subset OpenAI-compatible servers enforce for tools and structured output.

Derived from pydantic models, so the contract has one source: every object closes
(`additionalProperties: false`) and lists every property as required, optional ones become nullable,
and keywords outside the strict subset (defaults, titles, string lengths, discriminator hints) go.
"""
from __future__ import annotations

import copy
from typing import Any

_DROP = ("default", "title", "minLength", "maxLength", "discriminator")


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
        for key in _DROP + ("oneOf", "const"):
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
