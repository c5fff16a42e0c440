"""Run N statements x M engines at once, with a bounded pool.

A slow or dead engine never blocks the others: each cell has a deadline (the time limit plus a grace
period for connecting, and never past the check's overall deadline), and a cell that misses it is
reported as a timeout while its daemon thread finishes in the background (the engine's own time limit
or the driver's read timeout ends it; it can never keep the process alive).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, wait
from dataclasses import dataclass

from adapters import deadline
from adapters.database import Database, Limits
from adapters.errors import EngineErrorInfo
from adapters.results import RunResult
from adapters.threads import DaemonPool

MAX_WORKERS = 8
GRACE_S = 5.0  # connect timeout and driver overhead on top of the statement time limit


@dataclass(frozen=True)
class Job:
    """One statement to run, already rendered per engine name (engines missing from `sql` are skipped)."""

    key: str
    sql: Mapping[str, str]


RunOne = Callable[[Database, str, Limits], RunResult]


def _run_plain(database: Database, sql: str, limits: Limits) -> RunResult:
    return database.run(sql, limits)


def run_side_by_side(jobs: Sequence[Job], databases: Sequence[Database], limits: Limits | None = None,
                     run_one: RunOne = _run_plain, max_workers: int = MAX_WORKERS) -> dict[str, dict[str, RunResult]]:
    """{job key: {engine name: RunResult}} for every job on every database it has SQL for.

    `run_one` lets callers wrap a run (the repair pass reruns a statement after fixing it).
    """
    cells = [(job, db) for job in jobs for db in databases if db.name in job.sql]
    results: dict[str, dict[str, RunResult]] = {job.key: {} for job in jobs}
    if not cells:
        return results
    executor = DaemonPool(max(1, min(max_workers, len(cells))), "runner")
    futures: dict[Future[RunResult], tuple[Job, Database]] = {}
    try:
        for job, db in cells:
            cell_limits = limits or db.limits
            futures[executor.submit(run_one, db, job.sql[db.name], cell_limits)] = (job, db)
        budget = max((limits or db.limits).time_limit_s for _, db in cells) + GRACE_S
        # queued cells start late when the pool is smaller than the work: give each wave its budget
        waves = -(-len(cells) // max(1, min(max_workers, len(cells))))
        waited = max(0.0, deadline.remaining(budget * waves))
        done, _ = wait(futures, timeout=waited)
        for future, (job, db) in futures.items():
            if future in done and future.exception() is None:
                results[job.key][db.name] = future.result()
            elif future in done:
                results[job.key][db.name] = _failed(job, db, f"internal error: {future.exception()}")
            else:
                future.cancel()
                results[job.key][db.name] = _failed(job, db, f"no answer within {waited:.0f} s", timeout=True)
    finally:
        for future in futures:
            future.cancel()
        executor.shutdown()
    return results


def _failed(job: Job, db: Database, message: str, timeout: bool = False) -> RunResult:
    return RunResult(
        engine=db.name, dialect=db.dialect, sql=str(job.sql[db.name]),
        status="timeout" if timeout else "error",
        error=EngineErrorInfo("timeout" if timeout else "other", None, message),
    )


def timed(fn: Callable[[], object]) -> float:
    """Seconds taken by fn() (used by benchmarks)."""
    started = time.perf_counter()
    fn()
    return time.perf_counter() - started
