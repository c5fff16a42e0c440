"""Building a profile: inference from introspection, then the team's overrides, then the live probes."""
from __future__ import annotations

from dataclasses import replace
from typing import Any

from adapters.schema import SchemaInfo, TableInfo
from archetypes.mappings import read_values
from archetypes.naming import words
from archetypes.profile.entities import find_entities
from archetypes.profile.facts import find_facts
from archetypes.profile.fiscal import FiscalSource, fiscal_table
from archetypes.profile.keys import join_graph
from archetypes.profile.locales import currency_columns, rate_table, zone_columns
from archetypes.profile.model import Lookup, SchemaProfile
from archetypes.profile.overrides import ProfileOverrides, apply_overrides, validated
from archetypes.profile.probe import read_fiscal, read_open_ends, read_time_ranges, read_zones


def build_profile(schema: SchemaInfo, lookup: Lookup | None = None,
                  overrides: dict[str, Any] | ProfileOverrides | None = None) -> SchemaProfile:
    """Infer the profile of `schema`; `lookup` runs a few aggregate queries (time range, fiscal periods)."""
    checked = validated(overrides)
    ignored = {t.lower() for t in checked.ignore_tables}
    tables = {t.name: t for t in schema.tables if t.name.lower() not in ignored}
    calendar_source = fiscal_table(tables)
    profile = apply_overrides(infer_profile(schema.dialect, tables, calendar_source), checked)
    if lookup is not None:
        profile = probe_profile(profile, lookup, calendar_source)
    if profile.as_of is None:
        primary = profile.primary_fact()
        latest = primary.time.latest if primary and primary.time else profile.latest
        if primary is not None and primary.time is not None and set(words(primary.time.column)) & _PLANNED:
            # milestones by their due date run into the future: the data's today is the last thing that happened
            done = [f.time.latest for f in profile.facts.values() if f.time is not None and f.time.latest is not None
                    and not set(words(f.time.column)) & _PLANNED]
            latest = max(done) if done else latest
        profile.as_of = latest.date() if latest else None
    return profile


# a date planned ahead, not one something happened on: a due date may lie past the data's last day
_PLANNED = frozenset({"due", "expected", "planned", "deadline", "scheduled", "promised", "eta", "expiry", "expires"})


def infer_profile(dialect: str, tables: dict[str, TableInfo], calendar_source: FiscalSource | None) -> SchemaProfile:
    """What the introspected tables alone say: keys, entities, facts, currency columns, zones (no query run)."""
    edges = join_graph(tables)
    money = currency_columns(tables)
    rates = rate_table(tables, money)
    # the rate table and the fiscal calendar are reference data: neither an entity nor a fact
    special = {rates.table if rates else None, calendar_source[0].name if calendar_source else None}
    return SchemaProfile(dialect=dialect, tables=tables, facts=find_facts(tables, edges, special),
                         entities=find_entities(tables, special), edges=edges, zone_columns=zone_columns(tables),
                         currency_columns=money, rate_table=rates)


def probe_profile(profile: SchemaProfile, lookup: Lookup, calendar_source: FiscalSource | None) -> SchemaProfile:
    """The profile with what the data says: time ranges, the fiscal periods, every zone, column values."""
    ranges = read_time_ranges(profile.facts, lookup)
    facts = {name: replace(fact, time=ranges.columns[(fact.time.table, fact.time.column)]) if fact.time else fact
             for name, fact in profile.facts.items()}
    notes = list(profile.notes) + ranges.notes
    fiscal = None
    if calendar_source:
        fiscal, note = read_fiscal(calendar_source, lookup)
        notes += [note] if note else []
    probed = replace(profile, facts=facts, notes=notes, fiscal=fiscal,
                     zone_columns=read_zones(profile.zone_columns, lookup), earliest=ranges.earliest if ranges.latest else profile.earliest,
                     latest=ranges.latest or profile.latest, open_ends=read_open_ends(profile.tables, lookup),
                     probed=True)
    probed.cache["column_values"] = read_values(profile.tables, lookup)  # twin columns (archetypes.mappings)
    return probed
