"""Scoring the archetype detectors against a labelled question set.

A labelled set is one or more JSONL files, a case per line (blank lines are skipped)::

    {"q": "What is the top-selling product?", "db": "demo",
     "fire": ["ranking_metric"], "not": ["timeframe", "entity"], "note": "article's example"}

* ``db`` names the connection the question is asked of (``demo``, ``chinook``, ``northwind``).
* ``fire``: archetypes that must be detected (positives); ``not``: archetypes that must stay silent
  (negatives), or ``"*"`` for every archetype not in ``fire``. An archetype in neither list is
  unlabelled for that case and does not count either way.
* A case with an empty ``fire`` is a *clear* question: any detection at all on it counts towards the
  false-positive rate on clear questions.

Labelling convention: label what a careful analyst would call ambiguous on that schema, not what a
detector happens to do today. ``unit`` fires only where money is summed or asked across several
currencies (the demo database); ``timezone`` only where timestamps come from stores in several zones
(the demo database); ``aggregation_level`` for months/quarters/years only where a fiscal calendar
exists (the demo database), for weeks anywhere (ISO or Sunday weeks).

This module never touches streamlit or openai; detection is passed in as a function so the
arithmetic can be tested without a database (`detector_for` builds the real one).
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from adapters import CheckerError
from checker_app.evaluation.table import figure, share, text_table

if TYPE_CHECKING:
    from adapters import Database

#: Archetype ids a label may name (the registry's ids; a typo in a data file is an error, not a silent zero).
ARCHETYPE_IDS: tuple[str, ...] = (
    "ranking_metric", "timeframe", "insufficient_info", "custom_visualization",
    "entity", "timezone", "aggregation_level", "unit", "record_scope", "schema_mapping",
)
ALL = "*"
_KEYS = {"q", "db", "fire", "not", "note"}

#: Given a case, the archetype ids detected for its question.
DetectFn = Callable[["Case"], Iterable[str]]


class CaseFileError(CheckerError):
    """A labelled-case file that cannot be read, or a line in it that is not a valid case."""

    def __init__(self, source: str, line: int | None, reason: str) -> None:
        self.source, self.line, self.reason = source, line, reason
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True)
class Case:
    question: str
    db: str
    fire: frozenset[str]
    forbid: frozenset[str] | None  # None means "*": every archetype not in `fire`
    note: str = ""
    source: str = ""
    line: int = 0

    @property
    def clear(self) -> bool:
        return not self.fire

    @property
    def where(self) -> str:
        return f"{Path(self.source).name}:{self.line}" if self.source else f"line {self.line}"

    def label(self, archetype: str) -> bool | None:
        """True: must fire; False: must stay silent; None: unlabelled here."""
        if archetype in self.fire:
            return True
        if self.forbid is None or archetype in self.forbid:
            return False
        return None


# -- loading ------------------------------------------------------------------------------------

def parse_case(text: str, source: str = "<string>", line: int = 1,
               known: Sequence[str] = ARCHETYPE_IDS) -> Case:
    """One JSONL line as a Case; CaseFileError naming `source:line` when it is not one."""

    def bad(reason: str) -> CaseFileError:
        return CaseFileError(source, line, reason)

    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise bad(f"not valid JSON ({err.msg} at column {err.colno})") from None
    if not isinstance(data, dict):
        raise bad("expected a JSON object")
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise bad(f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}")
    for key in ("q", "db"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise bad(f'"{key}" must be a non-empty string')
    note = data.get("note", "")
    if not isinstance(note, str):
        raise bad('"note" must be a string')

    def ids(key: str, allow_all: bool) -> frozenset[str] | None:
        value = data.get(key, [])
        if allow_all and value == ALL:
            return None
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise bad(f'"{key}" must be a list of archetype ids' + (' or "*"' if allow_all else ""))
        if allow_all and ALL in value:
            if len(value) > 1:
                raise bad(f'"{key}": "*" must stand alone')
            return None
        wrong = [v for v in value if v not in known]
        if wrong:
            raise bad(f'"{key}": unknown archetype {", ".join(wrong)}; known: {", ".join(known)}')
        return frozenset(value)

    fire = ids("fire", allow_all=False) or frozenset()
    forbid = ids("not", allow_all=True)
    if forbid is not None and fire & forbid:
        raise bad(f'{", ".join(sorted(fire & forbid))} is in both "fire" and "not"')
    if not fire and forbid is not None and not forbid:
        raise bad('a clear question (empty "fire") must list what stays silent in "not" (or "*")')
    return Case(data["q"].strip(), data["db"].strip(), fire, forbid, note, source, line)


def load_cases(path: str | Path, known: Sequence[str] = ARCHETYPE_IDS) -> list[Case]:
    """Cases from a .jsonl file, or from every *.jsonl file in a directory (sorted by name)."""
    path = Path(path)
    if path.is_dir():
        files = sorted(path.glob("*.jsonl"))
        if not files:
            raise CaseFileError(str(path), None, "no *.jsonl files in this directory")
    elif path.is_file():
        files = [path]
    else:
        raise CaseFileError(str(path), None, "no such file or directory")
    cases: list[Case] = []
    for file in files:
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise CaseFileError(str(file), None, f"cannot read: {err}") from None
        for number, raw in enumerate(text.splitlines(), start=1):
            if raw.strip():
                cases.append(parse_case(raw, str(file), number, known))
    return cases


# -- scoring ------------------------------------------------------------------------------------

@dataclass
class ArchetypeScore:
    archetype: str
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def positives(self) -> int:
        return self.tp + self.fn

    @property
    def negatives(self) -> int:
        return self.fp + self.tn

    @property
    def precision(self) -> float | None:
        return share(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return share(self.tp, self.tp + self.fn)

    def to_dict(self) -> dict[str, Any]:
        return {"positives": self.positives, "negatives": self.negatives, "tp": self.tp, "fp": self.fp,
                "fn": self.fn, "tn": self.tn, "precision": self.precision, "recall": self.recall}


@dataclass(frozen=True)
class Outcome:
    """One evaluated case: what fired, what was missed, what fired that must not have."""

    case: Case
    fired: tuple[str, ...]
    missed: tuple[str, ...]
    unexpected: tuple[str, ...]  # labelled "not" (or, on a clear question, anything at all)
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None and not self.missed and not self.unexpected

    def to_dict(self) -> dict[str, Any]:
        return {"where": self.case.where, "db": self.case.db, "q": self.case.question,
                "expected": sorted(self.case.fire), "got": list(self.fired), "missed": list(self.missed),
                "unexpected": list(self.unexpected), "error": self.error, "note": self.case.note}


@dataclass
class EvalReport:
    scores: dict[str, ArchetypeScore]
    outcomes: list[Outcome]
    skipped: dict[str, int] = field(default_factory=dict)  # db name -> cases not run (not configured)

    @property
    def evaluated(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error is None]

    @property
    def errors(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.error is not None]

    @property
    def clear_total(self) -> int:
        return sum(1 for o in self.evaluated if o.case.clear)

    @property
    def clear_fired(self) -> int:
        return sum(1 for o in self.evaluated if o.case.clear and o.fired)

    @property
    def clear_fp_rate(self) -> float | None:
        return share(self.clear_fired, self.clear_total)

    @property
    def misses(self) -> list[Outcome]:
        return [o for o in self.evaluated if not o.ok]

    def floor_failures(self, min_recall: float = 0.9, max_clear_fp_rate: float = 0.1,
                       min_positives: int = 3) -> list[str]:
        """Why the floors do not hold (empty when they do): recall per archetype with at least
        `min_positives` positive cases, and the false-positive rate on clear questions."""
        problems = []
        for score in self.scores.values():
            if score.positives >= min_positives and (score.recall or 0.0) < min_recall:
                problems.append(f"{score.archetype}: recall {score.recall:.2f} < {min_recall} "
                                f"({score.fn} of {score.positives} missed)")
        rate = self.clear_fp_rate
        if rate is not None and rate > max_clear_fp_rate:
            problems.append(f"clear questions: false-positive rate {rate:.2f} > {max_clear_fp_rate} "
                            f"({self.clear_fired} of {self.clear_total})")
        return problems

    def to_dict(self) -> dict[str, Any]:
        by_db = Counter(o.case.db for o in self.evaluated)
        return {
            "cases": len(self.outcomes) + sum(self.skipped.values()),
            "evaluated": len(self.evaluated),
            "by_db": dict(sorted(by_db.items())),
            "skipped": dict(sorted(self.skipped.items())),
            "archetypes": {a: s.to_dict() for a, s in self.scores.items()},
            "clear": {"cases": self.clear_total, "fired": self.clear_fired, "fp_rate": self.clear_fp_rate},
            "misses": [o.to_dict() for o in self.misses],
            "errors": [o.to_dict() for o in self.errors],
        }


def evaluate(cases: Sequence[Case], detect: DetectFn, skip_dbs: Iterable[str] = (),
             archetypes: Sequence[str] = ARCHETYPE_IDS) -> EvalReport:
    """Run `detect` on every case whose db is not in `skip_dbs` and score it.

    A detector that raises on a case is recorded as an error for that case (not scored)."""
    skip = set(skip_dbs)
    skipped: Counter[str] = Counter()
    outcomes: list[Outcome] = []
    for case in cases:
        if case.db in skip:
            skipped[case.db] += 1
            continue
        try:
            fired = tuple(dict.fromkeys(detect(case)))
        except Exception as err:  # noqa: BLE001 - one broken case must not hide the rest of the evaluation
            outcomes.append(Outcome(case, (), (), (), error=f"{type(err).__name__}: {err}"))
            continue
        missed = tuple(sorted(case.fire - set(fired)))
        unexpected = tuple(a for a in fired if case.clear or case.label(a) is False)
        outcomes.append(Outcome(case, fired, missed, unexpected))

    names = list(archetypes) + sorted({a for o in outcomes for a in o.fired} - set(archetypes))
    scores = {name: ArchetypeScore(name) for name in names}
    for outcome in outcomes:
        if outcome.error is not None:
            continue
        for name, score in scores.items():
            label = outcome.case.label(name)
            if label is None:
                continue
            hit = name in outcome.fired
            if label:
                score.tp += hit
                score.fn += not hit
            else:
                score.fp += hit
                score.tn += not hit
    return EvalReport(scores, outcomes, dict(skipped))


# -- the real detector --------------------------------------------------------------------------

def detector_for(databases: Mapping[str, Database]) -> DetectFn:
    """`archetypes.detect` on each case's connection, its schema profile loaded once per connection."""
    from archetypes import detect
    from checker_app.profiles import load_profile, lookup_for

    lookups = {name: lookup_for(db) for name, db in databases.items()}

    def run(case: Case) -> list[str]:
        db = databases[case.db]
        profile = load_profile(db)  # cached on the Database after the first call
        return [d.archetype for d in detect(case.question, profile, lookups[case.db])]

    return run


