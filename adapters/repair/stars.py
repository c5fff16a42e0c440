"""Expand a `*` (or `t.*`) minus some columns: the one repair that is more than a qualifier.

Needed only when a CTE or derived table selects `*` over a join and so yields two columns of one name
that an outer reference needs (PostgreSQL: `column reference "id" is ambiguous`). Sources with nothing
left out stay `t.*`; the others are listed column by column, qualified, in their original order.
"""
from __future__ import annotations

from sqlglot import exp

from adapters.repair.problems import CannotQualify
from adapters.repair.sources import ScopeModel


def column_identifier(name: str, dialect: str) -> str:
    """A schema spelling as an identifier: quoted when PostgreSQL would fold its case, or when unsafe."""
    quoted = dialect == "postgres" and name != name.lower()
    return exp.to_identifier(name, quoted=quoted or None).sql(dialect=dialect or None)


def expand(model: ScopeModel, index: int, excluded: set[int], dialect: str) -> str:
    """The text replacing projection `index` of `model`'s SELECT, leaving out the columns in `excluded` (ids)."""
    projection = model.expression.expressions[index]
    bare = isinstance(projection, exp.Star)
    sources = model.sources if bare else [s for s in [model.source(projection.table)] if s is not None]
    merged_away = model.merged_away() if bare else set()
    parts: list[str] = []
    for source in sources:
        offered = [n for n in source.nodes if id(n) not in merged_away]
        keep = [n for n in offered if id(n) not in excluded]
        if source.qualifier is None:
            raise CannotQualify("*", "the star covers a derived table without an alias: it cannot be expanded")
        if len(keep) == len(source.nodes):
            parts.append(f"{source.qualifier}.*")
        else:
            parts += [f"{source.qualifier}.{column_identifier(n.column, dialect)}" for n in keep]
    if not parts:
        raise CannotQualify("*", "expanding the star would leave no column")
    return ", ".join(parts)
