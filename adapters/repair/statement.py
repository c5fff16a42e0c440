"""Repair one statement: find its ambiguous references, decide each group with the passes, write the SQL.

Either one safe statement (every group proven equivalent), or one statement per candidate reading
(the user may have to choose), or a one-line problem with nothing rewritten.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from adapters.clarification import column_choice
from adapters.errors import EngineErrorInfo, InputError, UnsafeStatementError
from adapters.repair.log import RepairAttempt, RepairLog
from adapters.repair.names import key, sqlglot_dialect
from adapters.repair.passes import Choice, Decision, Group, decide
from adapters.repair.problems import NotAmbiguous, RepairError, UnknownColumn, UnparseableSQL
from adapters.repair.recognise import AmbiguousColumnError, recognise
from adapters.repair.rewrite import PROJECTION_TAG, TAG, apply, tag
from adapters.repair.scopes import AmbiguousReference, Detection, Reference, describe_scope, detect
from adapters.repair.sources import ScopeModel, ScopeModels
from adapters.repair.stars import expand
from adapters.safety import parse_query
from adapters.schema import SchemaInfo

MAX_CANDIDATES = 8  # repaired statements per original (several ambiguous columns multiply)


@dataclass(frozen=True)
class Candidate:
    """One repaired statement for one reading of the ambiguous column(s)."""

    label: str            # "Track.Name", or "t.Name (Track)"; joined with " + " for several columns
    value: str            # the qualified reference(s) written into the SQL: "Track.Name"
    sql: str


@dataclass
class RepairOutcome:
    """What `repair_statement` decided."""

    rule: str                                   # equi_join_key | using_column | candidates | none
    sql: str | None                             # the single safe fix
    candidates: list[Candidate]
    problem: str | None                         # one line when nothing could be done
    references: list[AmbiguousReference] = field(default_factory=list)
    record: RepairLog | None = None

    @property
    def log(self) -> dict[str, Any]:
        return self.record.to_dict() if self.record else {}

    @property
    def column(self) -> str | None:
        return self.record.column if self.record else None


def parse(sql: str, dialect: str) -> exp.Expr:
    """The single read-only query in `sql`, or UnparseableSQL with one readable line."""
    try:
        return parse_query(sql, dialect or None)
    except (UnsafeStatementError, InputError) as err:
        raise UnparseableSQL(str(err)) from None  # one line already (adapters.safety writes it from sqlglot's errors)


def analyse(sql: str, schema: SchemaInfo, dialect: str) -> tuple[exp.Expr, Detection]:
    dialect = sqlglot_dialect(dialect)
    tree = parse(sql, dialect)
    tag(tree)
    try:
        detection = detect(tree, ScopeModels(sql, schema, dialect))
    except RepairError:
        raise
    except Exception as err:  # noqa: BLE001 - sqlglot's scope building on exotic syntax
        raise UnparseableSQL(f"cannot analyse the statement: {str(err).splitlines()[0] if str(err) else err}") from None
    return tree, detection


def public(ref: Reference) -> AmbiguousReference:
    return AmbiguousReference(
        column=ref.column, scope=describe_scope(ref.scope), clause=ref.clause, kind=ref.kind,
        candidates=tuple(s.rep.described for s in ref.slots if s.nodes),
        tables=tuple(s.rep.table for s in ref.slots if s.nodes), position=ref.position, reference=ref,
    )


def find_ambiguous_columns(sql: str, schema: SchemaInfo, dialect: str) -> list[AmbiguousReference]:
    """Every reference an engine of `dialect` would call ambiguous, with the tables that have the column.

    Raises UnparseableSQL when the statement is not one parseable read-only query.
    """
    _, detection = analyse(sql, schema, dialect)
    return [public(ref) for ref in detection.references]


def groups_of(detection: Detection, dialect: str) -> list[Group]:
    groups: dict[tuple[Any, ...], Group] = {}
    for ref in detection.references:
        group_key = (id(ref.home), key(ref.column), ref.kind, tuple(id(s.rep) if s.nodes else 0 for s in ref.slots))
        group = groups.setdefault(group_key, Group(ref.column, ref.home, ref.kind, ref.slots, dialect))
        group.refs.append(ref)
    return list(groups.values())


def repair_statement(sql: str, schema: SchemaInfo, dialect: str,
                     error: EngineErrorInfo | None = None) -> RepairOutcome:
    """Repair the ambiguous column references of `sql` (written in `dialect`).

    With `error` (what the engine said), the column it names must be among those found, else nothing
    is rewritten and `problem` says why.
    """
    dialect = sqlglot_dialect(dialect)
    record = RepairLog(original_sql=sql, dialect=dialect, error=error)
    detail = recognise(error) if error is not None else None
    if error is not None and detail is None:
        return _give_up(record, NotAmbiguous(f"not an ambiguous-column error ({error.kind}): {error.message}"))
    if detail is not None and detail.column:
        record.column = detail.column
    try:
        tree, detection = analyse(sql, schema, dialect)
    except RepairError as err:
        return _give_up(record, err)
    references = [public(ref) for ref in detection.references]
    groups = groups_of(detection, dialect)
    if detail is not None:
        problem = _check_engine_column(detail, groups, detection, schema)
        if problem is not None:
            return _give_up(record, problem, references)
        if detail.column:
            groups.sort(key=lambda g: key(g.column) != key(detail.column))
    if not groups:
        record.note = "no ambiguous column reference"
        return RepairOutcome("none", None, [], None, references, record)
    try:
        decisions = [decide(group) for group in groups]
        return _apply(sql, tree, dialect, decisions, references, record)
    except RepairError as err:
        return _give_up(record, err, references)


def _check_engine_column(detail: AmbiguousColumnError, groups: list[Group], detection: Detection,
                         schema: SchemaInfo) -> RepairError | None:
    if not detail.column:
        return None if groups else NotAmbiguous("the engine reported an ambiguous column, but none was found")
    column = detail.column
    if any(key(g.column) == key(column) for g in groups):
        return None
    in_schema = any(t.column(column) is not None for t in schema.tables)
    if not in_schema:
        return UnknownColumn(column, f"`{column}` is in no table of the schema (is it the right database?)")
    if any(key(name) == key(column) for name, _ in detection.unknown):
        return UnknownColumn(column, f"`{column}` is in no table the statement reads from")
    return NotAmbiguous(f"the engine says `{column}` is ambiguous, but every reference to it resolves to one "
                        "table here (is the schema out of date?)")


def _apply(sql: str, tree: exp.Expr, dialect: str, decisions: list[Decision],
           references: list[AmbiguousReference], record: RepairLog) -> RepairOutcome:
    record.column = record.column or decisions[0].group.column
    safe = [d for d in decisions if d.safe]
    open_ = [d for d in decisions if not d.safe]
    base = [(d, d.choices[0]) for d in safe]
    record.references = [_reference_dict(ref, d) for d in decisions for ref in d.group.refs]
    record.references.sort(key=lambda r: r["position"] if r["position"] is not None else 1 << 30)
    if not open_:
        fixed = _write(sql, tree, dialect, base)
        rule = decisions[0].rule
        record.rule, record.sql = rule, fixed
        record.note = "; ".join(
            f"`{d.group.column}` qualified as {d.choices[0].value}: {', '.join(d.proof)} ({d.rule})" for d in decisions)
        return RepairOutcome(rule, fixed, [], None, references, record)
    combos = list(itertools.islice(itertools.product(*[d.choices for d in open_]), MAX_CANDIDATES + 1))
    capped = len(combos) > MAX_CANDIDATES
    result: list[Candidate] = []
    for combo in combos[:MAX_CANDIDATES]:
        chosen = base + list(zip(open_, combo))
        result.append(Candidate(" + ".join(c.label for c in combo), ", ".join(c.value for c in combo),
                                _write(sql, tree, dialect, chosen)))
    record.rule = "candidates"
    record.candidates = [RepairAttempt(c.label, c.value, c.sql) for c in result]
    column = ", ".join(f"`{d.group.column}`" for d in open_)
    record.subject = " and ".join(d.group.column for d in open_)
    record.clarification = column_choice(record.subject, [(c.label, c.value) for c in result], None)
    record.note = (f"{column}: no join equality proves the candidates equal; one statement per candidate"
                   + (f" (capped at {MAX_CANDIDATES})" if capped else ""))
    return RepairOutcome("candidates", None, result, None, references, record)


def _write(sql: str, tree: exp.Expr, dialect: str, chosen: list[tuple[Decision, Choice]]) -> str:
    """The statement with every chosen qualifier (and star expansion) written in."""
    qualifiers: dict[int, str] = {}
    excluded: dict[tuple[int, int], tuple[ScopeModel, int, set[int]]] = {}
    for decision, choice in chosen:
        for ref in decision.group.refs:
            if isinstance(ref.node, exp.Column):
                qualifiers[ref.node.meta[TAG]] = choice.node.qualifier
        for node in choice.exclude:
            assert node.via is not None and node.via.node is not None
            entry = excluded.setdefault((id(node.via.model), node.via.index), (node.via.model, node.via.index, set()))
            entry[2].add(id(node.via.node))
    stars: dict[int, str] = {}
    for model, index, ids in excluded.values():
        projection = model.expression.expressions[index]
        stars[projection.meta[PROJECTION_TAG]] = expand(model, index, ids, dialect)
    return apply(sql, tree, qualifiers, stars, dialect)


def _reference_dict(ref: Reference, decision: Decision) -> dict[str, Any]:
    return {
        "column": ref.column, "scope": describe_scope(ref.scope), "clause": ref.clause, "kind": ref.kind,
        "position": ref.position, "candidates": [s.rep.described for s in ref.slots if s.nodes],
        "rule": decision.rule, "chosen": decision.choices[0].value if decision.safe else None,
        "proof": list(decision.proof),
    }


def _give_up(record: RepairLog, err: RepairError, references: list[AmbiguousReference] | None = None) -> RepairOutcome:
    record.problem = str(err)
    record.note = f"nothing rewritten: {err}"
    column = getattr(err, "column", None)
    if column and not record.column:
        record.column = column
    return RepairOutcome("none", None, [], str(err), references or [], record)
