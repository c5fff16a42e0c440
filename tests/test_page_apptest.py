"""The pages driven by streamlit.testing.v1.AppTest: the checker (link, question box, examples, verdict,
readings, wizard paths), the compare-SQL page, navigation, secrets.toml connections, engines down."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from checker_app.clarify import MEMORY_HINT
from checker_app.ui.config import ENV_DB, ENV_MAX_ROWS, ENV_TIMEOUT
from tests.support import BACKENDS, CHECKER, TOP_PRODUCTS, TOP_SELLING, button, choice, no_exception

APP_DIR = Path(__file__).resolve().parent.parent / "checker_app"
ENTRY = str(APP_DIR / "streamlit_app.py")
COMPARE = str(APP_DIR / "pages" / "compare.py")
ACMES = {"Acme Corp", "Acme Industries", "ACME Logistics"}
DEAD_PG = "pg=postgresql+psycopg://u:s3cret@127.0.0.1:1/x"
TIMEOUT = 90


@pytest.fixture(scope="module")
def demo_sqlite(tmp_path_factory) -> str:
    from seed_db import seed_database

    url = f"sqlite:///{tmp_path_factory.mktemp('page-demo') / 'demo.sqlite'}"
    seed_database(url, scale=1, seed=42)
    return url


@pytest.fixture
def configure(monkeypatch, tmp_path):
    """Point the page at connections, the way `serve` does (environment variables)."""

    def apply(*db_values: str) -> None:
        monkeypatch.setenv("CHECKER_HOME", str(tmp_path))
        monkeypatch.setenv(ENV_TIMEOUT, "5")
        monkeypatch.setenv(ENV_MAX_ROWS, "1000")
        if db_values:
            monkeypatch.setenv(ENV_DB, json.dumps(list(db_values)))
        else:
            monkeypatch.delenv(ENV_DB, raising=False)

    return apply


def app(path: str = CHECKER, q: str | None = None) -> AppTest:
    at = AppTest.from_file(path, default_timeout=TIMEOUT)
    if q is not None:
        at.query_params["q"] = q
    return at.run()


def page_text(at: AppTest) -> str:
    """Everything the page renders (main and sidebar), as text."""
    parts: list[str] = []

    def walk(node) -> None:
        proto = getattr(node, "proto", None)
        if proto is not None:
            parts.append(str(proto))
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return "\n".join(parts)


def shown_values(at: AppTest) -> set[str]:
    return {str(v) for frame in [*at.dataframe, *at.table] for v in frame.value.iloc[:, 0].tolist()}


def last_block(at: AppTest):
    return list(at.main.children.values())[-1]


def finish_steps(at: AppTest) -> None:
    """Answer the wizard's remaining steps (the currency treatment, which orders count) with their first option."""
    for _ in range(4):
        if not at.session_state["checker"].wizard.pending:
            return
        choice(at).set_value(choice(at).options[0])
        button(at, "Submit answer").click().run()


def tool_output(at: AppTest) -> dict:
    return json.loads(next(c.value for c in at.code if c.language == "json"))


# -- the checker ------------------------------------------------------------------------------------

def test_a_link_runs_the_check_and_shows_three_readings(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q=TOP_SELLING)
    no_exception(at)
    # metric x currency treatment (money only) x which orders count: 8 readings naming three products
    assert "8 readings, 3 different answers" in at.error[0].value
    assert {m.value for m in at.metric} == TOP_PRODUCTS
    assert TOP_PRODUCTS <= shown_values(at)
    assert len([c for c in at.code if c.language == "sql"]) == 8
    text = page_text(at)
    assert "data-archetype=" in text and "ranking_metric" in text
    assert "Rank products by which metric?" in text  # the detection's own question, not the archetype's ask
    # the wizard is pending: the question box and the examples stay at the top, the verdict's bullets are
    # the clarification's choices, and the wizard comes before the readings
    assert [t for t in at.text_input if t.key == "question_text"]
    assert [b for b in at.button if b.key == f"example_{TOP_SELLING}"]
    bullets = [b.label.replace("\\", "") for b in at.button if str(b.key).startswith("pick_main_")]
    assert len(bullets) == 8 and all(any(p in label for p in TOP_PRODUCTS) for label in bullets)
    assert choice(at).options[-1] == "Other"
    keys = [str(getattr(block.proto, "id", "")) for block in at.main.children.values()]
    wizard_at = next(i for i, k in enumerate(keys) if k.endswith("-wizard"))
    assert wizard_at < len(keys) - 1  # the readings come after it
    assert not any("Skip" == b.label for b in at.button)
    assert at.query_params["q"] == TOP_SELLING and at.query_params["db"] == "demo"
    labels = {b.label for b in at.get("download_button")}
    assert {"Download JSON report", "Download Markdown summary", "CSV"} <= labels
    # the dialect switch shows the SQL for another engine
    switch = [r for r in at.radio if r.label == "SQL dialect"][0]
    assert switch.value == "sqlite"
    switch.set_value("mysql").run()
    assert all("`name`" in c.value and '"' not in c.value for c in at.code if c.language == "sql")


