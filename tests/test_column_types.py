"""Column families from SQLAlchemy's type objects, on the real engines (tests/fixtures/column_types.txt).

Each engine's cases become one table in a database created for the test, read back by `introspect` (the
path every profile takes), so a case checks the engine's reflection and the classification together.
"""
from __future__ import annotations

import warnings
from pathlib import Path

import pytest
import sqlalchemy as sa

from adapters import introspect
from adapters.column_types import family_of_name
from archetypes import build_profile

FIXTURE = Path(__file__).parent / "fixtures" / "column_types.txt"


def _cases() -> list[tuple[str, str, str]]:
    found = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            engine, declared, family = (part.strip() for part in line.split("||"))
            found.append((engine, declared, family))
    return found


CASES = _cases()


def _families(url: str, declared: list[str]) -> dict[str, str]:
    """{declared type: family} of a table with one column per type, created at `url` and introspected."""
    engine = sa.create_engine(url)
    columns = ", ".join(f"c{i} {text}" for i, text in enumerate(declared))
    try:
        with engine.begin() as conn:
            conn.exec_driver_sql(f"CREATE TABLE typed (id INTEGER PRIMARY KEY, {columns})")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sa.exc.SAWarning)  # "did not recognize type 'point'": NullType
            schema = introspect(engine, dialect=engine.dialect.name)
    finally:
        engine.dispose()
    table = schema.table("typed")
    assert table is not None
    return {text: table.columns[i + 1].family for i, text in enumerate(declared)}


@pytest.mark.parametrize("backend", ["postgresql", "mysql", "sqlite"])
def test_reflected_columns_get_their_family(backend, servers):
    cases = [(declared, family) for engine, declared, family in CASES if engine == backend]
    assert len(cases) >= 10
    found = _families(servers.create(backend, prefix="ac_types"), [declared for declared, _ in cases])
    wrong = {declared: (found[declared], family) for declared, family in cases if found[declared] != family}
    assert not wrong, f"{backend}: declared type -> (found, expected): {wrong}"


@pytest.mark.parametrize(("declared", "family"), [(d, f) for e, d, f in CASES if e == "text"])
def test_type_names_get_their_family(declared, family):
    assert family_of_name(declared) == family


def test_durations_and_ranges_are_not_measures(servers):
    """The issue's case: on PostgreSQL an INTERVAL and an INT4RANGE column of a fact table were figures."""
    url = servers.create("postgresql", prefix="ac_types")
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE shop (id INTEGER PRIMARY KEY, name VARCHAR(20))")
        conn.exec_driver_sql("CREATE TABLE visit (id INTEGER PRIMARY KEY, shop_id INTEGER REFERENCES shop(id), "
                             "visited_at TIMESTAMPTZ, length INTERVAL, seats INT4RANGE, spot POINT, "
                             "amount NUMERIC(10, 2))")
        conn.exec_driver_sql("INSERT INTO shop VALUES (1, 'North')")
        conn.exec_driver_sql("INSERT INTO visit VALUES (1, 1, '2024-01-01 10:00+00', '1 hour', '[1,4)', "
                             "'(1,2)', 9.50)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", sa.exc.SAWarning)
        schema = introspect(engine, dialect="postgresql")
    engine.dispose()
    profile = build_profile(schema)
    measured = {column for measure in profile.facts["visit"].measures for column in measure.columns}
    assert "amount" in measured
    assert not measured & {"length", "seats", "spot"}, measured


def test_a_type_name_is_parsed_once_per_dialect() -> None:
    """The reading signature asks for every column's grain on every check: the parse is kept."""
    from adapters.column_types import _parse_type, has_zone, is_date_only

    text = "timestamp(3) with time zone"
    assert has_zone(text, "postgres") and not is_date_only(text, "postgres")
    before = _parse_type.cache_info()
    for _ in range(5):
        assert has_zone(text, "postgres") and not is_date_only(text, "postgres")
    after = _parse_type.cache_info()
    assert after.misses == before.misses and after.hits == before.hits + 10
