"""Candidate SQL: a small spec of what to compute, turned into one sqlglot expression, rendered per engine.

Time boundaries come from `calendar` as UTC literals (a WHERE range for a window; for periods, a CASE
tree over the boundaries giving each row its period, and a calendar CTE joined on equality to fill gaps,
see `period_key`), so the same statement means the same thing on SQLite,
PostgreSQL and MariaDB. Values a person chose are string literals (sqlglot escapes them per dialect),
never placeholders. Identifiers are quoted exactly as introspection spelled them.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace

import sqlglot
from sqlglot import exp

from adapters.dialects import sqlglot_dialect, writing_dialect
from archetypes import calendar, period_key, roles
from archetypes.naming import phrase, plural, slug
from archetypes.profile import Edge, Entity, Fact, Measure, SchemaProfile, TimeColumn

RANKING_LIMIT = 10
# a series with no window asked covers the last N days to the as-of date (grain -> days)
DEFAULT_SPAN_DAYS = {"day": 30, "weekday": 28, "hour": 7}
MAX_CALENDAR_ROWS = 250  # rows of the calendar CTE (SQLite allows 500 compound terms; keeps range joins quick)
_PERIOD_STEP = {"weekday": 7, "hour": 24}


@dataclass
class EntityFilter:
    """Rows of `entity` whose name (or `column`, e.g. its key) is one of `values` (quoted literals)."""

    entity: Entity
    values: tuple[str, ...]
    column: str | None = None
    negate: bool = False
    via: str | None = None   # the role the entity is reached through (archetypes.roles): the store's country
    shown: str | None = field(default=None, compare=False)  # the name of a row filtered by its key, said

    def expression(self, alias: str) -> exp.Expr:
        return col(self.column, alias) if self.column else name_expression(self.entity, alias)

    def condition(self, alias: str) -> exp.Expr:
        found = _in(self.expression(alias), self.values)
        return exp.Not(this=exp.Paren(this=found)) if self.negate else found

    def describe(self) -> str:
        what = f"{self.shown} (key {' or '.join(self.values)})" if self.shown else " or ".join(self.values)
        name = roles.role_name(self.via) if self.via else ""
        noun = (name if name.endswith(self.entity.noun) else f"{name}'s {self.entity.noun}") if name else \
            self.entity.noun
        if self.via and self.via.split(".")[0] == self.entity.table:  # a key to its own table: 'reports to'
            noun = f"{self.entity.noun}'s {name}"
        return f"{noun} is not {what}" if self.negate else f"{noun} is {what}"


@dataclass(frozen=True)
class Side:
    """One side of named values compared side by side ('metal' in 'rock vs metal'): the values its one row adds
    up (one, or several when the word names several: Metal and Heavy Metal)."""

    label: str
    values: tuple[str, ...]


def combined(sides: tuple[Side, ...]) -> bool:
    """Some side adds up several values: its row is labelled by the side, not by a value."""
    return any(len(side.values) > 1 for side in sides)


def sides_case(expression: exp.Expr, sides: tuple[Side, ...]) -> exp.Expr:
    """CASE WHEN name IN (...) THEN 'side' ...: each row labelled by the side its value belongs to."""
    return exp.Case(ifs=[exp.If(this=_in(expression.copy(), side.values), true=literal(side.label)) for side in sides])


def side_order(expression: exp.Expr, sides: tuple[Side, ...]) -> exp.Expr:
    """CASE WHEN row = 'side' THEN 1 ...: the rows in the order the sides were named (`expression` is the
    grouped one: a name, or the sides' own labels)."""
    return exp.Case(ifs=[exp.If(this=exp.EQ(this=expression.copy(), expression=literal(side.label)),
                                true=exp.Literal.number(index)) for index, side in enumerate(sides, 1)])


@dataclass(frozen=True)
class Change:
    """Two periods compared: before [start, end) and after [start, end); absolute or relative."""

    before: calendar.Window
    after: calendar.Window
    mode: str = "absolute"             # absolute | relative


@dataclass(frozen=True)
class Attribute:
    """An attribute superlative: rows of `entity` ordered by `column` of `table` (reached from the entity
    directly, or summed through a child/bridge table: a playlist's length is the sum of its tracks')."""

    table: str
    column: str
    direction: str                     # min | max
    through: tuple = ()                # edges from a child/bridge table up to the entity, when summed
    child: str | None = None           # the child/bridge table the sum runs over
    child_path: tuple = ()             # edges from the child table to `table`
    average: bool = False              # the children's values averaged, not summed ('longest tracks on average')
    earliest: bool = False             # the children's earliest value ('newest client': by their first event)
    counted: bool = False              # how many children ('the longest album': the most tracks)


@dataclass
class QuerySpec:
    """What one interpretation computes. Readings edit a copy of the base spec."""

    fact: Fact | None = None
    measure: Measure | None = None
    count_table: str | None = None           # COUNT(*) of a table that is not a fact
    # 'how many surgeries': a value said in the plural is counted; whichever column it is read in (an entity
    # reading applies one), the rows of that column's table are what is counted
    counted_by_value: dict[str, tuple[Fact, Measure]] = field(default_factory=dict)
    group: Entity | None = None              # ranking / "by <entity>"
    group_via: str | None = None             # the role the group is reached through (archetypes.roles)
    also_by: Entity | None = None            # a second breakdown ("by category and store"), plain aggregates only
    partition: Entity | None = None          # top N per group: `group` ranked within each row of it, `limit` each
    limit: int | None = None
    window: calendar.Window | None = None    # local dates [start, end)
    grain: str | None = None                 # see calendar.periods
    zone: str | None = None                  # 'UTC' | IANA name | 'local' (each row's own zone)
    filters: list[EntityFilter] = field(default_factory=list)
    currency_mode: str | None = None         # only | convert | per
    currency_target: str | None = None
    notes: list[str] = field(default_factory=list)
    query: exp.Query | None = None           # a whole statement given by an archetype (schema_mapping's plain one)
    mappings: list = field(default_factory=list)  # schema mappings the built statement is read through
    # analytic shapes (archetypes/shapes.py builds the ones that are not a plain aggregate)
    shape: str = "aggregate"                 # aggregate | absence | attribute | distribution | change | share
    agg: str | None = None                   # the measure's aggregation replaced: avg | min | max | weighted
    weight: Measure | None = None            # agg weighted: each row's value counts by this (a line's gross value)
    per_table: str | None = None             # ratio: the measure divided by the distinct rows of this table
    per_all: bool = False                    # ratio: divided by every row of per_table, not those with events
    period_mean: bool = False                # the average of the totals per `grain` period ('average monthly revenue')
    median: bool = False                     # the middle value, not the mean, of what agg 'avg' or per_table averages
    having: tuple[str, float] | None = None  # (operator, number) on the metric: HAVING
    count_groups: bool = False               # HAVING: how many groups pass, not their list
    share_groups: bool = False               # HAVING: the share of the groups with rows that pass
    share_every: bool = False                # share_groups: of every row of the group's table, with rows or not
    ascending: bool = False                  # lowest first (worst, fewest, least, cheapest)
    every_one: bool = False                  # 'how many events does each venue have': those with none too, as 0
    with_rows_only: bool = False             # 'the worst genre': among those with events, none counted as 0
    time_part: str | None = None             # distribution / best period: weekday | hour | month | month_key | year
    weekdays: tuple[int, ...] = ()           # only rows on these days of the week (0 = Sunday): 'on weekends'
    change: Change | None = None
    share_filters: list[EntityFilter] = field(default_factory=list)   # share: the part's filters
    share_conditions: list[RowCondition] = field(default_factory=list)  # share: the part's yes/no conditions
    share_against: list[EntityFilter] = field(default_factory=list)  # share: the whole's own filters ('ratio of
    #                                          cancelled to completed': the completed ones, not every row)
    share_top: int | None = None             # share: the part is the top N groups
    share_of_total: bool = False             # share: each group's part of the total of every group
    attribute: Attribute | None = None
    attribute_group: Entity | None = None    # attribute superlative per group ('cheapest in each category')
    attribute_owner: Entity | None = None    # the row the top one belongs to ('which artist has the longest track')
    list_columns: tuple[str, ...] = ()       # list: columns of the listed table shown next to its name
    reference: Edge | None = None            # list: the row this key of the listed row points at, named first
    reference_reverse: bool = False          # list: the rows whose `reference` points at the row the filters name
    absent: Entity | None = None             # absence: rows of this entity with no fact rows
    absent_count: bool = False               # absence: how many such rows, not their list
    absent_share: bool = False               # absence: their share of all the rows ('what % never sold')
    present: bool = False                    # absent_share of the rows WITH events ('% of clients who bought')
    present_window: calendar.Window | None = None  # absence: only the rows WITH events in this window ('ordered
    #                                          in 2024 but not in 2025')
    each_value: bool = False                 # absence, present: rows with events of EACH value of a column
    #                                          named twice ('clients who bought both rock and jazz'), not of either
    absent_among: str | None = None          # absence: only the entity's rows with rows of this table (those with
    #                                          anything to sell, those that ever bought): which rows count
    conditions: list[RowCondition] = field(default_factory=list)      # record scope: which rows count
    sides: tuple[Side, ...] = ()             # named values side by side: one row per side (archetypes.versus)
    # 'fiscal' or 'calendar' when the timeframe offered both kinds of window: a series keeps its periods in the
    # same calendar as its window (calendar months over a fiscal year cut its first and last month in two)
    window_kind: str | None = None
    chain: bool = False                      # rows reporting to a row: everyone below it, down the chain, not only
    #                                          those pointing at it directly (archetypes.hierarchy)
    # a figure as a percentage of this spec's own ('freight as % of sales'): its fact and measure, over the same
    # window and filters, divided by the spec's figure
    ratio_of: tuple[Fact, Measure] | None = None
    ratio_plain: bool = False                # 'cost per click': the one figure over the other, not in percent
    invalid: bool = False                    # a reading that does not apply to this combination

    def copy(self) -> QuerySpec:
        return replace(self, filters=list(self.filters), notes=list(self.notes), mappings=list(self.mappings),
                       share_filters=list(self.share_filters), conditions=list(self.conditions),
                       share_against=list(self.share_against),
                       share_conditions=list(self.share_conditions))


@dataclass(frozen=True)
class RowCondition:
    """Which records count: `table.column` compared with a value (a status, a validity range, a deletion mark)."""

    table: str
    column: str
    # eq | in | not_in | lt_column | sum_lt_column | is_null | le | gt_or_null | not_null | after | before | on_time
    # | overdue | late_or_open (values: the due column, the day as of)
    # | since | before_day | days_gt | days_ge | days_lt | days_le (values: the start column, the days)
    op: str
    values: tuple[str, ...] = ()
    label: str = ""
    asked: bool = False   # the question's own words ('with a discount'): never dropped where it cannot be read

    def against_average(self, alias: str, peers: list[RowCondition]) -> exp.Expr:
        """The row's figure against the average of the rows of its table that the `peers` conditions keep (the
        current items' average when only current items count)."""
        average = exp.select(exp.Avg(this=col(self.column, "a0"))).from_(table_ref(self.table, "a0"))
        for peer in peers:
            average = average.where(peer.expression("a0"))
        node = exp.GT if self.op == "above_avg" else exp.LT
        return node(this=col(self.column, alias), expression=exp.Subquery(this=average))

    def expression(self, alias: str) -> exp.Expr:
        target = col(self.column, alias)
        if self.op == "eq":
            return exp.EQ(this=target, expression=literal(self.values[0]))
        if self.op == "in":
            return exp.In(this=target, expressions=[literal(v) for v in self.values])
        if self.op == "not_in":  # rows of every other kind ('songs': not the video media type)
            return exp.Not(this=exp.In(this=target, expressions=[literal(v) for v in self.values]))
        if self.op == "is_null":
            return exp.Is(this=target, expression=exp.Null())
        if self.op == "not_null":
            return exp.Not(this=exp.Is(this=target, expression=exp.Null()))
        if self.op == "le":
            return exp.LTE(this=target, expression=_typed_literal(self.values[0]))
        if self.op == "since":  # the row's own date on or after a day ('signed up in 2024')
            return exp.GTE(this=target, expression=_typed_literal(self.values[0]))
        if self.op == "before_day":
            return exp.LT(this=target, expression=_typed_literal(self.values[0]))
        if self.op == "le_or_null":  # no figure: 0 or none at all ('lines without a discount')
            return exp.Paren(this=exp.or_(exp.Is(this=target.copy(), expression=exp.Null()),
                                          exp.LTE(this=target, expression=exp.Literal.number(self.values[0]))))
        if self.op == "gt_or_null":
            return exp.Paren(this=exp.or_(exp.Is(this=target.copy(), expression=exp.Null()),
                                          exp.GT(this=target, expression=_typed_literal(self.values[0]))))
        if self.op in ("gt", "ge", "lt", "le_number", "eq_number"):  # a row's own figure ('list price above 1000')
            return _compare(target, ({"le_number": "le", "eq_number": "eq"}.get(self.op, self.op), float(self.values[0])))
        if self.op == "lt_column":  # the row's own two figures ('in stock below the reorder level')
            return exp.LT(this=target, expression=col(self.values[0], alias))
        if self.op == "sum_lt_column":  # 'in stock plus on order below the reorder level'
            return exp.LT(this=exp.Paren(this=exp.Add(this=target, expression=col(self.values[0], alias))),
                          expression=col(self.values[1], alias))
        if self.op in ("above_avg", "below_avg"):  # 'items priced above average': against every row's average
            return self.against_average(alias, [])
        if self.op == "late_or_open":  # done after the day due, or not done yet and that day has passed
            due = col(self.values[0], alias)
            return exp.Paren(this=exp.or_(exp.GT(this=target.copy(), expression=due.copy()), exp.and_(
                exp.Is(this=target, expression=exp.Null()), exp.LT(this=due, expression=_typed_literal(self.values[1])))))
        if self.op == "overdue":  # not done yet, and the day due has passed
            return exp.and_(exp.Is(this=target, expression=exp.Null()),
                            exp.LT(this=col(self.values[0], alias), expression=_typed_literal(self.values[1])))
        if self.op in ("after", "before", "on_time"):  # the row's own two dates ('shipped late')
            due = col(self.values[0], alias)
            # due on a day: a moment of that day is on time
            done: exp.Expr = exp.cast(target, "DATE") if self.values[1:] == ("day",) else target
            if self.op == "after":
                return exp.GT(this=done, expression=due)
            if self.op == "before":
                return exp.LT(this=done, expression=due)
            return exp.LTE(this=done, expression=due)
        if self.op.startswith("days_"):  # the row's own time between two of its dates ('took over a week to ship')
            from archetypes.duration_reader import DAYS_BETWEEN

            days = exp.Anonymous(this=DAYS_BETWEEN, expressions=[col(self.values[0], alias), target])
            return _compare(days, (self.op.removeprefix("days_"), float(self.values[1])))
        if self.op == "ge_sentinel":   # the current row: the end is the sentinel or missing
            return exp.Paren(this=exp.or_(exp.Is(this=target.copy(), expression=exp.Null()),
                                          exp.GTE(this=target, expression=_typed_literal(self.values[0]))))
        raise ValueError(f"unknown row condition {self.op}")


def _typed_literal(value: str) -> exp.Expr:
    return exp.cast(literal(value), "DATE") if len(value) == 10 else literal(value)


# -- rendering ---------------------------------------------------------------------------------

_CALENDAR = "checker_calendar"  # the meta key marking a series' calendar rows (`_periods_query`)
_STAND_IN = "checker_calendar_rows"


def reading_key(query: exp.Query) -> tuple[str, tuple[object, ...]]:
    """What tells two readings apart: equal keys exactly when sqlglot writes the two statements alike
    (`query.sql()`), written cheaper. A series' calendar (`_periods_query`: one row of two literals per period,
    114 for an all-time monthly series) is most of the statement's nodes, and of the time to copy and write
    it; its text follows from its literals alone, in order, so the rest of the statement is written with a
    stand-in in its place (put back before returning) and the calendar is keyed by its literals. Any other
    statement is keyed by its whole text."""
    with_ = query.args.get("with_")
    cte = next((c for c in with_.expressions if c.this.meta_get(_CALENDAR)), None) if with_ is not None else None
    if cte is None:
        return query.sql(), ()
    rows = cte.this
    cte.set("this", exp.select(exp.Literal.string(_STAND_IN)))
    try:
        text = query.sql()
    finally:
        cte.set("this", rows)
    if text.count(_STAND_IN) != 1:  # the stand-in's text also said elsewhere: where the rows go is unknown
        return query.sql(), ()
    return text, tuple((node.this, node.is_string) for node in rows.find_all(exp.Literal))


def render(query: exp.Query, dialect: str) -> str:
    """The statement text for one engine. SQLite compares timestamps stored as text, so its time
    literals stay plain strings (a CAST there would turn '2025-01-01 00:00:00' into 2025).

    One copy and one walk: the time-part and period markers (``shapes``, ``period_key``) and, on SQLite,
    the casts of string literals, each replaced innermost first, so a marker inside another's argument is
    written before that argument is (as when each kind had a walk of its own, parts first)."""
    return written_statement(query, dialect)[0]


def written_statement(query: exp.Query, dialect: str) -> tuple[str, exp.Query]:
    """`render`'s text and the tree it was written from (a copy of `query`, the caller's to keep): the
    statement is sent from that tree (`adapters.built`), not parsed again from its text."""
    from archetypes.duration_reader import days_between_written
    from archetypes.shapes import written_part

    dialect = sqlglot_dialect(dialect)
    written = query.copy()
    for node in reversed(list(written.find_all(exp.Anonymous, exp.Cast))):
        if isinstance(node, exp.Anonymous):
            native = written_part(node, dialect) or period_key.written_marker(node, dialect) or \
                days_between_written(node, dialect)
            if native is not None:
                node.replace(native)
        elif dialect == "sqlite" and isinstance(node.this, exp.Literal) and node.this.is_string:
            node.replace(node.this)
    if dialect == "mysql":
        _exact_text(written)
    return written.sql(dialect=writing_dialect(dialect), copy=False), written


_DATE_TEXT = re.compile(r"^\d{4}-\d{2}-\d{2}")


def _exact_text(query: exp.Query) -> None:
    """MariaDB's default collation folds accents and case: `name = 'Maria Garcia'` also keeps 'María García',
    another person, so a value filter there answers another question than on the other engines. The column is
    compared byte for byte in utf8mb4 (whatever its own character set), as SQLite and PostgreSQL compare it."""
    # the filters: comparisons in a WHERE, not a CASE's labels or a calendar's joins (a long series statement
    # would grow past the size limit for nothing)
    found = [n for where in query.find_all(exp.Where) for n in where.find_all(exp.EQ, exp.In)
             if n.find_ancestor(exp.Case, exp.Where) is where or not n.find_ancestor(exp.Case)]
    for node in {id(n): n for n in found}.values():  # by identity: equal comparisons in two WHEREs are two
        column = node.this
        values = [node.expression] if isinstance(node, exp.EQ) else list(node.expressions)
        if not isinstance(column, exp.Column) or not values or not all(
                isinstance(v, exp.Literal) and v.is_string and not _DATE_TEXT.match(v.this) for v in values):
            continue
        exact = node.copy()
        exact.this.replace(exp.Collate(this=exp.Cast(this=column.copy(), to=exp.DataType(
            this=exp.DType.CHARACTER_SET, kind=exp.Var(this="utf8mb4"))), expression=exp.Var(this="utf8mb4_bin")))
        # the engine's own comparison first, so an index on the column still narrows the rows; then byte for byte
        node.replace(exp.Paren(this=exp.and_(node.copy(), exact)))


def lookup_sql(query: exp.Query, dialect: str) -> str:
    """The text of a lookup the rules run while reading the question (a latest timestamp, the money codes of
    the rows asked about): its engine-specific markers (``period_key``, time parts) written for `dialect`,
    the rest as sqlglot writes it, as lookups always were."""
    return lookup_statement(query, dialect)[0]


def lookup_statement(query: exp.Query, dialect: str) -> tuple[str, exp.Query]:
    """`lookup_sql`'s text and the tree it was written from (a copy of `query`, the caller's to keep), so
    the lookup is sent from that tree, not parsed again (`adapters.built`)."""
    from archetypes.shapes import PART_FUNCTIONS, render_parts

    markers = set(PART_FUNCTIONS.values()) | period_key.MARKERS
    written = query.copy()
    if any(str(node.this).upper() in markers for node in written.find_all(exp.Anonymous)):
        glot = sqlglot_dialect(dialect)
        written = period_key.render_markers(render_parts(written, glot), glot)
    return written.sql(dialect=dialect, copy=False), written


# -- building ----------------------------------------------------------------------------------

def ident(name: str) -> exp.Identifier:
    return exp.Identifier(this=name, quoted=True)


def table_ref(name: str, alias: str | None = None) -> exp.Table:
    table = exp.Table(this=ident(name))
    if alias:
        table.set("alias", exp.TableAlias(this=ident(alias)))
    return table


def col(name: str, alias: str | None = None) -> exp.Column:
    return exp.Column(this=ident(name), table=ident(alias) if alias else None)


def literal(value: str) -> exp.Literal:
    return exp.Literal.string(str(value))


_TYPES = {name: exp.DataType.build(name) for name in ("DATE", "TIMESTAMPTZ", "TIMESTAMP")}


def time_literal(moment: dt.datetime, column: TimeColumn) -> exp.Expr:
    # the types are built once: building one from its name parses it, and a series writes hundreds
    if column.date_only:
        text, kind = moment.date().isoformat(), "DATE"
    elif column.with_zone:
        text, kind = moment.strftime("%Y-%m-%d %H:%M:%S+00:00"), "TIMESTAMPTZ"
    else:
        text, kind = moment.strftime("%Y-%m-%d %H:%M:%S"), "TIMESTAMP"
    return exp.Cast(this=literal(text), to=_TYPES[kind].copy())


def name_expression(entity: Entity, alias: str) -> exp.Expr:
    if len(entity.name_columns) == 1:
        return col(entity.name_columns[0], alias)
    parts: list[exp.Expr] = []
    for index, name in enumerate(entity.name_columns):
        if index:
            parts.append(literal(" "))
        parts.append(col(name, alias))
    return exp.Concat(expressions=parts, safe=False, coalesce=False)


class _From:
    """The fact table and its many-to-one joins, one alias per distinct path."""

    def __init__(self, fact_table: str, prefix: str = "t") -> None:
        self.root = fact_table
        self.prefix = prefix
        self.select = exp.select().from_(table_ref(fact_table, f"{prefix}0"))
        self.aliases: dict[tuple[Edge, ...], str] = {(): f"{prefix}0"}

    def alias_for(self, path: tuple[Edge, ...]) -> str:
        for size in range(1, len(path) + 1):
            prefix = path[:size]
            if prefix in self.aliases:
                continue
            edge = prefix[-1]
            parent = self.aliases[prefix[:-1]]
            alias = f"{self.prefix}{len(self.aliases)}"
            condition = exp.and_(*[exp.EQ(this=col(ref, alias), expression=col(own, parent))
                                   for own, ref in zip(edge.columns, edge.ref_columns)])
            self.select = self.select.join(table_ref(edge.ref_table, alias), on=condition, copy=False)
            self.aliases[prefix] = alias
        return self.aliases[path]


@dataclass
class Prepared:
    """The FROM, joins and WHERE every shape of a reading over a fact starts from."""

    source: _From
    where: list[exp.Expr]
    time_expr: exp.Expr | None
    group_expr: exp.Expr | None
    group_key: exp.Expr | None
    currency_expr: exp.Expr | None
    zone: str
    zone_expr: exp.Expr | None
    zones: list[str]
    value: exp.Expr
    also: list[exp.Expr] = field(default_factory=list)  # the second breakdown: its name, then its key


def prepare(spec: QuerySpec, profile: SchemaProfile, need_time: bool = False,
            join_group: bool = True) -> Prepared | None:
    """Joins for the time column, the group (unless `join_group` is false: a keyed ranking joins its names
    afterwards), the filters and scope, the currency; the row value."""
    fact, measure = spec.fact, spec.measure
    assert fact is not None and measure is not None
    source = _From(fact.table)
    where: list[exp.Expr] = []

    # join the table holding the time column only when a window, a series or a daily rate needs it:
    # an unused join costs a scan of that table on every engine
    time_expr = None
    needs_time = spec.window is not None or bool(spec.grain) or spec.currency_mode == "convert" or need_time or \
        bool(spec.weekdays)
    if fact.time is not None and needs_time:
        time_expr = col(fact.time.column, source.alias_for(fact.time_path))

    group_expr = None
    group_key: exp.Expr | None = None
    if spec.group is not None and join_group:
        route = roles.route(profile, fact.table, spec.group.table, spec.group_via)
        if route is None and spec.group.column_only:
            twin = same_column_reaching(profile, spec.group, fact.table)  # 'status': the counted table's own
            if twin is not None:
                spec.group, route = twin, profile.path(fact.table, twin.table)
        if route is None:
            spec.notes.append(f"{spec.group.noun} cannot be reached from {fact.table}; not grouped")
            spec.invalid = True  # a reading 'per status' that cannot group is not shown as one
        else:
            group_alias = source.alias_for(route)
            group_expr = name_expression(spec.group, group_alias)
            if spec.group.column_only and spec.limit and not spec.sides:
                # 'top 3 composers': the tracks with no composer are no composer, and never the top one
                where.append(exp.Not(this=exp.Is(this=group_expr.copy(), expression=exp.Null())))
            if combined(spec.sides):
                group_expr = sides_case(group_expr, spec.sides)  # 'metal' as Metal and Heavy Metal: one row
            elif not spec.group.column_only and len(spec.group.key) == 1:
                group_key = col(spec.group.key[0], group_alias)  # namesakes stay apart

    also: list[exp.Expr] = []
    if spec.also_by is not None and join_group:
        second = profile.path(fact.table, spec.also_by.table)
        if second is None:
            spec.notes.append(f"{spec.also_by.noun} cannot be reached from {fact.table}; not grouped")
            spec.invalid = True
        else:
            also_alias = source.alias_for(second)
            also.append(name_expression(spec.also_by, also_alias))
            if not spec.also_by.column_only and len(spec.also_by.key) == 1:
                also.append(col(spec.also_by.key[0], also_alias))

    where.extend(row_filters(spec, profile, source, fact.table))
    if spec.invalid:
        return None

    currency_expr = None
    if spec.currency_mode:
        found = profile.currency_for(fact, spec.measure)
        if found:
            currency_expr = col(found[0].column, source.alias_for(found[1]))
            if spec.currency_mode == "only" and spec.currency_target:
                where.append(exp.EQ(this=currency_expr.copy(), expression=literal(spec.currency_target)))

    zone_expr = None
    zones: list[str] = []
    zone = spec.zone or profile.business_time_zone or "UTC"
    if zone == "local":
        found_zone = profile.zone_for(fact)
        if found_zone is None:
            zone = profile.business_time_zone or "UTC"
        else:
            zone_expr = col(found_zone[0].column, source.alias_for(found_zone[1]))
            zones = list(found_zone[0].zones)

    value = _row_value(measure, "t0")
    if spec.currency_mode == "convert" and measure.money and currency_expr is not None and profile.rate_table \
            and time_expr is not None:
        rate = profile.rate_table
        assert fact.time is not None  # time_expr is the fact's time column
        day = time_expr.copy() if fact.time.date_only else exp.cast(time_expr.copy(), "DATE")
        condition = exp.and_(
            exp.EQ(this=col(rate.currency_column, "r"), expression=currency_expr.copy()),
            exp.EQ(this=col(rate.date_column, "r"), expression=day))
        source.select = source.select.join(table_ref(rate.table, "r"), on=condition, join_type="left", copy=False)
        value = exp.Mul(this=exp.Paren(this=value), expression=col(rate.rate_column, "r"))
        if spec.currency_target and spec.currency_target != rate.target:
            # into another currency: through the rate table's own currency, at the same day's rates
            into = exp.and_(exp.EQ(this=col(rate.currency_column, "r2"), expression=literal(spec.currency_target)),
                            exp.EQ(this=col(rate.date_column, "r2"), expression=day.copy()))
            source.select = source.select.join(table_ref(rate.table, "r2"), on=into, join_type="left",
                                               copy=False)
            value = exp.Div(this=value, expression=exp.Nullif(this=col(rate.rate_column, "r2"),
                                                              expression=exp.Literal.number(0)))

    if spec.window is not None and time_expr is not None:
        assert fact.time is not None  # time_expr is the fact's time column
        if zone_expr is not None:
            where.append(_local_range(time_expr, zone_expr, zones, spec.window.start, spec.window.end, fact.time))
        else:
            where.append(_range(time_expr, spec.window.start, spec.window.end, zone, fact.time))
    prepared = Prepared(source, where, time_expr, group_expr, group_key, currency_expr, zone, zone_expr, zones,
                        value, also)
    if spec.weekdays and time_expr is not None:
        from archetypes.shapes import local_part  # shapes builds on this module

        # 'trips taken on weekends': each row's day of the week, in the zone the reading takes
        weekday = local_part("weekday", spec, prepared, fact)
        where.append(exp.In(this=exp.Paren(this=weekday), expressions=[exp.Literal.number(d) for d in spec.weekdays]))
    return prepared


def build(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None) -> exp.Query | None:
    """The candidate query for `spec`, or None when there is nothing to compute (notes say why)."""
    if spec.median:
        from archetypes.median import build_median

        return build_median(spec, profile)
    if spec.period_mean and spec.grain:
        return _period_mean(spec, profile, as_of)
    if spec.chain:
        from archetypes.hierarchy import build_chain

        return build_chain(spec, profile)
    if spec.ratio_of is not None:
        return _ratio_of_figures(spec, profile, as_of)
    query = _build(spec, profile, as_of)
    if query is not None and spec.fact is not None and spec.fact.time is not None:
        table = profile.tables.get(spec.fact.table)
        covered = {spec.fact.time.column, *(table.primary_key if table is not None and len(table.primary_key) == 1
                                            else ())}
        period_key.index_when_covered(query, "t0", covered)
    if query is not None and spec.count_groups and spec.group is not None and spec.having is not None:
        # 'how many clients have exactly one order': the groups that pass the condition, counted
        inner = query.copy()
        inner.set("order", None)
        inner.set("limit", None)
        counted = exp.alias_(exp.Count(this=exp.Star()), slug(plural(spec.group.noun)), quoted=True)
        return exp.select(counted).from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("g"))))
    if query is not None and spec.share_groups and spec.group is not None and spec.having is not None:
        # 'what pct of our visits are over $500': the groups that pass over every group with rows
        every = spec.copy()
        every.having, every.share_groups = None, False
        whole = exp.select(exp.Literal.number(1)).from_(table_ref(spec.group.table, "g0")) if spec.share_every \
            else _build(every, profile, as_of)
        return _groups_share(query, whole) if whole is not None else None
    return query


