"""Two calendar periods a question compares: 'from october to november 2024', 'between march and april',
'was may better than april', 'q3 2025 compared with q2', 'from h1 2024 to h1 2025', 'apr-jun 2024 to apr-jun 2025'.

A period is a month, a run of months, a quarter or a half, with or without its year. Two ways of naming the
pair, read the way an analyst reads them:

* a span, 'from X to Y' or 'between X and Y': X is the earlier period. One year applies to both unless that puts
  Y before X ('from november to february 2024'), when the period without a year moves a year so that X comes
  first. With no year, Y is the latest such period begun by the as-of date and X the latest one before it.
* a comparison, 'X compared with Y', 'X better than Y', 'more in X than in Y': X is compared against Y
  (Y is the baseline). One year applies to both; with none, each is the latest such period begun by the as-of
  date. 'X vs Y' sets two periods side by side: the earlier is the baseline, whichever is said first.
"""
from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from archetypes import calendar
from archetypes.intent import _MONTH_RE as MONTH_PATTERN

_MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December")
_ORDINALS = {"first": 1, "1st": 1, "second": 2, "2nd": 2, "third": 3, "3rd": 3, "fourth": 4, "4th": 4}


def _period(tag: str) -> str:
    """One period, its parts in named groups prefixed by `tag`."""
    month = "(?:" + MONTH_PATTERN[1:]   # its one capturing group, the outer one, made plain
    return (rf"(?P<{tag}>(?:the\s+)?(?:(?P<{tag}m>{month})(?:\s*[-–]\s*(?P<{tag}m2>{month}))?"
            rf"|q(?P<{tag}q>[1-4])|(?P<{tag}qo>first|second|third|fourth|1st|2nd|3rd|4th)\s+quarter"
            rf"|h(?P<{tag}h>[12])|(?P<{tag}ho>first|second|1st|2nd)\s+half)(?:'s)?"
            rf"(?:,?\s+(?:of\s+)?'?(?P<{tag}y>(?:19|20)\d{{2}}|\d{{2}}))?)\b")


_A, _B = _period("a"), _period("b")
_SPAN = re.compile(r"\b(?:from|between)\s+" + _A + r"\s+(?P<link>to|and)\s+" + _B)
# 'h1 2024 to h1 2025', '2024 -> 2025' (the arrow is read as 'to'): a span with no 'from', each period with its year
_BARE_SPAN = re.compile(r"\b" + _A + r"\s+(?P<link>to)\s+" + _B)
# 'compare the trips in february and march': the two periods a comparison was asked of, the earlier first
_COMPARED_AND = re.compile(r"\b(?:compare|compares|compared|comparing|comparison)\b.*?\b" + _A +
                           r"\s+(?P<link>and|&)\s+" + _B)
_COMPARISON = re.compile(
    r"\b" + _A + r"(?:\s+[a-z'$]+){0,4}?\s+(?P<link>(?:(?:is|was|were|are)\s+)?(?:(?:better|worse|higher|lower|bigger|"
    r"smaller|stronger|weaker|greater|more|less|fewer)\s+than|(?:up|down)\s+(?:on|from|against)|than|"
    r"beat|beats|outperform(?:ed|s)?|outs(?:old|ell|ells)|top(?:ped)?|"
    r"compared?\s+(?:to|with|against)|compares\s+(?:to|with)|against|versus|vs\.?|over))\s+(?:(?:in|the)\s+)*" + _B)


def _full_year(said: str) -> int:
    """'98' is 1998, '24' is 2024: a two-digit year in the century that puts it nearest today's data."""
    year = int(said)
    return year if year >= 100 else (1900 + year if year >= 70 else 2000 + year)


@dataclass(frozen=True)
class PeriodPair:
    before: calendar.Window
    after: calendar.Window
    spans: tuple[tuple[int, int], ...]    # the two periods' words and the words linking them
    years_named: int                       # 2, 1 (applied to both) or 0 (the latest begun)


@dataclass(frozen=True)
class _Named:
    first_month: int
    months: int
    year: int | None
    kind: str           # month | quarter | half


