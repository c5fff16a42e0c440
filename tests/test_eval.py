"""The labelled question set, the scoring arithmetic, the `eval` command, and the floors it must hold."""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from checker_app.commands import eval as eval_cmd
from checker_app.evaluation import labelled as ev
from tests.support import REPO

LABELLED = REPO / "tests" / "fixtures" / "labelled"
MIN_RECALL, MAX_CLEAR_FP_RATE, MIN_POSITIVES = 0.9, 0.1, 3


def case(q: str, fire: list[str], not_: list[str] | str, db: str = "demo") -> ev.Case:
    return ev.parse_case(json.dumps({"q": q, "db": db, "fire": fire, "not": not_}))


def fake_detect(answers: dict[str, list[str]]):
    def detect(c: ev.Case) -> list[str]:
        if answers.get(c.question) == ["boom"]:
            raise RuntimeError("detector crashed")
        return answers.get(c.question, [])
    return detect


# -- the labelled set -----------------------------------------------------------------------------

def test_labelled_set_shape():
    cases = ev.load_cases(LABELLED)
    assert len(cases) >= 110
    clear = [c for c in cases if c.clear]
    assert len(clear) >= 50 and len(clear) >= len(cases) * 0.4
    assert {c.db for c in cases} == {"demo", "chinook", "northwind"}
    for db in ("demo", "chinook", "northwind"):
        assert sum(1 for c in clear if c.db == db) >= 15, db
    positives = Counter(a for c in cases for a in c.fire)
    assert all(positives[a] >= MIN_POSITIVES for a in ev.ARCHETYPE_IDS), positives
    questions = Counter((c.db, c.question.lower()) for c in cases)
    assert not [q for q, n in questions.items() if n > 1], "duplicate questions"


def test_single_currency_and_zoneless_schemas_are_labelled_silent():
    """Unit and time-zone readings only exist on the demo database; the labels must say so."""
    for c in ev.load_cases(LABELLED):
        if c.db != "demo":
            assert "unit" not in c.fire and "timezone" not in c.fire, c.where


# -- arithmetic (no database) ---------------------------------------------------------------------

def test_scores_per_archetype_and_clear_false_positive_rate():
    cases = [
        case("top product", ["ranking_metric"], ["timeframe"]),           # TP ranking, TN timeframe
        case("best store", ["ranking_metric"], ["timeframe"]),            # FN ranking, FP timeframe
        case("recent orders", ["timeframe"], ["ranking_metric"]),         # TP timeframe, FP ranking
        case("top recent", ["ranking_metric", "timeframe"], []),          # TP both; entity fired, unlabelled
        case("how many stores", [], "*"),                                  # clear, silent
        case("list categories", [], "*"),                                  # clear, unit fired
        case("count customers", [], ["entity"]),                           # clear, timeframe fired (unlabelled)
        case("chinook q", [], "*", db="chinook"),                          # skipped
    ]
    detect = fake_detect({
        "top product": ["ranking_metric"],
        "best store": ["timeframe"],
        "recent orders": ["timeframe", "ranking_metric"],
        "top recent": ["timeframe", "ranking_metric", "entity", "ranking_metric"],
        "list categories": ["unit"],
        "count customers": ["timeframe"],
    })
    report = ev.evaluate(cases, detect, skip_dbs={"chinook"})
    rank, time = report.scores["ranking_metric"], report.scores["timeframe"]
    assert (rank.tp, rank.fp, rank.fn, rank.tn) == (2, 1, 1, 2)
    assert rank.precision == pytest.approx(2 / 3) and rank.recall == pytest.approx(2 / 3)
    assert (time.tp, time.fp, time.fn, time.tn) == (2, 1, 0, 3)
    assert time.recall == 1.0 and time.precision == pytest.approx(2 / 3)
    unit = report.scores["unit"]
    assert (unit.tp, unit.fp, unit.fn, unit.tn) == (0, 1, 0, 1) and unit.precision == 0.0 and unit.recall is None
    entity = report.scores["entity"]
    assert (entity.tp, entity.fp, entity.positives, entity.negatives) == (0, 0, 0, 3)
    assert entity.precision is None
    # clear questions: 3 evaluated, 2 with any detection (labelled or not)
    assert (report.clear_total, report.clear_fired) == (3, 2)
    assert report.clear_fp_rate == pytest.approx(2 / 3)
    assert report.skipped == {"chinook": 1}
    assert len(report.evaluated) == 7
    top_recent = next(o for o in report.outcomes if o.case.question == "top recent")
    assert top_recent.fired == ("timeframe", "ranking_metric", "entity") and top_recent.ok
    assert [o.case.question for o in report.misses] == [
        "best store", "recent orders", "list categories", "count customers"]
    data = report.to_dict()
    assert data["cases"] == 8 and data["evaluated"] == 7 and data["skipped"] == {"chinook": 1}
    assert data["clear"] == {"cases": 3, "fired": 2, "fp_rate": pytest.approx(2 / 3)}
    assert data["archetypes"]["ranking_metric"]["recall"] == pytest.approx(2 / 3)
    json.dumps(data)


