"""The AmbiQT measure: the schema text parser, the SQLite database built from it, records that cannot be
built (counted, never the end of a run), an evaluation sample holding the targets (from query1 and from
real models' top-1 statements), and the `eval-ambiqt` command."""
from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner

from checker_app.commands.eval_ambiqt import eval_ambiqt
from checker_app.evaluation import ambiqt, ambiqt_records, ambiqt_schema
from tests.support import dataset

# (schema text, {table: {column: values}}): adding a case is adding a line
SCHEMA_TEXTS = [
    ('tracks : composer ("Guio De Morais E Seus "Parentes"/Luiz Gonzaga", "Richard Bull"), bytes (8092463, 1)',
     {"tracks": {"composer": ['Guio De Morais E Seus "Parentes"/Luiz Gonzaga', "Richard Bull"], "bytes": [8092463, 1]}}),
    ('t : reports_to (None, 6, None), unit_price (0.99, 1.99), empty ()',
     {"t": {"reports_to": [None, 6, None], "unit_price": [0.99, 1.99], "empty": []}}),
    ('locations : street_address ("1298 Vileparle (E)", ""Magdalen Centre", "San Antonio, TX"), home town ("Denton, TX")',
     {"locations": {"street_address": ["1298 Vileparle (E)", '"Magdalen Centre', "San Antonio, TX"],
                    "home town": ["Denton, TX"]}}),
    ('people : weight (kg) (8.38, 7.39, 7.39), height (m) ("1.8"), age (30) | sqlite_sequence : name ("x")',
     {"people": {"weight (kg)": [8.38, 7.39, 7.39], "height (m)": ["1.8"], "age": [30]}}),
]


@pytest.mark.parametrize("text, expected", SCHEMA_TEXTS)
def test_schema_text(text: str, expected: dict) -> None:
    tables = ambiqt_schema.parse_schema(text)
    assert {t.name: {c.name: c.values for c in t.columns} for t in tables} == expected


def test_schema_text_types_and_refusals() -> None:
    (table,) = ambiqt_schema.parse_schema('t : a ("x"), b (1, 2), c (0.5, 1), d (None)')
    assert [c.type for c in table.columns] == ["TEXT", "INTEGER", "REAL", "TEXT"]
    for bad in ("no tables here", 't : a ("x"', "t : a (1) b (2)"):
        with pytest.raises(ambiqt_schema.AmbiqtError):
            ambiqt_schema.parse_schema(bad)


def test_built_database_holds_the_samples_safely(tmp_path) -> None:
    tables = ambiqt_schema.parse_schema('weird "t" : a"b (1, 2, 3), v ("x\'); DROP TABLE y; --", "ok") | y : z (1)')
    url = ambiqt_schema.build_database(tables, tmp_path / "x.sqlite")
    conn = sqlite3.connect(url.removeprefix("sqlite:///"))
    assert conn.execute('SELECT * FROM "weird ""t"""').fetchall() == [(1, "x'); DROP TABLE y; --"), (2, "ok"), (3, None)]
    assert conn.execute("SELECT * FROM y").fetchall() == [(1,)]
    conn.close()


def test_records_that_cannot_be_built_are_counted(tmp_path) -> None:
    good = {"question": "How old is the oldest singer?", "query1": "select max(age) from singer",
            "query2": "select max_age from singer_age", "split_map": {"singer": ["max_age"]},
            "schema_with_content": "singer : age (30, 40) | singer_age : max_age (41)"}
    records = [good, dict(good, schema_with_content="singer : age (30) oops (1)"), dict(good, query2=""),
               dict(good, schema_with_content="t : a (1), A (2)")]
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records), encoding="utf-8")
    report = ambiqt.evaluate_examples(ambiqt_records.load_examples(path))
    score = report.scores["P"]
    assert score.examples == 4 and score.errors == 3
    assert [o.error is None for o in report.outcomes] == [True, False, False, False]
    assert report.outcomes[0].found and report.outcomes[0].informative
    assert "errors (3)" in ambiqt.report_text(report)


def _runner(tmp_path, text: str) -> ambiqt._Runner:
    return ambiqt._Runner(ambiqt_schema.build_database(ambiqt_schema.parse_schema(text), tmp_path / "t.sqlite"))


def test_a_limit_is_compared_with_its_ties(tmp_path) -> None:
    runner = _runner(tmp_path, 'shop : name ("A", "B", "C"), products (6000, 10770, 10770), shop_id (5, 4, 9)')
    try:
        tied = runner.answer("select name from shop order by products desc limit 1")
        assert tied == (("B",), ("C",)) == runner.answer(
            "select name from shop where products = (select max(products) from shop)")
        assert runner.answer("select name from shop order by products limit 1") == (("A",),)
        assert runner.answer("select name, products as p from shop order by p desc, 1 limit 1") == (("B", 10770),)
        assert runner.answer("select name, count(*) as n from shop group by name order by n desc limit 1") == (
            ("A", 1), ("B", 1), ("C", 1))
        assert runner.answer("select distinct products from shop order by products desc limit 1") == ((10770,),)
        assert runner.answer("select * from shop order by products desc limit 1") is not None  # run as written
        assert runner.answer("select name from shop order by products desc limit 1 offset 1") is not None
    finally:
        runner.db.dispose()
    for plain in ("select name from shop", "select * from shop order by products limit 1",
                  "select name from shop order by products limit 1 offset 1", "select name from shop limit 1"):
        assert ambiqt.with_ties(plain) is None, plain


def test_answers_compare_up_to_column_order() -> None:
    assert ambiqt.same(((1, "x"), (2, "y")), (("x", 1), ("y", 2)))
    assert not ambiqt.same(((1, "x"), (2, "y")), (("x", 2), ("y", 1)))
    assert not ambiqt.same(((1,),), ((1,), (1,))) and ambiqt.same((), ()) and not ambiqt.same((), None)


