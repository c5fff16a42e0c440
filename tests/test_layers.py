"""The layers, read from the source's import statements (every import, at the top or inside a function).

* The CLI (checker_app/commands, checker_app/cli.py) and the page (checker_app/ui, checker_app/pages,
  checker_app/streamlit_app.py) never import each other: what both show lives in a neutral module
  (checker_app/readout.py, checker_app/answers.py, checker_app/format.py).
* The core packages (adapters, archetypes, seed_db) never import streamlit, openai, click or checker_app:
  they sit under the application and work without a page, a model or a command line.
* The neutral checker_app modules never import the CLI or the page.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
APP = ROOT / "checker_app"
CLI = ("checker_app.commands", "checker_app.cli")
PAGE = ("checker_app.ui", "checker_app.pages", "checker_app.streamlit_app")
FRONT_ENDS = ("streamlit", "openai", "click")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, module: str | None = None) -> set[str]:
    """Every module a file imports, absolute; `from pkg import name` also counts as `pkg.name` (a submodule
    is imported that way: `from checker_app.ui import display`). Relative imports resolve from `module`, the
    file's dotted name (by default its place under the repository)."""
    package = (module or module_name(path)).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def within(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def sources(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in ([root] if root.is_file() else root.rglob("*.py")))


def crossings(files: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return [f"{p.relative_to(ROOT)} imports {m}" for p in files for m in sorted(imports_of(p)) if within(m, forbidden)]


CLI_FILES = sources(APP / "commands", APP / "cli.py")
PAGE_FILES = sources(APP / "ui", APP / "pages", APP / "streamlit_app.py")


def test_the_sources_are_found() -> None:
    # a test that reads no file proves nothing: the layers it names exist and have imports
    assert len(CLI_FILES) > 10 and len(PAGE_FILES) > 10
    assert "checker_app.commands.common" in imports_of(APP / "commands" / "check.py")
    assert "checker_app.ui.display" in imports_of(APP / "pages" / "draw.py")  # `from checker_app.ui import display`


def test_cli_never_imports_the_page() -> None:
    assert crossings(CLI_FILES, PAGE) == []


def test_page_never_imports_the_cli() -> None:
    assert crossings(PAGE_FILES, CLI) == []


def test_neutral_modules_import_neither() -> None:
    neutral = [p for p in sources(APP) if p not in CLI_FILES and p not in PAGE_FILES
               and p.name not in ("__main__.py", "serve_main.py")]
    assert APP / "readout.py" in neutral and APP / "pipeline.py" in neutral
    assert crossings(neutral, CLI + PAGE) == []


@pytest.mark.parametrize("package", ["adapters", "archetypes", "seed_db"])
def test_core_packages_import_no_front_end(package: str) -> None:
    files = sources(ROOT / package)
    assert files
    assert crossings(files, FRONT_ENDS + ("checker_app",)) == []


def test_the_check_finds_a_cross_import(tmp_path: Path) -> None:
    # the check itself can fail: a page module importing the CLI, relatively, inside a function, or by name
    probe = tmp_path / "probe.py"
    probe.write_text("def f():\n    from ..commands import check\n    import checker_app.cli\n"
                     "from checker_app import commands\n")
    found = imports_of(probe, "checker_app.ui.probe")
    assert {"checker_app.commands", "checker_app.commands.check", "checker_app.cli"} <= found
    assert [m for m in sorted(found) if within(m, CLI)] == ["checker_app.cli", "checker_app.commands",
                                                             "checker_app.commands.check"]
    assert not within("checker_app.commandsx", CLI) and within("streamlit.testing", FRONT_ENDS)


def test_test_modules_share_helpers_through_support_only() -> None:
    # shared helpers live in tests/support.py and tests/conftest.py, never imported from another test module
    tests = sorted((ROOT / "tests").glob("test_*.py"))
    assert len(tests) > 20
    found = [f"{p.name} imports {m}" for p in tests for m in sorted(imports_of(p, f"tests.{p.stem}"))
             if m.startswith("tests.test_") or m.startswith("test_")]
    assert found == []
