"""Found trying a streaming service's and a freelancer marketplace's schemas the project never saw: 'best rated
series' averaged the ratings' key (rating_id), 'average stars per series with more than 30 ratings' put the 30 on
the average, 'average stars per freelancer tier' gave each freelancer's (the tier dropped, marked clear), 'how did
gross payments change' counted payments, and 'how many viewers are in Germany' offered only the closed accounts as
the rows that count."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers


def _marketplace(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE freelancers (freelancer_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "tier VARCHAR(10) NOT NULL, country VARCHAR(20) NOT NULL, "
                             "account_state VARCHAR(10) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE ratings (rating_id INTEGER PRIMARY KEY, freelancer_id INTEGER NOT NULL "
                             "REFERENCES freelancers(freelancer_id), rated_on DATE NOT NULL, stars INTEGER NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE payments (payment_id INTEGER PRIMARY KEY, freelancer_id INTEGER NOT NULL "
                             "REFERENCES freelancers(freelancer_id), paid_at TIMESTAMP NOT NULL, "
                             "gross_amount NUMERIC(10,2) NOT NULL, platform_fee NUMERIC(10,2) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO freelancers VALUES (1, 'Ana Kim', 'expert', 'Germany', 'active'), "
                             "(2, 'Sven Kim', 'expert', 'Germany', 'closed'), (3, 'Lena Muller', 'rising', 'Kenya', "
                             "'active'), (4, 'Omar Diaz', 'rising', 'Germany', 'suspended')")
        # by tier: expert (5, 4, 3) 4.0, rising (2, 2) 2.0; each freelancer's own: Ana 4.5, Sven 3, Lena 2
        # rating ids grow against the stars: an average of the keys ranks the other way round
        conn.exec_driver_sql("INSERT INTO ratings VALUES (1, 1, '2025-01-01', 5), (2, 1, '2025-01-02', 4), "
                             "(3, 2, '2025-01-03', 3), (9, 3, '2025-01-04', 2), (10, 3, '2025-01-05', 2)")
        conn.exec_driver_sql("CREATE TABLE freelancer_skills (freelancer_id INTEGER NOT NULL REFERENCES "
                             "freelancers(freelancer_id), skill VARCHAR(20) NOT NULL, PRIMARY KEY (freelancer_id, skill))")
        conn.exec_driver_sql("INSERT INTO freelancer_skills VALUES (1, 'SEO'), (2, 'SEO'), (3, 'SEO'), (1, 'Python'), "
                             "(4, 'Python')")
        # May: 2 payments of 1,000 gross; June: 1 payment of 5,000 gross (fewer payments, more money)
        conn.exec_driver_sql("INSERT INTO payments VALUES (1, 1, '2025-05-03 10:00:00', 1000, 100), "
                             "(2, 2, '2025-05-20 10:00:00', 1000, 100), (3, 3, '2025-06-10 10:00:00', 5000, 500)")
    engine.dispose()


@pytest.fixture
def marketplace(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "marketplace.sqlite", _marketplace) as connected:
        yield connected


def test_best_rated_is_by_the_rating_not_its_key(marketplace: Connected) -> None:
    answers = complete_answers(marketplace, "Best rated freelancer")
    assert answers and all(a.startswith("[['Ana Kim'") for a in answers), answers


def test_a_compounds_head_groups(marketplace: Connected) -> None:
    answers = complete_answers(marketplace, "Average stars per freelancer tier")
    assert answers and all("expert" in a and "Ana Kim" not in a for a in answers), answers


def test_a_count_condition_beside_an_average_is_never_put_on_it(marketplace: Connected) -> None:
    analysis = marketplace.analyse("Average stars per freelancer with more than 1 ratings")
    assert not analysis.understood.complete, analysis.interpretations
    assert not any("more than 1" in i.explanation for i in analysis.interpretations), analysis.interpretations


def test_gross_names_the_gross_amount(marketplace: Connected) -> None:
    analysis = marketplace.analyse("How did gross payments change from May 2025 to June 2025?")
    assert analysis.understood.complete and analysis.interpretations
    assert all("gross amount" in i.explanation for i in analysis.interpretations), analysis.interpretations


def test_closed_accounts_are_gone_not_done(marketplace: Connected) -> None:
    # Germany: 3 freelancers, 1 of them active; never 'only the closed ones' (1) as the rows that count
    analysis = marketplace.analyse("How many freelancers are in Germany?")
    assert not any("is closed" in i.explanation for i in analysis.interpretations), analysis.interpretations
    assert "[[3]]" in complete_answers(marketplace, "How many freelancers are in Germany?")


def _memberships(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE viewers (viewer_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE memberships (membership_id INTEGER PRIMARY KEY, viewer_id INTEGER NOT NULL "
                             "REFERENCES viewers(viewer_id), began_on DATE NOT NULL, ended_on DATE)")
        conn.exec_driver_sql("INSERT INTO viewers VALUES (1, 'Ada Shaw'), (2, 'Ben Cole'), (3, 'Cat Moss')")
        # two current (no end), two ended
        conn.exec_driver_sql("INSERT INTO memberships VALUES (1, 1, '2023-01-01', '2023-12-31'), "
                             "(2, 1, '2024-01-01', NULL), (3, 2, '2023-05-01', '2024-03-31'), (4, 3, '2024-06-01', NULL)")
    engine.dispose()


def test_right_now_on_rows_that_began_and_ended(tmp_path) -> None:
    """'how many memberships right now' counted all four: 'began_on' was no start of a validity."""
    with built_sqlite(tmp_path, "memberships.sqlite", _memberships) as connected:
        assert complete_answers(connected, "How many memberships are there right now?") == ["[[2]]"]


def test_the_most_common_kind_counts_its_rows(marketplace: Connected) -> None:
    """'which skill is most common among freelancers' ranked freelancers by their contracts ('among' named the
    ranked rows); a table no fact reaches counts its own rows per kind."""
    assert complete_answers(marketplace, "which skill is most common")[0].startswith("[['SEO', 3]")
    analysis = marketplace.analyse("Which skill is most common among freelancers?")
    assert all("per skill" in i.explanation for i in analysis.interpretations) and analysis.interpretations


def test_the_datas_today_is_never_a_due_date_ahead(tmp_path) -> None:
    """Milestones dated by their due date ran to August while payments ended in June: 'last month' was July (0)."""
    def milestones(url: str) -> None:
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE clients (client_id INTEGER PRIMARY KEY, company_name VARCHAR(30) NOT NULL)")
            conn.exec_driver_sql("CREATE TABLE milestones (milestone_id INTEGER PRIMARY KEY, client_id INTEGER NOT NULL "
                                 "REFERENCES clients(client_id), due_date DATE NOT NULL, amount NUMERIC(10,2) NOT NULL)")
            conn.exec_driver_sql("CREATE TABLE payments (payment_id INTEGER PRIMARY KEY, milestone_id INTEGER NOT NULL "
                                 "REFERENCES milestones(milestone_id), paid_at TIMESTAMP NOT NULL, "
                                 "platform_fee NUMERIC(10,2) NOT NULL)")
            conn.exec_driver_sql("INSERT INTO clients VALUES (1, 'Cedar Systems')")
            conn.exec_driver_sql("INSERT INTO milestones VALUES (1, 1, '2025-05-15', 1000), (2, 1, '2025-06-15', 2000), "
                                 "(3, 1, '2025-08-11', 3000), (4, 1, '2025-07-20', 500), (5, 1, '2025-04-10', 100)")
            conn.exec_driver_sql("INSERT INTO payments VALUES (1, 1, '2025-05-20 10:00:00', 100), "
                                 "(2, 2, '2025-06-20 10:00:00', 200), (3, 5, '2025-04-12 10:00:00', 10)")
        engine.dispose()

    with built_sqlite(tmp_path, "milestones.sqlite", milestones) as connected:
        assert str(connected.profile.as_of) == "2025-06-20"
