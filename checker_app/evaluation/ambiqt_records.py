"""AmbiQT records as examples to measure on, and real models' outputs for them.

Categories: P (tbl-agg, precomputed aggregate tables) and J (tbl-split, a column split off into its own
table) come with questions. C (column synonyms) and T (table synonyms) are built here from the P and J
records plus the synonym files: the record's extra table is dropped (back to the original schema), then
for C one column used by `orig_query` is replaced by its two synonyms (same values, query1 names the first,
query2 the second); for T one table used by `orig_query` is replaced by two tables named by its synonyms
(same columns and rows, query1 reads the first, query2 the second).

A J record's split-off table is built as a vertical split (`vertical_split`): its key column holds the
base table's key values, each paired with the listed value of the next row, so both tables hold one row per
key and the two readings differ only in which value goes with which key. The listed key samples are drawn
independently of the base table's (they match as a set in 10 of the 144 even validation records), so as
listed the join also drops rows, and a statement that takes the largest row before the join and one that
takes it after look like different readings when the schema says they are the same.

The base key lists each value once (a key listed twice made the join repeat rows, so the readings differed
by the repeat). And every record's keys named after their table are made whole (`whole_keys`): a column
`template_id` in `templates` or `template_type_code` in `ref_template_types` is that table's key, and a value
of the same column in another table is one of the key's values, as a foreign key guarantees on the real
database. As listed, a join to a lookup table dropped rows at random, so a statement that joins it to read
nothing from it answered one reading's rows and its right rewrite a third answer (AmbiQT J 43).
`listed_keys=True` builds the tables as listed.

A record that cannot be read (schema text the parser refuses, a missing field) is kept as an example with
its `problem`, so a run counts and reports it instead of stopping. Model outputs
(`outputs/join-ambiguity/<model>.json`: `top5` per record, the same records in the same order) are attached
to the examples they were written for, matched on question and query1.
"""
from __future__ import annotations

import itertools
import json
import re
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlglot
from sqlglot import exp

from checker_app.evaluation.ambiqt_schema import AmbiqtError, Column, Table, parse_schema

KNOWN_FILES = ("tbl-agg/train.json", "tbl-split/validation-even.json", "col-synonyms/two_col_synonyms.json",
               "tbl-synonyms/two_tbl_synonyms.json")
OUTPUTS = "outputs/join-ambiguity"


@dataclass
class Example:
    category: str
    index: int
    question: str
    query1: str
    query2: str
    tables: list[Table]
    db_id: str = ""
    source: str = ""
    mapped: tuple[str, str] | None = None   # (table, column) the ambiguity is about, from the record's split_map
    original: str = ""                      # the Spider query on the original schema (orig_query)
    problem: str | None = None              # why the record cannot be built (then tables is empty)
    outputs: dict[str, list[str]] = field(default_factory=dict)   # model -> its top-5 statements

    def reads(self, table: str, column: str) -> bool:
        """Whether the original query names the column (or, column empty, the table) at all."""
        text = (self.original or self.query1).lower()
        return re.search(r"(?<![a-z0-9_])" + re.escape((column or table).lower()) + r"(?![a-z0-9_])", text) is not None


def load_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise AmbiqtError(f"{path}: cannot read: {err}") from None


def load_records(path: str | Path) -> list[Any]:
    """The file's records; an entry that is not a JSON object is kept, to be counted where it stands."""
    data = load_json(Path(path))
    if not isinstance(data, list):
        raise AmbiqtError(f"{path}: expected a JSON array of records")
    return data


def category_of(record: dict, path: str | Path = "") -> str:
    """P when the extra table holds aggregates (split_map lists max_/avg_ columns), J when it holds a column."""
    split = record.get("split_map")
    if isinstance(split, dict) and split:
        first = next(iter(split.values()))
        return "P" if isinstance(first, list) else "J"
    return "P" if "agg" in str(path) else "J"


