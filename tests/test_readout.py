"""checker_app.readout reads the typed report parts (no dict aliases): the subject a person chose."""
from __future__ import annotations

from checker_app.clarify import ChoiceQuestion, Option
from checker_app.readout import SUBJECT, subject_question
from checker_app.report import Detection


def _ask(archetype: str = SUBJECT) -> Detection:
    question = ChoiceQuestion(question="What should it run on?", options=[
        Option(label="Revenue (sum of quantity × unit price)", value="revenue"),
        Option(label="Units", value="units")])
    return Detection(id=archetype, evidence="numbers", span=(12, 19), clarification=question)


def test_the_chosen_subject_is_named_in_the_question() -> None:
    assert subject_question("Show me the numbers ", [_ask()], "revenue") == "Show me the numbers (Revenue)"
    assert subject_question("Show me the numbers", [_ask()], "units") == "Show me the numbers (Units)"
    # a value that is no option is the person's own words, kept whole
    assert subject_question("Show me the numbers", [_ask()], "refunds (net)") == "Show me the numbers (refunds (net))"


def test_no_subject_ask_means_no_rewrite() -> None:
    assert subject_question("Show me the numbers", [_ask("timeframe")], "revenue") is None
    assert subject_question("Show me the numbers", [], "revenue") is None