# -- plain text ---------------------------------------------------------------------------------

def report_text(report: EvalReport, show_misses: bool = True) -> str:
    rows = [("archetype", "pos", "neg", "TP", "FP", "FN", "precision", "recall")]
    for s in report.scores.values():
        if s.positives or s.negatives:
            rows.append((s.archetype, str(s.positives), str(s.negatives), str(s.tp), str(s.fp), str(s.fn),
                         figure(s.precision), figure(s.recall)))
    lines = text_table(rows)
    by_db = Counter(o.case.db for o in report.evaluated)
    lines.append("")
    lines.append(f"cases evaluated: {len(report.evaluated)} ("
                 + ", ".join(f"{db}: {n}" for db, n in sorted(by_db.items())) + ")")
    lines.append(f"clear questions: {report.clear_total}, with any archetype fired: {report.clear_fired} "
                 f"(false-positive rate {figure(report.clear_fp_rate)})")
    if report.skipped:
        lines.append(f"skipped (database not configured): {sum(report.skipped.values())} ("
                     + ", ".join(f"{db}: {n}" for db, n in sorted(report.skipped.items())) + ")")
    for outcome in report.errors:
        lines.append(f"error {outcome.case.where} [{outcome.case.db}] {outcome.case.question!r}: {outcome.error}")
    if show_misses and report.misses:
        lines.append("")
        lines.append("misses:")
        for o in report.misses:
            parts = []
            if o.missed:
                parts.append("missed " + ", ".join(o.missed))
            if o.unexpected:
                parts.append("unexpected " + ", ".join(o.unexpected))
            expected = ", ".join(sorted(o.case.fire)) or "nothing (clear)"
            lines.append(f"  {o.case.where} [{o.case.db}] {o.case.question!r}: expected {expected}; "
                         f"got {', '.join(o.fired) or 'nothing'} ({'; '.join(parts)})")
    return "\n".join(lines)
