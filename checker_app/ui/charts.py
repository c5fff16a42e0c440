"""Which chart fits the question, and its data (no streamlit here; the page draws it with Altair).

* series (rows over days, weeks, months, hours): one line per reading over its whole range;
* scalars (one number per reading): one bar per reading;
* rankings (rows naming things): the top N of each reading, as a share of that reading's leader
  (readings measure different things, so shares are what compare).

Legends use short, distinct names: the parts of the labels every reading shares are dropped, and a name
still too long is cut (with a number in front when two would read the same).
"""
from __future__ import annotations

import datetime as dt
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from adapters.results import json_value
from checker_app import format as fmt
from checker_app import per_group
from checker_app.answers import answer_of, bucket_column
from checker_app.report import ReadingResult

TOP_N = 5
SHORT = 56
# a categorical palette without red (red is the page's error colour) and readable on light and dark themes
PALETTE = ("#2563eb", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#4b5563",
           "#65a30d", "#7c3aed")
_WEEK = re.compile(r"^(\d{4})-W(\d{1,2})$")
_MONTH = re.compile(r"^(\d{4})-(\d{1,2})$")


@dataclass
class ChartSpec:
    kind: str                 # line | bar | ranking
    title: str
    rows: list[dict[str, Any]] = field(default_factory=list)  # {reading, x, value, label}
    y_title: str = ""
    temporal: bool = False    # x holds dates (series on a time axis)
    order: list[str] = field(default_factory=list)  # legend order (reading names)
    grains: list[str] = field(default_factory=list)  # series of several bucket sizes: one panel per size


_GRAINS = ((re.compile(r"^\d{4}-W\d{1,2}$"), "per week"), (re.compile(r"^\d{4}-\d{2}$"), "per month"),
           (re.compile(r"^\d{4}-\d{2}-\d{2}$"), "per day"), (re.compile(r"^\d{4}-Q[1-4]$"), "per quarter"),
           (re.compile(r"^\d{4}$"), "per year"), (re.compile(r"\d{1,2}:\d{2}"), "per hour"))


def grain_of(bucket: str) -> str:
    """The size of a series' bucket, from how it is written (2025-06-24: a day, 2025-W14: a week)."""
    text = bucket.strip()
    return next((name for pattern, name in _GRAINS if pattern.search(text)), "per period")


_PAREN = re.compile(r"\s*\([^()]*\)")


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)].rstrip(" ,") + "…"


def _cut_parts(name: str, limit: int) -> str:
    """A long "a / b / c" name cut part by part (every choice keeps its first words), not only at its end,
    so names that differ in their last part stay distinct."""
    parts = name.split(" / ")
    room = limit - 3 * (len(parts) - 1)
    widths = [len(p) for p in parts]
    while sum(widths) > room and max(widths) > 6:  # shorten the longest part a character at a time
        widths[widths.index(max(widths))] -= 1
    return _cut(" / ".join(_cut(p, w) for p, w in zip(parts, widths)), limit)


def short_labels(readings: Sequence[ReadingResult], limit: int = SHORT, numbered: bool = True) -> list[str]:
    """Short, distinct names for a legend, in the readings' order (names that still collide get their number,
    unless `numbered` is False: tabs carry their own)."""
    parts = [[p.strip() for p in r.label.split(" / ")] for r in readings]
    if len(parts) > 1:
        width = min(len(p) for p in parts)
        shared = {i for i in range(width) if len({p[i] for p in parts}) == 1}
        if len(shared) < width or any(len(p) > width for p in parts):
            parts = [[x for i, x in enumerate(p) if i not in shared] or p for p in parts]
    names = [" / ".join(p) for p in parts]
    if any(len(n) > limit for n in names):  # "Revenue (unit price x quantity)" is "Revenue" when that stays distinct
        bare = [" / ".join(_PAREN.sub("", x).strip() or x for x in p) for p in parts]
        if len(set(bare)) == len(set(names)):
            names = bare
    names = [n if len(n) <= limit else _cut_parts(n, limit) for n in names]
    counts = Counter(names)
    return [f"{i}. {n}" if counts[n] > 1 and numbered else n for i, n in enumerate(names, 1)]


def _as_date(value: Any) -> dt.date | None:
    if isinstance(value, dt.datetime):
        return value.date()
    if isinstance(value, dt.date):
        return value
    text = str(value).strip()
    if len(text) >= 10:
        try:
            return dt.date.fromisoformat(text[:10])
        except ValueError:
            return None
    if m := _WEEK.match(text):
        try:
            return dt.date.fromisocalendar(int(m.group(1)), int(m.group(2)), 1)
        except ValueError:
            return None
    if m := _MONTH.match(text):
        month = int(m.group(2))
        return dt.date(int(m.group(1)), month, 1) if 1 <= month <= 12 else None
    return None


def _measure_at(columns: Sequence[str], rows: Sequence[Sequence[Any]], skip: int | None = None) -> int | None:
    for i in range(len(columns)):
        if i != skip and all(fmt.is_number(r[i]) for r in rows if r[i] is not None) and any(
                r[i] is not None for r in rows):
            return i
    return None


def _figure_at(columns: Sequence[str], rows: Sequence[Sequence[Any]], skip: int | None = None) -> int | None:
    """The column a chart draws: a share when the rows carry one ('cancellation rate by month': the rate, not the
    count of cancellations it divides, as the answer reads it), else the first numeric column."""
    if "share" in columns:
        share = list(columns).index("share")
        if share != skip and _measure_at([columns[share]], [[r[share]] for r in rows]) is not None:
            return share
    return _measure_at(columns, rows, skip)


