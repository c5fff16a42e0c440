"""The checker page's logic without streamlit: configuration, highlighting, verdict words, exports, the
wizard state machine, the anchored re-check, compare-SQL, sidebar data and the serve command."""
from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from collections import Counter
from decimal import Decimal

import pytest
from click.testing import CliRunner

from adapters import Database, Limits, RunResult, parse_db_option
from checker_app import format as fmt
from checker_app import readout
from checker_app.answers import answer_of
from checker_app.clarify import MEMORY_HINT
from checker_app.pipeline import CheckOptions
from checker_app.report import EngineInfo, ReadingResult, Report
from checker_app.settings import serve_environment
from checker_app.ui import charts, config, display, exports, highlight
from checker_app.ui.compare import Statement, compare, split_statements
from checker_app.ui.progress import track_all
from checker_app.ui.sidebar import connection_health, schema_summary, where_of
from checker_app.ui.state import PageState, choose_reading, finish_wizard, reopen_wizard, run_check
from checker_app.ui.wizard import Wizard, fetch_options, options_from_rows, reading_values, steps_from_report
from tests.support import BACKENDS, dataset, detection

TOP_PRODUCTS = {"MacBook Pro", "USB-C Cable", "Phone Case"}
ACMES = {"Acme Corp", "Acme Industries", "ACME Logistics"}
DEAD_PG = "pg=postgresql+psycopg://u:s3cret@127.0.0.1:1/x"


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory) -> Database:
    from seed_db import seed_database

    url = f"sqlite:///{tmp_path_factory.mktemp('ui-demo') / 'demo.sqlite'}"
    seed_database(url, scale=1, seed=42)
    db = Database(parse_db_option(f"demo={url}"), Limits())
    yield db
    db.dispose()


@pytest.fixture(scope="module")
def dead_db() -> Database:
    db = Database(parse_db_option(DEAD_PG), Limits(time_limit_s=2))
    yield db
    db.dispose()


def _result(engine: str, columns: list[str], rows: list[list], status: str = "ok") -> RunResult:
    return RunResult(engine=engine, dialect="sqlite", sql="SELECT 1", status=status, columns=columns, rows=rows,
                     row_count=len(rows))


def _reading(rid: str, label: str, rows: list[list], column: str = "revenue") -> ReadingResult:
    reading = ReadingResult(id=rid, label=label, choices={"ranking_metric": rid},
                            sql={"demo": f"SELECT name, {column} FROM t"})
    reading.results = {"demo": _result("demo", ["product", column], rows)}
    return reading


def _report(readings: list[ReadingResult], archetypes: list[dict] | None = None, divergent: bool | None = True,
            answers: dict | None = None) -> Report:
    return Report(question="What is the top-selling product?", as_of=None,
                  engines=[EngineInfo(name="demo", backend="sqlite", dialect="sqlite", url="sqlite://")],
                  archetypes=[detection(a) for a in archetypes] if archetypes is not None else [detection({
                      "id": "ranking_metric", "evidence": "top-selling", "span": [12, 23],
                      "ask": "Rank by which metric?", "reason": "They name different winners."})],
                  interpretations=readings, divergent=divergent, distinct_answers=len(readings),
                  answers=answers or {})


# -- configuration --------------------------------------------------------------------------------

def test_checker_db_wins_then_secrets_then_demo() -> None:
    env = serve_environment(["a=sqlite:///a.db", "b=sqlite:///b.db"], 2.5, 50)
    loaded = config.load_config(env, {"connections": {"s": {"url": "sqlite:///s.db"}}})
    assert loaded.db_values == ("a=sqlite:///a.db", "b=sqlite:///b.db")
    assert (loaded.source, loaded.timeout_s, loaded.max_rows) == ("--db", 2.5, 50)
    assert loaded.limits == Limits(time_limit_s=2.5, row_cap=50)
    from_secrets = config.load_config({}, {"connections": {"s": {"url": "sqlite:///s.db"}}})
    assert (from_secrets.db_values, from_secrets.source) == (("s=sqlite:///s.db",), "secrets")
    demo = config.load_config({}, {})
    assert (demo.db_values, demo.source, demo.timeout_s, demo.max_rows) == ((), "demo", 5.0, 1000)
    # the demo command hands its engines over the same way; the sidebar must not say "from --db"
    seeded = config.load_config(serve_environment(["sqlite=sqlite:///a.db"], 5, 1000, "demo"), {})
    assert (seeded.db_values, seeded.source) == (("sqlite=sqlite:///a.db",), "demo command")


def test_a_profile_file_reaches_the_page_and_a_bad_one_stops_serve(tmp_path) -> None:
    """`serve --profile`: newcomers taught their words to `check` but the page never read them."""
    from click.testing import CliRunner

    from checker_app.cli import main

    good = tmp_path / "profile.yaml"
    good.write_text("synonyms:\n  dishes: menu_items\n")
    loaded = config.load_config(serve_environment(["a=sqlite:///a.db"], 5, 1000, profile=good), {})
    assert loaded.profile == str(good.resolve()) and loaded.db_values == ("a=sqlite:///a.db",)
    assert config.load_config(serve_environment(["a=sqlite:///a.db"], 5, 1000), {}).profile is None
    bad = tmp_path / "bad.yaml"
    bad.write_text("synonims:\n  dishes: menu_items\n")
    result = CliRunner().invoke(main, ["serve", "--profile", str(bad), "--db", "a=sqlite:///a.db"])
    assert result.exit_code != 0 and "synonims" in result.output and len(result.output.strip().splitlines()) == 1, \
        result.output


def test_secrets_accept_streamlit_connection_fields_and_report_bad_entries_without_secrets() -> None:
    secrets = {"connections": {
        "pg": {"dialect": "postgresql", "driver": "psycopg", "host": "db.example", "port": 5432,
               "username": "ana", "password": "hunter2", "database": "shop"},
        "bad": {"url": "not a url with hunter3"},
        "empty": {},
        "scalar": "x",
    }}
    values, problems = config.db_values_from_secrets(secrets)
    assert values == ["pg=postgresql+psycopg://ana:hunter2@db.example:5432/shop"]
    assert len(problems) == 3 and all("hunter" not in p for p in problems)
    assert any("connections.bad" in p for p in problems)


def test_bad_environment_is_reported_and_ignored() -> None:
    loaded = config.load_config({config.ENV_DB: "{not json", config.ENV_TIMEOUT: "soon", config.ENV_MAX_ROWS: "-3"})
    assert loaded.source == "demo" and loaded.timeout_s == 5.0 and loaded.max_rows == 1000
    assert len(loaded.problems) == 3


