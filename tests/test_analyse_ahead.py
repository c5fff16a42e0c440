"""`batch` analyses the next question while the engines answer the current one (`pipeline.analyse_ahead`),
on the three real engines: the check then finds its analysis made, and its report is the one a check alone
makes; a question that cannot be analysed is left to its check, which says why."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import archetypes
from checker_app.analysis_memo import analysis_memo
from checker_app.pipeline import CheckOptions, analyse_ahead, check
from checker_app.profiles import load_profile
from tests.support import untimed

ROOT = Path(__file__).resolve().parent.parent


def test_a_question_analysed_ahead_is_not_analysed_by_its_check(demo_databases, monkeypatch) -> None:
    question = "  How many orders per week in the first half of 2025?  "
    options = CheckOptions()
    check("How many products are there?", demo_databases, options)  # the profiles, read
    memo = analysis_memo(load_profile(demo_databases[0]))
    kept = len(memo)
    assert analyse_ahead(question, demo_databases, options).result(timeout=60) is None
    assert len(memo) == kept + 1
    calls: list[str] = []
    real = archetypes.analyse

    def counted(*args, **kwargs):
        calls.append(args[0])
        return real(*args, **kwargs)

    monkeypatch.setattr(archetypes, "analyse", counted)
    report = check(question, demo_databases, options)
    assert calls == []  # found in the memo: made ahead
    assert report.interpretations and all(r.results for r in report.interpretations)


def test_a_question_that_cannot_be_analysed_is_left_to_its_check(demo_databases) -> None:
    options = CheckOptions(answers={"no_such_archetype": "x"})
    assert analyse_ahead("What is the top-selling product?", demo_databases, options).result(timeout=60) is None
    assert analyse_ahead("\x00", demo_databases, CheckOptions()).result(timeout=60) is None


def test_batch_reports_are_the_reports_of_checks_alone(demo_urls, tmp_path) -> None:
    questions = ["How many products are there?", "How are sales trending?", "Show me revenue for Acme",
                 "Top 5 products by revenue in 2025", "How many products are there?"]
    source = tmp_path / "questions.txt"
    source.write_text("\n".join(questions) + "\n")
    db_args = [a for name, url in demo_urls.items() for a in ("--db", f"{name}={url}")]
    env_store = {"CHECKER_PROFILE_DIR": str(tmp_path / "store")}

    def run(*args: str) -> list[dict]:
        import os

        done = subprocess.run([sys.executable, "-m", "checker_app", *args, *db_args], capture_output=True, text=True,
                              cwd=ROOT, env={**os.environ, **env_store}, timeout=600, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]

    batched = run("batch", str(source))
    alone = [run("check", "--json", q)[0] for q in questions]
    assert len(batched) == len(questions)
    assert [untimed(r) for r in batched] == [untimed(r) for r in alone]
