"""What a reading's answer is, by the shape of its rows (no streamlit here).

* scalar: one row of numbers ("USD 8,305.80");
* ranking: rows that name things, ordered by their measure (the first row: "USB-C Cable", units = 11,508);
  when the first rows share the top figure, the answer is the tie, never the first of it in the alphabet
  ("tied: 8 rows share revenue = 3.98 (Gay Witch Hunt, Hot Girl, …)"; "at least 10" when every row returned
  shares it and the LIMIT stopped them: see checker_app.ties);
* breakdown: rows that name things in no measure order, e.g. one total per currency ("EUR 2,881.11 ·
  GBP 12,059.82");
* series: rows over time buckets (days, weeks, months, hours, fiscal periods): the range it covers, with
  its total and its peak;
* top N per group: the rows of the first groups ("Beverages: Côte de Blaye, Ipoh Coffee · …"), see
  checker_app.per_group;
* change: the columns before, after, change, relative_change; per group, the first row (ranked by the change)
  with its change; an earlier period that holds nothing says so (its relative change is empty, not 0 %);
* empty (no rows) and none (nothing answered).

The page's headline, the verdict's bullets, the CLI and the Markdown summary all say the same thing.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import sqlglot
from sqlglot import exp

from adapters import RunResult
from adapters.results import json_value
from checker_app import format as fmt
from checker_app import per_group, ties

_BUCKET_NAMES = {"period", "date", "day", "week", "month", "quarter", "year", "hour", "time", "bucket", "ts",
                 "timestamp", "ordered_at", "created_at", "minute"}
_BUCKET_VALUE = re.compile(r"^(\d{4}(-(W?\d{1,2}|Q[1-4])(-\d{1,2})?)?([ T]\d{1,2}:\d{2}(:\d{2})?)?|\d{1,2}:\d{2}"
                           r"|FY\d{2,4}\b.*)$")
BREAKDOWN_SHOWN = 3
TIED_SHOWN = 3   # names of a tie shown before "…"
_CHANGE_COLUMNS = ("before", "after", "change", "relative_change")
_WEEKDAY = re.compile(r"^(?:\d\s+)?((?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day)$")
# a month of the year named without its year ('September'): a bucket of every year at once, so rows of them are
# a distribution to rank (which month leads), not a series from its first row to its last
_MONTH_NAME = re.compile(r"^(?:\d{1,2}\s+)?(?:January|February|March|April|May|June|July|August|September|October"
                         r"|November|December)$", re.IGNORECASE)


@dataclass(frozen=True)
class Answer:
    shape: str       # scalar | ranking | breakdown | series | empty | none
    headline: str    # what the reading answers, in a few words
    detail: str = ""  # the number behind it, or the range of a series

    @property
    def text(self) -> str:
        if not self.detail:
            return self.headline
        return f"{self.headline}: {self.detail}" if self.shape == "series" else f"{self.headline} ({self.detail})"


def _value(v: Any) -> Any:
    return v if fmt.is_number(v) else json_value(v)


def _numeric_at(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> list[int]:
    """Columns holding numbers in every row that has a value there (the measures); a key beside a figure names the
    row ('order_id 5676, its client and shop: revenue 4,574.97'), it measures nothing."""
    out = []
    for i in range(len(columns)):
        values = [_value(r[i]) for r in rows if i < len(r) and r[i] is not None]
        if values and all(fmt.is_number(v) for v in values):
            out.append(i)
    keys = [i for i in out if _KEY_NAME.search(str(columns[i]))]
    return [i for i in out if i not in keys] if keys and len(keys) < len(out) else out


_KEY_NAME = re.compile(r"(?:^|_)id$", re.I)


def bucket_column(columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> int | None:
    """The column of time buckets when the rows are a series (named like a period, or holding dates); none
    when two columns hold dates (rows listed with the dates they held from and to are no series)."""
    found: list[int] = []
    for i, name in enumerate(columns):
        values = [_value(r[i]) for r in rows if i < len(r) and r[i] is not None]
        if not values or any(fmt.is_number(v) for v in values):
            continue
        dated = all(isinstance(v, (dt.date, dt.datetime)) or _BUCKET_VALUE.match(str(v).strip()) for v in values)
        if not dated and all(_MONTH_NAME.match(str(v).strip()) for v in values):
            continue
        if dated or (name.lower() in _BUCKET_NAMES and len(values) > 1):
            found.append(i)
    return found[0] if len(found) == 1 else None


def _label(columns: Sequence[str], row: Sequence[Any], skip: set[int]) -> str:
    parts = [fmt.cell(v, c) for i, (c, v) in enumerate(zip(columns, row)) if i not in skip and v is not None]
    return " / ".join(parts)


def answer_of(result: RunResult | None, currency: str | None = None, side_by_side: int = 0) -> Answer:
    """`side_by_side`: the rows are that many values named ('rock vs metal'), each of them the answer."""
    if result is None or not result.ok:
        return Answer("none", "no answer")
    columns, rows = fmt.columns_of(result), [list(r) for r in result.rows]  # a COUNT column is never money
    if not rows:
        return Answer("empty", "no rows")
    if tuple(columns[-len(_CHANGE_COLUMNS):]) == _CHANGE_COLUMNS:
        return _change(columns, rows, currency, result)
    if per_group.is_per_group(result):
        return _per_group(columns, rows, result)
    if side_by_side > 1 and 1 < len(rows) <= max(side_by_side, BREAKDOWN_SHOWN):
        return _side_by_side(columns, rows, currency)
    return _shaped(columns, rows, currency, result)


def _side_by_side(columns: list[str], rows: list[list[Any]], currency: str | None) -> Answer:
    """Every value compared with its figure, in the order named ('Rock 174.24 · Metal 55.44'): the largest
    alone is not the answer to 'rock vs metal'."""
    measures = _numeric_at(columns, rows)
    if not measures:
        return Answer("breakdown", " · ".join(_label(columns, r, set()) for r in rows))
    measure = measures[0]
    shown = [f"{_label(columns, r, set(measures))} {fmt.cell(r[measure], columns[measure], currency)}" for r in rows]
    return Answer("breakdown", " · ".join(shown), f"{columns[measure]}, one row per value named")


def _per_group(columns: list[str], rows: list[list[Any]], result: RunResult) -> Answer:
    """Top N per group: the rows of the first groups, by name ('Beverages: Côte de Blaye, Ipoh Coffee · …'),
    and what ranks them; a group whose last rows are one pick of a tie says so."""
    tops = per_group.groups(result)
    rank = [c.lower() for c in columns].index(per_group.RANK_COLUMN)
    label = rank - 2
    listed: dict[str, list[str]] = {}
    for row in rows:
        listed.setdefault(_label(columns, row, set(range(label, len(columns)))), []).append(
            fmt.cell(row[label], columns[label]))
    shown = []
    for (name, members), top in zip(list(listed.items())[:BREAKDOWN_SHOWN], tops.values()):
        shown.append(f"{name}: {', '.join(members)}" + (f" (tied with {fmt.number(top.unshown)} more)" if top.open
                                                        else ""))
    more = f" · {len(listed) - BREAKDOWN_SHOWN} more" if len(listed) > BREAKDOWN_SHOWN else ""
    most = max(len(m) for m in listed.values())
    detail = f"{most} per {columns[0]} by {columns[rank - 1]}, {fmt.number(len(listed))} groups"
    return Answer("breakdown", " · ".join(shown) + more, detail)


def _change(columns: list[str], rows: list[list[Any]], currency: str | None, result: RunResult) -> Answer:
    """A change between two periods. Per group the rows come ranked by the change the reading asked for, so the
    first row is the answer (the group with the largest earlier figure is not). An earlier period that holds
    nothing (a sum of 0 or no rows) says so: its relative change is empty, and a bare 'before = 0' would read as a
    figure."""
    before = len(columns) - len(_CHANGE_COLUMNS)
    empty = sum(1 for r in rows if not _value(r[before]))
    n = fmt.number(len(rows))
    if before == 0:
        if not empty and len(rows) == 1:  # one change: the change and its percentage first, the two figures after
            cells = fmt.row_cells(columns, rows[0], currency)
            if not currency and any(fmt.is_number(v) and not float(v).is_integer() for v in rows[0][:2]):
                cells[2] = fmt.number(rows[0][2], money=True)  # 42.62 to 37.62 is a change of -5.00, not -5
            relative = rows[0][3]
            return Answer("scalar", f"change = {cells[2]}, {fmt.percent(relative, signed=True)}",
                          f"before = {cells[0]}, after = {cells[1]}")
        if not empty:
            return _shaped(columns, rows, currency, result)
        cells = fmt.row_cells(columns, rows[0], currency)
        return Answer("scalar", "nothing in the earlier period, so no relative change",
                      f"before = {cells[0]}, after = {cells[1]}")
    if empty == len(rows):
        return Answer("ranking", "nothing in the earlier period for any of them, so no relative change",
                      f"{n} row{'' if len(rows) == 1 else 's'}")
    first = rows[0]
    money = fmt.row_currency(columns, first, currency)
    relative = first[before + 3]
    said = [f"change = {fmt.cell(first[before + 2], 'change', money)}",
            "no relative change (nothing before)" if relative is None else
            f"relative_change = {fmt.cell(relative, 'relative_change', money)}"]
    if len(rows) > 1:
        said.append(f"first of {n} rows")
    detail = ", ".join(said)
    if empty:
        detail += f"; {fmt.number(empty)} of {n} with nothing in the earlier period (no relative change)"
    return Answer("ranking", _label(columns, first, set(range(before, len(columns)))), detail)


def _tied(columns: list[str], rows: list[list[Any]], tie: ties.Tie, measure: int, measures: list[int],
          currency: str | None, listed: bool = False) -> Answer:
    """Several rows share the top figure: how many (at least, when the tie may go on past the rows returned),
    the figure, and the first few names. `listed`: rows in no figure order, the tie is among all of them."""
    names = [_label(columns, rows[i], set(measures)) for i in tie.rows]
    shown = ", ".join(names[:TIED_SHOWN]) + (", …" if len(names) > TIED_SHOWN or tie.open else "")
    value = fmt.cell(rows[tie.rows[0]][measure], columns[measure], currency)
    of = f" of {fmt.number(len(rows))}" if listed else ""
    return Answer("ranking", f"tied: {tie.count_words()}{of} rows share {columns[measure]} = {value}", shown)


def _shaped(columns: list[str], rows: list[list[Any]], currency: str | None,
            result: RunResult | None = None) -> Answer:
    measures = _numeric_at(columns, rows)
    labels = [i for i in range(len(columns)) if i not in measures]
    money = fmt.row_currency(columns, rows[0], currency) if len(rows) == 1 else currency
    if not labels:  # scalar (or a row of numbers)
        if len(rows) == 1:
            cells = fmt.row_cells(columns, rows[0], currency)
            if len(cells) == 1:
                return Answer("scalar", cells[0], columns[0])
            return Answer("scalar", ", ".join(f"{c} = {v}" for c, v in zip(columns, cells)))
        # a row of numbers says which is which: 'hour = 10, orders = 621', never '10, 621' (read as 10,621)
        cells = fmt.row_cells(columns, rows[0], currency)
        return Answer("ranking", ", ".join(f"{c} = {v}" for c, v in zip(columns, cells)),
                      f"first of {fmt.number(len(rows))} rows")
    measure = measures[0] if measures else None
    if "share" in columns and columns.index("share") in measures:  # one share per group: the share is the answer
        measure = columns.index("share")
    bucket = bucket_column(columns, rows)
    if bucket is not None and measure is not None and len(rows) > 1 and not _ranked_periods(rows, bucket, measure):
        return _series(columns, rows, bucket, measure, currency)
    if measure is None:
        return Answer("ranking", _label(columns, rows[0], set()),
                      "" if len(rows) == 1 else f"first of {fmt.number(len(rows))} rows")
    values = [float(_value(r[measure])) if r[measure] is not None else float("-inf") for r in rows]
    if fmt.currency_column(columns) is not None and not isinstance(columns[measure], fmt.CountColumn):
        # one total per currency: every currency is the answer ('orders per currency' counts: a ranking)
        # (rows with no currency code are said so: an unlabelled total reads as one of the others)
        shown = [f"{_label(columns, r, set(measures)) or 'no currency'} {fmt.number(r[measure], money=True)}"
                 for r in rows[:BREAKDOWN_SHOWN]]
        more = f" · {len(rows) - BREAKDOWN_SHOWN} more" if len(rows) > BREAKDOWN_SHOWN else ""
        return Answer("breakdown", " · ".join(shown) + more, columns[measure])
    first_label = _label(columns, rows[0], set(measures))
    first_value = fmt.cell(rows[0][measure], columns[measure], money)
    tie = ties.top_tie(rows, measure, result)
    # ordered by the figure, either way (a ranking lowest first included): the first row is the answer, or
    # the rows that share its figure are
    ordered = ties.ordered(values)
    if len(rows) > 1 and _listed_rows(result, columns[measure]):
        # 'price list for displays': rows listed by name, whatever order their figures happen to fall in
        return _listing(columns, rows, measure, measures, currency, f"{fmt.number(len(rows))} rows, listed by name")
    if len(rows) > 1 and _grouped_in_label_order(result, columns[measure]):
        # 'number of enrolments per term': one figure per group, listed by the group (ascending by chance is no
        # ranking, and the largest of them is no answer either)
        return _listing(columns, rows, measure, measures, currency, f"{columns[measure]}, one row per group")
    if len(rows) > 1 and _passing_rows(result):
        # 'which customers ordered more than 20 times': every row that passes is the answer, not the first of them
        return _listing(columns, rows, measure, measures, currency, f"{fmt.number(len(rows))} rows pass the condition")
    if len(rows) == 1 or ordered:
        if tie.tied:
            return _tied(columns, rows, tie, measure, measures, money)
        return Answer("ranking", first_label, f"{columns[measure]} = {first_value}")
    if len(labels) > 1 and len({str(r[labels[0]]) for r in rows}) == len(rows):
        # one row per group ('the cheapest product in each category'): the largest row is no answer, the list is
        return _listing(columns, rows, measure, measures, currency,
                        f"{columns[measure]}, one row per {columns[labels[0]]}")
    if tie.tied:  # several share the largest figure: none of them is the largest alone
        return _tied(columns, rows, tie, measure, measures, currency, listed=True)
    top = max(range(len(rows)), key=lambda i: values[i])
    return Answer("breakdown", _label(columns, rows[top], set(measures)),
                  f"largest of {fmt.number(len(rows))}: {columns[measure]} = "
                  f"{fmt.cell(rows[top][measure], columns[measure], currency)}")


def _statement(result: RunResult | None) -> exp.Expression | None:
    """The statement a result ran, parsed (None when it cannot be read)."""
    if result is None or not result.sql:
        return None
    try:
        return sqlglot.parse_one(result.sql, read=result.dialect)
    except sqlglot.errors.ParseError:
        return None


def _listing(columns: Sequence[str], rows: Sequence[Sequence[Any]], measure: int, measures: Sequence[int],
             currency: str | None, note: str) -> Answer:
    """The first rows, each with its figure, and how many more: a list is the answer, not one row of it."""
    shown = [f"{_label(columns, r, set(measures))} {fmt.cell(r[measure], columns[measure], currency)}"
             for r in rows[:BREAKDOWN_SHOWN]]
    more = f" · {len(rows) - BREAKDOWN_SHOWN} more" if len(rows) > BREAKDOWN_SHOWN else ""
    return Answer("breakdown", " · ".join(shown) + more, note)


def _listed_rows(result: RunResult | None, figure: str) -> bool:
    """The statement lists rows (no grouping) in an order that is not its figure's: a list, not a ranking."""
    tree = _statement(result)
    order = tree.args.get("order") if isinstance(tree, exp.Select) else None
    if not isinstance(tree, exp.Select) or tree.args.get("group") is not None or order is None or \
            any(isinstance(node, exp.AggFunc) for node in tree.selects for node in node.walk()):
        return False
    first = order.expressions[0].this if order.expressions else None
    if not isinstance(first, exp.Column):
        return False
    named = {figure} | {node.alias_or_name for node in tree.selects if node.alias_or_name == figure} | {
        c.name for node in tree.selects if node.alias_or_name == figure for c in node.find_all(exp.Column)}
    if figure not in {node.alias_or_name for node in tree.selects}:
        return False  # the statement's names are not the result's: no telling what it is ordered by
    return first.name not in named


