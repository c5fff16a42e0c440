"""Deterministic rows of the demo orders database, streamed table by table.

Why it is built this way:

* **Same rows everywhere.** Rows are produced in Python from ``seed`` and ``scale`` only (integer and
  ``Decimal`` arithmetic, ``random.Random`` streams derived by SHA-256 from the seed and a label),
  so SQLite, PostgreSQL and MariaDB receive byte-identical data and checksums can be compared.
* **Streamed.** ``orders`` and ``order_items`` are generated one UTC day at a time from per-day
  random streams; a loader can consume one table while the next is not yet materialised, and
  scale 50 (about a million order lines) never sits in memory. ``order_items`` re-derives the
  day's orders (cheap) instead of buffering them.
* **Exact row counts.** Orders come in blocks of 20 consecutive ids; each block holds exactly one
  MacBook Pro line, 3 USB-C Cable lines, 7 Phone Case lines and 57 other lines (a shuffled fixed
  multiset of 1..6 per order). So every count is a formula of ``scale`` (the idempotency check
  needs no generation) and the traps rest on quotas rather than luck: the distinct-order
  counts are exact, and the revenue and unit leads are 3-4x the runner-up's expectation (raw sums
  are dominated by yen prices, yet the product mix is independent of the store, so the ranking
  survives; checked over many seeds):

  ========================  =================  ====================================
  metric                    winner             per 20 orders
  ========================  =================  ====================================
  revenue (raw or USD)      MacBook Pro        1 x 2,499 USD (next best ~700 USD)
  units  SUM(quantity)      USB-C Cable        3 lines x qty 5..20 (~37 units; next ~9)
  distinct orders           Phone Case         7 orders (next best ~4.4)
  ========================  =================  ====================================

Rows per scale (``scale`` >= 1):

  countries 9, currencies 5, exchange_rates 2,735 (5 currencies x 547 days), stores 7,
  categories 8, products 30, fiscal_periods 36 (FY2023..FY2025), seed_info 1 -- fixed;
  customers 500 x scale, orders 6,000 x scale, order_items 20,400 x scale
  (scale 1: 6,000 orders / 20,400 lines; scale 50: 300,000 orders / 1,020,000 lines).

Orders fall on UTC days 2024-01-01 .. 2025-06-30. Each is placed in its store's local business
hours (08:00-22:00) and converted to naive UTC with ``zoneinfo``, so a Los Angeles order at 19:00
local lands on the next UTC day. The last UTC day is re-drawn (deterministically) until "orders
yesterday" differ between UTC and America/Los_Angeles under both readings of yesterday (see
``_la_day_differs``). ``currency_code`` is the store's currency; ``unit_price`` is the USD list
price (sometimes discounted 5 or 10 %) converted with that currency's rate on the order's UTC date,
rounded half-up to cents (JPY to whole yen, stored as ``.00``).
"""

from __future__ import annotations

import hashlib
import random
from bisect import bisect
from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import NamedTuple, TypeVar
from zoneinfo import ZoneInfo

import sqlalchemy as sa

from .fiscal import fiscal_periods
from .reference import (
    CATEGORIES,
    COUNTRIES,
    CURRENCIES,
    DATA_START,
    FIRST_NAMES,
    FOREIGN_COUNTRY_IDS,
    LAST_DAY,
    LAST_NAMES,
    MACBOOK_PRO_ID,
    PHONE_CASE_ID,
    PRODUCTS,
    SPECIAL_CUSTOMERS,
    STORES,
    USB_C_CABLE_ID,
)
from .schema import SCHEMA_VERSION, SEED_TABLES, build_metadata

T = TypeVar("T")

CUSTOMERS_PER_SCALE = 500
ORDERS_PER_SCALE = 6_000
BLOCK = 20
_MACBOOK_PER_BLOCK, _USB_C_PER_BLOCK, _PHONE_CASE_PER_BLOCK = 1, 3, 7
_OTHER_LINES = (1, 1, 1, 1, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 4, 4, 4, 5, 5, 6)
LINES_PER_BLOCK = _MACBOOK_PER_BLOCK + _USB_C_PER_BLOCK + _PHONE_CASE_PER_BLOCK + sum(_OTHER_LINES)
ORDER_ITEMS_PER_SCALE = ORDERS_PER_SCALE // BLOCK * LINES_PER_BLOCK
DATA_DAYS = (LAST_DAY - DATA_START).days + 1

