"""``seed_database``: make a database hold exactly one generated schema for (seed, scale), cheaply if it already does."""

from __future__ import annotations

from dataclasses import dataclass
from time import perf_counter

import sqlalchemy as sa
from sqlalchemy.engine import URL, Engine

from adapters import urls

from .connect import backend_of, display_url, ensure_database, make_engine, parse_url
from .errors import SeedError, translate_errors
from .load import load_dataset
from .schemas import SeedSource, schema_named


@dataclass
class SeedReport:
    """What one ``seed_database`` call did. ``rows`` is rows per table (expected counts when skipped)."""

    url_display: str  # password hidden
    backend: str  # 'sqlite', 'postgresql' or 'mysql' (MariaDB included)
    scale: int
    seed: int
    rows: dict[str, int]
    seconds: float
    skipped: bool


def seed_database(url: str | URL, *, scale: int = 1, seed: int = 42, force: bool = False,
                  schema: str = "demo") -> SeedReport:
    """Load the generated ``schema`` ("demo" orders or "history" subscriptions) into ``url``.

    Creates the database if needed. Idempotent: when ``seed_info`` already records this (seed,
    scale, schema version) and every table has its expected row count, nothing is written and
    ``skipped`` is True (unless ``force``). Otherwise the tables are dropped and rebuilt. Raises
    ``SeedError`` (one line, no password).
    """
    target = parse_url(url)
    shown = display_url(target)
    backend = backend_of(target)
    try:
        dataset = schema_named(schema).dataset(seed, scale)
    except SeedError as exc:
        raise SeedError(str(exc), url_display=shown) from None
    except ValueError as exc:
        raise SeedError(str(exc), url_display=shown) from None
    expected = dataset.expected_counts()
    started = perf_counter()
    with translate_errors(f"cannot seed {shown}", urls.secrets_of(target), shown):
        ensure_database(target)
        engine = make_engine(target)
        try:
            skipped = not force and is_seeded(engine, dataset, expected)
            rows = dict(expected) if skipped else load_dataset(engine, dataset)
        finally:
            engine.dispose()
        if rows != expected:
            raise SeedError(f"loaded row counts {rows} differ from expected {expected}")
    return SeedReport(shown, backend, scale, seed, rows, perf_counter() - started, skipped)


def is_seeded(engine: Engine, dataset: SeedSource, expected: dict[str, int]) -> bool:
    """True if ``seed_info`` matches (seed, scale, schema version) and every table count is as expected."""
    tables = tuple(dataset.metadata().tables)
    with engine.connect() as conn:
        present = set(sa.inspect(conn).get_table_names())
        if not set(tables) <= present:
            return False
        info = sa.table("seed_info", sa.column("seed"), sa.column("scale"), sa.column("schema_version"))
        try:
            rows = [tuple(r) for r in conn.execute(sa.select(info.c.seed, info.c.scale, info.c.schema_version))]
        except sa.exc.DBAPIError:  # an older, differently shaped seed_info: rebuild
            return False
        if rows != [(dataset.seed, dataset.scale, dataset.schema_version)]:
            return False
        for name in tables:
            count = conn.execute(sa.select(sa.func.count()).select_from(sa.table(name))).scalar_one()
            if count != expected[name]:
                return False
    return True