def period_totals(spec: QuerySpec) -> QuerySpec:
    """The series a period average is the mean of: each period's plain total."""
    each = spec.copy()
    each.period_mean, each.agg, each.per_table, each.weight = False, None, None, None
    return each


def _period_mean(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None) -> exp.Query | None:
    """'average monthly revenue': the mean of the monthly totals, empty months counted as 0 (the series' calendar
    has a row for every period of the window)."""
    each = period_totals(spec)
    series = build(each, profile, as_of)
    spec.notes.extend(n for n in each.notes if n not in spec.notes)
    if series is None or each.invalid:
        spec.invalid = each.invalid
        return None
    series.set("order", None)
    total = metric_column(each)
    return exp.select(exp.alias_(exp.Avg(this=exp.column(total, "p", quoted=True)), f"{total}_per_{spec.grain}",
                                 quoted=True)).from_(exp.Subquery(this=series, alias=exp.TableAlias(this=ident("p"))))


def _groups_share(passing: exp.Query, every: exp.Query) -> exp.Query:
    def counted(query: exp.Query) -> exp.Expr:
        inner = query.copy()
        inner.set("order", None)
        inner.set("limit", None)
        return exp.Subquery(this=exp.select(exp.Count(this=exp.Star())).from_(
            exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("g")))))

    # each count once, in a derived row, so the share and the percent do not run them again
    counts = exp.select(exp.alias_(counted(passing), "part", quoted=True),
                        exp.alias_(counted(every), "total", quoted=True))
    part, total = exp.column("part", "c", quoted=True), exp.column("total", "c", quoted=True)
    fraction = exp.Div(this=exp.Mul(this=part.copy(), expression=exp.Literal.number("1.0")),
                       expression=exp.Nullif(this=total.copy(), expression=exp.Literal.number(0)))
    return exp.select(exp.alias_(part, "part", quoted=True), exp.alias_(total, "total", quoted=True),
                      exp.alias_(fraction.copy(), "share", quoted=True),
                      exp.alias_(exp.Mul(this=fraction, expression=exp.Literal.number(100)), "percent", quoted=True)
                      ).from_(exp.Subquery(this=counts, alias=exp.TableAlias(this=ident("c"))))