def test_passwords_are_found_and_redacted() -> None:
    values = ("pg=postgresql+psycopg://u:s3cret@127.0.0.1:1/x", "mysql://root@localhost/db", "sqlite:///a.db")
    assert config.passwords_of(values) == ["s3cret"]
    assert config.redact("could not connect as u:s3cret", ["s3cret"]) == "could not connect as u:***"


# -- highlighting ---------------------------------------------------------------------------------

def test_evidence_segments_and_escaping() -> None:
    question = "Top <b>customers</b> last month"
    archetypes = [{"id": "ranking_metric", "evidence": "Top", "span": [0, 3]},
                  {"id": "timeframe", "evidence": "last month", "span": [21, 31]},
                  {"id": "entity", "evidence": "customers", "span": [99, 120]}]  # bad span: found by text
    archetypes = [detection(a) for a in archetypes]
    segments = highlight.segments(question, archetypes)
    assert "".join(s.text for s in segments) == question
    marked = {s.text: s.archetypes for s in segments if s.archetypes}
    assert marked == {"Top": ("ranking_metric",), "customers": ("entity",), "last month": ("timeframe",)}
    html = highlight.highlighted_html(question, archetypes)
    assert "<b>" not in html and "&lt;b&gt;" in html
    assert html.count("<mark") == 3 and 'data-archetype="timeframe"' in html


def test_question_text_is_shown_as_typed_in_markdown() -> None:
    assert highlight.md("What's top_selling *now*? $5 :red[x]") == (
        "What's top\\_selling \\*now\\*? \\$5 \\:red\\[x\\]")


def test_overlapping_evidence_keeps_both_archetypes() -> None:
    segments = highlight.segments("top sales recently", [
        detection({"id": "a", "evidence": "top sales", "span": [0, 9]}),
        detection({"id": "b", "evidence": "sales recently", "span": [4, 18]})])
    assert [(s.text, s.archetypes) for s in segments] == [("top ", ("a",)), ("sales", ("a", "b")), (" recently", ("b",))]


# -- verdict words, top answers, chart, SQL per dialect ----------------------------------------------

def test_verdict_words_for_a_stakeholder() -> None:
    readings = [_reading("revenue", "Revenue", [["MacBook Pro", 9.5]]), _reading("units", "Units", [["USB-C Cable", 84]])]
    assert display.verdict_view(_report(readings)).headline == "2 readings, 2 different answers"
    benign = display.verdict_view(_report(readings, divergent=False))
    assert benign.kind == "benign" and benign.headline.startswith("ambiguous wording, same answer")
    assert display.verdict_view(_report(readings[:1], archetypes=[], divergent=None)).headline == "clear"
    anchored = display.verdict_view(_report(readings[:1], divergent=None, answers={"ranking_metric": "units"}))
    assert anchored.kind == "anchored" and "ranking metric: units" in anchored.detail


NUMBERS = [  # (value, page and CLI, CSV, as money)
    (11508, "11,508", "11508", "11,508.00"),
    (12252343.590000004, "12,252,343.59", "12252343.59", "12,252,343.59"),
    (15360815.010000004, "15,360,815.01", "15360815.01", "15,360,815.01"),
    (3.0, "3", "3", "3.00"),
    (2.5, "2.50", "2.50", "2.50"),
    (0.0123456, "0.0123", "0.0123", "0.01"),
    (-1234.5, "-1,234.50", "-1234.50", "-1,234.50"),
    (Decimal("8305.799999999997"), "8,305.80", "8305.80", "8,305.80"),
    (None, "", "", ""),
]


@pytest.mark.parametrize("value, shown, plain, money", NUMBERS)
def test_one_number_format(value, shown, plain, money) -> None:
    assert fmt.number(value) == shown
    assert fmt.number(value, plain=True) == plain
    assert fmt.number(value, money=True) == money


@pytest.mark.parametrize("value, shown", [(0.186, "18.6%"), (12.345, "1,234.5%"), (0.000423, "0.0423%"), (0, "0%"),
                                          (-0.5, "-50.0%"), (1, "100.0%")])
def test_a_relative_change_is_a_percentage_but_csv_keeps_the_fraction(value, shown) -> None:
    assert fmt.cell(value, "relative_change") == shown
    assert fmt.cell(value, "relative_change", plain=True) == fmt.number(value, plain=True)
    assert fmt.row_cells(["before", "relative_change"], [10, value], "USD")[1] == shown  # never money


def test_a_money_column_keeps_two_decimals_even_without_a_currency() -> None:
    # revenue mixed from five currencies has no currency to show, but 13,851.00 stands beside 3,741.63
    assert fmt.row_cells(["period", "revenue"], ["2025-06-29", 13851.0]) == ["2025-06-29", "13,851.00"]
    assert fmt.row_cells(["period", "revenue"], ["2025-06-29", 13851.0], plain=True)[1] == "13851.00"
    assert fmt.row_cells(["product", "units"], ["Cable", 11508]) == ["Cable", "11,508"]   # counts stay whole
    assert fmt.row_cells(["n"], [3.0]) == ["3"]


