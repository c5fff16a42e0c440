"""Write the repair into the statement's own text, changing nothing else.

Qualifiers are inserted at each reference's offset in the original text (sqlglot keeps token offsets
on identifiers), so spacing, case, quoting and comments stay as the author wrote them. The one other
edit is expanding a `*` that yields two columns of the same name, and only when a reference needs one
of them (`SELECT id FROM (SELECT * FROM a JOIN b ON ...) t`): the star becomes the columns minus the
duplicate not chosen. The result is checked: it must re-parse to the original tree with exactly these
edits made, else the regenerated tree is used, else the repair fails.
"""
from __future__ import annotations

import functools

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from adapters.repair.problems import RepairError

TAG = "repair_ref"
PROJECTION_TAG = "repair_projection"


class RewriteFailed(RepairError):
    """The repaired text did not re-parse to the original tree plus the edits (should not happen)."""


def tag(tree: exp.Expr) -> None:
    """Number every column and every star projection of the parsed original; numbers survive a copy."""
    for index, column in enumerate(tree.find_all(exp.Column)):
        column.meta[TAG] = index
    count = 0
    for select in tree.find_all(exp.Select):
        for projection in select.expressions:
            if _is_star(projection):
                projection.meta[PROJECTION_TAG] = count
                count += 1


def apply(sql: str, tree: exp.Expr, qualifiers: dict[int, str], stars: dict[int, str], dialect: str) -> str:
    """`sql` with `qualifier.` before each tagged column in `qualifiers` and each tagged star projection
    in `stars` replaced by its expansion."""
    if not qualifiers and not stars:
        return sql
    read = dialect or None
    expected = tree.copy()
    for column in list(expected.find_all(exp.Column)):
        qualifier = qualifiers.get(column.meta.get(TAG, -1))
        if qualifier is not None:
            column.set("table", _identifier(qualifier, dialect))
    for select in list(expected.find_all(exp.Select)):
        projections: list[exp.Expr] = []
        changed = False
        for projection in select.expressions:
            replacement = stars.get(projection.meta.get(PROJECTION_TAG, -1)) if _is_star(projection) else None
            if replacement is None:
                projections.append(projection)
            else:
                projections.extend(sqlglot.parse_one(f"SELECT {replacement}", read=read).expressions)
                changed = True
        if changed:
            select.set("expressions", projections)
    edits: list[tuple[int, int, str]] = []   # (start, end exclusive, new text)
    positioned = True
    for column in tree.find_all(exp.Column):
        qualifier = qualifiers.get(column.meta.get(TAG, -1))
        if qualifier is None:
            continue
        start = column.this.meta.get("start") if isinstance(column.this, exp.Identifier) else None
        positioned = positioned and isinstance(start, int)
        if isinstance(start, int):
            edits.append((start, start, qualifier + "."))
    for select in tree.find_all(exp.Select):
        for projection in select.expressions:
            replacement = stars.get(projection.meta.get(PROJECTION_TAG, -1)) if _is_star(projection) else None
            if replacement is None:
                continue
            span = _span(projection)
            positioned = positioned and span is not None
            if span is not None:
                edits.append((span[0], span[1] + 1, replacement))
    wanted = expected.sql(dialect=read)
    if positioned:
        text = sql
        for start, end, new in sorted(edits, reverse=True):
            text = text[:start] + new + text[end:]
        if _renders_as(text, wanted, dialect):
            return text
    if _renders_as(wanted, wanted, dialect):
        return wanted
    raise RewriteFailed("the repaired statement does not re-parse to the original plus the repair")


def same_apart_from_qualifiers(original: str, repaired: str, dialect: str) -> bool:
    """Whether `repaired` is `original` with only table qualifiers added to columns (used by tests)."""
    read = dialect or None
    try:
        before = sqlglot.parse_one(original, read=read)
        after = sqlglot.parse_one(repaired, read=read)
    except SqlglotError:
        return False
    before_columns = list(before.find_all(exp.Column))
    after_columns = list(after.find_all(exp.Column))
    if len(before_columns) != len(after_columns):
        return False
    if any(b.table and b.table != a.table for b, a in zip(before_columns, after_columns)):
        return False
    for column in (*before_columns, *after_columns):
        if not isinstance(column.this, exp.Star):
            column.set("table", None)
    return before.sql(dialect=read) == after.sql(dialect=read)


def _is_star(projection: exp.Expr) -> bool:
    return isinstance(projection, exp.Star) or (
        isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star))


def _span(projection: exp.Expr) -> tuple[int, int] | None:
    if isinstance(projection, exp.Star):
        start, end = projection.meta.get("start"), projection.meta.get("end")
    else:
        table, star = projection.args.get("table"), projection.this
        start = table.meta.get("start") if isinstance(table, exp.Expression) else None
        end = star.meta.get("end") if isinstance(star, exp.Expression) else None
    return (start, end) if isinstance(start, int) and isinstance(end, int) else None


def _identifier(qualifier: str, dialect: str) -> exp.Expr:
    return _parsed_identifier(qualifier, dialect).copy()


@functools.lru_cache(maxsize=256)
def _parsed_identifier(qualifier: str, dialect: str) -> exp.Expr:
    column = sqlglot.parse_one(f"{qualifier}.x", read=dialect or None)
    table = column.args.get("table") if isinstance(column, exp.Column) else None
    return table if table is not None else exp.to_identifier(qualifier)


def _renders_as(text: str, wanted: str, dialect: str) -> bool:
    try:
        parsed = sqlglot.parse_one(text, read=dialect or None)
    except SqlglotError:
        return False
    return parsed.sql(dialect=dialect or None) == wanted
