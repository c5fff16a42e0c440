"""What a profile says to the archetypes, as one comparable text: engines whose profiles share it read a
question the same way, so one analysis serves them all (only the rendering differs per dialect).

Two profiles of one schema on different engines differ in ways no reading depends on, and the signature
leaves those out:

* the dialect and the type names as each engine spells them (``TEXT``, ``character varying``): the
  archetypes read a column's family, whether it holds dates only and whether it carries a zone;
* the order in which the catalog lists foreign keys, and the engine's collation order of a small table's
  sampled values: the signature lists both sorted;
* a large table's row count where both engines estimate it (PostgreSQL ``reltuples``, MariaDB
  ``TABLE_ROWS``): each is a guess at the same number, and only whether the table is large is kept.

Everything else is compared as it is: tables, columns, keys, facts, measures, entities, join edges, time
ranges, zones, currency codes, the fiscal calendar, overrides, and the twin columns found in the data
(not the values read for them: '12.6' on SQLite is '12.60' on PostgreSQL). A
schema spelled differently on another engine (Chinook in snake_case on PostgreSQL) has another signature
and is analysed on its own.
"""
from __future__ import annotations

import dataclasses
from typing import Any

from adapters.column_types import has_zone, is_date_only
from adapters.schema import TableInfo
from archetypes.profile.model import SchemaProfile

_LEFT_OUT = frozenset({"dialect", "tables", "facts", "entities", "edges", "cache"})


def reading_signature(profile: SchemaProfile) -> str:
    """The profile's signature (computed once per profile object and kept in its cache)."""
    cached = profile.cache.get("reading_signature")
    if isinstance(cached, str):
        return cached
    estimated = {name for name, table in profile.tables.items() if table.estimated}
    parts: dict[str, Any] = {f.name: getattr(profile, f.name) for f in dataclasses.fields(profile)
                             if f.name not in _LEFT_OUT}
    # facts and entities carry their table's row count: an estimate is left out there too
    parts["facts"] = {name: dataclasses.replace(fact, row_count=0) if fact.table in estimated else fact
                      for name, fact in profile.facts.items()}
    parts["entities"] = {name: dataclasses.replace(entity, row_count=0) if entity.table in estimated else entity
                         for name, entity in profile.entities.items()}
    parts["tables"] = sorted(_table(t) for t in profile.tables.values())
    parts["edges"] = {name: sorted(map(repr, edges)) for name, edges in sorted(profile.edges.items())}
    # the number and date values read for twin columns are spelled per engine ('12.6', '12.60'): what the
    # archetypes take from them is the mappings they find, compared instead
    from archetypes.mappings import schema_mappings

    parts["mappings"] = schema_mappings(profile)
    signature = repr(parts)
    profile.cache["reading_signature"] = signature
    return signature


def _table(table: TableInfo) -> str:
    columns = [(c.name, c.family, is_date_only(c.type), has_zone(c.type), c.nullable, sorted(c.samples))
               for c in table.columns]
    keys = sorted((tuple(fk.columns), fk.ref_table, tuple(fk.ref_columns)) for fk in table.foreign_keys)
    count = "estimated" if table.estimated else table.row_count
    return repr((table.name, columns, tuple(table.primary_key), keys, count))
