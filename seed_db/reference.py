"""Fixed reference data of the demo orders database: countries, currencies, stores, products.

Kept apart from the generator so a reader can see the whole catalogue in one screen, and so the
traps the demo exists for (which product wins under which metric) are visible as plain numbers:
the three trap products are placed into orders by quota (see ``generate.py``), every other product
is drawn by ``weight`` and bought ``1..max_qty`` at a time. Everything here is an immutable tuple.
"""

from __future__ import annotations

from datetime import date
from decimal import Decimal
from typing import NamedTuple

#: First and last UTC day that carries orders (inclusive). "Yesterday" traps are stated relative to it.
DATA_START = date(2024, 1, 1)
LAST_DAY = date(2025, 6, 30)


class Country(NamedTuple):
    id: int
    code: str
    name: str


class Currency(NamedTuple):
    code: str
    name: str
    usd_per_unit: Decimal  # starting point of the deterministic random walk
    decimals: int  # minor units used for prices (JPY has none)


class Store(NamedTuple):
    id: int
    name: str
    country_id: int
    time_zone: str
    currency_code: str
    weight: float  # share of customers whose home store this is


class Category(NamedTuple):
    id: int
    name: str


class Product(NamedTuple):
    id: int
    name: str
    category_id: int
    list_price: Decimal  # USD
    weight: float  # relative chance of being drawn as a non-trap line (0 for trap products)
    max_qty: int


COUNTRIES: tuple[Country, ...] = (
    Country(1, "US", "United States"),
    Country(2, "PR", "Puerto Rico"),
    Country(3, "GB", "United Kingdom"),
    Country(4, "DE", "Germany"),
    Country(5, "JP", "Japan"),
    Country(6, "CA", "Canada"),
    Country(7, "FR", "France"),
    Country(8, "MX", "Mexico"),
    Country(9, "AU", "Australia"),
)

#: Countries a customer may live in when not in the home store's country (travellers, expats).
FOREIGN_COUNTRY_IDS: tuple[int, ...] = (7, 8, 9, 1, 3)

CURRENCIES: tuple[Currency, ...] = (
    Currency("USD", "US Dollar", Decimal("1.000000"), 2),
    Currency("EUR", "Euro", Decimal("1.085000"), 2),
    Currency("GBP", "Pound Sterling", Decimal("1.265000"), 2),
    Currency("JPY", "Japanese Yen", Decimal("0.006700"), 0),
    Currency("CAD", "Canadian Dollar", Decimal("0.740000"), 2),
)

STORES: tuple[Store, ...] = (
    Store(1, "New York", 1, "America/New_York", "USD", 22.0),
    Store(2, "Los Angeles", 1, "America/Los_Angeles", "USD", 20.0),
    Store(3, "San Juan", 2, "America/Puerto_Rico", "USD", 6.0),
    Store(4, "London", 3, "Europe/London", "GBP", 14.0),
    Store(5, "Berlin", 4, "Europe/Berlin", "EUR", 12.0),
    Store(6, "Tokyo", 5, "Asia/Tokyo", "JPY", 9.0),
    Store(7, "Toronto", 6, "America/Toronto", "CAD", 12.0),
)

CATEGORIES: tuple[Category, ...] = (
    Category(1, "Laptops"),
    Category(2, "Phones"),
    Category(3, "Tablets"),
    Category(4, "Audio"),
    Category(5, "Wearables"),
    Category(6, "Accessories"),
    Category(7, "Cables & Chargers"),
    Category(8, "Displays"),
)

MACBOOK_PRO_ID = 1
PHONE_CASE_ID = 12
USB_C_CABLE_ID = 18

