"""THE number format of the page, the CLI and the CSV downloads.

* integers get thousands separators (11,508);
* other numbers get sensible decimals: two from 1 up (12,252,343.59), three significant digits below 1
  (0.0123), none when the value is whole (3.0 is 3), and engine noise is rounded away
  (15360815.010000004 is 15,360,815.01);
* money is shown with its currency where the reading knows it ("USD 8,305.80"): a currency code in the
  row (a `currency` column) or in the reading's unit choice ("only amounts recorded in USD");
* CSV uses the same decimals without separators or currency, so a spreadsheet still reads a number.

No streamlit here: the page, the CLI and the exports all call these functions.
"""
from __future__ import annotations

import datetime as dt
import decimal
import functools
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import sqlglot
from sqlglot import exp
from sqlglot.errors import SqlglotError

from adapters.results import json_value

_CODE = re.compile(r"(?<![A-Za-z])([A-Z]{3})(?![A-Za-z])")
_CODE_TOKEN = re.compile(r"(?:^|_)([a-z]{3})(?:_|$)")
# words of a column that counts things (never money, even when the reading knows its currency)
_COUNT_WORDS = {"count", "counts", "units", "unit", "quantity", "qty", "orders", "number", "num", "n", "items",
                "customers", "products", "share", "pct", "percent", "ratio", "relative", "rank", "id", "year", "month",
                "day", "week", "hour", "days", "rows"}
# ISO 4217 codes worth recognising inside a choice value such as "only_usd" (a label's upper-case code is
# taken as it is)
_KNOWN_CODES = {"usd", "eur", "gbp", "jpy", "cad", "aud", "chf", "cny", "inr", "brl", "mxn", "sek", "nok", "dkk",
                "nzd", "sgd", "hkd", "krw", "zar", "pln", "czk", "huf", "try", "rub", "ils"}


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float, decimal.Decimal)) and not isinstance(value, bool)


def _decimals(value: float) -> int:
    magnitude = abs(value)
    if magnitude == 0 or magnitude >= 1:
        return 2
    return min(8, 2 - math.floor(math.log10(magnitude)))  # three significant digits


def _rounded(value: float, decimals: int) -> str:
    text = f"{value:.{decimals}f}"
    if "." in text:
        text = text.rstrip("0").rstrip(".") if decimals > 2 else text
    return text


def number(value: Any, plain: bool = False, money: bool = False) -> str:
    """One number as the page and the CLI show it (`plain`: for CSV, no separators)."""
    if value is None:
        return ""
    if isinstance(value, bool) or not is_number(value):
        return str(json_value(value))
    if isinstance(value, int) and not money:
        return str(value) if plain else f"{value:,}"
    as_float = float(value)
    if not math.isfinite(as_float):
        return str(as_float)
    if money:
        decimals = 2
    else:
        if round(as_float, 6).is_integer():
            whole = int(round(as_float))
            return str(whole) if plain else f"{whole:,}"
        decimals = _decimals(as_float)
    text = _rounded(as_float, decimals)
    if plain:
        return text
    whole, _, fraction = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    grouped = f"{int(whole.lstrip('-') or 0):,}"
    return sign + grouped + (f".{fraction}" if fraction else "")


def with_currency(text: str, currency: str | None) -> str:
    return f"{currency} {text}" if currency and text else text


_KEY_WORDS = {"id", "key", "year", "code", "zip", "no"}


def _words(column: str) -> set[str]:
    return set(re.split(r"[^a-z0-9]+", column.lower())) - {""}


# words of a column that holds an amount of money: two decimals, even where the currency is not known
_MONEY_WORDS = {"revenue", "amount", "amounts", "price", "sales", "cost", "costs", "spend", "spent", "margin",
                "profit", "gmv", "income", "paid", "payment", "payments", "total", "subtotal", "discount", "fee"}


class CountColumn(str):
    """A result column whose values are a COUNT in the statement that produced them. Its name may still read
    like money (a count of the `payments` table is named `payments`, a share's denominator `total`): a count is
    never shown with decimals or a currency. `columns_of` marks them; every other use reads it as the name."""

    __slots__ = ()


_WRAPPERS = (exp.Alias, exp.Paren, exp.Cast, exp.TryCast)


def _is_count(node: exp.Expression, select: exp.Select, ctes: Mapping[str, exp.Expression], depth: int = 0) -> bool:
    """Whether a projection is a COUNT: directly (through an alias, a cast or `COALESCE(COUNT(...), 0)`), or a
    column read from a derived table or CTE whose projection of that name is one."""
    while isinstance(node, _WRAPPERS) or (isinstance(node, exp.Coalesce) and node.this is not None):
        node = node.this
    if isinstance(node, exp.Count):
        return True
    if isinstance(node, exp.Subquery) and isinstance(node.this, exp.Select) and len(node.this.selects) == 1 and \
            depth <= 8:  # a scalar subquery counting rows ('(SELECT COUNT(*) FROM ...) AS part')
        return _is_count(node.this.selects[0], node.this, ctes, depth + 1)
    if not isinstance(node, exp.Column) or depth > 8:
        return False
    if node.name.lower() == "id" or node.name.lower().endswith("_id"):
        return True  # a row's key ('orders over $2000' lists order 178): a whole number, never money
    sources = [select.args.get("from_"), *(select.args.get("joins") or [])]
    for source in sources:
        target = source.this if isinstance(source, (exp.From, exp.Join)) else None
        if target is None or (node.table and target.alias_or_name != node.table):
            continue
        inner: exp.Expression | None = None
        if isinstance(target, exp.Subquery):
            inner = target.this
        elif isinstance(target, exp.Table) and target.name in ctes:
            inner = ctes[target.name]
        if isinstance(inner, exp.Select):
            for projection in inner.selects:
                if projection.alias_or_name == node.name:
                    return _is_count(projection, inner, ctes, depth + 1)
    return False