def test_the_question_box_and_examples_run_checks(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app()
    no_exception(at)
    box = [t for t in at.text_input if t.key == "question_text"][0]
    box.set_value("How many products are there?")
    at.button(key="FormSubmitter:ask-Check").click().run()
    no_exception(at)
    assert at.session_state["checker"].report is not None
    assert at.success[0].value.startswith("**clear**")
    assert not [r for r in at.radio if r.label == "Choose one"]  # nothing to clarify
    assert at.query_params["q"] == "How many products are there?"
    at = app()
    button(at, TOP_SELLING).click().run()
    no_exception(at)
    assert {m.value for m in at.metric} == TOP_PRODUCTS


def test_wizard_choice_gives_the_anchored_sql_and_brings_the_box_back(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q=TOP_SELLING)
    units = next(o for o in choice(at).options if o.startswith("Units"))
    choice(at).set_value(units)
    button(at, "Submit answer").click().run()
    for _ in range(2):  # the currency treatment and which orders count: the first offered
        choice(at).set_value(choice(at).options[0])
        button(at, "Submit answer").click().run()
    no_exception(at)
    output = tool_output(at)
    assert output["answers"][0]["choice"]["value"] == "units" and "memoryHint" not in output
    assert any("Answered: USB\\-C Cable, by units" in s.value for s in at.success)
    assert any('SUM("t0"."quantity")' in c.value for c in at.code)
    assert [t for t in at.text_input if t.key == "question_text"]
    assert not [r for r in at.radio if r.label == "Choose one"]
    # the answered box replaces the red one; the tool output is collapsed
    assert not any("8 readings, 3 different answers" in e.value for e in at.error)
    tool = next(e for e in at.expander if e.label.startswith("Tool output"))
    assert not tool.proto.expanded


def test_a_question_without_a_subject_asks_for_it_and_then_runs(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q="Show me the numbers")
    no_exception(at)
    assert at.info[0].value.startswith("**more information needed**")
    assert any("No reading runs until the question says what it is about" in i.value for i in at.info)
    assert not any("No reading could be built" in i.value for i in at.info)   # not a failure: a question
    text = page_text(at)
    assert text.count("What should this run on?") == 3   # the verdict, the archetype's line, the wizard: no note
    units = next(o for o in choice(at).options if o.startswith("Units"))
    choice(at).set_value(units)
    button(at, "Submit answer").click().run()
    no_exception(at)
    assert any("units" in m.label.lower() or m.value for m in at.metric)


def test_a_verdict_bullet_answers_the_clarification_in_place(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q=TOP_SELLING)
    bullet = next(b for b in at.button if str(b.key).startswith("pick_main_") and "USB" in b.label)
    assert "**USB\\-C Cable** · units = 11,508" in bullet.label
    bullet.click().run()
    no_exception(at)
    state = at.session_state["checker"]
    assert state.anchored is not None and state.anchored.answers["ranking_metric"] == "units"
    assert any("Answered: USB\\-C Cable, by units" in s.value for s in at.success)
    assert tool_output(at)["answers"][0]["choice"]["value"] == "units"


def test_wizard_refuses_an_empty_submission_and_other_without_text(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q=TOP_SELLING)
    button(at, "Submit answer").click().run()
    assert any(e.value == "choose an option or type an answer" for e in at.error)
    choice(at).set_value("Other")
    button(at, "Submit answer").click().run()
    assert any(e.value == '"Other" needs some text' for e in at.error)
    assert at.session_state["checker"].wizard.pending and not [c for c in at.code if c.language == "json"]


def test_wizard_other_with_text_and_notes_brings_the_memory_hint(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q=TOP_SELLING)
    choice(at).set_value("Other")
    at.text_input(key=f"wiz{at.session_state['checker'].generation}_0_other").set_value("gross margin")
    at.text_area(key=f"wiz{at.session_state['checker'].generation}_0_notes").set_value("we always mean margin")
    button(at, "Submit answer").click().run()
    finish_steps(at)
    no_exception(at)
    output = tool_output(at)
    assert output["memoryHint"] == MEMORY_HINT
    assert output["answers"][0]["freeText"] == "gross margin" and output["answers"][0]["notes"] == "we always mean margin"
    assert any("Kept as plain text" in i.value and "gross margin" in i.value for i in at.info)


def test_wizard_query_choice_fetches_live_options_and_anchors_a_quoted_literal(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q="Show me revenue for Acme")
    no_exception(at)
    seen_acmes = False
    for _ in range(6):
        state = at.session_state["checker"]
        if not state.wizard.pending:
            break
        options = choice(at).options
        if ACMES <= set(options):
            seen_acmes = True
            choice(at).set_value("Acme Corp")
        else:
            choice(at).set_value(options[0])
        button(at, "Submit answer").click().run()
        no_exception(at)
    assert seen_acmes
    state = at.session_state["checker"]
    assert state.anchored is not None and state.anchored.answers["entity"] == "Acme Corp"
    assert any("'Acme Corp'" in c.value for c in at.code)
    assert tool_output(at)["answers"][0]["type"] == "query_choice"


def _break_first_step(at: AppTest, **changes) -> AppTest:
    state = at.session_state["checker"]
    state.wizard.steps[0].update(changes)
    state.wizard.retry()
    return at.run()


def test_query_choice_sql_failure_and_no_rows_are_told_apart(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q="Show me revenue for Acme")
    at = _break_first_step(at, sql="SELECT nope FROM missing_table")
    no_exception(at)
    assert any("The options query failed" in e.value for e in at.error)
    assert choice(at).options == ["Other"]
    at = _break_first_step(at, sql="SELECT name FROM customers WHERE 1 = 0")
    assert any("returned no rows" in w.value for w in at.warning)
    assert not any("The options query failed" in e.value for e in at.error)
    # "Other" with text still answers it
    choice(at).set_value("Other")
    at.text_input(key=f"wiz{at.session_state['checker'].generation}_0_other").set_value("Acme Corp")
    button(at, "Submit answer").click().run()
    no_exception(at)
    assert at.session_state["checker"].wizard.index == 1 or not at.session_state["checker"].wizard.pending


def test_a_malformed_clarification_can_be_retried_skipped_or_answered_in_plain_text(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(q=TOP_SELLING)
    at = _break_first_step(at, question="", options=[])
    no_exception(at)
    assert any("cannot be shown" in e.value for e in at.error)
    assert {"Submit answer", "Retry", "Skip this question", "Skip the clarification"} <= {b.label for b in at.button}
    button(at, "Submit answer").click().run()  # an empty plain answer is refused too
    assert any(e.value == "type an answer" for e in at.error)
    gen = at.session_state["checker"].generation
    at.text_area(key=f"wiz{gen}_0_plain").set_value("by margin")
    button(at, "Submit answer").click().run()
    finish_steps(at)
    no_exception(at)
    assert tool_output(at)["answers"][0]["freeText"] == "by margin" and "memoryHint" in tool_output(at)
    # retry re-runs the check and gives a fresh, well-formed wizard
    button(at, "Answer the clarification again").click().run()
    at = _break_first_step(at, question="", options=[])
    button(at, "Retry").click().run()
    no_exception(at)
    assert choice(at).options[-1] == "Other"
    button(at, "Skip the clarification").click().run()
    assert [t for t in at.text_input if t.key == "question_text"]


def test_an_engine_down_is_shown_and_its_password_never_is(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}", DEAD_PG)
    at = app(q=TOP_SELLING)
    no_exception(at)
    text = page_text(at)
    assert "s3cret" not in text
    assert {m.value for m in at.metric} == TOP_PRODUCTS
    sidebar = " ".join(m.value for m in at.sidebar.markdown)
    assert "**pg** · postgresql" in sidebar and ":red[:material/cancel:]" in sidebar
    assert any(w.value.startswith("pg:") for w in at.warning)
    assert "not run (engine unavailable" in text
    # the link names the connections to use: ?db=demo leaves the dead one out
    at = AppTest.from_file(CHECKER, default_timeout=TIMEOUT)
    at.query_params["q"], at.query_params["db"] = TOP_SELLING, "demo"
    at.run()
    no_exception(at)
    assert at.multiselect(key="db_choice").value == ["demo"]
    report = at.session_state["checker"].report
    assert [e.name for e in report.engines] == ["demo"] and not any(n.startswith("pg:") for n in report.notes)
    assert "s3cret" not in page_text(at)


# slow on purpose on every engine (20,400 x 20,400 rows): the time-limit path, on any machine
# a sum over three copies (8.8e12 rows) is interrupted at any time limit; a COUNT over two finished in about 5 s
SLOW = ("SELECT SUM(a.quantity * b.quantity - c.quantity) AS n FROM order_items AS a CROSS JOIN order_items AS b "
        "CROSS JOIN order_items AS c")


def test_a_time_limit_hit_is_shown_with_a_way_to_run_again(configure, demo_sqlite, monkeypatch) -> None:
    from tests.llm_server import ScriptedLLM, structured_reply, tool_call_reply
    from tests.support import ASK, UNITS

    server = ScriptedLLM().start()
    try:
        configure(f"demo={demo_sqlite}")
        for name, value in (("OPENAI_API_KEY", "test-key"), ("OPENAI_BASE_URL", server.base_url),
                            ("CHECKER_MODEL", "scripted-model"), ("CHECKER_MODEL_RETRIES", "0")):
            monkeypatch.setenv(name, value)
        readings = {"archetypes": [{"id": "ranking_metric", "quote": "top-selling"}],
                    "readings": [{"label": "Most units", "sql": UNITS}, {"label": "Slow on purpose", "sql": SLOW}]}
        server.push(tool_call_reply(ASK), structured_reply(readings))
        at = AppTest.from_file(CHECKER, default_timeout=TIMEOUT)
        at.query_params["q"], at.query_params["engine"] = TOP_SELLING, "model"
        at.run()
        no_exception(at)
        slow = next(r for r in at.session_state["checker"].report.interpretations if r.label == "Slow on purpose")
        assert {r.status for r in slow.results.values()} == {"timeout"}
        assert any("did not answer" in w.value for w in at.warning)
        assert "did not finish within the time limit" in page_text(at)
        server.push(tool_call_reply(ASK), structured_reply(readings))
        button(at, "Run again").click().run()
        no_exception(at)
        state = at.session_state["checker"]
        assert len(server.requests) == 4  # it ran again
        again = next(r for r in state.report.interpretations if r.label == "Slow on purpose")
        assert {r.status for r in again.results.values()} == {"timeout"}
        assert "USB-C Cable" in {m.value for m in at.metric}
    finally:
        server.stop()


def test_every_engine_down_offers_retry_and_skip(configure) -> None:
    configure(DEAD_PG)
    at = app(q=TOP_SELLING)
    no_exception(at)
    assert "s3cret" not in page_text(at)
    assert at.error and {"Retry", "Skip"} <= {b.label for b in at.button}
    button(at, "Retry").click().run()
    assert at.error and "s3cret" not in page_text(at)
    button(at, "Skip").click().run()
    no_exception(at)
    assert at.session_state["checker"].problem is None
    assert [t for t in at.text_input if t.key == "question_text"]


def test_three_engines_side_by_side(configure, demo_urls) -> None:
    configure(*(f"{b}={demo_urls[b]}" for b in BACKENDS))
    at = app(q=TOP_SELLING)
    no_exception(at)
    assert {m.value for m in at.metric} == TOP_PRODUCTS
    assert len(at.table) == 24  # eight readings x three engines (two of each in "same rows" expanders)
    assert sum("same rows on" in m.value for m in at.markdown) == 8
    report = at.session_state["checker"].report
    assert all(set(r.results) == set(BACKENDS) and r.engines_agree for r in report.interpretations)
    assert at.query_params["db"] == "sqlite,postgresql,mysql"


def test_secrets_toml_connections(configure, demo_sqlite) -> None:
    configure()
    at = AppTest.from_file(CHECKER, default_timeout=TIMEOUT)
    at.secrets["connections"] = {"shop": {"url": demo_sqlite}}
    at.run()
    no_exception(at)
    assert any("**shop** · sqlite" in m.value for m in at.sidebar.markdown)
    assert any("secrets.toml" in c.value for c in at.sidebar.caption)


# -- compare SQL and navigation -------------------------------------------------------------------

def test_compare_page_runs_statements_side_by_side(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = app(COMPARE)
    no_exception(at)
    at.button(key="FormSubmitter:compare-Compare").click().run()
    no_exception(at)
    assert any("2 statements, 2 different answers" in e.value for e in at.error)
    assert {m.value for m in at.metric} == {"MacBook Pro", "USB-C Cable"}
    at.text_area(key="compare_sql").set_value("SELECT 1 AS one; DELETE FROM orders")
    at.button(key="FormSubmitter:compare-Compare").click().run()
    no_exception(at)
    assert any("Not run" in e.value and "read-only" in e.value for e in at.error)
    at.text_area(key="compare_sql").set_value("SELECT 1")
    at.button(key="FormSubmitter:compare-Compare").click().run()
    no_exception(at)
    assert any("1 statement, answered" in s.value for s in at.success)
    assert {m.value for m in at.metric} == {"1"}


def test_compare_page_expands_one_statement_through_the_schema_mappings(configure, servers) -> None:
    from tests.support import create_singers

    url = create_singers(servers.create("sqlite", prefix="ac_singers"))
    configure(f"singers={url}")
    at = app(COMPARE)
    at.text_area(key="compare_sql").set_value('SELECT "Name", "Country" FROM "Singer" ORDER BY "Name"')
    at.button(key="FormSubmitter:compare-Compare").click().run()
    no_exception(at)
    text = page_text(at)
    assert "SingerCountry" in text  # the alternative reads the split-off table
    assert any("2 statements, 2 different answers" in e.value for e in at.error), text[:2000]
    at.checkbox(key="compare_expand").uncheck()
    at.button(key="FormSubmitter:compare-Compare").click().run()
    assert any("1 statement, answered" in s.value for s in at.success)
    assert len(at.session_state["comparison"].items) == 1


def test_navigation_has_both_pages(configure, demo_sqlite) -> None:
    configure(f"demo={demo_sqlite}")
    at = AppTest.from_file(ENTRY, default_timeout=TIMEOUT).run()
    no_exception(at)
    assert at.title[0].value == "Ambiguity checker"
    at.switch_page("pages/compare.py").run()
    no_exception(at)
    assert at.title[0].value == "Compare SQL"
    if (APP_DIR / "pages" / "diagnose.py").exists():
        at.switch_page("pages/diagnose.py").run()
        no_exception(at)
        assert at.title[0].value == "Diagnose traces"


def test_a_partial_verdict_offers_no_reading_as_what_was_meant(configure, demo_sqlite) -> None:
    # found by a newcomer: under 'no reading answers the whole question' the page asked "Which one did you mean?"
    # and offered a bold answer to click, which invites trusting a reading of half the question
    configure(f"demo={demo_sqlite}")
    at = app(q="What is the top-selling product doing well?")
    no_exception(at)
    text = page_text(at)
    assert "doing well" in text and "was not read" in text
    assert "Which one did you mean?" not in text
    assert "none answers the whole question" in text


def test_a_misspelt_schema_word_read_as_the_word_is_said_on_the_page(configure, demo_sqlite) -> None:
    # a guess is never silent: 'catgory' is read as 'category', and the page says so under the question
    configure(f"demo={demo_sqlite}")
    at = app(q="revenue by catgory 2024")
    no_exception(at)
    text = page_text(at)
    assert "catgory" in text and "was read as" in text and "category" in text
