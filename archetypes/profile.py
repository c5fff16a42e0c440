"""The schema profile: what the archetypes know about a database, inferred from introspection.

Fact tables and their measures, entity tables and their name columns, foreign-key paths, timestamps,
currency columns and rate tables, time-zone columns, a fiscal calendar, the data's time range. Nothing here
knows any particular schema: every role is recognised from names, types, keys and sampled values.
"""
from __future__ import annotations

import datetime as dt
import re
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, available_timezones

import sqlglot
from sqlglot import exp

from adapters.schema import ColumnInfo, SchemaInfo, TableInfo
from archetypes.errors import ProfileOverrideError
from archetypes.mappings import read_values
from archetypes.naming import phrase, plural, singular, slug, words

Lookup = Callable[[exp.Query], list[tuple]]

_PRICE = {"price", "cost"}
_DISCOUNT = {"discount"}
_QTY = {"quantity", "qty", "units"}
_MONEY = {"price", "amount", "total", "revenue", "cost", "sales", "freight", "subtotal", "tax", "fee", "charge",
          "paid", "payment", "spend", "value", "gross", "net", "balance", "income", "profit"}
_NOT_SUMMABLE = {"discount", "rate", "percent", "pct", "ratio", "lat", "lng", "latitude", "longitude", "number",
                 "no", "year", "month", "day", "week", "quarter", "age", "level", "rank", "order", "sort", "position",
                 "code", "zip", "phone", "version", "milliseconds", "bytes", "size", "period", "id", "reorder",
                 "stock", "list", "per", "unit"}
_NAME_WORDS = ("name", "title", "label")
_NAME_PREFIXES = {"company", "full", "display", "business", "brand", "trade", "legal", "short", "common"}
_TIME_GOOD = {"created", "ordered", "placed", "date", "at", "time", "timestamp", "occurred", "purchased", "sold",
              "invoice", "order", "transaction", "booked", "paid"}
_TIME_BAD = {"birth", "updated", "modified", "deleted", "required", "shipped", "expires", "expiry", "due", "end",
             "start", "hire"}
_ZONE_NAMES = frozenset(available_timezones())
_CODE = re.compile(r"^[A-Z]{3}$")
_KNOWN_CODES = {"USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "CNY", "INR", "BRL", "MXN", "SEK", "NOK", "DKK",
                "NZD", "SGD", "HKD", "KRW", "ZAR", "PLN", "CZK", "HUF", "TRY", "RUB", "ILS", "AED", "SAR", "THB"}


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


@dataclass
class CurrencyColumn:
    table: str
    column: str
    codes: tuple[str, ...]


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
        """The fact most questions are about: one with a price x quantity measure, else money, else largest."""
        if not self.facts:
            return None

        def score(fact: Fact) -> tuple:
            kinds = {m.kind for m in fact.measures}
            return ("product" in kinds, any(m.money for m in fact.measures), fact.time is not None, fact.row_count)

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

    def currency_for(self, fact: Fact) -> tuple[CurrencyColumn, tuple[Edge, ...]] | None:
        """The currency column the fact's amounts are in (nearest along its foreign keys)."""
        best: tuple[int, CurrencyColumn, tuple[Edge, ...]] | None = None
        for column in self.currency_columns:
            if self.rate_table and column.table == self.rate_table.table:
                continue
            route = self.path(fact.table, column.table)
            if route is not None and (best is None or len(route) < best[0]):
                best = (len(route), column, route)
        return (best[1], best[2]) if best else None

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


# -- building ----------------------------------------------------------------------------------

