"""Schema profiles kept on disk under CHECKER_HOME, so a check reuses the profile the last one built.

A profile (introspection, row counts, sampled values, time ranges, fiscal calendar, whatever the
archetypes add) costs seconds on a large schema; reading it back costs milliseconds. An entry is
reused only while all of these still hold:

* the same connection: the file name is a digest of the URL's identity (backend, host, port,
  database or resolved SQLite path, user, query options) with no password in it, plus a digest of
  the overrides file's content;
* the same code: a digest of the sources that build a profile (``archetypes/``, ``adapters/schema.py``,
  ``adapters/column_types.py``, ``adapters/catalog.py``, this module) and the package version, so any
  code change rebuilds;
* the same schema and data: the catalog snapshot (``adapters.catalog``: one or two catalog queries)
  has the same structure digest and no table's change marker moved.

Format: pickle (two records: a small header checked first, then the profile), not JSON. The
profile is a graph of dataclasses that the archetypes keep extending; pickle follows every field
added to them without (de)serialisation hooks in ``archetypes/profile.py``, and the code digest
makes a class change a cache miss instead of a wrong load. Any unreadable entry is a miss. The
directory is created 0700 and files 0600, written to a temporary name and renamed into place (a
page and a CLI call can write the same entry at once). The profile's own memo (``cache``) is not kept.
"""
from __future__ import annotations

import copy
import hashlib
import os
import pickle
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from pathlib import Path
from typing import Any

from adapters import Database
from adapters.catalog import CatalogSnapshot
from checker_app.settings import home_dir

STORE_VERSION = 1
_PASSWORD_KEYS = {"password", "passwd", "pwd", "pass", "secret", "token", "sslpassword"}
_PACKAGE = "ambiguity-checker"


@dataclass(frozen=True)
class StoredProfile:
    """What a check gets back: the schema, the profile, when it was built, and why it was (re)built."""

    schema: Any            # adapters.SchemaInfo
    profile: Any           # archetypes.SchemaProfile
    built_at: float        # time.time() of the build
    catalog: CatalogSnapshot
    reused: bool           # read from disk rather than built in this call
    reason: str = ""       # why it was built: "no entry", "refresh", "code changed", "structure", tables...

    @property
    def age_s(self) -> float:
        return max(0.0, time.time() - self.built_at)


def store_dir() -> Path:
    """CHECKER_PROFILE_DIR, or ``profiles`` under CHECKER_HOME."""
    return Path(os.environ.get("CHECKER_PROFILE_DIR") or home_dir() / "profiles")


def identity(db: Database) -> str:
    """The connection's identity without secrets (the password and any password-like option dropped)."""
    url = db.config.url
    database = url.database or ""
    if db.backend == "sqlite" and database not in ("", ":memory:") and not database.startswith("file:"):
        database = str(Path(database).expanduser().resolve())
    query = sorted((k, str(v)) for k, v in url.query.items() if k.lower() not in _PASSWORD_KEYS)
    return "\x1f".join([db.backend, url.host or "", str(url.port or ""), database, url.username or "", repr(query)])


def entry_path(db: Database, overrides: Path | None) -> Path:
    """The cache file for ``db`` (and the overrides file's content, when there is one)."""
    digest = hashlib.sha256(identity(db).encode()).hexdigest()[:24]
    extra = ""
    if overrides is not None:
        extra = "-" + hashlib.sha256(Path(overrides).read_bytes()).hexdigest()[:12]
    return store_dir() / f"{db.backend}-{digest}{extra}.pickle"


@cache
def code_digest() -> str:
    """Digest of the package version and every source file that shapes a profile."""
    root = Path(__file__).resolve().parent.parent
    files = sorted((root / "archetypes").rglob("*.py"))
    files += [root / "adapters" / name for name in ("schema.py", "column_types.py", "catalog.py")]
    files.append(Path(__file__).resolve())
    digest = hashlib.sha256(f"{STORE_VERSION}:{_version()}".encode())
    for path in files:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _version() -> str:
    try:
        return metadata.version(_PACKAGE)
    except metadata.PackageNotFoundError:
        return "0"


def read(path: Path, catalog: CatalogSnapshot) -> tuple[dict[str, Any] | None, str]:
    """The stored entry at ``path`` if it still holds for ``catalog``, else None and why not."""
    try:
        with path.open("rb") as handle:
            header = pickle.load(handle)
            if not isinstance(header, dict) or header.get("store") != STORE_VERSION:
                return None, "store format changed"
            if header.get("code") != code_digest():
                return None, "code changed"
            drift = header["catalog"].drifted(catalog)
            if drift:
                return None, "changed: " + ", ".join(drift[:5])
            payload = pickle.load(handle)
    except FileNotFoundError:
        return None, "no entry"
    except Exception as err:  # noqa: BLE001 - a torn, foreign or stale file is a cache miss
        return None, f"unreadable entry ({type(err).__name__})"
    return {**header, **payload}, ""


def write(path: Path, schema: Any, profile: Any, catalog: CatalogSnapshot, built_at: float) -> None:
    """Store an entry atomically; a failure to write only costs the next call a rebuild."""
    kept = copy.copy(profile)
    kept.cache = {}
    header = {"store": STORE_VERSION, "code": code_digest(), "catalog": catalog, "built_at": built_at}
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        handle, temp = tempfile.mkstemp(dir=path.parent, prefix=".profile-", suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                pickle.dump(header, out, protocol=pickle.HIGHEST_PROTOCOL)
                pickle.dump({"schema": schema, "profile": kept}, out, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temp, path)
        except BaseException:
            Path(temp).unlink(missing_ok=True)
            raise
    except (OSError, pickle.PicklingError, TypeError, AttributeError):
        pass  # e.g. a read-only CHECKER_HOME or an unpicklable field: the profile still works in memory