def test_floor_failures_name_the_archetype_and_the_clear_rate():
    cases = [case(f"rank {i}", ["ranking_metric"], []) for i in range(4)]
    cases += [case(f"unit {i}", ["unit"], []) for i in range(2)]  # under MIN_POSITIVES: no floor
    cases += [case(f"clear {i}", [], "*") for i in range(10)]
    answers = {"rank 0": ["ranking_metric"], "rank 1": ["ranking_metric"], "rank 2": ["ranking_metric"],
               "clear 0": ["entity"]}
    report = ev.evaluate(cases, fake_detect(answers))
    assert report.floor_failures() == ["ranking_metric: recall 0.75 < 0.9 (1 of 4 missed)"]
    answers["clear 1"] = ["timeframe"]
    problems = ev.evaluate(cases, fake_detect(answers)).floor_failures()
    assert problems[-1] == "clear questions: false-positive rate 0.20 > 0.1 (2 of 10)"
    answers["rank 3"] = ["ranking_metric"]
    del answers["clear 1"]
    assert ev.evaluate(cases, fake_detect(answers)).floor_failures() == []


def test_a_crashing_detector_is_an_error_not_a_score():
    cases = [case("ok", ["unit"], []), case("crash", ["unit"], [])]
    report = ev.evaluate(cases, fake_detect({"ok": ["unit"], "crash": ["boom"]}))
    assert report.scores["unit"].positives == 1 and report.scores["unit"].recall == 1.0
    assert [o.error for o in report.errors] == ["RuntimeError: detector crashed"]
    assert "error " in ev.report_text(report)


def test_report_text_is_a_plain_table():
    cases = [case("top product", ["ranking_metric"], "*"), case("how many stores", [], "*")]
    text = ev.report_text(ev.evaluate(cases, fake_detect({"how many stores": ["unit"]})))
    lines = text.splitlines()
    assert lines[0].split() == ["archetype", "pos", "neg", "TP", "FP", "FN", "precision", "recall"]
    row = next(line.split() for line in lines if line.startswith("ranking_metric"))
    assert row == ["ranking_metric", "1", "1", "0", "0", "1", "-", "0.00"]
    assert "clear questions: 1, with any archetype fired: 1 (false-positive rate 1.00)" in text
    assert "'top product': expected ranking_metric; got nothing (missed ranking_metric)" in text
    assert "'how many stores': expected nothing (clear); got unit (unexpected unit)" in text


# -- bad lines ------------------------------------------------------------------------------------

GOOD = '{"q": "List the genres", "db": "chinook", "fire": [], "not": "*"}'


@pytest.mark.parametrize("bad, reason", [
    ('{"q": "x", "db": "demo", "fire": [', "not valid JSON"),
    ('["q"]', "expected a JSON object"),
    ('{"q": "x", "db": "demo", "fire": ["ranking"]}', "unknown archetype ranking"),
    ('{"q": "x", "db": "demo", "fires": ["unit"]}', "unknown key(s) fires"),
    ('{"q": "", "db": "demo", "fire": ["unit"]}', '"q" must be a non-empty string'),
    ('{"q": "x", "fire": ["unit"]}', '"db" must be a non-empty string'),
    ('{"q": "x", "db": "demo", "fire": ["unit"], "not": ["unit"]}', 'unit is in both "fire" and "not"'),
    ('{"q": "x", "db": "demo", "fire": "unit"}', '"fire" must be a list of archetype ids'),
    ('{"q": "x", "db": "demo", "fire": [], "not": []}', "a clear question"),
    ('{"q": "x", "db": "demo", "fire": [], "not": ["*", "unit"]}', '"*" must stand alone'),
])
def test_a_bad_line_is_one_error_naming_its_line(tmp_path, bad, reason):
    path = tmp_path / "cases.jsonl"
    path.write_text(f"{GOOD}\n\n{bad}\n{GOOD}\n", encoding="utf-8")
    with pytest.raises(ev.CaseFileError) as info:
        ev.load_cases(path)
    message = str(info.value)
    assert message.startswith(f"{path}:3: ") and reason in message
    assert "\n" not in message and info.value.line == 3


def test_missing_file_and_empty_directory(tmp_path):
    with pytest.raises(ev.CaseFileError, match="no such file"):
        ev.load_cases(tmp_path / "nope.jsonl")
    with pytest.raises(ev.CaseFileError, match="no \\*.jsonl files"):
        ev.load_cases(tmp_path)


def test_labels_star_and_unlabelled():
    c = case("q", ["unit"], "*")
    assert c.forbid is None and c.label("unit") is True and c.label("entity") is False
    c = case("q", ["unit"], ["entity"])
    assert c.label("timezone") is None and c.label("entity") is False and not c.clear


# -- the CLI --------------------------------------------------------------------------------------

