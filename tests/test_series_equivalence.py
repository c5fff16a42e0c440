"""Series without range joins give exactly the answers the range-joined calendar gave, on every engine.

The reference is the former ``_periods_query`` (a calendar CTE of [start, end) rows joined by range),
kept below verbatim. Each question's readings are built twice, once with each, and run on SQLite,
PostgreSQL and MariaDB; the rows must be identical. Adding a case is adding a line to SERIES.
"""
from __future__ import annotations

import pytest
from sqlglot import exp

import archetypes.query as query_module
from adapters.results import comparable, same_rows
from archetypes import calendar
from archetypes.naming import slug
from archetypes.query import (
    Measure,
    QuerySpec,
    TimeColumn,
    _From,
    _local_range,
    _range,
    col,
    ident,
    literal,
    measure_aggregate,
    table_ref,
    time_literal,
)
from tests.support import BACKENDS, Connected, connect

# (grain or shape the question exercises, question, answers that pin the readings)
SERIES: list[tuple[str, str, dict[str, str]]] = [
    ("day, every zone reading", "Show daily order counts for June 2025", {}),
    ("day, each row's own zone", "Orders per day last week", {"timezone": "local"}),
    ("week (ISO and Sunday)", "How many orders per week in the first half of 2025?", {}),
    ("month, calendar and fiscal", "Revenue by month", {}),
    ("fiscal month", "Revenue by fiscal month", {}),
    ("quarter, calendar and fiscal", "Revenue by quarter", {}),
    # ("which weekday has the most orders" is a distribution now, not a series: archetypes/shapes.py)
    ("weekday", "Orders by day of the week in June 2025", {}),
    ("hour, every zone reading", "Orders per hour yesterday", {}),
    # (dropped once for differing answers: they differed only in SQLite's float summation order;
    # test_local_hours_match_a_count_by_hand gives the truth)
    # (one currency: a per-currency series in local time is not compared here, see the README's note)
    ("hour in local time", "Sales per hour yesterday", {"timezone": "local", "unit": "only_usd"}),
    ("trend windows (day and month series)", "How are sales trending?", {}),
    ("series by store", "Monthly revenue by store in 2024", {}),
    ("year (the engine's own truncation where the boundaries are UTC)", "Revenue by year", {}),
]


# date-only time columns (Northwind's order_date): boundaries become dates
DATE_ONLY_SERIES: list[tuple[str, str, dict[str, str]]] = [
    ("month on a date column", "How many orders per month?", {}),
    ("weekday on a date column", "Orders by day of the week in march 1997", {}),  # a year: by each row
    ("day on a date column", "Orders per day in July 1997", {}),
    ("year on a date column", "How many orders per year?", {}),
]


@pytest.fixture(scope="module")
def demo(demo_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in demo_urls.items()}


@pytest.fixture(scope="module")
def northwind(northwind_urls) -> dict[str, Connected]:
    return {backend: connect(url) for backend, url in northwind_urls.items()}


def _rows(connected: Connected, question: str, answers: dict[str, str]) -> dict[str, tuple[str, list]]:
    """{reading: (SQL, rows)}; values normalised as answers are compared (SQLite sums floats in scan order)."""
    analysis = connected.analyse(question, answers=answers or None)
    return {i.id: (i.sql(connected.dialect), [[comparable(v) for v in row] for row in connected.run(i).rows])
            for i in analysis.interpretations}


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("shape", "question", "answers"), SERIES, ids=[s[0] for s in SERIES])
def test_series_answers_are_unchanged(demo, monkeypatch, backend, shape, question, answers):
    _compare(demo[backend], monkeypatch, backend, question, answers)


@pytest.mark.parametrize("backend", ["sqlite", "postgresql"])
@pytest.mark.parametrize(("shape", "question", "answers"), DATE_ONLY_SERIES, ids=[s[0] for s in DATE_ONLY_SERIES])
def test_date_only_series_answers_are_unchanged(northwind, monkeypatch, backend, shape, question, answers):
    _compare(northwind[backend], monkeypatch, backend, question, answers)