def find_pair(lower: str, as_of: dt.date) -> PeriodPair | None:
    """The two periods `lower` (the question in lower case) compares, before first, or None."""
    for pattern, ordered in ((_SPAN, True), (_COMPARISON, False), (_BARE_SPAN, True), (_COMPARED_AND, True)):
        if (m := pattern.search(lower)) is None:
            continue
        a, b = _named(m, "a"), _named(m, "b")
        if a is None or b is None or pattern is _BARE_SPAN and (a.year is None or b.year is None):
            continue
        first, second = _resolve_span(a, b, as_of) if ordered else _resolve_comparison(a, b, as_of)
        before, after = (first, second) if ordered else (second, first)
        if not ordered and m.group("link").rstrip(".") in ("vs", "versus") and after.start < before.start:
            # 'h1 24 vs h1 25': two periods side by side, read in the order of time (a change runs forward);
            # 'this year vs last' comes out the same ('may better than april' keeps its order)
            before, after = after, before
        spans = ((m.start(), m.end("a")), m.span("link"), m.span("b"))
        return PeriodPair(before, after, spans, (a.year is not None) + (b.year is not None))
    return None


def _month(word: str) -> int:
    word = word[:3]
    return next(i + 1 for i, name in enumerate(_MONTH_NAMES) if name.lower().startswith(word))


def _named(m: re.Match, tag: str) -> _Named | None:
    year = _full_year(m.group(f"{tag}y")) if m.group(f"{tag}y") else None
    if m.group(f"{tag}m"):
        first = _month(m.group(f"{tag}m"))
        last = _month(m.group(f"{tag}m2")) if m.group(f"{tag}m2") else first
        return _Named(first, (last - first) % 12 + 1, year, "month")
    if m.group(f"{tag}q") or m.group(f"{tag}qo"):
        number = int(m.group(f"{tag}q")) if m.group(f"{tag}q") else _ORDINALS[m.group(f"{tag}qo")]
        return _Named(3 * (number - 1) + 1, 3, year, "quarter")
    if m.group(f"{tag}h") or m.group(f"{tag}ho"):
        number = int(m.group(f"{tag}h")) if m.group(f"{tag}h") else _ORDINALS[m.group(f"{tag}ho")]
        return _Named(6 * (number - 1) + 1, 6, year, "half")
    return None


def _start(named: _Named, year: int) -> dt.date:
    return dt.date(year, named.first_month, 1)


def _latest_begun(named: _Named, as_of: dt.date) -> int:
    return as_of.year if _start(named, as_of.year) <= as_of else as_of.year - 1


def _resolve_span(a: _Named, b: _Named, as_of: dt.date) -> tuple[calendar.Window, calendar.Window]:
    if a.year is not None and b.year is not None:
        years = (a.year, b.year)
    elif b.year is not None:
        years = (b.year if _start(a, b.year) < _start(b, b.year) else b.year - 1, b.year)
    elif a.year is not None:
        years = (a.year, a.year if _start(b, a.year) > _start(a, a.year) else a.year + 1)
    else:
        later = _latest_begun(b, as_of)
        years = (later if _start(a, later) < _start(b, later) else later - 1, later)
    return _window(a, years[0]), _window(b, years[1])


def _resolve_comparison(a: _Named, b: _Named, as_of: dt.date) -> tuple[calendar.Window, calendar.Window]:
    def year_of(named: _Named, other: _Named) -> int:
        if named.year is not None:
            return named.year
        if other.year is not None:
            year = other.year
            return year if _start(named, year) <= as_of else year - 1
        return _latest_begun(named, as_of)
    return _window(a, year_of(a, b)), _window(b, year_of(b, a))


def _window(named: _Named, year: int) -> calendar.Window:
    start = _start(named, year)
    end = calendar.add_months(start, named.months)
    if named.kind == "quarter":
        label = f"Q{(named.first_month - 1) // 3 + 1} {year}"
    elif named.kind == "half":
        label = f"H{(named.first_month - 1) // 6 + 1} {year}"
    elif named.months == 1:
        label = f"{_MONTH_NAMES[named.first_month - 1]} {year}"
    else:
        last = calendar.add_months(end, -1)
        label = f"{_MONTH_NAMES[start.month - 1][:3]}–{_MONTH_NAMES[last.month - 1][:3]} {year}"
        if last.year != start.year:
            label = f"{_MONTH_NAMES[start.month - 1][:3]} {year}–{_MONTH_NAMES[last.month - 1][:3]} {last.year}"
    return calendar.Window(start, end, label)