def example_of(record: Any, index: int, path: str | Path = "", listed_keys: bool = False) -> Example:
    """One record as an example; a record that cannot be read carries its problem. Unless `listed_keys`, keys
    named after their table are whole (`whole_keys`) and a J record's split-off table is a vertical split of its
    base table (`vertical_split`)."""
    if not isinstance(record, dict):
        return Example("P" if "agg" in str(path) else "J", index, "", "", "", [], source=str(path),
                       problem=f"record is a JSON {type(record).__name__}, not an object")
    text = {k: str(record.get(k) or "") for k in ("question", "query1", "query2", "db_id")}
    example = Example(category_of(record, path), index, text["question"], text["query1"], text["query2"], [],
                      text["db_id"], str(path), _mapped(record), str(record.get("orig_query") or text["query1"]))
    missing = [k for k in ("question", "query1", "query2", "schema_with_content") if not record.get(k)]
    if missing:
        example.problem = f"record lacks {', '.join(missing)}"
        return example
    try:
        example.tables = parse_schema(record["schema_with_content"])
        if not listed_keys:
            example.tables = whole_keys(example.tables, _added(record))
        if example.category == "J" and not listed_keys:
            example.tables = vertical_split(example.tables, record)
    except AmbiqtError as err:
        example.problem = str(err)
    except Exception as err:  # noqa: BLE001 - a record of a shape not seen yet is a counted error, not the end of the run
        example.problem = f"record not understood: {type(err).__name__}: {err}"
    return example


def examples_from(records: Sequence[Any], path: str | Path = "", listed_keys: bool = False) -> list[Example]:
    return [example_of(record, index, path, listed_keys) for index, record in enumerate(records)]


def vertical_split(tables: list[Table], record: dict) -> list[Table]:
    """`tables` with each split-off table (`split_map` {base: column}, key from `primary_key`) rebuilt as a
    vertical split of its base table: its key column holds the base table's key values, turned by one row
    (row i pairs the key of base row i+1 with the listed value i), so every key has one row in both tables
    and the split-off value of a key is its base row's neighbour's. The base key lists each value once (`_unique`).
    A record without that shape is left as it is."""
    by_name = {t.name.lower(): t for t in tables}
    keys = record.get("primary_key") if isinstance(record.get("primary_key"), dict) else {}
    replaced: dict[str, Table] = {}
    for base, column in _split_map(record).items():
        key = keys.get(base)
        source, split = by_name.get(str(base).lower()), by_name.get(f"{base}_{column}".lower())
        if not isinstance(column, str) or not key or source is None or split is None:
            continue
        base_key, split_key = source.column(key), split.column(key)
        if base_key is None or split_key is None or not base_key.values:
            continue
        unique = _unique(base_key.values)
        if unique != base_key.values:
            source = replaced[source.name] = Table(source.name, [
                Column(c.name, unique, c.quoted) if c is base_key else c for c in source.columns])
        turned = unique[1:] + unique[:1]
        replaced[split.name] = Table(split.name, [
            Column(c.name, list(turned), base_key.quoted) if c is split_key else c for c in split.columns])
    return [replaced.get(t.name, t) for t in tables]


def _unique(values: list[Any]) -> list[Any]:
    """A key's values with each repeat replaced by the smallest positive number it does not hold (of the repeated
    value's type): the samples are drawn with replacement, and a key listed twice made both readings' join repeat
    rows, so the readings differed by the repeat, not by the column."""
    seen: set[str] = set()
    unique = []
    for value in values:
        if value is not None and str(value) in seen:
            fresh = next(n for n in itertools.count(1) if str(type(value)(n)) not in seen)
            value = type(value)(fresh)
        if value is not None:
            seen.add(str(value))
        unique.append(value)
    return unique


_KEY_ENDINGS = ("_id", "_code", "id", "code")