def _compare(connected: Connected, monkeypatch, backend: str, question: str, answers: dict[str, str]) -> None:
    new = _rows(connected, question, answers)
    with monkeypatch.context() as patch:
        patch.setattr(query_module, "_periods_query", legacy_periods_query)
        old = _rows(connected, question, answers)
    assert list(new) == list(old) and new, (question, list(new), list(old))
    series = [reading for reading, (sql, _) in new.items() if '"period_index"' in sql or "`period_index`" in sql]
    assert series, f"{question!r} built no series reading"
    for reading in new:
        new_sql, new_rows = new[reading]
        old_sql, old_rows = old[reading]
        # the project's one tolerance: SQLite sums floats in scan order, and the two statements scan
        # in different orders (3103.9299999999994 against 3103.9300000000003 for an exact 3103.93)
        assert same_rows(new_rows, old_rows, ordered=True), (reading, backend, new_rows, old_rows, new_sql)
        if reading in series:
            assert "period_start" in old_sql and "period_start" not in new_sql  # no range join any more
            assert any(row[-1] for row in new_rows), (reading, "an all-empty series proves nothing")


def legacy_periods_query(source: _From, where: list[exp.Expression], value: exp.Expression, measure: Measure,
                   metric_name: str, time_expr: exp.Expression, periods: list[calendar.Period], zone: str,
                   zone_expr: exp.Expression | None, zones: list[str], column: TimeColumn,
                   group_expr: exp.Expression | None, group_key: exp.Expression | None,
                   currency_expr: exp.Expression | None,
                   spec: QuerySpec, profile: object = None) -> exp.Query:
    """The range-join series this module replaced, kept verbatim as the reference for its answers (sums and
    counts: `profile`, which the averages and ratios per period need, is not read)."""
    # the calendar CTE: one row per period (and per zone when each row keeps its own zone)
    rows: list[exp.Select] = []
    first_index: dict[str, int] = {}
    for period in periods:
        index = first_index.setdefault(period.label, len(first_index))
        for z in (zones if zone_expr is not None else [zone]):
            tz = None if column.date_only else z
            parts = [exp.alias_(literal(period.label), "period", quoted=True),
                     exp.alias_(exp.Literal.number(index), "period_index", quoted=True),
                     exp.alias_(time_literal(calendar.utc_instant(period.start, tz), column), "period_start",
                                quoted=True),
                     exp.alias_(time_literal(calendar.utc_instant(period.end, tz), column), "period_end",
                                quoted=True)]
            if zone_expr is not None:
                parts.append(exp.alias_(literal(z), "zone", quoted=True))
            rows.append(exp.select(*parts))
    union: exp.Query = rows[0]
    for row in rows[1:]:
        union = exp.Union(this=union, expression=row, distinct=False)  # left-deep, no copies

    # the rows to aggregate, restricted to the calendar's overall range
    inner = source.select.select(exp.alias_(value, "v", quoted=True), exp.alias_(time_expr.copy(), "ts", quoted=True))
    if zone_expr is not None:
        inner = inner.select(exp.alias_(zone_expr.copy(), "zone", quoted=True))
    if group_expr is not None:
        inner = inner.select(exp.alias_(group_expr.copy(), "grp", quoted=True))
    if group_key is not None:
        inner = inner.select(exp.alias_(group_key.copy(), "grp_key", quoted=True))
    if currency_expr is not None:
        inner = inner.select(exp.alias_(currency_expr.copy(), "currency", quoted=True))
    for condition in where:
        inner = inner.where(condition)
    first, last = periods[0].start, periods[-1].end
    if zone_expr is not None:
        inner = inner.where(_local_range(time_expr, zone_expr, zones, first, last, column))
    else:
        inner = inner.where(_range(time_expr, first, last, zone, column))

    on = exp.and_(exp.GTE(this=col("ts", "s"), expression=col("period_start", "p")),
                  exp.LT(this=col("ts", "s"), expression=col("period_end", "p")))
    if zone_expr is not None:
        on = exp.and_(on, exp.EQ(this=col("zone", "s"), expression=col("zone", "p")))
    outputs: list[exp.Expression] = [exp.alias_(col("period", "p"), "period", quoted=True)]
    groups: list[exp.Expression] = [col("period", "p")]
    if group_expr is not None:
        outputs.append(exp.alias_(col("grp", "s"), slug(spec.group.noun), quoted=True))
        groups.append(col("grp", "s"))
        if group_key is not None:
            groups.append(col("grp_key", "s"))
    if currency_expr is not None:
        outputs.append(exp.alias_(col("currency", "s"), "currency", quoted=True))
        groups.append(col("currency", "s"))
    metric = exp.alias_(measure_aggregate(measure, col("v", "s")), metric_name, quoted=True)
    query = (exp.select(*outputs, metric)
             .from_(table_ref("periods", "p"))
             .join(exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("s"))), on=on, join_type="left")
             .group_by(*groups)
             .order_by(exp.Min(this=col("period_index", "p")), *[g.copy() for g in groups[1:]])
             .with_(ident("periods"), as_=union))
    return query


