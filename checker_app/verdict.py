"""The verdict, once: do the readings (or pasted statements) give different answers, and what ran?

Used by the check report, the compare page, `run` and `repair`. Answers are compared at the precision of
their types (adapters.results.same_value). Rankings that measure different things (revenue vs units) are
compared on who comes out on top, not on the numbers, which always differ; where several rows share the top
figure, on the set of them (checker_app.ties), and a tie that fills the rows returned is compared only as far
as those rows show (the verdict says so); readings of the same measure
(one window vs another), scalars and series (rows by period) are compared on every value: two series of
different measures are two answers to "how are sales trending?".

A reading that returned no rows, or did not finish (error, timeout), never counts as agreeing: the
answers are "the same" only when every reading answered, and the verdict text says what was empty and
what did not finish. Refused statements (a model's unsafe SQL) are not runs: their panels say why.
"""
from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from adapters import RunResult
from adapters.results import is_number as _numeric
from adapters.results import same_row, same_rows
from checker_app import per_group, ties

if TYPE_CHECKING:
    from checker_app.report import ReadingResult, Understood, VerdictKind


def engines_agree(results: Sequence[RunResult]) -> bool | None:
    """True when every engine that answered gave the same rows; None when fewer than two answered."""
    answered = [r for r in results if r.ok]
    if len(answered) < 2:
        return None
    return all(answered[0].same_answer(other) for other in answered[1:])


def _figure_column(result: RunResult) -> int | None:
    """The figure that orders the rows: the share of one share per group ('refund rate by store': the share
    orders them, not the part counted first), else the first numeric column."""
    if not result.rows:
        return None
    if "share" in result.columns:
        return list(result.columns).index("share")
    return next((i for i, v in enumerate(result.rows[0]) if _numeric(v)), None)


def _row_identity(row: Sequence[Any]) -> tuple[Any, ...]:
    labels = tuple(v for v in row if not _numeric(v))
    return labels or tuple(row)


def identity(result: RunResult) -> tuple[Any, ...]:
    """Who comes out on top: the non-numeric values (or the whole row when it has none) of the first row of
    rows ordered by their figure (a ranking), else of the row with the highest figure (a breakdown listed by
    name, whose first row is only first in the alphabet). When several rows share the top figure this is the
    first of them only: compare readings with `winners`, which keeps them all."""
    if not result.rows:
        return ()
    return _row_identity(result.rows[_top_row(result.rows, _figure_column(result))])


def _top_row(rows: Sequence[Sequence[Any]], figure: int | None = None) -> int:
    column = figure if figure is not None else next((i for i, v in enumerate(rows[0]) if _numeric(v)), None)
    if column is None or len(rows) < 2:
        return 0
    values = [float(r[column]) if _numeric(r[column]) else float("-inf") for r in rows]
    if ties.ordered(values):
        return 0  # ordered by the figure, either way: the first row is the winner
    return values.index(max(values))


def _listed_by_name(result: RunResult) -> bool:
    """Several rows not ordered by their figure: a breakdown listed by its groups."""
    column = _figure_column(result)
    if column is None or len(result.rows) < 3:
        return False
    return not ties.ordered([float(r[column]) if _numeric(r[column]) else float("-inf") for r in result.rows])


def _ranked_labels(result: RunResult) -> tuple[tuple[str, ...], ...]:
    """The groups of a breakdown, largest figure first."""
    column = _figure_column(result)
    assert column is not None  # a breakdown has a figure
    rows = sorted(result.rows, key=lambda r: (-(float(r[column]) if _numeric(r[column]) else float("-inf")),
                                              [str(v) for v in r if not _numeric(v)]))
    return tuple(tuple(str(v) for v in r if not _numeric(v)) for r in rows)


@dataclass(frozen=True)
class Winners:
    """Who is on top of one reading: every row sharing the top figure (one when nothing ties), and whether the
    tie may go on past the rows returned (a LIMIT filled by tied rows: only "at least" these)."""

    names: tuple[tuple[Any, ...], ...]
    open: bool = False

    @property
    def tied(self) -> bool:
        return len(self.names) > 1

    def matches(self, other: Winners) -> bool | None:
        """True or False when the rows decide it; None when they cannot (a tie past the rows returned whose
        rows are all among the other's winners: the rest of it is not known). Two closed ties are the same
        answer only as the same set of winners; a single winner is a set of one."""
        mine, theirs = self.names, other.names
        inside = _within(mine, theirs)
        if not self.open and not other.open:
            return len(mine) == len(theirs) and inside and _within(theirs, mine)
        if self.open and other.open:
            return None if inside and _within(theirs, mine) else False
        shown, closed = (mine, theirs) if self.open else (theirs, mine)
        if len(closed) < len(shown) or not _within(shown, closed):
            return False  # the closed set lacks a winner shown, or is smaller than the tie already is
        return None


