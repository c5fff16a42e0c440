"""Query shapes beyond a plain aggregate: absence, attribute superlatives, time-part distributions,
change between two periods, and share of a total. Each is one sqlglot statement that runs the same on
SQLite, PostgreSQL and MariaDB (time parts are rendered per dialect by `query.render`).
"""
from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import TypeVar
from zoneinfo import ZoneInfo

from sqlglot import exp

from archetypes import calendar, roles
from archetypes.naming import phrase, plural, slug, words
from archetypes.profile import Edge, Entity, Fact, SchemaProfile, TimeColumn
from archetypes.query import (
    EntityFilter,
    Prepared,
    QuerySpec,
    _From,
    _range,
    bridged,
    child_condition,
    col,
    ident,
    literal,
    measure_aggregate,
    metric_column,
    metric_expression,
    name_expression,
    prepare,
    time_literal,
)

WEEKDAYS = ("Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
          "November", "December")
PART_FUNCTIONS = {"weekday": "CHECKER_WEEKDAY", "hour": "CHECKER_HOUR", "minute": "CHECKER_MINUTE",
                  "month": "CHECKER_MONTH"}


def build_shape(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None) -> exp.Query | None:
    builder = {"absence": _absence, "attribute": _attribute, "distribution": _distribution, "change": _change,
               "share": _share, "list": _list}.get(spec.shape)
    if spec.shape == "share" and spec.grain and spec.group is None and not spec.share_top:
        return _share_series(spec, profile, as_of)
    return builder(spec, profile) if builder else None


# -- time parts ---------------------------------------------------------------------------------------

def part(name: str, expr: exp.Expr) -> exp.Expr:
    """A time part of a timestamp (weekday 0 = Sunday, hour, minute, month), rendered per dialect."""
    return exp.Anonymous(this=PART_FUNCTIONS[name], expressions=[expr])


_E = TypeVar("_E", bound=exp.Expr)


_PART_OF = {v: k for k, v in PART_FUNCTIONS.items()}


def render_parts(query: _E, dialect: str) -> _E:
    """Replace the portable time-part markers by each engine's own functions."""
    for node in list(query.find_all(exp.Anonymous)):
        written = written_part(node, dialect)
        if written is not None:
            node.replace(written)
    return query


def written_part(node: exp.Anonymous, dialect: str) -> exp.Expr | None:
    """The engine's own function for one time-part marker (None: `node` is no such marker)."""
    which = _PART_OF.get(str(node.this).upper())
    return None if which is None else _dialect_part(which, node.expressions[0].copy(), dialect)


def _dialect_part(which: str, arg: exp.Expr, dialect: str) -> exp.Expr:
    if dialect == "sqlite":
        fmt = {"weekday": "%w", "hour": "%H", "minute": "%M", "month": "%m"}[which]
        return exp.cast(exp.Anonymous(this="STRFTIME", expressions=[literal(fmt), arg]), "INTEGER")
    if dialect == "postgres":
        field = {"weekday": "DOW", "hour": "HOUR", "minute": "MINUTE", "month": "MONTH"}[which]
        return exp.cast(exp.Extract(this=exp.var(field), expression=arg), "INTEGER")
    if which == "weekday":
        return exp.Paren(this=exp.Sub(this=exp.Anonymous(this="DAYOFWEEK", expressions=[arg]),
                                      expression=exp.Literal.number(1)))
    return exp.Anonymous(this={"hour": "HOUR", "minute": "MINUTE", "month": "MONTH"}[which], expressions=[arg])


def _int(value: int) -> exp.Expr:  # Literal.number gives a Neg below zero
    return exp.Literal.number(value)


def _idiv(value: exp.Expr, by: int) -> exp.Expr:
    """Exact integer division of a non-negative integer expression on every engine."""
    mod = exp.Mod(this=exp.Paren(this=value.copy()), expression=_int(by))
    return exp.cast(exp.Div(this=exp.Paren(this=exp.Sub(this=exp.Paren(this=value.copy()), expression=mod)),
                            expression=_int(by)), "INTEGER")


