"""Load time and throughput of seed_db per engine and scale.

    python benchmarks/bench_seed_load.py [--scales 1,50] [--engines sqlite,postgresql,mysql]
                                         [--seed 42] [--checksums]

For every (scale, engine) it seeds into a throwaway database (``ac_bench_<hex>`` on the servers, a
temp file for SQLite), prints the load seconds and rows per second, optionally the checksum time
and whether all engines agree, then drops what it made. The pseudo-engine ``generate`` times the
pure-Python row generation alone, the floor every loader shares.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.throwaway import drop, url_for
from seed_db import SEED_TABLES, Dataset, seed_database, table_checksums

ENGINES = ("generate", "sqlite", "postgresql", "mysql")


def _generate_only(scale: int, seed: int) -> tuple[float, int]:
    started = time.perf_counter()
    dataset = Dataset(seed, scale)
    rows = sum(sum(1 for _ in dataset.rows(name)) for name in SEED_TABLES)
    return time.perf_counter() - started, rows


def run(scales: list[int], engines: list[str], seed: int, checksums: bool) -> None:
    print(f"{'scale':>5} {'engine':<11} {'rows':>10} {'load s':>8} {'rows/s':>10} {'checksum s':>10}")
    with tempfile.TemporaryDirectory(prefix="ac_bench_") as tmp:
        for scale in scales:
            digests: dict[str, dict[str, str]] = {}
            for engine_name in engines:
                if engine_name == "generate":
                    seconds, rows = _generate_only(scale, seed)
                    print(f"{scale:>5} {engine_name:<11} {rows:>10,} {seconds:>8.2f} {rows / seconds:>10,.0f} {'':>10}")
                    continue
                db_name = f"ac_bench_{uuid.uuid4().hex[:10]}"
                url = url_for(engine_name, db_name, Path(tmp))
                try:
                    report = seed_database(url, scale=scale, seed=seed, force=True)
                    rows = sum(report.rows.values())
                    checksum_text = ""
                    if checksums:
                        started = time.perf_counter()
                        digests[engine_name] = table_checksums(url)
                        checksum_text = f"{time.perf_counter() - started:.2f}"
                    print(
                        f"{scale:>5} {engine_name:<11} {rows:>10,} {report.seconds:>8.2f} "
                        f"{rows / report.seconds:>10,.0f} {checksum_text:>10}",
                        flush=True,
                    )
                finally:
                    drop(engine_name, db_name)
            if len(digests) > 1:
                agree = all(d == next(iter(digests.values())) for d in digests.values())
                print(f"{scale:>5} checksums identical across {', '.join(digests)}: {agree}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scales", default="1,50", help="comma-separated scales (default 1,50)")
    parser.add_argument("--engines", default="sqlite,postgresql,mysql", help=f"comma-separated, from {', '.join(ENGINES)}")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--checksums", action="store_true", help="also time table_checksums and compare engines")
    args = parser.parse_args(argv)
    engines = [e.strip() for e in args.engines.split(",") if e.strip()]
    unknown = [e for e in engines if e not in ENGINES]
    if unknown:
        parser.error(f"unknown engine(s): {', '.join(unknown)}")
    run([int(s) for s in args.scales.split(",")], engines, args.seed, args.checksums)


if __name__ == "__main__":
    main()
