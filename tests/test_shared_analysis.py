"""One analysis for every engine whose profile reads the same (`archetypes.profile.signature`).

The pipeline analyses a question once and renders each reading per dialect for the other engines when
their profiles share the primary's signature. That is only right if analysing on each engine's own
profile (with its own lookups) builds the same statements: checked here on the real engines, for every
labelled and gold question of the demo, Chinook and history databases, reading by reading.
"""
from __future__ import annotations

from adapters import Database, Limits, parse_db_option
from archetypes.profile.signature import reading_signature
from checker_app.pipeline import CheckOptions, analyse_on, check
from checker_app.profiles import load_profile
from tests.support import BACKENDS, fixture_questions


def _connect(urls: dict[str, str], backends: tuple[str, ...] = BACKENDS) -> list[Database]:
    return [Database(parse_db_option(f"{b}={urls[b]}"), Limits(time_limit_s=20)) for b in backends]


def _same_statements(question: str, databases: list[Database]) -> None:
    """Each engine's own analysis builds, for every reading of the primary, the statement the primary's
    reading renders for that engine."""
    options = CheckOptions()
    primary = analyse_on(databases[0], question, options, None)
    for db in databases[1:]:
        own = {tuple(sorted(i.choices.items())): i for i in analyse_on(db, question, options, primary.as_of).interpretations}
        for reading in primary.interpretations:
            match = own.get(tuple(sorted(reading.choices.items())))
            assert match is not None, f"{db.name}: no reading {reading.label!r} for {question!r}"
            assert match.sql(db.dialect) == reading.sql(db.dialect), f"{db.name}: {reading.label!r} of {question!r}"


def _counted(monkeypatch) -> list[str]:
    """The engines `check` analyses a question on, in order (the pipeline's own function, counted)."""
    from checker_app import pipeline

    analysed: list[str] = []
    original = pipeline.analyse_on

    def counting(db, *args, **kwargs):
        analysed.append(db.name)
        return original(db, *args, **kwargs)

    monkeypatch.setattr(pipeline, "analyse_on", counting)
    return analysed


def test_the_engines_of_one_schema_share_a_signature(demo, history) -> None:
    for databases in (demo, history):
        signatures = {reading_signature(load_profile(db)) for db in databases}
        assert len(signatures) == 1, [db.name for db in databases]


def test_a_schema_spelled_differently_has_its_own_signature(chinook_urls) -> None:
    databases = _connect(chinook_urls, ("sqlite", "postgresql"))  # snake_case on PostgreSQL
    try:
        assert reading_signature(load_profile(databases[0])) != reading_signature(load_profile(databases[1]))
    finally:
        for db in databases:
            db.dispose()


def test_demo_questions_build_the_same_statements_on_every_engine(demo) -> None:
    for question in fixture_questions("labelled/demo.jsonl", "gold/demo.jsonl"):
        _same_statements(question, demo)


def test_history_questions_build_the_same_statements_on_every_engine(history) -> None:
    for question in fixture_questions("gold/history/history.jsonl"):
        _same_statements(question, history)


def test_engines_whose_samples_differ_are_analysed_each_on_its_own(northwind_urls, monkeypatch) -> None:
    """Northwind's SQLite and PostgreSQL builds are different editions (other customers, other flags), so
    their samples differ: the question is analysed on each engine, as it always was."""
    databases = _connect(northwind_urls, ("sqlite", "postgresql"))
    analysed = _counted(monkeypatch)
    try:
        assert reading_signature(load_profile(databases[0])) != reading_signature(load_profile(databases[1]))
        check("Which customer has the most orders?", databases)
        assert analysed == ["sqlite", "postgresql"]
    finally:
        for db in databases:
            db.dispose()


def test_mariadb_samples_names_byte_for_byte(chinook_urls, monkeypatch) -> None:
    """MariaDB's default collation takes 'Luis' and 'Luís' as one value; its samples are grouped byte for byte,
    so its profile of Chinook reads as SQLite's and the question is analysed once for both."""
    databases = _connect(chinook_urls, ("sqlite", "mysql"))
    analysed = _counted(monkeypatch)
    try:
        assert reading_signature(load_profile(databases[0])) == reading_signature(load_profile(databases[1]))
        check("Which artist has the most tracks?", databases)
        assert analysed == ["sqlite"]
    finally:
        for db in databases:
            db.dispose()


def test_a_check_analyses_once_for_engines_that_share_a_signature(demo, monkeypatch) -> None:
    analysed = _counted(monkeypatch)
    report = check("What is the top-selling product?", demo)
    assert analysed == [demo[0].name]
    assert all(set(r.sql) == {db.name for db in demo} for r in report.interpretations)