ANSWERS = [  # (columns, rows, choices, label, shape, answer text)
    (["product", "units"], [["USB-C Cable", 11508], ["Phone Case", 9000]], {}, "Units", "ranking",
     "USB-C Cable (units = 11,508)"),
    (["revenue"], [[8305.799999999997]], {"unit": "only_usd"}, "Only amounts recorded in USD", "scalar",
     "USD 8,305.80 (revenue)"),
    (["count"], [[30]], {}, "As asked", "scalar", "30 (count)"),
    (["currency", "revenue"], [["EUR", 2881.11], ["GBP", 12059.820000000002]], {"unit": "per_currency"},
     "One total per currency (EUR, GBP)", "breakdown", "EUR 2,881.11 · GBP 12,059.82 (revenue)"),
    (["period", "revenue"], [["2024-W01", 10.0], ["2024-W02", 30.5], ["2024-W03", 20.0]], {}, "Last 3 weeks",
     "series", "2024-W01 to 2024-W03 (3 periods): revenue total 60.50, peak 30.50 on 2024-W02"),
    (["period", "revenue"], [["1 Monday", 5.0], ["5 Friday", 431286.42], ["6 Saturday", 9.0]], {}, "UTC days",
     "breakdown", "Friday (largest of 3 days: revenue = 431,286.42)"),
    (["product", "revenue"], [], {}, "Revenue", "empty", "no rows"),
    # a row of numbers names each one: '10, 621' reads as ten thousand six hundred twenty-one
    (["hour", "views"], [[10, 621], [14, 600]], {}, "Hour of the day", "ranking",
     "hour = 10, views = 621 (first of 2 rows)"),
    # a peak shared by several periods names them all; a rate per period is never totalled, empty ones are said
    (["period", "invoices"], [["2021", 83], ["2022", 83], ["2023", 80]], {}, "As asked", "series",
     "2021 to 2023 (3 periods): invoices total 246, peak 83 shared by 2 periods (2021, 2022)"),
    (["period", "part", "total", "share"], [["2025-01", 1, 10, 0.1], ["2025-02", 3, 10, 0.3], ["2025-03", 0, 0, None]],
     {}, "Calendar months", "series", "2025-01 to 2025-03 (3 periods): share peak 0.3 on 2025-02, lowest 0.1 on "
     "2025-01 (1 empty)"),
    # rows listed with the dates they held from and to are no series (was '2 series (2018-03-31, ...)')
    (["price", "valid_from", "valid_to"], [[499.0, "2016-01-01", "2018-03-31"], [548.9, "2018-04-01", "2020-06-30"]],
     {}, "As asked", "ranking", "2016-01-01 / 2018-03-31 (price = 499.00)"),
    # a row known by its key: the key names it with its owners, the figure is what it measures
    (["order_id", "customer", "store", "revenue"], [[5676, "Umar Watanabe", "London", 4574.97]], {}, "Revenue",
     "ranking", "5676 / Umar Watanabe / London (revenue = 4,574.97)"),
]


@pytest.mark.parametrize("columns, rows, choices, label, shape, text", ANSWERS)
def test_the_answer_of_a_reading_is_said_by_its_shape(columns, rows, choices, label, shape, text) -> None:
    reading = ReadingResult(id="r", label=label, choices=choices)
    reading.results = {"demo": _result("demo", columns, rows)}
    answer = readout.reading_answer(reading)
    assert (answer.shape, answer.text) == (shape, text)
    assert readout.top_answer(reading) == text


TIED = [  # (columns, rows, the statement's LIMIT or None, the answer): the top shared by several rows
    (["track", "revenue"], [["Gay Witch Hunt", 3.98], ["Hot Girl", 3.98], ["Lost", 3.98], ["Walkabout", 3.98],
                            ["Zoo", 1.99]], 10, "tied: 4 rows share revenue = 3.98 (Gay Witch Hunt, Hot Girl, Lost, …)"),
    # every row returned ties and the LIMIT stopped them: more may share it
    (["track", "units"], [["A Cor Do Sol", 2], ["A Melhor Forma", 2], ["A Novidade", 2]], 3,
     "tied: at least 3 rows share units = 2 (A Cor Do Sol, A Melhor Forma, A Novidade, …)"),
    (["track", "units"], [["A", 2], ["B", 2]], None, "tied: 2 rows share units = 2 (A, B)"),  # no LIMIT: all of them
    # listed by name: the largest figure, shared
    (["category", "revenue"], [["Accessories", 90.0], ["Audio", 20.0], ["Cables", 90.0]], None,
     "tied: 2 of 3 rows share revenue = 90.00 (Accessories, Cables)"),
    (["track", "units"], [["A", 3], ["B", 2], ["C", 2]], 3, "A (units = 3)"),  # a tie below the top is no tie
]


@pytest.mark.parametrize("columns, rows, limit, text", TIED)
def test_a_tie_at_the_top_is_said_as_a_tie(columns, rows, limit, text) -> None:
    sql = f"SELECT a, b FROM t ORDER BY b DESC{f' LIMIT {limit}' if limit else ''}"
    result = RunResult(engine="demo", dialect="sqlite", sql=sql, status="ok", columns=columns, rows=rows,
                       row_count=len(rows))
    assert answer_of(result).text == text


def test_rows_listed_by_name_are_a_list_not_a_ranking() -> None:
    # two priced rows listed by name happen to be in price order: the first is no winner
    sql = 'SELECT "t0"."name" AS "product", "t0"."list_price" AS "list_price" FROM "products" AS "t0" ORDER BY "t0"."name"'
    result = RunResult(engine="demo", dialect="sqlite", sql=sql, status="ok", columns=["product", "list_price"],
                       rows=[["4K Monitor", 399.99], ["Studio Display", 1599.0]], row_count=2)
    assert answer_of(result).text == "4K Monitor 399.99 · Studio Display 1,599.00 (2 rows, listed by name)"
    ranked = RunResult(engine="demo", dialect="sqlite", sql=sql.replace('ORDER BY "t0"."name"', 'ORDER BY "list_price"'),
                       status="ok", columns=result.columns, rows=result.rows, row_count=2)
    assert answer_of(ranked).text == "4K Monitor (list_price = 399.99)"  # ordered by its figure: a ranking


def test_the_groups_passing_a_condition_are_the_answer_not_the_first_of_them() -> None:
    """'which customers ordered more than 20 times' was answered 'ACME Logistics (orders = 35)': one customer of
    seven, shown as if it were the answer."""
    sql = ('SELECT c.name AS "customer", COUNT(*) AS "orders" FROM orders o JOIN customers c ON c.id = o.customer_id '
           'GROUP BY c.id, c.name HAVING COUNT(*) > 20 ORDER BY "orders" DESC')
    rows = [["ACME Logistics", 35], ["O'Brien & Sons", 27], ["Elena Lewis", 25], ["Acme Industries", 23]]
    result = RunResult(engine="demo", dialect="sqlite", sql=sql, status="ok", columns=["customer", "orders"],
                       rows=rows, row_count=len(rows))
    assert answer_of(result).text == "ACME Logistics 35 · O'Brien & Sons 27 · Elena Lewis 25 · 1 more " \
        "(4 rows pass the condition)"
    top = RunResult(engine="demo", dialect="sqlite", sql=sql + " LIMIT 1", status="ok", columns=result.columns,
                    rows=rows[:1], row_count=1)
    assert answer_of(top).text == "ACME Logistics (orders = 35)"  # the top one of them, asked: a ranking


def test_a_reading_that_did_not_answer_says_so() -> None:
    failed = ReadingResult(id="x", label="X", choices={})
    failed.results = {"demo": _result("demo", [], [], status="error")}
    assert readout.top_answer(failed) == "no answer" and charts.chart_spec([failed]) is None


def _series(rid: str, label: str, buckets: list[str], column: str = "revenue") -> ReadingResult:
    reading = ReadingResult(id=rid, label=label, choices={})
    reading.results = {"demo": _result("demo", ["period", column], [[b, float(i + 1)] for i, b in enumerate(buckets)])}
    return reading