def _build(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None) -> exp.Query | None:
    if spec.invalid:
        return None
    if spec.query is not None:
        return spec.query.copy()
    if spec.shape != "aggregate":
        from archetypes.shapes import build_shape

        return build_shape(spec, profile, as_of)
    if spec.fact is None or spec.measure is None:
        if spec.count_table:
            source = _From(spec.count_table)
            where = row_filters(spec, profile, source, spec.count_table)
            if spec.invalid:
                return None
            select = source.select.select(exp.alias_(exp.Count(this=exp.Star()), "count", quoted=True))
            for condition in where:
                select = select.where(condition)
            return select
        return None
    if spec.partition is not None and spec.group is not None:
        from archetypes.top_per_group import build_top_per_group

        return build_top_per_group(spec, profile)
    keyed = keyed_route(spec, profile)
    prepared = prepare(spec, profile, join_group=keyed is None)
    if prepared is None:
        return None
    if keyed is not None:
        return _keyed_ranking(spec, profile, prepared, keyed)
    fact, measure = spec.fact, spec.measure
    source, where, time_expr = prepared.source, prepared.where, prepared.time_expr
    group_expr, group_key, currency_expr = prepared.group_expr, prepared.group_key, prepared.currency_expr
    zone, zone_expr, zones, value = prepared.zone, prepared.zone_expr, prepared.zones, prepared.value

    # time: window and periods, as UTC literals
    window = spec.window
    periods: list[calendar.Period] = []
    if spec.grain and time_expr is None and spec.shape == "aggregate":
        # 'average list price per month' over rows with no date: one figure would answer another question
        spec.notes.append(f"{phrase(fact.table)} rows have no date: no {spec.grain} to put them in")
        spec.invalid = True
        return None
    if spec.grain and time_expr is not None:
        span = window or _data_span(spec, fact, as_of)
        if window is not None and window.open_start:  # 'monthly sales before 1997': from the data's first month
            data = _data_span(spec, fact, as_of)
            span = calendar.Window(max(data.start, window.start), window.end, window.label) if data else window
        if span is not None:
            periods = calendar.periods(spec.grain, span.start, span.end, fiscal=profile.fiscal,
                                       fiscal_year_start=profile.fiscal_year_start)
            if as_of is not None and window is not None:
                # 'monthly revenue for 2025' on data up to June: July to December have not begun, and a row of
                # zeros for each would read as six months without a sale
                begun = [p for p in periods if _day(p.start) <= as_of]
                if begun and len(begun) < len(periods):
                    spec.notes.append(f"periods after {as_of.isoformat()}, the latest data, are left out")
                    periods = begun
        if not periods:
            spec.notes.append("no periods of that kind cover the data; showing the total instead")
        zoned = profile.zone_for(fact) if zone == "local" else None
        zone_count = max(1, len(zoned[0].zones)) if zoned else 1
        limit = MAX_CALENDAR_ROWS // zone_count
        if len(periods) > limit:
            step = _PERIOD_STEP.get(spec.grain or "", 1)
            keep = max(step, limit - limit % step)
            periods = periods[-keep:]
            spec.notes.append(f"the {spec.grain} series is limited to its last {keep} periods "
                              f"(from {periods[0].label}, {str(periods[0].start)[:16]})")
    if periods:
        assert time_expr is not None and fact.time is not None  # periods come from the time column
        return _periods_query(source, where, value, measure, metric_column(spec), time_expr, periods, zone,
                              zone_expr, zones if zone_expr is not None else [], fact.time, group_expr, group_key,
                              currency_expr if spec.currency_mode == "per" else None, spec, profile)

    select = source.select
    metric_name = metric_column(spec)
    metric_value = metric_expression(spec, measure, value, source, profile)
    if metric_value is None:
        return None
    metric = exp.alias_(metric_value, metric_name, quoted=True)
    select = source.select
    outputs: list[exp.Expr] = []
    groups: list[exp.Expr] = []
    if group_expr is not None:
        assert spec.group is not None  # group_expr is the group's column
        outputs.append(exp.alias_(group_expr.copy(), slug(spec.group.noun), quoted=True))
        groups.append(group_expr.copy())
        if group_key is not None:
            groups.append(group_key.copy())
    if prepared.also:
        assert spec.also_by is not None  # prepared.also is the second breakdown's name and key
        outputs.append(exp.alias_(prepared.also[0].copy(), slug(spec.also_by.noun), quoted=True))
        groups.extend(e.copy() for e in prepared.also)
    if spec.currency_mode == "per" and currency_expr is not None:
        outputs.append(exp.alias_(currency_expr.copy(), "currency", quoted=True))
        groups.append(currency_expr.copy())
    select = select.select(*outputs, metric)
    for condition in where:
        select = select.where(condition)
    if groups:
        select = select.group_by(*groups)
    if spec.having is not None:
        select = select.having(_compare(metric_value.copy(), spec.having))
    if group_expr is not None and (spec.limit or spec.having is not None):
        select = select.order_by(exp.Ordered(this=exp.column(metric_name, quoted=True), desc=not spec.ascending),
                                 exp.Ordered(this=group_expr.copy()),
                                 *([exp.Ordered(this=group_key.copy())] if group_key is not None else []))
        if spec.limit:
            select = select.limit(spec.limit)
    elif groups:
        named = [side_order(group_expr, spec.sides)] if spec.sides and group_expr is not None else []
        select = select.order_by(*named, *[g.copy() for g in groups])
    return select


