"""PyMySQL's default TLS context, built once per process instead of once per connection.

With no ssl option in the URL, PyMySQL 1.2 connects in "preferred" mode: TLS when the server offers
it, plain otherwise, the server's certificate not verified. It builds that context on every connection
with ``ssl.create_default_context()``, which loads the system's CA certificates: 146 ms of CPU a
connection (cProfile, load 12), holding the GIL, for a context that verifies nothing. A check on a new
process opens up to `POOL_SIZE` MariaDB connections. The context built for the first connection is
reused by the later ones (an ``SSLContext`` is meant to be shared); its settings are PyMySQL's own. A
URL with ssl options is left to PyMySQL as it is.
"""
from __future__ import annotations

import threading
from functools import cache
from typing import Any

import sqlalchemy as sa
from sqlalchemy import event

_lock = threading.Lock()
_preferred: list[Any] = []   # the one context of preferred mode, once built


@cache
def _connection_class() -> type:
    import pymysql.connections

    class Connection(pymysql.connections.Connection):
        def _create_ssl_ctx(self, sslp: Any) -> Any:
            if sslp != {}:   # a context or options the URL gave: PyMySQL's own handling
                return super()._create_ssl_ctx(sslp)
            with _lock:
                if not _preferred:
                    _preferred.append(super()._create_ssl_ctx(sslp))
                return _preferred[0]

    return Connection


def share_preferred_context(engine: sa.Engine) -> None:
    """Connect `engine`'s PyMySQL connections through the class that reuses the preferred-mode context."""
    if engine.dialect.driver != "pymysql":
        return
    connection = _connection_class()

    @event.listens_for(engine, "do_connect")
    def _connect(dialect: Any, record: Any, cargs: Any, cparams: dict[str, Any]) -> Any:
        return connection(*cargs, **cparams)