def test_a_split_off_table_is_built_as_a_vertical_split(tmp_path) -> None:
    record = {"question": "What is the country of each singer?", "query1": "select name, country from singer",
              "query2": "select t1.name, t2.country from singer as t1 join singer_country as t2 "
                        "on t1.singer_id = t2.singer_id",
              "split_map": {"singer": "country"}, "primary_key": {"singer": "singer_id"},
              "schema_with_content": 'singer : name ("Ana", "Ben", "Cyd"), country ("France", "Spain", "Spain"), '
                                     'singer_id (1, 2, 3) | singer_country : singer_id (7, 2, 9), country '
                                     '("France", "Spain", "Spain")'}
    example = ambiqt_records.example_of(record, 0)
    split = next(t for t in example.tables if t.name == "singer_country")
    assert split.rows() == [(2, "France"), (3, "Spain"), (1, "Spain")]  # every key once, each with its neighbour's value
    listed = ambiqt_records.example_of(record, 0, listed_keys=True)
    assert next(t for t in listed.tables if t.name == "singer_country").column("singer_id").values == [7, 2, 9]
    outcome = ambiqt.evaluate_example(example, tmp_path)
    assert outcome.informative and outcome.found and not outcome.mislabelled, outcome.to_dict()
    runner = ambiqt._Runner(ambiqt_schema.build_database(example.tables, tmp_path / "v.sqlite"))
    try:  # the join keeps every singer: the readings differ in the value a key has, not in the rows kept
        assert runner.answer(record["query2"]) == (("Ana", "Spain"), ("Ben", "France"), ("Cyd", "Spain"))
    finally:
        runner.db.dispose()


# The model top-1s that were counted mislabelled or missed (README: ties, a join keeping one row, columns in
# another order); each is now a reading whose alternative returns the other, or no reading at all.
MODEL_CASES = [(29, "chatgpt", "query2"), (30, "chatgpt", None), (30, "codex", "query1"),
               (116, "logical-beam", "query1"), (116, "t5-3b-bw10", "query1")]


def test_model_top1_cases(tmp_path) -> None:
    root = dataset("ambiqt")
    examples, _ = ambiqt_records.load_path(root / "benchmark" / "tbl-split" / "validation-even.json")
    by_index = {e.index: e for e in examples}
    for index in sorted({i for i, _, _ in MODEL_CASES}):
        outcome = ambiqt.evaluate_example(by_index[index], tmp_path)
        assert outcome.informative, outcome.to_dict()
        for case, model, reading in MODEL_CASES:
            if case == index:
                result = outcome.models[model]
                assert result.top1 == reading and result.other_found == (reading is not None), (index, model, result)
                assert not result.mislabelled, (index, model, result)


@pytest.fixture(scope="module")
def ambiqt_sample():
    root = dataset("ambiqt")
    examples = []
    for name in ("tbl-agg/train.json", "tbl-split/validation-even.json"):
        examples += ambiqt_records.load_examples(root / "benchmark" / name, limit=60)
    assert ambiqt_records.attach_outputs(examples, root / "outputs" / "join-ambiguity")
    return ambiqt.evaluate_examples(examples)


def test_ambiqt_sample_holds_the_targets(ambiqt_sample) -> None:
    scores = ambiqt_sample.scores
    assert set(scores) == {"P", "J"} and all(s.examples == 60 for s in scores.values())
    # P's first 60 hold 3 of the 11 records whose query2 drops an aggregate (`select avg_lat, (long) ...`)
    floors = {"P": 0.9, "J": 0.97}
    for category, score in scores.items():
        assert score.fires_share >= 0.9, (category, score.to_dict())
        assert score.informative >= 20 and score.informative_share >= floors[category], (category, score.to_dict())
        assert score.mislabelled == 0, (category, [o.to_dict() for o in ambiqt_sample.outcomes if o.mislabelled])
        assert score.controls >= 30 and score.control_share <= 0.1, (category, score.to_dict())
    assert len(ambiqt_sample.models) == 6
    pooled = ambiqt_sample.pooled()
    assert pooled.top1_matches >= 100 and pooled.other_share >= 0.95, pooled.to_dict()
    # codex's top-1 at J 43 joins ref_template_types, which drops the template query2 returns: it is query1 on
    # these rows only, and its correct rewrite gives a third answer (README)
    assert pooled.mislabelled <= 1, {k: m.to_dict() for k, m in ambiqt_sample.models.items()}
    for model in ambiqt_sample.models.values():
        assert model.top1_matches >= 5 and model.other_share >= 0.95, model.to_dict()
        assert 0 <= model.top5_both <= model.examples


def test_eval_ambiqt_command(tmp_path) -> None:
    folder = dataset("ambiqt")
    result = CliRunner().invoke(eval_ambiqt, [str(folder), "--limit", "8", "--controls", "0"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[:4] == ["category", "examples", "fires", "both"]
    assert sum(1 for line in lines if line[:2] in ("P ", "J ", "C ", "T ")) == 4
    assert any(line.startswith("chatgpt ") for line in lines)
    data = json.loads(CliRunner().invoke(eval_ambiqt, [
        str(dataset("ambiqt", "benchmark", "tbl-split", "validation-even.json")), "--limit", "5", "--json"]).output)
    assert data["categories"]["J"]["examples"] == 5 and 0 <= data["categories"]["J"]["fires"] <= 1
    assert set(data["models"]) >= {"chatgpt", "codex"}
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}', encoding="utf-8")
    failed = CliRunner().invoke(eval_ambiqt, [str(bad)])
    assert failed.exit_code == 2 and failed.output.startswith("error: ")
