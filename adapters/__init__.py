"""Engine adapters: connections, safety checks, running statements, introspection, side-by-side runs."""
from adapters import deadline
from adapters.connections import DatabaseConfig, parse_db_option, parse_db_options, parse_url
from adapters.database import Database, Limits
from adapters.errors import (
    CheckerError,
    ConfigError,
    EngineErrorInfo,
    InputError,
    IntrospectionError,
    NotReadOnlyError,
    UnparseableStatementError,
    UnsafeStatementError,
)
from adapters.results import RunResult
from adapters.runner import Job, run_side_by_side
from adapters.safety import decode_input, parse_query
from adapters.schema import ColumnInfo, ForeignKey, SchemaInfo, TableInfo, introspect

__all__ = [
    "CheckerError", "ColumnInfo", "ConfigError", "Database", "DatabaseConfig", "EngineErrorInfo", "ForeignKey",
    "InputError", "IntrospectionError", "Job", "Limits", "NotReadOnlyError", "RunResult", "SchemaInfo", "TableInfo",
    "UnparseableStatementError", "UnsafeStatementError", "deadline", "decode_input", "introspect", "parse_db_option", "parse_db_options", "parse_query",
    "parse_url", "run_side_by_side",
]
