"""Side-by-side wall time for 3 statements x 3 engines against the sum of the single runs.

    python benchmarks/bench_side_by_side.py [--repeat 5] [--scale 1]

Seeds the demo database into throwaway databases on SQLite, PostgreSQL and MariaDB, runs three
reading-style statements once each (warm-up), then measures: every (statement, engine) alone, one
after another (the sum), and all nine at once through the runner (the wall time). Drops what it made.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from adapters import Database, Job, Limits, parse_db_option, run_side_by_side
from benchmarks.throwaway import seeded_demo

STATEMENTS = {
    "revenue": "SELECT p.name, SUM(i.unit_price * i.quantity) AS revenue FROM order_items i "
               "JOIN products p ON p.id = i.product_id GROUP BY p.name ORDER BY revenue DESC LIMIT 5",
    "units": "SELECT p.name, SUM(i.quantity) AS units FROM order_items i "
             "JOIN products p ON p.id = i.product_id GROUP BY p.name ORDER BY units DESC LIMIT 5",
    "orders": "SELECT p.name, COUNT(DISTINCT i.order_id) AS orders FROM order_items i "
              "JOIN products p ON p.id = i.product_id GROUP BY p.name ORDER BY orders DESC LIMIT 5",
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--scale", type=int, default=1)
    args = parser.parse_args()
    with seeded_demo(args.scale) as urls:
        databases = [Database(parse_db_option(f"{n}={u}"), Limits()) for n, u in urls.items()]
        jobs = [Job(key, {db.name: sql for db in databases}) for key, sql in STATEMENTS.items()]
        run_side_by_side(jobs, databases)  # warm-up: pools connected, caches warm
        sums, walls, slowest = [], [], []
        for _ in range(args.repeat):
            singles = []
            for job in jobs:
                for db in databases:
                    started = time.perf_counter()
                    result = db.run(job.sql[db.name])
                    singles.append(time.perf_counter() - started)
                    assert result.ok, result.error
            sums.append(sum(singles))
            slowest.append(max(singles))
            started = time.perf_counter()
            results = run_side_by_side(jobs, databases)
            walls.append(time.perf_counter() - started)
            assert all(r.ok for cell in results.values() for r in cell.values())
        print(f"3 statements x 3 engines, scale {args.scale}, median of {args.repeat}:")
        print(f"  sum of single runs   {statistics.median(sums) * 1000:8.1f} ms")
        print(f"  slowest single run   {statistics.median(slowest) * 1000:8.1f} ms")
        print(f"  side by side (wall)  {statistics.median(walls) * 1000:8.1f} ms")
        for db in databases:
            db.dispose()


if __name__ == "__main__":
    main()
