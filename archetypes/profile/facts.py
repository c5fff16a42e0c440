"""Fact tables: the rows questions count and sum, their time column and their measures.

A fact is a table with a foreign key and a time, its own or its header's (line rows dated by their
header). Its measures come from its numeric columns' names (price x quantity is revenue; a rate, a code
or a year is never summed), one count of its rows, and distinct counts of the headers it points at.
"""
from __future__ import annotations

from adapters.column_types import has_zone, is_date_only
from adapters.schema import ColumnInfo, TableInfo
from archetypes import lexicon
from archetypes.naming import phrase, plural, row_noun, singular, slug, words
from archetypes.profile.keys import is_key
from archetypes.profile.model import Edge, Fact, Measure, TimeColumn

_PRICE = {"price", "cost"}
_DISCOUNT = {"discount"}
_QTY = {"quantity", "qty", "units"}
_LINE_TOTAL = {"line", "total", "extended", "ext", "subtotal"}  # a price column that is the line's total
MONEY_COLUMN_WORDS = {"price", "amount", "total", "revenue", "cost", "sales", "freight", "subtotal", "tax", "fee", "charge",
          "paid", "payment", "spend", "value", "gross", "net", "balance", "income", "profit", "rent", "deposit",
          "salary", "wage", "wages", "fare", "mrr", "arr", "commission", "refund", "fine", "fines", "expense",
          "expenses", "budget", "bonus", "premium", "payout", "earnings", "tip", "tips", "gratuity"}
# (a singular time unit is a moment, 'minute_scored', 'kickoff_hour'; the plural an amount, 'hours_worked')
_NOT_SUMMABLE = {"discount", "rate", "percent", "pct", "ratio", "lat", "lng", "latitude", "longitude", "number",
                 "no", "year", "month", "day", "week", "quarter", "minute", "hour", "age", "level", "rank", "order", "sort", "position",
                 "code", "zip", "phone", "version", "milliseconds", "bytes", "size", "period", "id", "reorder",
                 "stock", "list", "per", "unit"} | lexicon.RATING_WORDS
_TIME_GOOD = {"created", "ordered", "placed", "date", "at", "time", "timestamp", "occurred", "purchased", "sold",
              "invoice", "order", "transaction", "booked"}
# a later step's date, empty until the row gets there (delivered, paid, resolved): not the date a row is of, or
# every window would drop the rows still on their way
_TIME_BAD = {"birth", "updated", "modified", "deleted", "required", "shipped", "expires", "expiry", "due", "end",
             "start", "hire", "promised", "expected", "planned", "deadline", "eta"}
_TIME_LATER = {"delivered", "received", "returned", "paid", "resolved", "closed", "completed", "cancelled",
               "canceled", "refunded", "ended", "finished", "responded", "answered", "approved"}
# a row's later step or its end, beside the date it begins: never the date a window bounds by default
LATER_STEP_WORDS = _TIME_LATER | {"end", "ends", "until", "expires", "expiry", "due", "updated", "modified",
                                  "deleted", "birth", "shipped", "settled"}


def time_columns(table: TableInfo) -> list[ColumnInfo]:
    return [c for c in table.columns if c.family == "temporal"]


def _choose_time(table: TableInfo) -> ColumnInfo | None:
    candidates = time_columns(table)
    if not candidates:
        return None
    head = set(words(table.name)) | {singular(w) for w in words(table.name)}

    def score(column: ColumnInfo) -> int:
        parts = set(words(column.name))
        value = 2 * len(parts & head) + len(parts & _TIME_GOOD) - 3 * len(parts & _TIME_BAD) - \
            4 * len(parts & _TIME_LATER)
        return value + (0 if is_date_only(column.type) else 1)  # a moment beats a day

    return max(candidates, key=score)


def time_column(table: TableInfo, column: ColumnInfo) -> TimeColumn:
    """`column` as a fact's time, with its grain and zone read from its type (the data may tell more)."""
    return TimeColumn(table=table.name, column=column.name, date_only=is_date_only(column.type),
                      with_zone=has_zone(column.type))


def find_facts(tables: dict[str, TableInfo], edges: dict[str, list[Edge]], skip: set[str | None]) -> dict[str, Fact]:
    """{table: fact}: tables with a foreign key and a time (their own, or their header's), with measures."""
    own_time = {name: column for name, t in tables.items()
                if name not in skip and (column := _choose_time(t)) is not None}
    standalone = _standalone_events(tables, edges, own_time)
    candidates: dict[str, Fact] = {}
    for name, table in tables.items():
        if name in skip or not (edges.get(name) or name in standalone):
            continue
        column = own_time.get(name)
        if column is not None and _choose_score_ok(table, column):
            fact = Fact(table=name, measures=[], time=time_column(table, column), row_count=table.row_count)
        else:
            parent = next((e for e in edges.get(name, [])
                           if e.ref_table in own_time and e.ref_table not in skip
                           and (edges.get(e.ref_table) or e.ref_table in standalone)
                           and _choose_score_ok(tables[e.ref_table], own_time[e.ref_table])), None)
            if parent is None:
                continue
            ref = tables[parent.ref_table]
            fact = Fact(table=name, measures=[], time=time_column(ref, own_time[parent.ref_table]),
                        time_path=(parent,), row_count=table.row_count)
        candidates[name] = fact
    for fact in candidates.values():
        for edge in edges.get(fact.table, []):
            if edge.ref_table in candidates and candidates[edge.ref_table].time_path == ():
                candidates[edge.ref_table].header = True
    for fact in candidates.values():
        fact.measures = _measures(tables[fact.table], fact, candidates, edges,
                                  {singular(words(name)[-1]) for name in tables if words(name)})
    return candidates


