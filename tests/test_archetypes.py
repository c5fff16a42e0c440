"""Archetypes on SQLite and offline: the registry and its docs, data-driven detection, reading values,
candidate SQL that runs, answers, the cap, bad input, an unseen schema, speed, no demo names in the source.

Cross-engine checks (PostgreSQL, MariaDB) are in test_archetypes_engines.py.
"""
from __future__ import annotations

import datetime as dt
import re
import sqlite3
from pathlib import Path

import pytest
import yaml

import archetypes
from adapters.errors import CheckerError, InputError
from archetypes import (
    ARCHETYPES,
    Clarification,
    Detection,
    Option,
    analyse,
    build_profile,
    calendar,
    detect,
    load_profile_overrides,
)
from archetypes.errors import ProfileOverrideError, UnknownAnswerError
from archetypes.naming import slug, words
from tests.support import Connected, connect

FIXTURES = Path(__file__).parent / "fixtures" / "archetypes"
PACKAGE = Path(archetypes.__file__).parent
SPEC_ORDER = ("ranking_metric", "timeframe", "insufficient_info", "custom_visualization", "entity", "timezone",
              "aggregation_level", "unit", "record_scope", "schema_mapping")


def parse_cases(name: str) -> list[list[str]]:
    rows = []
    for number, line in enumerate((FIXTURES / name).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = [p.strip() for p in line.split(" | ")]
        rows.append([f"{name}:{number}", *parts])
    return rows


# -- session data -------------------------------------------------------------------------------------

WAREHOUSE_SQL = """
CREATE TABLE Warehouse (WarehouseId INTEGER PRIMARY KEY, WarehouseName TEXT NOT NULL);
CREATE TABLE Sku (SkuId INTEGER PRIMARY KEY, Title TEXT NOT NULL);
CREATE TABLE Shipment (ShipmentId INTEGER PRIMARY KEY, WarehouseId INTEGER NOT NULL REFERENCES Warehouse(WarehouseId),
                       ShippedOn TIMESTAMP NOT NULL);
CREATE TABLE ShipmentLine (LineId INTEGER PRIMARY KEY, ShipmentId INTEGER NOT NULL REFERENCES Shipment(ShipmentId),
                           SkuId INTEGER NOT NULL REFERENCES Sku(SkuId), Qty INTEGER NOT NULL, Price NUMERIC NOT NULL);
"""


@pytest.fixture(scope="session")
def unseen(tmp_path_factory) -> Connected:
    """A schema nothing in the package was written for (PascalCase, 'Qty', 'Price', 'ShippedOn')."""
    path = tmp_path_factory.mktemp("unseen") / "warehouse.sqlite"
    conn = sqlite3.connect(path)
    conn.executescript(WAREHOUSE_SQL)
    conn.executemany("INSERT INTO Warehouse VALUES (?, ?)", [(1, "North Hub"), (2, "South Hub"), (3, "East Depot")])
    conn.executemany("INSERT INTO Sku VALUES (?, ?)", [(1, "Crate"), (2, "Pallet"), (3, "Label")])
    line = 0
    for shipment in range(1, 61):
        warehouse = 1 if shipment <= 30 else 2 if shipment <= 40 else 3
        conn.execute("INSERT INTO Shipment VALUES (?, ?, ?)",
                     (shipment, warehouse, f"2025-0{1 + shipment % 6}-{1 + shipment % 27:02d} 1{shipment % 10}:00:00"))
        # North Hub: most shipments; South Hub: a few big-ticket ones; East Depot: many cheap units
        lines = {1: [(1, 1, 20.0)], 2: [(2, 1, 900.0)], 3: [(3, 40, 0.5)]}[warehouse]
        for sku, qty, price in lines:
            line += 1
            conn.execute("INSERT INTO ShipmentLine VALUES (?, ?, ?, ?, ?)", (line, shipment, sku, qty, price))
    conn.commit()
    conn.close()
    return connect(f"sqlite:///{path}")


@pytest.fixture(scope="session")
def demo_sqlite(demo_urls) -> Connected:
    return connect(demo_urls["sqlite"])


@pytest.fixture(scope="session")
def chinook_sqlite(chinook_urls) -> Connected:
    return connect(chinook_urls["sqlite"])


@pytest.fixture(scope="session")
def northwind_sqlite(northwind_urls) -> Connected:
    return connect(northwind_urls["sqlite"])


@pytest.fixture(scope="session")
def connections(request) -> dict[str, Connected]:
    """Profiles by the db names of the fixture files, built lazily (only the ones a test needs)."""
    names = {"demo": "demo_sqlite", "chinook": "chinook_sqlite", "northwind": "northwind_sqlite", "any": "unseen"}

    class Lazy(dict):
        def __missing__(self, key: str) -> Connected:
            value = request.getfixturevalue(names[key])
            self[key] = value
            return value

    return Lazy()


# -- the registry and its documentation -------------------------------------------------------------

def test_registry_lists_every_archetype_once_in_order() -> None:
    ids = [a.id for a in ARCHETYPES]
    assert ids == list(SPEC_ORDER)
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("archetype", ARCHETYPES, ids=lambda a: a.id)
def test_every_archetype_is_documented(archetype) -> None:
    assert archetype.header.strip()
    for text in (archetype.when, archetype.ask, archetype.reason):
        assert isinstance(text, str) and len(text.strip()) > 10
    module = __import__(f"archetypes.{archetype.id}", fromlist=["ID"])
    assert (module.ID, module.WHEN, module.ASK, module.REASON) == (
        archetype.id, archetype.when, archetype.ask, archetype.reason)
    assert callable(archetype.detect)


def test_guardrails_text_covers_every_archetype() -> None:
    text = archetypes.guardrails()
    for archetype in ARCHETYPES:
        assert f"{archetype.id}:" in text and archetype.when in text and archetype.ask in text
    assert archetypes.BY_ID["unit"].id == "unit"


def test_package_never_names_the_demo_schema() -> None:
    from seed_db import build_metadata

    metadata = build_metadata()
    banned = {t.name for t in metadata.tables.values()}
    banned |= {c.name for t in metadata.tables.values() for c in t.columns if "_" in c.name}
    assert {"orders", "order_items", "products", "customers", "unit_price", "stores", "time_zone"} <= banned
    pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(sorted(map(re.escape, banned))) + r")(?![A-Za-z0-9_])",
                         re.IGNORECASE)
    found = [f"{path.name}:{n}: {m.group(0)}" for path in sorted(PACKAGE.rglob("*.py"))
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             for m in pattern.finditer(line)]
    assert not found, found


