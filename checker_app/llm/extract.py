"""JSON values found in a model's text: the whole text, fenced blocks, or objects inside prose.

Servers without structured output (or a model that ignores it) wrap the JSON in a code fence, in
tags such as `<tools>...</tools>` or `<tool_call>...</tool_call>`, or in a sentence. Each top-level
JSON object or array is decoded where it starts (`json.JSONDecoder.raw_decode`), outermost first, so
nothing inside a value found is reported again.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_DECODER = json.JSONDecoder()


def decoded(value: Any) -> Any:
    """`value` decoded when it is JSON text, else as it is (servers send arguments either way)."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return value
    return value


def json_values(text: str) -> list[Any]:
    """Every top-level JSON object or array in `text`, in order of appearance."""
    return [value for _, _, value in json_spans(text)]


def json_spans(text: str) -> Iterator[tuple[int, int, Any]]:
    """(start, end, value) of every top-level JSON object or array in `text`."""
    if not isinstance(text, str):
        return
    i, n = 0, len(text)
    while i < n:
        if text[i] in "{[":
            try:
                value, end = _DECODER.raw_decode(text, i)
            except json.JSONDecodeError:
                i += 1
                continue
            if isinstance(value, (dict, list)) and (isinstance(value, dict) or value):
                yield i, end, value
                i = end
                continue
        i += 1