# a table whose name says its rows are the lines of another's ('tab_line_items' of taproom_tabs)
_LINE_WORDS = frozenset({"line", "lines", "item", "items", "detail", "details", "entry", "entries"})


def _lines_of(child: str, parent: str) -> bool:
    said, head = words(child), words(parent)
    return bool(head) and bool(set(said) & _LINE_WORDS) and singular(head[-1]) in {singular(w) for w in said}


def _standalone_events(tables: dict[str, TableInfo], edges: dict[str, list[Edge]],
                       own_time: dict[str, ColumnInfo]) -> set[str]:
    """Dated tables with no foreign key of their own that are events all the same: a flat table nothing points
    at (a CSV of sales loaded alone), or the header of its own lines ('taproom_tabs' of 'tab_line_items'). A
    dated table other rows point at (people with a sign-up date) stays a dimension."""
    pointing: dict[str, set[str]] = {}
    for name, out in edges.items():
        for edge in out:
            pointing.setdefault(edge.ref_table, set()).add(name)
    return {name for name, column in own_time.items()
            if not edges.get(name) and _choose_score_ok(tables[name], column) and
            all(_lines_of(child, name) for child in pointing.get(name, ()))}


def _choose_score_ok(table: TableInfo, column: ColumnInfo) -> bool:
    parts = set(words(column.name))
    return not (parts & {"birth", "hire", "hired", "updated", "modified", "deleted", "expires"}) or \
        len(time_columns(table)) == 0


# what a quantity sold counts in some trades ('tickets sold', 'seats sold'), unless a table holds such rows (its
# name's last word: 'ticket_types' are no tickets)
_COUNTED_UNITS = ("tickets", "seats")
# a unit in a column's name, as people say it ('how many kilos': quantity_kg)
_UNITS_SPELT = {"kg": ("kilos", "kilo", "kilograms", "kilogram"), "lbs": ("pounds", "lb"), "lb": ("pounds",),
                "l": ("litres", "liters"), "t": ("tonnes", "tons")}
# a table named by what its rows measure ('data_usage', 'energy_consumption'): the noun is the amount, added up
_MASS_NOUNS = frozenset({"usage", "consumption", "production", "output", "traffic", "throughput", "generation"})


