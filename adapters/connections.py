"""Named connections: `--db name=URL` parsing, backend to sqlglot dialect, engine creation.

A connection's URL may hold a password; only `display_url` (credentials hidden, `adapters.urls`) ever
leaves this module. Engines are bounded: connect and read timeouts on every driver, a few pooled
connections per engine (and `adapters.sessions` caps them per server in the process and resets each
one on return).
"""
from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from adapters import urls
from adapters.errors import ConfigError

# SQLAlchemy backend name -> (sqlglot dialect, default connection name)
BACKENDS: dict[str, tuple[str, str]] = {
    "sqlite": ("sqlite", "sqlite"),
    "postgresql": ("postgres", "postgres"),
    "mysql": ("mysql", "mysql"),
    "mariadb": ("mysql", "mysql"),
}
CONNECT_TIMEOUT_S = 3
READ_GRACE_S = 5.0         # a driver read waits at most the statement's time limit plus this
POOL_SIZE = 8              # connections per URL in the process (one engine per URL, shared)
_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$")  # ('41=sqlite:///...' is a label too)
# query options each backend's driver understands (anything else is a one-line error, not a traceback)
QUERY_OPTIONS: dict[str, frozenset[str]] = {
    "postgresql": frozenset((
        "sslmode", "sslcert", "sslkey", "sslrootcert", "sslcrl", "sslpassword", "sslcompression", "sslsni",
        "connect_timeout", "application_name", "options", "target_session_attrs", "password", "passfile",
        "host", "hostaddr", "port", "user", "dbname", "keepalives", "keepalives_idle", "keepalives_interval",
        "keepalives_count", "tcp_user_timeout", "gssencmode", "krbsrvname", "channel_binding", "service",
        "client_encoding", "require_auth", "load_balance_hosts",
    )),
    "mysql": frozenset((
        "charset", "ssl_ca", "ssl_cert", "ssl_key", "ssl_disabled", "ssl_verify_cert", "ssl_verify_identity",
        "ssl_check_hostname", "unix_socket", "connect_timeout", "read_timeout", "write_timeout", "password",
        "passwd", "binary_prefix", "program_name", "server_public_key", "auth_plugin_map", "autocommit",
    )),
    "sqlite": frozenset(("mode", "uri", "cache", "immutable", "nolock", "vfs", "timeout", "check_same_thread")),
}


def scrub(text: str, url: URL) -> str:
    """Remove the URL's credentials from any text (driver messages sometimes echo the DSN)."""
    return urls.scrub(text, urls.secrets_of(url))


@dataclass(frozen=True)
class DatabaseConfig:
    """One configured connection: a name the user sees, and the URL it uses."""

    name: str
    url: URL = field(repr=False)

    @property
    def backend(self) -> str:
        backend = self.url.get_backend_name()
        return "mysql" if backend == "mariadb" else backend

    @property
    def dialect(self) -> str:
        return BACKENDS[self.backend][0]

    @property
    def display_url(self) -> str:
        return urls.display_url(self.url)

    def describe(self) -> dict[str, str]:
        return {"name": self.name, "backend": self.backend, "dialect": self.dialect, "url": self.display_url}


def parse_url(text: str) -> URL:
    """A checked URL; every problem is a one-line ConfigError that never echoes a credential."""
    try:
        url = urls.repair_userinfo(text, make_url(text.strip()))
        url.port  # noqa: B018 - SQLAlchemy parses the port lazily and raises ValueError for "abc"
    except (ArgumentError, ValueError):
        # the text itself may hold a password: never echo it back
        raise ConfigError("not a database URL (expected e.g. sqlite:///file.db or postgresql+psycopg://user@host/db; "
                          "check the port and brackets around an IPv6 host)") from None
    backend = url.get_backend_name()
    if backend not in BACKENDS:
        raise ConfigError(f"unsupported backend {backend!r}: use sqlite, postgresql or mysql/mariadb")
    family = "mysql" if backend == "mariadb" else backend
    unknown = sorted(k for k in url.query if k not in QUERY_OPTIONS[family])
    if unknown:
        raise ConfigError(f"unknown option {unknown[0]!r} in the {family} URL")
    if backend == "postgresql" and url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    if backend in ("mysql", "mariadb") and "+" not in url.drivername:
        url = url.set(drivername=f"{backend}+pymysql")
    try:
        url.get_dialect()
    except NoSuchModuleError:
        raise ConfigError(f"unknown driver {url.drivername!r}: use e.g. postgresql+psycopg, mysql+pymysql or sqlite") from None
    except ImportError as err:
        raise ConfigError(f"driver {url.drivername!r} is not installed ({err.name or err})") from None
    return url