def keyed_route(spec: QuerySpec, profile: SchemaProfile) -> tuple[Edge, ...] | None:
    """The path to the group's table when a grouped aggregate can group by the key its rows already hold
    (the last foreign key on the way references the entity's one-column key): no series, no column-only
    group, not the fact table itself."""
    group = spec.group
    if group is None or spec.fact is None or spec.grain or group.column_only or len(group.key) != 1 or \
            spec.also_by is not None or combined(spec.sides):
        return None
    route = roles.route(profile, spec.fact.table, group.table, spec.group_via)
    if not route or tuple(route[-1].ref_columns) != tuple(group.key):
        return None
    return route


def _keyed_ranking(spec: QuerySpec, profile: SchemaProfile, prepared: Prepared,
                   route: tuple[Edge, ...]) -> exp.Query | None:
    """A grouped aggregate (a ranking, "by <entity>") grouped by the foreign key the rows hold, the names
    joined to the grouped rows afterwards. Grouping a million rows by a name (a text column, or first and
    last names concatenated) was what timed out at scale; the answers are the same: rows whose key has no
    entity row drop out at the join as they did at the inner join, ties order by name then key."""
    entity, measure, source = spec.group, spec.measure, prepared.source
    assert entity is not None and measure is not None
    key = col(route[-1].columns[0], source.alias_for(route[:-1]))
    metric_name = metric_column(spec)
    metric_value = metric_expression(spec, measure, prepared.value, source, profile)
    if metric_value is None:
        return None
    key_name = f"{slug(entity.noun)}_key"
    currency = prepared.currency_expr if spec.currency_mode == "per" else None
    inner_outputs = [exp.alias_(key, key_name, quoted=True)]
    groups: list[exp.Expr] = [key.copy()]
    if currency is not None:
        inner_outputs.append(exp.alias_(currency.copy(), "currency", quoted=True))
        groups.append(currency.copy())
    # builders with copy=False: these trees are this reading's own, and each copying step deep-copies them
    inner = source.select.select(*inner_outputs, exp.alias_(metric_value, metric_name, quoted=True), copy=False)
    for condition in prepared.where:
        inner = inner.where(condition, copy=False)
    inner = inner.group_by(*groups, copy=False)
    if spec.having is not None:
        inner = inner.having(_compare(metric_value.copy(), spec.having), copy=False)

    grouped = exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("s")))
    if zeros_counted(spec, profile):
        return _every_one_ranked(spec, profile, grouped, key_name, metric_name)
    name, entity_key = name_expression(entity, "n"), col(entity.key[0], "n")
    outputs = [exp.alias_(name.copy(), slug(entity.noun), quoted=True)]
    owners = _owners_named(entity, profile)
    outputs += [exp.alias_(name_expression(owner, f"o{i}"), slug(owner.noun), quoted=True)
                for i, (_, owner) in enumerate(owners)]
    if currency is not None:
        outputs.append(exp.alias_(col("currency", "s"), "currency", quoted=True))
    outputs.append(exp.alias_(col(metric_name, "s"), metric_name, quoted=True))
    select = (exp.select(*outputs)
              .from_(grouped, copy=False)
              .join(table_ref(entity.table, "n"), on=exp.EQ(this=entity_key.copy(), expression=col(key_name, "s")),
                    copy=False))
    for i, (edge, owner) in enumerate(owners):
        select = select.join(table_ref(owner.table, f"o{i}"), join_type="left", copy=False, on=exp.EQ(
            this=col(owner.key[0], f"o{i}"), expression=col(edge.columns[0], "n")))
    if spec.limit or spec.having is not None:
        select = select.order_by(exp.Ordered(this=col(metric_name, "s"), desc=not spec.ascending),
                                 exp.Ordered(this=name.copy()), exp.Ordered(this=entity_key.copy()), copy=False)
        return select.limit(spec.limit, copy=False) if spec.limit else select
    named = [side_order(name, spec.sides)] if spec.sides else []
    return select.order_by(*named, name.copy(), entity_key.copy(), *([col("currency", "s")] if currency is not None else []),
                           copy=False)


