"""Deterministic rows of the subscription history database, streamed table by table.

Built like the demo generator (``seed_db.generate``): rows come from ``seed`` and ``scale`` only,
through ``random.Random`` streams derived per customer by SHA-256, with ``Decimal`` money, so the
three engines receive identical data. Each customer's story (sign-up, subscription periods, soft
delete) is re-derived from its own stream whenever a table needs it, so nothing large is buffered.

The story of one customer: signs up on a day of month 1..28 between 2016-01-01 and 2025-06-28
(later months more likely), then holds a sequence of subscription periods. A period lasts 3..30
months (annual plans 1..3 years); when it ends before ``HISTORY_LAST_DAY`` the customer either
switches to another plan (status ``switched``, the next period starts the next day) or leaves
(``cancelled``; a third of those are soft-deleted 1..90 days later). A period still running on
``HISTORY_LAST_DAY`` has ``ended_on`` NULL and status ``active`` (or ``paused``, 12 %). Each
period is invoiced at its start and every billing interval after, at the plan's price valid on
that day (``plan_prices``, five prices per plan rising over time, the last one valid to
9999-12-31), so "average price" over current rows, every row and the rows valid at a date differ.

Rows at seed 42: scale 1 has plans 6, plan_prices 30, customers 5,000, subscriptions 8,197 and
invoices 92,139 (105,373 rows, generated in about 0.5 s); rows grow linearly with ``scale`` (scale
30: 3,170,229 rows, 2,771,388 invoices). Counts are exact for (seed, scale) and computed without
generating invoices.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterator
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_UP, Decimal
from functools import cached_property
from typing import NamedTuple

import sqlalchemy as sa

from .generate import derive_seed, validate_seed_and_scale
from .history_schema import (
    HISTORY_SCHEMA_VERSION,
    HISTORY_TABLES,
    build_history_metadata,
)

CUSTOMERS_PER_SCALE = 5_000
HISTORY_FIRST_DAY = date(2016, 1, 1)
HISTORY_LAST_DAY = date(2025, 6, 30)
CURRENT_SENTINEL = date(9999, 12, 31)


class Plan(NamedTuple):
    id: int
    name: str
    billing_interval: str  # 'month' or 'year'
    base_price: Decimal
    weight: float


PLANS: tuple[Plan, ...] = (
    Plan(1, "Starter", "month", Decimal("9.00"), 5.0),
    Plan(2, "Team", "month", Decimal("29.00"), 4.0),
    Plan(3, "Business", "month", Decimal("79.00"), 2.0),
    Plan(4, "Starter Annual", "year", Decimal("90.00"), 1.0),
    Plan(5, "Team Annual", "year", Decimal("290.00"), 1.0),
    Plan(6, "Enterprise", "month", Decimal("499.00"), 0.5),
)
#: Days a new price list takes effect, and each list's factor on the plan's base price.
PRICE_CHANGES: tuple[date, ...] = (date(2016, 1, 1), date(2018, 4, 1), date(2020, 7, 1), date(2022, 1, 1),
                                   date(2024, 3, 1))
_PRICE_FACTORS = (Decimal("1.00"), Decimal("1.10"), Decimal("1.25"), Decimal("1.40"), Decimal("1.60"))
_COUNTRIES = ("US", "GB", "DE", "FR", "JP", "CA", "AU", "BR")
_COUNTRY_CUM = (40.0, 52.0, 62.0, 69.0, 76.0, 84.0, 90.0, 100.0)
_COMPANY_WORDS = ("Labs", "Systems", "Studio", "Partners", "Group", "Works", "Analytics", "Digital", "Cloud", "Foods")
_INVOICE_STATUSES = ("paid", "failed", "refunded")
_INVOICE_STATUS_CUM = (0.93, 0.97, 1.0)
_SWITCH_SHARE = 0.55
_PAUSED_SHARE = 0.12
_DELETED_SHARE = 0.33
_MONTHS = (HISTORY_LAST_DAY.year - HISTORY_FIRST_DAY.year) * 12 + HISTORY_LAST_DAY.month - HISTORY_FIRST_DAY.month + 1
_PLAN_IDS = tuple(p.id for p in PLANS)
_PLAN_CUM = tuple(sum(p.weight for p in PLANS[: i + 1]) for i in range(len(PLANS)))
_INTERVAL_MONTHS = {p.id: 1 if p.billing_interval == "month" else 12 for p in PLANS}
_CENT = Decimal("0.01")
_DAY_SECONDS = 86_400


class Period(NamedTuple):
    plan_id: int
    started_on: date
    ended_on: date | None  # inclusive; None = still running on HISTORY_LAST_DAY
    status: str


class Story(NamedTuple):
    customer: tuple  # the customers row
    periods: tuple[Period, ...]


def add_months(day: date, months: int) -> date:
    """``day`` moved by whole months; days of month are <= 28 here, so no clamping is needed."""
    index = day.year * 12 + day.month - 1 + months
    return date(index // 12, index % 12 + 1, day.day)


def price_rows() -> tuple[tuple, ...]:
    """``plan_prices`` rows: one per plan and price list, ``valid_to`` the day before the next list."""
    rows: list[tuple] = []
    for plan in PLANS:
        for k, (start, factor) in enumerate(zip(PRICE_CHANGES, _PRICE_FACTORS)):
            end = PRICE_CHANGES[k + 1] - timedelta(days=1) if k + 1 < len(PRICE_CHANGES) else CURRENT_SENTINEL
            price = (plan.base_price * factor).quantize(_CENT, rounding=ROUND_HALF_UP)
            rows.append((len(rows) + 1, plan.id, price, start, end))
    return tuple(rows)


class HistoryDataset:
    """All history rows for one (seed, scale); ``rows(table)`` streams a table in schema column order."""

    def __init__(self, seed: int, scale: int) -> None:
        validate_seed_and_scale(seed, scale)
        self.seed = seed
        self.scale = scale
        self.schema_version = HISTORY_SCHEMA_VERSION
        self.n_customers = CUSTOMERS_PER_SCALE * scale
        self._prices = {(r[1], r[3]): r[2] for r in price_rows()}

    def metadata(self) -> sa.MetaData:
        return build_history_metadata()

    def rows(self, table: str) -> Iterator[tuple]:
        if table not in HISTORY_TABLES:
            raise KeyError(table)
        return getattr(self, f"_rows_{table}")()

    def expected_counts(self) -> dict[str, int]:
        return dict(self._counts)

    @cached_property
    def _counts(self) -> dict[str, int]:
        subscriptions = invoices = 0
        for story in self.stories():
            subscriptions += len(story.periods)
            invoices += sum(_billing_count(p) for p in story.periods)
        return {"plans": len(PLANS), "plan_prices": len(PLANS) * len(PRICE_CHANGES), "customers": self.n_customers,
                "subscriptions": subscriptions, "invoices": invoices, "seed_info": 1}

    def stories(self) -> Iterator[Story]:
        for cid in range(1, self.n_customers + 1):
            yield self._story(cid)

    # ---- tables -------------------------------------------------------------------------------

    def _rows_plans(self) -> Iterator[tuple]:
        return iter((p.id, p.name, p.billing_interval) for p in PLANS)

    def _rows_plan_prices(self) -> Iterator[tuple]:
        return iter(price_rows())

    def _rows_customers(self) -> Iterator[tuple]:
        return (story.customer for story in self.stories())

    def _rows_subscriptions(self) -> Iterator[tuple]:
        next_id = 1
        for story in self.stories():
            for p in story.periods:
                yield (next_id, story.customer[0], p.plan_id, p.started_on, p.ended_on, p.status)
                next_id += 1

    def _rows_invoices(self) -> Iterator[tuple]:
        subscription_id = invoice_id = 0
        for story in self.stories():
            rng = random.Random(derive_seed(self.seed, "history-invoices", story.customer[0]))
            for p in story.periods:
                subscription_id += 1
                for day in _billing_days(p):
                    invoice_id += 1
                    issued = datetime(day.year, day.month, day.day) + timedelta(seconds=int(rng.random() * _DAY_SECONDS))
                    status = _INVOICE_STATUSES[_index(_INVOICE_STATUS_CUM, rng.random())]
                    yield (invoice_id, subscription_id, issued, self._price_on(p.plan_id, day), status)

    def _rows_seed_info(self) -> Iterator[tuple]:
        return iter([(1, self.seed, self.scale, self.schema_version)])

    # ---- one customer -------------------------------------------------------------------------

    def _story(self, cid: int) -> Story:
        rng = random.Random(derive_seed(self.seed, "history-customer", cid))
        month = min(int(rng.random() ** 0.6 * _MONTHS), _MONTHS - 1)
        start = add_months(HISTORY_FIRST_DAY, month).replace(day=1 + int(rng.random() * 28))
        signed_up_at = datetime(start.year, start.month, start.day) + timedelta(seconds=int(rng.random() * _DAY_SECONDS))
        country = _COUNTRIES[_index(_COUNTRY_CUM, rng.random() * _COUNTRY_CUM[-1])]
        word = _COMPANY_WORDS[int(rng.random() * len(_COMPANY_WORDS))]
        name = f"Customer {cid} {word}"
        periods: list[Period] = []
        plan = _PLAN_IDS[_index(_PLAN_CUM, rng.random() * _PLAN_CUM[-1])]
        deleted_at = None
        while True:
            interval = _INTERVAL_MONTHS[plan]
            months = 12 * (1 + int(rng.random() * 3)) if interval == 12 else 3 + int(rng.random() * 28)
            following = add_months(start, months)
            if following > HISTORY_LAST_DAY:
                status = "paused" if rng.random() < _PAUSED_SHARE else "active"
                periods.append(Period(plan, start, None, status))
                break
            ended_on = following - timedelta(days=1)
            if rng.random() < _SWITCH_SHARE:
                periods.append(Period(plan, start, ended_on, "switched"))
                plan = _PLAN_IDS[(_PLAN_IDS.index(plan) + 1 + int(rng.random() * (len(PLANS) - 1))) % len(PLANS)]
                start = following
                continue
            periods.append(Period(plan, start, ended_on, "cancelled"))
            if rng.random() < _DELETED_SHARE:
                deleted = min(ended_on + timedelta(days=1 + int(rng.random() * 90)), HISTORY_LAST_DAY)
                deleted_at = datetime(deleted.year, deleted.month, deleted.day) + timedelta(
                    seconds=int(rng.random() * _DAY_SECONDS))
            break
        email = f"billing@customer{cid}.example"
        return Story((cid, name, email, country, signed_up_at, deleted_at), tuple(periods))

    def _price_on(self, plan_id: int, day: date) -> Decimal:
        valid_from = PRICE_CHANGES[_index(PRICE_CHANGES, day) - 1]
        return self._prices[(plan_id, valid_from)]


def _billing_days(period: Period) -> list[date]:
    """The period's invoice days: its start and every billing interval after, up to its end (or the last day)."""
    last = period.ended_on or HISTORY_LAST_DAY
    step = _INTERVAL_MONTHS[period.plan_id]
    days, k = [], 0
    while (day := add_months(period.started_on, k * step)) <= last:
        days.append(day)
        k += 1
    return days


def _billing_count(period: Period) -> int:
    """``len(_billing_days(period))`` by arithmetic (whole months elapsed, divided by the interval)."""
    last, start = period.ended_on or HISTORY_LAST_DAY, period.started_on
    months = (last.year - start.year) * 12 + last.month - start.month - (last.day < start.day)
    return months // _INTERVAL_MONTHS[period.plan_id] + 1


def _index(bounds: tuple, value: object) -> int:
    """Index of the first bound greater than ``value`` (cumulative weights, sorted dates)."""
    return bisect_right(bounds, value)
