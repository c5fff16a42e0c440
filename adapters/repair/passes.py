"""The repair passes, an ordered registry read top to bottom (sqlglot's optimizer style).

Each pass looks at one group of ambiguous references (same column, same candidates, same scope) and
either decides or passes it on:

1. `unqualifiable`: a table qualifier cannot tell the candidates apart: give up, rewrite nothing.
2. `equi_join_key`: every candidate is tied to the others by `=` in an inner join's ON (or WHERE),
   so each gives the same value: qualify with the first. Safe, applied automatically.
3. `using_column`: the same, where the proof needs a USING/NATURAL join. Safe, applied automatically.
4. `candidates`: no proof: one repaired statement per distinct candidate; the answers decide whether
   the user must choose.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from adapters.repair.equivalence import Classes, Link, classes, links, same_value_domain, valid_in
from adapters.repair.names import key
from adapters.repair.problems import CannotQualify
from adapters.repair.scopes import Context, Reference
from adapters.repair.sources import ColumnNode, ScopeModel, Slot

SAFE_RULES = ("equi_join_key", "using_column")


@dataclass(eq=False)
class Group:
    """References that must get the same qualifier: one column, one scope, one set of candidates."""

    column: str
    home: ScopeModel
    kind: str
    slots: list[Slot]
    dialect: str
    refs: list[Reference] = field(default_factory=list)

    def valid_links(self) -> list[Link]:
        """Equalities that hold wherever any of the references is evaluated, plus, for two same-named
        columns of one CTE or derived table, the equalities inside it that make them equal."""
        found = [link for link in links(self.home, self.dialect)
                 if all(valid_in(link, ref.context, self.home) for ref in self.refs)]
        return found + self._lineage_links()

    def _lineage_links(self) -> list[Link]:
        result: list[Link] = []
        reps = [slot.rep for slot in self.slots if slot.nodes]
        for x, y in itertools.combinations(reps, 2):
            if x.source != y.source or not (x.via and y.via and x.via.node and y.via.node):
                continue
            inner = x.via.model
            if y.via.model is not inner or not same_value_domain(x, y, self.dialect):
                continue
            inner_links = [link for link in links(inner, self.dialect) if valid_in(link, Context("post"), inner)]
            for kinds, kind in ((("on", "where"), "where"), (("on", "where", "using"), "using")):
                found = classes(inner_links, kinds)
                if found.find(x.via.node) == found.find(y.via.node):
                    proof = ", ".join(link.text for link in found.proof(x.via.node))
                    result.append(Link(x, y, kind, None, None, True, f"inside {x.qualifier}: {proof}"))
                    break
        return result

    def exclusions(self, node: ColumnNode) -> list[ColumnNode]:
        """Same-named columns of `node`'s own source, to leave out of their `*` when `node` is chosen."""
        source = self.home.source(node.source)
        siblings = [n for n in (source.nodes if source else []) if key(n.column) == key(node.column) and n is not node]
        for sibling in siblings:
            if sibling.via is None or not sibling.via.star or sibling.via.node is None:
                raise CannotQualify(self.column, f"{node.qualifier} has several columns named `{node.column}` and "
                                                 "not all come from `*`: give them distinct aliases")
        return siblings

    def usable(self, node: ColumnNode) -> bool:
        """Whether `qualifier.column` reaches `node` from every reference (not shadowed by an inner source)."""
        source = self.home.source(node.source)
        if source is None or source.qualifier is None:
            return False
        return not any(inner.source(node.source) is not None for ref in self.refs for inner in ref.between)


@dataclass(eq=False)
class Choice:
    """One way to qualify a group: the column chosen, and the candidates proven equal to it."""

    node: ColumnNode
    equivalent: list[ColumnNode] = field(default_factory=list)
    exclude: list[ColumnNode] = field(default_factory=list)  # same-named columns of its source to drop

    @property
    def label(self) -> str:
        return self.node.described

    @property
    def value(self) -> str:
        """The qualified reference written into the SQL (with its origin when that alone is not unique)."""
        return self.node.described if self.exclude else self.node.label


@dataclass(eq=False)
class Decision:
    rule: str
    group: Group
    choices: list[Choice]
    proof: list[str] = field(default_factory=list)  # the equalities that made the candidates equal

    @property
    def safe(self) -> bool:
        return self.rule in SAFE_RULES and len(self.choices) == 1


Pass = Callable[[Group], Decision | None]


def unqualifiable(group: Group) -> Decision | None:
    if group.kind == "using":
        options = ", ".join(s.rep.label for s in group.slots)
        raise CannotQualify(group.column, f"`{group.column}` in USING ({group.column}) matches {options} on the "
                                          "left of the join: a USING column cannot be qualified; write the join "
                                          "with ON instead")
    if any(not slot.nodes for slot in group.slots):
        raise CannotQualify(group.column, f"`{group.column}` matches several result columns that are not plain "
                                          "columns: order or group by position or by the expression instead")
    return None


def equi_join_key(group: Group) -> Decision | None:
    return _one_class(group, ("on", "where"), "equi_join_key")


def using_column(group: Group) -> Decision | None:
    return _one_class(group, ("on", "where", "using"), "using_column")


def candidates(group: Group) -> Decision:
    found = classes(group.valid_links(), ("on", "where", "using"))
    choices: list[Choice] = []
    seen: dict[int, Choice] = {}
    for slot in group.slots:
        root = found.find(slot.rep)
        if root in seen:
            continue
        members = [s.rep for s in group.slots if found.find(s.rep) == root]
        node = next((n for n in members if group.usable(n)), None)
        if node is None:
            raise CannotQualify(group.column, f"`{slot.rep.label}` cannot be named from where `{group.column}` "
                                              "is written (the name is hidden by an inner table of the same name)")
        seen[root] = Choice(node, [n for n in members if n is not node], group.exclusions(node))
        choices.append(seen[root])
    return Decision("candidates", group, choices, _proof(found, group))


PASSES: tuple[Pass, ...] = (unqualifiable, equi_join_key, using_column, candidates)


def decide(group: Group) -> Decision:
    for repair_pass in PASSES:
        decision = repair_pass(group)
        if decision is not None:
            return decision
    raise AssertionError("the candidates pass always decides")


def _one_class(group: Group, kinds: tuple[str, ...], rule: str) -> Decision | None:
    found = classes(group.valid_links(), kinds)
    roots = {found.find(slot.rep) for slot in group.slots}
    if len(roots) != 1:
        return None
    reps = [slot.rep for slot in group.slots]
    node = next((n for n in reps if group.usable(n)), None)
    if node is None:
        return None
    return Decision(rule, group, [Choice(node, [n for n in reps if n is not node], group.exclusions(node))],
                    _proof(found, group))


def _proof(found: Classes, group: Group) -> list[str]:
    texts: list[str] = []
    for slot in group.slots:
        for link in found.proof(slot.rep):
            if link.text not in texts:
                texts.append(link.text)
    return texts
