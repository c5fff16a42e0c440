"""Entity tables: the things a question names and ranks, found by a column that holds their names."""
from __future__ import annotations

from adapters.schema import SAMPLE_VALUES, TableInfo
from archetypes.naming import phrase, singular, words
from archetypes.profile.keys import is_key
from archetypes.profile.model import Entity

_NAME_WORDS = ("name", "title", "label")
_CODE_WORDS = {"serial", "sku", "plate", "registration", "vin"}  # a code that names a row where no name does
_PLACE_NOUNS = {"office", "branch", "site", "location", "warehouse", "depot", "hub", "campus", "facility", "store",
                "shop", "clinic", "plant"}
_NAME_PREFIXES = {"company", "full", "display", "business", "brand", "trade", "legal", "short", "common"}


def find_entities(tables: dict[str, TableInfo], skip: set[str | None]) -> dict[str, Entity]:
    """{table: entity} for every table (but `skip`) with a name column."""
    return {name: found for name, table in tables.items() if name not in skip and (found := entity(table))}


def entity(table: TableInfo) -> Entity | None:
    """The table as a thing questions name, when a column holds its names (or first and last names)."""
    text = [c for c in table.columns if c.family == "text" and not is_key(table, c)]
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
    if not chosen:  # sellers named by their 'shop_name', buyers by their 'username': the one name column there is
        named = [c.name for c in text if words(c.name) and (words(c.name)[-1] in ("name", "title") or
                                                            tuple(words(c.name)) in (("username",), ("handle",), ("nickname",)))]
        # (an order's ShipName beside ShipAddress and ShipCity names whom it goes to, not the order)
        block = len(named) == 1 and len(words(named[0])) > 1 and sum(
            1 for c in table.columns if words(c.name)[:1] == words(named[0])[:1]) > 1
        # (a prescription's drug_name repeats on many rows: it names the drug, not the row; a shop name is one shop's)
        held = table.column(named[0]) if len(named) == 1 else None
        unique = held is not None and table.row_count is not None and \
            len(held.samples) >= min(table.row_count, SAMPLE_VALUES)
        chosen = (named[0],) if len(named) == 1 and not block and unique else ()
    if not chosen:  # 'bikes' named by their serial number, parts by their sku: the code people say
        chosen = next(((c.name,) for c in text if set(words(c.name)) & _CODE_WORDS), ())
    if not chosen and {singular(w) for w in head} & _PLACE_NOUNS:
        # 'which office has the most employees': a place with no name column is named by its city
        chosen = next(((c.name,) for c in text if tuple(words(c.name)) in (("city",), ("location",), ("site",),
                                                                           ("town",))), ())
    if not chosen:
        return None
    return Entity(table=table.name, name_columns=chosen, noun=noun, key=tuple(table.primary_key),
                  row_count=table.row_count)
