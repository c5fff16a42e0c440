"""The schema_mapping archetype: detection on small hand-made schemas (SQLite, and PostgreSQL / MariaDB through
the `servers` fixture), readings that diverge where the data does, `expand_sql` alternatives that re-parse and
run. The AmbiQT measure is in test_ambiqt.py, the rewrite cases in test_ambiqt_rewrites.py."""
from __future__ import annotations

import sqlite3

import pytest
import sqlglot

from adapters import Database, Limits, UnsafeStatementError, parse_db_option
from archetypes import detect
from archetypes.expand import expand_sql
from archetypes.mappings import Mapping, schema_mappings
from checker_app.pipeline import check
from tests.support import Connected, connect, create_singers


@pytest.fixture
def singers(servers) -> Connected:
    return connect(create_singers(servers.create("sqlite")))


def _fired(connected: Connected, question: str) -> list[str]:
    return [d.archetype for d in detect(question, connected.profile, connected.lookup)]


def _mapping(connected: Connected, question: str):
    return next(d for d in detect(question, connected.profile, connected.lookup) if d.archetype == "schema_mapping")


def _results(connected: Connected, question: str) -> dict[str, list]:
    analysis = connected.analyse(question)
    return {i.choices["schema_mapping"]: sorted(map(tuple, connected.run(i).rows), key=repr)
            for i in analysis.interpretations}


# -- the schema's mappings ----------------------------------------------------------------------------

def test_mappings_found_from_the_schema(singers) -> None:
    found = {(m.kind, m.table, m.column, m.other_table, m.other_column, m.function)
             for m in schema_mappings(singers.profile)}
    assert ("split", "Singer", "Country", "SingerCountry", "Country", None) in found
    assert {("aggregate", "Singer", "Age", "SingerAge", f"{p}Age", f) for p, f in
            (("Avg", "avg"), ("Max", "max"), ("Min", "min"), ("Total", "sum"))} <= found
    assert not any("Concert" in (t or "") or "Performance" in (t or "") for f in found for t in (f[1], f[3]))
    split = next(m for m in schema_mappings(singers.profile) if m.kind == "split")
    assert split.key == (("SingerId", "SingerId"),) and split.value == "singer_country.country"


def test_lookup_tables_sharing_id_and_name_are_not_a_split(tmp_path) -> None:
    path = tmp_path / "lookups.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE Region (id INTEGER PRIMARY KEY, code TEXT, name TEXT);
        CREATE TABLE Category (id INTEGER PRIMARY KEY, name TEXT);
        CREATE TABLE Genre (id INTEGER PRIMARY KEY, name TEXT);
        INSERT INTO Region VALUES (1, 'N', 'North'), (2, 'S', 'South');
        INSERT INTO Category VALUES (1, 'Tools'), (2, 'Toys');
        INSERT INTO Genre VALUES (1, 'Jazz'), (2, 'Rock');
    """)
    conn.close()
    connected = connect(f"sqlite:///{path}")
    assert schema_mappings(connected.profile) == []
    assert "schema_mapping" not in _fired(connected, "List the names of every category")


# -- detection ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("question, readings", [
    ("Show the name and country of every singer", ["singer", "singer_country"]),
    ("Which singers are from Portugal?", ["singer", "singer_country"]),
    ("What is the average age of the singers?", ["singer", "singer_age"]),
    ("What are the maximum and minimum age of all singers?", ["singer", "singer_age"]),
])
def test_fires_with_one_reading_per_mapping(singers, question: str, readings: list[str]) -> None:
    detection = _mapping(singers, question)
    assert [r.value for r in detection.readings] == readings
    assert question[slice(*detection.span)] == detection.evidence
    assert detection.clarification.type == "choice" and len(detection.clarification.options) == len(readings)


@pytest.mark.parametrize("question", [
    "How many concerts were there in 2014?",
    "List the concert names",
    "Which singer performed at the Spring Gala?",
    "Show the names of all singers",
])
def test_silent_where_no_mapping_is_touched(singers, question: str) -> None:
    assert "schema_mapping" not in _fired(singers, question)


def test_readings_diverge_where_the_data_does(singers) -> None:
    countries = _results(singers, "Show the name and country of every singer")
    assert countries["singer"] == [("Ana", "France"), ("Ben", "Spain"), ("Cyd", "Italy")]
    assert countries["singer_country"] == [("Ana", "France"), ("Ben", "Portugal")]
    ages = _results(singers, "What is the average age of the singers?")
    assert [float(v) for (v,) in ages["singer"]] == [40.0]
    assert [float(v) for (v,) in ages["singer_age"]] == [38.5]


def test_check_gives_the_divergence_verdict(singers) -> None:
    database = Database(parse_db_option(f"singers={singers.db.config.url}"), Limits())
    try:
        report = check("What is the average age of the singers?", [database])
    finally:
        database.dispose()
    assert [a.id for a in report.archetypes] == ["schema_mapping"]
    assert report.divergent is True and report.distinct_answers == 2
    assert {r.choices["schema_mapping"] for r in report.interpretations} == {"singer", "singer_age"}


def test_answering_keeps_one_reading(singers) -> None:
    analysis = singers.analyse("Show the name and country of every singer", answers={"schema_mapping": "singer_country"})
    (only,) = analysis.interpretations
    assert '"SingerCountry"' in only.sql("sqlite") and "JOIN" in only.sql("sqlite")


def test_profile_synonyms_can_name_several_columns(tmp_path) -> None:
    path = tmp_path / "people.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE Person (PersonId INTEGER PRIMARY KEY, Nationality TEXT, Citizenship TEXT);
        INSERT INTO Person VALUES (1, 'France', 'Canada'), (2, 'Spain', 'Spain');
    """)
    conn.close()
    connected = connect(f"sqlite:///{path}", {"synonyms": {"country": ["Person.Nationality", "Person.Citizenship"]}})
    detection = _mapping(connected, "Show the country of every person")
    assert [r.value for r in detection.readings] == ["person.nationality", "person.citizenship"]
    answers = _results(connected, "Show the country of every person")
    assert answers["person.nationality"] != answers["person.citizenship"]


