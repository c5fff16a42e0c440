"""The schema profile's data: what the archetypes know about a database (the semantic model).

Plain dataclasses and the navigation the detectors and the query builder ask of them (join paths, the
measures a table can be grouped by, the currency and time zone a fact's amounts are in). Building them is
elsewhere: ``infer`` modules read introspection, ``overrides`` reads the team's YAML, ``probe`` reads the data.
"""
from __future__ import annotations

import datetime as dt
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from adapters.schema import TableInfo

Lookup = Callable[[exp.Query], list[tuple]]


@dataclass(frozen=True)
class Edge:
    """One many-to-one step: `table.columns` -> `ref_table.ref_columns`."""

    table: str
    columns: tuple[str, ...]
    ref_table: str
    ref_columns: tuple[str, ...]


@dataclass
class TimeColumn:
    table: str
    column: str
    date_only: bool = False
    with_zone: bool = False
    earliest: dt.datetime | None = None
    latest: dt.datetime | None = None


@dataclass
class Measure:
    """Something a fact table can sum or count. `value` is the reading value, naming-style independent."""

    value: str
    label: str
    kind: str                      # product | sum | count_distinct | count | expression
    table: str
    columns: tuple[str, ...] = ()
    money: bool = False
    expression: str | None = None  # kind == expression: SQL over the table's columns (overrides)
    words: tuple[str, ...] = ()    # question words that name this measure


@dataclass
class Fact:
    table: str
    measures: list[Measure]
    time: TimeColumn | None = None
    time_path: tuple[Edge, ...] = ()
    header: bool = False           # another fact points at it (a header for its line rows)
    row_count: int = 0


@dataclass(frozen=True)
class Entity:
    table: str
    name_columns: tuple[str, ...]  # one column, or first + last name concatenated
    noun: str                      # singular phrase: 'product', 'invoice line'
    key: tuple[str, ...] = ()
    row_count: int = 0
    column_only: bool = False      # a text column used like an entity ('country'): grouped by its value


@dataclass
class ZoneColumn:
    table: str
    column: str
    zones: tuple[str, ...]


_CURRENCY_WORDS = frozenset({"currency", "code", "iso", "amount", "value", "total"})


@dataclass
class CurrencyColumn:
    table: str
    column: str
    codes: tuple[str, ...]
    most_rows: str | None = None   # the code most rows carry ('only X' keeps the bulk of the money, not the first code)


@dataclass
class RateTable:
    table: str
    currency_column: str
    date_column: str
    rate_column: str
    target: str                    # currency the rate converts into ('USD' for a column named like usd_rate)
    date_only: bool = True


@dataclass(frozen=True)
class FiscalPeriod:
    year: str
    quarter: str
    label: str
    start: dt.date
    end: dt.date                   # exclusive


@dataclass
class FiscalCalendar:
    table: str
    periods: tuple[FiscalPeriod, ...]


