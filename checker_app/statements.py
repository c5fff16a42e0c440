"""Statements to results, once for every caller (check, run, repair, the checker and compare pages).

`render_for` checks one pasted statement and writes it in each engine's dialect; `Rendered` writes a
reading's statement per engine when the runner first asks for it; `run_statements` runs jobs side by side
on every engine, through the ambiguous-column repair pass unless told not to, and reuses the answers a
caller keeps (`batch`: a statement already answered on an engine is not sent again).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence

import sqlglot
from sqlglot.errors import SqlglotError

from adapters import Database, Job, Limits, RunResult, UnsafeStatementError, parse_query, run_side_by_side
from adapters.runner import RunOne


def render_for(sql: str, read: str | None, databases: Sequence[Database]) -> dict[str, str]:
    """The statement in each engine's dialect (checked once, rendered per engine)."""
    query = parse_query(sql, read)
    rendered: dict[str, str] = {}
    for db in databases:
        try:
            rendered[db.name] = query.sql(dialect=db.dialect, unsupported_level=sqlglot.ErrorLevel.RAISE)
        except SqlglotError as err:
            raise UnsafeStatementError(f"cannot render for {db.dialect}: {str(err).splitlines()[0]}") from None
    return rendered


class Rendered(Mapping[str, str]):
    """{engine name: statement text}, each written when first asked for and kept. The runner asks as it
    submits, so the first engine starts on its statement while the others are still being written."""

    def __init__(self, writers: dict[str, Callable[[], str]]) -> None:
        self._writers = writers
        self._written: dict[str, str] = {}

    def __getitem__(self, name: str) -> str:
        if name not in self._written:
            self._written[name] = self._writers[name]()
        return self._written[name]

    def __contains__(self, name: object) -> bool:
        return name in self._writers  # without writing it (the runner asks before it submits)

    def __iter__(self) -> Iterator[str]:
        return iter(self._writers)

    def __len__(self) -> int:
        return len(self._writers)


Answered = MutableMapping[tuple[str, str, Limits], RunResult]


def _reusing(run_one: RunOne, answered: Answered) -> RunOne:
    """`run_one`, answering a statement already answered on the same engine under the same limits from
    `answered` (only answers are kept: an error or a timeout is tried again)."""

    def run(db: Database, sql: str, limits: Limits) -> RunResult:
        key = (db.name, str(sql), limits)  # the text: a built statement's tree is not kept with the answer
        kept = answered.get(key)
        if kept is not None:
            return dataclasses.replace(kept)
        result = run_one(db, sql, limits)
        if result.ok:
            answered[key] = result
        return result

    return run


def _plain(db: Database, sql: str, limits: Limits) -> RunResult:
    return db.run(sql, limits)


def run_one_for(repair: bool) -> RunOne:
    """The repair pass, or a plain run."""
    if not repair:
        return _plain
    from adapters.repair import run_with_repair

    return run_with_repair


def run_statements(jobs: Sequence[Job], databases: Sequence[Database], limits: Limits | None = None,
                   repair: bool = True, answered: Answered | None = None) -> dict[str, dict[str, RunResult]]:
    """{job key: {engine name: RunResult}}: every job on every engine it has SQL for, at once (a statement
    in `answered` for its engine is not sent again, and every new answer is added to it)."""
    if not jobs:
        return {}
    run_one = run_one_for(repair)
    return run_side_by_side(jobs, databases, limits, run_one=run_one if answered is None else _reusing(run_one, answered))