_ADDITIVE = ("sum", "product", "count", "count_distinct")


def _owners_named(entity: Entity, profile: SchemaProfile) -> list[tuple[Edge, Entity]]:
    """'the biggest parcel': a row known by its key alone is told by the named rows it belongs to (its client,
    its shop), at most two, each through its own one-column key."""
    if tuple(entity.name_columns) != tuple(entity.key):
        return []
    found: list[tuple[Edge, Entity]] = []
    for edge in profile.edges.get(entity.table, ()):
        owner = profile.entities.get(edge.ref_table)
        if owner is None or len(edge.columns) != 1 or len(owner.key) != 1 or \
                tuple(owner.name_columns) == tuple(owner.key) or tuple(edge.ref_columns) != tuple(owner.key):
            continue
        found.append((edge, owner))
    return found[:2]


def zeros_counted(spec: QuerySpec, profile: SchemaProfile) -> bool:
    """'which five albums earned the least last year': an album that sold nothing then earned least of all, so a
    ranking lowest first counts every row of the entity, those without events as 0. Only for a total that is 0
    without events (not an average or a ratio), and only when every value filter describes the entity itself
    ('the cheapest laptops'): a filter on the events' other side ('least in rock') names no entity to count."""
    entity, measure = spec.group, spec.measure
    if spec.with_rows_only:
        return False
    if spec.every_one and not spec.limit and not spec.ascending and measure is not None and \
            measure.kind in ("count", "count_distinct"):
        spec = replace(spec, ascending=True, limit=-1)  # every one of them asked: those without events as 0 too
    if not spec.ascending or not spec.limit or entity is None or entity.column_only or len(entity.key) != 1 or \
            measure is None or measure.kind not in _ADDITIVE or spec.agg or spec.per_table or spec.having or \
            spec.currency_mode == "per" or spec.sides or spec.shape != "aggregate" or spec.partition or spec.grain:
        return False
    return all(f.entity.table == entity.table or profile.path(entity.table, f.entity.table) is not None
               for f in spec.filters) and keyed_route(spec, profile) is not None


