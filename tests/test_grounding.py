"""Every word accounted for (issue 10): what each question was read as, from a data file of cases."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.support import Connected, connect

CASES = Path(__file__).parent / "fixtures" / "grounding" / "understood.txt"


def cases() -> list[tuple[str, str, str, list[str]]]:
    out = []
    for number, line in enumerate(CASES.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        db, question, expect = (part.strip() for part in line.split("|", 2))
        out.append((f"understood.txt:{number}", db, question, [e.strip() for e in expect.split(";") if e.strip()]))
    return out


@pytest.fixture(scope="module")
def grounded(demo_urls, chinook_urls, northwind_urls, history_urls) -> dict[str, Connected]:
    return {"demo": connect(demo_urls["sqlite"]), "chinook": connect(chinook_urls["sqlite"]),
            "northwind": connect(northwind_urls["sqlite"]), "history": connect(history_urls["sqlite"])}


@pytest.mark.parametrize("where, db, question, expect", cases(), ids=lambda v: str(v)[:50])
def test_what_the_question_was_read_as(grounded, where: str, db: str, question: str, expect: list[str]) -> None:
    connected = grounded[db]
    analysis = connected.analyse(question)
    understood = analysis.understood
    ignored = [i.text.lower() for i in understood.ignored]
    for item in expect:
        if item == "complete":
            assert understood.complete, (where, ignored)
        elif item == "partial":
            assert not understood.complete, where
        elif item.startswith("ignored="):
            assert item.split("=", 1)[1].lower() in ignored, (where, ignored)
        elif item.startswith("read_as="):  # 'catgory=category': the misspelt word read as the schema word, said
            typo, word = item.split("=", 1)[1].split("=")
            assert (typo, word) in [(r.text.lower(), r.word) for r in understood.read_as], (where, understood.read_as)
        elif item.startswith("suggest="):
            hints = [h for i in understood.ignored for h in i.suggestions]
            assert item.split("=", 1)[1] in hints, (where, hints)
        elif item.startswith("sql~"):
            assert analysis.interpretations, where
            for interpretation in analysis.interpretations:
                assert item[4:] in interpretation.sql("sqlite"), (where, interpretation.sql("sqlite"))
        elif item.startswith("fires="):
            assert item.split("=", 1)[1] in [d.archetype for d in analysis.detections], (where, analysis.archetypes)
        elif item.startswith("reason~"):
            assert any(item[7:] in i.reason for i in understood.ignored), (where, understood.ignored)
        elif item.startswith("explains~"):  # some reading says this in its explanation
            said = [i.explanation for i in analysis.interpretations]
            assert any(item[9:] in text for text in said), (where, said)
        elif item.startswith("readings="):
            assert len(analysis.interpretations) == int(item.split("=", 1)[1]), (where, analysis.interpretations)
        elif item.startswith("answer="):  # some reading's first row holds this cell (its answer)
            wanted = item.split("=", 1)[1]
            rows = [connected.run(i) for i in analysis.interpretations]
            firsts = [[_cell(v) for v in r.rows[0]] for r in rows if r is not None and r.ok and r.rows]
            assert any(wanted in row for row in firsts), (where, firsts)
        else:
            raise AssertionError(f"{where}: unknown expectation {item!r}")
    for interpretation in analysis.interpretations:  # every reading runs and says what it computes
        assert interpretation.explanation, where
        result = connected.run(interpretation)
        assert result is not None


def _cell(value) -> str:
    """A number to 4 decimals without trailing zeros (engines sum floats differently), text as it is."""
    from decimal import Decimal

    if isinstance(value, (int, float, Decimal)) and not isinstance(value, bool):
        return f"{float(value):.4f}".rstrip("0").rstrip(".")
    return str(value)


@pytest.mark.parametrize("text", ["what is the", "of the and", "🙂", "x " * 30_000])
def test_empty_meaning_is_reported_not_guessed(grounded, text: str) -> None:
    from adapters import InputError

    try:
        analysis = grounded["demo"].analyse(text)
    except InputError as err:  # too long: a one-line error
        assert "\n" not in str(err)
        return
    assert analysis.detections or not analysis.understood.complete or not analysis.interpretations
