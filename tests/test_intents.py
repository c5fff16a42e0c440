"""The page's intents (checker_app.ui.intents): small frozen dataclasses, the problem buttons' mapping, and no
page reading an intent by position. The pages that carry them out are driven in tests/test_page_apptest.py
(links, examples, suggestions, picks, wizard, retry, skip, plain text, repair candidates)."""
from __future__ import annotations

import ast
import dataclasses
from pathlib import Path

import pytest

from checker_app.ui import intents
from checker_app.ui.intents import Check, Dismiss, Finish, ModelReply, Pick, Reopen, Rerun, UseCandidate, for_problem

PAGES = Path(__file__).resolve().parent.parent / "checker_app" / "pages"


def test_intents_are_frozen_dataclasses_with_named_fields() -> None:
    for cls in (Check, Rerun, ModelReply, Pick, Finish, Reopen, Dismiss, UseCandidate):
        assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen  # type: ignore[attr-defined]
    check = Check("What is the top-selling product?")
    assert (check.engine, check.warning) == (None, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        check.question = "x"  # type: ignore[misc]
    assert Dismiss("check") == Dismiss("check") != Dismiss("anchored")  # the page compares them by value
    assert Rerun() != Rerun(rules_only=True) and Reopen() != Reopen(plain_text=True)


@pytest.mark.parametrize(("prefix", "action", "intent"), [
    ("check", "retry", Rerun()),
    ("check", "skip", Dismiss("check")),
    ("anchored", "retry", Finish()),
    ("anchored", "skip", Dismiss("anchored")),
    ("anchored", "plain", Reopen(plain_text=True)),
])
def test_a_problem_button_asks_for_the_right_intent(prefix, action, intent) -> None:
    assert for_problem(prefix, action) == intent


def test_an_unknown_problem_action_is_refused() -> None:
    with pytest.raises(ValueError, match="no such problem action"):
        for_problem("check", "undo")


def _name(node: ast.expr) -> str | None:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else None


def _one_intent(args: list[ast.expr]) -> bool:
    return len(args) == 1 and isinstance(args[0], ast.Call)  # Check(...), intents.Rerun(), for_problem(...)


def test_no_page_reads_an_intent_by_position() -> None:
    # the tuples are gone: every queue() call and every button that queues passes one intent object, and
    # nothing subscripts `intent`
    offenders, queued = [], 0
    for path in sorted(PAGES.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Subscript) and _name(node.value) == "intent":
                offenders.append(f"{path.name}:{node.lineno} intent[...]")
            if not isinstance(node, ast.Call):
                continue
            if _name(node.func) == "queue":
                queued += 1
                offenders += [] if _one_intent(node.args) else [f"{path.name}:{node.lineno} queue(...)"]
            on_click = next((k for k in node.keywords if k.arg == "on_click"), None)
            if on_click is not None and _name(on_click.value) == "queue":
                queued += 1
                args = next((k.value for k in node.keywords if k.arg == "args"), None)
                if not (isinstance(args, ast.Tuple) and _one_intent(args.elts)):
                    offenders.append(f"{path.name}:{node.lineno} a button queues no intent")
    assert offenders == []
    assert queued >= 12  # the check found the page's buttons and calls (a walk that finds none proves nothing)
    assert set(intents.Intent.__args__) == {Check, Rerun, ModelReply, Pick, Finish, Reopen, Dismiss, UseCandidate}
