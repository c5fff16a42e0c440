"""The demo orders database of ambiguity-checker: schema, deterministic generator, bulk loaders.

One call makes any SQLite, PostgreSQL or MySQL/MariaDB database hold the same rows::

    from seed_db import seed_database, table_checksums
    report = seed_database("sqlite:///.checker/demo.sqlite", scale=1, seed=42)
    table_checksums("sqlite:///.checker/demo.sqlite")   # equal on every engine for (seed, scale)

The data carries the ambiguities the checker demonstrates: "top-selling product" is MacBook Pro by
revenue, USB-C Cable by units and Phone Case by distinct orders; three customers contain "Acme";
orders sit in five currencies and seven time zones; a 4-4-5 fiscal calendar differs from calendar
months. Row counts per scale are in ``seed_db.generate``. Imports only stdlib, SQLAlchemy, drivers.
"""

from .checksums import table_checksums
from .errors import SeedError
from .generate import (
    CUSTOMERS_PER_SCALE,
    ORDER_ITEMS_PER_SCALE,
    ORDERS_PER_SCALE,
    Dataset,
    expected_counts,
)
from .reference import DATA_START, LAST_DAY
from .schema import SCHEMA_VERSION, SEED_TABLES, build_metadata
from .seed import SeedReport, seed_database

__all__ = [
    "CUSTOMERS_PER_SCALE",
    "DATA_START",
    "LAST_DAY",
    "ORDERS_PER_SCALE",
    "ORDER_ITEMS_PER_SCALE",
    "SCHEMA_VERSION",
    "SEED_TABLES",
    "Dataset",
    "SeedError",
    "SeedReport",
    "build_metadata",
    "expected_counts",
    "seed_database",
    "table_checksums",
]