def _write(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def cli_cases(tmp_path, monkeypatch):
    """A small case file and a fake detector patched into the command (no archetypes needed)."""
    seen: dict[str, object] = {}

    def fake_detector_for(databases):
        seen["databases"] = dict(databases)
        return fake_detect({"top product": ["ranking_metric"], "how many stores": []})

    monkeypatch.setattr(eval_cmd, "detector_for", fake_detector_for)
    path = _write(tmp_path / "cases.jsonl", [
        {"q": "top product", "db": "x", "fire": ["ranking_metric"], "not": ["timeframe"]},
        {"q": "how many stores", "db": "x", "fire": [], "not": "*"},
        {"q": "list genres", "db": "chinook", "fire": [], "not": "*"},
    ])
    return path, f"x=sqlite:///{tmp_path / 'x.sqlite'}", seen


def test_cli_prints_the_table_and_counts_skipped_cases(cli_cases):
    path, url, seen = cli_cases
    result = CliRunner().invoke(eval_cmd.eval_command, [str(path), "--db", url])
    assert result.exit_code == 0, result.output
    assert "ranking_metric" in result.output and "1.00" in result.output
    assert "clear questions: 1, with any archetype fired: 0 (false-positive rate 0.00)" in result.output
    assert "skipped (database not configured): 1 (chinook: 1)" in result.output
    assert list(seen["databases"]) == ["x"]


def test_cli_json_and_strict(cli_cases):
    path, url, _ = cli_cases
    result = CliRunner().invoke(eval_cmd.eval_command, [str(path), "--db", url, "--json"])
    assert result.exit_code == 0
    data = json.loads(result.output)
    assert data["skipped"] == {"chinook": 1} and data["evaluated"] == 2
    assert data["archetypes"]["ranking_metric"]["recall"] == 1.0
    strict = CliRunner().invoke(eval_cmd.eval_command, [str(path), "--db", url, "--strict"])
    assert strict.exit_code == 1


def test_cli_bad_line_exits_2_with_one_line(tmp_path):
    path = tmp_path / "bad.jsonl"
    path.write_text(GOOD + "\n" + '{"q": "x", "db": "demo", "fire": ["nope"]}\n', encoding="utf-8")
    result = CliRunner().invoke(eval_cmd.eval_command, [str(path)])
    assert result.exit_code == 2
    assert result.output.strip().startswith(f"error: {path}:2: ")
    assert len(result.output.strip().splitlines()) == 1


def test_cli_demo_defaults_to_the_embedded_database(tmp_path, monkeypatch, cli_cases):
    _, _, seen = cli_cases
    import checker_app.settings as settings

    monkeypatch.setattr(settings, "ensure_demo_database", lambda: f"sqlite:///{tmp_path / 'demo.sqlite'}")
    path = _write(tmp_path / "demo.jsonl", [{"q": "how many stores", "db": "demo", "fire": [], "not": "*"}])
    result = CliRunner().invoke(eval_cmd.eval_command, [str(path)])
    assert result.exit_code == 0, result.output
    assert list(seen["databases"]) == ["demo"] and "skipped" not in result.output


# -- the floors, on the live demo database, Chinook and Northwind ---------------------------------

@pytest.fixture(scope="module")
def live_report(request):
    from adapters import Database, parse_db_option

    urls = {"demo": request.getfixturevalue("demo_urls")["sqlite"],
            "chinook": request.getfixturevalue("chinook_urls")["sqlite"],
            "northwind": request.getfixturevalue("northwind_urls")["sqlite"]}
    databases = {name: Database(parse_db_option(f"{name}={url}")) for name, url in urls.items()}
    try:
        yield ev.evaluate(ev.load_cases(LABELLED), ev.detector_for(databases))
    finally:
        for db in databases.values():
            db.dispose()


def test_every_labelled_case_runs(live_report):
    assert not live_report.errors, ev.report_text(live_report)
    assert not live_report.skipped


def test_floors_hold(live_report):
    problems = live_report.floor_failures(MIN_RECALL, MAX_CLEAR_FP_RATE, MIN_POSITIVES)
    assert not problems, "\n".join(problems) + "\n\n" + ev.report_text(live_report)


def test_cli_on_the_live_chinook_set(chinook_urls):
    result = CliRunner().invoke(eval_cmd.eval_command, [
        str(LABELLED / "chinook.jsonl"), "--db", f"chinook={chinook_urls['sqlite']}", "--json", "--strict"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["evaluated"] == sum(1 for c in ev.load_cases(LABELLED / "chinook.jsonl")) and not data["errors"]


def test_schema_mapping_stays_silent_on_every_clear_question(live_report):
    """The labelled databases have no split-off or precomputed tables: a clear question never gets a
    schema_mapping detection (the positives are Northwind's 'customer names' and 'orders by date')."""
    fired = [o.case.where for o in live_report.evaluated if o.case.clear and "schema_mapping" in o.fired]
    assert not fired, fired
    score = live_report.scores["schema_mapping"]
    assert score.positives >= MIN_POSITIVES and score.recall == 1.0 and score.fp == 0, score.to_dict()
