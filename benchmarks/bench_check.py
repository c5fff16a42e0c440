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
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import sqlalchemy as sa  # noqa: E402

from adapters import Database, Limits, parse_db_option  # noqa: E402
from archetypes import detect  # noqa: E402
from checker_app.pipeline import check  # noqa: E402
from checker_app.profiles import load_profile  # noqa: E402
from seed_db import seed_database  # noqa: E402

PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
MYSQL_ADMIN = "mysql+pymysql://root@127.0.0.1:3306/"
QUESTIONS = ROOT / "tests" / "fixtures" / "labelled" / "demo.jsonl"
DEMO_QUESTIONS = ("What is the top-selling product?", "How are sales trending?", "Show me revenue for Acme",
                  "What were sales yesterday?", "How many products are there?")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args()
    name = f"ac_bench_{uuid.uuid4().hex[:8]}"
    tmp = Path(tempfile.mkdtemp())
    urls = {
        "sqlite": f"sqlite:///{tmp / 'bench.sqlite'}",
        "postgres": sa.make_url(PG_ADMIN).set(database=name).render_as_string(hide_password=False),
        "mysql": sa.make_url(MYSQL_ADMIN).set(database=name).render_as_string(hide_password=False),
    }
    try:
        for url in urls.values():
            seed_database(url)
        databases = [Database(parse_db_option(f"{n}={u}"), Limits()) for n, u in urls.items()]
        questions = [json.loads(line)["q"] for line in QUESTIONS.read_text().splitlines() if line.strip()]
        profile = load_profile(databases[0])
        # entity lookups are cached per (profile, term): warm them, then time detection alone
        for question in questions:
            detect(question, profile)
        rounds, started = 0, time.perf_counter()
        while time.perf_counter() - started < 3.0:
            for question in questions:
                detect(question, profile)
            rounds += 1
        seconds = time.perf_counter() - started
        print(f"detection: {rounds * len(questions) / seconds:,.0f} questions/s on one core "
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
    finally:
        for admin in (PG_ADMIN, MYSQL_ADMIN):
            engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT")
            with engine.connect() as conn:
                suffix = " WITH (FORCE)" if admin.startswith("postgresql") else ""
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}{suffix}")
            engine.dispose()


if __name__ == "__main__":
    main()
