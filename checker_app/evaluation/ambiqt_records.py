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
takes it after look like different readings when the schema says they are the same (`listed_keys=True`
builds the tables as listed).

A record that cannot be read (schema text the parser refuses, a missing field) is kept as an example with
its `problem`, so a run counts and reports it instead of stopping. Model outputs
(`outputs/join-ambiguity/<model>.json`: `top5` per record, the same records in the same order) are attached
to the examples they were written for, matched on question and query1.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
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


def load_records(path: str | Path) -> list[dict]:
    data = load_json(Path(path))
    if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
        raise AmbiqtError(f"{path}: expected a JSON array of records")
    return data


def category_of(record: dict, path: str | Path = "") -> str:
    """P when the extra table holds aggregates (split_map lists max_/avg_ columns), J when it holds a column."""
    split = record.get("split_map")
    if isinstance(split, dict) and split:
        first = next(iter(split.values()))
        return "P" if isinstance(first, list) else "J"
    return "P" if "agg" in str(path) else "J"


def example_of(record: dict, index: int, path: str | Path = "", listed_keys: bool = False) -> Example:
    """One record as an example; a record that cannot be read carries its problem. A J record's split-off
    table is a vertical split of its base table (`vertical_split`) unless `listed_keys`."""
    text = {k: str(record.get(k) or "") for k in ("question", "query1", "query2", "db_id")}
    example = Example(category_of(record, path), index, text["question"], text["query1"], text["query2"], [],
                      text["db_id"], str(path), _mapped(record), str(record.get("orig_query") or text["query1"]))
    missing = [k for k in ("question", "query1", "query2", "schema_with_content") if not record.get(k)]
    if missing:
        example.problem = f"record lacks {', '.join(missing)}"
        return example
    try:
        example.tables = parse_schema(record["schema_with_content"])
        if example.category == "J" and not listed_keys:
            example.tables = vertical_split(example.tables, record)
    except AmbiqtError as err:
        example.problem = str(err)
    return example


def examples_from(records: Sequence[dict], path: str | Path = "", listed_keys: bool = False) -> list[Example]:
    return [example_of(record, index, path, listed_keys) for index, record in enumerate(records)]


def vertical_split(tables: list[Table], record: dict) -> list[Table]:
    """`tables` with each split-off table (`split_map` {base: column}, key from `primary_key`) rebuilt as a
    vertical split of its base table: its key column holds the base table's key values, turned by one row
    (row i pairs the key of base row i+1 with the listed value i), so every key has one row in both tables
    and the split-off value of a key is its base row's neighbour's. A record without that shape is left as it is."""
    by_name = {t.name.lower(): t for t in tables}
    keys = record.get("primary_key") if isinstance(record.get("primary_key"), dict) else {}
    replaced: dict[str, Table] = {}
    for base, column in (record.get("split_map") or {}).items():
        key = keys.get(base)
        source, split = by_name.get(str(base).lower()), by_name.get(f"{base}_{column}".lower())
        if not isinstance(column, str) or not key or source is None or split is None:
            continue
        base_key, split_key = source.column(key), split.column(key)
        if base_key is None or split_key is None or not base_key.values:
            continue
        turned = base_key.values[1:] + base_key.values[:1]
        replaced[split.name] = Table(split.name, [
            Column(c.name, list(turned), base_key.quoted) if c is split_key else c for c in split.columns])
    return [replaced.get(t.name, t) for t in tables]


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
    added = set()
    for base, what in (record.get("split_map") or {}).items():
        if isinstance(what, list):
            added.add(f"{base}_{what[0].split('_', 1)[1]}".lower())
        else:
            added.add(f"{base}_{what}".lower())
    return [t for t in tables if t.name.lower() not in added]


def synonym_examples(records: Sequence[dict], synonyms: dict, kind: str, limit: int | None = None) -> list[Example]:
    """C (kind 'column') or T (kind 'table') variants of P/J records, built as the module docstring says."""
    found: list[Example] = []
    seen: set[tuple[str, str]] = set()
    for index, record in enumerate(records):
        if limit is not None and len(found) >= limit:
            break
        db = synonyms.get(record.get("db_id", ""), {})
        sql = record.get("orig_query") or record.get("query1")
        if not db or not sql or (record.get("db_id"), sql) in seen:
            continue
        try:
            tree = sqlglot.parse_one(sql, read="mysql")
            tables = _base_tables(record)
        except (sqlglot.errors.SqlglotError, AmbiqtError, KeyError, TypeError):
            continue  # a record whose SQL or schema cannot be read gives no variant
        variant = _variant(tree, tables, {k.lower(): v for k, v in db.items()}, kind)
        if variant is None:
            continue
        name, target, tables_of, query1, query2 = variant
        seen.add((record.get("db_id"), sql))
        found.append(Example("T" if kind == "table" else "C", index, record["question"], query1, query2, tables_of,
                             str(record.get("db_id", "")), mapped=(name, target), original=sql))
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
        records: list[dict] = []
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
        for record in records:
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