def _series_rows(reading: ReadingResult, name: str) -> tuple[list[dict[str, Any]], str] | None:
    result = reading.first_ok()
    if result is None or len(result.rows) < 2:
        return None
    columns, rows = list(result.columns), [list(r) for r in result.rows]
    bucket = bucket_column(columns, rows)
    measure = _figure_at(columns, rows, bucket)
    if bucket is None or measure is None:
        return None
    groups = [i for i in range(len(columns)) if i not in (bucket, measure) and not fmt.is_number(rows[0][i])]
    out = []
    for row in rows:
        group = " / ".join(str(json_value(row[i])) for i in groups)
        value = float(row[measure]) if row[measure] is not None else None
        out.append({"reading": f"{name} · {group}" if group else name, "x": str(json_value(row[bucket])),
                    "value": value})
    return out, columns[measure]


def chart_spec(readings: Sequence[ReadingResult], top_n: int = TOP_N) -> ChartSpec | None:
    """The chart that fits these readings' answers, or None (fewer than two answers to compare, and no series)."""
    names = dict(zip((id(r) for r in readings), short_labels(readings)))
    answered = [(r, answer_of(r.first_ok(), fmt.currency_of_choices(r.choices, [r.label]), r.side_by_side))
                for r in readings]
    shapes = Counter(a.shape for _, a in answered if a.shape not in ("none", "empty"))
    if not shapes:
        return None
    shape = shapes.most_common(1)[0][0]
    picked = [r for r, a in answered if a.shape == shape]
    if shape == "series":
        return _series_chart(picked, names)
    if len(picked) < 2:
        return None
    if shape == "scalar":
        rows = []
        for reading in picked:
            result = reading.first_ok()
            at = _measure_at(result.columns, result.rows) if result else None
            if at is not None and result.rows[0][at] is not None:
                value = float(result.rows[0][at])
                rows.append({"reading": names[id(reading)], "x": names[id(reading)], "value": value,
                             "label": fmt.cell(result.rows[0][at], fmt.columns_of(result)[at], fmt.currency_of_choices(
                                 reading.choices, [reading.label]))})
        if len(rows) < 2:
            return None
        return ChartSpec("bar", "What each reading returns", rows, order=[r["reading"] for r in rows])
    rows = []
    cut = False
    for reading in picked:
        result = reading.first_ok()
        if per_group.is_per_group(result):
            # the top N of each group ('top 2 sellers in each category'): a top 5 across the groups would rank
            # rows the question never compared; the table shows them group by group
            continue
        measure = _figure_at(result.columns, result.rows)
        if measure is None:
            continue
        cut = cut or sum(r[measure] is not None for r in result.rows) > top_n
        top = [r for r in result.rows if r[measure] is not None]
        top = sorted(top, key=lambda r: float(r[measure]), reverse=True)[:top_n]
        leader = max((abs(float(r[measure])) for r in top), default=0.0) or 1.0
        for row in top:
            label = " / ".join(fmt.cell(v, c) for i, (c, v) in enumerate(zip(result.columns, row))
                               if i != measure and not fmt.is_number(v))
            rows.append({"reading": names[id(reading)], "x": label, "value": round(100.0 * float(row[measure]) / leader, 1),
                         "label": f"{result.columns[measure]} = {fmt.cell(row[measure], fmt.columns_of(result)[measure])}"})
    if len({r["reading"] for r in rows}) < 2:
        return None
    # 'berlin vs london': two rows per reading are no top 5
    title = (f"The top {top_n} of each reading (share of that reading's leader)" if cut
             else "Each reading's rows (share of that reading's largest)")
    return ChartSpec("ranking", title, rows,
                     "% of the reading's top value", order=list(dict.fromkeys(r["reading"] for r in rows)))


def _series_chart(picked: Sequence[ReadingResult], names: dict[int, str]) -> ChartSpec | None:
    rows: list[dict[str, Any]] = []
    measures = set()
    for reading in picked:
        got = _series_rows(reading, names[id(reading)])
        if got is None:
            continue
        series, measure = got
        rows += series
        measures.add(measure)
    if not rows:
        return None
    for row in rows:
        row["grain"] = grain_of(row["x"])
    dates = [_as_date(r["x"]) for r in rows]
    temporal = all(d is not None for d in dates)
    if temporal:
        for row, date in zip(rows, dates):
            row["x"] = date.isoformat()
    y_title = next(iter(measures)) if len(measures) == 1 else "value"
    if len(measures) > 1:  # readings measuring different things: each as a share of its own peak
        peaks: dict[str, float] = {}
        for row in rows:
            peaks[row["reading"]] = max(peaks.get(row["reading"], 0.0), abs(row["value"] or 0.0))
        for row in rows:
            row["value"] = round(100.0 * (row["value"] or 0.0) / (peaks[row["reading"]] or 1.0), 1)
        y_title = "% of the reading's peak"
    for row in rows:
        row["label"] = fmt.number(row["value"])
    grains = list(dict.fromkeys(r["grain"] for r in rows))
    # days next to months on one axis flatten the days to a line along zero: one panel per bucket size
    return ChartSpec("line", "Each reading over its whole range", rows, y_title, temporal,
                     order=list(dict.fromkeys(r["reading"] for r in rows)), grains=grains if len(grains) > 1 else [])
