"""Which functions and catalogs a checked statement may touch, per dialect.

A read-only transaction does not stop what a SELECT can call: as a superuser `pg_read_file`,
`pg_terminate_backend`, `lo_export` or MariaDB's `LOAD_FILE` run inside one. So every function call in
the tree is checked here before anything reaches an engine:

* a typed sqlglot function (`exp.Func` subclass: SUM, DATE_TRUNC, COALESCE, ...) is one of the standard
  functions sqlglot knows, allowed unless it is in `REFUSED_TYPED` (files, sequences, models);
* an unknown one (`exp.Anonymous`) must be on the dialect's allow-list of side-effect-free functions, or
  named in the profile's `allow_functions:`; functions in `REFUSED` are refused with the reason even then;
* tables in catalogs that hold secrets or server state (`pg_authid`, `mysql.user`, ...) are refused.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence

from sqlglot import exp

from adapters.errors import NotReadOnlyError

# Functions known to be harmful, with the reason shown (any dialect: a name is refused wherever it appears).
_SERVER = "it controls the server or other sessions"
_LASTING = "it has an effect that outlives the read-only transaction"
_FILES = "it reads or writes files on the server"
_REMOTE = "it runs SQL given as text or on another server"
_LOCKS = "it takes a lock that outlives the statement"
_TIME = "it only spends server time"
_SECRETS = "it reads server settings or secrets"
REFUSED: dict[str, str] = {
    **dict.fromkeys((
        "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_switch_wal", "pg_rotate_logfile",
        "pg_promote", "pg_wal_replay_pause", "pg_wal_replay_resume", "pg_create_restore_point", "pg_log_backend_memory_contexts",
        "pg_backup_start", "pg_backup_stop", "pg_start_backup", "pg_stop_backup", "set_config",
    ), _SERVER),
    **dict.fromkeys((
        "pg_create_physical_replication_slot", "pg_create_logical_replication_slot", "pg_drop_replication_slot",
        "pg_copy_physical_replication_slot", "pg_copy_logical_replication_slot", "pg_replication_slot_advance",
        "pg_logical_emit_message", "pg_stat_reset", "pg_stat_reset_shared", "pg_stat_reset_single_table_counters",
        "pg_stat_reset_single_function_counters", "pg_stat_reset_slru", "pg_stat_reset_replication_slot",
        "pg_stat_statements_reset", "txid_current", "pg_current_xact_id", "nextval", "setval", "lastval",
        "pg_notify", "pg_import_system_collations", "pg_replication_origin_create", "pg_replication_origin_drop",
    ), _LASTING),
    **dict.fromkeys((
        "lo_export", "lo_import", "lo_create", "lo_unlink", "lo_put", "lo_from_bytea", "lo_open", "lo_creat",
        "lo_get", "pg_read_file", "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_ls_logdir",
        "pg_ls_waldir", "pg_ls_tmpdir", "pg_ls_archive_statusdir", "pg_file_write", "pg_file_rename",
        "pg_file_unlink", "load_file", "load_extension", "readfile", "writefile", "edit", "fts3_tokenizer",
    ), _FILES),
    **dict.fromkeys((
        "dblink", "dblink_exec", "dblink_connect", "dblink_connect_u", "dblink_send_query", "dblink_open",
        "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml", "table_to_xml",
        "table_to_xmlschema", "table_to_xml_and_xmlschema", "schema_to_xml", "database_to_xml", "xpath_table",
        "ts_stat", "sys_exec", "sys_eval",
    ), _REMOTE),
    **dict.fromkeys((
        "pg_advisory_lock", "pg_advisory_lock_shared", "pg_try_advisory_lock", "pg_try_advisory_lock_shared",
        "pg_advisory_xact_lock", "pg_advisory_xact_lock_shared", "pg_try_advisory_xact_lock",
        "pg_try_advisory_xact_lock_shared", "pg_advisory_unlock", "pg_advisory_unlock_all",
        "pg_advisory_unlock_shared", "get_lock", "release_lock", "release_all_locks", "is_free_lock",
        "is_used_lock", "master_pos_wait", "master_gtid_wait", "source_pos_wait",
    ), _LOCKS),
    **dict.fromkeys(("pg_sleep", "pg_sleep_for", "pg_sleep_until", "sleep", "benchmark"), _TIME),
    **dict.fromkeys(("current_setting", "pg_show_all_settings", "pg_config", "pg_hba_file_rules",
                     "pg_show_all_file_settings", "pg_stat_get_activity", "pg_get_userbyid"), _SECRETS),
}

# Typed sqlglot functions that are not plain computation (files, sequences, models, other engines' tables).
REFUSED_TYPED: dict[type[exp.Expr], str] = {
    **dict.fromkeys((exp.ReadCSV, exp.ReadParquet, exp.ToFile), _FILES),
    **dict.fromkeys((exp.NextValueFor, exp.Seq1, exp.Seq2, exp.Seq4, exp.Seq8), _LASTING),
    **dict.fromkeys((exp.AIGenerate, exp.GenerateEmbedding, exp.GenerateText, exp.Predict), _REMOTE),
}

# Side-effect-free functions sqlglot does not type (it parses them as exp.Anonymous), per dialect.
_COMMON = (
    "abs", "ceil", "ceiling", "floor", "round", "sign", "sqrt", "power", "pow", "exp", "ln", "log", "log10",
    "mod", "pi", "greatest", "least", "nullif", "coalesce", "concat", "concat_ws", "length", "char_length",
    "character_length", "octet_length", "lower", "upper", "substr", "substring", "left", "right", "reverse",
    "replace", "trim", "ltrim", "rtrim", "lpad", "rpad", "instr", "md5", "cos", "sin", "tan", "acos", "asin",
    "atan", "atan2", "degrees", "radians", "cot", "row_number", "rank", "dense_rank", "ntile", "lag", "lead",
    "first_value", "last_value", "nth_value", "cume_dist", "percent_rank", "min", "max", "sum", "avg", "count",
    "ascii", "char", "format", "now", "random", "rand", "uuid", "current_date", "current_timestamp",
)
ALLOWED: dict[str, frozenset[str]] = {
    "postgres": frozenset(_COMMON + (
        "to_char", "to_date", "to_timestamp", "to_number", "date_part", "date_trunc", "date_bin", "age",
        "justify_days", "justify_hours", "justify_interval", "make_date", "make_time", "make_timestamp",
        "make_timestamptz", "make_interval", "isfinite", "timezone", "initcap", "btrim", "split_part", "strpos",
        "translate", "regexp_replace", "regexp_match", "regexp_matches", "regexp_split_to_array",
        "regexp_split_to_table", "regexp_count", "regexp_instr", "regexp_substr", "string_agg", "array_agg",
        "array_length", "array_to_string", "string_to_array", "cardinality", "unnest", "generate_series",
        "width_bucket", "percentile_cont", "percentile_disc", "mode", "trunc", "div", "cbrt", "gcd", "lcm",
        "factorial", "scale", "bool_and", "bool_or", "every", "bit_and", "bit_or", "to_json", "to_jsonb",
        "json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array", "json_agg",
        "jsonb_agg", "json_object_agg", "jsonb_object_agg", "row_to_json", "quote_ident", "quote_literal",
        "quote_nullable", "chr", "starts_with", "pg_typeof", "num_nonnulls", "num_nulls", "sha224", "sha256",
        "sha384", "sha512", "encode", "decode", "date", "corr", "covar_pop", "covar_samp", "regr_slope",
        "regr_intercept", "stddev", "stddev_pop", "stddev_samp", "variance", "var_pop", "var_samp",
        "clock_timestamp", "statement_timestamp", "transaction_timestamp", "localtimestamp", "localtime",
        "extract", "overlay", "position", "bit_length", "array_position", "array_remove", "array_cat",
    )),
    "mysql": frozenset(_COMMON + (
        "date_format", "str_to_date", "datediff", "timestampdiff", "timestampadd", "date_add", "date_sub",
        "adddate", "subdate", "addtime", "subtime", "timediff", "dayofweek", "dayofmonth", "dayofyear", "weekday",
        "week", "weekofyear", "yearweek", "year", "month", "monthname", "day", "dayname", "quarter", "hour",
        "minute", "second", "microsecond", "last_day", "makedate", "maketime", "from_days", "to_days",
        "to_seconds", "sec_to_time", "time_to_sec", "unix_timestamp", "from_unixtime", "convert_tz", "ifnull",
        "if", "group_concat", "locate", "position", "substring_index", "field", "find_in_set", "elt", "truncate",
        "date", "time", "timestamp", "extract", "period_add", "period_diff", "get_format", "lcase", "ucase",
        "mid", "space", "repeat", "strcmp", "soundex", "crc32", "sha1", "sha2", "conv", "bin", "oct", "hex",
        "unhex", "ord", "insert", "export_set", "make_set", "bit_count", "std", "stddev", "stddev_pop",
        "stddev_samp", "variance", "var_pop", "var_samp", "bit_and", "bit_or", "bit_xor", "json_object",
        "json_array", "json_extract", "json_unquote", "json_arrayagg", "json_objectagg", "regexp_replace",
        "regexp_substr", "regexp_instr", "curdate", "curtime", "utc_date", "utc_time", "utc_timestamp",
        "sysdate", "localtime", "localtimestamp", "median", "percentile_cont", "percentile_disc", "char_length",
    )),
    "sqlite": frozenset(_COMMON + (
        "strftime", "julianday", "date", "datetime", "time", "unixepoch", "timediff", "ifnull", "iif", "printf",
        "total", "typeof", "likely", "unlikely", "likelihood", "quote", "unicode", "glob", "like", "hex",
        "group_concat", "string_agg", "trunc", "sign", "median", "json", "json_object", "json_array",
        "json_extract", "json_group_array", "json_group_object", "soundex", "octet_length", "randomblob",
        "zeroblob",
    )),
}

# Catalogs that hold password hashes, other sessions' queries or server configuration.
REFUSED_TABLES: dict[str, frozenset[str]] = {
    "postgres": frozenset((
        "pg_authid", "pg_shadow", "pg_user_mapping", "pg_user_mappings", "pg_subscription", "pg_stat_activity",
        "pg_hba_file_rules", "pg_ident_file_mappings", "pg_file_settings", "pg_settings", "pg_config",
        "pg_largeobject", "pg_largeobject_metadata", "pg_replication_slots", "pg_stat_replication",
        "pg_stat_statements", "pg_statistic", "pg_prepared_xacts", "pg_locks", "pg_stat_ssl", "pg_stat_gssapi",
        "pg_stat_wal_receiver", "pg_stat_subscription", "pg_db_role_setting",
    )),
    "mysql": frozenset(("processlist", "user_privileges", "schema_privileges", "table_privileges",
                        "column_privileges", "global_variables", "session_variables", "global_status")),
    "sqlite": frozenset(),
}
REFUSED_SCHEMAS: dict[str, frozenset[str]] = {
    "postgres": frozenset(),
    "mysql": frozenset(("mysql", "performance_schema", "sys")),
    "sqlite": frozenset(),
}


def _dialect(dialect: str | None) -> str:
    return dialect if dialect in ALLOWED else "postgres" if dialect in ("postgresql",) else dialect or ""


def function_name(node: exp.Func) -> str:
    """What the function is called: the name as written for unknown ones, sqlglot's for typed ones."""
    if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc)):
        return str(node.name).lower()
    return node.sql_name().lower()


