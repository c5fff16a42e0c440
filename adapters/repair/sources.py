"""What each scope of a statement can see: its sources in FROM order, their columns, USING merges.

Built on sqlglot's `traverse_scope` (which scope owns which FROM items, which names are CTEs or derived
tables) with our own column lookup against the introspected schema, compared case-insensitively.
sqlglot's `qualify` is not used: it reports unknown and ambiguous columns alike and binds an ambiguous
column of a correlated subquery to the outer table (see DESIGN.md, "Verified facts").
"""
from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp
from sqlglot.optimizer.scope import Scope

from adapters.repair.names import key, source_text
from adapters.schema import SchemaInfo, type_family

INNER_KINDS = ("", "INNER", "CROSS", "STRAIGHT_JOIN")


@dataclass(frozen=True)
class Via:
    """Where a CTE's or derived table's output column comes from: projection `index` of `model`."""

    model: ScopeModel
    index: int
    node: ColumnNode | None   # the inner column, where the projection is a column or a star
    star: bool                # produced by `*` or `t.*` (so it can be left out of an expanded star)


@dataclass(frozen=True)
class OutputColumn:
    """A column a source offers: its name and, where it can be traced, its type and base column."""

    name: str
    type: str | None = None
    family: str | None = None
    origin: str | None = None  # "Table.Column" the value comes from, where traceable
    via: Via | None = None


@dataclass(frozen=True, eq=False)
class ColumnNode:
    """One physical column slot of one source in one scope."""

    source: str           # source key (lower-cased alias or name)
    qualifier: str        # the source's alias or table name as the statement wrote it
    column: str           # spelling from the schema or the derived table's projection
    table: str | None     # base table (schema spelling) or None for a CTE / derived table
    type: str | None
    family: str | None
    origin: str | None
    join_index: int       # 0 for the FROM item, i + 1 for joins[i]
    via: Via | None = None

    @property
    def label(self) -> str:
        return f"{self.qualifier}.{self.column}"

    @property
    def described(self) -> str:
        """`t.Name (Track)` for an alias, `Track.Name` for a table, `t.id (a.id)` for a derived column."""
        if self.table and key(self.table) != key(self.qualifier.strip('"`[]')):
            return f"{self.label} ({self.table})"
        if self.table is None and self.via is not None and self.via.node is not None:
            return f"{self.label} ({self.via.node.label})"
        return self.label


@dataclass(eq=False)
class Slot:
    """What an unqualified name resolves to: one column, or the columns a USING/NATURAL join merged."""

    nodes: list[ColumnNode]
    merged_by: str | None = None   # "using" | "natural"
    join_side: str = ""             # side of the merging join: "" (inner), LEFT, RIGHT, FULL

    @property
    def rep(self) -> ColumnNode:
        """The column whose value the slot has: the right side of a RIGHT join, else the left."""
        if self.merged_by and self.join_side == "RIGHT":
            return self.nodes[-1]
        return self.nodes[0]


@dataclass(eq=False)
class Source:
    """One FROM item of a scope."""

    key: str
    name: str
    qualifier: str | None            # None: the item has no name to qualify with
    table: str | None                # base table name as the schema spells it
    columns: list[OutputColumn] | None  # None: unknown (not in the schema, a table function...)
    join_index: int
    node: exp.Expr
    kind: str                         # table | cte | derived | other
    nodes: list[ColumnNode] = field(default_factory=list)


@dataclass(eq=False)
class JoinStep:
    index: int              # joins[index - 1]; 0 is the FROM item
    node: exp.Join | None
    side: str
    kind: str
    using: list[str]
    natural: bool

    @property
    def inner(self) -> bool:
        return not self.side and self.kind.upper() in INNER_KINDS