def _within(a: Sequence[tuple[Any, ...]], b: Sequence[tuple[Any, ...]]) -> bool:
    return all(any(same_row(x, y) for y in b) for x in a)


def winners(result: RunResult) -> Winners:
    """The rows on top of `result` (see checker_app.ties), by who they name."""
    if not result.rows:
        return Winners(())
    tie = ties.top_tie(result.rows, _figure_column(result), result)
    return Winners(tuple(_row_identity(result.rows[i]) for i in tie.rows), tie.open)


_PERIOD = re.compile(r"^(?:\d{4}(?:-\d{2}(?:-\d{2})?)?(?:[ T]\d{2}(?::\d{2}){0,2})?|\d{4}-?(?:Q|W)\d{1,2}|Q\d \d{4})$")


def is_series(result: RunResult) -> bool:
    """Rows labelled by period (a date, a year-month, a quarter): a series, whose first row is the earliest
    period every reading shares, not a winner."""
    if len(result.rows) < 2:
        return False
    column = next((i for i, v in enumerate(result.rows[0]) if not _numeric(v)), None)
    if column is None:
        return False
    return all(isinstance(r[column], dt.date) or isinstance(r[column], str) and _PERIOD.match(r[column].strip())
               for r in result.rows)


def _clusters(items: Sequence[Any], same: Callable[[Any, Any], bool]) -> int:
    """How many different answers: items grouped with the first of a group they match."""
    leaders: list[Any] = []
    for item in items:
        if not any(same(item, leader) for leader in leaders):
            leaders.append(item)
    return len(leaders)


def by_winner(answered: Sequence[RunResult]) -> bool:
    """Readings of different measures (revenue, units) are compared on who comes out on top, not on numbers
    that always differ; a series, or readings of one measure, are compared on every row."""
    measures = {tuple(c.lower() for c, v in zip(r.columns, r.rows[0] if r.rows else ()) if _numeric(v))
                for r in answered if r.rows}
    return len(measures) > 1 and not any(is_series(r) for r in answered)


def tie_words(answered: Sequence[RunResult]) -> str:
    """What the verdict adds when readings compared on their winners have ties at the top: "" when none does.
    Tied readings are compared as sets of winners, and a tie that fills the rows returned only on those."""
    if len(answered) > 1 and all(per_group.is_per_group(r) for r in answered):
        # the most groups of one reading whose last rows are one pick of a tie
        cut = max(per_group.open_ties(r) for r in answered)
        return f"{'a' if cut == 1 else cut} group{' ends' if cut == 1 else 's end'} in a tie at the cut, " \
            "compared on the rows above it" if cut else ""
    if len(answered) < 2 or not by_winner(answered) or all(_listed_by_name(r) for r in answered):
        return ""  # breakdowns are compared on the order of all their groups, not on who leads
    tops = [winners(r) for r in answered if r.rows]
    tied = [w for w in tops if w.tied]
    if not tied:
        return ""
    who = f"all {len(tied)}" if len(tied) == len(tops) else str(len(tied))
    said = f"{who} tie at the top, compared as sets of tied winners"
    past = sum(w.open for w in tied)
    if past:  # '2 only on the rows returned': their ties fill the LIMIT, so more rows may share the figure
        said += f" ({'all' if past == len(tied) else past} only on the rows returned)" if len(tied) > 1 else \
            " (only on the rows returned)"
    return said


