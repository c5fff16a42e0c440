"""The schema profile: what the archetypes know about a database, inferred from introspection.

Fact tables and their measures, entity tables and their name columns, foreign-key paths, timestamps,
currency columns and rate tables, time-zone columns, a fiscal calendar, the data's time range. Nothing here
knows any particular schema: every role is recognised from names, types, keys and sampled values.

The layers, each a module of plain functions passing values to the next:

* ``model``: the dataclasses (the semantic model the detectors and the query builder read);
* inference from introspection, no query run: ``keys`` (keys, join graph), ``entities``, ``facts`` (time
  columns, measures), ``locales`` (currency columns, exchange rates, time zones), ``fiscal`` (the calendar table);
* ``overrides``: the team's YAML corrections, read into typed records (one-line errors naming the key);
* ``probe``: the few live queries (time ranges, fiscal periods, every zone), through the caller's lookup;
* ``build``: ``build_profile``, which composes them in that order.
"""
from __future__ import annotations

from archetypes.profile.build import build_profile
from archetypes.profile.model import (
    CurrencyColumn,
    Edge,
    Entity,
    Fact,
    FiscalCalendar,
    FiscalPeriod,
    Lookup,
    Measure,
    RateTable,
    SchemaProfile,
    TimeColumn,
    ZoneColumn,
)
from archetypes.profile.overrides import ProfileOverrides, load_profile_overrides

__all__ = [
    "CurrencyColumn", "Edge", "Entity", "Fact", "FiscalCalendar", "FiscalPeriod", "Lookup", "Measure",
    "ProfileOverrides", "RateTable", "SchemaProfile", "TimeColumn", "ZoneColumn", "build_profile",
    "load_profile_overrides"
]

