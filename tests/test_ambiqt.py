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
    # records of shapes not seen yet: built where they can be, else counted with their reason, never raised
    odd = [7, dict(good, split_map=["x"]), dict(good, split_map={"singer": [5]}, primary_key="singer_id"),
           dict(good, split_map={"singer": 5}, primary_key={"singer": 3}), dict(good, question=["a list"])]
    path.write_text(json.dumps(odd), encoding="utf-8")
    report = ambiqt.evaluate_examples(ambiqt_records.load_examples(path))
    assert [o.error for o in report.outcomes] == ["record is a JSON int, not an object", None, None, None, None]
    assert all(o.found for o in report.outcomes[1:]) and "errors (1)" in ambiqt.report_text(report)
    (tmp_path / "tbl-agg").mkdir()
    (tmp_path / "tbl-agg" / "train.json").write_text(json.dumps(odd + [dict(good, db_id="7")]), encoding="utf-8")
    synonyms = tmp_path / "col-synonyms" / "two_col_synonyms.json"
    synonyms.parent.mkdir()
    synonyms.write_text(json.dumps({"": {"singer": ["not", "a map"]}, "7": 5}), encoding="utf-8")
    assert ambiqt_records.load_examples(synonyms, synonyms_dir=tmp_path) == []


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


def test_a_key_listed_twice_is_made_unique_before_the_split(tmp_path) -> None:
    """A repeated base key made the join repeat rows, so query1 and query2 differed where the split-off column's
    values agree (AmbiQT J 4, 47): the key lists each value once, and the readings agree there."""
    record = {"question": "What is the age of every teacher?", "query1": "select name, age from teacher",
              "query2": "select t1.name, t2.age from teacher as t1 join teacher_age as t2 on t1.teacher_id = "
                        "t2.teacher_id", "split_map": {"teacher": "age"}, "primary_key": {"teacher": "teacher_id"},
              "schema_with_content": 'teacher : name ("Ann", "Bo", "Cy"), age (26, 26, 26), teacher_id ("5", "5", '
                                     '"3") | teacher_age : teacher_id (1, 2, 3), age (26, 26, 26)'}
    example = ambiqt_records.example_of(record, 0)
    assert [t.column("teacher_id").values for t in example.tables] == [["5", "1", "3"], ["1", "3", "5"]]
    outcome = ambiqt.evaluate_example(example, tmp_path)
    assert not outcome.informative and outcome.error is None, outcome.to_dict()
    assert ambiqt.evaluate_example(ambiqt_records.example_of(record, 0, listed_keys=True), tmp_path).informative


# (schema text, added tables, {table: {column: values}} changed, a join that must keep every referring row, its
# count): a value referring to a key named after its table is one of the key's; adding a case is adding a line
WHOLE_KEYS = [
    # a repeated key value makes room for a missing one first, then the referring column takes a key value
    ('ref_template_types : template_type_code ("PPT", "BK", "BK"), template_type_description ("Book", "Book") | '
     'templates : template_id (4, 10, 1), template_type_code ("PP", "PPT", "CV")', set(),
     {"ref_template_types": {"template_type_code": ["PPT", "BK", "PP"]},
      "templates": {"template_type_code": ["PP", "PPT", "BK"]}},
     "select count(*) from templates as t join ref_template_types as r on r.template_type_code = t.template_type_code",
     3),
    # the key's values the column lacks come first, one per missing value, NULL left alone
    ('templates : template_id (4, 10), version_number (2, 7) | documents : template_id (25, 4, None, 25), name ("a")',
     set(), {"documents": {"template_id": [10, 4, None, 10]}},
     "select count(*) from documents as d join templates as t on t.template_id = d.template_id", 3),
    ('people : people_id (5, 6), name ("Ann", "Bo") | poker_player : people_id (7, 1), poker_player_id (1, 2)',
     set(), {"poker_player": {"people_id": [5, 6]}},
     "select count(*) from poker_player join people on people.people_id = poker_player.people_id", 2),
    # '10' already refers to 10 (SQLite joins them); '7' takes the key value 5
    ('stadium : stadium_id (10, 5), name ("A", "B") | concert : stadium_id ("10", "7"), concert_id (1, 2)', set(),
     {"concert": {"stadium_id": ["10", 5]}},
     "select count(*) from concert as c join stadium as s on s.stadium_id = c.stadium_id", 2),
    ('countries : country_id (1) | addresses : address_id (3), country_id (2) | boxes : box_id (1), address_id (9)',
     set(), {"addresses": {"country_id": [1]}, "boxes": {"address_id": [3]}},
     "select count(*) from boxes join addresses on addresses.address_id = boxes.address_id join countries on "
     "countries.country_id = addresses.country_id", 1),
    # the table AmbiQT added, and same-named columns that are no table's key, are left as they are
    ('singer : singer_id (1, 2), country ("France", "Spain") | singer_country : singer_id (7, 9), country ("Peru")',
     {"singer_country"}, {}, "select count(*) from singer_country", 2),
    ('shop : shop_id (1), manager ("Ann") | hiring : shop_id (1), manager ("Bo")', set(), {},
     "select count(*) from hiring join shop on shop.manager = hiring.manager", 0),
]


