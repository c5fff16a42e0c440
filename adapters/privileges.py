"""Least privilege: what role the checker is connected as, and the statements that create a better one.

The safety check refuses what a SELECT can call, but the real protection is a role that can only read:
PostgreSQL `pg_read_all_data` (or SELECT per schema) without `pg_read_server_files`, `pg_signal_backend`
or superuser; MariaDB SELECT on the one database, no FILE. `privilege_warning` says, once per engine,
when the connection can do more than that; `role_statements` prints what creates such a role.
"""
from __future__ import annotations

import re

import sqlalchemy as sa

_PG_WIDE_ROLES = ("pg_read_server_files", "pg_write_server_files", "pg_execute_server_program",
                  "pg_signal_backend")
_MYSQL_WIDE = re.compile(r"\bGRANT (ALL PRIVILEGES|.*\b(FILE|SUPER|PROCESS|SHUTDOWN|RELOAD)\b).* ON \*\.\*", re.I)
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]{0,62}$")


def privilege_warning(conn: sa.Connection, backend: str, name: str) -> str | None:
    """One line when the connection is a superuser or can read server files, else None."""
    if backend == "postgresql":
        row = conn.exec_driver_sql(
            "SELECT r.rolsuper, " + ", ".join(f"pg_has_role(current_user, '{role}', 'MEMBER')" for role in _PG_WIDE_ROLES)
            + " FROM pg_roles r WHERE r.rolname = current_user").first()
        if row is None:
            return None
        if row[0]:
            return (f"{name}: connected as a PostgreSQL superuser; run `ambiguity-checker role` for the "
                    "statements that create a read-only role")
        wide = [role for role, member in zip(_PG_WIDE_ROLES, row[1:]) if member]
        if wide:
            return f"{name}: the role is a member of {', '.join(wide)}; a read-only role needs none of them"
        return None
    if backend == "mysql":
        grants = [str(r[0]) for r in conn.exec_driver_sql("SHOW GRANTS").fetchall()]
        grant = next((g for g in grants if _MYSQL_WIDE.search(g)), None)
        if grant:
            what = "ALL PRIVILEGES" if "ALL PRIVILEGES" in grant.upper() else "FILE/SUPER-level privileges"
            return (f"{name}: connected with {what} on *.* (the server's files and sessions are reachable); "
                    "run `ambiguity-checker role` for a SELECT-only account")
    return None


def _checked(identifier: str, what: str) -> str:
    if not _IDENTIFIER.match(identifier):
        raise ValueError(f"{what} {identifier!r} is not a plain identifier (letters, digits, _)")
    return identifier


def role_statements(backend: str, database: str, role: str = "checker_ro", schema: str = "public") -> list[str]:
    """SQL that creates a login role that can only read `database` (the password is set separately)."""
    if backend == "sqlite":
        return ["-- SQLite has no roles: the checker opens the file with mode=ro and PRAGMA query_only;",
                "-- make the file read-only for the account that runs the checker (chmod a-w FILE)."]
    role, database = _checked(role, "role"), _checked(database, "database")
    if backend == "postgresql":
        schema = _checked(schema, "schema")
        return [
            f"CREATE ROLE {role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS;",
            f"\\password {role}",
            f"GRANT CONNECT ON DATABASE {database} TO {role};",
            f"GRANT USAGE ON SCHEMA {schema} TO {role};",
            f"GRANT SELECT ON ALL TABLES IN SCHEMA {schema} TO {role};",
            f"ALTER DEFAULT PRIVILEGES IN SCHEMA {schema} GRANT SELECT ON TABLES TO {role};",
            f"ALTER ROLE {role} SET default_transaction_read_only = on;",
            f"ALTER ROLE {role} SET statement_timeout = '30s';",
            f"ALTER ROLE {role} CONNECTION LIMIT 16;",
            f"-- or, for every database of the server: GRANT pg_read_all_data TO {role};",
            f"-- never: GRANT pg_read_server_files / pg_write_server_files / pg_signal_backend TO {role};",
        ]
    if backend == "mysql":
        return [
            f"CREATE USER '{role}'@'%' IDENTIFIED BY 'choose-a-password' WITH MAX_USER_CONNECTIONS 16;",
            f"GRANT SELECT ON `{database}`.* TO '{role}'@'%';",
            f"-- never: GRANT FILE, PROCESS, SUPER ON *.* TO '{role}'@'%';",
        ]
    raise ValueError(f"no role statements for {backend!r}")