class ScopeModel:
    """Sources, join steps and the name -> slots state after each step, for one sqlglot scope."""

    def __init__(self, scope: Scope, models: ScopeModels) -> None:
        self.scope = scope
        self.models = models
        self.sources: list[Source] = []
        self.steps: list[JoinStep] = []
        self.states: list[dict[str, list[Slot]]] = []   # states[i]: visible after step i
        self.using_problems: list[tuple[str, JoinStep, list[Slot]]] = []  # USING name, step, left slots
        self.merges: list[tuple[JoinStep, ColumnNode, ColumnNode]] = []  # USING/NATURAL: left rep = right
        self._build()

    @property
    def expression(self) -> exp.Expr:
        return self.scope.expression

    @property
    def final(self) -> dict[str, list[Slot]]:
        return self.states[-1] if self.states else {}

    def source(self, name: str) -> Source | None:
        return next((s for s in self.sources if s.key == key(name)), None)

    def merged_away(self) -> set[int]:
        """ids of columns a USING/NATURAL join folded into a column of an earlier source."""
        return {id(n) for slots in self.final.values() for s in slots if s.merged_by for n in s.nodes
                if n is not s.nodes[0]}

    def has_unknown_sources(self, upto: int | None = None) -> bool:
        return any(s.columns is None for s in self.sources if upto is None or s.join_index <= upto)

    def slots(self, name: str, upto: int | None = None) -> list[Slot]:
        """Slots an unqualified `name` matches with the sources visible after step `upto` (default all)."""
        states = self.states
        if not states:
            return []
        state = states[-1] if upto is None else states[min(upto, len(states) - 1)]
        return list(state.get(key(name), []))

    def node(self, qualifier: str, name: str) -> list[ColumnNode]:
        """Columns `qualifier.name` can mean (several when a derived table repeats a name)."""
        source = self.source(qualifier)
        if source is None:
            return []
        return [n for n in source.nodes if key(n.column) == key(name)]

    # -- building --------------------------------------------------------------------------------

    def _build(self) -> None:
        expression = self.expression
        if not isinstance(expression, exp.Select):
            return
        items: list[tuple[exp.Expr, exp.Join | None, str]] = []
        from_ = expression.args.get("from_")
        if from_ is not None:
            items += _flatten(from_.this, None, "")
        for join in expression.args.get("joins") or []:
            items += _flatten(join.this, join, "")
        state: dict[str, list[Slot]] = {}
        for index, (item, join, enclosing_side) in enumerate(items):
            source = self._source(item, index)
            self.sources.append(source)
            step = JoinStep(
                index=index, node=join,
                side=((join.side or "").upper() if join is not None else "") or enclosing_side,
                kind=(join.kind or "").upper() if join is not None else "",
                using=[key(i.name) for i in (join.args.get("using") or [])] if join is not None else [],
                natural=bool(join is not None and (join.method or "").upper() == "NATURAL"),
            )
            self.steps.append(step)
            new: dict[str, list[Slot]] = {}
            for node in source.nodes:
                new.setdefault(key(node.column), []).append(Slot([node]))
            merge = list(step.using)
            if step.natural:
                merge = [name for name in new if name in state]
            state = {name: list(slots) for name, slots in state.items()}
            for name in merge:
                left, right = state.get(name, []), new.pop(name, [])
                if len(left) > 1 and len(right) == 1 and self.models.dialect == "sqlite":
                    # SQLite silently joins on the leftmost table that has the column
                    self.merges.append((step, left[0].rep, right[0].rep))
                    merged = Slot(left[0].nodes + right[0].nodes, "natural" if step.natural else "using", step.side)
                    state[name] = [merged] + left[1:]
                    continue
                if len(left) != 1 or len(right) != 1:
                    self.using_problems.append((name, step, list(left)))
                    state.setdefault(name, []).extend(right)
                    continue
                self.merges.append((step, left[0].rep, right[0].rep))
                state[name] = [Slot(left[0].nodes + right[0].nodes, "natural" if step.natural else "using", step.side)]
            for name, slots in new.items():
                state.setdefault(name, []).extend(slots)
            self.states.append(state)

    def _source(self, item: exp.Expr, index: int) -> Source:
        name = item.alias_or_name
        alias = item.args.get("alias")
        alias_identifier = alias.this if isinstance(alias, exp.TableAlias) else None
        sql, dialect = self.models.sql, self.models.dialect
        if isinstance(alias_identifier, exp.Identifier) and alias_identifier.name:
            qualifier = source_text(sql, alias_identifier, dialect)
        elif isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
            qualifier = source_text(sql, item.this, dialect)
        else:
            qualifier = None
        target = self.scope.sources.get(name)
        columns: list[OutputColumn] | None
        table_name: str | None = None
        if isinstance(target, Scope):
            kind = "cte" if isinstance(item, exp.Table) else "derived"
            columns = self.models.outputs(target)
        elif isinstance(item, exp.Table) and isinstance(item.this, exp.Identifier):
            kind = "table"
            info = self.models.schema.table(item.name)
            if info is None:
                columns = None
            else:
                table_name = info.name
                columns = [OutputColumn(c.name, c.type, c.family, f"{info.name}.{c.name}") for c in info.columns]
        else:
            kind, columns = "other", None
        if columns is None and isinstance(alias, exp.TableAlias) and alias.columns:
            columns = [OutputColumn(c.name) for c in alias.columns]  # VALUES, a table function: names only
        elif columns is not None and isinstance(alias, exp.TableAlias) and alias.columns:
            renamed = [c.name for c in alias.columns]
            columns = [OutputColumn(renamed[i], c.type, c.family, c.origin) if i < len(renamed) else c
                       for i, c in enumerate(columns)]
        source = Source(key(name), name, qualifier, table_name, columns, index, item, kind)
        if columns is not None:
            source.nodes = [ColumnNode(source.key, qualifier or name, c.name, table_name, c.type, c.family,
                                       c.origin, index, c.via) for c in columns]
        return source