def table_stem(name: str) -> str:
    """The thing a table holds one row of, as its key columns name it: `ref_template_types` -> `template_type`,
    `countries` -> `country`, `addresses` -> `address`, `people` -> `people`."""
    stem = name.lower().removeprefix("ref_")
    if stem.endswith("ies"):
        return stem[:-3] + "y"
    if stem.endswith(("sses", "xes", "ches", "shes")):
        return stem[:-2]
    return stem[:-1] if stem.endswith("s") and not stem.endswith("ss") else stem


def whole_keys(tables: list[Table], skip: Collection[str] = ()) -> list[Table]:
    """`tables` with every key referenced by name made whole, as a foreign key guarantees on the real database.

    A column named `<stem>_id` / `_code` (`id`, `code`) in the table whose stem it is (`table_stem`) is that
    table's key, and the same column in another table refers to it. A referring value the key lacks (compared as
    text: SQLite joins '10' to 10) takes the place of a repeated key value first (the samples are drawn with
    replacement, so a key may list a value twice), and where none is left it is replaced in the referring
    column by a key value, those it does not hold yet first, the same one for each occurrence. Every table keeps
    its rows (a row of NULLs added instead would sort first and answer 'the youngest'), and a join to the key's
    table drops none. Tables named in `skip` (the record's added table, built by AmbiQT from its base) are left
    as they are."""
    by_name = {t.name: list(t.columns) for t in tables}
    for table in tables:
        if table.name.lower() in skip:
            continue
        names = {table_stem(table.name) + ending for ending in _KEY_ENDINGS}
        for k, key in enumerate(by_name[table.name]):
            if key.name.lower() not in names or all(v is None for v in key.values):
                continue
            referring = [(other.name, i) for other in tables if other is not table and other.name.lower() not in skip
                         for i, c in enumerate(by_name[other.name]) if c.name.lower() == key.name.lower()]
            if not referring:
                continue
            orphans = list(dict.fromkeys(str(v) for name, i in referring for v in by_name[name][i].values
                                         if v is not None and str(v) not in {str(x) for x in key.values}))
            originals = {str(v): v for name, i in referring for v in by_name[name][i].values if v is not None}
            values, seen = list(key.values), set()
            for j, value in enumerate(values):
                if value is not None and str(value) in seen and orphans:
                    values[j] = originals[orphans.pop(0)]
                seen.add(str(value))
            by_name[table.name][k] = key = Column(key.name, values, key.quoted)
            for name, i in referring:
                column = by_name[name][i]
                by_name[name][i] = Column(column.name, _referring(column.values, key.values), column.quoted)
    return [Table(t.name, by_name[t.name]) if by_name[t.name] != t.columns else t for t in tables]


def _referring(values: list[Any], key: list[Any]) -> list[Any]:
    """`values` with each non-NULL value `key` lacks replaced by a value of `key`, the ones `values` does not hold
    first, the same replacement for each occurrence."""
    held = {str(v) for v in key if v is not None}
    if all(v is None or str(v) in held for v in values):
        return values
    present = {str(v) for v in values if v is not None}
    distinct = list(dict.fromkeys(v for v in key if v is not None))
    spare = [v for v in distinct if str(v) not in present] + [v for v in distinct if str(v) in present]
    replaced: dict[str, Any] = {}
    for value in values:
        if value is not None and str(value) not in held and str(value) not in replaced:
            replaced[str(value)] = spare[len(replaced) % len(spare)]
    return [replaced.get(str(v), v) if v is not None else None for v in values]


def _added(record: dict) -> set[str]:
    """The names of the tables AmbiQT added to the record's schema (split-off or precomputed)."""
    added = set()
    for base, what in _split_map(record).items():
        if isinstance(what, list):
            added.update(f"{base}_{str(w).split('_', 1)[1]}".lower() for w in what[:1] if "_" in str(w))
        else:
            added.add(f"{base}_{what}".lower())
    return added


def _split_map(record: dict) -> dict:
    split = record.get("split_map")
    return split if isinstance(split, dict) else {}


def _mapped(record: dict) -> tuple[str, str] | None:
    split = record.get("split_map")
    if not isinstance(split, dict) or not split:
        return None
    table, what = next(iter(split.items()))
    if isinstance(what, list):
        return (table, str(what[0]).split("_", 1)[1]) if what and "_" in str(what[0]) else None
    return table, str(what)


