"""Where a check's time goes, per engine and per statement.

    python benchmarks/bench_statements.py --db sqlite=URL --db postgresql=URL --db mysql=URL [--repeat 7]
        [--question "What is the top-selling product?"] [--checks-only]

The question is checked once (warm: profiles, pools); then each of its statements, as the check sent it, is
run on its engine one at a time, three ways, interleaved, median of `repeat`:

* `run`: through `Database.run` (the checks, the pooled connection, the read-only transaction, the time limit,
  the bounded fetch);
* `driver`: the same text on a pooled connection through the driver alone (execute, fetch all), no checks
  and no settings: `run - driver` is the adapter's own cost per statement;
* `engine`: the engine's own account where it gives one (PostgreSQL `EXPLAIN (ANALYZE)` execution time,
  MariaDB `ANALYZE FORMAT=JSON` r_total_time_ms); SQLite runs in the process, so its `driver` figure is it.

Then the whole check (median of `repeat`) with every engine, and with each engine alone, so the side by side
cost is visible against the sum of the parts; and the CPU time one check costs each party, from /proc (Linux,
local servers): this process (the checker, and SQLite, which runs in it), PostgreSQL (the postmaster's
processes, exited parallel workers included) and MariaDB (`mariadbd`). Another session using the same servers
at the same time adds its CPU to theirs: read those two with the machine's other work in mind. Wall times on a
shared machine: the load is printed.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(os.environ.get("CHECKER_BENCH_CODE") or Path(__file__).resolve().parent.parent).resolve()
sys.path.insert(0, str(ROOT))

from adapters import Database, Limits, parse_db_option  # noqa: E402
from checker_app.pipeline import check  # noqa: E402


def _load() -> str:
    return f"[load {os.getloadavg()[0]:.1f}]"


def _ms(fn: Callable[[], Any]) -> float:
    started = time.perf_counter()
    fn()
    return (time.perf_counter() - started) * 1000


def _driver(db: Database, text: str) -> None:
    with db.engine.connect() as conn:
        raw: Any = conn.connection.dbapi_connection
        cursor = raw.cursor()
        cursor.execute(text)
        cursor.fetchall()
        cursor.close()
        conn.rollback()


def _engine_ms(db: Database, text: str) -> float | None:
    """The engine's own execution time for `text`, where it reports one."""
    if db.backend == "sqlite":
        return None
    with db.engine.connect() as conn:
        raw: Any = conn.connection.dbapi_connection
        cursor = raw.cursor()
        try:
            if db.backend == "postgresql":
                cursor.execute("SET jit = off")
                cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {text}")
                plan = cursor.fetchone()[0]
                plan = json.loads(plan) if isinstance(plan, str) else plan
                return float(plan[0]["Execution Time"]) + float(plan[0].get("Planning Time", 0.0))
            cursor.execute(f"ANALYZE FORMAT=JSON {text}")
            plan = json.loads(cursor.fetchone()[0])
            return float(plan["query_block"].get("r_total_time_ms", 0.0))
        finally:
            cursor.close()
            conn.rollback()


def _ticks(pid: int, children: bool = False) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15 if children else 13])  # utime stime (cutime cstime)


def _server_cpu_s() -> dict[str, float]:
    """CPU seconds used so far by the local PostgreSQL and MariaDB servers (0 where not found)."""
    cpu = {"postgresql": 0.0, "mariadb": 0.0}
    if not Path("/proc").is_dir():
        return cpu
    hz = os.sysconf("SC_CLK_TCK")
    parents: dict[int, int] = {}
    names: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            names[int(entry.name)] = stat[stat.index("(") + 1:stat.rindex(")")]
            parents[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    for pid, name in names.items():
        try:
            if name == "postgres" and names.get(parents[pid]) != "postgres":  # the postmaster: its own and exited children
                cpu["postgresql"] += _ticks(pid, children=True) / hz
            elif name == "postgres":
                cpu["postgresql"] += _ticks(pid) / hz
            elif name == "mariadbd" or name == "mysqld":
                cpu["mariadb"] += _ticks(pid) / hz
        except OSError:
            continue
    return cpu


def _per_check(question: str, databases: list[Database], repeat: int) -> None:
    """Median wall time of a check on `databases`, and the CPU one check costs each party, averaged over the
    same checks (from /proc: Linux only)."""
    walls = []
    before_servers, before_self = _server_cpu_s(), time.process_time()
    for _ in range(repeat):
        walls.append(_ms(lambda: check(question, databases)))
    own = (time.process_time() - before_self) / repeat * 1000
    servers = {k: (v - before_servers[k]) / repeat * 1000 for k, v in _server_cpu_s().items()}
    print(f"check on {', '.join(db.name for db in databases)}: median {statistics.median(walls):.0f} ms; CPU per "
          f"check, mean of {repeat}: this process (the checker, and SQLite) {own:.0f} ms, PostgreSQL "
          f"{servers['postgresql']:.0f} ms, MariaDB {servers['mariadb']:.0f} ms {_load()}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", action="append", required=True, metavar="NAME=URL")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--question", default="What is the top-selling product?")
    parser.add_argument("--checks-only", action="store_true", help="skip the statements one at a time")
    args = parser.parse_args()
    databases = [Database(parse_db_option(option), Limits()) for option in args.db]
    report = check(args.question, databases)  # warm
    print(f"{args.question!r}: {len(report.interpretations)} readings on {len(databases)} engines {_load()}")
    for db in [] if args.checks_only else databases:
        texts = [str(r.sql[db.name]) for r in report.interpretations if db.name in r.sql]
        sums = {"run": 0.0, "driver": 0.0, "engine": 0.0}
        print(f"\n## {db.name} ({db.backend}): median of {args.repeat}, one statement at a time")
        for number, text in enumerate(texts, 1):
            times: dict[str, list[float]] = {"run": [], "driver": [], "engine": []}
            for _ in range(args.repeat):
                times["run"].append(_ms(partial(db.run, text)))
                times["driver"].append(_ms(partial(_driver, db, text)))
                own = _engine_ms(db, text)
                if own is not None:
                    times["engine"].append(own)
            medians = {k: statistics.median(v) if v else float("nan") for k, v in times.items()}
            for key, value in medians.items():
                if value == value:
                    sums[key] += value
            print(f"  {number}: run {medians['run']:6.1f} ms  driver {medians['driver']:6.1f} ms  "
                  f"engine {medians['engine']:6.1f} ms  {_load()}")
        print(f"  sum: run {sums['run']:.1f} ms, driver {sums['driver']:.1f} ms, engine {sums['engine']:.1f} ms")
    print()
    for chosen in [databases, *([db] for db in databases)]:
        _per_check(args.question, chosen, args.repeat * 2)
    for db in databases:
        db.dispose()


if __name__ == "__main__":
    main()