def test_package_imports_only_what_it_may() -> None:
    allowed = {"adapters", "archetypes", "sqlglot", "yaml", "rapidfuzz", "simplemma"}
    pattern = re.compile(r"^\s*(?:from|import)\s+([A-Za-z_][\w]*)", re.MULTILINE)
    import sys

    for path in PACKAGE.rglob("*.py"):
        for name in pattern.findall(path.read_text(encoding="utf-8")):
            assert name in allowed or name in sys.stdlib_module_names or name == "__future__", (path.name, name)
    source = "\n".join(p.read_text(encoding="utf-8") for p in PACKAGE.rglob("*.py"))
    for heavy in ("streamlit", "openai", "sqlalchemy"):
        assert heavy not in source.lower(), heavy


# -- data-driven detection ------------------------------------------------------------------------------

@pytest.mark.parametrize("where,db,question,expect", parse_cases("questions.txt"), ids=lambda v: str(v)[:60])
def test_question_fires_its_archetypes(connections, where: str, db: str, question: str, expect: str) -> None:
    connected = connections[db]
    fired = [d.archetype for d in detect(question, connected.profile, connected.lookup)]
    wanted = {t[1:] for t in expect.split() if t.startswith("+")}
    unwanted = {t[1:] for t in expect.split() if t.startswith("-")}
    if "*" in unwanted:
        unwanted = set(SPEC_ORDER) - wanted
    assert wanted <= set(SPEC_ORDER) and unwanted <= set(SPEC_ORDER), where
    assert wanted <= set(fired), f"{where}: {question!r} fired {fired}, wanted {sorted(wanted)}"
    assert not unwanted & set(fired), f"{where}: {question!r} fired {fired}, none of {sorted(unwanted)} may fire"


@pytest.mark.parametrize("where,db,question,archetype,values", parse_cases("readings.txt"), ids=lambda v: str(v)[:50])
def test_reading_values(connections, where: str, db: str, question: str, archetype: str, values: str) -> None:
    connected = connections[db]
    detection = next((d for d in detect(question, connected.profile, connected.lookup) if d.archetype == archetype),
                     None)
    assert detection is not None, f"{where}: {archetype} did not fire"
    assert [r.value for r in detection.readings] == [v.strip() for v in values.split(",")], where