@dataclass(eq=False)
class SchemaProfile:
    dialect: str
    tables: dict[str, TableInfo]
    facts: dict[str, Fact]
    entities: dict[str, Entity]
    edges: dict[str, list[Edge]]
    zone_columns: list[ZoneColumn] = field(default_factory=list)
    currency_columns: list[CurrencyColumn] = field(default_factory=list)
    rate_table: RateTable | None = None
    fiscal: FiscalCalendar | None = None
    fiscal_year_start: int | None = None
    business_time_zone: str | None = None
    as_of: dt.date | None = None
    earliest: dt.datetime | None = None
    latest: dt.datetime | None = None
    synonyms: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    open_ends: dict[str, str] = field(default_factory=dict)  # 'table.end_column': 'null' or the sentinel date
    probed: bool = False                                      # the live probes ran (open_ends is read)
    cache: dict[Any, Any] = field(default_factory=dict, repr=False)

    def __hash__(self) -> int:
        return id(self)

    # -- navigation ----------------------------------------------------------------------------

    def path(self, start: str, goal: str) -> tuple[Edge, ...] | None:
        """Shortest many-to-one path from `start` to `goal` (empty when they are the same table)."""
        key = ("path", start, goal)
        if key in self.cache:
            return self.cache[key]
        found: tuple[Edge, ...] | None = None
        queue: deque[tuple[str, tuple[Edge, ...]]] = deque([(start, ())])
        seen = {start}
        while queue:
            table, steps = queue.popleft()
            if table == goal:
                found = steps
                break
            if len(steps) >= 5:
                continue
            for edge in self.edges.get(table, ()):
                if edge.ref_table not in seen:
                    seen.add(edge.ref_table)
                    queue.append((edge.ref_table, steps + (edge,)))
        self.cache[key] = found
        return found

    def fact_list(self) -> list[Fact]:
        return list(self.facts.values())

    def primary_fact(self) -> Fact | None:
        """The fact most questions are about: one with a price x quantity measure, else money coming in (a sale
        price before a labour cost), else money, else largest."""
        if not self.facts:
            return None
        from archetypes.lexicon import cost_named

        def score(fact: Fact) -> tuple:
            kinds = {m.kind for m in fact.measures}
            money = [m for m in fact.measures if m.money]
            earned = any(not cost_named(m.columns) for m in money)
            return ("product" in kinds, earned, bool(money), fact.time is not None, fact.row_count)

        return max(self.facts.values(), key=score)

    def measures_reaching(self, table: str | None, via: tuple[str, ...] = ()) -> list[tuple[Fact, Measure]]:
        """Measures that can be grouped by `table` (None: all) and filtered on every table of `via`, one per
        reading value, fewest joins first."""
        found: dict[str, tuple[int, Fact, Measure]] = {}
        for fact in self.facts.values():
            steps = 0
            if any(self.path(fact.table, other) is None for other in via):
                continue
            if table is not None:
                route = self.path(fact.table, table)
                if route is None:
                    continue
                steps = len(route)
            for measure in fact.measures:
                if table is not None and self._counts(measure, table):
                    continue  # counting the ranked rows themselves gives 1 each
                rank = steps * 10 + (0 if measure.kind != "count" else 1)
                if measure.value not in found or rank < found[measure.value][0]:
                    found[measure.value] = (rank, fact, measure)
        order = {"product": 0, "expression": 1, "sum": 2, "count": 3, "count_distinct": 4}
        ranked = sorted(found.values(), key=lambda item: (order.get(item[2].kind, 9), item[0]))
        return [(fact, measure) for _, fact, measure in ranked]

    def _counts(self, measure: Measure, table: str) -> bool:
        if measure.kind == "count":
            return measure.table == table
        if measure.kind == "count_distinct":
            return any(e.ref_table == table and e.columns == measure.columns for e in self.edges.get(measure.table, ()))
        return False

    def measure(self, value: str, table: str | None = None) -> tuple[Fact, Measure] | None:
        return next(((f, m) for f, m in self.measures_reaching(table) if m.value == value), None)

    def currency_for(self, fact: Fact, measure: Measure | None = None) -> tuple[CurrencyColumn, tuple[Edge, ...]] | None:
        """The currency column the fact's amounts are in (nearest along its foreign keys); of two on one table, the
        one sharing a word with the measure's column ('price_charged' is in 'price_currency', not in
        'declared_currency')."""
        from archetypes.naming import words

        found: list[tuple[int, CurrencyColumn, tuple[Edge, ...]]] = []
        for column in self.currency_columns:
            if self.rate_table and column.table == self.rate_table.table:
                continue
            route = self.path(fact.table, column.table)
            if route is not None:
                found.append((len(route), column, route))
        if not found:
            return None
        nearest = [f for f in found if f[0] == min(n for n, _, _ in found)]
        said = {w for c in (measure.columns if measure is not None else ()) for w in words(c)} - _CURRENCY_WORDS
        named = [f for f in nearest if set(words(f[1].column)) & said]
        best = (named or nearest)[0]
        return best[1], best[2]

    def zone_for(self, fact: Fact) -> tuple[ZoneColumn, tuple[Edge, ...]] | None:
        best: tuple[int, ZoneColumn, tuple[Edge, ...]] | None = None
        for column in self.zone_columns:
            route = self.path(fact.table, column.table)
            if route is not None and (best is None or len(route) < best[0]):
                best = (len(route), column, route)
        return (best[1], best[2]) if best else None

    def business_zones(self) -> list[str]:
        zones: list[str] = []
        for column in self.zone_columns:
            zones.extend(z for z in column.zones if z not in zones)
        if self.business_time_zone and self.business_time_zone not in zones:
            zones.insert(0, self.business_time_zone)
        return [z for z in zones if z != "UTC"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "dialect": self.dialect,
            "facts": [{"table": f.table, "time": f"{f.time.table}.{f.time.column}" if f.time else None,
                       "measures": [m.value for m in f.measures]} for f in self.facts.values()],
            "entities": [{"table": e.table, "name": list(e.name_columns), "noun": e.noun}
                         for e in self.entities.values()],
            "zones": self.business_zones(),
            "currency_codes": sorted({c for col in self.currency_columns for c in col.codes}),
            "rate_table": self.rate_table.table if self.rate_table else None,
            "fiscal_calendar": self.fiscal.table if self.fiscal else None,
            "as_of": self.as_of.isoformat() if self.as_of else None,
            "notes": list(self.notes),
        }