def test_series_of_days_weeks_and_months_get_a_panel_each() -> None:
    days = _reading("d", "Last 7 days", [[f"2025-06-{d:02d}", 100.0 * d] for d in range(24, 31)], "revenue")
    weeks = _reading("w", "Last 90 days", [[f"2025-W{w:02d}", 1000.0 * w] for w in range(14, 28)], "revenue")
    months = _reading("m", "All time", [[f"2024-{m:02d}", 100000.0 * m] for m in range(1, 13)], "revenue")
    for reading in (days, weeks, months):
        reading.results["demo"].columns = ["period", "revenue"]
    spec = charts.chart_spec([days, weeks, months])
    assert spec.kind == "line" and spec.grains == ["per day", "per week", "per month"]
    assert {r["grain"] for r in spec.rows if r["reading"].startswith("Last 7")} == {"per day"}
    assert charts.chart_spec([days]).grains == []   # one bucket size: one panel


def test_a_series_is_one_line_per_reading_over_its_whole_range() -> None:
    days = [f"2025-06-{d:02d}" for d in range(1, 31)]
    months = [f"2025-{m:02d}" for m in range(1, 7)]
    spec = charts.chart_spec([_series("a", "Last 30 days", days), _series("b", "Year to date", months)])
    assert spec.kind == "line" and spec.temporal
    assert Counter(r["reading"] for r in spec.rows) == {"Last 30 days": 30, "Year to date": 6}
    assert {r["x"] for r in spec.rows} >= {"2025-06-30", "2025-01-01"}


def test_scalars_are_bars_and_rankings_the_top_n_of_each_reading() -> None:
    scalars = [ReadingResult(id=str(i), label=f"Acme {i} (customer) / Only amounts recorded in USD",
                             choices={"unit": "only_usd"}) for i in range(3)]
    for i, reading in enumerate(scalars):
        reading.results = {"demo": _result("demo", ["revenue"], [[100.0 * (i + 1)]])}
    spec = charts.chart_spec(scalars)
    assert spec.kind == "bar" and [r["value"] for r in spec.rows] == [100.0, 200.0, 300.0]
    assert [r["reading"] for r in spec.rows] == ["Acme 0 (customer)", "Acme 1 (customer)", "Acme 2 (customer)"]
    assert spec.rows[0]["label"] == "USD 100.00"
    rows = [[f"p{i}", 100 - i] for i in range(9)]
    rankings = [_reading("revenue", "Revenue", rows), _reading("units", "Units", rows, "units")]
    spec = charts.chart_spec(rankings, top_n=5)
    assert spec.kind == "ranking" and Counter(r["reading"] for r in spec.rows) == {"Revenue": 5, "Units": 5}


def test_a_rate_per_month_charts_the_share_not_the_count_it_divides() -> None:
    """Found on the page: 'cancellation rate by month for 2025' charted `part` (the cancellations), not the rate."""
    reading = ReadingResult(id="m", label="Calendar months", choices={})
    reading.results = {"demo": _result("demo", ["period", "part", "total", "share", "percent"],
                                       [["2025-01", 20, 292, 0.0685, 6.85], ["2025-02", 26, 285, 0.0912, 9.12],
                                        ["2025-03", 0, 0, None, None]])}
    spec = charts.chart_spec([reading])
    assert spec.kind == "line" and spec.y_title == "share"
    assert [r["value"] for r in spec.rows] == [0.0685, 0.0912, None]
    assert {r["reading"] for r in spec.rows} == {"Calendar months"}  # the other figures are not series groups


def test_two_named_rows_are_no_top_5_and_a_top_n_per_group_is_not_ranked_across_groups() -> None:
    pair = [_reading("revenue", "Revenue", [["Berlin", 60.0], ["London", 80.0]]),
            _reading("units", "Units", [["Berlin", 6], ["London", 8]], "units")]
    spec = charts.chart_spec(pair)
    assert spec.kind == "ranking" and spec.title == "Each reading's rows (share of that reading's largest)"
    per_group = []
    for rid in ("all", "completed"):
        reading = ReadingResult(id=rid, label=rid, choices={"record_scope": rid})
        reading.results = {"demo": _result("demo", ["category", "product", "units", "rank_in_group", "tied_in_group"],
                                           [["Audio", "AirPods", 749, 1, 1], ["Audio", "AirPods Pro", 572, 2, 1],
                                            ["Tablets", "iPad mini", 185, 1, 1]])}
        per_group.append(reading)
    assert charts.chart_spec(per_group) is None


def test_legend_names_are_short_and_distinct() -> None:
    long = "Standard chart (table, bar or line) of the same data"
    labels = [f"{long} / Days in America/New_York (business time zone)", f"{long} / Days in America/New_York (x)",
              f"{long} / UTC days"]
    readings = [ReadingResult(id=str(i), label=label, choices={}) for i, label in enumerate(labels)]
    names = charts.short_labels(readings)
    assert len(set(names)) == 3 and all(len(n) <= 60 for n in names) and not any("Standard chart" in n for n in names)
    assert len(set(charts.short_labels(readings, limit=12))) == 3  # cut names that collide get their number
    tabs = [ReadingResult(id=str(i), label=f"Revenue (unit price x quantity) / {scope}", choices={})
            for i, scope in enumerate(["Only amounts recorded in USD / Every order", "Only amounts recorded in USD / "
                                       "Only completed orders", "Every currency converted to USD"])]
    names = charts.short_labels(tabs, limit=48, numbered=False)
    assert names[0] == "Only amounts recorded in USD / Every order"  # what all share goes
    mixed = [ReadingResult(id="u", label="Units (sum of quantity) / Every order, whatever its status", choices={}),
             *tabs]
    assert charts.short_labels(mixed, limit=48, numbered=False)[0] == "Units / Every order, whatever its status"
    assert not any(n[:1].isdigit() for n in names)   # tabs carry their own number: never "1. 1. Revenue"
    acme = [ReadingResult(id=str(i), label=f"Acme Corp (customer) / Every currency converted to USD at the rate of "
                          f"the day (exchange_rates) / {scope}", choices={})
            for i, scope in enumerate(["Every order, whatever its status", "Only completed orders"])]
    names = charts.short_labels(acme)   # the parts differ only at the end: each part is cut, not the name
    assert len(set(names)) == 2 and not any(n[:1].isdigit() for n in names) and all(len(n) <= 56 for n in names)