def _every_one_ranked(spec: QuerySpec, profile: SchemaProfile, grouped: exp.Subquery, key_name: str,
                      metric_name: str) -> exp.Query:
    """Every row of the entity (within the filters that describe it), its total from the grouped events or 0,
    lowest first."""
    entity, limit = spec.group, spec.limit
    assert entity is not None  # zeros_counted: a ranking lowest first, top N, or each one asked (no limit)
    outer = _From(entity.table, prefix="n")
    conditions = [f.condition(outer.alias_for(profile.path(entity.table, f.entity.table) or ())) for f in spec.filters]
    conditions += [c.expression("n0") for c in spec.conditions if c.table == entity.table]
    name, entity_key = name_expression(entity, "n0"), col(entity.key[0], "n0")
    total = exp.Coalesce(this=col(metric_name, "s"), expressions=[exp.Literal.number(0)])
    select = outer.select.select(exp.alias_(name.copy(), slug(entity.noun), quoted=True),
                                 exp.alias_(total.copy(), metric_name, quoted=True), copy=False)
    select = select.join(grouped, on=exp.EQ(this=entity_key.copy(), expression=col(key_name, "s")),
                         join_type="left", copy=False)
    for condition in conditions:
        select = select.where(condition, copy=False)
    if not limit:  # each one, as a breakdown lists them: by name
        return select.order_by(exp.Ordered(this=name.copy()), exp.Ordered(this=entity_key.copy()), copy=False)
    return select.order_by(exp.Ordered(this=total, desc=False), exp.Ordered(this=name.copy()),
                           exp.Ordered(this=entity_key.copy()), copy=False).limit(limit, copy=False)


def ratio_part(spec: QuerySpec) -> Fact:
    """The fact of the figure over the spec's own, dated as the spec's is when that date is on its rows (the
    lines dated by their order's shipped date: the freight by the same date)."""
    assert spec.ratio_of is not None
    fact, time = spec.ratio_of[0], spec.fact.time if spec.fact is not None else None
    if time is not None and time.table == fact.table and fact.time is not None and time.column != fact.time.column:
        return replace(fact, time=time, time_path=())
    return fact


def _ratio_of_figures(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None) -> exp.Query | None:
    """'freight as % of sales': the one figure over the other, each its own total over the same window and
    filters, in percent. One number: no group, no currency split (a sum over several kinds of money is no share)."""
    assert spec.ratio_of is not None
    if spec.group is not None or spec.shape != "aggregate" or spec.currency_mode == "per":
        spec.invalid = True
        return None
    whole = replace(spec.copy(), ratio_of=None)
    part = replace(spec.copy(), ratio_of=None, fact=ratio_part(spec), measure=spec.ratio_of[1], count_table=None)
    built = [build(whole, profile, as_of), build(part, profile, as_of)]
    spec.notes += [n for one in (whole, part) for n in one.notes if n not in spec.notes]
    if built[0] is None or built[1] is None or whole.invalid or part.invalid:
        spec.invalid = True
        return None
    below, above = (exp.Subquery(this=q) for q in built)
    if spec.ratio_plain:  # 'cost per click': spend over clicks, as it is
        ratio = exp.Div(this=exp.Mul(this=exp.Literal.number(1.0), expression=above),
                        expression=exp.Nullif(this=below, expression=exp.Literal.number(0)))
        return exp.select(exp.alias_(ratio, "ratio", quoted=True))
    percent = exp.Div(this=exp.Mul(this=exp.Literal.number(100.0), expression=above),
                      expression=exp.Nullif(this=below, expression=exp.Literal.number(0)))
    return exp.select(exp.alias_(percent, "percent", quoted=True))


def row_filters(spec: QuerySpec, profile: SchemaProfile, source: _From, root: str) -> list[exp.Expr]:
    """The WHERE conditions of the spec's value filters and record-scope conditions, joined through the
    profile's paths from `root`. A filter that cannot be reached makes the reading invalid: a reading that
    silently drops a filter answers another question."""
    where: list[exp.Expr] = []
    for flt in spec.filters:
        route = roles.route(profile, root, flt.entity.table, flt.via)
        if route is None and flt.via is None and (linked := bridged(profile, source, root, flt)) is not None:
            where.append(linked)  # 'tracks on the grunge playlist': through the table linking both
            continue
        if route is None and flt.via is None and (spec.measure is None or spec.measure.kind in ("count", "count_distinct")) \
                and (held := through_children(profile, source, root, flt)) is not None:
            where.append(held)  # 'how many clients bought jazz': the invoices with a line of it, counted
            continue
        if route is None:
            spec.notes.append(f"{flt.entity.noun} cannot be reached from {root}: no reading over {root} "
                              f"can apply '{flt.describe()}'")
            spec.invalid = True
            continue
        where.append(flt.condition(source.alias_for(route)))
    unread = []
    for condition in spec.conditions:
        route = profile.path(root, condition.table)
        if route is None and condition.asked and (held := child_condition(profile, source, root, condition)) is not None:
            where.append(held)  # 'sales with a discount': those with a line discounted
            continue
        if route is None and condition.asked:
            spec.notes.append(f"no reading over {root} can apply '{condition.label}'")
            spec.invalid = True
            continue
        if route is None:
            unread.append(condition)  # the scope concerns rows this reading does not read
            continue
        if condition.op == "is_null" and route and nullable_route(profile, root, condition.table):
            where.append(_none_struck_out(condition, route, source))
            continue
        where.append(condition.expression(source.alias_for(route)))
    if unread:  # and its explanation must not say it applied ('the salary history's valid to...' over leave requests)
        spec.conditions = [c for c in spec.conditions if c not in unread]
    return where


def _none_struck_out(condition: RowCondition, route: tuple[Edge, ...], source: _From) -> exp.Expr:
    """'Visitors not deleted' over donations that may have no visitor: no donation of a deleted visitor, while
    those with none stay (a join to the visitors would drop them, and with them money that was given)."""
    last = route[-1]
    holder = source.alias_for(route[:-1])
    inner = _From(last.ref_table, prefix=f"x{len(source.aliases)}_")
    link = exp.and_(*[exp.EQ(this=col(ref, inner.aliases[()]), expression=col(own, holder))
                      for own, ref in zip(last.columns, last.ref_columns)])
    struck = exp.Not(this=condition.expression(inner.aliases[()]))
    return exp.Not(this=exp.Exists(this=inner.select.select(exp.Literal.number(1)).where(link).where(struck)))


def bridged(profile: SchemaProfile, source: _From, root: str, flt: EntityFilter) -> exp.Expr | None:
    """Rows of `root` (or of a table it points at) linked to the filter's rows by a table pointing at both (a
    playlist's tracks): EXISTS over that table, so no row is repeated. None when no such table links them."""
    for table in sorted(profile.edges):
        edges = profile.edges[table]
        to_filter = next((e for e in edges if e.ref_table == flt.entity.table), None)
        if to_filter is None or table in (root, flt.entity.table):
            continue
        for edge in edges:
            if edge is to_filter or edge.ref_table == flt.entity.table:
                continue
            route = () if edge.ref_table == root else profile.path(root, edge.ref_table)
            if route is None:
                continue
            outer = source.alias_for(route)
            inner = _From(table, prefix=f"b{len(source.aliases)}_")
            link = exp.and_(*[exp.EQ(this=col(own, inner.aliases[()]), expression=col(ref, outer))
                              for own, ref in zip(edge.columns, edge.ref_columns)])
            held = replace(flt, negate=False).condition(inner.alias_for((to_filter,)))
            found = exp.Exists(this=inner.select.select(exp.Literal.number(1)).where(link).where(held))
            return exp.Not(this=found) if flt.negate else found
    return None


