"""The published JSON Schemas: the committed files are the generated ones, and real output matches them."""
from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from checker_app.commands.schema import schema
from checker_app.contract import FILES, schema_text
from tests.support import REPO, assert_valid


@pytest.mark.parametrize("kind", sorted(FILES))
def test_committed_schema_is_the_generated_one(kind: str) -> None:
    committed = (REPO / "docs" / FILES[kind]).read_text(encoding="utf-8")
    assert committed == schema_text(kind), f"regenerate with: python -m checker_app.contract ({FILES[kind]})"


def test_schema_command_prints_the_committed_files() -> None:
    assert CliRunner().invoke(schema, []).output == (REPO / "docs" / FILES["report"]).read_text(encoding="utf-8")
    batch = CliRunner().invoke(schema, ["--batch"]).output
    assert batch == (REPO / "docs" / FILES["batch"]).read_text(encoding="utf-8")
    assert json.loads(batch)["anyOf"]


def test_the_schema_refuses_what_the_report_never_holds() -> None:
    with pytest.raises(AssertionError):
        assert_valid({"question": "q"})                                   # most keys missing
    with pytest.raises(AssertionError):
        assert_valid({"line": 3, "error": "x", "unexpected": 1}, "batch")  # an unknown key
    assert_valid({"question": "q", "line": 3, "error": "question is empty"}, "batch")


def test_the_readme_json_section_points_to_the_schema() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The JSON report", 1)[1].split("\n## ", 1)[0]
    assert all(f"docs/{FILES[kind]}" in section for kind in FILES)