def _measures(table: TableInfo, fact: Fact, facts: dict[str, Fact], edges: dict[str, list[Edge]],
              table_words: set[str] | frozenset[str] = frozenset()) -> list[Measure]:
    found: list[Measure] = []
    # a 0/1 yes/no column ('paid') is a condition on the rows, never a figure to add up
    numeric = [c for c in table.columns if c.family == "numeric" and not is_key(table, c) and
               not (c.samples and set(c.samples) <= {"0", "1"})]
    summable = [c for c in numeric if not (set(words(c.name)) & _NOT_SUMMABLE) or set(words(c.name)) & _QTY
                or set(words(c.name)) & _PRICE]
    price = next((c for c in summable if set(words(c.name)) & _PRICE), None)
    qty = next((c for c in summable if set(words(c.name)) & _QTY), None)
    used: set[str] = set()
    revenue_words = ("revenue", "rev", "sales amount", "turnover", "income", "gross", "grossing", "earnings", "money",
                     "spend", "spent", "dollars")
    weighed = qty is not None and lexicon.physical((qty.name,), ())  # 'quantity_kg': a weight, no units sold
    line_cost = None
    if price is not None and qty is not None and (weighed or set(words(price.name)) == {"cost"}):
        # a receipt's 'cost' beside its 'quantity_kg': what the line cost in all (a price per kilo says so in its
        # name), money spent, never revenue; its kilos a physical quantity
        price, line_cost = None, price
    if price and qty and set(words(price.name)) & _LINE_TOTAL:
        # 'line_price', 'extended_price': the line's total already, its quantity multiplied in
        found.append(Measure("revenue", f"Revenue (sum of {phrase(price.name)}, each line's total)", "sum",
                             table.name, (price.name,), money=True, words=revenue_words))
        used.add(price.name)
    elif price and qty:
        found.append(Measure("revenue", f"Revenue ({phrase(price.name)} x {phrase(qty.name)})", "product",
                             table.name, (price.name, qty.name), money=True, words=revenue_words))
        used |= {price.name, qty.name}
        discount = next((c for c in numeric if set(words(c.name)) & _DISCOUNT), None)
        if discount is not None:  # a line discount: revenue before it and after it are both 'sales'
            found.append(Measure("revenue_net", f"Revenue net of {phrase(discount.name)} ({phrase(price.name)} x "
                                 f"{phrase(qty.name)} x (1 - {phrase(discount.name)}))", "product", table.name,
                                 (price.name, qty.name, discount.name), money=True, words=("net revenue", "net sales")))
            used.add(discount.name)
    if qty and weighed:
        named_qty = " ".join(words(qty.name))
        spelt = tuple(w for unit, said in _UNITS_SPELT.items() if unit in words(qty.name) for w in said)
        found.append(Measure(slug(named_qty), f"Sum of {named_qty}", "sum", table.name, (qty.name,),
                             words=(named_qty, "quantity", "quantities", "qty", "volume", *spelt)))
        used.add(qty.name)
    elif qty:
        # the column's own words name it too ('produced qty', 'planned qty')
        own = " ".join(words(qty.name))
        found.append(Measure("units", f"Units (sum of {phrase(qty.name)})", "sum", table.name, (qty.name,),
                             words=("units", "unit", "quantity", "quantities", "qty", "volume", "items sold",
                                    "copies", *(w for w in _COUNTED_UNITS if singular(w) not in table_words),
                                    *((own,) if own not in ("quantity", "qty", "units") else ()))))
        used.add(qty.name)
    for column in summable:
        if column.name in used or (set(words(column.name)) & _PRICE and price is not column and
                                   line_cost is not column):
            continue
        if set(words(column.name)) & _NOT_SUMMABLE:
            continue
        value = slug(" ".join(words(column.name)))
        money = bool(set(words(column.name)) & MONEY_COLUMN_WORDS)
        named = " ".join(words(column.name))
        # 'freight costs', 'the freight charge', 'shipping cost': the money the column holds, said another way
        also = (*(f"{named} {tail}" for tail in lexicon.MONEY_TAILS if tail not in named.split()),
                *lexicon.MONEY_COLUMN_SYNONYMS.get(named, ())) if money else ()
        parts = words(column.name)
        if money and len(parts) == 2 and parts[1] in ("amount", "value", "total", "sum") and \
                singular(parts[0]) not in table_words and parts[0] not in _PRICE:
            also = (*also, parts[0])  # 'gross payments', 'net by month': gross_amount, net_value
        elif money and len(parts) == 2 and parts[1] in ("amount", "value") and \
                singular(parts[0]) == singular(words(table.name)[-1]) and parts[0] not in _PRICE:
            also = (*also, parts[0])  # 'the foundation budget': a phase_budgets row's budget_amount, not a count
        if not money and len(parts) == 2 and parts[1] in ("count", "number", "num") and \
                singular(parts[0]) not in table_words:
            also = (*also, plural(singular(parts[0])))  # 'how many guests': guest_count added up
        kind_of = [w for w in words(column.name) if w not in _QTY]
        if not money and set(words(column.name)) & _QTY and kind_of:
            also = (f"{' '.join(kind_of)} units", f"{' '.join(kind_of)} quantity")  # 'good units': good_qty
        if not money and _MASS_NOUNS & set(words(table.name)) and \
                sum(1 for c in summable if c.name not in used and not set(words(c.name)) & MONEY_COLUMN_WORDS) == 1:
            # 'monthly data usage': the megabytes of the data_usage rows added up, not how many rows there are
            own = " ".join(words(table.name))
            also = (*also, own, singular(own), *(w for w in words(table.name) if w in _MASS_NOUNS))
        spelt = tuple(w for unit, said in _UNITS_SPELT.items() if unit in parts for w in said)
        if spelt and not money:  # 'how many kilograms were harvested': weight_kg added up
            also = (*also, *spelt, *(f"{w} {unit}" for w in parts if w not in _UNITS_SPELT for unit in spelt))
        found.append(Measure(value, f"Sum of {named}", "sum", table.name, (column.name,),
                             money=money, words=(named, *also)))
    for edge in edges.get(table.name, []):
        parent = facts.get(edge.ref_table)
        if parent is not None and parent.time_path == () and len(edge.columns) == 1:
            noun = plural(phrase(edge.ref_table).split()[-1]) if phrase(edge.ref_table) else "parents"
            found.append(Measure(slug(noun), f"Distinct {noun} (count of distinct {phrase(edge.columns[0])})",
                                 "count_distinct", table.name, edge.columns, words=(noun,)))
    if fact.time_path == () or not edges.get(table.name):
        noun = plural(singular(row_noun(table.name))) if phrase(table.name) else "rows"
        key = tuple(table.primary_key[:1])
        said = phrase(table.name).split()
        # 'class bookings' names the table's rows as a whole, not the classes and then the bookings
        whole = " ".join(said[:-1] + [plural(singular(said[-1]))]) if len(said) > 1 and plural(singular(said[-1])) == noun else None
        # ('list the wines': 'list' alone never counts the rows of a price_list)
        said_words = (whole,) if whole and singular(noun) in lexicon.VERB_HEADS else (noun, whole) if whole else (noun,)
        found.append(Measure(slug(noun), f"Number of {noun}", "count", table.name, key, words=said_words))
    return found
