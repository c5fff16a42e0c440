"""A time between two dates of a row, asked for ('average shipping time', 'how long do subscriptions last'): each
row's days between its dates, averaged, the same figure on every engine as Python's from the raw rows. It was
revenue per order, shown as clear."""
from __future__ import annotations

import datetime as dt
import sqlite3
import statistics
from contextlib import closing
from typing import Any

import pytest

from adapters.results import comparable, same_rows
from tests.support import connect


def _day(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(str(text)[:19])


def _raw(url: str, sql: str) -> list[tuple[Any, ...]]:
    with closing(sqlite3.connect(url.removeprefix("sqlite:///"))) as raw:
        return list(raw.execute(sql))


def _figures(urls: dict[str, str], question: str) -> dict[str, dict[str, list[list[Any]]]]:
    results = {}
    for backend, url in urls.items():
        connected = connect(url)
        analysis = connected.analyse(question)
        assert analysis.interpretations, (backend, question, analysis.notes)
        assert analysis.understood.complete, (question, analysis.understood.to_dict())
        results[backend] = {i.id: connected.run(i).rows for i in analysis.interpretations}
        connected.db.dispose()
    first = results["sqlite"]
    for backend, readings in results.items():
        assert list(readings) == list(first) and all(same_rows(readings[k], first[k], ordered=True) for k in first), \
            (backend, question)
    return results


def test_average_subscription_length_on_every_engine(history_urls) -> None:
    rows = _raw(history_urls["sqlite"], "SELECT started_on, ended_on FROM subscriptions WHERE ended_on IS NOT NULL")
    by_hand = statistics.mean((_day(end) - _day(start)).days for start, end in rows)
    results = _figures(history_urls, "how long do subscriptions last on average")
    every = results["sqlite"][next(iter(results["sqlite"]))]
    assert abs(float(comparable(every[0][0])) - by_hand) < 0.005, (every, by_hand)


# question | what each order's figure is, from its two dates | the first row's name (None: one figure, no group)
NORTHWIND = [
    ("average shipping time", lambda days: days, None),
    ("how long does it take to ship an order on average", lambda days: days, None),
    ("avg hours to ship in 1997", lambda days: days * 24, None),
    ("which shipper is the fastest to ship", lambda days: days, "Federal Shipping"),
]


@pytest.mark.parametrize(("question", "figure", "first"), NORTHWIND)
def test_shipping_times_on_northwind(northwind_urls, question: str, figure, first: str | None) -> None:
    results = {backend: _figures({"sqlite": url}, question)["sqlite"] for backend, url in northwind_urls.items()}
    assert all(list(r) == list(results["sqlite"]) for r in results.values())
    window = " AND OrderDate >= '1997-01-01' AND OrderDate < '1998-01-01'" if "1997" in question else ""
    group = ", s.CompanyName" if first else ", ''"
    rows = _raw(northwind_urls["sqlite"], f"SELECT o.OrderDate, o.ShippedDate{group} FROM Orders o JOIN Shippers s "
                                          f"ON s.ShipperID = o.ShipVia WHERE o.ShippedDate IS NOT NULL{window}")
    per_group: dict[str, list[float]] = {}
    for ordered, shipped, name in rows:
        per_group.setdefault(name, []).append(figure((_day(shipped) - _day(ordered)).total_seconds() / 86400))
    means = {name: statistics.mean(values) for name, values in per_group.items()}
    for backend, readings in results.items():
        got = next(iter(readings.values()))[0]
        if first is None:
            assert abs(float(comparable(got[0])) - means[""]) < 0.005, (backend, got, means)
        else:
            assert got[0] == first == min(means, key=means.__getitem__), (backend, got, means)
            assert abs(float(comparable(got[1])) - means[first]) < 0.005, (backend, got, means)


# the date a row is of, among several: never a later step's date, empty until the row gets there (a dispatch
# dated by its delivery lost every dispatch in transit or lost from 'last year'), nor a promise
# table | its date columns (name, type) | the one a window bounds
TIME_OF_ROW = [
    ("dispatches", [("shipped_at", "DATETIME"), ("promised_by", "DATE"), ("delivered_at", "DATETIME")], "shipped_at"),
    ("invoices", [("issued_at", "DATETIME"), ("paid_at", "DATETIME")], "issued_at"),
    ("tickets", [("created_at", "DATETIME"), ("resolved_at", "DATETIME"), ("closed_at", "DATETIME")], "created_at"),
    ("Orders", [("OrderDate", "DATETIME"), ("RequiredDate", "DATETIME"), ("ShippedDate", "DATETIME")], "OrderDate"),
    ("payments", [("paid_at", "DATETIME")], "paid_at"),
]


@pytest.mark.parametrize(("table", "columns", "expected"), TIME_OF_ROW)
def test_the_date_a_row_is_of(table: str, columns: list[tuple[str, str]], expected: str) -> None:
    from adapters.schema import ColumnInfo, TableInfo
    from archetypes.profile.facts import _choose_time

    info = TableInfo(table, [ColumnInfo("id", "INTEGER", "numeric")] +
                     [ColumnInfo(name, kind, "temporal") for name, kind in columns])
    chosen = _choose_time(info)
    assert chosen is not None and chosen.name == expected, (table, chosen)
