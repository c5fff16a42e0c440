"""The generated databases of ambiguity-checker: schemas, deterministic generators, bulk loaders.

Two schemas: the demo orders database (``schema="demo"``, the default) and a subscription history
schema (``schema="history"``: validity tables, sentinels, statuses, soft deletes; ``seed_db.history``).

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
from .history import CURRENT_SENTINEL, HISTORY_LAST_DAY, HistoryDataset
from .history_schema import HISTORY_TABLES, build_history_metadata
from .reference import DATA_START, LAST_DAY
from .schema import SCHEMA_VERSION, SEED_TABLES, build_metadata
from .schemas import SCHEMAS
from .seed import SeedReport, seed_database

__all__ = [
    "CURRENT_SENTINEL",
    "CUSTOMERS_PER_SCALE",
    "DATA_START",
    "HISTORY_LAST_DAY",
    "HISTORY_TABLES",
    "LAST_DAY",
    "ORDERS_PER_SCALE",
    "ORDER_ITEMS_PER_SCALE",
    "SCHEMAS",
    "SCHEMA_VERSION",
    "SEED_TABLES",
    "Dataset",
    "HistoryDataset",
    "SeedError",
    "SeedReport",
    "build_history_metadata",
    "build_metadata",
    "expected_counts",
    "seed_database",
    "table_checksums",
]