def test_long_calendars_are_folded_out_of_the_sql() -> None:
    rows = " UNION ALL ".join(f"SELECT '2025-06-{d:02d}' AS period, {d} AS period_index" for d in range(1, 31))
    sql = f"WITH periods AS ({rows}) SELECT p.period FROM periods AS p ORDER BY p.period_index"
    folded = display.fold_sql(sql, "sqlite")
    assert folded.text.count("UNION") == 0 and "29 more rows" in folded.text and folded.text.count("\n") < 20
    name, columns, calendar = folded.calendars[0]
    assert (name, columns, len(calendar)) == ("periods", ["period", "period_index"], 30)
    assert calendar[-1] == ["2025-06-30", "30"]
    short = display.fold_sql("SELECT a FROM t", "sqlite")
    assert short.calendars == [] and short.text == "SELECT\n  a\nFROM t"


def _case_tree(lo: int, hi: int) -> str:
    """The bucket search a series builds: CASE WHEN t < boundary THEN <lower half> ELSE <upper half> END."""
    if lo == hi:
        return str(lo)
    mid = (lo + hi + 1) // 2
    return f"CASE WHEN o.ordered_at < '2025-06-{mid + 1:02d}' THEN {_case_tree(lo, mid - 1)} ELSE {_case_tree(mid, hi)} END"


@pytest.mark.parametrize("dialect", ["sqlite", "postgres", "mysql"])
def test_a_long_case_tree_is_folded_to_its_first_bucket(dialect) -> None:
    sql = f"SELECT {_case_tree(0, 29)} AS period_index, COUNT(*) AS n FROM orders AS o GROUP BY 1"
    folded = display.fold_sql(sql, dialect)
    assert folded.text.count("WHEN") == 1 and "28 more buckets" in folded.text and folded.text.count("\n") < 15
    case = folded.cases[0]
    assert (case.name, len(case.rows), case.columns) == ("period_index", 30, ["value", "from", "before"])
    assert case.rows[0] == ["0", "", "2025-06-02"] and case.rows[-1] == ["29", "2025-06-30", ""]
    assert [int(r[0]) for r in case.rows] == list(range(30))   # in order: each WHEN's branch lies below it
    short = display.fold_sql(f"SELECT {_case_tree(0, 3)} AS p FROM orders AS o", dialect)
    assert short.cases == [] and short.text.count("WHEN") == 3   # a short CASE stays as it is
    other = display.fold_sql("SELECT CASE WHEN a = 1 THEN 'x' WHEN a = 2 THEN 'y' WHEN a = 3 THEN 'z' WHEN a = 4 "
                             "THEN 'w' WHEN a = 5 THEN 'v' ELSE 'u' END AS c FROM t", dialect)
    assert other.cases == [] and other.text.count("WHEN") == 5   # not a search over one expression


def test_engines_that_differ_only_beyond_the_shown_precision_are_not_a_disagreement() -> None:
    reading = _reading("revenue", "Revenue", [["Laptops", 15360815.010000004]])
    reading.results["pg"] = _result("pg", ["product", "revenue"], [["Laptops", 15360815.01]])
    reading.engines_agree = False
    assert display.engine_disagreement(reading) == []


def test_engines_disagreeing_on_one_reading_are_named() -> None:
    reading = _reading("revenue", "Revenue", [["MacBook Pro", 1]])
    reading.results["pg"] = _result("pg", ["product", "revenue"], [["iPhone", 1]])
    reading.engines_agree = False
    assert display.engine_disagreement(reading) == [("demo", "MacBook Pro (revenue = 1.00)"), ("pg", "iPhone (revenue = 1.00)")]
    assert display.engines_to_show(reading, ["demo", "pg", "down"]) == (["demo", "pg"], [])
    reading.engines_agree = True
    assert display.engine_disagreement(reading) == []
    reading.results["my"] = _result("my", ["product", "revenue"], [], status="error")
    assert display.engines_to_show(reading, ["demo", "pg", "my", "down"]) == (["demo", "my"], ["pg"])


def test_sql_dialect_switch_uses_the_engines_own_sql_or_transpiles() -> None:
    reading = ReadingResult(id="r", label="R", choices={}, sql={"demo": 'SELECT "name" FROM "t" LIMIT 1'})
    engines = [EngineInfo(name="demo", backend="sqlite", dialect="sqlite", url="sqlite://")]
    sql, origin = display.sql_in_dialect(reading, engines, "sqlite")
    assert origin == "as run on demo" and '"name"' in sql
    mysql, origin = display.sql_in_dialect(reading, engines, "mysql")
    assert origin == "transpiled from demo" and "`name`" in mysql


def test_repairs_are_described() -> None:
    result = _result("demo", ["id"], [[1]])
    result.repairs = [{"rule": "qualify_ambiguous_column", "column": "id", "error": "ambiguous column name: id",
                       "sql": "SELECT o.id FROM o JOIN c ON 1=1", "candidates": []},
                      {"rule": "qualify_ambiguous_column", "column": "id", "sql": None, "agree": False,
                       "candidates": [{"label": "o.id"}, {"label": "c.id"}]}]
    lines = display.repair_lines(result)
    assert "ran the repaired SQL" in lines[0] and "“id”" in lines[0] and "{" not in lines[0]
    assert "2 candidates, the candidates give different answers: choose one" in lines[1]


# -- exports ----------------------------------------------------------------------------------------

def test_markdown_summary_csv_and_json() -> None:
    readings = [_reading("revenue", "Revenue | gross", [["MacBook Pro", 1.5]]), _reading("units", "Units", [["Cable", 2]])]
    report = _report(readings)
    markdown = exports.markdown_summary(report, {"answers": [], "memoryHint": MEMORY_HINT})
    assert "**Verdict:** 2 readings, 2 different answers" in markdown
    assert "Revenue \\| gross" in markdown and "MacBook Pro (revenue = 1.50)" in markdown
    assert "**ranking_metric**" in markdown and "memoryHint" in markdown and "```sql" in markdown
    # the tool output and each SQL are collapsed blocks, opened on a click
    tool = markdown.split("## Clarification answers", 1)[1]
    assert tool.lstrip().startswith("<details><summary>Tool output") and "memoryHint" in tool.split("</details>")[0]
    assert markdown.count("<details><summary>SQL (demo)</summary>") == 2
    assert "SELECT\n  name,\n  revenue\nFROM t" in markdown   # pretty-printed
    report.notes = ["a note", "a note", "12 readings; showing 8, at least one for every value"]
    report.capped, report.total_readings = True, 12
    once = exports.markdown_summary(report)
    assert once.count("a note") == 1 and once.count("showing 8") + once.count("Showing 2 of 12") == 1
    rows = list(csv.reader(io.StringIO(exports.result_csv(_result("demo", ["a", "b"], [["x,y", None]])))))
    assert rows == [["a", "b"], ["x,y", ""]]
    money = exports.result_csv(_result("demo", ["n", "revenue"], [[11508, 12252343.590000004]]), "USD")
    assert money.splitlines()[1] == "11508,12252343.59"
    assert json.loads(exports.report_json(report))["verdict"] == "material"
    assert exports.slug("What is the top-selling product?") == "what-is-the-top-selling-product"