def test_clear_question_gives_exactly_one_interpretation(demo_sqlite) -> None:
    for question, first in (("How many products are there?", None),
                            ("Top product by units in 2025 from completed orders", "USB-C Cable")):
        analysis = demo_sqlite.analyse(question)
        assert analysis.detections == [] and len(analysis.interpretations) == 1
        only = analysis.interpretations[0]
        assert only.id == "as_asked" and only.choices == {}
        rows = demo_sqlite.run(only).rows
        if first:
            assert rows[0][0] == first
            assert "'2025-01-01 00:00:00'" in only.sql("sqlite") and "'2026-01-01 00:00:00'" in only.sql("sqlite")
        else:
            assert rows == [[30]]


def test_every_candidate_runs_on_sqlite(demo_sqlite) -> None:
    questions = ["What is the top-selling product?", "Show me revenue for Acme", "How are sales trending?",
                 "Revenue by month", "What were sales yesterday?", "Total revenue in dollars",
                 "Build me an interactive sankey of customer journeys", "Show daily order counts for June 2025",
                 "Order count by week in 2025", "Which day of the week gets the most orders?",
                 "Revenue per currency by fiscal quarter", "How many customers are in Germany?"]
    for question in questions:
        analysis = demo_sqlite.analyse(question)
        assert analysis.interpretations, (question, analysis.notes)
        for interpretation in analysis.interpretations:
            demo_sqlite.run(interpretation)


def test_top_selling_product_readings(demo_sqlite) -> None:
    analysis = demo_sqlite.analyse("What is the top-selling product?", answers={"record_scope": "all"})
    assert [d.archetype for d in analysis.detections] == ["ranking_metric", "unit", "record_scope"]
    detection = analysis.detections[0]
    assert detection.evidence == "top-selling"
    assert analysis.question[slice(*detection.span)] == "top-selling"
    tops = {(i.choices["ranking_metric"], i.choices.get("unit")): demo_sqlite.run(i).rows[0][0]
            for i in analysis.interpretations}
    # the currency treatment matters only to the money reading; counts and units are in no currency
    assert tops == {("revenue", "converted_to_usd"): "MacBook Pro", ("revenue", "only_usd"): "MacBook Pro",
                    ("units", None): "USB-C Cable", ("orders", None): "Phone Case"}
    assert [i.id for i in analysis.interpretations] == [
        "ranking_metric=revenue|unit=converted_to_usd|record_scope=all", "ranking_metric=revenue|unit=only_usd|record_scope=all",
        "ranking_metric=units|record_scope=all", "ranking_metric=orders|record_scope=all"]
    assert all(i.explanation for i in analysis.interpretations)


def test_contract_shapes(demo_sqlite) -> None:
    analysis = demo_sqlite.analyse("Show me revenue for Acme")
    entity = next(d for d in analysis.detections if d.archetype == "entity")
    wire = entity.clarification.to_dict()
    assert set(wire) == {"type", "header", "question", "multiSelect", "options", "sql"}
    assert wire["type"] == "query_choice" and wire["multiSelect"] is False and "LIKE" in wire["sql"]
    assert all(set(o) == {"label", "value"} for o in wire["options"])
    assert set(entity.to_dict()) >= {"archetype", "evidence", "span", "when", "ask", "reason", "clarification",
                                     "readings"}
    unit = next(d for d in analysis.detections if d.archetype == "unit")
    assert unit.clarification.type == "choice" and unit.clarification.sql is None
    assert isinstance(unit.clarification, Clarification) and isinstance(unit.clarification.options[0], Option)
    assert isinstance(entity, Detection)
    assert analysis.to_dict()["as_of"] == "2025-06-30"


# -- answers, the cap, literals ------------------------------------------------------------------------

def test_answers_narrow_to_the_anchored_query(demo_sqlite) -> None:
    analysis = demo_sqlite.analyse("What is the top-selling product?",
                                   answers={"ranking_metric": "units", "record_scope": "all"})
    assert [i.id for i in analysis.interpretations] == ["ranking_metric=units|record_scope=all"]
    assert demo_sqlite.run(analysis.interpretations[0]).rows[0][0] == "USB-C Cable"
    both = demo_sqlite.analyse("Show me revenue for Acme", answers={"entity": "Acme Corp", "unit": "per_currency",
                                                                     "record_scope": "all"})
    assert [i.choices for i in both.interpretations] == [{"entity": "Acme Corp", "unit": "per_currency",
                                                          "record_scope": "all"}]
    assert "'Acme Corp'" in both.interpretations[0].sql("sqlite")