def readings_divergent(results: Sequence[RunResult], side_by_side: int = 0,
                       top_n: int = 0) -> tuple[bool | None, int]:
    """(divergent, number of distinct answers) over one result per reading; None below two answers.
    `side_by_side`: every reading's rows are that many named values in the order named ('rock vs metal');
    `top_n`: every reading's answer is its first N rows ('top 3 composers'), the same members the same answer;
    1 when one winner is asked ('which store has the most orders'), the same winner the same answer."""
    answered = [r for r in results if r.ok]
    if len(answered) < 2:
        return None, len(answered)
    if any(not r.rows for r in answered):  # an empty list next to others: 'none' is one answer of its own
        filled = [r for r in answered if r.rows]
        _, distinct = readings_divergent(filled, side_by_side, top_n) if len(filled) > 1 else (None, len(filled))
        distinct += 1
        return distinct > 1, distinct
    if all(per_group.is_per_group(r) for r in answered):
        # top N per group: the same (group, row) pairs are the same answer, whatever the figures; a tie at a
        # group's cut is compared on the rows above it
        tops = [per_group.groups(r) for r in answered]
        distinct = _clusters(tops, lambda a, b: per_group.same_answer(a, b) is not False)
        return distinct > 1, distinct
    if side_by_side > 1 and all(len(r.rows) == side_by_side for r in answered):
        distinct = _side_by_side(answered)
        return distinct > 1, distinct
    if top_n > 1 and not any(_listed_by_name(r) for r in answered):
        # 'top 3 composers': two readings naming the same leader and different thirds are different answers; the
        # same three, whatever each one's figure (revenue of all orders or of completed ones), are the same answer
        members = [frozenset(_ranked_labels(r)[:top_n]) for r in answered]
        distinct = _clusters(members, lambda a, b: a == b)
        return distinct > 1, distinct
    if top_n == 1 and not any(_listed_by_name(r) for r in answered):
        # 'which store has the most orders': one winner asked, the same store is the same answer whatever the
        # readings count (all orders or completed ones); a tie is a set of winners
        distinct = _clusters([winners(r) for r in answered], lambda a, b: a.matches(b) is not False)
        return distinct > 1, distinct
    if by_winner(answered):
        if all(_listed_by_name(r) for r in answered):
            # a breakdown ('revenue by country and category'): the same leader is not the same answer; the
            # groups must come in the same order by each reading's own figure
            distinct = _clusters([_ranked_labels(r) for r in answered], lambda a, b: a == b)
        else:  # undecided pairs (a tie past the rows returned) are not counted as different
            distinct = _clusters([winners(r) for r in answered], lambda a, b: a.matches(b) is not False)
    else:
        distinct = _clusters(answered, lambda a, b: same_rows(a.rows, b.rows))
    return distinct > 1, distinct


def _side_order(result: RunResult) -> tuple[int, ...]:
    """The values compared, by position as named, largest figure first."""
    column = _figure_column(result)
    figures = [float(r[column]) if column is not None and _numeric(r[column]) else float("-inf") for r in result.rows]
    return tuple(sorted(range(len(figures)), key=lambda i: -figures[i]))


def _side_by_side(answered: Sequence[RunResult]) -> int:
    """Distinct answers of readings that compare the same named values row by row (one row per value, in the
    order named; a value read as Metal or as Metal and Heavy Metal is labelled differently but is the same
    side): of different measures, on which value comes out ahead of which; of one measure, on each value's
    figures."""
    if by_winner(answered):
        return _clusters([_side_order(r) for r in answered], lambda a, b: a == b)
    figures = [[[v for v in row if _numeric(v)] for row in r.rows] for r in answered]
    return _clusters(figures, lambda a, b: same_rows(a, b, True))


# -- what ran -----------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Tally:
    """Per reading: answered with rows, answered with no rows, or did not finish on any engine."""

    total: int
    answered: tuple[RunResult, ...]      # the first engine's result with rows, one per reading
    empty: int
    unfinished: tuple[str, ...]          # the status of each reading that did not finish (error, timeout)
    listed_empty: int = 0                # lists with no rows: answered, the answer is 'none'

    @property
    def complete(self) -> bool:
        return len(self.answered) == self.total

    def what_else(self) -> str:
        """"1 returned no rows; 2 did not finish (timeout)", or ""."""
        parts = []
        if self.empty:
            parts.append(f"{self.empty} returned no rows")
        if self.unfinished:
            kinds = ", ".join(sorted(set(self.unfinished)))
            parts.append(f"{len(self.unfinished)} did not finish ({kinds})")
        return "; ".join(parts)


def tally(readings: Sequence[ReadingResult]) -> Tally:
    answered, empty, unfinished, listed_empty = [], 0, [], 0
    for reading in readings:
        ran = [r for r in reading.results.values() if r.status != "rejected"]
        ok = [r for r in ran if r.ok]
        if ok and any(r.rows for r in ok):
            answered.append(next(r for r in ok if r.rows))
        elif ok and getattr(reading, "lists", False):
            answered.append(ok[0])  # an empty list is an answer: nothing is absent, no row matches
            listed_empty += 1
        elif ok:
            empty += 1
        elif ran:
            unfinished.append(ran[0].status)
    return Tally(len(readings), tuple(answered), empty, tuple(unfinished), listed_empty)