def _passing_rows(result: RunResult | None) -> bool:
    """The statement keeps the groups whose figure passes a condition (HAVING) and cuts none off (no LIMIT)."""
    tree = _statement(result)
    return isinstance(tree, exp.Select) and tree.args.get("limit") is None and tree.find(exp.Having) is not None


def _grouped_in_label_order(result: RunResult | None, figure: str) -> bool:
    """The statement groups and orders by what names each group, not by its figure: a breakdown, every row."""
    tree = _statement(result)
    order = tree.args.get("order") if isinstance(tree, exp.Select) else None
    if not isinstance(tree, exp.Select) or tree.args.get("group") is None or order is None or \
            tree.args.get("limit") is not None or not order.expressions:
        return False
    first = order.expressions[0].this
    if figure not in {node.alias_or_name for node in tree.selects}:
        return False
    if isinstance(first, exp.Column) and first.name == figure or first.find(exp.AggFunc) is not None:
        return False
    figures = [node for node in tree.selects if node.alias_or_name == figure]
    return not any(first == node.this if isinstance(node, exp.Alias) else first == node for node in figures)


def _ranked_periods(rows: Sequence[Sequence[Any]], bucket: int, measure: int) -> bool:
    """Periods ordered by their figure, not by time ('the busiest month of 2024'): a ranking of periods."""
    labels = [str(_value(r[bucket])) for r in rows]
    values = [float(_value(r[measure])) if r[measure] is not None else float("-inf") for r in rows]
    return labels != sorted(labels) and ties.ordered(values)


