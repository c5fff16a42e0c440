"""Placeholder lint: a chosen value must be a quoted literal, never `$1`, `?`, `%s` or `:name`.

The dashboard that shows a query cannot substitute parameters, so a parameterised query is a broken
query even when a raw runner would accept it. Parsed, not pattern-matched: PostgreSQL's `$1` is an
`exp.Parameter`; `?`, `%s`, `:name` and `%(name)s` are `exp.Placeholder` (MySQL's reader cannot parse
`%s`, so text its own dialect rejects is read again as PostgreSQL). Where the chosen value is known it
replaces the placeholder as a quoted string literal; otherwise the placeholder is reported unresolved.
"""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sqlglot import exp

from adapters import CheckerError, UnparseableStatementError, parse_query
from checker_app.llm.dialects import for_sqlite, sqlite_for_postgres

_DOLLAR = re.compile(r"^\$(\d+)$")


@dataclass
class PlaceholderFinding:
    placeholder: str
    replaced_with: str | None = None  # the literal as SQL text, or None when the value is not known

    def to_dict(self) -> dict[str, Any]:
        return {"placeholder": self.placeholder, "replaced_with": self.replaced_with}


@dataclass
class LintResult:
    sql: str                         # as written
    dialect: str                     # the dialect it was written for
    read_as: str | None = None       # the dialect that parsed it (None: it did not parse / is unsafe)
    query: exp.Query | None = field(default=None, repr=False)
    findings: list[PlaceholderFinding] = field(default_factory=list)
    error: str | None = None
    error_kind: str | None = None    # the refusal's kind (CheckerError.kind: syntax, read_only, other)

    def refuse(self, err: CheckerError) -> LintResult:
        self.error, self.error_kind = str(err), err.kind
        return self

    @property
    def unresolved(self) -> list[PlaceholderFinding]:
        return [f for f in self.findings if f.replaced_with is None]

    @property
    def changed(self) -> bool:
        return any(f.replaced_with is not None for f in self.findings)

    @property
    def runnable(self) -> bool:
        return self.query is not None and not self.unresolved

    def problem(self) -> str | None:
        """Why the SQL cannot run as it is, in one line (None when it can)."""
        if self.error:
            return self.error
        if self.unresolved:
            names = ", ".join(f.placeholder for f in self.unresolved)
            return (f"placeholder {names} with no known value: the chosen value must be written as a quoted "
                    "literal (the dashboard cannot substitute parameters)")
        return None

    def problem_kind(self) -> str | None:
        """The kind of `problem()`: the refusal's own kind; an unresolved placeholder is a syntax error (no
        engine can run a parameter marker that is never bound)."""
        if self.error:
            return self.error_kind or "other"
        return "syntax" if self.unresolved else None

    def render(self, dialect: str) -> str:
        """The SQL for one engine: verbatim when nothing changed and the dialect is the one it was written in."""
        if self.query is None:
            return self.sql
        if not self.changed and dialect == self.dialect == self.read_as:
            return self.sql.strip().rstrip(";").strip()
        query = self.query
        if dialect == "sqlite":
            query = for_sqlite(query)
        elif dialect == "postgres" and (self.read_as or self.dialect) == "sqlite":
            query = sqlite_for_postgres(query)
        return query.sql(dialect=dialect)

    def to_dict(self) -> dict[str, Any]:
        return {"placeholders": [f.to_dict() for f in self.findings], "error": self.problem()}


def _placeholder_nodes(query: exp.Expression) -> list[exp.Expression]:
    found = []
    for node in query.walk(bfs=False):
        if isinstance(node, exp.Placeholder):
            found.append(node)
        elif isinstance(node, exp.Parameter) and isinstance(node.this, exp.Literal) and node.this.is_int:
            found.append(node)
        elif isinstance(node, exp.Column) and not node.table and _DOLLAR.match(node.name or ""):
            found.append(node)  # `$1` read by SQLite's or MySQL's parser: an identifier
    return found


def _written(node: exp.Expression, dialect: str) -> str:
    if isinstance(node, exp.Parameter):
        return f"${node.this.this}"
    if isinstance(node, exp.Column):
        return node.name
    return node.sql(dialect=dialect)


def _named_value(name: str, values: Mapping[str, str]) -> str | None:
    if name in values:
        return values[name]
    lowered = {k.lower().replace("-", "_"): v for k, v in values.items()}
    if name.lower() in lowered:
        return lowered[name.lower()]
    if len(values) == 1:
        return next(iter(values.values()))
    return None


def lint_sql(sql: str, dialect: str, values: Mapping[str, str] | None = None) -> LintResult:
    """Safety check and placeholder lint of one model-written query (values: the user's chosen values)."""
    values = dict(values or {})
    result = LintResult(sql=sql, dialect=dialect)
    try:
        query, read_as = parse_query(sql, dialect), dialect
    except UnparseableStatementError as err:
        if dialect == "postgres":
            return result.refuse(err)
        try:  # `%s` and `%(name)s` only parse as PostgreSQL
            query, read_as = parse_query(sql, "postgres"), "postgres"
        except CheckerError:
            return result.refuse(err)
    except CheckerError as err:
        return result.refuse(err)
    result.read_as = read_as
    positional = list(values.values())
    unnamed = iter(positional)
    replacements: list[tuple[exp.Expression, exp.Expression]] = []
    for node in _placeholder_nodes(query):
        value: str | None
        if isinstance(node, exp.Parameter):
            n = int(node.this.this)
            value = positional[n - 1] if 1 <= n <= len(positional) else None
        elif isinstance(node, exp.Column):
            n = int(_DOLLAR.match(node.name).group(1))  # type: ignore[union-attr]
            value = positional[n - 1] if 1 <= n <= len(positional) else None
        elif node.args.get("this"):
            value = _named_value(node.name, values)
        else:
            value = next(unnamed, None)
        literal = exp.Literal.string(value) if value is not None else None
        result.findings.append(PlaceholderFinding(_written(node, read_as),
                                                  literal.sql(dialect=dialect) if literal is not None else None))
        if literal is not None:
            replacements.append((node, literal))
    for node, literal in replacements:  # the tree was parsed here: replace in place
        node.replace(literal)
    result.query = query
    return result