_OPEN_SECONDS = 8 * 3600
_OPEN_SPAN = 14 * 3600  # 08:00 to 22:00 local
_HOME_STORE_SHARE = 0.85
_SPECIAL_CUSTOMER_SHARE = 0.01
_SPECIAL_IDS = tuple(c.id for c in SPECIAL_CUSTOMERS)
_LOCAL_COUNTRY_SHARE = 0.92
_STATUSES = ("completed", "cancelled", "refunded")
_STATUS_CUM = (0.88, 0.95, 1.0)
_DISCOUNTS = (Decimal("1.00"), Decimal("0.95"), Decimal("0.90"))
_DISCOUNT_CUM = (0.85, 0.95, 1.0)
# Demand shape: Monday..Sunday, January..December, and 30 % growth over the range.
_WEEKDAY_FACTOR = (0.90, 0.90, 0.95, 1.00, 1.10, 1.25, 1.10)
_MONTH_FACTOR = (0.85, 0.90, 0.95, 1.00, 1.00, 1.00, 1.05, 1.05, 1.00, 1.05, 1.30, 1.60)
_CUSTOMERS_SINCE = datetime(2022, 1, 1)
_CUSTOMERS_SPAN = int((datetime(2024, 1, 1) - _CUSTOMERS_SINCE).total_seconds())
_REFERENCE_ZONE = "America/Los_Angeles"
_CENT = Decimal("0.01")
_YEN = Decimal("1")


class OrderRow(NamedTuple):
    id: int
    customer_id: int
    store_id: int
    ordered_at: datetime  # naive UTC, whole seconds
    currency_code: str
    status: str


def derive_seed(seed: int, *labels: object) -> int:
    """A 64-bit seed for one named random stream; stable across Python builds and platforms."""
    text = ":".join(str(part) for part in (seed, *labels))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def expected_counts(scale: int) -> dict[str, int]:
    """Rows per table at ``scale`` (exact, see module docstring)."""
    return {
        "countries": len(COUNTRIES),
        "currencies": len(CURRENCIES),
        "exchange_rates": len(CURRENCIES) * DATA_DAYS,
        "stores": len(STORES),
        "categories": len(CATEGORIES),
        "products": len(PRODUCTS),
        "customers": CUSTOMERS_PER_SCALE * scale,
        "orders": ORDERS_PER_SCALE * scale,
        "order_items": ORDER_ITEMS_PER_SCALE * scale,
        "fiscal_periods": len(fiscal_periods(DATA_START, LAST_DAY)),
        "seed_info": 1,
    }


