"""The published JSON Schemas of the report (`check --json`) and of a `batch` line.

Generated from the report's pydantic models (checker_app.report), printed by `ambiguity-checker schema
[--batch]`, and committed as docs/report.schema.json and docs/batch.schema.json (a test keeps the
committed files equal to the generated ones).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from checker_app.report import Report, Wire

SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"
DOCS = Path(__file__).resolve().parent.parent / "docs"
FILES = {"report": "report.schema.json", "batch": "batch.schema.json"}


class BatchError(Wire):
    """A `batch` line for a question that could not be checked at all."""

    question: str | None = None
    line: int
    error: str


def _published(schema: dict[str, Any], title: str, description: str) -> dict[str, Any]:
    return {"$schema": SCHEMA_DIALECT, "title": title, "description": description, **schema}


def report_schema() -> dict[str, Any]:
    schema = Report.model_json_schema(mode="serialization")
    schema.pop("title", None)
    schema.pop("description", None)
    return _published(schema, "ambiguity-checker report",
                      "One question's check: `ambiguity-checker check --json`, and each report line of `batch`.")


def batch_schema() -> dict[str, Any]:
    schema = TypeAdapter(Report | BatchError).json_schema(mode="serialization")
    return _published(schema, "ambiguity-checker batch line",
                      "One line of `ambiguity-checker batch`: a report, or the error for a question that "
                      "could not be checked.")


def schema_text(kind: str = "report") -> str:
    """The schema as the committed file holds it (sorted keys, two-space indent, final newline)."""
    schema = batch_schema() if kind == "batch" else report_schema()
    return json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def write_files(directory: Path = DOCS) -> list[Path]:
    """Regenerate the committed schema files (after changing the report models)."""
    written = []
    for kind, name in FILES.items():
        path = directory / name
        path.write_text(schema_text(kind), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for written_path in write_files():
        print(written_path)