def _base_tables(record: dict) -> list[Table]:
    """The record's schema without the table AmbiQT added (the split-off or aggregate table)."""
    tables = parse_schema(record["schema_with_content"])
    added = _added(record)
    return [t for t in tables if t.name.lower() not in added]


def synonym_examples(records: Sequence[Any], synonyms: dict, kind: str, limit: int | None = None) -> list[Example]:
    """C (kind 'column') or T (kind 'table') variants of P/J records, built as the module docstring says; a
    record or synonym entry of another shape gives no variant (the P/J run counts the record itself)."""
    found: list[Example] = []
    seen: set[tuple[str, str]] = set()
    for index, record in enumerate(records):
        if limit is not None and len(found) >= limit:
            break
        if not isinstance(record, dict):
            continue
        db = synonyms.get(str(record.get("db_id", "")), {})
        sql = record.get("orig_query") or record.get("query1")
        if not isinstance(db, dict) or not db or not isinstance(sql, str) or (record.get("db_id"), sql) in seen:
            continue
        try:
            tree = sqlglot.parse_one(sql, read="mysql")
            tables = _base_tables(record)
            variant = _variant(tree, tables, {str(k).lower(): v for k, v in db.items()}, kind)
        except (sqlglot.errors.SqlglotError, AmbiqtError, KeyError, TypeError, AttributeError, ValueError):
            continue  # a record whose SQL, schema or synonyms cannot be read gives no variant
        if variant is None:
            continue
        name, target, tables_of, query1, query2 = variant
        seen.add((record.get("db_id"), sql))
        found.append(Example("T" if kind == "table" else "C", index, str(record.get("question") or ""), query1,
                             query2, tables_of, str(record.get("db_id", "")), mapped=(name, target), original=sql))
    return found


def _variant(tree: exp.Expression, tables: list[Table], entries: dict, kind: str
             ) -> tuple[str, str, list[Table], str, str] | None:
    by_name = {t.name.lower(): t for t in tables}
    used = [t.name.lower() for t in tree.find_all(exp.Table) if t.name.lower() in by_name]
    if not used or len(set(used)) > 1 and kind == "column":
        return None
    name = used[0]
    if kind == "table":
        pair = entries.get(name)
        if not (isinstance(pair, list) and len(pair) == 2) or any(_identifier(p) in by_name for p in pair):
            return None
        first, second = (_identifier(p) for p in pair)
        original = by_name[name]
        variant = [t for t in tables if t.name.lower() != name]
        variant += [Table(first, original.columns), Table(second, original.columns)]
        return name, "", variant, _rename_table(tree, name, first), _rename_table(tree, name, second)
    columns = {k.lower(): v for k, v in (entries.get(name) or {}).items()}
    referenced = [c.name.lower() for c in tree.find_all(exp.Column)]
    target = next((c for c in referenced if c in columns and by_name[name].column(c) is not None
                   and isinstance(columns[c], list) and len(columns[c]) == 2), None)
    if target is None:
        return None
    first, second = (_identifier(p) for p in columns[target])
    if first.lower() == second.lower() or any(by_name[name].column(p) for p in (first, second)):
        return None
    original = by_name[name]
    replaced: list[Column] = []
    for column in original.columns:
        if column.name.lower() == target:
            replaced += [Column(first, list(column.values), column.quoted),
                         Column(second, list(column.values), column.quoted)]
        else:
            replaced.append(column)
    variant = [Table(t.name, replaced) if t is original else t for t in tables]
    return name, target, variant, _rename_column(tree, target, first), _rename_column(tree, target, second)


def _identifier(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_]+", "_", text.strip()).strip("_").lower() or "x"


def _rename_table(tree: exp.Expression, old: str, new: str) -> str:
    copy = tree.copy()
    for table in copy.find_all(exp.Table):
        if table.name.lower() == old:
            if not table.alias:
                table.set("alias", exp.TableAlias(this=exp.to_identifier(table.name)))
            table.set("this", exp.to_identifier(new))
    return copy.sql(dialect="sqlite")