@functools.lru_cache(maxsize=1024)
def count_columns(sql: str, dialect: str | None = None) -> frozenset[str]:
    """The output columns of `sql` that are COUNTs (see CountColumn); none when it does not parse."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except (SqlglotError, ValueError):
        return frozenset()
    if not isinstance(tree, exp.Select):
        return frozenset()
    ctes = {cte.alias_or_name: cte.this for cte in (tree.args.get("with_") or exp.With()).expressions}
    return frozenset(p.alias_or_name for p in tree.selects if _is_count(p, tree, ctes))


def columns_of(result: Any) -> list[str]:
    """A result's column names, its COUNT columns marked as CountColumn (a RunResult, or anything with
    `columns`, `sql` and `dialect`)."""
    columns = [str(c) for c in getattr(result, "columns", None) or []]
    sql = getattr(result, "sql", None)
    counts = count_columns(sql, getattr(result, "dialect", None)) if isinstance(sql, str) and sql else frozenset()
    return [CountColumn(c) if c in counts else c for c in columns]


def is_money_amount(column: str, currency: str | None = None) -> bool:
    """Whether a column's numbers are money, shown with two decimals: the reading's currency applies to it,
    or its name says money (revenue, amount, price...) and nothing that counts."""
    if not is_money_column(column):
        return False
    return bool(currency) or bool(_words(column) & _MONEY_WORDS)


def is_money_column(column: str) -> bool:
    """Whether a measure column may carry the reading's currency (not counts, shares, ids or dates)."""
    return not isinstance(column, CountColumn) and not (_words(column) & _COUNT_WORDS)


def currency_of_choices(choices: Mapping[str, str], labels: Sequence[str] = ()) -> str | None:
    """The one currency a reading's amounts are in, when its unit choice (or, with a unit choice, its
    label) names it ("only_usd", "converted_to_usd", "Only amounts recorded in USD"); None when it names
    none or several."""
    if "unit" not in choices:
        return None
    found: set[str] = set()
    for key, value in choices.items():
        if key != "unit":
            continue
        found |= {m.upper() for m in _CODE_TOKEN.findall(str(value).lower()) if m in _KNOWN_CODES}
    for label in labels:
        if "per currency" in label.lower():
            return None
        found |= {m for m in _CODE.findall(label) if m.lower() in _KNOWN_CODES}
    return next(iter(found)) if len(found) == 1 else None


def currency_column(columns: Sequence[str]) -> int | None:
    """Where a row carries its own currency code (a column named like `currency` or `currency_code`)."""
    for i, name in enumerate(columns):
        words = set(re.split(r"[^a-z0-9]+", name.lower()))
        if "currency" in words or "ccy" in words:
            return i
    return None


# a column of fractions meant as a percentage: a relative change of 0.186 reads 18.6 %
_PERCENT_WORDS = {"relative"}


def is_percent_column(column: str) -> bool:
    return bool(_words(column) & _PERCENT_WORDS)


def percent(value: Any, signed: bool = False) -> str:
    """A fraction as a percentage: one decimal from 1 % up ("18.6%", "1,234.5%"), three significant digits
    below ("0.0423%"); `signed`: "+18.6%" for a rise."""
    pct = float(value) * 100
    if not math.isfinite(pct):
        return str(pct)
    text = "0" if pct == 0 else f"{pct:,.1f}" if abs(pct) >= 1 else number(pct)
    return ("+" if signed and pct > 0 else "") + text + "%"


def cell(value: Any, column: str = "", currency: str | None = None, plain: bool = False) -> str:
    """A table cell: numbers formatted (money with its currency, a relative change as a percentage), dates in
    ISO, text as it is. CSV (`plain`) keeps the fraction itself, so a spreadsheet still reads a number."""
    if value is None:
        return "" if plain else "NULL"
    value = json_value(value) if not is_number(value) else value
    if is_number(value) and is_percent_column(column) and not plain:
        return percent(value)
    if is_number(value):
        if isinstance(value, int) and _KEY_WORDS & _words(column):  # ids and years read as they are
            return str(value)
        money = bool(currency) and is_money_column(column)
        text = number(value, plain=plain, money=money or is_money_amount(column))
        return text if plain else with_currency(text, currency if money else None)
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    return str(value)


def row_currency(columns: Sequence[str], row: Sequence[Any], default: str | None = None) -> str | None:
    at = currency_column(columns)
    if at is not None and at < len(row) and isinstance(row[at], str) and _CODE.fullmatch(row[at].strip()):
        return row[at].strip()
    return default


def row_cells(columns: Sequence[str], row: Sequence[Any], currency: str | None = None,
              plain: bool = False) -> list[str]:
    """Every cell of a row, formatted; a row's own currency column wins over the reading's currency."""
    money = row_currency(columns, row, currency)
    return [cell(v, c, money, plain) for c, v in zip(columns, row)]
