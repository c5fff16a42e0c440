"""Found trying a marketplace's schema the project never saw (sellers named by their 'shop_name'): 'how many
listings does each seller have' counted every listing, marked clear, 'each seller' unread and unsaid, because a
table named by a '<word>_name' column (or by a 'username') was no table of names; and where a table has no name column at all, a
breakdown by it is now said unread. A commission 'rate' column made 'refund rate' a sum of refunded money."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _market(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE sellers (seller_id INTEGER PRIMARY KEY, shop_name VARCHAR(30) NOT NULL, "
                             "country VARCHAR(2) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE buyers (buyer_id INTEGER PRIMARY KEY, username VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE vendors (vendor_id INTEGER PRIMARY KEY, country VARCHAR(2) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE listings (listing_id INTEGER PRIMARY KEY, seller_id INTEGER NOT NULL "
                             "REFERENCES sellers(seller_id), vendor_id INTEGER NOT NULL REFERENCES vendors(vendor_id), "
                             "price NUMERIC(8,2) NOT NULL, listed_at DATE NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE commission_rates (tier VARCHAR(5) PRIMARY KEY, rate NUMERIC(4,3) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE purchases (purchase_id INTEGER PRIMARY KEY, listing_id INTEGER NOT NULL "
                             "REFERENCES listings(listing_id), buyer_id INTEGER NOT NULL REFERENCES buyers(buyer_id), "
                             "purchased_at TIMESTAMP NOT NULL, status VARCHAR(10) "
                             "NOT NULL, amount NUMERIC(8,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO commission_rates VALUES ('basic', 0.08), ('pro', 0.05)")
        conn.exec_driver_sql("INSERT INTO buyers VALUES (1, 'knitfan'), (2, 'potterhead')")
        conn.exec_driver_sql("INSERT INTO purchases VALUES (1, 1, 1, '2024-02-01 10:00:00', 'completed', 10), "
                             "(2, 2, 2, '2024-02-02 10:00:00', 'refunded', 20), "
                             "(3, 3, 2, '2024-02-03 10:00:00', 'completed', 30), "
                             "(4, 3, 1, '2024-02-04 10:00:00', 'completed', 30)")
        conn.exec_driver_sql("INSERT INTO sellers VALUES (1, 'Copper & Clay', 'US'), (2, 'Quiet Loom', 'DE')")
        conn.exec_driver_sql("INSERT INTO vendors VALUES (1, 'US'), (2, 'DE')")
        conn.exec_driver_sql("INSERT INTO listings VALUES (1, 1, 1, 10, '2024-01-02'), (2, 1, 2, 20, '2024-01-03'), "
                             "(3, 1, 2, 30, '2024-01-04')")
    engine.dispose()


@pytest.fixture
def market(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "market.sqlite", _market) as connected:
        yield connected


def test_a_table_named_by_its_shop_name_is_grouped_by(market: Connected) -> None:
    answers = complete_answers(market, "How many listings does each seller have?")
    assert answers and all("Copper & Clay', 3" in a and "Quiet Loom', 0" in a for a in answers), answers


def test_a_breakdown_by_a_table_of_no_names_is_said_unread(market: Connected) -> None:
    analysis = market.analyse("How many listings does each vendor have?")
    assert not analysis.understood.complete, analysis.understood
    assert "vendor" in [i.text for i in analysis.understood.ignored], analysis.understood


def test_a_state_before_rate_is_a_share_beside_a_rate_column(market: Connected) -> None:
    answers = complete_answers(market, "What is the refund rate?")
    assert answers and all("0.25" in a for a in answers), answers  # one purchase of four refunded


def test_a_take_rate_is_said_unread(market: Connected) -> None:
    analysis = market.analyse("What is our take rate?")
    assert "take rate" in [i.text for i in analysis.understood.ignored], analysis.understood


def test_a_table_named_by_a_username_is_ranked(market: Connected) -> None:
    analysis = market.analyse("Which buyer spent the most?")
    assert analysis.understood.complete and analysis.interpretations, analysis.understood
    assert all("per buyer" in i.explanation for i in analysis.interpretations), analysis.interpretations
