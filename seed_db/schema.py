"""SQLAlchemy Core schema of the demo orders database.

The table and column names are a contract: archetype tests and the ambiguous-column repair pass
are written against them. Every table has an ``id``-style primary key on purpose, so a join of any
two tables has an ambiguous ``id`` column. ``build_metadata()`` returns a fresh ``MetaData`` each
call (no shared mutable module state); ``SEED_TABLES`` is the creation order, parents first.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import sqlalchemy as sa

SCHEMA_VERSION = 1

SEED_TABLES: tuple[str, ...] = (
    "countries",
    "currencies",
    "exchange_rates",
    "stores",
    "categories",
    "products",
    "customers",
    "orders",
    "order_items",
    "fiscal_periods",
    "seed_info",
)

# Named constraints let the loaders add foreign keys after a bulk load (ALTER TABLE ... ADD CONSTRAINT).
NAMING_CONVENTION = MappingProxyType({
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
})

# MySQL/MariaDB only: InnoDB for foreign keys, utf8mb4 so names round-trip whatever the server default.
MYSQL_TABLE_OPTIONS: Mapping[str, Any] = MappingProxyType({"mysql_engine": "InnoDB", "mysql_charset": "utf8mb4"})


def id_column() -> sa.Column:
    # autoincrement=False: ids are explicit and deterministic; no SERIAL/AUTO_INCREMENT to drift.
    return sa.Column("id", sa.Integer, primary_key=True, autoincrement=False)


def build_metadata() -> sa.MetaData:
    """Return a new MetaData holding all seed tables, with FK indexes and ``orders.ordered_at`` indexed."""
    md = sa.MetaData(naming_convention=dict(NAMING_CONVENTION))
    sa.Table(
        "countries", md, id_column(),
        sa.Column("code", sa.String(2), nullable=False),
        sa.Column("name", sa.String(80), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "currencies", md,
        sa.Column("code", sa.CHAR(3), primary_key=True),
        sa.Column("name", sa.String(40), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "exchange_rates", md, id_column(),
        sa.Column("currency_code", sa.CHAR(3), sa.ForeignKey("currencies.code"), nullable=False),
        sa.Column("rate_date", sa.Date, nullable=False),
        sa.Column("usd_per_unit", sa.Numeric(14, 6), nullable=False),
        sa.UniqueConstraint("currency_code", "rate_date"),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "stores", md, id_column(),
        sa.Column("name", sa.String(80), nullable=False),
        sa.Column("country_id", sa.Integer, sa.ForeignKey("countries.id"), nullable=False, index=True),
        sa.Column("time_zone", sa.String(64), nullable=False),
        sa.Column("currency_code", sa.CHAR(3), sa.ForeignKey("currencies.code"), nullable=False, index=True),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "categories", md, id_column(),
        sa.Column("name", sa.String(60), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "products", md, id_column(),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("category_id", sa.Integer, sa.ForeignKey("categories.id"), nullable=False, index=True),
        sa.Column("list_price", sa.Numeric(10, 2), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "customers", md, id_column(),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("email", sa.String(120), nullable=False),
        sa.Column("country_id", sa.Integer, sa.ForeignKey("countries.id"), nullable=False, index=True),
        sa.Column("created_at", sa.DateTime, nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "orders", md, id_column(),
        sa.Column("customer_id", sa.Integer, sa.ForeignKey("customers.id"), nullable=False, index=True),
        sa.Column("store_id", sa.Integer, sa.ForeignKey("stores.id"), nullable=False, index=True),
        sa.Column("ordered_at", sa.DateTime, nullable=False, index=True),
        sa.Column("currency_code", sa.CHAR(3), sa.ForeignKey("currencies.code"), nullable=False, index=True),
        sa.Column("status", sa.String(16), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "order_items", md, id_column(),
        sa.Column("order_id", sa.Integer, sa.ForeignKey("orders.id"), nullable=False, index=True),
        sa.Column("product_id", sa.Integer, sa.ForeignKey("products.id"), nullable=False, index=True),
        sa.Column("unit_price", sa.Numeric(10, 2), nullable=False),
        sa.Column("quantity", sa.Integer, nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "fiscal_periods", md, id_column(),
        sa.Column("fiscal_year", sa.Integer, nullable=False),
        sa.Column("fiscal_quarter", sa.Integer, nullable=False),
        sa.Column("fiscal_period", sa.Integer, nullable=False),
        sa.Column("period_name", sa.String(20), nullable=False),
        sa.Column("start_date", sa.Date, nullable=False),
        sa.Column("end_date", sa.Date, nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    add_seed_info(md)
    assert tuple(md.tables) == SEED_TABLES, "SEED_TABLES must list every table in creation order"
    return md


def add_seed_info(md: sa.MetaData) -> sa.Table:
    """The load-completed marker every generated schema ends with: one row of (seed, scale, schema_version)."""
    return sa.Table(
        "seed_info", md, id_column(),
        sa.Column("seed", sa.Integer, nullable=False),
        sa.Column("scale", sa.Integer, nullable=False),
        sa.Column("schema_version", sa.Integer, nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )


def primary_key_columns(table: sa.Table) -> list[str]:
    """Names of the table's primary-key columns (the ORDER BY of checksums and counts)."""
    return [c.name for c in table.primary_key.columns]