def test_twin_tables_and_duplicate_columns(tmp_path) -> None:
    path = tmp_path / "twins.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE Staff (StaffId INTEGER, FullName TEXT, Salary INTEGER);
        CREATE TABLE Personnel (StaffId INTEGER, FullName TEXT, Salary INTEGER);
        CREATE TABLE Site (SiteId INTEGER, City TEXT, Town TEXT, Opened INTEGER);
        INSERT INTO Staff VALUES (1, 'Ann Lee', 100), (2, 'Bo Chan', 300);
        INSERT INTO Personnel VALUES (1, 'Ann Lee', 100), (2, 'Bo Chan', 300);
        INSERT INTO Site VALUES (1, 'Lyon', 'Lyon', 1990), (2, 'Turin', 'Turin', 2001), (3, 'Porto', 'Porto', 2010);
    """)
    conn.close()
    connected = connect(f"sqlite:///{path}")
    assert [r.value for r in _mapping(connected, "What is the average salary?").readings] == ["personnel", "staff"]
    (twin,) = expand_sql("SELECT AVG(Salary) FROM Staff", connected.profile, "sqlite")
    assert twin.mapping.kind == "twin" and '"Personnel"' in twin.sql and connected.db.run(twin.sql).rows == [[200.0]]
    assert [r.value for r in _mapping(connected, "List the town of every site").readings] == ["site.town", "site.city"]
    (other,) = expand_sql("SELECT City FROM Site WHERE Opened > 2000", connected.profile, "sqlite")
    assert '"Town"' in other.sql and sorted(connected.db.run(other.sql).rows) == [["Porto"], ["Turin"]]
    assert "schema_mapping" not in _fired(connected, "When was each site opened?")


def test_a_column_whose_values_are_a_subset_of_another_is_its_twin(tmp_path) -> None:
    """Twins from the data whatever their names (AmbiQT's C synonyms share no word): text with three or more
    values inside another column's, never numbers that only happen to fall inside another's range."""
    path = tmp_path / "subset.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript("""
        CREATE TABLE Person (PersonId INTEGER, Nationality TEXT, Citizenship TEXT, Quarter INTEGER, Month INTEGER);
        INSERT INTO Person VALUES (1, 'France', 'France', 1, 1), (2, 'Spain', 'Spain', 2, 2),
            (3, 'Italy', 'Italy', 3, 3), (4, 'Peru', 'Italy', 4, 4), (5, 'Peru', 'Spain', 4, 12);
    """)
    conn.close()
    connected = connect(f"sqlite:///{path}")
    pairs = {(m.column, m.other_column) for m in schema_mappings(connected.profile) if m.kind == "column"}
    assert {("Citizenship", "Nationality"), ("Nationality", "Citizenship")} <= pairs, pairs
    assert not any("Quarter" in pair or "Month" in pair for pair in pairs), pairs
    (other,) = expand_sql("SELECT PersonId FROM Person WHERE Citizenship = 'Spain'", connected.profile, "sqlite")
    assert '"Nationality"' in other.sql and connected.db.run(other.sql).rows == [[2]]  # Citizenship: 2 and 5


# -- expanding one statement ------------------------------------------------------------------------------

def test_expand_split_column_through_its_table(singers) -> None:
    (alternative,) = expand_sql('SELECT "Name", "Country" FROM "Singer" ORDER BY "Name"', singers.profile, "sqlite")
    assert alternative.mapping.kind == "split" and "SingerCountry" in alternative.label
    sqlglot.parse_one(alternative.sql, read="sqlite")
    assert singers.db.run(alternative.sql).rows == [["Ana", "France"], ["Ben", "Portugal"]]


def test_expand_aggregate_to_the_precomputed_table_and_back(singers) -> None:
    (forward,) = expand_sql("select max(age), min(age) from singer", singers.profile, "sqlite")
    assert forward.mapping.kind == "aggregate" and '"MaxAge"' in forward.sql and '"MinAge"' in forward.sql
    assert singers.db.run(forward.sql).rows == [[48, 30]]
    (back,) = expand_sql('SELECT "AvgAge" FROM "SingerAge"', singers.profile, "sqlite")
    assert back.mapping.inverse and "AVG(" in back.sql.upper()
    assert [float(v) for (v,) in singers.db.run(back.sql).rows] == [40.0]


def test_expand_split_back_to_the_base_table(singers) -> None:
    sql = ('SELECT s."Name", c."Country" FROM "Singer" AS s JOIN "SingerCountry" AS c '
           'ON s."SingerId" = c."SingerId"')
    (back,) = expand_sql(sql, singers.profile, "sqlite")
    assert back.mapping.inverse and "SingerCountry" not in back.sql
    assert sorted(map(tuple, singers.db.run(back.sql).rows)) == [("Ana", "France"), ("Ben", "Spain"), ("Cyd", "Italy")]


def test_expand_in_subqueries_and_with_filters(singers) -> None:
    sql = ('SELECT "ConcertName" FROM "Concert" WHERE "ConcertId" IN (SELECT p."ConcertId" FROM "Performance" p '
           'JOIN "Singer" s ON s."SingerId" = p."SingerId" WHERE s."Country" = \'Portugal\')')
    assert singers.db.run(sql).rows == []
    (alternative,) = expand_sql(sql, singers.profile, "sqlite")
    assert singers.db.run(alternative.sql).rows == [["Spring Gala"]]


@pytest.mark.parametrize("sql", ['SELECT "ConcertName" FROM "Concert"', "SELECT 1", "SELECT COUNT(*) FROM Singer"])
def test_nothing_to_expand(singers, sql: str) -> None:
    assert expand_sql(sql, singers.profile, "sqlite") == []


def test_expand_refuses_what_is_not_one_read_only_query(singers) -> None:
    for sql in ("SELECT 1; DROP TABLE Singer", "DELETE FROM Singer", "select from where"):
        with pytest.raises(UnsafeStatementError):
            expand_sql(sql, singers.profile, "sqlite")
    assert singers.db.run('SELECT COUNT(*) FROM "Singer"').rows == [[3]]


def test_expand_takes_question_mappings(singers) -> None:
    extra = [Mapping("column", "Singer", "Name", "Singer", "Country")]
    (alternative,) = expand_sql('SELECT "Name" FROM "Singer" WHERE "Age" > 35', singers.profile, "sqlite", mappings=extra)
    assert sorted(singers.db.run(alternative.sql).rows) == [["Italy"], ["Spain"]]
    assert alternative.to_dict()["mappings"] == [{"kind": "column", "from": "singer.name", "to": "singer.country",
                                                  "inverse": False}]


# -- other engines -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("backend", ["postgresql", "mysql"])
def test_same_readings_and_answers_on_other_engines(servers, singers, backend: str) -> None:
    other = connect(create_singers(servers.create(backend)))
    for question in ("Show the name and country of every singer", "What is the average age of the singers?"):
        mine, theirs = _results(singers, question), _results(other, question)
        assert set(mine) == set(theirs), question
        for value in mine:
            assert [tuple(str(float(v)) if isinstance(v, (int, float)) or hasattr(v, "as_tuple") else v for v in row)
                    for row in mine[value]] == [
                tuple(str(float(v)) if isinstance(v, (int, float)) or hasattr(v, "as_tuple") else v for v in row)
                for row in theirs[value]], (question, value)
    dialect = other.dialect
    for alternative in expand_sql('SELECT "Name", "Country" FROM "Singer"', other.profile, dialect, read="postgres") + \
            expand_sql('SELECT MAX("Age") FROM "Singer"', other.profile, dialect, read="postgres"):
        sqlglot.parse_one(alternative.sql, read=dialect)
        result = other.db.run(alternative.sql)
        assert result.ok, (alternative.sql, result.error)


# -- the compare page's library function ------------------------------------------------------------------

def test_compare_statements_with_their_alternatives(singers) -> None:
    from checker_app.expansion import alternatives_for, with_alternatives
    from checker_app.ui.compare import Statement, compare, split_statements

    database = Database(parse_db_option(f"singers={singers.db.config.url}"), Limits())
    try:
        pasted = split_statements('-- model\nSELECT AVG(Age) FROM Singer;\n-- other\nSELECT ConcertName FROM Concert')
        statements = with_alternatives(pasted, database)
        assert [s.label for s in statements] == [
            "model", "model / precomputed AvgAge from SingerAge instead of AVG(Singer.Age)", "other"]
        assert all(isinstance(s, Statement) for s in statements)
        comparison = compare(statements[:2], [database])
        assert comparison.divergent is True and comparison.distinct == 2
        assert with_alternatives(pasted, database, limit=2) == pasted
        assert with_alternatives([Statement("bad", "DROP TABLE Singer")], database) == [Statement("bad", "DROP TABLE Singer")]
        (only,) = alternatives_for('SELECT "Country" FROM "Singer"', database, read="postgres")
        assert only.sql.startswith("SELECT") and '"SingerCountry"' in only.sql
    finally:
        database.dispose()