def build_profile(schema: SchemaInfo, lookup: Lookup | None = None,
                  overrides: dict | None = None) -> SchemaProfile:
    """Infer the profile of `schema`; `lookup` runs a few aggregate queries (time range, fiscal periods)."""
    overrides = dict(overrides or {})
    ignored = {str(t).lower() for t in overrides.get("ignore_tables", []) or []}
    tables = {t.name: t for t in schema.tables if t.name.lower() not in ignored}
    edges = {name: _edges(table, tables) for name, table in tables.items()}
    profile = SchemaProfile(dialect=schema.dialect, tables=tables, facts={}, entities={}, edges=edges)

    profile.zone_columns = _zone_columns(tables)
    profile.currency_columns = _currency_columns(tables)
    profile.rate_table = _rate_table(tables, profile.currency_columns)
    fiscal_table = _fiscal_table(tables)
    special = {profile.rate_table.table if profile.rate_table else None, fiscal_table[0].name if fiscal_table else None}

    for name, table in tables.items():
        if name in special:
            continue
        entity = _entity(table)
        if entity:
            profile.entities[name] = entity
    _find_facts(profile, special)
    _apply_overrides(profile, overrides)

    if lookup is not None:
        _read_time_ranges(profile, lookup)
        if fiscal_table:
            profile.fiscal = _read_fiscal(fiscal_table, lookup, profile)
        _read_zones(profile, lookup)
        profile.cache["column_values"] = read_values(tables, lookup)  # twin columns (archetypes.mappings)
    if profile.as_of is None:
        primary = profile.primary_fact()
        latest = primary.time.latest if primary and primary.time else profile.latest
        profile.as_of = latest.date() if latest else None
    return profile


def load_profile_overrides(path: str | Path) -> dict:
    """Read the optional YAML file that corrects or extends a profile."""
    import yaml

    try:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as err:
        raise ProfileOverrideError(f"cannot read profile overrides {path}: {str(err).splitlines()[0]}") from None
    if not isinstance(data, dict):
        raise ProfileOverrideError(f"profile overrides {path}: expected a mapping at the top")
    return data


def _edges(table: TableInfo, tables: dict[str, TableInfo]) -> list[Edge]:
    found = []
    for fk in table.foreign_keys:
        ref = next((n for n in tables if n.lower() == fk.ref_table.lower()), None)
        if ref and fk.columns and ref != table.name:
            found.append(Edge(table.name, tuple(fk.columns), ref, tuple(fk.ref_columns)))
    return found


def _fk_columns(table: TableInfo) -> set[str]:
    return {c for fk in table.foreign_keys for c in fk.columns}


def _is_key(table: TableInfo, column: ColumnInfo) -> bool:
    parts = words(column.name)
    return (column.name in table.primary_key or column.name in _fk_columns(table)
            or (bool(parts) and parts[-1] in ("id", "key", "pk", "fk")))


def _entity(table: TableInfo) -> Entity | None:
    text = [c for c in table.columns if c.family == "text" and not _is_key(table, c)]
    head = words(table.name)
    noun = phrase(table.name)
    chosen: tuple[str, ...] = ()
    own = set(head) | {singular(w) for w in head}
    first = next((c.name for c in text if words(c.name)[:2] in (("first", "name"),)), None)
    last = next((c.name for c in text if words(c.name)[:2] in (("last", "name"),)), None)
    for column in text:
        parts = words(column.name)
        if parts and parts[-1] in _NAME_WORDS and (len(parts) == 1 or set(parts[:-1]) <= own | _NAME_PREFIXES):
            # prefer 'name', then '<table>_name' / 'company_name'; a person's title is a job, not a name
            if parts[-1] != "name" and first and last:
                continue
            chosen = (column.name,)
            if parts[-1] == "name":
                break
    if not chosen and first and last:
        chosen = (first, last)
    if not chosen:
        return None
    return Entity(table=table.name, name_columns=chosen, noun=noun, key=tuple(table.primary_key),
                  row_count=table.row_count)


def _time_columns(table: TableInfo) -> list[ColumnInfo]:
    return [c for c in table.columns if c.family == "temporal"]


