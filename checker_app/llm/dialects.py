"""Model SQL in the dialect it was written in, carried to each engine, and re-anchored to the data's as-of.

A model asked for SQLite still writes MySQL (`YEAR(d)`, `INTERVAL 30 DAY`, `DATE_SUB`, `NOW()`) or
PostgreSQL (`INTERVAL '30 days'`, `DATE_TRUNC`). `written_dialect` takes the dialect the model
declared, else reads the statement's own markers from sqlglot's tokens and tree (never a regex over
SQL text). sqlglot then renders it per engine, and `for_sqlite` rewrites what sqlglot leaves in a
form SQLite cannot run (it emits `YEAR()`, `INTERVAL '30' DAY`, `TIMESTAMP_TRUNC` for SQLite without
raising): date parts through STRFTIME, interval arithmetic through DATETIME modifiers; and
`sqlite_for_postgres` reads SQLite's text timestamps as text on PostgreSQL (SUBSTR, LIKE, STRFTIME('%w')).

`now_calls` finds the clock (`now()`, `CURRENT_DATE`, `date('now')`...): on data whose as-of date is in
the past every such reading is empty, so `anchored` offers the same reading with the clock replaced
by the as-of date.
"""
from __future__ import annotations

import datetime as dt
import re

import sqlglot
from sqlglot import exp
from sqlglot.tokens import TokenType

from adapters.dialects import ENGINE_DIALECTS

DIALECTS = ENGINE_DIALECTS
_MYSQL_FUNCS = {"CURDATE", "CURTIME", "DATE_FORMAT", "DATEDIFF", "UNIX_TIMESTAMP", "FROM_UNIXTIME", "SYSDATE",
                "STR_TO_DATE", "LAST_DAY", "WEEKOFYEAR"}
_SQLITE_FUNCS = {"STRFTIME", "JULIANDAY", "DATETIME"}
_POSTGRES_FUNCS = {"TO_CHAR", "AGE", "DATE_PART", "TO_TIMESTAMP"}
_CLOCK_NAMES = {"NOW", "CURDATE", "CURTIME", "SYSDATE", "GETDATE", "LOCALTIMESTAMP", "LOCALTIME"}
_CLOCK_TYPES = (exp.CurrentDate, exp.CurrentTimestamp, exp.CurrentTime, exp.CurrentDatetime)
_UNITS = {"day": "days", "days": "days", "month": "months", "months": "months", "year": "years", "years": "years",
          "hour": "hours", "hours": "hours", "minute": "minutes", "minutes": "minutes", "second": "seconds",
          "seconds": "seconds", "week": "weeks", "weeks": "weeks"}
_PART_FORMATS = {exp.Year: "%Y", exp.Month: "%m", exp.Day: "%d"}
_TRUNC_FORMATS = {"year": "%Y-01-01", "month": "%Y-%m-01", "day": "%Y-%m-%d", "hour": "%Y-%m-%d %H:00:00"}


def _markers(sql: str) -> dict[str, int]:
    scores = dict.fromkeys(DIALECTS, 0)
    try:
        tokens = sqlglot.tokenize(sql)
    except sqlglot.errors.TokenError:
        return scores
    for before, token in zip(tokens, tokens[1:]):
        if before.token_type == TokenType.INTERVAL:
            scores["mysql" if token.token_type == TokenType.NUMBER else "postgres"] += 1
        if token.token_type == TokenType.DCOLON or token.token_type == TokenType.ILIKE:
            scores["postgres"] += 1
        if token.text.startswith("`"):
            scores["mysql"] += 1
    for token in tokens:
        name = token.text.upper()
        if name in _MYSQL_FUNCS or name in ("YEAR", "MONTH", "DAYOFWEEK", "DATE_SUB", "DATE_ADD"):
            scores["mysql"] += 1
        elif name in _SQLITE_FUNCS:
            scores["sqlite"] += 1
        elif name in _POSTGRES_FUNCS or name == "DATE_TRUNC":
            scores["postgres"] += 1
        elif token.token_type == TokenType.STRING and token.text.lower() == "now":
            scores["sqlite"] += 1
    return scores


def written_dialect(sql: str, target: str, declared: str | None = None) -> str:
    """The dialect `sql` was written in: the declared one when it parses, else the one whose markers it
    carries most (the target on a tie: the model was asked for it)."""
    if declared in DIALECTS:
        try:
            sqlglot.parse(sql, read=declared)
            return declared
        except sqlglot.errors.SqlglotError:
            pass
    scores = _markers(sql)
    best = max(scores.values())
    if best == 0 or scores.get(target, 0) == best:
        return target
    return next(d for d in DIALECTS if scores[d] == best)


# -- SQLite ------------------------------------------------------------------------------------------

def _modifier(amount: exp.Expression, unit: str | None, sign: str) -> exp.Expression | None:
    text = amount.name if isinstance(amount, exp.Literal) else None
    if text is None:
        return None
    if unit is None:  # PostgreSQL's INTERVAL '30 days'
        found = re.fullmatch(r"\s*(\d+)\s*([a-zA-Z]+)\s*", text)
        if not found:
            return None
        text, unit = found.groups()
    unit_name = _UNITS.get(unit.lower())
    if unit_name is None or not re.fullmatch(r"\d+", text.strip()):
        return None
    n = int(text)
    if unit_name == "weeks":
        n, unit_name = n * 7, "days"
    return exp.Literal.string(f"{sign}{n} {unit_name}")


def _shifted(base: exp.Expression, modifier: exp.Expression) -> exp.Expression:
    name = "DATE" if isinstance(base, exp.CurrentDate) else "DATETIME"
    return exp.Anonymous(this=name, expressions=[base.copy(), modifier])