# -- the wizard -----------------------------------------------------------------------------------

RANKING = {"id": "ranking_metric", "evidence": "top-selling", "span": [12, 23], "ask": "Rank by which metric?",
           "reason": "r", "clarification": {
               "type": "choice", "header": "Metric", "question": "Rank products by which metric?",
               "multiSelect": False, "options": [{"label": "Revenue", "value": "revenue"},
                                                 {"label": "Units", "value": "units"}], "sql": None},
           "readings": [{"value": "revenue", "label": "Revenue"}, {"value": "units", "label": "Units"}]}
ENTITY = {"id": "entity", "evidence": "Acme", "span": [20, 24], "ask": "Which one?", "reason": "r",
          "clarification": {"type": "query_choice", "header": "Which one", "question": "Which 'Acme' do you mean?",
                            "options": [{"label": "All matches combined", "value": "all_matches"}],
                            "sql": "SELECT DISTINCT name FROM customers WHERE LOWER(name) LIKE '%acme%' ORDER BY name"},
          "readings": [{"value": "Acme Corp", "label": "Acme Corp"}]}
RANKING_D, ENTITY_D = detection(RANKING), detection(ENTITY)


def test_steps_and_reading_values_come_from_the_report() -> None:
    steps = steps_from_report([RANKING_D, ENTITY_D, detection({"id": "x"})])
    assert [s["archetype"] for s in steps] == ["ranking_metric", "entity"] and "sql" not in steps[0]
    assert reading_values([RANKING_D, ENTITY_D]) == {"ranking_metric": {"revenue", "units"}}  # entity takes any text


def test_wizard_refuses_empty_and_other_without_text_then_records_a_choice() -> None:
    wizard = Wizard.from_archetypes([RANKING_D])
    assert wizard.pending and wizard.total == 1
    assert not wizard.submit([]) and wizard.error == "choose an option or type an answer" and wizard.pending
    assert not wizard.submit(["Other"], other_text="  ") and wizard.error == '"Other" needs some text'
    assert not wizard.submit(["Nope"]) and "not an option" in wizard.error
    assert wizard.submit(["Units"])
    assert wizard.status == "done" and wizard.error is None
    assert wizard.output() == {"answers": [{"type": "choice", "question": "Rank products by which metric?",
                                            "choice": {"label": "Units", "value": "units"}}]}
    assert wizard.anchored([RANKING_D]) == ({"ranking_metric": "units"}, [])


def test_other_text_and_notes_bring_the_memory_hint_and_stay_plain_when_no_reading_matches() -> None:
    wizard = Wizard.from_archetypes([RANKING_D])
    assert wizard.submit(["Other"], other_text="gross margin", notes="we always mean margin")
    output = wizard.output()
    assert output["memoryHint"] == MEMORY_HINT
    assert output["answers"][0]["freeText"] == "gross margin"
    assert wizard.anchored([RANKING_D]) == ({}, ["ranking_metric: gross margin"])
    noted = Wizard.from_archetypes([RANKING_D])
    assert noted.submit(["Revenue"], notes="net of refunds")
    assert "memoryHint" in noted.output() and noted.anchored([RANKING_D])[0] == {"ranking_metric": "revenue"}


def test_skip_dismiss_and_malformed_steps_never_dead_end() -> None:
    malformed = {"type": "choice", "question": "", "options": [], "archetype": "timeframe"}  # as a model may ask
    wizard = Wizard([malformed, *steps_from_report([RANKING_D])])
    with pytest.raises(Exception, match="malformed clarification"):
        wizard.question()
    assert not wizard.submit_plain("  ") and wizard.error == "type an answer"
    assert wizard.submit_plain("the last 90 days", notes="") and wizard.index == 1 and wizard.pending
    wizard.skip_step()
    assert wizard.status == "done" and wizard.skipped == ["ranking_metric"]
    assert wizard.output()["answers"][0]["freeText"] == "the last 90 days" and "memoryHint" in wizard.output()
    other = Wizard.from_archetypes([RANKING_D])
    other.dismiss()
    assert not other.pending and other.status == "dismissed" and not other.submit(["Units"])


def test_query_choice_options_are_fetched_live(demo_db) -> None:
    wizard = Wizard.from_archetypes([ENTITY_D])
    assert wizard.needs_fetch()
    fetch = wizard.load_options([demo_db])
    assert fetch.status == "ok" and fetch.engine == "demo"
    labels = [o.label for o in wizard.question().options]
    assert ACMES <= set(labels) and labels[-1] == "All matches combined"  # the question's own extra kept last
    assert not wizard.needs_fetch()
    assert wizard.submit(["Acme Corp"])
    assert wizard.anchored([ENTITY_D]) == ({"entity": "Acme Corp"}, [])


def test_live_rows_become_options() -> None:
    def labels(columns, rows):
        return [(o.label, o.value) for o in options_from_rows(columns, rows)]

    assert labels(["key", "name"], [[7, "Acme Corp"], [9, "Acme Corp"], [3, "ACME Logistics"], [4, None]]) == [
        ("Acme Corp [7]", "Acme Corp [7]"), ("Acme Corp [9]", "Acme Corp [9]"), ("ACME Logistics", "ACME Logistics")]
    assert labels(["label", "value"], [["United States", "US"]]) == [("United States", "US")]
    assert labels(["country"], [["France"], ["France"], [""]]) == [("France", "France")]
    assert labels(["id", "title"], [[1, "Intro"]]) == [("Intro", "Intro")]