def _choose_time(table: TableInfo) -> ColumnInfo | None:
    candidates = _time_columns(table)
    if not candidates:
        return None
    head = set(words(table.name)) | {singular(w) for w in words(table.name)}

    def score(column: ColumnInfo) -> int:
        parts = set(words(column.name))
        value = 2 * len(parts & head) + len(parts & _TIME_GOOD) - 3 * len(parts & _TIME_BAD)
        return value + (1 if "TIME" in column.type.upper() else 0)

    return max(candidates, key=score)


def _time_column(table: TableInfo, column: ColumnInfo) -> TimeColumn:
    upper = column.type.upper()
    return TimeColumn(table=table.name, column=column.name, date_only=upper.strip() == "DATE",
                      with_zone="TIME ZONE" in upper and "WITHOUT" not in upper or "TIMESTAMPTZ" in upper)


def _find_facts(profile: SchemaProfile, special: set[str | None]) -> None:
    tables = profile.tables
    own_time = {name: column for name, t in tables.items()
                if name not in special and (column := _choose_time(t)) is not None}
    candidates: dict[str, Fact] = {}
    for name, table in tables.items():
        if name in special or not profile.edges.get(name):
            continue
        column = own_time.get(name)
        if column is not None and _choose_score_ok(table, column):
            fact = Fact(table=name, measures=[], time=_time_column(table, column), row_count=table.row_count)
        else:
            parent = next((e for e in profile.edges[name]
                           if e.ref_table in own_time and e.ref_table not in special
                           and profile.edges.get(e.ref_table)
                           and _choose_score_ok(tables[e.ref_table], own_time[e.ref_table])), None)
            if parent is None:
                continue
            ref = tables[parent.ref_table]
            fact = Fact(table=name, measures=[], time=_time_column(ref, own_time[parent.ref_table]),
                        time_path=(parent,), row_count=table.row_count)
        candidates[name] = fact
    for fact in candidates.values():
        for edge in profile.edges[fact.table]:
            if edge.ref_table in candidates and candidates[edge.ref_table].time_path == ():
                candidates[edge.ref_table].header = True
    for fact in candidates.values():
        fact.measures = _measures(tables[fact.table], fact, candidates, profile)
        profile.facts[fact.table] = fact


def _choose_score_ok(table: TableInfo, column: ColumnInfo) -> bool:
    parts = set(words(column.name))
    return not (parts & {"birth", "hire", "updated", "modified", "deleted", "expires"}) or len(_time_columns(table)) == 0


