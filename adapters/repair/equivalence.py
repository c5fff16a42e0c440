"""When two candidate columns provably hold the same value where a reference is evaluated.

Proofs are equalities between columns: an inner join's `ON a.x = b.x` (or a top-level AND term of it),
an inner `USING (x)` / NATURAL join, and top-level AND terms of WHERE. An outer join's ON proves nothing
outside itself (the nullable side may be NULL), and a later RIGHT or FULL join undoes earlier proofs.
Equal under `=` is only "same value" when the types agree: same family; for text not on MySQL or
SQL Server (case-insensitive collations: 'Rock' = 'ROCK') nor fixed-width CHAR (blank padding); for
dates and times the same type.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from sqlglot import exp

from adapters.repair.scopes import Context, conjuncts
from adapters.repair.sources import ColumnNode, ScopeModel

CASE_INSENSITIVE_TEXT = ("mysql", "tsql")


@dataclass(frozen=True, eq=False)
class Link:
    """`a = b` holds for every row that reaches a context where the link is valid."""

    a: ColumnNode
    b: ColumnNode
    kind: str                  # on | using | where
    step: int | None           # join step (on, using)
    conjunct: int | None       # AND term (on, where)
    inner: bool
    text: str                  # as shown in the log: "Track.GenreId = Genre.GenreId", "USING (id)"


def links(model: ScopeModel, dialect: str) -> list[Link]:
    """Every equality of one scope that could prove two columns equal, type-compatible ones only."""
    cache = model.__dict__.setdefault("_links", {})
    if dialect in cache:
        return cache[dialect]
    found: list[Link] = []
    for step in model.steps[1:]:
        on = step.node.args.get("on") if step.node is not None else None
        for index, term in enumerate(conjuncts(on)):
            pair = _equality(model, term, step.index)
            if pair:
                found.append(Link(*pair, "on", step.index, index, step.inner, term.sql(dialect=dialect or None)))
    for step, left, right in model.merges:
        using = "NATURAL JOIN" if step.natural else f"USING ({right.column})"
        found.append(Link(left, right, "using", step.index, None, step.inner, using))
    where = model.expression.args.get("where") if isinstance(model.expression, exp.Select) else None
    for index, term in enumerate(conjuncts(where.this if where is not None else None)):
        pair = _equality(model, term, None)
        if pair:
            found.append(Link(*pair, "where", None, index, True, term.sql(dialect=dialect or None)))
    result = [link for link in found if same_value_domain(link.a, link.b, dialect)]
    cache[dialect] = result
    return result


def valid_in(link: Link, context: Context, model: ScopeModel) -> bool:
    """Whether `link` holds for the rows a reference in `context` sees."""
    kills = [s.index for s in model.steps if s.side in ("RIGHT", "FULL")]
    if link.kind in ("on", "using"):
        assert link.step is not None
        if context.where == "on" and context.join is not None:
            if link.step == context.join:
                return link.kind == "on" and link.conjunct != context.conjunct
            if link.step > context.join or not link.inner:
                return False
            return not any(link.step < k < context.join for k in kills)
        return link.inner and not any(k > link.step for k in kills)
    if context.where == "on":
        return False
    if context.where == "where":
        return link.conjunct != context.conjunct
    return True


def same_value_domain(a: ColumnNode, b: ColumnNode, dialect: str) -> bool:
    """Whether `a = b` being true means a and b hold the same value (types traced from the schema)."""
    if a.family is None or b.family is None or a.family != b.family:
        return False
    if a.family == "numeric":
        return True
    if a.family == "text":
        return dialect not in CASE_INSENSITIVE_TEXT and not (_fixed_char(a.type) or _fixed_char(b.type))
    return _base_type(a.type) == _base_type(b.type)


class Classes:
    """Union-find over columns, joined by the links allowed."""

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}
        self.used: dict[int, list[Link]] = {}

    def find(self, node: ColumnNode) -> int:
        i = id(node)
        self._parent.setdefault(i, i)
        while self._parent[i] != i:
            self._parent[i] = self._parent[self._parent[i]]
            i = self._parent[i]
        return i

    def join(self, link: Link) -> None:
        ra, rb = self.find(link.a), self.find(link.b)
        if ra != rb:
            self._parent[ra] = rb
            self.used.setdefault(rb, []).extend(self.used.pop(ra, []))
        self.used.setdefault(rb, []).append(link)

    def proof(self, node: ColumnNode) -> list[Link]:
        return list(self.used.get(self.find(node), []))


def classes(valid: list[Link], kinds: tuple[str, ...]) -> Classes:
    result = Classes()
    for link in valid:
        if link.kind in kinds:
            result.join(link)
    return result


def _equality(model: ScopeModel, term: exp.Expr, upto: int | None) -> tuple[ColumnNode, ColumnNode] | None:
    if not isinstance(term, exp.EQ):
        return None
    left, right = _column(model, term.this, upto), _column(model, term.expression, upto)
    if left is None or right is None or left is right:
        return None
    return left, right


def _column(model: ScopeModel, node: exp.Expr, upto: int | None) -> ColumnNode | None:
    while isinstance(node, exp.Paren):
        node = node.this
    if not isinstance(node, exp.Column) or not isinstance(node.this, exp.Identifier):
        return None
    if node.table:
        source = model.source(node.table)
        if source is None or (upto is not None and source.join_index > upto):
            return None
        nodes = model.node(node.table, node.name)
        return nodes[0] if len(nodes) == 1 else None
    slots = model.slots(node.name, upto)
    return slots[0].rep if len(slots) == 1 else None


def _fixed_char(type_text: str | None) -> bool:
    upper = (type_text or "").upper().strip()
    return bool(re.match(r"^(N?CHAR|CHARACTER|BPCHAR)\b(?!\s*VARYING)", upper))


def _base_type(type_text: str | None) -> str:
    return re.sub(r"\(.*\)", "", (type_text or "").upper()).strip()