def parse_db_option(value: str) -> DatabaseConfig:
    """`name=URL` or a bare URL (the name then defaults to the backend)."""
    name, sep, rest = value.partition("=")
    if sep and _NAME_RE.match(name) and "://" in rest:
        url = parse_url(rest)
        return DatabaseConfig(name=name, url=url)
    if sep and "://" in rest and "://" not in name and "@" not in name and ":" not in name:
        # a label before a URL: say what is wrong with the label, not with the URL
        raise ConfigError("not a database label before '=': use up to 40 letters, digits, '_' or '-' "
                          "(e.g. --db shop=sqlite:///shop.db)")
    url = parse_url(value)
    return DatabaseConfig(name=BACKENDS[url.get_backend_name()][1], url=url)


def parse_db_options(values: list[str] | tuple[str, ...]) -> list[DatabaseConfig]:
    """Parse several `--db` values; repeated default names get a numeric suffix."""
    configs: list[DatabaseConfig] = []
    seen: set[str] = set()
    for value in values:
        config = parse_db_option(value)
        name, n = config.name, 2
        while name in seen:
            name, n = f"{config.name}{n}", n + 1
        seen.add(name)
        configs.append(DatabaseConfig(name=name, url=config.url))
    return configs


def sqlite_readonly_url(url: URL) -> URL:
    """A file SQLite URL opened through the URI form with mode=ro (plain mode=ro is ignored)."""
    database = url.database or ""
    if database in ("", ":memory:") or database.startswith("file:"):
        return url
    path = Path(database).expanduser().resolve()
    # a URI filename: '#' and '?' in the path would start a fragment or the options (and lose mode=ro)
    return URL.create("sqlite", database=f"file:{quote(str(path), safe='/')}", query={"mode": "ro", "uri": "true"})


_shared: dict[tuple[str, float], Engine] = {}
_shared_lock = threading.Lock()


def shared_engine(config: DatabaseConfig, time_limit_s: float = 5.0) -> Engine:
    """The process's one engine for this URL (and time limit): every Database on it shares its pool, so
    the connections it opens stay at `POOL_SIZE` however many checks or page sessions use it."""
    key = (config.url.render_as_string(hide_password=False), time_limit_s)
    with _shared_lock:
        engine = _shared.get(key)
        if engine is None:
            engine = _shared[key] = create_engine(config, time_limit_s=time_limit_s)
        return engine


def create_engine(config: DatabaseConfig, *, read_only: bool = True, pool_size: int = POOL_SIZE,
                  time_limit_s: float = 5.0) -> Engine:
    """An engine for checking: read-only where the URL allows it, connect and read timeouts, a small pool
    that never grows past `pool_size`, every connection reset when it goes back to the pool."""
    from adapters.pymysql_tls import share_preferred_context
    from adapters.sessions import install_ping, install_reset

    url = config.url
    seconds = max(1, int(time_limit_s + READ_GRACE_S))
    kwargs: dict[str, Any] = {"pool_size": pool_size, "max_overflow": 0,
                              "pool_timeout": seconds}
    connect_args: dict[str, Any] = {}
    if config.backend == "sqlite":
        if read_only:
            url = sqlite_readonly_url(url)
        connect_args["check_same_thread"] = False
        connect_args["timeout"] = time_limit_s  # the busy timeout: a locked file waits at most this
        kwargs["poolclass"] = sa.pool.QueuePool
    elif config.backend == "postgresql":
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        connect_args["application_name"] = "ambiguity-checker"
        # a session default for what runs outside Database.run (introspection): SET LOCAL overrides it
        ms = int(time_limit_s * 1000)
        connect_args["options"] = f"-c statement_timeout={ms} -c lock_timeout={ms} -c idle_in_transaction_session_timeout={seconds * 1000}"
    else:
        connect_args["connect_timeout"] = CONNECT_TIMEOUT_S
        connect_args["read_timeout"] = seconds
        connect_args["write_timeout"] = seconds
        connect_args["charset"] = "utf8mb4"
    engine = sa.create_engine(url, connect_args=connect_args, **kwargs)
    install_reset(engine, config.backend, time_limit_s)
    install_ping(engine)  # the pre-ping, for a connection idle in the pool for a while only
    if config.backend == "mysql":
        share_preferred_context(engine)
    return engine
