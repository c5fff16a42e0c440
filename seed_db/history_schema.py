"""SQLAlchemy Core schema of the subscription history database (``seed_database(..., schema="history")``).

It holds what "which records count" questions are about, on a schema unrelated to the demo's:

* validity tables: ``subscriptions`` (``started_on`` .. ``ended_on``, NULL = the current period) and
  ``plan_prices`` (``valid_from`` .. ``valid_to``, both inclusive, ``'9999-12-31'`` = the current price);
* status-like columns: ``subscriptions.status`` (active, paused, cancelled, switched) and
  ``invoices.status`` (paid, failed, refunded);
* a soft delete: ``customers.deleted_at`` (NULL = not deleted);
* a large fact table with a timestamp: ``invoices.issued_at``, for series at scale.

``seed_info`` is the same load-completed marker as the demo's, with its own schema version.
"""

from __future__ import annotations

import sqlalchemy as sa

from .schema import MYSQL_TABLE_OPTIONS, NAMING_CONVENTION, add_seed_info, id_column

HISTORY_SCHEMA_VERSION = 101

HISTORY_TABLES: tuple[str, ...] = ("plans", "plan_prices", "customers", "subscriptions", "invoices", "seed_info")


def build_history_metadata() -> sa.MetaData:
    """A new MetaData holding the history tables, with foreign-key and timestamp indexes."""
    md = sa.MetaData(naming_convention=dict(NAMING_CONVENTION))
    sa.Table(
        "plans", md, id_column(),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("billing_interval", sa.String(8), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "plan_prices", md, id_column(),
        sa.Column("plan_id", sa.Integer, sa.ForeignKey("plans.id"), nullable=False, index=True),
        sa.Column("price", sa.Numeric(10, 2), nullable=False),
        sa.Column("valid_from", sa.Date, nullable=False),
        sa.Column("valid_to", sa.Date, nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "customers", md, id_column(),
        sa.Column("name", sa.String(120), nullable=False),
        sa.Column("email", sa.String(120), nullable=False),
        sa.Column("country", sa.CHAR(2), nullable=False),
        sa.Column("signed_up_at", sa.DateTime, nullable=False),
        sa.Column("deleted_at", sa.DateTime, nullable=True),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "subscriptions", md, id_column(),
        sa.Column("customer_id", sa.Integer, sa.ForeignKey("customers.id"), nullable=False, index=True),
        sa.Column("plan_id", sa.Integer, sa.ForeignKey("plans.id"), nullable=False, index=True),
        sa.Column("started_on", sa.Date, nullable=False),
        sa.Column("ended_on", sa.Date, nullable=True),
        sa.Column("status", sa.String(16), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    sa.Table(
        "invoices", md, id_column(),
        sa.Column("subscription_id", sa.Integer, sa.ForeignKey("subscriptions.id"), nullable=False, index=True),
        sa.Column("issued_at", sa.DateTime, nullable=False, index=True),
        sa.Column("amount", sa.Numeric(10, 2), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        **MYSQL_TABLE_OPTIONS,
    )
    add_seed_info(md)
    assert tuple(md.tables) == HISTORY_TABLES, "HISTORY_TABLES must list every table in creation order"
    return md