def test_unknown_answers_raise_a_checker_error(demo_sqlite) -> None:
    with pytest.raises(UnknownAnswerError) as err:
        demo_sqlite.analyse("What is the top-selling product?", answers={"ranking_metric": "profit"})
    assert isinstance(err.value, CheckerError) and "revenue" in str(err.value)
    with pytest.raises(UnknownAnswerError):
        demo_sqlite.analyse("What is the top-selling product?", answers={"timeframe": "last_7_days"})


def test_cap_limits_and_says_so(demo_sqlite) -> None:
    analysis = demo_sqlite.analyse("Show me revenue for Acme")
    assert analysis.total_readings == 24 and analysis.capped and len(analysis.interpretations) == 8
    assert sum("24" in note and "8" in note for note in analysis.notes) == 1  # said once
    small = demo_sqlite.analyse("Show me revenue for Acme", cap=3)
    assert len(small.interpretations) == 3 and small.capped
    whole = demo_sqlite.analyse("Show me revenue for Acme", cap=30)
    assert len(whole.interpretations) == 24 and not whole.capped
    assert len({i.id for i in whole.interpretations}) == 24
    # coverage first: within the cap every reading of every archetype appears at least once
    for archetype in ("entity", "unit", "record_scope"):
        shown = {i.choices[archetype] for i in analysis.interpretations}
        offered = {r.value for d in analysis.detections if d.archetype == archetype for r in d.readings}
        assert shown == offered, archetype
    # converting first: what an analyst reports a total in several currency codes as
    assert analysis.interpretations[0].choices == {"entity": "Acme Corp", "unit": "converted_to_usd",
                                                   "record_scope": "all"}


@pytest.mark.parametrize("value", ["O'Brien & Sons", "Acme'; DROP TABLE customers;--", "back\\slash 'quote' %_"])
def test_chosen_values_are_quoted_literals(demo_sqlite, value: str) -> None:
    analysis = demo_sqlite.analyse("Show me revenue for Acme", answers={"entity": value, "unit": "only_usd",
                                                                         "record_scope": "all"})
    (only,) = analysis.interpretations
    assert only.choices["entity"] == value
    rows = demo_sqlite.run(only).rows
    if value.startswith("O'Brien"):
        assert rows[0][0] > 0
    else:
        assert rows == [[0]]
    assert demo_sqlite.db.run("SELECT COUNT(*) FROM customers").rows[0][0] == 500


# -- bad input --------------------------------------------------------------------------------------------

def test_bad_input(demo_sqlite) -> None:
    profile = demo_sqlite.profile
    for text in ("", "   \n", "x" * 100_000):
        with pytest.raises(InputError):
            detect(text, profile)
    with pytest.raises(InputError):
        analyse(None, profile)  # type: ignore[arg-type]
    for text in ("🙂🙂🙂", "asdf qwerty zxcv", "?!?!", "Acme'; DROP TABLE customers;--",
                 "SELECT * FROM customers; DROP TABLE customers", "ñandú über ça"):
        analysis = demo_sqlite.analyse(text)
        assert analysis.detections or analysis.interpretations
        for interpretation in analysis.interpretations:
            demo_sqlite.run(interpretation)
    analysis = demo_sqlite.analyse("🙂🙂🙂")
    assert [d.archetype for d in analysis.detections] == ["insufficient_info"]
    assert analysis.interpretations == [] and analysis.notes
    long = demo_sqlite.analyse("What is the top-selling product? " + "please " * 2000)
    assert [d.archetype for d in long.detections] == ["ranking_metric", "unit", "record_scope"]


def test_no_fact_table_means_no_sql(tmp_path) -> None:
    path = tmp_path / "lonely.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE Note (NoteId INTEGER PRIMARY KEY, Body TEXT)")
    conn.commit()
    conn.close()
    connected = connect(f"sqlite:///{path}")
    analysis = connected.analyse("What is the top-selling product?")
    assert analysis.interpretations == [] and analysis.notes


# -- an unseen schema -----------------------------------------------------------------------------------

