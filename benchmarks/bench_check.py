"""Detection speed and end-to-end check time on the demo database.

    python benchmarks/bench_check.py [--repeat 30]

1. Questions per second for detection alone (`archetypes.detect` over the labelled questions of the
   demo database, profile built once, one core).
2. Median end-to-end `check("What is the top-selling product?")` with three engines (SQLite,
   PostgreSQL, MariaDB seeded into throwaway databases), profiles warm, as the page and `batch` run it.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from adapters import Database, Limits, parse_db_option  # noqa: E402
from archetypes import detect  # noqa: E402
from benchmarks.throwaway import seeded_demo  # noqa: E402
from checker_app.pipeline import check  # noqa: E402
from checker_app.profiles import load_profile  # noqa: E402

QUESTIONS = ROOT / "tests" / "fixtures" / "labelled" / "demo.jsonl"
DEMO_QUESTIONS = ("What is the top-selling product?", "How are sales trending?", "Show me revenue for Acme",
                  "What were sales yesterday?", "How many products are there?")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    with seeded_demo() as urls:
        databases = [Database(parse_db_option(f"{n}={u}"), Limits()) for n, u in urls.items()]
        questions = [json.loads(line)["q"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
        profile = load_profile(databases[0])
        # entity lookups are cached per (profile, term): warm them, then time detection alone
        for question in questions:
            detect(question, profile)
        rounds, started = 0, time.process_time()
        while time.process_time() - started < 3.0:
            for question in questions:
                detect(question, profile)
            rounds += 1
        seconds = time.process_time() - started
        print(f"detection: {rounds * len(questions) / seconds:,.0f} questions/s of CPU time on one core "
              f"({len(questions)} labelled demo questions)")

        for question in DEMO_QUESTIONS:
            check(question, databases)  # warm: profiles, pools, entity lookups
            times = []
            for _ in range(args.repeat):
                report = check(question, databases)
                times.append(report.elapsed_ms)
            print(f"check, 3 engines, median of {args.repeat}: {statistics.median(times):6.1f} ms "
                  f"(p90 {sorted(times)[int(0.9 * len(times)) - 1]:6.1f})  {question!r} -> {report.verdict_text}")
        for db in databases:
            db.dispose()


if __name__ == "__main__":
    main()