def _sqlite_node(node: exp.Expression) -> exp.Expression:
    if isinstance(node, (exp.Add, exp.Sub)) and isinstance(node.expression, exp.Interval):
        interval = node.expression
        unit = interval.args.get("unit")
        modifier = _modifier(interval.this, unit.name if unit is not None else None,
                             "-" if isinstance(node, exp.Sub) else "+")
        return _shifted(node.this, modifier) if modifier is not None else node
    if isinstance(node, (exp.DateSub, exp.DateAdd)) and node.args.get("unit") is not None:
        modifier = _modifier(node.expression, node.args["unit"].name, "-" if isinstance(node, exp.DateSub) else "+")
        return _shifted(node.this, modifier) if modifier is not None else node
    for kind, fmt in _PART_FORMATS.items():
        if type(node) is kind:
            return exp.cast(exp.Anonymous(this="STRFTIME", expressions=[exp.Literal.string(fmt), node.this.copy()]),
                            exp.DataType.build("INTEGER"))
    if isinstance(node, (exp.DateTrunc, exp.TimestampTrunc)):
        unit = node.args.get("unit")
        fmt = _TRUNC_FORMATS.get((unit.name if unit is not None else "").lower())
        if fmt:
            return exp.Anonymous(this="STRFTIME", expressions=[exp.Literal.string(fmt), node.this.copy()])
    if isinstance(node, exp.Anonymous) and node.name.upper() in ("NOW", "SYSDATE"):
        return exp.CurrentTimestamp()
    if isinstance(node, exp.Anonymous) and node.name.upper() == "CURDATE":
        return exp.CurrentDate()
    if (isinstance(node, exp.Cast) and isinstance(node.this, exp.Literal) and node.this.is_string
            and node.to.this in (exp.DataType.Type.DATE, exp.DataType.Type.TIMESTAMP, exp.DataType.Type.DATETIME)):
        return node.this.copy()  # SQLite's CAST('2025-06-30' AS DATE) is the number 2025
    return node


def for_sqlite(query: exp.Expression) -> exp.Expression:
    """A copy of `query` SQLite can run where sqlglot alone renders functions SQLite does not have."""
    once = query.copy().transform(_sqlite_node)
    return once.transform(_sqlite_node)  # what the first pass built around a node it had not reached yet


# -- PostgreSQL --------------------------------------------------------------------------------------

def _postgres_node(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Substring) and not _text(node.this):
        node.set("this", exp.cast(node.this.copy(), exp.DataType.build("TEXT")))
    elif isinstance(node, (exp.Like, exp.ILike)) and isinstance(node.this, exp.Column):
        node.set("this", exp.cast(node.this.copy(), exp.DataType.build("TEXT")))
    elif isinstance(node, exp.TimeToStr):
        fmt = node.args.get("format")
        part = {"%w": "DOW", "%u": "ISODOW"}.get(fmt.name if isinstance(fmt, exp.Literal) else "")
        if part is not None:
            when = node.this.copy()
            if not isinstance(when, (exp.Cast, exp.TsOrDsToTimestamp)):
                when = exp.cast(when, exp.DataType.build("TIMESTAMP"))
            return exp.Extract(this=exp.var(part), expression=when)
    return node


def _text(node: exp.Expression) -> bool:
    return (isinstance(node, exp.Literal) and node.is_string) or (
        isinstance(node, exp.Cast) and node.to.this in (exp.DataType.Type.TEXT, exp.DataType.Type.VARCHAR))


def sqlite_for_postgres(query: exp.Expression) -> exp.Expression:
    """A copy of SQLite-written `query` PostgreSQL can run: SQLite keeps timestamps as text, so SUBSTR and
    LIKE on a timestamp column read its text there (a cast to TEXT on PostgreSQL, which refuses
    `substring(timestamp)`), and STRFTIME('%w') / ('%u') are the day of the week (sqlglot renders them as a
    TO_CHAR pattern PostgreSQL does not have)."""
    return query.copy().transform(_postgres_node)


# -- the clock ---------------------------------------------------------------------------------------

def _is_clock(node: exp.Expression) -> bool:
    if isinstance(node, _CLOCK_TYPES):
        return True
    if isinstance(node, exp.Anonymous) and node.name.upper() in _CLOCK_NAMES:
        return True
    return isinstance(node, exp.Literal) and node.is_string and node.name.strip().lower() == "now"


def now_calls(query: exp.Expression, dialect: str) -> list[str]:
    """How the statement reads the clock, as written (empty when it does not)."""
    found: list[str] = []
    for node in query.walk():
        if not _is_clock(node):
            continue
        shown = (node.parent if isinstance(node, exp.Literal) and node.parent is not None else node).sql(dialect=dialect)
        if shown not in found:
            found.append(shown)
    return found


def anchored(query: exp.Expression, as_of: dt.date) -> exp.Expression:
    """A copy of `query` with the clock replaced by the as-of date (its last moment for timestamps)."""
    day = as_of.isoformat()

    def swap(node: exp.Expression) -> exp.Expression:
        if isinstance(node, exp.Literal):
            return exp.Literal.string(f"{day} 23:59:59") if _is_clock(node) else node
        if isinstance(node, exp.CurrentDate) or (isinstance(node, exp.Anonymous) and node.name.upper() == "CURDATE"):
            return exp.cast(exp.Literal.string(day), exp.DataType.build("DATE"))
        if _is_clock(node):
            return exp.cast(exp.Literal.string(f"{day} 23:59:59"), exp.DataType.build("TIMESTAMP"))
        return node

    return query.copy().transform(swap)