PRODUCTS: tuple[Product, ...] = (
    Product(1, "MacBook Pro", 1, Decimal("2499.00"), 0.0, 1),
    Product(2, "MacBook Air", 1, Decimal("1099.00"), 0.7, 1),
    Product(3, "iPhone 15", 2, Decimal("799.00"), 1.0, 1),
    Product(4, "iPhone 15 Pro", 2, Decimal("999.00"), 0.7, 1),
    Product(5, "iPad Air", 3, Decimal("599.00"), 1.0, 1),
    Product(6, "iPad mini", 3, Decimal("499.00"), 1.0, 1),
    Product(7, "AirPods Pro", 4, Decimal("249.00"), 3.0, 1),
    Product(8, "AirPods", 4, Decimal("129.00"), 3.0, 2),
    Product(9, "Beats Studio Buds", 4, Decimal("149.99"), 2.0, 1),
    Product(10, "Apple Watch SE", 5, Decimal("249.00"), 1.5, 1),
    Product(11, "Apple Watch Series 9", 5, Decimal("399.00"), 1.0, 1),
    Product(12, "Phone Case", 6, Decimal("19.99"), 0.0, 1),
    Product(13, "Screen Protector", 6, Decimal("9.99"), 5.0, 3),
    Product(14, "Laptop Sleeve", 6, Decimal("39.99"), 3.0, 1),
    Product(15, "Magic Mouse", 6, Decimal("79.00"), 2.0, 1),
    Product(16, "Magic Keyboard", 6, Decimal("99.00"), 2.0, 1),
    Product(17, "AirTag", 6, Decimal("29.00"), 4.0, 4),
    Product(18, "USB-C Cable", 7, Decimal("12.99"), 0.0, 20),
    Product(19, "Lightning Cable", 7, Decimal("14.99"), 4.0, 3),
    Product(20, "USB-C to Lightning Cable", 7, Decimal("19.99"), 3.0, 2),
    Product(21, "20W USB-C Charger", 7, Decimal("19.00"), 5.0, 2),
    Product(22, "35W Dual USB-C Charger", 7, Decimal("59.00"), 3.0, 1),
    Product(23, "MagSafe Charger", 7, Decimal("39.00"), 4.0, 1),
    Product(24, "96W USB-C Power Adapter", 7, Decimal("79.00"), 2.0, 1),
    Product(25, "Wireless Charging Pad", 7, Decimal("29.99"), 3.0, 2),
    Product(26, "Power Bank 10000mAh", 7, Decimal("49.99"), 3.0, 2),
    Product(27, "USB-C Hub", 6, Decimal("49.99"), 3.0, 1),
    Product(28, "HDMI Adapter", 7, Decimal("24.99"), 3.0, 2),
    Product(29, "Studio Display", 8, Decimal("1599.00"), 0.3, 1),
    Product(30, "4K Monitor", 8, Decimal("399.99"), 0.8, 1),
)


class SpecialCustomer(NamedTuple):
    id: int
    name: str
    email: str
    country_id: int
    home_store_id: int


#: Customers with fixed ids (all <= 500 so they exist at every scale): three "Acme"s for
#: entity-name ambiguity and one name with an apostrophe for literal-quoting tests.
SPECIAL_CUSTOMERS: tuple[SpecialCustomer, ...] = (
    SpecialCustomer(7, "Acme Corp", "purchasing@acmecorp.example", 1, 1),
    SpecialCustomer(42, "O'Brien & Sons", "accounts@obrienandsons.example", 1, 1),
    SpecialCustomer(123, "Acme Industries", "orders@acme-industries.example", 3, 4),
    SpecialCustomer(311, "ACME Logistics", "einkauf@acme-logistics.example", 4, 5),
)

FIRST_NAMES: tuple[str, ...] = (
    "Alice", "Ben", "Carla", "David", "Elena", "Felix", "Grace", "Hiro", "Isabel", "Jonas",
    "Keiko", "Liam", "Maria", "Noah", "Olivia", "Pablo", "Quinn", "Rosa", "Samuel", "Tara",
    "Umar", "Vera", "Walter", "Ximena", "Yusuf", "Zoe", "Amara", "Bruno", "Chloe", "Daniel",
    "Emma", "Farid", "Hannah", "Ivan", "Julia", "Kenji", "Lucia", "Marco", "Nina", "Oscar",
)

LAST_NAMES: tuple[str, ...] = (
    "Smith", "Garcia", "Mueller", "Tanaka", "Brown", "Rivera", "Schmidt", "Sato", "Wilson", "Lopez",
    "Fischer", "Suzuki", "Taylor", "Martinez", "Weber", "Ito", "Clark", "Hernandez", "Wagner",
    "Kato", "Lewis", "Gonzalez", "Becker", "Yamamoto", "Walker", "Perez", "Hoffmann", "Nakamura",
    "Hall", "Torres", "Koch", "Kobayashi", "Young", "Ramirez", "Richter", "Watanabe", "King",
    "Flores", "Klein", "Morgan",
)