def test_query_choice_failure_is_not_the_same_as_no_rows(demo_db, dead_db) -> None:
    empty = fetch_options("SELECT name FROM customers WHERE 1 = 0", [demo_db])
    assert empty.status == "empty" and "returned no rows" in empty.message
    failed = fetch_options("SELECT nope FROM missing_table", [demo_db])
    assert failed.status == "failed" and "failed" in failed.message and "missing_table" in failed.message
    # a dead engine is skipped for the next one; with only dead engines it fails without the password
    assert fetch_options("SELECT name FROM customers LIMIT 2", [dead_db, demo_db]).status == "ok"
    down = fetch_options("SELECT 1", [dead_db], secrets=["s3cret"])
    assert down.status == "failed" and "s3cret" not in down.message
    wizard = Wizard.from_archetypes([detection({**ENTITY, "clarification": {**ENTITY["clarification"],
                                                                            "sql": "SELECT x FROM y"}})])
    assert wizard.load_options([demo_db]).status == "failed"
    assert [o.label for o in wizard.question().options] == []  # only "Other" is left ...
    assert wizard.submit(["Other"], other_text="Acme Corp")    # ... and it still anchors
    assert wizard.anchored([ENTITY_D])[0] == {"entity": "Acme Corp"}
    wizard.retry()


# -- the page state machine and the anchored re-check ------------------------------------------------

def test_question_to_pending_wizard_to_anchored_sql(demo_db) -> None:
    state = PageState()
    run_check(state, "What is the top-selling product?", [demo_db], CheckOptions())
    assert state.problem is None and state.report is not None
    assert {str(r.top_row()[0]) for r in state.report.interpretations} == TOP_PRODUCTS
    assert state.wizard_pending
    assert state.wizard.submit([state.wizard.question().options[1].label])  # units
    while state.wizard.pending:  # then the currency treatment and which orders count: the first offered
        assert state.wizard.submit([state.wizard.question().options[0].label])
    finish_wizard(state, [demo_db], CheckOptions())
    assert not state.wizard_pending
    assert state.anchored is not None and len(state.anchored.interpretations) == 1
    assert str(state.anchored.interpretations[0].top_row()[0]) == "USB-C Cable"
    assert display.verdict_view(state.anchored).kind == "anchored"
    assert "memoryHint" not in state.tool_output
    reopen_wizard(state)
    assert state.wizard_pending and state.anchored is None


def test_entity_answer_is_a_quoted_literal_in_the_anchored_sql(demo_db) -> None:
    state = PageState()
    run_check(state, "Show me revenue for Acme", [demo_db], CheckOptions())
    assert state.wizard_pending
    while state.wizard.pending:
        if state.wizard.needs_fetch():
            state.wizard.load_options([demo_db])
        labels = [o.label for o in state.wizard.question().options]
        state.wizard.submit(["Acme Corp"] if "Acme Corp" in labels else labels[:1])
    finish_wizard(state, [demo_db], CheckOptions())
    assert state.anchored_problem is None and state.anchored is not None
    assert state.anchored.answers["entity"] == "Acme Corp"
    assert all("'Acme Corp'" in sql for r in state.anchored.interpretations for sql in r.sql.values())


def test_a_clear_question_has_no_wizard_and_bad_input_is_a_problem(demo_db) -> None:
    state = PageState()
    run_check(state, "   ", [demo_db], CheckOptions())
    assert state.problem is not None and state.problem.kind == "input" and state.report is None
    assert not state.wizard_pending
    assert state.problem.actions == ()  # no unexplained Skip: the question box is the way on
    assert "Type a data question in the box above" in display.problem_words("input", state.problem.message)


@pytest.mark.parametrize("question, pick, answer, words", [
    ("What is the top-selling product?", "ranking_metric=units|record_scope=all", "USB-C Cable",
     "USB-C Cable, by units, Every order, whatever its status"),
    ("Show me revenue for Acme", "entity=acme_corp|unit=only_usd|record_scope=all", "USD 8,305.80",
     "USD 8,305.80, Acme Corp, Only amounts recorded in USD, Every order, whatever its status"),
])
def test_clicking_a_verdict_bullet_answers_the_clarification_with_that_reading(demo_db, question, pick, answer,
                                                                               words) -> None:
    state = PageState()
    run_check(state, question, [demo_db], CheckOptions())
    assert state.wizard_pending and not choose_reading(state, "no such reading")
    assert choose_reading(state, pick) and not state.wizard_pending
    finish_wizard(state, [demo_db], CheckOptions())
    assert state.anchored is not None and len(state.anchored.interpretations) == 1
    assert display.top_parts(state.anchored.interpretations[0])[0] == answer
    assert display.answered_words(state.anchored, state.report.archetypes) == words
    assert [a["choice"]["value"] for a in state.tool_output["answers"]] == pick_values(pick)


def pick_values(pick: str) -> list[str]:
    return [{"acme_corp": "Acme Corp"}.get(v, v) for v in (p.split("=")[1] for p in pick.split("|"))]


def test_examples_come_from_the_connected_schema(demo_db) -> None:
    from checker_app.profiles import load_profile

    assert display.examples_for([load_profile(demo_db)]) == display.EXAMPLES
    # the same lookup and skip rule as every dataset test (a clone outside /work skips, strict runs fail)
    chinook = Database(parse_db_option(f"chinook=sqlite:///{dataset('chinook', 'Chinook_Sqlite.sqlite')}"), Limits())
    try:
        examples = display.examples_for([load_profile(chinook)])
    finally:
        chinook.dispose()
    assert examples[0] == "What is the top-selling track?"
    assert not set(examples) & set(display.EXAMPLES[:2]) and not any("product" in e for e in examples)


def test_progress_names_the_engines_that_answered(demo_db) -> None:
    tracked, progress = track_all([demo_db])
    assert progress.lines() == ["demo: waiting"]
    result = tracked[0].run("SELECT 1 AS n")
    assert result.ok and progress.lines() == ["demo: answered (1 answered)"]
    assert tracked[0].name == "demo" and tracked[0].dialect == demo_db.dialect
    assert progress.summary() == "answered: demo"


def test_engine_down_is_a_note_and_all_down_is_a_problem_without_the_password(demo_db, dead_db) -> None:
    state = PageState()
    run_check(state, "What is the top-selling product?", [demo_db, dead_db], CheckOptions(), ["s3cret"])
    assert state.report is not None
    assert all("pg" not in r.results for r in state.report.interpretations)
    assert any(note.startswith("pg:") for note in state.report.notes)
    down = PageState()
    run_check(down, "What is the top-selling product?", [dead_db], CheckOptions(), ["s3cret"])
    assert down.problem is not None and down.problem.actions == ("retry", "skip")
    assert "s3cret" not in down.problem.message


# -- compare SQL --------------------------------------------------------------------------------------

def test_statements_split_on_top_level_semicolons_with_labels() -> None:
    statements = split_statements("-- by revenue\nSELECT ';' AS a;\n\nSELECT 2 -- trailing\n;\n  ;\n-- last\nSELECT 3")
    assert [(s.label, s.sql) for s in statements] == [
        ("by revenue", "SELECT ';' AS a"), ("Statement 2", "SELECT 2 -- trailing"), ("last", "SELECT 3")]


