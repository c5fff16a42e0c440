"""Repair pass for "ambiguous column" errors, on every engine.

    find_ambiguous_columns(sql, schema, dialect)        static detection, before anything runs
    repair_statement(sql, schema, dialect, error=None)  the safe fix, or one statement per candidate
    run_with_repair(db, sql, limits)                     a RunOne for run_side_by_side: run, repair, rerun
    recognise(error) / recognise_mssql(message, number)  the column an engine's error names

Rules, in registry order (passes.py): unqualifiable, equi_join_key, using_column, candidates.
"""
from adapters.repair.log import RepairAttempt, RepairLog
from adapters.repair.passes import PASSES
from adapters.repair.problems import (
    CannotQualify,
    NotAmbiguous,
    RepairError,
    SchemaUnavailable,
    UnknownColumn,
    UnparseableSQL,
)
from adapters.repair.recognise import AmbiguousColumnError, recognise, recognise_mssql
from adapters.repair.run import run_with_repair
from adapters.repair.scopes import AmbiguousReference
from adapters.repair.statement import Candidate, RepairOutcome, find_ambiguous_columns, repair_statement

RULES = ("equi_join_key", "using_column", "candidates", "none")

__all__ = [
    "PASSES", "RULES", "AmbiguousColumnError", "AmbiguousReference", "Candidate", "CannotQualify", "NotAmbiguous",
    "RepairAttempt", "RepairError", "RepairLog", "RepairOutcome", "SchemaUnavailable", "UnknownColumn",
    "UnparseableSQL", "find_ambiguous_columns", "recognise", "recognise_mssql", "repair_statement",
    "run_with_repair",
]