def _rename_column(tree: exp.Expression, old: str, new: str) -> str:
    copy = tree.copy()
    for column in copy.find_all(exp.Column):
        if column.name.lower() == old:
            column.set("this", exp.to_identifier(new))
    return copy.sql(dialect="sqlite")


def load_examples(path: str | Path, limit: int | None = None, synonyms_dir: str | Path | None = None,
                  listed_keys: bool = False) -> list[Example]:
    """Examples of one AmbiQT file: P/J records as they are; a synonyms file (two_col_synonyms.json or
    two_tbl_synonyms.json) gives C/T variants built from the P and J files found next to it."""
    path = Path(path)
    if "synonyms" in path.name:
        synonyms = load_json(path)
        if not isinstance(synonyms, dict):
            raise AmbiqtError(f"{path}: expected a JSON object db_id -> table -> synonyms")
        root = Path(synonyms_dir) if synonyms_dir else path.parent.parent
        records: list[Any] = []
        for name in KNOWN_FILES[:2]:
            if (root / name).exists():
                records.extend(load_records(root / name))
        if not records:
            raise AmbiqtError(f"{path}: the tbl-agg / tbl-split records to build variants from are not in {root}")
        return synonym_examples(records, synonyms, "table" if "tbl" in path.name else "column", limit)
    examples = examples_from(load_records(path), path, listed_keys)
    return examples[:limit] if limit is not None else examples


def attach_outputs(examples: Sequence[Example], folder: str | Path) -> list[str]:
    """Each model file's `top5` onto the J examples with the same question and query1; the models found."""
    folder = Path(folder)
    by_key: dict[tuple[str, str], list[Example]] = {}
    for example in examples:
        if example.category == "J":
            by_key.setdefault((example.question, example.query1), []).append(example)
    models = []
    for file in sorted(folder.glob("*.json")):
        records = load_records(file)
        attached = 0
        taken: dict[tuple[str, str], int] = {}
        for record in (r for r in records if isinstance(r, dict)):
            key = (str(record.get("question")), str(record.get("query1")))
            same = by_key.get(key, [])
            example = same[taken.get(key, 0)] if taken.get(key, 0) < len(same) else None
            taken[key] = taken.get(key, 0) + 1  # records with the same question pair up in order
            top = record.get("top5")
            if example is not None and isinstance(top, list):
                example.outputs[file.stem] = [str(s) for s in top[:5]]
                attached += 1
        if attached:
            models.append(file.stem)
    return models


def load_path(path: str | Path, limit: int | None = None, outputs: str | Path | None = None,
              listed_keys: bool = False) -> tuple[list[Example], list[str]]:
    """Examples of a file, or of every known AmbiQT file under a directory (`limit` per file), with the models'
    outputs found under `outputs` (default: the dataset's own `outputs/join-ambiguity`); and those models."""
    path = Path(path)
    if path.is_file():
        examples = load_examples(path, limit, listed_keys=listed_keys)
        root = path.parent.parent.parent
    elif path.is_dir():
        root = path.parent if path.name == "benchmark" else path
        benchmark = root / "benchmark" if (root / "benchmark").is_dir() else path
        files = [benchmark / name for name in KNOWN_FILES if (benchmark / name).is_file()]
        if not files:
            raise AmbiqtError(f"{path}: none of {', '.join(KNOWN_FILES)} is there")
        examples = [e for file in files for e in load_examples(file, limit, listed_keys=listed_keys)]
    else:
        raise AmbiqtError(f"{path}: no such file or directory")
    folder = Path(outputs) if outputs is not None else root / OUTPUTS
    if outputs is not None and not folder.is_dir():
        raise AmbiqtError(f"{folder}: no such directory of model outputs")
    models = attach_outputs(examples, folder) if folder.is_dir() else []
    return examples, models