class ScopeModels:
    """ScopeModel per sqlglot scope, built lazily (a derived table's columns need its own model)."""

    def __init__(self, sql: str, schema: SchemaInfo, dialect: str) -> None:
        self.sql = sql
        self.schema = schema
        self.dialect = dialect
        self._models: dict[int, ScopeModel] = {}
        self._outputs: dict[int, list[OutputColumn] | None] = {}
        self._building: set[int] = set()

    def model(self, scope: Scope) -> ScopeModel:
        if id(scope) not in self._models:
            self._models[id(scope)] = ScopeModel(scope, self)
        return self._models[id(scope)]

    def outputs(self, scope: Scope) -> list[OutputColumn] | None:
        """The columns a CTE or derived table offers (None when unknown: recursive, VALUES...)."""
        if id(scope) in self._outputs:
            return self._outputs[id(scope)]
        if id(scope) in self._building:
            return None  # a recursive CTE refers to itself
        self._building.add(id(scope))
        try:
            result = self._compute_outputs(scope)
        finally:
            self._building.discard(id(scope))
        self._outputs[id(scope)] = result
        return result

    def _compute_outputs(self, scope: Scope) -> list[OutputColumn] | None:
        expression = scope.expression
        if isinstance(expression, exp.Lateral) and isinstance(expression.this, exp.Subquery):
            inner = next((s for s in scope.sources.values()
                          if isinstance(s, Scope) and s.expression is expression.this.this), None)
            return self.outputs(inner) if inner is not None else None
        if isinstance(expression, exp.SetOperation):
            branches = getattr(scope, "union_scopes", None) or []
            return self.outputs(branches[0]) if branches else None
        if not isinstance(expression, exp.Select):
            return None
        model = self.model(scope)
        columns: list[OutputColumn] = []
        for index, projection in enumerate(expression.expressions):
            if isinstance(projection, exp.Star):
                merged_away = model.merged_away()
                for source in model.sources:
                    if source.columns is None:
                        return None
                    columns += [_output(n, Via(model, index, n, True)) for n in source.nodes
                                if id(n) not in merged_away]
            elif isinstance(projection, exp.Column) and isinstance(projection.this, exp.Star):
                star_source = model.source(projection.table)
                if star_source is None or star_source.columns is None:
                    return None
                columns += [_output(n, Via(model, index, n, True)) for n in star_source.nodes]
            else:
                columns.append(self._projection(model, projection, index))
        return columns

    def _projection(self, model: ScopeModel, projection: exp.Expr, index: int) -> OutputColumn:
        name = projection.alias_or_name
        inner = projection.this if isinstance(projection, exp.Alias) else projection
        if isinstance(inner, exp.Column) and isinstance(inner.this, exp.Identifier):
            if inner.table:
                nodes = model.node(inner.table, inner.name)
            else:
                slots = model.slots(inner.name)
                nodes = [slots[0].rep] if len(slots) == 1 else []
            if len(nodes) == 1:
                node = nodes[0]
                return OutputColumn(name, node.type, node.family, node.origin, Via(model, index, node, False))
        via = Via(model, index, None, False)
        if isinstance(inner, exp.Count):
            return OutputColumn(name, "BIGINT", "numeric", None, via)
        if isinstance(inner, exp.Cast):
            type_text = inner.to.sql()
            return OutputColumn(name, type_text, type_family(type_text), None, via)
        return OutputColumn(name, via=via)


def _flatten(item: exp.Expr, join: exp.Join | None, side: str) -> list[tuple[exp.Expr, exp.Join | None, str]]:
    """FROM items in order; a parenthesised join `(b JOIN c ON ...)` becomes its tables, each step
    taking the enclosing join's side when it has none (an outer join makes its inner equalities no proof)."""
    if (isinstance(item, exp.Subquery) and not item.alias and isinstance(item.this, exp.Table)
            and item.this.args.get("joins")):
        enclosing = ((join.side or "").upper() if join is not None else "") or side
        result: list[tuple[exp.Expr, exp.Join | None, str]] = [(item.this, join, side)]
        for inner in item.this.args["joins"]:
            result += _flatten(inner.this, inner, enclosing)
        return result
    return [(item, join, side)]


def _output(node: ColumnNode, via: Via) -> OutputColumn:
    return OutputColumn(node.column, node.type, node.family, node.origin, via)
