"""What values are measured in: currency columns, the exchange-rate table, time-zone columns."""
from __future__ import annotations

import re
from collections.abc import Iterator
from zoneinfo import available_timezones

from adapters.column_types import is_date_only
from adapters.schema import ColumnInfo, TableInfo
from archetypes.naming import singular, words
from archetypes.profile.facts import time_columns
from archetypes.profile.keys import is_key
from archetypes.profile.model import CurrencyColumn, RateTable, ZoneColumn

ZONE_NAMES = frozenset(available_timezones())
_CODE = re.compile(r"^[A-Z]{3}$")
_KNOWN_CODES = {"USD", "EUR", "GBP", "JPY", "CAD", "AUD", "CHF", "CNY", "INR", "BRL", "MXN", "SEK", "NOK", "DKK",
                "NZD", "SGD", "HKD", "KRW", "ZAR", "PLN", "CZK", "HUF", "TRY", "RUB", "ILS", "AED", "SAR", "THB"}


def zone_columns(tables: dict[str, TableInfo]) -> list[ZoneColumn]:
    """Text columns whose sampled values are IANA zone names (a region's zone, not 'UTC' alone)."""
    found = []
    for table, column in _sampled_text(tables):
        zones = [s for s in column.samples if s in ZONE_NAMES]
        if zones and len(zones) >= 0.8 * len(column.samples) and any("/" in z for z in zones):
            found.append(ZoneColumn(table.name, column.name, tuple(sorted(zones))))
    return found


def currency_columns(tables: dict[str, TableInfo]) -> list[CurrencyColumn]:
    """Text columns of three-letter codes, named like a currency or holding known ISO 4217 codes."""
    found = []
    for table, column in _sampled_text(tables):
        codes = [s for s in column.samples if _CODE.match(s)]
        named = "currency" in words(column.name) or "ccy" in words(column.name)
        known = [c for c in codes if c in _KNOWN_CODES]
        if codes and len(codes) == len(column.samples) and (named or len(known) >= max(1, len(codes) // 2)):
            # the samples come most frequent first: the code most rows are in is kept apart from the sorted list
            found.append(CurrencyColumn(table.name, column.name, tuple(sorted(codes)), codes[0]))
    return found


def _sampled_text(tables: dict[str, TableInfo]) -> Iterator[tuple[TableInfo, ColumnInfo]]:
    return ((t, c) for t in tables.values() for c in t.columns if c.family == "text" and c.samples)


def rate_table(tables: dict[str, TableInfo], money: list[CurrencyColumn]) -> RateTable | None:
    """A dated table of rates per currency: what converts amounts in several currency units into one."""
    for column in money:
        table = tables[column.table]
        dates = time_columns(table)
        rates = [c for c in table.columns if c.family == "numeric" and not is_key(table, c)
                 and (set(words(c.name)) & {"rate", "per", "fx", "usd", "eur", "multiplier", "factor"})]
        # a table of events that carry a price per something ('bookings' with a nightly_rate in each currency)
        # is no rate table: it points at other rows and holds more than a currency, a day and a rate
        events = any(not any(singular(w) == "currency" for w in words(fk.ref_table)) for fk in table.foreign_keys) or \
            len(table.columns) > 6
        if dates and rates and (set(words(table.name)) & {"rate", "rates", "exchange", "fx", "conversion"}
                                or set(words(rates[0].name)) & {"rate", "per"} and not events):
            rate = rates[0]
            target = next((w.upper() for w in words(rate.name) if w.upper() in _KNOWN_CODES), "USD")
            date_column = dates[0]
            return RateTable(table.name, column.column, date_column.name, rate.name, target,
                             date_only=is_date_only(date_column.type))
    return None
