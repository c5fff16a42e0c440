"""A reading's statements are written per engine when the runner first asks for each, and once."""
from __future__ import annotations

from checker_app.statements import Rendered


def test_a_statement_is_written_when_first_asked_for_and_only_once() -> None:
    written: list[str] = []

    def writer(name: str, text: str):
        def write() -> str:
            written.append(name)
            return text
        return write

    rendered = Rendered({"sqlite": writer("sqlite", "SELECT 1"), "postgresql": writer("postgresql", "SELECT 2")})
    # what the runner asks before it submits: which engines have a statement, and how many
    assert "sqlite" in rendered and "mysql" not in rendered and len(rendered) == 2
    assert list(rendered) == ["sqlite", "postgresql"]
    assert written == []
    assert rendered["sqlite"] == "SELECT 1" and rendered["sqlite"] == "SELECT 1"
    assert written == ["sqlite"]
    assert dict(rendered) == {"sqlite": "SELECT 1", "postgresql": "SELECT 2"}
    assert written == ["sqlite", "postgresql"]