def tree_nodes(tree: exp.Expr) -> list[exp.Expr]:
    """Every node of `tree` in `tree.walk()`'s order (breadth first, each node's arguments in order), as a
    list: the safety checks read the nodes twice (`safety.check_query`, then `check_functions`), and
    sqlglot's walk, a generator over generators, was most of their time (a statement's own nodes, a
    thousand for a series, walked twice for every statement sent)."""
    nodes = [tree]
    append, node_type = nodes.append, exp.Expr
    for node in nodes:  # the list grows as it is read: breadth first
        for value in node.args.values():
            if isinstance(value, node_type):
                append(value)
            elif isinstance(value, list):
                for item in value:
                    if isinstance(item, node_type):
                        append(item)
    return nodes


def check_functions(tree: exp.Expr, dialect: str | None, allowed: Iterable[str] = (),
                    nodes: Sequence[exp.Expr] | None = None) -> None:
    """Raise UnsafeStatementError naming the first function or catalog the statement may not touch.

    `allowed`: extra function names (the profile's `allow_functions:`), for user-defined functions.
    `nodes`: `tree_nodes(tree)` when the caller has them."""
    name_of = _dialect(dialect)
    extra = {a.lower() for a in allowed}
    permitted = ALLOWED.get(name_of) or frozenset().union(*ALLOWED.values())
    for node in tree_nodes(tree) if nodes is None else nodes:
        if isinstance(node, exp.Table):
            _check_table(node, name_of)
        if not isinstance(node, exp.Func):
            continue
        name = function_name(node)
        if name in REFUSED:
            raise NotReadOnlyError(f"function {name} is not allowed: {REFUSED[name]}")
        if type(node) in REFUSED_TYPED:
            raise NotReadOnlyError(f"function {name} is not allowed: {REFUSED_TYPED[type(node)]}")
        if isinstance(node, (exp.Anonymous, exp.AnonymousAggFunc)) and name not in permitted and name not in extra:
            raise NotReadOnlyError(
                f"function {name} is not on the allow-list for {name_of or 'this dialect'} "
                "(a safe user-defined function can be named in the profile's allow_functions)")


def _check_table(table: exp.Table, dialect: str) -> None:
    name, schema = table.name.lower(), table.db.lower()
    if schema in REFUSED_SCHEMAS.get(dialect, frozenset()) or (
            name in REFUSED_TABLES.get(dialect, frozenset()) and schema in ("", "pg_catalog", "information_schema")):
        shown = f"{schema}.{name}" if schema else name
        raise NotReadOnlyError(f"catalog {shown} is not allowed: it holds secrets or server state")
    # the other engines' secret catalogs, whichever dialect the statement was parsed in
    if name in ("pg_authid", "pg_shadow") or (schema == "mysql" and name in ("user", "global_priv")):
        shown = f"{schema}.{name}" if schema else name
        raise NotReadOnlyError(f"catalog {shown} is not allowed: it holds secrets or server state")