def validate_seed_and_scale(seed: object, scale: object) -> None:
    """ValueError unless ``seed`` is an integer and ``scale`` an integer >= 1 (bools refused)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise ValueError(f"seed must be an integer, got {seed!r}")
    if isinstance(scale, bool) or not isinstance(scale, int) or scale < 1:
        raise ValueError(f"scale must be an integer >= 1, got {scale!r}")


def _allocate(total: int, weights: list[float]) -> list[int]:
    """Split ``total`` into integers proportional to ``weights`` (largest remainder, ties by index)."""
    scale = total / sum(weights)
    quotas = [w * scale for w in weights]
    counts = [int(q) for q in quotas]
    order = sorted(range(len(quotas)), key=lambda i: (-(quotas[i] - counts[i]), i))
    for i in order[: total - sum(counts)]:
        counts[i] += 1
    return counts


def _utc_naive(local: datetime) -> datetime:
    return local.astimezone(UTC).replace(tzinfo=None)


class Dataset:
    """All rows for one (seed, scale). Small tables are built on construction; big ones stream."""

    def __init__(self, seed: int, scale: int) -> None:
        validate_seed_and_scale(seed, scale)
        self.seed = seed
        self.scale = scale
        self.schema_version = SCHEMA_VERSION
        self.n_customers = CUSTOMERS_PER_SCALE * scale
        self.n_orders = ORDERS_PER_SCALE * scale
        self._zones = {s.id: ZoneInfo(s.time_zone) for s in STORES}
        self._store_currency = {s.id: s.currency_code for s in STORES}
        self._store_ids = tuple(s.id for s in STORES)
        self._store_cum = tuple(_cumulative([s.weight for s in STORES]))
        self._decimals = {c.code: c.decimals for c in CURRENCIES}
        others = [p for p in PRODUCTS if p.weight > 0]
        self._other_ids = tuple(p.id for p in others)
        self._other_cum = tuple(_cumulative([p.weight for p in others]))
        self._price = {p.id: p.list_price for p in PRODUCTS}
        self._max_qty = {p.id: p.max_qty for p in PRODUCTS}
        self._rates, self._rate_rows = self._build_rates()
        self._customers, self._home_store = self._build_customers()
        self._day_counts = _allocate(self.n_orders, self._day_weights())
        offsets, running = [], 0
        for count in self._day_counts:
            offsets.append(running)
            running += count
        self._day_offsets = tuple(offsets)

    # ---- public -------------------------------------------------------------------------------

    def expected_counts(self) -> dict[str, int]:
        return expected_counts(self.scale)

    def metadata(self) -> sa.MetaData:
        return build_metadata()

    def rows(self, table: str) -> Iterator[tuple]:
        """Rows of ``table`` as tuples in schema column order (ints, str, Decimal, date, datetime)."""
        if table not in SEED_TABLES:
            raise KeyError(table)
        return getattr(self, f"_rows_{table}")()

    def orders_of_day(self, day_index: int) -> list[OrderRow]:
        """Orders whose UTC date is ``DATA_START + day_index``, ordered by id (= by time)."""
        if day_index != DATA_DAYS - 1:
            return self._draw_day(day_index, 0)
        previous = self._draw_day(day_index - 1, 0)
        attempt = 0
        while True:
            orders = self._draw_day(day_index, attempt)
            if self._la_day_differs(previous, orders):
                return orders
            attempt += 1

    # ---- small tables -------------------------------------------------------------------------

    def _rows_countries(self) -> Iterator[tuple]:
        return iter(tuple(c) for c in COUNTRIES)

    def _rows_currencies(self) -> Iterator[tuple]:
        return iter((c.code, c.name) for c in CURRENCIES)

    def _rows_exchange_rates(self) -> Iterator[tuple]:
        return iter(self._rate_rows)

    def _rows_stores(self) -> Iterator[tuple]:
        return iter((s.id, s.name, s.country_id, s.time_zone, s.currency_code) for s in STORES)

    def _rows_categories(self) -> Iterator[tuple]:
        return iter(tuple(c) for c in CATEGORIES)

    def _rows_products(self) -> Iterator[tuple]:
        return iter((p.id, p.name, p.category_id, p.list_price) for p in PRODUCTS)

    def _rows_customers(self) -> Iterator[tuple]:
        return iter(self._customers)

    def _rows_fiscal_periods(self) -> Iterator[tuple]:
        return iter((i, *p) for i, p in enumerate(fiscal_periods(DATA_START, LAST_DAY), start=1))

    def _rows_seed_info(self) -> Iterator[tuple]:
        return iter([(1, self.seed, self.scale, SCHEMA_VERSION)])

    def _build_rates(self) -> tuple[dict[tuple[str, date], Decimal], tuple[tuple, ...]]:
        """Daily usd_per_unit per currency: a bounded multiplicative random walk (USD fixed at 1)."""
        series: dict[str, list[Decimal]] = {}
        for cur in CURRENCIES:
            rng = random.Random(derive_seed(self.seed, "fx", cur.code))
            base = float(cur.usd_per_unit)
            rate, values = base, []
            for _ in range(DATA_DAYS):
                values.append(cur.usd_per_unit if cur.code == "USD" else Decimal(f"{rate:.6f}"))
                rate *= 1.0 + (rng.random() - 0.5) * 0.006
                rate += (base - rate) * 0.01
            series[cur.code] = values
        lookup: dict[tuple[str, date], Decimal] = {}
        rows: list[tuple[int, str, date, Decimal]] = []
        for day_index in range(DATA_DAYS):
            day = DATA_START + timedelta(days=day_index)
            for cur in CURRENCIES:
                value = series[cur.code][day_index]
                lookup[(cur.code, day)] = value
                rows.append((len(rows) + 1, cur.code, day, value))
        return lookup, tuple(rows)

    def _build_customers(self) -> tuple[tuple[tuple, ...], tuple[int, ...]]:
        rng = random.Random(derive_seed(self.seed, "customers"))
        store_country = {s.id: s.country_id for s in STORES}
        special = {c.id: c for c in SPECIAL_CUSTOMERS}
        rows, homes = [], []
        for cid in range(1, self.n_customers + 1):
            first, last = rng.choice(FIRST_NAMES), rng.choice(LAST_NAMES)
            home = rng.choices(self._store_ids, cum_weights=self._store_cum)[0]
            local = rng.random() < _LOCAL_COUNTRY_SHARE
            country = store_country[home] if local else rng.choice(FOREIGN_COUNTRY_IDS)
            created = _CUSTOMERS_SINCE + timedelta(seconds=rng.randrange(_CUSTOMERS_SPAN))
            name, email = f"{first} {last}", f"{first}.{last}{cid}@example.com".lower()
            if cid in special:
                sc = special[cid]
                name, email, country, home = sc.name, sc.email, sc.country_id, sc.home_store_id
            rows.append((cid, name, email, country, created))
            homes.append(home)
        return tuple(rows), tuple(homes)

    def _day_weights(self) -> list[float]:
        weights = []
        for i in range(DATA_DAYS):
            day = DATA_START + timedelta(days=i)
            growth = 1.0 + 0.3 * i / (DATA_DAYS - 1)
            weights.append(growth * _WEEKDAY_FACTOR[day.weekday()] * _MONTH_FACTOR[day.month - 1])
        return weights

    # ---- orders -------------------------------------------------------------------------------

    def _rows_orders(self) -> Iterator[tuple]:
        for day_index in range(DATA_DAYS):
            yield from self.orders_of_day(day_index)

    def _draw_day(self, day_index: int, attempt: int) -> list[OrderRow]:
        rng = random.Random(derive_seed(self.seed, "orders", day_index, attempt))
        day = DATA_START + timedelta(days=day_index)
        lo = datetime.combine(day, time())
        hi = lo + timedelta(days=1)
        drafts = []
        for _ in range(self._day_counts[day_index]):
            if rng.random() < _SPECIAL_CUSTOMER_SHARE:  # named accounts buy often: ~27 orders each per scale
                customer = _SPECIAL_IDS[int(rng.random() * len(_SPECIAL_IDS))]
            else:
                customer = int(rng.random() * self.n_customers) + 1
            store = self._home_store[customer - 1]
            if rng.random() >= _HOME_STORE_SHARE:
                store = _pick(rng, self._store_ids, self._store_cum)
            ordered_at = self._local_business_time(rng, store, day, lo, hi)
            status = _pick(rng, _STATUSES, _STATUS_CUM)
            drafts.append((ordered_at, customer, store, status))
        drafts.sort(key=lambda d: d[0])  # stable: ties keep draw order
        first_id = self._day_offsets[day_index] + 1
        return [
            OrderRow(first_id + k, customer, store, ordered_at, self._store_currency[store], status)
            for k, (ordered_at, customer, store, status) in enumerate(drafts)
        ]

    def _local_business_time(self, rng: random.Random, store: int, day: date, lo: datetime, hi: datetime) -> datetime:
        """A uniform instant in the store's local opening hours that falls on UTC ``day`` (rejection)."""
        zone = self._zones[store]
        while True:
            k = int(rng.random() * (3 * _OPEN_SPAN))
            local_day = day + timedelta(days=k // _OPEN_SPAN - 1)
            local = datetime(local_day.year, local_day.month, local_day.day, tzinfo=zone)
            instant = _utc_naive(local + timedelta(seconds=_OPEN_SECONDS + k % _OPEN_SPAN))
            if lo <= instant < hi:
                return instant

    def _la_day_differs(self, previous: list[OrderRow], last: list[OrderRow]) -> bool:
        """True if "yesterday" counts differ between UTC and Los Angeles for both readings.

        With A(d) = orders on UTC day d before Los Angeles midnight (07:00 UTC in summer):
        yesterday = LAST_DAY differs iff A(last) >= 1; yesterday = LAST_DAY - 1 differs iff
        A(last) != A(previous).
        """
        zone = ZoneInfo(_REFERENCE_ZONE)

        def early(orders: list[OrderRow]) -> int:
            day = orders[0].ordered_at.date()
            midnight = _utc_naive(datetime(day.year, day.month, day.day, tzinfo=zone))
            return sum(1 for o in orders if o.ordered_at < midnight)

        a_last = early(last)
        return a_last >= 1 and a_last != early(previous)

    # ---- order items --------------------------------------------------------------------------

    def _rows_order_items(self) -> Iterator[tuple]:
        next_id = 1
        for day_index in range(DATA_DAYS):
            rng = random.Random(derive_seed(self.seed, "items", day_index))
            plans: dict[int, list[tuple[bool, bool, bool, int]]] = {}
            for order in self.orders_of_day(day_index):
                block, position = divmod(order.id - 1, BLOCK)
                if block not in plans:
                    plans[block] = self._block_plan(block)
                for product_id, quantity, unit_price in self._order_lines(rng, order, plans[block][position]):
                    yield (next_id, order.id, product_id, unit_price, quantity)
                    next_id += 1

    def _block_plan(self, block: int) -> list[tuple[bool, bool, bool, int]]:
        """Which of 20 consecutive orders get each trap product, and how many other lines each gets."""
        rng = random.Random(derive_seed(self.seed, "block", block))
        macbook = set(rng.sample(range(BLOCK), _MACBOOK_PER_BLOCK))
        usb_c = set(rng.sample(range(BLOCK), _USB_C_PER_BLOCK))
        phone = set(rng.sample(range(BLOCK), _PHONE_CASE_PER_BLOCK))
        others = list(_OTHER_LINES)
        rng.shuffle(others)
        return [(i in macbook, i in usb_c, i in phone, others[i]) for i in range(BLOCK)]

    def _order_lines(
        self, rng: random.Random, order: OrderRow, plan: tuple[bool, bool, bool, int]
    ) -> list[tuple[int, int, Decimal]]:
        has_macbook, has_usb_c, has_phone_case, n_other = plan
        picks: list[tuple[int, int]] = []
        if has_macbook:
            picks.append((MACBOOK_PRO_ID, 1))
        if has_usb_c:
            picks.append((USB_C_CABLE_ID, 5 + int(rng.random() * 16)))
        if has_phone_case:
            picks.append((PHONE_CASE_ID, 1))
        chosen: set[int] = set()
        while len(chosen) < n_other:
            product = _pick(rng, self._other_ids, self._other_cum)
            if product not in chosen:
                chosen.add(product)
                picks.append((product, 1 + int(rng.random() * self._max_qty[product])))
        rng.shuffle(picks)
        rate = self._rates[(order.currency_code, order.ordered_at.date())]
        step = _YEN if self._decimals[order.currency_code] == 0 else _CENT
        lines = []
        for product, quantity in picks:
            discount = _pick(rng, _DISCOUNTS, _DISCOUNT_CUM)
            local = (self._price[product] * discount / rate).quantize(step, rounding=ROUND_HALF_UP)
            lines.append((product, quantity, local.quantize(_CENT)))
        return lines


def _pick(rng: random.Random, items: tuple[T, ...], cum_weights: tuple[float, ...]) -> T:
    """``rng.choices(items, cum_weights=...)[0]`` without its per-call overhead (hot loop)."""
    return items[bisect(cum_weights, rng.random() * cum_weights[-1])]


def _cumulative(weights: list[float]) -> list[float]:
    total, out = 0.0, []
    for w in weights:
        total += w
        out.append(total)
    return out
