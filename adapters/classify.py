"""Turn a driver exception into an EngineErrorInfo (kind, code, message, position).

Codes where an engine has them (PostgreSQL SQLSTATE, MySQL/MariaDB errno), message patterns for SQLite
(which has no codes) and for SQL Server texts we only ever see pasted in (error 209).
"""
from __future__ import annotations

import re
from typing import Any

from sqlalchemy.exc import DBAPIError

from adapters.errors import EngineErrorInfo

_PG_KINDS = {
    "42601": "syntax", "42702": "ambiguous_column", "42703": "unknown_column",
    "57014": "timeout", "25006": "read_only", "42501": "permission", "42883": "unknown_function",
}
_MYSQL_KINDS = {
    1064: "syntax", 1149: "syntax", 1052: "ambiguous_column", 1054: "unknown_column",
    1969: "timeout", 3024: "timeout", 1317: "timeout", 1792: "read_only",
    2003: "connection", 2005: "connection", 2006: "connection", 2013: "connection", 1045: "connection",
    1044: "connection", 1049: "connection", 1142: "permission", 1143: "permission", 1227: "permission",
    1370: "permission", 1305: "unknown_function", 1630: "unknown_function", 1046: "connection",
}
_SQLITE_PATTERNS = (
    (re.compile(r"ambiguous column name"), "ambiguous_column"),
    (re.compile(r"no such column"), "unknown_column"),
    (re.compile(r"syntax error|incomplete input|unrecognized token"), "syntax"),
    (re.compile(r"^interrupted$"), "timeout"),
    (re.compile(r"readonly database|read-only"), "read_only"),
    (re.compile(r"unable to open database|disk I/O error|not a database"), "connection"),
    (re.compile(r"no such function"), "unknown_function"),
    (re.compile(r"not authorized"), "permission"),
)
_MSSQL_AMBIGUOUS = re.compile(r"Ambiguous column name '([^']+)'")


def _first_line(text: str) -> str:
    lines = [line.strip() for line in str(text).splitlines() if line.strip()]
    return lines[0] if lines else "unknown error"


def classify(err: BaseException, backend: str) -> EngineErrorInfo:
    """Classify an exception raised while connecting or running a statement on `backend`."""
    orig = err.orig if isinstance(err, DBAPIError) and err.orig is not None else err
    if backend == "postgresql":
        return _classify_postgres(err, orig)
    if backend == "mysql":
        return _classify_mysql(err, orig)
    if backend == "sqlite":
        return _classify_sqlite(err, orig)
    return EngineErrorInfo("other", None, _first_line(str(orig)))


def _classify_postgres(err: BaseException, orig: BaseException) -> EngineErrorInfo:
    sqlstate = getattr(orig, "sqlstate", None)
    diag = getattr(orig, "diag", None)
    message = getattr(diag, "message_primary", None) or _first_line(str(orig))
    position = getattr(diag, "statement_position", None)
    kind = _PG_KINDS.get(sqlstate or "")
    if kind is None:
        if sqlstate and sqlstate.startswith("08") or (sqlstate is None and _is_connection_error(err)):
            kind = "connection"
        elif sqlstate and sqlstate.startswith("28"):  # invalid authorization
            kind = "connection"
        else:
            kind = "other"
    return EngineErrorInfo(kind, sqlstate, message, int(position) if position else None)


def _classify_mysql(err: BaseException, orig: BaseException) -> EngineErrorInfo:
    args: tuple[Any, ...] = getattr(orig, "args", ())
    errno = args[0] if args and isinstance(args[0], int) else None
    message = str(args[1]) if len(args) > 1 else _first_line(str(orig))
    kind = _MYSQL_KINDS.get(errno or -1)
    if kind is None:
        kind = "connection" if _is_connection_error(err) else "other"
    return EngineErrorInfo(kind, str(errno) if errno is not None else None, _first_line(message))


def _classify_sqlite(err: BaseException, orig: BaseException) -> EngineErrorInfo:
    message = _first_line(str(orig))
    code = getattr(orig, "sqlite_errorname", None)
    for pattern, kind in _SQLITE_PATTERNS:
        if pattern.search(message):
            return EngineErrorInfo(kind, code, message)
    return EngineErrorInfo("other", code, message)


def classify_mssql_message(message: str, number: int | None = None) -> EngineErrorInfo:
    """SQL Server has no server here; recognise its ambiguous-column error by number and text."""
    if number == 209 or _MSSQL_AMBIGUOUS.search(message):
        return EngineErrorInfo("ambiguous_column", "209", _first_line(message))
    return EngineErrorInfo("other", str(number) if number is not None else None, _first_line(message))


def _is_connection_error(err: BaseException) -> bool:
    if isinstance(err, DBAPIError) and err.connection_invalidated:
        return True
    names = {cls.__name__ for cls in type(getattr(err, "orig", None) or err).__mro__}
    return bool(names & {"OperationalError", "InterfaceError"})
