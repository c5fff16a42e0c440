"""Refuse anything but one read-only query, before it reaches an engine.

A parser, not regexes: `sqlglot.parse` must give exactly one statement whose root is a query, and no
node anywhere in the tree may write, lock or change settings (`WITH d AS (DELETE ...) SELECT ...` is a
Select containing a Delete).
"""
from __future__ import annotations

import re
from collections.abc import Iterable

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError

from adapters.errors import InputError, NotReadOnlyError, UnparseableStatementError
from adapters.functions import check_functions, tree_nodes

MAX_SQL_BYTES = 100_000
_EXECUTABLE_COMMENT = re.compile(r"^\s*M?!")
MAX_QUESTION_BYTES = 20_000  # the one question-length limit (check, batch, the page, archetypes.analyse)

_WRITING_NODES: tuple[type[exp.Expr], ...] = (
    exp.Insert, exp.Update, exp.Delete, exp.Drop, exp.Create, exp.Alter, exp.TruncateTable,
    exp.Grant, exp.Copy, exp.Set, exp.Command, exp.Into, exp.Lock, exp.Merge,
)
_NODE_NAMES = {
    exp.Into: "SELECT INTO", exp.Lock: "a locking read (FOR UPDATE/SHARE)", exp.Command: "a command",
    exp.TruncateTable: "TRUNCATE", exp.Set: "SET",
}


def decode_input(raw: bytes | str, *, what: str = "input", limit: int = MAX_SQL_BYTES) -> str:
    """Text from the user: UTF-8, not empty, not huge. Raises InputError with one line."""
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise InputError(f"{what} is not valid UTF-8 (byte {err.start})") from None
    try:
        size = len(raw.encode("utf-8"))
    except UnicodeEncodeError as err:
        # lone surrogates: bytes that were not UTF-8 (a command-line argument decoded with surrogateescape)
        raise InputError(f"{what} is not valid UTF-8 (character {err.start})") from None
    if size > limit:
        raise InputError(f"{what} is {size:,} bytes; the limit is {limit:,}")
    if "\x00" in raw:
        raise InputError(f"{what} contains a NUL character")
    if not raw.strip():
        raise InputError(f"{what} is empty")
    return raw


def parse_query(sql: str, dialect: str | None = None, *, allow_functions: Iterable[str] = ()) -> exp.Query:
    """Parse `sql` and return its single read-only query, or raise UnsafeStatementError.

    Besides the statement's shape: no executable comment (MariaDB runs `/*! ... */`), no user-variable
    assignment (`@x := 1` outlives the statement), and every function and catalog on the allow-list
    (`adapters.functions`; `allow_functions` adds user-defined functions by name)."""
    sql = decode_input(sql, what="SQL")
    try:
        _refuse_executable_comments(sql, dialect)
        statements = [s for s in sqlglot.parse(sql, read=dialect or None) if s is not None]
    except ParseError as err:
        raise UnparseableStatementError(f"cannot parse the SQL: {_parse_message(err)}", err.errors) from None
    except TokenError as err:
        first_line = str(err).splitlines()[0] if str(err) else "parse error"
        raise UnparseableStatementError(f"cannot parse the SQL: {first_line}") from None
    if len(statements) != 1:
        raise NotReadOnlyError(f"expected exactly one statement, got {len(statements)}")
    return check_query(statements[0], dialect, allow_functions=allow_functions)


def check_query(statement: exp.Expr, dialect: str | None, *, allow_functions: Iterable[str] = ()) -> exp.Query:
    """`statement` itself when it is one read-only query, else UnsafeStatementError: the checks
    `parse_query` makes once the text is parsed (its root is a query, no node anywhere writes, locks or
    assigns a user variable, every function and catalog is on the allow-list). A tree the checker built
    itself is checked here without writing it as text and parsing it again (`adapters.built`)."""
    if isinstance(statement, exp.Block):
        raise NotReadOnlyError("expected exactly one statement, got several")
    if not isinstance(statement, exp.Query):
        raise NotReadOnlyError(f"only read-only queries may run; this is {_describe(statement)}")
    nodes = tree_nodes(statement)  # walked once, read twice
    for node in nodes:
        if isinstance(node, _WRITING_NODES):
            raise NotReadOnlyError(f"only read-only queries may run; it contains {_describe(node)}")
        if isinstance(node, exp.PropertyEQ) and isinstance(node.this, (exp.Parameter, exp.SessionParameter)):
            raise NotReadOnlyError("a user-variable assignment (:=) is not allowed: it outlives the statement")
    check_functions(statement, dialect, allow_functions, nodes)
    return statement


def _refuse_executable_comments(sql: str, dialect: str | None) -> None:
    """MariaDB and MySQL execute `/*! ... */`, `/*!50000 ... */` and `/*M! ... */`; sqlglot keeps them as comments."""
    for token in sqlglot.tokenize(sql, read=dialect or None):
        for comment in token.comments:
            if _EXECUTABLE_COMMENT.match(comment):
                raise NotReadOnlyError("an executable comment (/*! ... */) is not allowed: MariaDB runs its contents")


# sqlglot writes the token it stopped at as its repr ("but got <Token token_type: TokenType.L_PAREN, text: (, ...>")
_TOKEN_REPR = re.compile(r"<Token token_type: TokenType\.\w+, text: (?P<text>.*?), line: \d+, col: \d+, "
                         r"start: \d+, end: \d+, comments: \[.*?\]>")


def _parse_message(err: ParseError) -> str:
    """One line from sqlglot's structured error: its description (a token shown by its text) and where."""
    if not err.errors:
        return (str(err).splitlines() or ["parse error"])[0]
    first = err.errors[0]
    description = _TOKEN_REPR.sub(lambda m: repr(m.group("text")), str(first.get("description") or "parse error"))
    where = f" Line {first['line']}, Col: {first['col']}." if first.get("line") is not None else ""
    return f"{description.rstrip('.')}.{where}"


def _describe(node: exp.Expr) -> str:
    for cls, name in _NODE_NAMES.items():
        if isinstance(node, cls):
            return name
    return node.key.upper()