def divergence(readings: Sequence[ReadingResult]) -> tuple[bool | None, int]:
    """(divergent, distinct answers) over the readings that answered with rows; None below two."""
    sides = {getattr(r, "side_by_side", 0) for r in readings}
    tops = {getattr(r, "top_n", 0) for r in readings}
    return readings_divergent(list(tally(readings).answered), sides.pop() if len(sides) == 1 else 0,
                              tops.pop() if len(tops) == 1 else 0)


# -- the verdict --------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Verdict:
    kind: VerdictKind
    text: str


def _ignored_text(understood: Understood) -> str:
    words = [f"'{i.text}'" for i in understood.ignored]
    if not words:
        return "partly understood: some words were not read"
    listed = ", ".join(words[:-1]) + f" and {words[-1]}" if len(words) > 1 else words[0]
    return f"partly understood: {listed} {'was' if len(words) == 1 else 'were'} not read"


def judge(readings: Sequence[ReadingResult], *, ambiguous: bool, divergent: bool | None, distinct: int,
          answered: str | None = None, understood: Understood | None = None, archetypes: Sequence[str] = (),
          noun: str = "readings") -> Verdict:
    """The verdict on `readings` (the judged ones: the rules' when the model's are there too).

    `answered` says how the person's answer anchored the readings to one; `noun` is "readings"
    (a question) or "statements" (pasted SQL, always alternatives of each other). A misspelt word read as a
    schema word is said on the verdict line, whatever the verdict."""
    verdict = _judge(readings, ambiguous=ambiguous, divergent=divergent, distinct=distinct, answered=answered,
                     understood=understood, archetypes=archetypes, noun=noun)
    read_as = list(getattr(understood, "read_as", None) or [])
    if not read_as:
        return verdict
    said = ", ".join(f"{_quoted(r.text.strip())} read as {_quoted(r.word)}" if r.word else
                     f"{_quoted(r.text.strip())} set aside as context" for r in read_as)
    return Verdict(verdict.kind, f"{verdict.text} ({said})")


def _quoted(text: str) -> str:
    """'averge', but "'97": a word that holds an apostrophe is quoted with double quotes."""
    return f'"{text}"' if "'" in text else f"'{text}'"


def _judge(readings: Sequence[ReadingResult], *, ambiguous: bool, divergent: bool | None, distinct: int,
           answered: str | None, understood: Understood | None, archetypes: Sequence[str], noun: str) -> Verdict:
    if understood is not None and not understood.complete:
        return Verdict("partial", _ignored_text(understood))  # a reading of half a question is not an answer
    n = len(readings)
    if answered is not None and n == 1:
        return Verdict("answered", f"answered: one reading, {answered}")
    if not ambiguous:
        if n == 0 and noun == "readings":  # nothing was built, so nothing is clear (the report's notes say why)
            return Verdict("unanswered", "no reading could be built for this question")
        return Verdict("clear", "clear: one reading")
    counted = tally(readings)
    more = counted.what_else()
    tied = tie_words(counted.answered)
    if divergent is True:
        return Verdict("material", f"{n} {noun}, {distinct} different answers" + (f"; {more}" if more else "")
                       + (f"; {tied}" if tied else ""))
    if divergent is False and counted.complete:
        none = ": no rows" if counted.listed_empty == n else ""
        same = f"ambiguous wording, same answer{none} ({n} readings agree)" if noun == "readings" else \
            f"{n} {noun}, same answer"
        return Verdict("benign", same + (f"; {tied}" if tied else ""))
    if divergent is False:
        return Verdict("unanswered", f"{len(counted.answered)} of {n} {noun} agree; {more}: not enough to call "
                                     "the answers the same")
    if noun == "statements" and n < 2:
        return Verdict("unanswered", "paste at least two statements to compare")
    if n > 1 and more:
        return Verdict("unanswered", f"{n} {noun}, nothing to compare: {more}")
    if noun == "statements":
        return Verdict("unanswered", "fewer than two statements ran: nothing to compare")
    return Verdict("unanswered", f"ambiguous ({', '.join(archetypes)}): needs a clarification before anything "
                                 "can be compared")