def _measures(table: TableInfo, fact: Fact, facts: dict[str, Fact], profile: SchemaProfile) -> list[Measure]:
    found: list[Measure] = []
    numeric = [c for c in table.columns if c.family == "numeric" and not _is_key(table, c)]
    summable = [c for c in numeric if not (set(words(c.name)) & _NOT_SUMMABLE) or set(words(c.name)) & _QTY
                or set(words(c.name)) & _PRICE]
    price = next((c for c in summable if set(words(c.name)) & _PRICE), None)
    qty = next((c for c in summable if set(words(c.name)) & _QTY), None)
    used: set[str] = set()
    if price and qty:
        found.append(Measure("revenue", f"Revenue ({phrase(price.name)} x {phrase(qty.name)})", "product",
                             table.name, (price.name, qty.name), money=True,
                             words=("revenue", "sales amount", "turnover", "income", "gross", "grossing",
                                    "earnings", "money", "spend", "spent", "dollars")))
        used |= {price.name, qty.name}
        discount = next((c for c in numeric if set(words(c.name)) & _DISCOUNT), None)
        if discount is not None:  # a line discount: revenue before it and after it are both 'sales'
            found.append(Measure("revenue_net", f"Revenue net of {phrase(discount.name)} ({phrase(price.name)} x "
                                 f"{phrase(qty.name)} x (1 - {phrase(discount.name)}))", "product", table.name,
                                 (price.name, qty.name, discount.name), money=True, words=("net revenue", "net sales")))
            used.add(discount.name)
    if qty:
        found.append(Measure("units", f"Units (sum of {phrase(qty.name)})", "sum", table.name, (qty.name,),
                             words=("units", "unit", "quantity", "quantities", "qty", "volume", "items sold",
                                    "copies")))
        used.add(qty.name)
    for column in summable:
        if column.name in used or (set(words(column.name)) & _PRICE and price is not column):
            continue
        if set(words(column.name)) & _NOT_SUMMABLE:
            continue
        value = slug(" ".join(words(column.name)))
        money = bool(set(words(column.name)) & _MONEY)
        found.append(Measure(value, f"Sum of {' '.join(words(column.name))}", "sum", table.name, (column.name,),
                             money=money, words=(" ".join(words(column.name)),)))
    for edge in profile.edges[table.name]:
        parent = facts.get(edge.ref_table)
        if parent is not None and parent.time_path == () and len(edge.columns) == 1:
            noun = plural(phrase(edge.ref_table).split()[-1]) if phrase(edge.ref_table) else "parents"
            found.append(Measure(slug(noun), f"Distinct {noun} (count of distinct {phrase(edge.columns[0])})",
                                 "count_distinct", table.name, edge.columns, words=(noun,)))
    if fact.time_path == () or not profile.edges[table.name]:
        noun_words = phrase(table.name).split()
        noun = plural(noun_words[-1]) if noun_words else "rows"
        key = tuple(table.primary_key[:1])
        found.append(Measure(slug(noun), f"Number of {noun}", "count", table.name, key, words=(noun,)))
    return found


def _apply_overrides(profile: SchemaProfile, overrides: dict) -> None:
    synonyms = overrides.get("synonyms") or {}
    if not isinstance(synonyms, dict):
        raise ProfileOverrideError("synonyms: expected a mapping of word -> table or measure")
    # a list names several targets, e.g. columns `table.column` a word may mean (schema_mapping): kept comma-joined
    profile.synonyms = {str(k).lower(): ", ".join(map(str, v)) if isinstance(v, (list, tuple)) else str(v)
                        for k, v in synonyms.items()}
    zone = overrides.get("business_time_zone")
    if zone:
        if str(zone) not in _ZONE_NAMES and str(zone) != "UTC":
            raise ProfileOverrideError(f"business_time_zone: {zone!r} is not an IANA time zone")
        profile.business_time_zone = str(zone)
    start = overrides.get("fiscal_year_start")
    if start is not None:
        if not isinstance(start, int) or not 1 <= start <= 12:
            raise ProfileOverrideError("fiscal_year_start: expected a month number 1-12")
        profile.fiscal_year_start = start
    if overrides.get("as_of"):
        value = overrides["as_of"]
        profile.as_of = value if isinstance(value, dt.date) else dt.date.fromisoformat(str(value))
    for item in overrides.get("measures") or []:
        if not isinstance(item, dict) or not {"value", "table"} <= set(item):
            raise ProfileOverrideError("measures: each needs at least value and table")
        table = next((n for n in profile.tables if n.lower() == str(item["table"]).lower()), None)
        if table is None or table not in profile.facts:
            raise ProfileOverrideError(f"measures: {item['table']!r} is not a fact table of this schema")
        expression = item.get("expression")
        if expression:
            try:
                sqlglot.parse_one(str(expression))
            except sqlglot.errors.ParseError as err:
                raise ProfileOverrideError(f"measures: cannot parse {expression!r}: {err}") from None
        column = item.get("column")
        kind = "expression" if expression else "sum"
        measure = Measure(slug(str(item["value"])), str(item.get("label") or item["value"]), kind, table,
                          (str(column),) if column else (), money=bool(item.get("money", False)),
                          expression=str(expression) if expression else None,
                          words=tuple(str(w).lower() for w in item.get("words") or [str(item["value"])]))
        fact = profile.facts[table]
        fact.measures = [m for m in fact.measures if m.value != measure.value] + [measure]