@pytest.mark.parametrize("backend", BACKENDS)
def test_local_hours_match_a_count_by_hand(demo, backend):
    """The truth for "Sales per hour yesterday" in each row's own zone, computed apart from the checker:
    the raw rows fetched by a plain statement, each UTC timestamp turned into its store's local time by
    zoneinfo, kept when its local date is the day before the data's last day, summed per local hour."""
    import datetime as dt
    from decimal import Decimal
    from zoneinfo import ZoneInfo

    connected = demo[backend]
    # 'sales' is read as money or as units: the truth below is the money
    analysis = connected.analyse("Sales per hour yesterday",
                                 answers={"timezone": "local", "ranking_metric": "revenue", "unit": "only_usd"})
    yesterday = analysis.as_of - dt.timedelta(days=1)
    raw = connected.db.run(
        "SELECT o.ordered_at, s.time_zone, i.unit_price * i.quantity, o.status, o.currency_code FROM order_items i "
        "JOIN orders o ON o.id = i.order_id JOIN stores s ON s.id = o.store_id "
        f"WHERE o.ordered_at >= '{yesterday - dt.timedelta(days=1)}' AND o.ordered_at < '{yesterday + dt.timedelta(days=2)}'")
    assert raw.ok, raw.error
    truth: dict[str, dict[str, Decimal]] = {"all": {}, "only_completed": {}}
    for ordered_at, zone, value, status, currency in raw.rows:
        if str(currency).strip() != "USD":
            continue  # the reading asked for: only amounts recorded in USD
        moment = ordered_at if isinstance(ordered_at, dt.datetime) else dt.datetime.fromisoformat(str(ordered_at))
        local = moment.replace(tzinfo=dt.UTC).astimezone(ZoneInfo(zone))
        if local.date() != yesterday:
            continue
        hour = f"{local.hour:02d}:00"
        for scope in ("all", "only_completed") if status == "completed" else ("all",):
            truth[scope][hour] = truth[scope].get(hour, Decimal(0)) + Decimal(str(value))
    assert truth["all"], "no sales yesterday: the case proves nothing"
    readings = {i.choices.get("record_scope"): i for i in analysis.interpretations if i.choices.get("timezone") == "local"}
    assert set(readings) == {"all", "only_completed"}, list(readings)
    for scope, reading in readings.items():
        rows = [[comparable(v) for v in row] for row in connected.run(reading).rows]
        expected = [[f"{h:02d}:00", float(truth[scope].get(f"{h:02d}:00", 0))] for h in range(24)]
        assert same_rows(rows, expected, ordered=True), (scope, backend, rows, expected)