def child_condition(profile: SchemaProfile, source: _From, root: str, condition: RowCondition) -> exp.Expr | None:
    """Rows of `root` with a row of the condition's table pointing at them that passes it: EXISTS, so a row is
    counted once however many of its lines pass. None when that table does not point at `root`."""
    back = next((e for e in profile.edges.get(condition.table, ()) if e.ref_table == root), None)
    if back is None:
        return None
    outer = source.alias_for(())
    inner = _From(condition.table, prefix=f"c{len(source.aliases)}_")
    link = exp.and_(*[exp.EQ(this=col(own, inner.aliases[()]), expression=col(ref, outer))
                      for own, ref in zip(back.columns, back.ref_columns)])
    return exp.Exists(this=inner.select.select(exp.Literal.number(1)).where(link)
                      .where(condition.expression(inner.aliases[()])))


def through_children(profile: SchemaProfile, source: _From, root: str, flt: EntityFilter) -> exp.Expr | None:
    """Rows of `root` with a child row (one of its lines) that reaches the filter's rows: EXISTS over the
    children, so a row is counted once however many of its lines match. None when no child table reaches them."""
    if flt.entity.column_only:
        return None  # a place or a state of the rows' far side ('to france': a supplier's country) is no kind of line
    for table in sorted(profile.edges):
        back = next((e for e in profile.edges[table] if e.ref_table == root), None)
        if back is None or table in (root, flt.entity.table):
            continue
        route = profile.path(table, flt.entity.table)
        if route is None or any(e.ref_table == root for e in route):
            continue
        outer = source.alias_for(())
        inner = _From(table, prefix=f"c{len(source.aliases)}_")
        held = replace(flt, negate=False).condition(inner.alias_for(route))
        link = exp.and_(*[exp.EQ(this=col(own, inner.aliases[()]), expression=col(ref, outer))
                          for own, ref in zip(back.columns, back.ref_columns)])
        found = exp.Exists(this=inner.select.select(exp.Literal.number(1)).where(link).where(held))
        return exp.Not(this=found) if flt.negate else found
    return None


def metric_column(spec: QuerySpec) -> str:
    measure = spec.measure
    name = measure.value if measure else "value"
    if spec.per_table:
        return f"{name}_per_{slug(singular_noun(spec.per_table))}"
    if spec.agg:
        return f"{spec.agg}_{name}"
    return name


def singular_noun(table: str) -> str:
    from archetypes.naming import phrase

    return phrase(table) or table


def per_key(table_name: str, source: _From, profile: SchemaProfile) -> exp.Expr | None:
    """The column telling apart the rows of `table_name` the source's rows belong to (the foreign key's own
    column: no join needed), or None when they cannot be reached."""
    route = profile.path(source.root, table_name)
    table = profile.tables.get(table_name)
    if route is None or table is None or not table.primary_key:
        return None
    if route:
        return col(route[-1].columns[0], source.alias_for(route[:-1]))
    return col(table.primary_key[0], "t0")


def nullable_route(profile: SchemaProfile, root: str, table_name: str) -> bool:
    """Whether the rows of `root` reach `table_name` through a column that may be empty (a ticket no agent
    holds)."""
    route = profile.path(root, table_name)
    if not route:
        return False
    holder = profile.tables.get(route[-2].ref_table if len(route) > 1 else root)
    column = holder.column(route[-1].columns[0]) if holder is not None else None
    return column is not None and column.nullable


def metric_expression(spec: QuerySpec, measure: Measure, value: exp.Expr, source: _From,
                      profile: SchemaProfile,
                      carry: Callable[[exp.Expr, str], exp.Expr] | None = None) -> exp.Expr | None:
    """The aggregate a reading computes: the measure's own, an average / min / max of its row value, or a
    ratio of it to the distinct rows of another table (revenue per order, tracks per album). `carry` takes a
    row expression it needs besides the value (a weight, the key counted) into the rows it aggregates and
    returns what names it there (a series aggregates a derived table's rows, not the source's)."""
    use = carry or (lambda expression, _name: expression)
    if spec.agg in ("avg", "min", "max") and measure.kind in ("product", "sum", "expression"):
        func = {"avg": exp.Avg, "min": exp.Min, "max": exp.Max}[spec.agg]
        aggregated: exp.Expr = func(this=value)
    elif spec.agg == "weighted" and spec.weight is not None:
        # each row's value counted by its weight: SUM(value x weight) / SUM(weight) (a discount by the line's value)
        weight = use(_row_value(spec.weight, source.alias_for(())), "w")
        aggregated = exp.Div(this=exp.Sum(this=exp.Mul(this=value, expression=weight.copy())),
                             expression=exp.Nullif(this=exp.Sum(this=weight), expression=exp.Literal.number(0)))
    else:
        aggregated = measure_aggregate(measure, value)
    if not spec.per_table:
        return aggregated
    key = per_key(spec.per_table, source, profile)
    if key is None:
        spec.notes.append(f"{spec.per_table} cannot be reached from {source.root}: no ratio per it")
        return None
    if carry is None and spec.agg is None and nullable_route(profile, source.root, spec.per_table):
        # 'tickets per agent': a ticket no agent holds is no agent's; only the rows with one are divided
        held = exp.Not(this=exp.Is(this=key.copy(), expression=exp.Null()))
        aggregated = exp.Count(this=key.copy()) if measure.kind == "count" and not measure.columns else \
            measure_aggregate(measure, exp.Case().when(held, value.copy()))
    denominator: exp.Expr = exp.Count(this=exp.Distinct(expressions=[use(key, "per_key")]))
    if spec.per_all and spec.group is None:
        # every row of the table, with the filters that describe those rows ('per client in Canada': every
        # Canadian client, the country reached through the clients), not the filters on the events alone
        rows = _From(spec.per_table, prefix="d")
        where: list[exp.Expr] = []
        for flt in spec.filters:
            reach = roles.route(profile, source.root, flt.entity.table, flt.via) or ()
            at = next((i for i, edge in enumerate(reach) if edge.ref_table == spec.per_table), None)
            if flt.entity.table == spec.per_table or at is not None:
                where.append(flt.condition(rows.alias_for(reach[at + 1:] if at is not None else ())))
        where += [c.expression("d0") for c in spec.conditions if c.table == spec.per_table]
        every = rows.select.select(exp.Count(this=exp.Star()))
        for condition in where:
            every = every.where(condition)
        denominator = exp.Subquery(this=every)
    numerator = exp.Mul(this=aggregated, expression=exp.Literal.number("1.0"))
    return exp.Div(this=numerator, expression=exp.Nullif(this=denominator, expression=exp.Literal.number(0)))


def _compare(value: exp.Expr, having: tuple[str, float]) -> exp.Expr:
    op, number = having
    literal_number = exp.Literal.number(repr(number) if not float(number).is_integer() else int(number))
    node = {"gt": exp.GT, "ge": exp.GTE, "lt": exp.LT, "le": exp.LTE, "eq": exp.EQ}[op]
    return node(this=value, expression=literal_number)


def same_column_reaching(profile: SchemaProfile, group: Entity, table: str) -> Entity | None:
    """The column of the same name on `table` or on a table it reaches ('status' of subscriptions, not of
    invoices), used like an entity."""
    column = group.name_columns[0]
    candidates = [name for name, info in profile.tables.items() if info.column(column) is not None and
                  profile.path(table, name) is not None]
    if not candidates:
        return None
    best = min(candidates, key=lambda name: len(profile.path(table, name) or ()))
    info = profile.tables[best]
    return Entity(table=best, name_columns=(column,), noun=group.noun, key=tuple(info.primary_key),
                  row_count=info.row_count, column_only=True)


def _in(expr: exp.Expr, values: tuple[str, ...]) -> exp.Expr:
    if len(values) == 1:
        return exp.EQ(this=expr, expression=literal(values[0]))
    return exp.In(this=expr, expressions=[literal(v) for v in values])


def _row_value(measure: Measure, alias: str) -> exp.Expr:
    if measure.kind == "product":
        gross = exp.Mul(this=col(measure.columns[0], alias), expression=col(measure.columns[1], alias))
        if len(measure.columns) == 3:  # net of a line discount (a fraction)
            kept = exp.Paren(this=exp.Sub(this=exp.Literal.number(1), expression=col(measure.columns[2], alias)))
            return exp.Mul(this=gross, expression=kept)
        return gross
    if measure.kind == "expression" and measure.expression:
        parsed = sqlglot.parse_one(measure.expression)
        for column in parsed.find_all(exp.Column):
            column.set("table", ident(alias))
            column.set("this", ident(column.name))
        return parsed
    if measure.columns:
        return col(measure.columns[0], alias)
    return exp.Literal.number(1)


