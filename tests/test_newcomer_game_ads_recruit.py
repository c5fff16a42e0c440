"""Found trying a mobile game's, an ad agency's and a recruiting team's schemas the project never saw: 'top players
by spend' and 'total revenue' summed the items bought (the amount column never named), 'which item sold the most'
was one grand total ('item sold' read as the units' name), 'players who made more than 5 purchases' kept those who
spent more than 5 money, 'which account manager's clients spent the most' ranked impressions, 'which candidate
source had the most withdrawn applications' ranked candidates, and 'how many open jobs does Sales have' summed a
salary band over every department, each with every word said read."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _game(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE players (player_id INTEGER PRIMARY KEY, username VARCHAR(20) NOT NULL, "
                             "country VARCHAR(20) NOT NULL, platform VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE store_items (item_id INTEGER PRIMARY KEY, item_name VARCHAR(20) NOT NULL, "
                             "rarity VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE iap_transactions (txn_id INTEGER PRIMARY KEY, player_id INTEGER NOT NULL "
                             "REFERENCES players(player_id), item_id INTEGER NOT NULL REFERENCES store_items(item_id), "
                             "purchased_at TIMESTAMP NOT NULL, quantity INTEGER NOT NULL, amount NUMERIC(10,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO players VALUES (1, 'FrostKnight', 'Japan', 'iOS'), (2, 'LuckyNinja', "
                             "'Brazil', 'Android'), (3, 'QuietOwl', 'Japan', 'iOS')")
        conn.exec_driver_sql("INSERT INTO store_items VALUES (1, 'Gem Pack', 'common'), (2, 'Golden Armor', 'epic')")
        # FrostKnight: 2 purchases of 5 gem packs each (10 units, 4.00); LuckyNinja: 1 armor (1 unit, 90.00);
        # QuietOwl: 1 gem pack (1 unit, 2.00). Units name FrostKnight and the gem packs, money LuckyNinja and the
        # armor; more than 1 purchase only FrostKnight
        conn.exec_driver_sql("INSERT INTO iap_transactions VALUES (1, 1, 1, '2025-05-01 10:00:00', 5, 2.00), "
                             "(2, 1, 1, '2025-05-02 10:00:00', 5, 2.00), (3, 2, 2, '2025-05-03 10:00:00', 1, 90.00), "
                             "(4, 3, 1, '2025-05-04 10:00:00', 1, 2.00)")
    engine.dispose()


@pytest.fixture
def game(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "game.sqlite", _game) as connected:
        yield connected


def test_spend_is_the_money_not_the_items(game: Connected) -> None:
    answers = complete_answers(game, "Top 2 players by spend")
    assert answers and all(a.startswith("[['LuckyNinja'") for a in answers), answers
    assert complete_answers(game, "total revenue") == ["[[96]]"], \
        complete_answers(game, "total revenue")


def test_which_item_sold_the_most_ranks_the_items(game: Connected) -> None:
    answers = complete_answers(game, "Which item sold the most?")
    assert answers and all(a.startswith(("[['Gem Pack'", "[['Golden Armor'")) for a in answers), answers
    assert any(a.startswith("[['Gem Pack'") for a in answers), answers  # by units


def test_how_many_items_sold_is_the_units(game: Connected) -> None:
    assert set(complete_answers(game, "how many items sold in May 2025")) == {"[[12]]"}


def test_purchases_after_a_threshold_are_counted(game: Connected) -> None:
    analysis = game.analyse("How many players made more than 1 purchases?")
    assert analysis.interpretations and not any("amount" in i.explanation for i in analysis.interpretations), \
        analysis.interpretations
    assert "[[1]]" in [str(game.run(i).rows) for i in analysis.interpretations]


def test_a_brand_typed_lowercase_is_its_value(game: Connected) -> None:
    assert complete_answers(game, "how many players are on ios") == ["[[2]]"]


def _agency(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE clients (client_id INTEGER PRIMARY KEY, client_name VARCHAR(20) NOT NULL, "
                             "account_manager VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE campaigns (campaign_id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL "
                             "REFERENCES clients(client_id), campaign_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE daily_stats (stat_id INTEGER PRIMARY KEY, campaign_id INTEGER NOT NULL "
                             "REFERENCES campaigns(campaign_id), stat_date DATE NOT NULL, impressions INTEGER NOT NULL, "
                             "clicks INTEGER NOT NULL, spend NUMERIC(12,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO clients VALUES (1, 'Acme', 'Leo Brandt'), (2, 'Globex', 'Omar Haddad')")
        conn.exec_driver_sql("INSERT INTO campaigns VALUES (1, 1, 'Spring'), (2, 2, 'Summer')")
        # Leo's client: many impressions, little spend; Omar's: few impressions, much spend
        conn.exec_driver_sql("INSERT INTO daily_stats VALUES (1, 1, '2025-05-01', 90000, 900, 100.00), "
                             "(2, 2, '2025-05-01', 1000, 10, 5000.00)")
    engine.dispose()


@pytest.fixture
def agency(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "agency.sqlite", _agency) as connected:
        yield connected


def test_spent_ranks_by_money(agency: Connected) -> None:
    answers = complete_answers(agency, "Which account manager's clients spent the most?")
    assert answers and all(a.startswith("[['Omar Haddad'") for a in answers), answers


def test_an_ad_accounts_cost_is_its_spend(agency: Connected) -> None:
    answers = complete_answers(agency, "What was the total cost for Globex?")
    assert answers and all(a in ("[[5000]]", "[[5000.0]]") for a in answers), answers


def test_cost_per_click_is_spend_over_clicks(agency: Connected) -> None:
    answers = complete_answers(agency, "What is our cost per click?")
    assert answers == ["[[5.604395604395604]]"], answers


def _recruiting(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE departments (dept_id INTEGER PRIMARY KEY, dept_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE job_requisitions (req_id INTEGER PRIMARY KEY, job_title VARCHAR(40) NOT NULL, "
                             "dept_id INTEGER NOT NULL REFERENCES departments(dept_id), salary_band_min NUMERIC(12,2), "
                             "req_status VARCHAR(10) NOT NULL, opened_on DATE NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE candidates (candidate_id INTEGER PRIMARY KEY, first_name VARCHAR(20) NOT NULL, "
                             "last_name VARCHAR(20) NOT NULL, source VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE applications (application_id INTEGER PRIMARY KEY, candidate_id INTEGER NOT "
                             "NULL REFERENCES candidates(candidate_id), req_id INTEGER NOT NULL REFERENCES "
                             "job_requisitions(req_id), applied_at TIMESTAMP NOT NULL, current_stage VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO departments VALUES (1, 'Sales'), (2, 'Engineering')")
        conn.exec_driver_sql("INSERT INTO job_requisitions VALUES (1, 'Account Executive', 1, 50000, 'open', "
                             "'2025-01-01'), (2, 'Sales Manager', 1, 80000, 'filled', '2025-01-02'), (3, 'Engineer', 2, "
                             "90000, 'open', '2025-01-03'), (4, 'Staff Engineer', 2, 120000, 'open', '2025-01-04')")
        # one Referral candidate withdrew twice; three LinkedIn candidates once each: by source LinkedIn leads,
        # by candidate the Referral one
        conn.exec_driver_sql("INSERT INTO candidates VALUES (1, 'Ana', 'Silva', 'Referral'), (2, 'Ben', 'Ito', "
                             "'LinkedIn'), (3, 'Cy', 'Moe', 'LinkedIn'), (4, 'Di', 'Lee', 'LinkedIn')")
        conn.exec_driver_sql("INSERT INTO applications VALUES (1, 1, 1, '2025-02-01 10:00:00', 'withdrawn'), "
                             "(2, 1, 3, '2025-02-02 10:00:00', 'withdrawn'), (3, 2, 1, '2025-02-03 10:00:00', 'withdrawn'), "
                             "(4, 3, 3, '2025-02-04 10:00:00', 'withdrawn'), (5, 4, 4, '2025-02-05 10:00:00', 'withdrawn'), "
                             "(6, 4, 1, '2025-02-06 10:00:00', 'screen')")
    engine.dispose()


@pytest.fixture
def recruiting(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "recruiting.sqlite", _recruiting) as connected:
        yield connected


def test_a_column_after_its_tables_noun_is_what_is_ranked(recruiting: Connected) -> None:
    answers = complete_answers(recruiting, "Which candidate source had the most withdrawn applications?")
    assert answers and all(a.startswith("[['LinkedIn'") for a in answers), answers


def test_a_capitalised_department_is_a_name_not_sales(recruiting: Connected) -> None:
    answers = complete_answers(recruiting, "How many open requisitions does Sales have?")
    assert answers and all(a == "[[1]]" for a in answers), answers


def test_rows_counted_that_no_table_holds_are_never_a_sum(recruiting: Connected) -> None:
    # 'jobs': a word of a column's name (job_title), no table of jobs: asked about, never a salary band summed
    analysis = recruiting.analyse("How many open jobs does Sales have?")
    assert not any("salary" in i.explanation for i in analysis.interpretations), analysis.interpretations
    assert any(d.archetype == "insufficient_info" for d in analysis.detections) or not analysis.understood.complete


def _roster(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE players (player_id INTEGER PRIMARY KEY, username VARCHAR(20) NOT NULL, "
                             "signed_up_at TIMESTAMP NOT NULL, account_status VARCHAR(10) NOT NULL, is_deleted BOOLEAN "
                             "NOT NULL DEFAULT 0)")
        conn.exec_driver_sql("CREATE TABLE sessions (session_id INTEGER PRIMARY KEY, player_id INTEGER NOT NULL "
                             "REFERENCES players(player_id), started_at TIMESTAMP NOT NULL)")
        # 2024 sign-ups: 4; active 3; not deleted 3; active and not deleted 2
        conn.exec_driver_sql("INSERT INTO players VALUES (1, 'a', '2024-01-05 10:00:00', 'active', 0), "
                             "(2, 'b', '2024-02-05 10:00:00', 'active', 0), (3, 'c', '2024-03-05 10:00:00', 'active', 1), "
                             "(4, 'd', '2024-04-05 10:00:00', 'suspended', 0), (5, 'e', '2025-01-05 10:00:00', 'active', 0)")
        conn.exec_driver_sql("INSERT INTO sessions VALUES (1, 1, '2025-05-01 10:00:00'), (2, 2, '2025-05-02 10:00:00')")
    engine.dispose()


@pytest.fixture
def roster(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "roster.sqlite", _roster) as connected:
        yield connected


def test_a_status_and_a_soft_delete_are_both_asked(roster: Connected) -> None:
    # the deleted players are offered as left out too, beside every player and only the active ones
    answers = complete_answers(roster, "How many players signed up in 2024?")
    assert {"[[4]]", "[[3]]", "[[2]]"} <= set(answers), answers


def test_the_pages_example_sells_what_is_sold(game: Connected) -> None:
    # the page's examples: the items bought are top-selling, never the players who bought them
    from checker_app.ui.display import examples_for

    examples = examples_for([game.profile])
    assert examples[0] == "What is the top-selling store item?", examples
    assert "How many players are there?" in examples, examples
