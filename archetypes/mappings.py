"""Where a schema offers a second way to the same data: the mappings behind the schema_mapping archetype.

Found from the schema alone (names, keys, types), never from any one database:

* split      a table whose columns all repeat another table's (`singer_country(singer_id, country)` next to
             `singer(singer_id, name, country, ...)`): the value is read from the base row or through a join
             on the key.
* aggregate  a table with columns named `max_x`, `min_x`, `avg_x`, `total_x` (also `sum_`, `mean_`,
             `average_`) for a numeric column `x` of another table it is named after, points at or shares
             columns with: `AVG(t.x)` or the precomputed `a.avg_x`.
* twin       two tables with the same columns: either can answer.
* column     two text columns of one table with the same values (a renamed column kept next to the old one);
             and, depending on the question, two or more columns of one table a question word fits ('customer
             name': a company name and a contact name), which `schema_mapping` finds and `expand_sql` takes as
             extra mappings.

Each mapping is a `Mapping`: the named side (table, column) and the other side (other_table, other_column),
with the join key (split) or the aggregate function (aggregate).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from adapters.schema import ColumnInfo, TableInfo
from archetypes.naming import slug, words

AGG_PREFIXES = {"max": "max", "maximum": "max", "min": "min", "minimum": "min", "avg": "avg", "average": "avg",
                "mean": "avg", "total": "sum", "sum": "sum"}
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
_ID_WORDS = {"id", "key", "pk", "code", "no", "num", "number", "uuid"}


@dataclass(frozen=True)
class Mapping:
    kind: str                          # split | aggregate | twin | column
    table: str                         # the named side: T
    column: str | None                 # T.c (None for a whole-table twin)
    other_table: str                   # S / A / T2 / T
    other_column: str | None           # S.c / A.avg_c / None / T.c2
    key: tuple[tuple[str, str], ...] = ()   # split: (T column, S column) pairs joined on
    function: str | None = None        # aggregate: max | min | avg | sum
    inverse: bool = False              # seen from the other side: the statement reads S / A, T is the other way
    partner: str | None = None         # aggregate over a join: the other base table A was built from (T joined P)
    partner_key: tuple[tuple[str, str], ...] = ()   # (T column, P column) pairs T and P join on

    @property
    def value(self) -> str:
        """The reading value: naming-style independent, the same on every engine."""
        return _value(self.other_table, self.other_column)

    @property
    def named_value(self) -> str:
        return _value(self.table, self.column)

    def label(self) -> str:
        if self.inverse and self.kind == "split":
            return f"{self.other_column} from {self.other_table} itself instead of {self.table}"
        over = f" over {self.other_table if self.inverse else self.table} joined to {self.partner}" \
            if self.partner else ""
        if self.inverse and self.kind == "aggregate":
            return f"{(self.function or 'agg').upper()}({self.other_table}.{self.other_column}){over} instead of " \
                   f"the precomputed {self.table}.{self.column}"
        if self.kind == "split":
            on = ", ".join(a for a, _ in self.key)
            return f"{self.other_column} from {self.other_table} (joined to {self.table} on {on})"
        if self.kind == "aggregate":
            return f"precomputed {self.other_column} from {self.other_table} instead of " \
                   f"{(self.function or 'agg').upper()}({self.table}.{self.column}){over}"
        if self.kind == "twin":
            return f"table {self.other_table} instead of {self.table} (same columns)"
        return f"{self.table}.{self.other_column} instead of {self.table}.{self.column}"

    def reverse(self) -> Mapping:
        """The same pair seen from the other side (a statement that already uses the other table)."""
        return Mapping(self.kind, self.other_table, self.other_column, self.table, self.column,
                       tuple((b, a) for a, b in self.key), self.function, not self.inverse, self.partner,
                       self.partner_key)


def norm(name: str) -> str:
    """A naming-style independent form: CompanyName, company_name and companyName -> 'company_name'."""
    return "_".join(words(name)) or slug(name)


def _value(table: str, column: str | None) -> str:
    return f"{norm(table)}.{norm(column)}" if column else norm(table)


def _lower(names: Iterable[str]) -> set[str]:
    return {n.lower() for n in names}


def _columns(table: TableInfo) -> dict[str, str]:
    """lowercase name -> spelled name."""
    return {c.name.lower(): c.name for c in table.columns}


def _id_like(name: str) -> bool:
    parts = words(name)
    return bool(parts) and (parts[-1] in _ID_WORDS or parts[0] in ("id",))


def _named_after(child: str, parent: str) -> str | None:
    """'singer_country' after 'singer' -> 'country' (the rest of the child's name), else None."""
    head, full = words(parent), words(child)
    if len(full) > len(head) and full[:len(head)] == head:
        return "_".join(full[len(head):])
    return None


def find_mappings(tables: dict[str, TableInfo], values: dict[tuple[str, str], tuple[str, ...]] | None = None
                  ) -> list[Mapping]:
    """Every static mapping (split, aggregate, twin, twin columns) in `tables`, in a stable order; `values`
    are number and date columns' values (`read_values`) for twin columns."""
    found: list[Mapping] = []
    names = sorted(tables)
    twins: set[frozenset[str]] = set()
    for first in names:
        for second in names:
            if first >= second:
                continue
            a, b = tables[first], tables[second]
            if len(a.columns) >= 2 and _lower(c.name for c in a.columns) == _lower(c.name for c in b.columns) \
                    and _same_content(a, b, values or {}):
                twins.add(frozenset((first, second)))
                found.append(Mapping("twin", first, None, second, None))
                found.append(Mapping("twin", second, None, first, None))
    for child in names:
        found.extend(_splits(tables, child, twins))
        found.extend(_aggregates(tables, child))
        found.extend(_duplicates(tables[child], values))
    return found


VALUE_LIMIT = 50        # distinct values read per number / date column to find twins; more: not compared
VALUE_ROWS = 10_000     # larger tables are not read for twins: one GROUP BY per column costs more than it finds


def _twin_candidate(table: TableInfo, column: ColumnInfo) -> bool:
    """A column that can be the twin of another: not a key, not id-like, not a precomputed aggregate."""
    keys = set(table.primary_key) | {c for fk in table.foreign_keys for c in fk.columns}
    parts = words(column.name)
    return column.name not in keys and not _id_like(column.name) and not (parts and parts[0] in AGG_PREFIXES)


def read_values(tables: dict[str, TableInfo], lookup) -> dict[tuple[str, str], tuple[str, ...]]:
    """The distinct values (as text) of each number and date column that could have a twin, read with
    `lookup` (one small query per column; a column with more than VALUE_LIMIT values is left out)."""
    from sqlglot import exp

    found: dict[tuple[str, str], tuple[str, ...]] = {}
    shapes: dict[frozenset[str], int] = {}
    for table in tables.values():
        shapes[frozenset(_lower(c.name for c in table.columns))] = shapes.get(
            frozenset(_lower(c.name for c in table.columns)), 0) + 1
    for table in tables.values():
        if not table.row_count or table.row_count > VALUE_ROWS:
            continue
        numbers = [c for c in table.columns if c.family in ("numeric", "temporal")]
        if shapes[frozenset(_lower(c.name for c in table.columns))] > 1:
            columns = numbers  # a possible twin table: every column compared
        else:
            columns = [c for c in numbers if _twin_candidate(table, c)]
            if len(columns) < 2:
                continue
        for column in columns:
            ref = exp.column(exp.to_identifier(column.name, quoted=True))
            query = (exp.select(ref).from_(exp.Table(this=exp.to_identifier(table.name, quoted=True)))
                     .where(exp.Not(this=exp.Is(this=ref.copy(), expression=exp.Null())))
                     .group_by(ref.copy()).limit(VALUE_LIMIT + 1))
            try:
                rows = lookup(query)
            except Exception:  # noqa: BLE001 - a column that cannot be read has no twin
                continue
            if len(rows) <= VALUE_LIMIT:
                found[(table.name, column.name)] = tuple(sorted(_text(r[0]) for r in rows))
    return found


def _text(value: object) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _duplicates(table: TableInfo, values: dict[tuple[str, str], tuple[str, ...]] | None = None) -> list[Mapping]:
    """Two columns of one table whose values are the same, or one's a subset of the other's (a renamed column
    kept next to the old one, whatever the names): either can answer. Equal sets need two distinct values,
    a subset three and text or dates (numbers only as equal sets: quarters 1-4 are a subset of months 1-12);
    keys, id-like columns, precomputed aggregates and numbers stored as text are left out.
    Text columns compare their sampled values; number and date columns the values `read_values` found."""
    sets: list[tuple[str, str, frozenset[str]]] = []
    for column in table.columns:
        if not _twin_candidate(table, column):
            continue
        if column.family == "text":
            if not column.samples or all(_NUMBER.fullmatch(v.strip()) or not v.strip() for v in column.samples):
                continue
            sets.append((column.name, "text", frozenset(column.samples)))
        elif values and (table.name, column.name) in values:
            sets.append((column.name, column.family, frozenset(values[(table.name, column.name)])))
    found = []
    for first, family, mine in sets:
        for other, theirs_family, theirs in sets:
            if other == first or family != theirs_family:
                continue
            if mine == theirs and len(mine) >= 2 or family != "numeric" and min(len(mine), len(theirs)) >= 3 and (
                    mine <= theirs or theirs <= mine):  # numbers: quarters are a subset of months by chance
                found.append(Mapping("column", table.name, first, table.name, other))
    return found


def _same_content(a: TableInfo, b: TableInfo, values: dict[tuple[str, str], tuple[str, ...]]) -> bool:
    """Twins hold the same rows: equal row counts, equal sampled text values (lookup tables that share
    `(id, name)` hold different names) and equal number / date values where they were read."""
    if a.row_count != b.row_count:
        return False
    theirs = {c.name.lower(): c for c in b.columns}
    for column in a.columns:
        other = theirs[column.name.lower()]
        if sorted(column.samples) != sorted(other.samples) or values.get((a.name, column.name)) != values.get(
                (b.name, other.name)):
            return False
    return True


def _splits(tables: dict[str, TableInfo], child: str, twins: set[frozenset[str]]) -> list[Mapping]:
    table = tables[child]
    own = _columns(table)
    if len(own) < 2:
        return []
    parents = [n for n, t in tables.items() if n != child and frozenset((n, child)) not in twins
               and set(own) < set(_columns(t))]
    if not parents:
        return []
    fk_targets = {fk.ref_table.lower() for fk in table.foreign_keys}
    parents.sort(key=lambda n: (n.lower() not in fk_targets, _named_after(child, n) is None, len(tables[n].columns), n))
    parent = tables[parents[0]]
    theirs = _columns(parent)
    key = _split_key(table, parent)
    if not key:
        return []
    payload = [c for c in own if c not in key]
    if not payload:
        return []
    pairs = tuple((theirs[k], own[k]) for k in sorted(key))
    return [Mapping("split", parent.name, theirs[c], child, own[c], key=pairs) for c in payload]


def _split_key(table: TableInfo, parent: TableInfo) -> set[str]:
    """The columns `table` joins `parent` on: a declared foreign key to it; else, for a table that declares
    no foreign key and is named after the parent ('singer_country' of 'singer', 'film_text' of 'film'), the
    parent's declared primary key, or the columns that are not the named one, or its id-like columns. Two
    lookup tables that merely share `(id, name)` are not a split."""
    own = _columns(table)
    for fk in table.foreign_keys:
        if fk.ref_table.lower() == parent.name.lower() and fk.columns:
            return {c.lower() for c in fk.columns}
    rest = _named_after(table.name, parent.name)
    if table.foreign_keys or rest is None:
        return set()
    pk = {c.lower() for c in parent.primary_key}
    if pk and pk <= set(own) and pk != set(own):
        return pk
    payload = {c for c in own if slug(own[c]) == slug(rest)}
    if payload and len(payload) < len(own):
        return set(own) - payload
    ids = {c for c in own if _id_like(own[c])}
    if ids and ids != set(own):
        return ids
    return set()


def _aggregatable(column: ColumnInfo, function: str) -> bool:
    """A number column, or a text column whose sampled values are all numbers (numbers stored as text);
    for MAX / MIN also dates."""
    if column.family in ("numeric", "other") or column.family == "temporal" and function in ("max", "min"):
        return True
    values = [v for v in column.samples if v.strip()]
    if column.family != "text" or not values:
        return False
    if function in ("max", "min") and all(_DATE.match(v) for v in values):
        return True
    try:
        for value in values:
            float(value)
    except ValueError:
        return False
    return True


def _aggregates(tables: dict[str, TableInfo], child: str) -> list[Mapping]:
    table = tables[child]
    found: list[Mapping] = []
    own = _columns(table)
    fk_targets = {fk.ref_table.lower() for fk in table.foreign_keys}
    for column in table.columns:
        parts = words(column.name)
        if len(parts) < 2 or parts[0] not in AGG_PREFIXES:
            continue
        function = AGG_PREFIXES[parts[0]]
        rest = "_".join(parts[1:])
        candidates = []
        for name, base in tables.items():
            if name == child:
                continue
            target = next((c for c in base.columns if "_".join(words(c.name)) == rest and _aggregatable(c, function)),
                          None)
            if target is None:
                continue
            shared = set(own) & set(_columns(base)) - {target.name.lower()}
            related = (_named_after(child, name) is not None or name.lower() in fk_targets or bool(shared))
            if related:
                candidates.append((_named_after(child, name) is None, name.lower() not in fk_targets, -len(shared),
                                   name, target))
        joined = _joined_aggregate(tables, child, rest, function)
        if joined is not None:
            found.append(Mapping("aggregate", joined[0], joined[1], child, column.name, function=function,
                                 partner=joined[2], partner_key=joined[3]))
        elif candidates:
            candidates.sort(key=lambda c: c[:4])
            _, _, _, name, target = candidates[0]
            found.append(Mapping("aggregate", name, target.name, child, column.name,
                                 function=function))
    return found


def _joined_aggregate(tables: dict[str, TableInfo], child: str, rest: str, function: str
                      ) -> tuple[str, str, str, tuple[tuple[str, str], ...]] | None:
    """An aggregate table built over a join of two base tables, named after both and the column
    ('singer_song_sales': singer joined to song, song.sales): (T, T.x, P, join key), else None."""
    name = words(child)
    tail = tuple(rest.split("_"))
    if len(name) <= len(tail) or name[-len(tail):] != tail:
        return None
    head = name[:-len(tail)]
    for first in tables:
        for second in tables:
            if first == second or child in (first, second) or words(first) + words(second) != head:
                continue
            for base, partner in ((first, second), (second, first)):
                target = next((c for c in tables[base].columns if "_".join(words(c.name)) == rest
                               and _aggregatable(c, function)), None)
                if target is None:
                    continue
                theirs = _columns(tables[partner])
                key = tuple((c.name, theirs[c.name.lower()]) for c in tables[base].columns
                            if c.name.lower() in theirs and _id_like(c.name))
                if key:
                    return base, target.name, partner, key
    return None


def schema_mappings(profile) -> list[Mapping]:  # a SchemaProfile (kept loose to avoid a cycle)
    """`find_mappings` of a profile's tables, cached on the profile."""
    cached = profile.cache.get("schema_mappings")
    if cached is None:
        cached = find_mappings(profile.tables, profile.cache.get("column_values"))
        profile.cache["schema_mappings"] = cached
    return cached