def test_unseen_schema_profile_and_readings(unseen) -> None:
    profile = unseen.profile
    assert set(profile.facts) == {"Shipment", "ShipmentLine"}
    assert [m.value for m in profile.facts["ShipmentLine"].measures] == ["revenue", "units", "shipments"]
    assert profile.path("ShipmentLine", "Warehouse") is not None
    analysis = unseen.analyse("Which warehouse is the best?")
    tops = {i.choices["ranking_metric"]: unseen.run(i).rows[0][0] for i in analysis.interpretations}
    assert tops == {"revenue": "South Hub", "units": "East Depot", "shipments": "North Hub"}


def test_profile_overrides(unseen, tmp_path) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(yaml.safe_dump({
        "synonyms": {"site": "Warehouse", "turnover": "revenue"},
        "business_time_zone": "Europe/Paris",
        "fiscal_year_start": 4,
        "as_of": "2025-06-30",
        "measures": [{"value": "net_revenue", "label": "Net revenue", "table": "ShipmentLine",
                      "expression": "Price * Qty * 0.8", "money": True}],
    }), encoding="utf-8")
    overrides = load_profile_overrides(path)
    profile = build_profile(unseen.schema, unseen.lookup, overrides)
    assert profile.business_time_zone == "Europe/Paris" and profile.as_of == dt.date(2025, 6, 30)
    readings = detect("Which site is the best?", profile)[0].readings
    assert [r.value for r in readings] == ["revenue", "net_revenue", "units", "shipments"]
    net = analyse("Which site is the best?", profile, answers={"ranking_metric": "net_revenue"}).interpretations[0]
    unseen.run(net)
    quarterly = analyse("Shipments by quarter", profile)
    assert [d.archetype for d in quarterly.detections] == ["aggregation_level"]
    for interpretation in quarterly.interpretations:
        unseen.run(interpretation)
    fiscal = next(i for i in quarterly.interpretations if i.choices["aggregation_level"] == "fiscal")
    assert "FY2024 Q4" in fiscal.sql("sqlite")
    # a measure declared with a word the built-in ones use ('revenue') is what that word means (a newcomer's
    # declaration of revenue was silently outranked by the line total)
    declared = tmp_path / "declared.yaml"
    declared.write_text(yaml.safe_dump({"measures": [{"value": "billed", "label": "Billed", "table": "ShipmentLine",
                                                      "expression": "Price * Qty * 0.8", "money": True,
                                                      "words": ["revenue", "money"]}]}), encoding="utf-8")
    billed = build_profile(unseen.schema, unseen.lookup, load_profile_overrides(declared))
    said = analyse("total revenue", billed).interpretations
    assert said and all("0.8" in i.sql("sqlite") for i in said), [i.sql("sqlite") for i in said]
    bad = tmp_path / "bad.yaml"
    bad.write_text("business_time_zone: Mars/Olympus\n", encoding="utf-8")
    with pytest.raises(ProfileOverrideError):
        build_profile(unseen.schema, None, load_profile_overrides(bad))
    with pytest.raises(ProfileOverrideError):
        load_profile_overrides(tmp_path / "missing.yaml")


# -- building blocks -------------------------------------------------------------------------------------

def test_naming_is_style_independent() -> None:
    assert words("InvoiceLine") == words("invoice_line") == words("invoiceLine") == ("invoice", "line")
    assert words("UnitPrice") == ("unit", "price") and words("HTTPStatus") == ("http", "status")
    assert slug("America/New_York") == "america_new_york" and slug("O'Brien & Sons") == "o_brien_sons"


def test_local_days_become_utc_literals() -> None:
    assert calendar.utc_instant(dt.date(2025, 6, 29), "America/New_York") == dt.datetime(2025, 6, 29, 4)
    assert calendar.utc_instant(dt.date(2025, 1, 15), "America/New_York") == dt.datetime(2025, 1, 15, 5)
    assert calendar.utc_instant(dt.date(2025, 6, 29), "Asia/Tokyo") == dt.datetime(2025, 6, 28, 15)
    assert calendar.utc_instant(dt.date(2025, 6, 29), "UTC") == dt.datetime(2025, 6, 29)
    window = calendar.preset_window("last_quarter", dt.date(2025, 6, 30))
    assert (window.start, window.end) == (dt.date(2025, 1, 1), dt.date(2025, 4, 1))
    weeks = calendar.periods("week_sunday", dt.date(2025, 1, 1), dt.date(2025, 1, 15))
    assert weeks[1].start == dt.date(2025, 1, 5) and weeks[1].start.isoweekday() == 7
    assert [p.label for p in calendar.periods("quarter", dt.date(2024, 11, 5), dt.date(2025, 2, 1))] == [
        "2024-Q4", "2025-Q1"]
