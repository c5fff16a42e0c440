"""Rows that point at rows of their own table (who reports to whom): 'how many people report to andrew adams',
'which employee manages the most people'. Counted through the table's key to itself; read any other way, the
words of reporting were passed over and every row was counted or every sale summed."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from archetypes.counted import rows_counted
from archetypes.intent import Intent, Span
from archetypes.model import Detection, Reading
from archetypes.naming import plural, slug
from archetypes.profile import Edge, SchemaProfile
from archetypes.query import EntityFilter, QuerySpec, col, ident, name_expression, table_ref

if TYPE_CHECKING:
    from archetypes.shape_reader import ShapeRead

# 'report to', 'reports directly to', 'work under': the rows whose key to their own table names the row
_REPORT_TO = re.compile(r"\b(?:reports?|reporting|reported|answers?|answering)\s+(?:directly\s+)?(?:in\s*)?to\b|"
                        r"\b(?:works?|working|are|is)\s+(?:directly\s+)?under\b")
# 'the most direct reports', 'manages the most people', 'the biggest team': the rows pointing at each row, counted
_MOST_REPORTS = re.compile(r"\b(?:most|fewest|least|biggest|largest|smallest)\s+(?:direct\s+)?(?:reports|subordinates|"
                           r"people reporting|team|staff)\b|\b(?:manages?|managing|supervises?|supervising|oversees?)"
                           r"\s+(?:the\s+)?(?:most|fewest|more|largest|biggest)\b")


_PEOPLE = re.compile(r"\b(?:people|persons|staff|staffers|folks|employees|workers|members)\b")


def self_edge(profile: SchemaProfile, table: str) -> Edge | None:
    """The one single-column key of `table` to its own rows (an employee's manager), if any."""
    info = profile.tables.get(table)
    found = [Edge(table, tuple(fk.columns), table, tuple(fk.ref_columns)) for fk in (info.foreign_keys if info else [])
             if fk.ref_table.lower() == table.lower() and len(fk.columns) == 1 and len(fk.ref_columns) == 1]
    return found[0] if len(found) == 1 else None  # (the join graph leaves these out: no path runs through them)


def via(edge: Edge) -> str:
    """The role name of the rows reached through the key (`Employee.ReportsTo`), as archetypes.roles writes it."""
    return f"{edge.table}.{edge.columns[0]}"


def read_hierarchy(intent: Intent, profile: SchemaProfile, spec: QuerySpec, out: ShapeRead) -> bool:
    """Reshape the spec when the question counts rows by who they report to; False when it does not."""
    lower = intent.lower
    tables = [t.entity.table for t in intent.targets if not t.entity.column_only] + \
        [f.entity.table for f in spec.filters]
    reported, most = _REPORT_TO.search(lower), _MOST_REPORTS.search(lower)
    if reported is None and most is None:
        return False
    table = next((t for t in tables if self_edge(profile, t) is not None), None)
    if table is None:  # 'who manages the most people': the one table whose rows report to its rows
        owning = [t for t in profile.tables if self_edge(profile, t) is not None]
        table = owning[0] if len(owning) == 1 else None
    if table is None:
        return False
    edge = self_edge(profile, table)
    assert edge is not None
    entity = profile.entities.get(table)
    if entity is None or len(entity.key) != 1:
        return False
    if reported is not None:
        named = [f for f in spec.filters if f.entity.table == table and f.via is None]
        if not named or not re.match(r"^\s*how many\b", lower):
            return False  # 'who reports to andrew': the row's own attribute (archetypes' lookups read it)
        # the named row is the one reported to: its key, not the counted rows' own name
        spec.filters = [EntityFilter(f.entity, f.values, f.column, f.negate, via(edge), f.shown) if f in named else f
                        for f in spec.filters]
        spec.fact, spec.measure = rows_counted(table, profile)
        spec.shape, spec.group, spec.limit, spec.count_table = "aggregate", None, None, None
        out.read.append(Span(reported.start(), reported.end(), intent.question[reported.start():reported.end()]))
    elif most is not None:
        spec.fact, spec.measure = rows_counted(table, profile)
        spec.shape, spec.group, spec.group_via, spec.count_table = "aggregate", entity, via(edge), None
        spec.ascending = re.search(r"\b(?:fewest|least|smallest)\b", most.group(0)) is not None
        spec.limit = spec.limit or 1
        out.read.append(Span(most.start(), most.end(), intent.question[most.start():most.end()]))
    else:
        return False
    said = reported or most
    assert said is not None
    out.detections.append(_depth_detection(intent, entity.noun, said))
    # 'people', 'staff': the rows of the table, said as people
    out.read += [Span(m.start(), m.end(), m.group(0)) for m in _PEOPLE.finditer(lower)]
    out.replaces |= {"ranking_metric", "insufficient_info", "unit", "record_scope"}
    out.consumed |= {"superlative", "ranking", "negation"}
    return True


def _depth_detection(intent: Intent, noun: str, said: re.Match[str]) -> Detection:
    """Those pointing at the row directly, or everyone below it down the chain: both are 'reporting to' it."""
    from archetypes.record_scope import ARCHETYPE

    nouns = plural(noun)
    readings = [Reading("direct", f"Direct reports only (the {nouns} whose key names the {noun})", None),
                Reading("whole_chain", "Everyone below, down the chain (the direct reports, theirs, and so on)",
                        _down_the_chain)]
    found = ARCHETYPE.detection(Span(said.start(), said.end(), intent.question[said.start():said.end()]), readings,
                                question="Direct reports only, or everyone below?")
    found.reason = (f"'Reporting to' someone may mean the {nouns} right under them or everyone under them at any "
                    f"depth: below the top of a chain of several levels the two counts differ.")
    return found


def _down_the_chain(spec: QuerySpec) -> None:
    spec.chain = True


MAX_DEPTH = 32  # levels followed down a chain: a cycle in the data (a row reporting to itself) stops here


def build_chain(spec: QuerySpec, profile: SchemaProfile) -> exp.Query | None:
    """Everyone below a row, at any depth: a recursive statement over the table's key to itself, counted for the
    row named (a filter through that key) or per row, ranked."""
    counted = spec.measure.table if spec.measure is not None else None
    edge = self_edge(profile, counted) if counted else None
    entity = profile.entities.get(counted) if counted else None
    if edge is None or entity is None or len(entity.key) != 1:
        return None
    key, up = entity.key[0], edge.columns[0]
    named = [f for f in spec.filters if f.via == via(edge)]
    depth = exp.Add(this=col("depth", "c"), expression=exp.Literal.number(1))
    if named:  # 'how many people report to andrew adams': the rows below the one named
        anchor = exp.select(exp.alias_(col(key, "t0"), "member", quoted=True),
                            exp.alias_(exp.Literal.number(1), "depth", quoted=True)) \
            .from_(table_ref(edge.table, "t0")) \
            .join(table_ref(edge.table, "t1"), on=exp.EQ(this=col(key, "t1"), expression=col(up, "t0")))
        for flt in named:
            anchor = anchor.where(flt.condition("t1"))
        head = [exp.alias_(col("member", "c"), "member", quoted=True)]
    else:  # 'who manages the most people': every row with everyone below it
        anchor = exp.select(exp.alias_(col(up, "t0"), "boss", quoted=True),
                            exp.alias_(col(key, "t0"), "member", quoted=True),
                            exp.alias_(exp.Literal.number(1), "depth", quoted=True)) \
            .from_(table_ref(edge.table, "t0")).where(exp.Not(this=exp.Is(this=col(up, "t0"), expression=exp.Null())))
        head = [exp.alias_(col("boss", "c"), "boss", quoted=True), exp.alias_(col("member", "c"), "member", quoted=True)]
    step = exp.select(*head, exp.alias_(depth, "depth", quoted=True)) \
        .from_(exp.Table(this=ident("chain"), alias=exp.TableAlias(this=ident("c")))) \
        .join(table_ref(edge.table, "t0"), on=exp.EQ(this=col(up, "t0"), expression=col("member", "c"))) \
        .where(exp.LT(this=col("depth", "c"), expression=exp.Literal.number(MAX_DEPTH)))
    if named:
        step.set("expressions", [exp.alias_(col(key, "t0"), "member", quoted=True), exp.alias_(depth, "depth", quoted=True)])
        columns = ["member", "depth"]
    else:
        step.set("expressions", [exp.alias_(col("boss", "c"), "boss", quoted=True),
                                 exp.alias_(col(key, "t0"), "member", quoted=True), exp.alias_(depth, "depth", quoted=True)])
        columns = ["boss", "member", "depth"]
    union = exp.union(anchor, step, distinct=False)
    cte = exp.CTE(this=union, alias=exp.TableAlias(this=ident("chain"), columns=[ident(c) for c in columns]))
    name = slug(plural(entity.noun))
    if named:
        counted_rows = exp.Count(this=exp.Distinct(expressions=[col("member", "c")]))
        query = exp.select(exp.alias_(counted_rows, name, quoted=True)) \
            .from_(exp.Table(this=ident("chain"), alias=exp.TableAlias(this=ident("c"))))
    else:
        who = name_expression(entity, "n")
        counted_rows = exp.Count(this=exp.Distinct(expressions=[col("member", "c")]))
        query = exp.select(exp.alias_(who.copy(), slug(entity.noun), quoted=True), exp.alias_(counted_rows, name, quoted=True)) \
            .from_(exp.Table(this=ident("chain"), alias=exp.TableAlias(this=ident("c")))) \
            .join(table_ref(edge.table, "n"), on=exp.EQ(this=col(key, "n"), expression=col("boss", "c"))) \
            .group_by(col(key, "n"), who.copy()) \
            .order_by(exp.Ordered(this=exp.column(name, quoted=True), desc=not spec.ascending), exp.Ordered(this=who.copy())) \
            .limit(spec.limit or 10)
    query.set("with_", exp.With(expressions=[cte], recursive=True))
    return query
