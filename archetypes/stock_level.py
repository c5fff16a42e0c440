"""Stock against its threshold: 'parts low on stock', 'which items need reordering', 'out of stock'.

A table holding a quantity in stock and a reorder level (and often the units already on order) answers these
by comparing a row's own columns, not by a total. Low is below the reorder level on the shelf, or still below it
once the units on order arrive: two readings when the table says what is on order.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from archetypes.intent import Span
from archetypes.model import Reading
from archetypes.naming import phrase, words
from archetypes.profile import SchemaProfile
from archetypes.query import QuerySpec, RowCondition

_LOW = re.compile(r"\b(?:(?:running|run|getting|are|is|that are)\s+)?low\s+(?:on\s+)?(?:stock|inventory)\b|"
                  r"\blow[- ]stock\b|\b(?:below|under|beneath)\s+(?:the(?:ir)?\s+|its\s+)?re-?order\s+(?:level|point)\b|"
                  r"\b(?:need(?:s|ing)?|due)\s+(?:to\s+be\s+|for\s+(?:an?\s+)?)?(?:re-?order(?:ing|ed)?|restock(?:ing|ed)?)\b|"
                  r"\b(?:to|should|must|do|need)\s+(?:we\s+|i\s+|you\s+)?(?:re-?order|restock)\b")
_OUT = re.compile(r"\b(?:out of stock|sold out|no stock|none (?:left|in stock)|zero stock)\b")
_STOCK = frozenset({"stock", "inventory", "hand"})
_THRESHOLD = frozenset({"reorder", "threshold", "minimum", "min", "safety"})


@dataclass(frozen=True)
class StockColumns:
    table: str
    stock: str
    threshold: str | None
    on_order: str | None


@dataclass(frozen=True)
class StockRead:
    span: Span
    conditions: list[RowCondition]          # applied to every reading
    readings: list[Reading]                 # on the shelf / counting what is on order (empty: nothing to ask)


def stock_words(lower: str) -> re.Match | None:
    """The words that ask about stock against its level ('low on stock', 'out of stock'), if any."""
    return _OUT.search(lower) or _LOW.search(lower)


def stock_columns(profile: SchemaProfile, table: str) -> StockColumns | None:
    """The table's quantity in stock, its reorder level and its units on order, by their names."""
    info = profile.tables.get(table)
    if info is None:
        return None
    numeric = [c.name for c in info.columns if c.family == "numeric"]
    stock = next((c for c in numeric if set(words(c)) & _STOCK and "order" not in words(c)), None)
    if stock is None:
        return None
    threshold = next((c for c in numeric if set(words(c)) & _THRESHOLD), None)
    on_order = next((c for c in numeric if "order" in words(c) and c != threshold and
                     set(words(c)) & {"on", "units", "ordered", "incoming", "pending"}), None)
    return StockColumns(table, stock, threshold, on_order)


def read_stock_level(lower: str, question: str, profile: SchemaProfile, table: str) -> StockRead | None:
    """The rows of `table` the question's stock words keep, or None when it says none or the table has no stock."""
    said = stock_words(lower)
    if said is None:
        return None
    out = said if said.re is _OUT else None
    columns = stock_columns(profile, table)
    if columns is None or (out is None and columns.threshold is None):
        return None
    span = Span(said.start(), said.end(), question[said.start():said.end()])
    stock = phrase(columns.stock)
    if out is not None:
        return StockRead(span, [RowCondition(table, columns.stock, "le_number", ("0",), f"{stock} is 0 or less")], [])
    assert columns.threshold is not None
    level = phrase(columns.threshold)
    shelf = RowCondition(table, columns.stock, "lt_column", (columns.threshold,), f"{stock} below {level}")
    if columns.on_order is None:
        return StockRead(span, [shelf], [])
    coming = phrase(columns.on_order)
    with_order = RowCondition(table, columns.stock, "sum_lt_column", (columns.on_order, columns.threshold),
                              f"{stock} plus {coming} below {level}")
    return StockRead(span, [], [Reading("on_the_shelf", f"{stock.capitalize()} below the {level}", _apply(shelf)),
                                Reading("counting_on_order", f"Still below the {level} once the {coming} arrive",
                                        _apply(with_order))])


def _apply(condition: RowCondition):
    def apply(spec: QuerySpec) -> None:
        spec.conditions.append(condition)
    return apply