def _zone_columns(tables: dict[str, TableInfo]) -> list[ZoneColumn]:
    found = []
    for table in tables.values():
        for column in table.columns:
            if column.family != "text" or not column.samples:
                continue
            zones = [s for s in column.samples if s in _ZONE_NAMES]
            if zones and len(zones) >= 0.8 * len(column.samples) and any("/" in z for z in zones):
                found.append(ZoneColumn(table.name, column.name, tuple(sorted(zones))))
    return found


def _currency_columns(tables: dict[str, TableInfo]) -> list[CurrencyColumn]:
    found = []
    for table in tables.values():
        for column in table.columns:
            if column.family != "text" or not column.samples:
                continue
            codes = [s for s in column.samples if _CODE.match(s)]
            named = "currency" in words(column.name) or "ccy" in words(column.name)
            known = [c for c in codes if c in _KNOWN_CODES]
            if codes and len(codes) == len(column.samples) and (named or len(known) >= max(1, len(codes) // 2)):
                found.append(CurrencyColumn(table.name, column.name, tuple(sorted(codes))))
    return found


def _rate_table(tables: dict[str, TableInfo], money: list[CurrencyColumn]) -> RateTable | None:
    for column in money:
        table = tables[column.table]
        dates = _time_columns(table)
        rates = [c for c in table.columns if c.family == "numeric" and not _is_key(table, c)
                 and (set(words(c.name)) & {"rate", "per", "fx", "usd", "eur", "multiplier", "factor"})]
        if dates and rates and (set(words(table.name)) & {"rate", "rates", "exchange", "fx", "conversion"}
                                or set(words(rates[0].name)) & {"rate", "per"}):
            rate = rates[0]
            target = next((w.upper() for w in words(rate.name) if w.upper() in _KNOWN_CODES), "USD")
            date_column = dates[0]
            return RateTable(table.name, column.column, date_column.name, rate.name, target,
                             date_only=date_column.type.upper().strip() == "DATE")
    return None


def _fiscal_table(tables: dict[str, TableInfo]) -> tuple[TableInfo, dict[str, str]] | None:
    for table in tables.values():
        names = set(words(table.name))
        if not names & {"fiscal", "calendar", "period", "periods"}:
            continue
        roles: dict[str, str] = {}
        for column in table.columns:
            parts = set(words(column.name))
            if column.family == "temporal" and parts & {"start", "begin", "from", "first"}:
                roles.setdefault("start", column.name)
            elif column.family == "temporal" and parts & {"end", "to", "last", "through", "until"}:
                roles.setdefault("end", column.name)
            elif "year" in parts:
                roles.setdefault("year", column.name)
            elif "quarter" in parts:
                roles.setdefault("quarter", column.name)
            elif column.family == "text" and parts & {"name", "label"}:
                roles.setdefault("label", column.name)
        if {"start", "end"} <= set(roles):
            return table, roles
    return None


def _read_fiscal(found: tuple[TableInfo, dict[str, str]], lookup: Lookup,
                 profile: SchemaProfile) -> FiscalCalendar | None:
    table, roles = found
    keys = ["start", "end", "year", "quarter", "label"]
    select = [exp.column(roles[k], quoted=True) if k in roles else exp.Null() for k in keys]
    query = exp.select(*select).from_(exp.to_table(table.name, quoted=True)).order_by(
        exp.column(roles["start"], quoted=True))
    try:
        rows = lookup(query)
    except Exception as err:  # noqa: BLE001 - a failed lookup only means no fiscal calendar
        profile.notes.append(f"fiscal calendar {table.name} not read: {str(err).splitlines()[0]}")
        return None
    periods = []
    for start, end, year, quarter, label in rows:
        first, last = _as_date(start), _as_date(end)
        if first is None or last is None or last < first:
            continue
        periods.append((first, last, year, quarter, label))
    if not periods:
        return None
    # end dates are inclusive when a period's end is the day before the next start
    inclusive = any(b[0] == a[1] + dt.timedelta(days=1) for a, b in zip(periods, periods[1:])) or len(periods) == 1
    built = []
    for index, (first, last, year, quarter, label) in enumerate(periods):
        end = last + dt.timedelta(days=1) if inclusive else last
        year_text = _fy_label(year, first)
        quarter_text = f"Q{quarter}" if isinstance(quarter, int) or str(quarter).isdigit() else str(quarter or "")
        built.append(FiscalPeriod(year_text, quarter_text, str(label) if label is not None else
                                  f"{year_text} P{index + 1:02d}", first, end))
    return FiscalCalendar(table.name, tuple(built))


def _fy_label(value: Any, start: dt.date) -> str:
    if value is None:
        return f"FY{start.year}"
    text = str(value)
    return text if text.upper().startswith("FY") else f"FY{text}"


def _read_time_ranges(profile: SchemaProfile, lookup: Lookup) -> None:
    seen: dict[tuple[str, str], TimeColumn] = {}
    for fact in profile.facts.values():
        if fact.time is None:
            continue
        key = (fact.time.table, fact.time.column)
        if key in seen:
            fact.time = seen[key]
            continue
        seen[key] = fact.time
        column = exp.column(fact.time.column, quoted=True)
        query = exp.select(exp.Min(this=column.copy()), exp.Max(this=column.copy())).from_(
            exp.to_table(fact.time.table, quoted=True))
        try:
            rows = lookup(query)
        except Exception as err:  # noqa: BLE001
            profile.notes.append(f"time range of {fact.time.table}.{fact.time.column} not read: "
                                 f"{str(err).splitlines()[0]}")
            continue
        if rows:
            low, high = rows[0][0], rows[0][1]
            if isinstance(high, dt.datetime) and high.tzinfo is not None:
                fact.time.with_zone = True  # e.g. PostgreSQL timestamptz: compare with UTC-offset literals
            fact.time.earliest, fact.time.latest = _as_datetime(low), _as_datetime(high)
            if isinstance(high, str) and len(high.strip()) == 10:
                fact.time.date_only = True
            elif isinstance(high, dt.date) and not isinstance(high, dt.datetime):
                fact.time.date_only = True
    stamps = [t for t in seen.values() if t.latest]
    if stamps:
        profile.latest = max(t.latest for t in stamps if t.latest)
        profile.earliest = min(t.earliest for t in stamps if t.earliest)


def _read_zones(profile: SchemaProfile, lookup: Lookup) -> None:
    """Sampled values are bounded: read the full distinct list of each zone column (small)."""
    for column in profile.zone_columns:
        query = exp.select(exp.column(column.column, quoted=True)).distinct().from_(
            exp.to_table(column.table, quoted=True)).where(exp.column(column.column, quoted=True).is_(exp.Null()).not_())
        try:
            rows = lookup(query)
        except Exception:  # noqa: BLE001 - keep the sampled zones
            continue
        zones = sorted({str(r[0]) for r in rows if str(r[0]) in _ZONE_NAMES})
        if zones:
            column.zones = tuple(zones)


def _as_datetime(value: Any) -> dt.datetime | None:
    if value is None:
        return None
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.UTC).replace(tzinfo=None) if value.tzinfo else value
    if isinstance(value, dt.date):
        return dt.datetime.combine(value, dt.time())
    text = str(value).strip().replace("T", " ")
    for candidate in (text[:19], text[:16], text[:10]):
        try:
            return dt.datetime.fromisoformat(candidate)
        except ValueError:
            continue
    return None


def _as_date(value: Any) -> dt.date | None:
    moment = _as_datetime(value)
    return moment.date() if moment else None


def zone_info(name: str) -> ZoneInfo:
    return ZoneInfo(name)
