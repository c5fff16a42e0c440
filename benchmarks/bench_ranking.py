"""Rankings grouped by key against grouped by name, statement by statement, on the demo at scale 50.

    python benchmarks/bench_ranking.py --db sqlite=URL --db postgresql=URL --db mysql=URL [--repeat 3]
        [--question "What is the top-selling product?"]

Each reading of the question is built twice from the same profile: as the checker builds it now (grouped
by the foreign key, names joined afterwards) and as it did before (grouped by the name and the key over a
join of the entity's table, forced by patching `keyed_route`). The two statements run one at a time,
interleaved, so both see the same machine; the figure is the median wall time of each, with the load.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import archetypes.query as query_module  # noqa: E402
from adapters import Database, Limits, parse_db_option  # noqa: E402
from checker_app.profiles import load_profile, lookup_for  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--db", action="append", required=True, metavar="NAME=URL")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--question", default="What is the top-selling product?")
    parser.add_argument("--timeout", type=float, default=30.0)
    args = parser.parse_args()
    from archetypes import analyse

    for option in args.db:
        db = Database(parse_db_option(option), Limits(time_limit_s=args.timeout))
        profile = load_profile(db)
        new = analyse(args.question, profile, lookup=lookup_for(db))
        original = query_module.keyed_route
        query_module.keyed_route = lambda spec, profile: None  # type: ignore[assignment]
        try:
            old = analyse(args.question, profile, lookup=lookup_for(db))
        finally:
            query_module.keyed_route = original
        print(f"\n## {db.name}: {args.question!r}, median of {args.repeat}, one statement at a time")
        for reading_new, reading_old in zip(new.interpretations, old.interpretations):
            times: dict[str, list[float]] = {"by name": [], "by key": []}
            status = {}
            for _ in range(args.repeat):
                for label, reading in (("by name", reading_old), ("by key", reading_new)):
                    started = time.perf_counter()
                    result = db.run(reading.sql(db.dialect))
                    times[label].append(time.perf_counter() - started)
                    status[label] = result.status
            by_name, by_key = (statistics.median(times[k]) for k in ("by name", "by key"))
            print(f"{by_name:6.2f} s ({status['by name']}) -> {by_key:6.2f} s ({status['by key']})  "
                  f"{reading_new.id}  [load {os.getloadavg()[0]:.1f}]")
        db.dispose()


if __name__ == "__main__":
    main()
