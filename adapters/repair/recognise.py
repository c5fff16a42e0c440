"""Recognise an ambiguous-column error from what an engine said, and pull out the column and position.

Codes where an engine has them (PostgreSQL SQLSTATE 42702, MySQL/MariaDB errno 1052, SQL Server 209),
the message text where it has none (SQLite). The message is only read to extract the column name.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from adapters.classify import classify_mssql_message
from adapters.errors import EngineErrorInfo

PG_CODE = "42702"
MYSQL_CODE = "1052"
MSSQL_CODE = "209"

# (pattern, kind of reference, quote character doubled inside the name)
_PATTERNS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r'column reference "(?P<column>(?:[^"]|"")+)" is ambiguous'), "input", '"'),
    (re.compile(r'(?P<clause>ORDER BY|GROUP BY|DISTINCT ON) "(?P<column>(?:[^"]|"")+)" is ambiguous'), "output", '"'),
    (re.compile(r'common column name "(?P<column>(?:[^"]|"")+)" appears more than once in (?:left|right) table'),
     "using", '"'),
    (re.compile(r"Column '(?P<column>(?:[^']|'')+)' in (?P<clause>.+?) is ambiguous"), "input", "'"),
    (re.compile(r"ambiguous column name: (?P<column>\S+)"), "input", ""),
    (re.compile(r"Ambiguous column name '(?P<column>(?:[^']|'')+)'"), "input", "'"),
)

# MySQL wording (field list, where clause...) and MariaDB wording (SELECT, WHERE...) to one clause name
_CLAUSES = {
    "field list": "select", "select": "select", "where clause": "where", "where": "where",
    "order clause": "order", "order by": "order", "group statement": "group", "group by": "group",
    "having clause": "having", "having": "having", "on clause": "on", "on": "on", "from": "using",
    "distinct on": "order",
}


@dataclass(frozen=True)
class AmbiguousColumnError:
    """The detail of one engine's ambiguous-column error."""

    column: str
    position: int | None        # 1-based offset into the text the engine ran, where it gives one
    clause: str | None           # select | where | group | having | order | on | using, where it says
    kind: str                    # input (a column of several tables) | output (several result columns) | using
    error: EngineErrorInfo

    def to_dict(self) -> dict[str, object]:
        return {"column": self.column, "position": self.position, "clause": self.clause, "kind": self.kind,
                **self.error.to_dict()}


def is_ambiguous(error: EngineErrorInfo | None) -> bool:
    return recognise(error) is not None


def recognise(error: EngineErrorInfo | None) -> AmbiguousColumnError | None:
    """The column an ambiguous-column error names, or None for any other error.

    Recognised by kind or code (42702, 1052, 209) or, for SQLite which has no codes, by its message.
    """
    if error is None:
        return None
    for pattern, kind, quote in _PATTERNS:
        match = pattern.search(error.message)
        if not match:
            continue
        column = match.group("column")
        if quote:
            column = column.replace(quote * 2, quote)
        elif "." in column:
            column = column.rsplit(".", 1)[1]  # SQLite can name it as table.column
        clause = match.groupdict().get("clause")
        clause_name = "using" if kind == "using" else (_CLAUSES.get(clause.lower(), clause.lower()) if clause else None)
        return AmbiguousColumnError(column, error.position, clause_name, kind, error)
    if error.kind == "ambiguous_column" or error.code in (PG_CODE, MYSQL_CODE, MSSQL_CODE):
        return AmbiguousColumnError("", error.position, None, "input", error)  # a wording we do not know
    return None


def original_offset(original: str, ran: str, position: int | None, dialect: str) -> int | None:
    """Where in `original` (0-based) the column sits that an engine's 1-based `position` in `ran` points to.

    The text an engine runs can differ from the statement (a row cap regenerates it); both parse to
    the same columns in the same order, so the n-th column of one is the n-th column of the other.
    """
    if position is None:
        return None
    import sqlglot
    from sqlglot import exp
    from sqlglot.errors import SqlglotError

    try:
        ran_columns = list(sqlglot.parse_one(ran, read=dialect or None).find_all(exp.Column))
        columns = list(sqlglot.parse_one(original, read=dialect or None).find_all(exp.Column))
    except SqlglotError:
        return None
    index = position - 1
    for n, column in enumerate(ran_columns):
        first = column.args.get("table") or column.this
        start, end = first.meta.get("start"), column.this.meta.get("end")
        if isinstance(start, int) and isinstance(end, int) and start <= index <= end and len(columns) == len(ran_columns):
            offset = columns[n].this.meta.get("start")
            return offset if isinstance(offset, int) else None
    return None


def recognise_mssql(message: str, number: int | None = None) -> AmbiguousColumnError | None:
    """SQL Server (no server here): error 209, `Ambiguous column name 'X'.`, by number or by text.

    `message` may be the whole client text ("Msg 209, Level 16, State 1, Line 1" then the message).
    """
    info = classify_mssql_message(message, number)
    if info.kind != "ambiguous_column":
        return None
    line = next((ln.strip() for ln in message.splitlines() if _MSSQL.search(ln)), info.message)
    return recognise(EngineErrorInfo("ambiguous_column", MSSQL_CODE, line))


_MSSQL = re.compile(r"Ambiguous column name '")
