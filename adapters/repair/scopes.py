"""Static detection: every column reference of a statement that an engine would call ambiguous.

Per scope (sqlglot `traverse_scope`), each unqualified column is resolved the way the engines do:
* the innermost scope first; only a name no source of a subquery has goes to the outer query
  (a correlated reference), never the other way round;
* a join's ON clause sees the sources joined so far; a USING/NATURAL column is one merged column;
* a bare name in ORDER BY (and, on MySQL, GROUP BY and HAVING) first matches result column names:
  PostgreSQL and MySQL match any output name, SQLite only explicit `AS` aliases;
  PostgreSQL and SQLite read GROUP BY and HAVING names as input columns first.
A name that two or more sources offer is ambiguous; the candidates are those sources' columns.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp
from sqlglot.optimizer.scope import Scope, ScopeType, traverse_scope

from adapters.repair.names import key
from adapters.repair.sources import ColumnNode, ScopeModel, ScopeModels, Slot


@dataclass(frozen=True)
class NameRules:
    """How a dialect reads a bare name in ORDER BY / GROUP BY / HAVING."""

    order_outputs: str          # "all": any result column name; "aliases": explicit AS aliases only
    group_outputs_first: bool   # GROUP BY name: result columns before input columns (MySQL)
    having_outputs_first: bool  # HAVING: result columns before input columns (MySQL)


NAME_RULES = {
    "postgres": NameRules("all", False, False),
    "mysql": NameRules("all", True, True),
    "sqlite": NameRules("aliases", False, False),
    "tsql": NameRules("all", False, False),
}
DEFAULT_RULES = NAME_RULES["postgres"]


@dataclass(frozen=True)
class Context:
    """Where a reference is evaluated, for deciding which join equalities hold there."""

    where: str                 # "on" (a join's ON clause) | "where" | "post" (select list, GROUP BY...)
    join: int | None = None    # the join step of an ON clause
    conjunct: int | None = None  # the top-level AND term holding the reference (proves nothing itself)


@dataclass(eq=False)
class Reference:
    """One ambiguous reference in the tree."""

    node: exp.Expr       # the Column (or the USING identifier) as parsed
    column: str                # as written
    scope: ScopeModel          # the scope it is written in
    home: ScopeModel           # the scope whose sources it refers to (outer one when correlated)
    clause: str                # select | where | group | having | order | on | window | qualify | using
    context: Context
    kind: str                  # input | output | using | duplicate
    slots: list[Slot]
    between: list[ScopeModel] = field(default_factory=list)  # scopes from `scope` up to, not incl., `home`

    @property
    def position(self) -> int | None:
        identifier = self.node.this if isinstance(self.node, exp.Column) else self.node
        start = identifier.meta.get("start") if isinstance(identifier, exp.Expression) else None
        return start if isinstance(start, int) else None


@dataclass(frozen=True)
class AmbiguousReference:
    """Public view of an ambiguous reference: which column, where, and which tables have it."""

    column: str
    scope: str
    clause: str
    kind: str
    candidates: tuple[str, ...]      # "Track.Name", "t.Name (Track)"...
    tables: tuple[str | None, ...]    # base tables behind the candidates (None for a CTE/derived table)
    position: int | None              # 0-based offset of the reference in the SQL text
    reference: Reference | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        return {"column": self.column, "scope": self.scope, "clause": self.clause, "kind": self.kind,
                "candidates": list(self.candidates), "tables": list(self.tables), "position": self.position}


@dataclass(eq=False)
class Detection:
    """Everything static detection found in one statement."""

    references: list[Reference]
    unknown: list[tuple[str, exp.Column]]   # unqualified names no visible source has
    models: ScopeModels
    scopes: list[Scope]


def detect(tree: exp.Expr, models: ScopeModels) -> Detection:
    scopes = traverse_scope(tree)
    owner = {id(s.expression): s for s in scopes}
    references: list[Reference] = []
    unknown: list[tuple[str, exp.Column]] = []
    rules = NAME_RULES.get(models.dialect, DEFAULT_RULES)
    for column in tree.find_all(exp.Column):
        if not isinstance(column.this, exp.Identifier):
            continue  # t.*
        scope = _owning_scope(column, owner)
        if scope is None:
            continue
        model = models.model(scope)
        if column.table:
            ref = _qualified(column, model, models)
        else:
            ref = _unqualified(column, model, models, rules, unknown)
        if ref is not None:
            references.append(ref)
    for scope in scopes:
        model = models.model(scope)
        for name, step, left in model.using_problems:
            if len(left) < 2 or step.node is None:
                continue
            identifier = next((i for i in step.node.args.get("using") or [] if key(i.name) == name), step.node)
            references.append(Reference(identifier, name, model, model, "using", Context("on", step.index),
                                        "using", left))
    references.sort(key=lambda r: (r.position if r.position is not None else 1 << 30))
    return Detection(references, unknown, models, scopes)


def describe_scope(model: ScopeModel) -> str:
    scope = model.scope
    expression = scope.expression
    if scope.scope_type == ScopeType.ROOT:
        return "main query"
    if scope.scope_type == ScopeType.CTE:
        cte = expression.find_ancestor(exp.CTE)
        return f"CTE {cte.alias}" if cte is not None else "CTE"
    if scope.scope_type == ScopeType.DERIVED_TABLE:
        parent = expression.parent
        alias = parent.alias if isinstance(parent, exp.Subquery) else ""
        return f"derived table {alias}".strip()
    if scope.scope_type == ScopeType.SET_OPERATION:
        return "set operation"
    if scope.scope_type == ScopeType.SUBQUERY and scope.parent is not None:
        clause, *_ = locate(expression, scope.parent.expression)
        return f"subquery in {clause.upper() if clause != 'select' else 'SELECT list'}"
    return scope.scope_type.name.lower().replace("_", " ")


# -- locating a node within its scope ---------------------------------------------------------

_CLAUSE_OF_ARG = {
    "expressions": "select", "where": "where", "group": "group", "having": "having", "order": "order",
    "joins": "on", "windows": "window", "qualify": "qualify", "distinct": "select", "from_": "from",
}


def locate(node: exp.Expr, scope_expression: exp.Expr) -> tuple[str, Context, bool]:
    """(clause, context, simple): simple means the node is a whole ORDER BY / GROUP BY item."""
    path: list[exp.Expr] = []
    child = node
    while child.parent is not None and child.parent is not scope_expression:
        path.append(child)
        child = child.parent
    path.append(child)
    arg = (child.arg_key or "") if child.parent is scope_expression else ""
    clause = _CLAUSE_OF_ARG.get(arg, arg or "other")
    in_window = any(isinstance(p, exp.Window) for p in path)
    if clause == "on" and isinstance(child, exp.Join):
        joins = scope_expression.args.get("joins") or []
        step = next(i for i, j in enumerate(joins) if j is child) + 1
        on = child.args.get("on")
        return "on", Context("on", step, _conjunct(on, path)), False
    if clause == "where":
        return "where", Context("where", None, _conjunct(scope_expression.args["where"].this, path)), False
    simple = (
        (clause == "order" and isinstance(node.parent, exp.Ordered) and isinstance(node.parent.parent, exp.Order)
         and node.parent.parent.parent is scope_expression)
        or (clause == "group" and isinstance(node.parent, exp.Group))
    )
    return ("window" if in_window else clause), Context("post"), simple and not in_window


def conjuncts(condition: exp.Expr | None) -> list[exp.Expr]:
    if condition is None:
        return []
    return list(condition.flatten()) if isinstance(condition, exp.And) else [condition]


def _conjunct(condition: exp.Expr | None, path: list[exp.Expr]) -> int | None:
    ids = {id(p) for p in path}
    for index, term in enumerate(conjuncts(condition)):
        if id(term) in ids:
            return index
    return None


def _owning_scope(node: exp.Expr, owner: dict[int, Scope]) -> Scope | None:
    parent = node.parent
    while parent is not None:
        if id(parent) in owner:
            return owner[id(parent)]
        parent = parent.parent
    return None


# -- resolving ---------------------------------------------------------------------------------

def _outputs(select: exp.Expr) -> list[tuple[str, exp.Expr, bool]]:
    if not isinstance(select, exp.Select):
        return []
    result = []
    for projection in select.expressions:
        if isinstance(projection, exp.Alias):
            result.append((projection.alias, projection.this, True))
        elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Identifier):
            result.append((projection.name, projection, False))
    return result


def _output_matches(model: ScopeModel, name: str, aliases_only: bool) -> list[exp.Expr]:
    matches = [expr for out, expr, explicit in _outputs(model.expression)
               if key(out) == key(name) and (explicit or not aliases_only)]
    distinct: list[exp.Expr] = []
    for expr in matches:
        if not any(expr == seen for seen in distinct):
            distinct.append(expr)
    return distinct


def _unqualified(column: exp.Column, model: ScopeModel, models: ScopeModels, rules: NameRules,
                 unknown: list[tuple[str, exp.Column]]) -> Reference | None:
    if not isinstance(model.expression, exp.Select):
        return None  # ORDER BY of a UNION names result columns
    name = column.name
    clause, context, simple = locate(column, model.expression)
    outputs_first = (
        (clause == "order" and simple)
        or (clause == "group" and simple and rules.group_outputs_first)
        or (clause == "having" and rules.having_outputs_first)
    )
    if outputs_first:
        aliases_only = clause == "order" and rules.order_outputs == "aliases"
        matches = _output_matches(model, name, aliases_only)
        if len(matches) == 1 or (matches and aliases_only):
            return None  # SQLite takes the first alias
        if len(matches) > 1:
            return _output_reference(column, model, clause, matches)
    upto = context.join if context.where == "on" else None
    slots = model.slots(name, upto)
    if len(slots) >= 2:
        kind = "duplicate" if len({s.rep.source for s in slots}) == 1 else "input"
        return Reference(column, name, model, model, clause, context, kind, slots)
    if slots:
        return None
    if clause in ("group", "having", "order") and _output_matches(model, name, False):
        return None  # an alias of the result
    if model.has_unknown_sources(upto):
        return None  # a source we cannot see into may have it
    # correlated: a name no source of this scope has refers to the enclosing query
    between = [model]
    scope = model.scope
    while scope.can_be_correlated and scope.parent is not None:
        inner = scope
        scope = scope.parent
        outer = models.model(scope)
        _, outer_context, _ = locate(inner.expression, outer.expression)
        outer_upto = outer_context.join if outer_context.where == "on" else None
        slots = outer.slots(name, outer_upto)
        if len(slots) >= 2:
            return Reference(column, name, model, outer, clause, outer_context, "input", slots, between)
        if slots or outer.has_unknown_sources(outer_upto):
            return None
        between.append(outer)
    unknown.append((name, column))
    return None


def _output_reference(column: exp.Column, model: ScopeModel, clause: str,
                      matches: list[exp.Expr]) -> Reference:
    slots: list[Slot] = []
    for expr in matches:
        nodes: list[ColumnNode] = []
        if isinstance(expr, exp.Column) and isinstance(expr.this, exp.Identifier):
            if expr.table:
                nodes = model.node(expr.table, expr.name)
            else:
                found = model.slots(expr.name)
                nodes = [found[0].rep] if len(found) == 1 else []
        slots.append(Slot(nodes[:1]))
    return Reference(column, column.name, model, model, clause, Context("post"), "output", slots)


def _qualified(column: exp.Column, model: ScopeModel, models: ScopeModels) -> Reference | None:
    """`t.x` is ambiguous only when the derived table or CTE t has two columns named x."""
    scope: Scope | None = model.scope
    current = model
    while scope is not None:
        current = models.model(scope)
        source = current.source(column.table)
        if source is not None:
            nodes = [n for n in source.nodes if key(n.column) == key(column.name)]
            if len(nodes) < 2:
                return None
            clause, context, _ = locate(column, current.expression)
            return Reference(column, column.name, model, current, clause, context, "duplicate",
                             [Slot([n]) for n in nodes])
        scope = scope.parent if scope.can_be_correlated else None
    return None