def measure_aggregate(measure: Measure, value: exp.Expr) -> exp.Expr:
    if measure.kind == "count_distinct":
        return exp.Count(this=exp.Distinct(expressions=[value]))
    if measure.kind == "count":
        return exp.Count(this=value if measure.columns else exp.Star())
    return exp.Coalesce(this=exp.Sum(this=value), expressions=[exp.Literal.number(0)])


def _range(expr: exp.Expr, start: dt.date, end: dt.date, zone: str, column: TimeColumn) -> exp.Expr:
    low = calendar.utc_instant(start, None if column.date_only else zone)
    high = calendar.utc_instant(end, None if column.date_only else zone)
    compared = period_key.scan(expr.copy()) if _wide(low, high, column) else expr
    return exp.and_(exp.GTE(this=compared.copy(), expression=time_literal(low, column)),
                    exp.LT(this=compared.copy(), expression=time_literal(high, column)), copy=False)


def _wide(low: dt.datetime, high: dt.datetime, column: TimeColumn) -> bool:
    """Whether [low, high) covers more than ``period_key.WIDE_RANGE`` of the column's time span."""
    if column.earliest is None or column.latest is None or column.latest <= column.earliest:
        return False
    covered = min(high, column.latest) - max(low, column.earliest)
    return covered > (column.latest - column.earliest) * period_key.WIDE_RANGE


def _local_range(expr: exp.Expr, zone_expr: exp.Expr, zones: list[str], start: dt.date,
                 end: dt.date, column: TimeColumn) -> exp.Expr:
    parts = [exp.Paren(this=exp.and_(exp.EQ(this=zone_expr.copy(), expression=literal(z)),
                                     _range(expr, start, end, z, column), copy=False)) for z in zones]
    return exp.Paren(this=exp.or_(*parts)) if len(parts) > 1 else parts[0]


def _day(moment: dt.date) -> dt.date:
    return moment.date() if isinstance(moment, dt.datetime) else moment


def _data_span(spec: QuerySpec, fact: Fact, as_of: dt.date | None) -> calendar.Window | None:
    time = fact.time
    if time is None or time.earliest is None or time.latest is None:
        return None
    end_day = min(time.latest.date(), as_of) if as_of else time.latest.date()
    end = calendar.shift(end_day, calendar.DAY)  # a 9999-12-31 sentinel in the data: clamped, not OverflowError
    start = time.earliest.date()
    days = DEFAULT_SPAN_DAYS.get(spec.grain or "")
    if days and (end - start).days > days:
        start = calendar.shift(end, -dt.timedelta(days=days))
        spec.notes.append(f"with no window asked, the {spec.grain} series covers the last {days} days to "
                          f"{end_day.isoformat()}")
    return calendar.Window(start, end, "all time")


def _native_grain(grain: str | None, periods: list[calendar.Period], zone: str, zone_expr: exp.Expr | None,
                  column: TimeColumn) -> str | None:
    """The grain when the engine's own truncation gives each row the period the UTC boundaries would: a day,
    month or year (labelled as ``calendar.periods`` labels them), boundaries at UTC midnights (no zone to
    convert, or a date-only column), a timestamp without zone (PostgreSQL would truncate a timestamptz in
    the session's zone)."""
    if grain not in period_key.NATIVE_GRAINS or zone_expr is not None or column.with_zone:
        return None
    if not column.date_only and zone not in ("UTC", "Etc/UTC"):
        return None
    labels = [p.label for p in periods]
    if not periods or periods[0].start.year < 1000:  # '999' is no engine's four-digit year
        return None
    return grain if len(set(labels)) == len(labels) else None


def _periods_query(source: _From, where: list[exp.Expr], value: exp.Expr, measure: Measure,
                   metric_name: str, time_expr: exp.Expr, periods: list[calendar.Period], zone: str,
                   zone_expr: exp.Expr | None, zones: list[str], column: TimeColumn,
                   group_expr: exp.Expr | None, group_key: exp.Expr | None,
                   currency_expr: exp.Expr | None,
                   spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """A series: each row's period index computed from the UTC boundaries (``period_key``), rows grouped by
    it, then a calendar of one row per label joined on equality so empty periods show (with 0)."""
    labels = calendar.label_indexes(periods)
    # the nodes `exp.select(exp.alias_(...), ...)` makes, made directly: the builders parse, copy and walk
    # each row's nodes, half of building an all-time monthly series (114 rows)
    rows = [exp.Select(expressions=[exp.Alias(this=literal(label), alias=ident("period")),
                                    exp.Alias(this=exp.Literal.number(index), alias=ident("period_index"))])
            for label, index in labels.items()]
    union: exp.Query = rows[0]
    for row in rows[1:]:
        union = exp.Union(this=union, expression=row, distinct=False)  # left-deep, no copies
    union.meta[_CALENDAR] = True  # `reading_key` keys it by its literals

    native = _native_grain(spec.grain, periods, zone, zone_expr, column)
    if native is not None:
        key = period_key.native_key(native, time_expr)
    else:
        trees = {z: period_key.index_tree(time_expr, calendar.segments(periods, None if column.date_only else z,
                                                                       column.date_only),
                                          lambda moment: time_literal(moment, column))
                 for z in (zones if zone_expr is not None else [zone])}
        key = period_key.zoned_index(time_expr, zone_expr, trees)
    # builders with copy=False: the CASE trees are large and every copying step would deep-copy them
    key_name = "period_key" if native is not None else "period_index"
    inner = source.select.copy().select(exp.alias_(key, key_name, quoted=True),
                                        exp.alias_(value, "v", quoted=True), copy=False)

    def carry(expression: exp.Expr, name: str) -> exp.Expr:
        nonlocal inner  # a weight or the key a ratio counts: carried beside each row's value, not grouped by
        inner = inner.select(exp.alias_(expression.copy(), name, quoted=True), copy=False)
        return col(name, "r")

    metric_value = metric_expression(spec, measure, col("v", "r"), source, profile, carry)
    if metric_value is None:
        return None
    carried = [key_name]
    for expression, name in ((group_expr, "grp"), (group_key, "grp_key"), (currency_expr, "currency")):
        if expression is not None:
            inner = inner.select(exp.alias_(expression.copy(), name, quoted=True), copy=False)
            carried.append(name)
    for condition in where:
        inner = inner.where(condition, copy=False)
    first, last = periods[0].start, periods[-1].end
    if zone_expr is not None:
        inner = inner.where(_local_range(time_expr, zone_expr, zones, first, last, column), copy=False)
    else:
        inner = inner.where(_range(time_expr, first, last, zone, column), copy=False)

    # a native key is labelled once per group, and joined to the calendar by its label
    labelled = [exp.alias_(period_key.native_label(native, col(key_name, "r")), "period", quoted=True)
                if native is not None and name == key_name else col(name, "r") for name in carried]
    totals = (exp.select(*labelled, exp.alias_(metric_value, metric_name, quoted=True))
              .from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("r"))), copy=False)
              .group_by(*[col(name, "r") for name in carried], copy=False))
    outputs: list[exp.Expr] = [exp.alias_(col("period", "p"), "period", quoted=True)]
    if group_expr is not None:
        assert spec.group is not None  # group_expr is the group's column
        outputs.append(exp.alias_(col("grp", "s"), slug(spec.group.noun), quoted=True))
    if currency_expr is not None:
        outputs.append(exp.alias_(col("currency", "s"), "currency", quoted=True))
    # an empty period adds nothing, but has no average and no ratio: empty, not 0
    metric = col(metric_name, "s") if spec.agg or spec.per_table else \
        exp.Coalesce(this=col(metric_name, "s"), expressions=[exp.Literal.number(0)])
    series = exp.select(*outputs, exp.alias_(metric, metric_name, quoted=True)).from_(table_ref("periods", "p"),
                                                                                     copy=False)
    # the node `.join(..., join_type="left")` makes, made directly: that builder parses "FROM _ left JOIN _" for
    # its side on every call
    series.append("joins", exp.Join(this=exp.Subquery(this=totals, alias=exp.TableAlias(this=ident("s"))), side="LEFT",
                                    on=exp.EQ(this=col("period" if native is not None else "period_index", "s"),
                                              expression=col("period" if native is not None else "period_index", "p"))))
    return (series
            .order_by(col("period_index", "p"), *[col(name, "s") for name in carried[1:]], copy=False)
            .with_(ident("periods"), as_=union, copy=False))