_RATIO_COLUMNS = frozenset({"share", "percent", "rate", "ratio"})


def _additive(column: str) -> bool:
    """Whether a series' figures add up to a total: not a share, an average or a ratio per something."""
    return column not in _RATIO_COLUMNS and not column.startswith(("avg_", "min_", "max_", "weighted_")) and \
        "_per_" not in column


def _series(columns: Sequence[str], rows: Sequence[Sequence[Any]], bucket: int, measure: int,
            currency: str | None) -> Answer:
    others = [i for i in range(len(columns)) if i not in (bucket, measure) and not fmt.is_number(_value(rows[0][i]))]
    buckets = list(dict.fromkeys(str(_value(r[bucket])) for r in rows))
    span = f"{buckets[0]} to {buckets[-1]} ({len(buckets)} {columns[bucket]}s)"
    if others:  # one series per group (say, per currency): the range and how many groups
        groups = list(dict.fromkeys(_label(columns, r, set(range(len(columns))) - set(others)) for r in rows))
        return Answer("series", f"{len(groups)} series ({', '.join(groups[:4])}{'…' if len(groups) > 4 else ''})",
                      span)
    points = [(str(_value(r[bucket])), float(_value(r[measure])) if r[measure] is not None else 0.0) for r in rows]
    peak = max(points, key=lambda p: p[1])
    if all(_WEEKDAY.match(b) for b, _ in points):  # a distribution over the days of the week: which day leads
        top = rows[points.index(peak)]
        return Answer("breakdown", _WEEKDAY.match(peak[0]).group(1),  # type: ignore[union-attr]
                      f"largest of {len(points)} days: {columns[measure]} = "
                      f"{fmt.cell(top[measure], columns[measure], currency)}")
    money = currency if fmt.is_money_column(columns[measure]) else None
    decimals = fmt.is_money_amount(columns[measure], money)

    def amount(value: float) -> str:
        return fmt.with_currency(fmt.number(value, money=decimals), money)

    values = [v for _, v in points]
    if not _additive(columns[measure]):  # shares and averages do not add up: the peak and the lowest period
        known = [(str(_value(r[bucket])), float(_value(r[measure]))) for r in rows if _value(r[measure]) is not None]
        if not known:
            return Answer("series", span, f"no {columns[measure]}: every period is empty")
        high, low = max(known, key=lambda p: p[1]), min(known, key=lambda p: p[1])
        empty = f" ({len(points) - len(known)} empty)" if len(known) < len(points) else ""
        return Answer("series", span, f"{columns[measure]} peak {amount(high[1])} on {high[0]}, lowest "
                                      f"{amount(low[1])} on {low[0]}{empty}")
    total = sum(v for _, v in points)
    if len(points) > 2 and values[0] < values[-1] and all(a <= b for a, b in zip(values, values[1:])):
        # ordered lowest first ('which month had the fewest orders'): the first period is the answer
        return Answer("series", span, f"{columns[measure]} total {amount(total)}, lowest {amount(values[0])} on "
                                      f"{points[0][0]}")
    tied = [b for b, v in points if v == peak[1]]
    if len(tied) > 1:  # 'which year had the most invoices': several share the peak, none is the answer alone
        named = ", ".join(tied[:4]) + (f" and {len(tied) - 4} more" if len(tied) > 4 else "")
        return Answer("series", span, f"{columns[measure]} total {amount(total)}, peak {amount(peak[1])} shared by "
                                      f"{len(tied)} periods ({named})")
    return Answer("series", span, f"{columns[measure]} total {amount(total)}, peak {amount(peak[1])} on {peak[0]}")