@pytest.mark.parametrize("text, added, changed, join, count", WHOLE_KEYS)
def test_keys_named_after_their_table_are_made_whole(tmp_path, text: str, added: set, changed: dict, join: str,
                                                     count: int) -> None:
    tables = ambiqt_schema.parse_schema(text)
    whole = ambiqt_records.whole_keys(tables, added)
    assert {t.name: {c.name: c.values for c, o in zip(t.columns, b.columns) if c.values != o.values}
            for t, b in zip(whole, tables) if t.rows() != b.rows()} == changed
    assert [len(t.rows()) for t in whole] == [len(t.rows()) for t in tables]  # no row added or dropped
    runner = ambiqt._Runner(ambiqt_schema.build_database(whole, tmp_path / "w.sqlite"))
    try:
        assert runner.answer(join) == ((count,),)
    finally:
        runner.db.dispose()


def test_a_join_to_a_lookup_table_keeps_every_row(tmp_path) -> None:
    """AmbiQT J 43: joining the type table to read nothing from it answers query1's rows, and its rewrite query2's,
    once every template's type has its row; as listed, query2's template's type (CV) had none, so the right
    rewrite returned no rows and was counted mislabelled."""
    record = {"question": "Version numbers and type codes of templates with a version above 5",
              "query1": "select version_number, template_type_code from templates where version_number > 5",
              "query2": "select t2.version_number, t1.template_type_code from templates as t1 join "
                        "templates_version_number as t2 on t1.template_id = t2.template_id where t2.version_number > 5",
              "split_map": {"templates": "version_number"}, "primary_key": {"templates": "template_id"},
              "schema_with_content": 'ref_template_types : template_type_code ("PPT", "BK", "BK") | templates : '
                                     'version_number (2, 7, 4), template_type_code ("PP", "PPT", "CV"), template_id '
                                     '(4, 10, 1) | templates_version_number : version_number (2, 7, 4), template_id '
                                     '(10, 1, 4)'}
    top1 = ("select t1.version_number, t1.template_type_code from templates as t1 join ref_template_types as t2 "
            "on t1.template_type_code = t2.template_type_code where t1.version_number > 5")
    for listed, mislabelled in ((True, True), (False, False)):
        example = ambiqt_records.example_of(record, 0, listed_keys=listed)
        example.outputs["model"] = [top1]
        result = ambiqt.evaluate_example(example, tmp_path).models["model"]
        assert result.top1 == "query1" and result.other_found is not mislabelled, result
        assert bool(result.mislabelled) is mislabelled, result


# The model top-1s that were counted mislabelled or missed (README: ties, a join keeping one row, columns in
# another order, a lookup table lacking a key); each is now a reading whose alternative returns the other, or
# no reading at all.
MODEL_CASES = [(29, "chatgpt", "query2"), (30, "chatgpt", None), (30, "codex", "query1"), (43, "codex", "query1"),
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
    assert pooled.mislabelled == 0, {k: m.to_dict() for k, m in ambiqt_sample.models.items()}
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
    only = json.loads(CliRunner().invoke(eval_ambiqt, [str(folder), "--only", "J:43, p", "--limit", "50",
                                                       "--controls", "0", "--json"]).output)
    assert {k: v["examples"] for k, v in only["categories"].items()} == {"J": 1, "P": 50}
    assert only["models"]["codex"]["top1_matches"] == 1 and only["all_models"]["mislabelled"] == 0
    assert CliRunner().invoke(eval_ambiqt, [str(folder), "--only", "J:9999"]).exit_code == 2
    bad = tmp_path / "bad.json"
    bad.write_text('{"not": "a list"}', encoding="utf-8")
    failed = CliRunner().invoke(eval_ambiqt, [str(bad)])
    assert failed.exit_code == 2 and failed.output.startswith("error: ")