def test_compare_two_readings_and_refuse_unsafe_ones(demo_db) -> None:
    revenue = ("SELECT p.name, SUM(oi.unit_price * oi.quantity) AS revenue FROM order_items oi "
               "JOIN products p ON oi.product_id = p.id GROUP BY p.name ORDER BY revenue DESC LIMIT 1")
    units = ("SELECT p.name, SUM(oi.quantity) AS units FROM order_items oi "
             "JOIN products p ON oi.product_id = p.id GROUP BY p.name ORDER BY units DESC LIMIT 1")
    result = compare([Statement("revenue", revenue), Statement("units", units), Statement("bad", "DELETE FROM orders")],
                     [demo_db])
    assert result.verdict == "material" and result.verdict_text == "3 statements, 2 different answers"
    assert [display.top_parts(i)[0] for i in result.items[:2]] == ["MacBook Pro", "USB-C Cable"]
    assert set(result.rejected) == {"s3"} and "read-only" in result.rejected["s3"]
    assert result.items[2].results == {}
    same = compare([Statement("a", revenue), Statement("b", revenue.replace("LIMIT 1", "LIMIT 1 OFFSET 0"))], [demo_db])
    assert same.verdict == "benign" and same.verdict_text == "2 statements, same answer"


def test_compare_repairs_an_ambiguous_column(demo_db) -> None:
    ambiguous = "SELECT id, name FROM customers JOIN orders ON orders.customer_id = customers.id LIMIT 3"
    result = compare([Statement("a", ambiguous), Statement("b", "SELECT 1 AS id, 'x' AS name")], [demo_db])
    first = result.items[0].results["demo"]
    assert first.repairs, first.to_dict()  # the repair pass qualified the ambiguous `id`
    assert display.repair_lines(first)


def test_compare_on_three_engines(demo_urls) -> None:
    databases = [Database(parse_db_option(f"{b}={demo_urls[b]}"), Limits()) for b in BACKENDS]
    try:
        statements = split_statements(
            "SELECT p.name, SUM(oi.quantity) AS units FROM order_items oi JOIN products p ON oi.product_id = p.id "
            "GROUP BY p.name ORDER BY units DESC LIMIT 1; SELECT p.name, COUNT(DISTINCT oi.order_id) AS orders "
            "FROM order_items oi JOIN products p ON oi.product_id = p.id GROUP BY p.name ORDER BY orders DESC LIMIT 1")
        result = compare(statements, databases)
        for item in result.items:
            assert set(item.results) == set(BACKENDS) and all(r.ok for r in item.results.values())
            assert item.engines_agree is True
        assert set(result.items[0].sql) == set(BACKENDS)  # rendered per engine
        assert result.verdict == "material"
    finally:
        for db in databases:
            db.dispose()


# -- sidebar data -----------------------------------------------------------------------------------

def test_health_and_schema_never_show_a_password(demo_db, dead_db) -> None:
    statuses = connection_health([demo_db, dead_db], ["s3cret"])
    assert [(s.name, s.ok) for s in statuses] == [("demo", True), ("pg", False)]
    assert "s3cret" not in repr(statuses) and statuses[1].where == "127.0.0.1:1/x"
    assert where_of(demo_db) == "demo.sqlite"
    tables = {t.name: t for t in schema_summary(demo_db)}
    assert {"orders", "order_items", "products", "customers"} <= set(tables)
    assert ("quantity", tables["order_items"].columns[-1][1]) in tables["order_items"].columns or any(
        c[0] == "quantity" for c in tables["order_items"].columns)


# -- the serve command ----------------------------------------------------------------------------

def test_serve_command_line_and_bad_db(tmp_path) -> None:
    from checker_app.commands.serve import PACKAGE, app_copy, serve, streamlit_command

    script = app_copy(tmp_path)
    assert script.parent.parent == tmp_path / "app" and script.read_bytes() == (PACKAGE / "streamlit_app.py").read_bytes()
    pages = sorted(p.name for p in (PACKAGE / "pages").glob("*.py"))
    assert sorted(p.name for p in (script.parent / "views").glob("*.py")) == pages
    assert not (script.parent / "pages").exists()  # Streamlit would list a pages/ folder as pages of its own
    assert app_copy(tmp_path) == script  # unchanged files: the same copy
    command = streamlit_command(8600, True, script=script)
    assert command[:5] == [sys.executable, "-m", "checker_app.serve_main", "run", str(script)]
    assert command[5:] == ["--server.port", "8600", "--server.headless", "true", "--browser.gatherUsageStats",
                           "false", "--server.fileWatcherType", "none", "--client.toolbarMode", "viewer",
                           "--server.address", "localhost"]  # localhost unless --address says otherwise
    runner = CliRunner()
    assert "--address" in runner.invoke(serve, ["--help"]).output
    bad = runner.invoke(serve, ["--db", "nope://u:s3cret@h/x"])
    assert bad.exit_code == 2 and "s3cret" not in bad.output


def test_the_server_loads_every_module_before_it_serves() -> None:
    from checker_app.serve_main import preload

    loaded = preload()
    assert {"checker_app.pipeline", "checker_app.ui.display", "checker_app.llm.text", "adapters.repair",
            "archetypes.registry", "seed_db.seed"} <= set(loaded)
    assert "checker_app.pages.draw" in loaded and "checker_app.pages.checker" not in loaded


def test_loading_the_page_modules_before_the_server_warns_of_nothing() -> None:
    # a fresh interpreter: the page modules' st.cache_data decorators run on import, once per process
    done = subprocess.run([sys.executable, "-c", "from checker_app.serve_main import preload; preload()"],
                          capture_output=True, text=True, timeout=120, check=True)
    assert "No runtime found" not in done.stderr + done.stdout


def test_ignored_words_are_struck_through_and_a_suggestion_replaces_them() -> None:
    question = "Revenue from Brasil last month"
    ignored = [{"text": "Brasil", "span": [13, 19], "suggestions": ["Brazil"]}]
    html_text = highlight.highlighted_html(question, [{"id": "timeframe", "evidence": "last month"}], ignored)
    assert '<del class="ignored"' in html_text and ">Brasil</del>" in html_text
    assert 'data-archetype="timeframe"' in html_text and "__ignored__" not in html_text
    assert highlight.replace_span(question, ignored[0], "Brazil") == "Revenue from Brazil last month"
    assert highlight.replace_span(question, {"text": "nowhere", "span": None}, "x") == question