@lru_cache(maxsize=256)
def _offsets(zone: str, start: dt.datetime, end: dt.datetime) -> tuple[tuple[dt.datetime, dt.datetime, int], ...]:
    """[utc_start, utc_end, offset minutes] ranges covering [start, end) for one zone (daylight saving
    transitions found day by day, then to the hour)."""
    tz = ZoneInfo(zone)
    utc = dt.UTC

    def offset(moment: dt.datetime) -> int:
        delta = moment.replace(tzinfo=utc).astimezone(tz).utcoffset() or dt.timedelta()
        return int(delta.total_seconds() // 60)

    ranges: list[tuple[dt.datetime, dt.datetime, int]] = []  # a tuple below: cached
    cursor, current = start, offset(start)
    probe = start
    while probe < end:
        step = min(probe + dt.timedelta(days=1), end)
        if offset(step) != current:
            hour = probe
            while hour < step and offset(hour) == current:
                hour += dt.timedelta(hours=1)
            ranges.append((cursor, hour, current))
            cursor, current = hour, offset(hour)
        probe = step
    ranges.append((cursor, end, current))
    return tuple(ranges)


OFFSETS = "tz"  # the alias of a reading's table of UTC offsets (``_zone_offset``)


def _zone_offset(spec: QuerySpec, prepared: Prepared, fact: Fact) -> exp.Expr | None:
    """Minutes to add to a UTC timestamp to get the local time of the row's zone (None: UTC).

    The zone's offsets over the data's span are a small derived table of (zone, utc_from, utc_to, minutes)
    stretches computed in Python (``_offsets``: daylight saving included), LEFT JOINed to the rows on the
    row's zone and its UTC time in [utc_from, utc_to): the stretches of a zone do not overlap, so a row
    finds at most one and none is repeated, and a row outside them (or without a zone) gets 0. Only
    comparisons and literals, so the offset is the same on SQLite, PostgreSQL and MariaDB; the statement
    names the offset once per use (``tz.minutes``) where a CASE of every stretch was written at each."""
    time = fact.time
    if time is None or time.date_only or time.earliest is None or time.latest is None:
        return None
    zones: list[str]
    if prepared.zone_expr is not None:
        zones = prepared.zones
    elif prepared.zone not in ("UTC", "local"):
        zones = [prepared.zone]
    else:
        return None
    assert prepared.time_expr is not None
    if not _offsets_joined(prepared.source.select):
        start = dt.datetime.combine(time.earliest.date(), dt.time()) - dt.timedelta(days=1)
        end = dt.datetime.combine(time.latest.date(), dt.time()) + dt.timedelta(days=2)
        rows: list[exp.Select] = []
        for zone in dict.fromkeys(zones):
            for low, high, minutes in _offsets(zone, start, end):
                values: list[exp.Expr] = [literal(zone)] if prepared.zone_expr is not None else []
                values += [time_literal(low, time), time_literal(high, time), _int(minutes)]
                if not rows:  # a union's columns are named by its first row
                    names = ["zone"] if prepared.zone_expr is not None else []
                    values = [exp.alias_(v, n, quoted=True)
                              for v, n in zip(values, [*names, "utc_from", "utc_to", "minutes"], strict=True)]
                rows.append(exp.select(*values))
        stretches: exp.Query = rows[0]
        for row in rows[1:]:
            stretches = exp.Union(this=stretches, expression=row, distinct=False)
        on: exp.Expr = exp.and_(exp.GTE(this=prepared.time_expr.copy(), expression=col("utc_from", OFFSETS)),
                                exp.LT(this=prepared.time_expr.copy(), expression=col("utc_to", OFFSETS)))
        if prepared.zone_expr is not None:
            on = exp.and_(exp.EQ(this=col("zone", OFFSETS), expression=prepared.zone_expr.copy()), on)
        prepared.source.select = prepared.source.select.join(
            exp.Subquery(this=stretches, alias=exp.TableAlias(this=ident(OFFSETS))), on=on, join_type="left",
            copy=False)
    return exp.Coalesce(this=col("minutes", OFFSETS), expressions=[_int(0)])


def _offsets_joined(select: exp.Select) -> bool:
    """The offsets are already joined (a weekday filter and a distribution of the same reading share them)."""
    return any(join.alias_or_name == OFFSETS for join in select.args.get("joins") or [])


def local_part(which: str, spec: QuerySpec, prepared: Prepared, fact: Fact) -> exp.Expr:
    ts = prepared.time_expr
    assert ts is not None
    offset = _zone_offset(spec, prepared, fact)
    if offset is not None and which in ("month", "month_key", "year"):
        # a month or a year of the local day: the UTC moment moved by the row's offset (a Tokyo order at 20:00
        # UTC on 31 January is February's there)
        ts = exp.DateAdd(this=ts.copy(), expression=exp.Paren(this=offset), unit=exp.var("MINUTE"))
    if which == "month_key":
        return exp.TimeToStr(this=ts.copy(), format=literal("%Y-%m"))
    if which == "year":
        return exp.TimeToStr(this=ts.copy(), format=literal("%Y"))
    if offset is None or which == "month":
        return part(which, ts.copy())
    minutes = exp.Add(this=exp.Add(this=exp.Mul(this=part("hour", ts.copy()), expression=_int(60)),
                                   expression=part("minute", ts.copy())),
                      expression=exp.Add(this=exp.Paren(this=offset), expression=_int(1440)))
    if which == "hour":
        local_minutes = exp.Mod(this=exp.Paren(this=minutes), expression=_int(1440))
        return _idiv(local_minutes, 60)
    shift = _idiv(minutes, 1440)  # 0 the day before, 1 the same day, 2 the day after
    return exp.Mod(this=exp.Paren(this=exp.Add(this=exp.Add(this=part("weekday", ts.copy()), expression=shift),
                                               expression=_int(6))), expression=_int(7))


def part_label(which: str, expr: exp.Expr) -> exp.Expr:
    """A readable label for a time part ('Monday', '14:00', 'March', '2024-05')."""
    # a simple CASE names the part once (a searched CASE repeated it at every WHEN)
    if which == "weekday":
        return exp.Case(this=expr.copy(), ifs=[exp.If(this=_int(i), true=literal(name))
                                               for i, name in enumerate(WEEKDAYS)])
    if which == "month":
        return exp.Case(this=expr.copy(), ifs=[exp.If(this=_int(i + 1), true=literal(name))
                                               for i, name in enumerate(MONTHS)])
    return expr


# -- shapes ---------------------------------------------------------------------------------------------

def _distribution(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """Group by a time part (weekday, hour, month, or a calendar month / year), busiest first."""
    fact, measure, which = spec.fact, spec.measure, spec.time_part
    if fact is None or measure is None or which is None or fact.time is None:
        return None
    if fact.time.date_only and which == "hour":
        spec.notes.append(f"{fact.time.table}.{fact.time.column} holds dates only: no hour of the day to group by")
        return None
    prepared = prepare(spec, profile, need_time=True)
    if prepared is None or prepared.time_expr is None:
        return None
    key = local_part(which, spec, prepared, fact)
    metric_name = metric_column(spec)
    metric = metric_expression(spec, measure, prepared.value, prepared.source, profile)
    if metric is None:
        return None
    label = which if which not in ("month_key", "year") else ("month" if which == "month_key" else "year")
    select = prepared.source.select.select(exp.alias_(part_label(which, key), label, quoted=True),
                                           exp.alias_(metric, metric_name, quoted=True))
    for condition in prepared.where:
        select = select.where(condition)
    select = select.group_by(key.copy()).order_by(
        exp.Ordered(this=exp.column(metric_name, quoted=True), desc=not spec.ascending),
        exp.Ordered(this=key.copy()))
    if spec.limit:
        select = select.limit(spec.limit)
    return select


def _absence(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """Rows of an entity with no fact rows (in the window): NOT EXISTS on the fact, correlated by key."""
    entity, fact = spec.absent, spec.fact
    if entity is None or fact is None or len(entity.key) != 1:
        return None
    route = profile.path(fact.table, entity.table)
    if not route:
        spec.notes.append(f"{entity.noun} cannot be reached from {fact.table}: no absence to look for")
        return None
    outer_filters = [f for f in spec.filters if profile.path(entity.table, f.entity.table) is not None]
    inner = spec.copy()
    inner.filters = [f for f in spec.filters if f not in outer_filters]
    # which of the entity's own rows count ('not discontinued'): on them, not on the events looked for
    outer_conditions = [c for c in spec.conditions if c.table == entity.table]
    inner.conditions = [c for c in spec.conditions if c.table != entity.table]
    inner.group, inner.limit = None, None
    if inner.measure is None:
        return None
    eaches = _each_value(inner, spec, profile, route, entity)
    if eaches is None:
        return None
    prepared = prepare(inner, profile)
    if prepared is None:
        return None
    sub = _correlated(prepared, route, entity)
    earlier = None
    if spec.present_window is not None:  # 'ordered in 2024 but not in 2025': those with events in the first window
        present = inner.copy()
        present.window = spec.present_window
        found = prepare(present, profile)
        if found is None:
            return None
        earlier = _correlated(found, route, entity)
    outer = _From(entity.table, prefix="e")
    name = name_expression(entity, "e0")
    conditions = []
    for flt in outer_filters:
        path = profile.path(entity.table, flt.entity.table)
        assert path is not None
        conditions.append(flt.condition(outer.alias_for(path)))
    conditions += [c.expression("e0") for c in outer_conditions]
    select = outer.select.select(exp.alias_(name.copy(), slug(entity.noun), quoted=True))
    for condition in conditions:
        select = select.where(condition)
    if earlier is not None:
        select = select.where(exp.Exists(this=earlier))
    for each in eaches:  # 'bought both rock and jazz': some rows of each value
        select = select.where(exp.Exists(this=each))
    if spec.absent_among is not None:  # 'artists with tracks to sell', 'clients who bought before': which rows count
        among = reaching(spec.absent_among, entity, profile)
        if among is None:
            return None
        select = select.where(among)
    if spec.absent_share:  # 'what % of our tracks were never bought': the absent rows of all of them
        held: exp.Expr = exp.Exists(this=sub) if spec.present else exp.Not(this=exp.Exists(this=sub))
        absent = exp.Sum(this=exp.Case(ifs=[exp.If(this=held, true=_int(1))], default=_int(0)))
        every = exp.Count(this=col(entity.key[0], "e0"))
        share = exp.Div(this=exp.Mul(this=absent.copy(), expression=exp.Literal.number("1.0")),
                        expression=exp.Nullif(this=every.copy(), expression=_int(0)))
        return select.select(exp.alias_(absent, "part", quoted=True), exp.alias_(every, "total", quoted=True),
                             exp.alias_(share, "share", quoted=True),
                             exp.alias_(exp.Mul(this=share.copy(), expression=_int(100)), "percent", quoted=True),
                             append=False)
    # the rows with no such events, or with some ('clients with a cancelled booking')
    select = select.where(exp.Exists(this=sub) if spec.present else exp.Not(this=exp.Exists(this=sub)))
    if spec.absent_count:
        counted = exp.Count(this=col(entity.key[0], "e0"))
        return select.select(exp.alias_(counted, slug(plural(entity.noun)), quoted=True), append=False)
    return select.order_by(name.copy(), col(entity.key[0], "e0"))


def _each_value(inner: QuerySpec, spec: QuerySpec, profile: SchemaProfile, route,
                entity: Entity) -> list[exp.Select] | None:
    """'clients who bought both rock and jazz': one correlated EXISTS per value of a column named with several,
    taken out of `inner` (the rows of each value, not of either); none unless the question asks for each."""
    if not spec.each_value:
        return []
    groups: dict[tuple, list[EntityFilter]] = {}
    for flt in inner.filters:
        if not flt.negate:
            groups.setdefault((flt.entity.table, flt.column, flt.via), []).append(flt)
    split = [f for group in groups.values() if len(group) > 1 for f in group]
    if not split:
        return []
    rest = [f for f in inner.filters if f not in split]
    found = []
    for flt in split:
        one = inner.copy()
        one.filters = [*rest, flt]
        prepared = prepare(one, profile)
        if prepared is None:
            return None
        found.append(_correlated(prepared, route, entity))
    inner.filters = rest
    return found


def _correlated(prepared, route, entity: Entity) -> exp.Select:
    """SELECT 1 over the prepared rows whose path ends at the outer row `e0` of `entity`, with their conditions."""
    alias = prepared.source.alias_for(route[:-1])
    correlated = exp.EQ(this=col(route[-1].columns[0], alias), expression=col(entity.key[0], "e0"))
    sub = prepared.source.select.select(exp.Literal.number(1)).where(correlated)
    for condition in prepared.where:
        sub = sub.where(condition)
    return sub


def reaching(table: str, entity: Entity, profile: SchemaProfile) -> exp.Exists | None:
    """EXISTS a row of `table` whose many-to-one path reaches the outer row `e0` of `entity`."""
    route = profile.path(table, entity.table)
    if not route:
        return None
    source = _From(table, prefix="a")
    alias = source.alias_for(route[:-1])
    correlated = exp.EQ(this=col(route[-1].columns[0], alias), expression=col(entity.key[0], "e0"))
    return exp.Exists(this=source.select.select(exp.Literal.number(1)).where(correlated))


_TIED_AT_MOST = 50  # rows holding the top value of an attribute, at most (more are said to be 'at least' tied)


def _attribute(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """The rows of an entity with the lowest / highest value of an attribute (per group when asked), or the
    entities whose children's attribute sums highest (a playlist's length)."""
    attribute, entity = spec.attribute, spec.group
    if attribute is None or entity is None:
        return None
    desc = attribute.direction == "max"
    name = slug(entity.noun)
    value_name = slug(attribute.column)
    if attribute.child is not None:
        source = _From(attribute.child)
        entity_alias = source.alias_for(attribute.through)
        value_alias = source.alias_for(attribute.child_path)
        label = name_expression(entity, entity_alias)
        reduce = exp.Min if attribute.earliest else exp.Avg if attribute.average else exp.Sum
        total: exp.Expr = reduce(this=col(attribute.column, value_alias))
        if attribute.average:
            value_name = f"avg_{value_name}"
        if attribute.earliest:
            value_name = f"first_{value_name}"
        if attribute.counted:  # the rows of the child (a bridge's rows: each track on the playlist once)
            total, value_name = exp.Count(this=exp.Star()), slug(plural(phrase(attribute.table).split()[-1]))
        conditions = []
        for flt in spec.filters:  # 'metallica's longest album': the albums of the rows named
            reach = profile.path(attribute.child, flt.entity.table)
            if reach is None:
                return None  # a filter no path reaches is never dropped silently
            conditions.append(flt.condition(source.alias_for(reach)))  # joins the path before the select
        conditions += [c.expression(source.alias_for(route)) for c in spec.conditions
                       if (route := profile.path(attribute.child, c.table)) is not None]
        shown = value_name if attribute.average or attribute.earliest or attribute.counted else \
            f"total_{value_name}"
        select = source.select.select(exp.alias_(label.copy(), name, quoted=True),
                                      exp.alias_(total, shown, quoted=True))
        for condition in conditions:
            select = select.where(condition)
        select = select.group_by(label.copy(), *[col(k, entity_alias) for k in entity.key[:1]])
        return select.order_by(exp.Ordered(this=exp.column(shown, quoted=True), desc=desc),
                               exp.Ordered(this=label.copy())).limit(spec.limit or 1)
    source = _From(entity.table)
    path = profile.path(entity.table, attribute.table)
    if path is None:
        return None
    alias = source.alias_for(path)
    value = col(attribute.column, alias)
    label = name_expression(entity, "t0")
    where: list[exp.Expr] = [exp.Not(this=exp.Is(this=value.copy(), expression=exp.Null()))]
    if any(profile.path(entity.table, f.entity.table) is None for f in spec.filters):
        return None  # a filter no path reaches is never dropped silently
    where += [f.condition(source.alias_for(profile.path(entity.table, f.entity.table) or ()))
              for f in spec.filters]
    # which rows count ('discontinued' ones or not): a condition on rows this reads, never dropped
    where += [c.expression(source.alias_for(route)) for c in spec.conditions
              if (route := profile.path(entity.table, c.table)) is not None]
    group = spec.attribute_group
    if group is not None:
        group_path = profile.path(entity.table, group.table)
        if group_path is None:
            return None
        group_alias = source.alias_for(group_path)
        group_label = name_expression(group, group_alias)
        order = exp.Ordered(this=value.copy(), desc=desc)
        rank = exp.Window(this=exp.Anonymous(this="RANK"), partition_by=[col(group.key[0], group_alias)
                                                                         if group.key else group_label.copy()],
                          order=exp.Order(expressions=[order]))
        inner = source.select.select(exp.alias_(group_label, slug(group.noun), quoted=True),
                                     exp.alias_(label, name, quoted=True),
                                     exp.alias_(value, value_name, quoted=True),
                                     exp.alias_(rank, "rank_in_group", quoted=True))
        for condition in where:
            inner = inner.where(condition)
        outer = (exp.select(exp.column(slug(group.noun), quoted=True), exp.column(name, quoted=True),
                            exp.column(value_name, quoted=True))
                 .from_(exp.Subquery(this=inner, alias=exp.TableAlias(this=ident("ranked"))))
                 .where(exp.EQ(this=exp.column("rank_in_group", quoted=True), expression=_int(1)))
                 .order_by(exp.column(slug(group.noun), quoted=True), exp.column(name, quoted=True)))
        return outer
    owner = spec.attribute_owner
    owner_path = profile.path(entity.table, owner.table) if owner is not None else None
    select = source.select
    if owner is not None and owner_path:  # 'which artist has the longest track': the artist of that track
        select = select.select(exp.alias_(name_expression(owner, source.alias_for(owner_path)), slug(owner.noun),
                                          quoted=True))
    select = select.select(exp.alias_(label.copy(), name, quoted=True),
                           exp.alias_(value.copy(), value_name, quoted=True))
    for condition in where:
        select = select.where(condition)
    if spec.limit is None:
        # 'which referee earns the highest fee': every row holding the top value, so that a tie shows (a LIMIT 1
        # would name one of them as if it were the only one)
        top = select.copy()
        top.set("expressions", [(exp.Max if desc else exp.Min)(this=value.copy())])
        select = select.where(exp.EQ(this=value.copy(), expression=exp.Subquery(this=top)))
    return select.order_by(exp.Ordered(this=value.copy(), desc=desc), exp.Ordered(this=label.copy())).limit(
        spec.limit or _TIED_AT_MOST)


def _when_each(spec: QuerySpec, prepared: Prepared, condition: exp.Expr, profile: SchemaProfile) -> exp.Expr | None:
    """The reading's figure over the rows where `condition` holds: an average or a ratio too ('avg invoice this
    year vs last': each row counted only in its period)."""
    measure = spec.measure
    assert measure is not None
    if not (spec.agg or spec.per_table):
        return _when(spec, prepared, condition)
    if spec.median or spec.period_mean:
        return None
    each = spec.copy()
    each.per_all = False  # per the rows with events in the period, not every row there is

    def guard(expression: exp.Expr, _name: str) -> exp.Expr:
        return exp.Case(ifs=[exp.If(this=condition.copy(), true=expression)])

    return metric_expression(each, measure, guard(prepared.value.copy(), "value"), prepared.source, profile,
                             carry=guard)


def _when(spec: QuerySpec, prepared: Prepared, condition: exp.Expr) -> exp.Expr:
    """The measure aggregated over the rows where `condition` holds."""
    measure = spec.measure
    assert measure is not None
    if measure.kind == "count" and not measure.columns:
        value: exp.Expr = exp.Literal.number(1)
        return exp.Count(this=exp.Case(ifs=[exp.If(this=condition, true=value)]))
    guarded = exp.Case(ifs=[exp.If(this=condition, true=prepared.value.copy())])
    if measure.kind in ("count", "count_distinct"):
        return measure_aggregate(measure, guarded)
    return exp.Coalesce(this=exp.Sum(this=guarded), expressions=[_int(0)])


def _window_condition(prepared: Prepared, window: calendar.Window, time: TimeColumn) -> exp.Expr:
    assert prepared.time_expr is not None
    zone = prepared.zone if prepared.zone not in ("local",) else "UTC"
    return _range(prepared.time_expr, window.start, window.end, zone, time)


def _change(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """The measure in an earlier and a later period, their difference and the relative change, per group
    ranked by the change (absolute or relative) when grouped."""
    fact, change = spec.fact, spec.change
    if fact is None or change is None or fact.time is None or spec.measure is None:
        return None
    plain = spec.copy()
    plain.window = None
    prepared = prepare(plain, profile, need_time=True)
    if prepared is None or prepared.time_expr is None:
        return None
    before = _when_each(spec, prepared, _window_condition(prepared, change.before, fact.time), profile)
    after = _when_each(spec, prepared, _window_condition(prepared, change.after, fact.time), profile)
    if before is None or after is None:
        return None
    difference = exp.Sub(this=after.copy(), expression=before.copy())
    relative = exp.Div(this=exp.Mul(this=exp.Paren(this=difference.copy()), expression=exp.Literal.number("1.0")),
                       expression=exp.Nullif(this=before.copy(), expression=_int(0)))
    outputs: list[exp.Expr] = []
    groups: list[exp.Expr] = []
    if prepared.group_expr is not None and spec.group is not None:
        outputs.append(exp.alias_(prepared.group_expr.copy(), slug(spec.group.noun), quoted=True))
        groups.append(prepared.group_expr.copy())
        if prepared.group_key is not None:
            groups.append(prepared.group_key.copy())
    outputs += [exp.alias_(before, "before", quoted=True), exp.alias_(after, "after", quoted=True),
                exp.alias_(difference, "change", quoted=True), exp.alias_(relative, "relative_change", quoted=True)]
    select = prepared.source.select.select(*outputs)
    low, high = min(change.before.start, change.after.start), max(change.before.end, change.after.end)
    span = calendar.Window(low, high, "both periods")
    where = prepared.where + [_window_condition(prepared, span, fact.time)]
    for condition in where:
        select = select.where(condition)
    if groups:
        order_by = "relative_change" if change.mode == "relative" else "change"
        select = select.group_by(*groups).order_by(
            exp.Ordered(this=exp.column(order_by, quoted=True), desc=not spec.ascending, nulls_first=False),
            exp.Ordered(this=groups[0].copy()))
        if spec.limit:
            select = select.limit(spec.limit)
    return select


def _share(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """The part's share of the total: the measure over the part's rows (a filter, or the top N groups)
    divided by the measure over every row, as a fraction and a percentage."""
    if spec.fact is None or spec.measure is None:
        return None
    whole = spec.copy()
    whole.filters = [f for f in spec.filters if f not in spec.share_filters]
    whole.group = spec.group  # the top N groups' share, or one share per group ('refund rate by store')
    whole.limit = None
    prepared = prepare(whole, profile)
    if prepared is None:
        return None
    if spec.share_top and prepared.group_expr is not None:
        metric = metric_expression(whole, spec.measure, prepared.value, prepared.source, profile)
        if metric is None:
            return None
        keys = [prepared.group_expr.copy()] + ([prepared.group_key.copy()] if prepared.group_key is not None else [])
        per_group = prepared.source.select.select(exp.alias_(metric, "m", quoted=True))
        for condition in prepared.where:
            per_group = per_group.where(condition)
        per_group = per_group.group_by(*keys)
        top = (exp.select(exp.alias_(exp.Sum(this=exp.column("m", quoted=True)), "m", quoted=True))
               .from_(exp.Subquery(this=exp.select(exp.column("m", quoted=True)).from_("groups").order_by(
                   exp.Ordered(this=exp.column("m", quoted=True), desc=True)).limit(spec.share_top),
                   alias=exp.TableAlias(this=ident("top_groups")))))
        total = exp.select(exp.alias_(exp.Sum(this=exp.column("m", quoted=True)), "m", quoted=True)).from_("groups")
        part_value: exp.Expr = exp.Subquery(this=top)
        whole_value: exp.Expr = exp.Subquery(this=total)
        fraction = exp.Div(this=exp.Mul(this=part_value.copy(), expression=exp.Literal.number("1.0")),
                           expression=exp.Nullif(this=whole_value.copy(), expression=_int(0)))
        return (exp.select(exp.alias_(part_value, "part", quoted=True), exp.alias_(whole_value, "total", quoted=True),
                           exp.alias_(fraction.copy(), "share", quoted=True),
                           exp.alias_(exp.Mul(this=fraction, expression=_int(100)), "percent", quoted=True))
                .with_(ident("groups"), as_=per_group))
    routes = [roles.route(profile, spec.fact.table, f.entity.table, f.via) for f in spec.share_filters]
    if any(route is None and f.entity.table != spec.fact.table for f, route in zip(spec.share_filters, routes)):
        # 'what % of flights were cancelled' read as the bookings' status: the flights cannot filter by it
        spec.notes.append("the part cannot be reached from the rows counted; no share")
        spec.invalid = True
        return None
    parts = [f.condition(prepared.source.alias_for(route or ())) for f, route in zip(spec.share_filters, routes)]
    for kept in spec.share_conditions:
        route = profile.path(spec.fact.table, kept.table)
        held = kept.expression(prepared.source.alias_for(route or ())) if route is not None or \
            kept.table == spec.fact.table else child_condition(profile, prepared.source, spec.fact.table, kept)
        if held is None:  # 'what % of sales had a discount' where no line of them holds one
            spec.notes.append(f"the part ('{kept.label}') cannot be reached from the rows counted; no share")
            spec.invalid = True
            return None
        parts.append(held)
    part_condition = exp.and_(*parts) if parts else exp.true()
    against = [f.condition(prepared.source.alias_for(roles.route(profile, spec.fact.table, f.entity.table, f.via)
                                                     or ())) for f in spec.share_against]
    part_value = _when(spec, prepared, part_condition)
    whole_value = _when(spec, prepared, exp.and_(*against) if against else exp.true())
    if spec.share_of_total and prepared.group_expr is not None:  # each group over the sum of every group
        whole_value = exp.Window(this=exp.Sum(this=part_value.copy()))
    fraction = exp.Div(this=exp.Mul(this=part_value.copy(), expression=exp.Literal.number("1.0")),
                       expression=exp.Nullif(this=whole_value.copy(), expression=_int(0)))
    named: list[exp.Expr] = []
    grouped: list[exp.Expr] = []
    if spec.group is not None and prepared.group_expr is not None:
        named = [exp.alias_(prepared.group_expr.copy(), slug(spec.group.noun), quoted=True)]
        grouped = [prepared.group_expr.copy()] + ([prepared.group_key.copy()] if prepared.group_key is not None else [])
    select = prepared.source.select.select(
        *named, exp.alias_(part_value, "part", quoted=True), exp.alias_(whole_value, "total", quoted=True),
        exp.alias_(fraction.copy(), "share", quoted=True),
        exp.alias_(exp.Mul(this=fraction, expression=_int(100)), "percent", quoted=True))
    for condition in prepared.where:
        select = select.where(condition)
    if grouped:
        select = select.group_by(*grouped).order_by(
            exp.Ordered(this=exp.column("share", quoted=True), desc=not spec.ascending, nulls_first=False),
            *[exp.Ordered(this=k.copy()) for k in grouped])
        if spec.limit:
            select = select.limit(spec.limit)
    return select


def _share_series(spec: QuerySpec, profile: SchemaProfile, as_of: dt.date | None) -> exp.Query | None:
    """'cancellation rate by month': the part's series and the whole's, period by period, divided. Each
    side is the plain series of its rows (the same calendar, so the same periods), joined on the period."""
    from archetypes.query import build

    part_spec = spec.copy()
    part_spec.shape = "aggregate"
    part_spec.conditions = [*spec.conditions, *spec.share_conditions]
    whole_spec = spec.copy()
    whole_spec.shape = "aggregate"
    whole_spec.filters = [f for f in spec.filters if f not in spec.share_filters]
    part_query, whole_query = build(part_spec, profile, as_of), build(whole_spec, profile, as_of)
    if part_query is None or whole_query is None or spec.measure is None:
        return None
    spec.notes.extend(n for n in part_spec.notes if n not in spec.notes)
    metric = metric_column(part_spec)
    part_value, whole_value = col(metric, "p"), col(metric, "w")
    fraction = exp.Div(this=exp.Mul(this=part_value.copy(), expression=exp.Literal.number("1.0")),
                       expression=exp.Nullif(this=whole_value.copy(), expression=_int(0)))
    return (exp.select(exp.alias_(col("period", "w"), "period", quoted=True),
                       exp.alias_(exp.Coalesce(this=part_value, expressions=[_int(0)]), "part", quoted=True),
                       exp.alias_(whole_value, "total", quoted=True),
                       exp.alias_(fraction.copy(), "share", quoted=True),
                       exp.alias_(exp.Mul(this=fraction, expression=_int(100)), "percent", quoted=True))
            .from_(exp.Subquery(this=whole_query, alias=exp.TableAlias(this=ident("w"))))
            .join(exp.Subquery(this=part_query, alias=exp.TableAlias(this=ident("p"))),
                  on=exp.EQ(this=col("period", "p"), expression=col("period", "w")), join_type="left")
            .order_by(col("period", "w")))


def _list(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """The rows of a table, by name, with the columns the question names, filtered by its values."""
    entity = spec.group
    if entity is None:
        return None
    source = _From(entity.table)
    name = name_expression(entity, "t0")
    outputs = [exp.alias_(name.copy(), slug(entity.noun), quoted=True)]
    outputs += [exp.alias_(col(c, "t0"), slug(c), quoted=True) for c in spec.list_columns
                if c not in entity.name_columns and (spec.reference is None or c not in spec.reference.columns)]
    if entity.name_columns == entity.key and len(outputs) > 1 and spec.reference is None:
        outputs = outputs[1:] + outputs[:1]  # rows with no name ('a plan's prices'): what was asked, then the key
    filtered: tuple[Edge, ...] = ()  # where the filters' rows are: the listed row, or the one it points at
    if spec.reference is not None:
        pointed = profile.entities.get(spec.reference.ref_table)
        if pointed is None:
            return None
        alias = source.alias_for((spec.reference,))
        if spec.reference_reverse:  # 'who reports to nancy edwards': the listed rows point at the named one
            filtered = (spec.reference,)
        else:  # "leonie kohler's support rep": the row the key points at is the answer, the named row its detail
            label = slug(" ".join(reference_words(spec.reference)) or pointed.noun)
            shown = [exp.alias_(name_expression(pointed, alias), label, quoted=True)]
            key = profile.tables[entity.table].column(spec.reference.columns[0])
            if key is not None and key.family == "text":  # a code ('JPY') says as much as the name it points at
                shown.append(exp.alias_(col(spec.reference.columns[0], "t0"), slug(spec.reference.columns[0]),
                                        quoted=True))
            outputs = shown + outputs
    where = []
    for flt in spec.filters:
        path = profile.path(entity.table, flt.entity.table)
        if path is not None and filtered:
            path = filtered + path
        if path is None and not filtered and (linked := bridged(profile, source, entity.table, flt)) is not None:
            where.append(linked)  # 'the tracks on the grunge playlist'
            continue
        if path is None:
            spec.notes.append(f"{flt.entity.noun} cannot be reached from {entity.table}: no list can apply "
                              f"'{flt.describe()}'")
            spec.invalid = True
            return None
        where.append(flt.condition(source.alias_for(path)))
    for condition in spec.conditions:
        if condition.op in ("above_avg", "below_avg") and condition.table == entity.table:
            # 'current items priced above average': the average of the rows the other conditions keep
            peers = [c for c in spec.conditions if c.table == entity.table and c is not condition]
            where.append(condition.against_average("t0", peers))
        elif condition.table == entity.table:
            where.append(condition.expression("t0"))
        elif (route := profile.path(entity.table, condition.table)) is not None:
            # a scope on a row each listed row points at ('songs': not of the video media type)
            where.append(condition.expression(source.alias_for(route)))
    # a scope on rows the list does not read is not applied, and its explanation must not say it is
    spec.conditions = [c for c in spec.conditions if c.table == entity.table or
                       profile.path(entity.table, c.table) is not None]
    own = profile.facts.get(entity.table)
    if spec.window is not None and own is not None and own.time is not None and not entity.column_only and \
            spec.reference is None:
        # 'list bookings from last week': the events of the window, each with its date
        moment = col(own.time.column, source.alias_for(own.time_path))
        zone = spec.zone if spec.zone not in (None, "local") else "UTC"
        where.append(_range(moment, spec.window.start, spec.window.end, zone, own.time))
        outputs.append(exp.alias_(moment.copy(), slug(own.time.column), quoted=True))
    select = source.select.select(*outputs)
    if entity.column_only:
        select = select.distinct()
    for clause in where:
        select = select.where(clause)
    order = [name.copy()] + ([col(entity.key[0], "t0")] if entity.key and not entity.column_only else [])
    select = select.order_by(*order)
    return select.limit(spec.limit) if spec.limit else select


def reference_words(edge: Edge) -> tuple[str, ...]:
    """The words of a foreign key that name what it points at: SupportRepId -> ('support', 'rep'),
    ReportsTo -> ('reports', 'to')."""
    return tuple(w for c in edge.columns for w in words(c) if w not in ("id", "key", "fk", "code", "no", "num"))
