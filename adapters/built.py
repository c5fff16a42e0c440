"""A statement the checker wrote itself: its text, and the sqlglot tree it was written from.

`Database.run` checks any text it is given by parsing it (`safety.parse_query`) and sends the SQL written
again from the checked tree. For the checker's own readings that parse was most of the checker's time (a
series statement is a calendar of hundreds of nodes, written as text only to be read back): a
`BuiltStatement` carries the tree, so `Database.run` puts that tree through the same checks
(`safety.check_query`: one query, nothing that writes or locks, every function and catalog on the
allow-list) and writes what it sends from it, without the text round trip.

It is a `str` (the text the report shows), so every caller that reads or keys statements by their text
is unchanged. Its text must be the one written from its tree (`Interpretation.statement` writes both at
once): `Database.run` keeps what it sent by that text, so a statement with the same text later is sent as
the first one was checked and written, and only a checked tree is ever sent. Only code holds a tree:
text from a person or a model is a plain `str` and is parsed as before. The tree is handed over once
(the sender caps and writes it in place); asked again, it is built again from the reading.
"""
from __future__ import annotations

import threading
from collections.abc import Callable

from sqlglot import exp

from adapters.dialects import sqlglot_dialect


class BuiltStatement(str):
    """`text` written in `dialect` from a tree `build()` makes again (`first`: the tree it was just written
    from, handed over on the first `tree()` call instead of building another)."""

    dialect: str
    _build: Callable[[], exp.Query]
    _first: exp.Query | None
    _lock: threading.Lock

    def __new__(cls, text: str, dialect: str, build: Callable[[], exp.Query],
                first: exp.Query | None = None) -> BuiltStatement:
        statement = super().__new__(cls, text)
        statement.dialect = sqlglot_dialect(dialect)
        statement._build = build
        statement._first = first
        statement._lock = threading.Lock()
        return statement

    def tree(self) -> exp.Query:
        """A tree of this statement that the caller owns (it may change it)."""
        return self.tree_as_written()[0]

    def tree_as_written(self) -> tuple[exp.Query, bool]:
        """`tree()`, and whether it is the very tree this text was written from (the first call after
        `Interpretation.statement` wrote both at once): then the text is that tree's, unwritten again."""
        with self._lock:
            first, self._first = self._first, None
        return (first, True) if first is not None else (self._build(), False)

    def text(self) -> str:
        """The plain text (no tree kept with it)."""
        return str.__str__(self)

    def __reduce__(self) -> tuple[type[str], tuple[str]]:
        return str, (self.text(),)  # copied or pickled, it is the text alone
