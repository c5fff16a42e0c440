"""Why a repair could not be made: one base class, subclasses carrying the detail (sqlglot/errors.py).

Every message is one line that is safe to show. A repair that raises one of these rewrites nothing.
"""
from __future__ import annotations

from adapters.errors import CheckerError


class RepairError(CheckerError):
    """Base of every reason the repair pass gives up."""


class UnparseableSQL(RepairError):
    """The statement does not parse as one read-only query in the given dialect."""


class SchemaUnavailable(RepairError):
    """The schema of the connection could not be read, so candidate tables are unknown."""


class UnknownColumn(RepairError):
    """The column the engine named is in no table the statement can see."""

    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column


class NotAmbiguous(RepairError):
    """The engine error is not an ambiguous-column error, or the named column is not ambiguous here."""


class CannotQualify(RepairError):
    """The column is ambiguous, but no table qualifier can tell the candidates apart
    (a USING column, duplicate columns of one derived table, a qualifier shadowed in a subquery...)."""

    def __init__(self, column: str, message: str) -> None:
        super().__init__(message)
        self.column = column
