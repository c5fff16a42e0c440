"""Check time at scale, side by side on SQLite, PostgreSQL and MariaDB, in one run.

    python benchmarks/bench_scale.py [--repeat 7] [--sections demo,demo50,history,batch]
        [--demo50 NAME=URL ...] [--history NAME=URL ...]

* demo: the demo database (scale 1, seeded into throwaway databases): median `check` of the top-selling
  and the trend questions, and the checker's own overhead per check (wall time minus the span during
  which statements were on the engines: analysis, rendering, verdict, report).
* demo50: the demo at scale 50 (pass --demo50 URLs seeded with `seed --scale 50`, else seeded here):
  every example question's median, and timeouts at the default 5 s limit.
* history: the subscription history schema of >= 3M rows (`seed --schema history --scale 30`; pass
  --history URLs, else seeded here): time from the start of a `check` to the first statement sent, on
  a fresh process-like connection whose stored profile is already on disk (the second and later CLI
  calls), and timeouts.
* batch: `ambiguity-checker batch` on the demo with 200 questions against 1 question, as subprocesses;
  the marginal cost per question is (T200 - T1) / 199. The 200 are the 11 example questions repeated.
* first: questions asked for the first time (the demo's labelled and gold questions, each once, on the same
  connections): the checker's own part per check (as in demo) and the process's CPU time per check.
* distinct: `batch` of 200 distinct questions (the same source) against 1, as subprocesses: the marginal
  cost of a question the batch has not seen.

CHECKER_BENCH_CODE=DIR measures the checker in DIR with this script (`bench_before_after.py --same-bench`),
so a section added here measures an older version too.

Numbers are wall times on whatever machine runs this: read them with its load (printed) in mind.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
ROOT = Path(os.environ.get("CHECKER_BENCH_CODE") or HERE).resolve()  # the checker measured
sys.path.insert(0, str(ROOT))

from adapters import Database, Limits, parse_db_option  # noqa: E402
from benchmarks.throwaway import seeded_demo  # noqa: E402
from checker_app.pipeline import check  # noqa: E402
from checker_app.profiles import stored_profile  # noqa: E402
from checker_app.report import Report  # noqa: E402

EXAMPLES = ("What is the top-selling product?", "Show me revenue for Acme", "How are sales trending?",
            "Revenue by month", "What were sales yesterday?", "Total revenue in dollars",
            "Show daily order counts for June 2025", "How many orders per week in the first half of 2025?",
            "Top product by revenue in 2025", "Revenue in dollars for the Toronto store in 2024",
            "How many products are there?")
FIRST_TIME_SOURCES = ("labelled/demo.jsonl", "gold/demo.jsonl", "gold/later/demo.jsonl", "gold/later2/demo.jsonl",
                      "gold/later3/demo.jsonl", "gold/later4/demo.jsonl")
HISTORY_QUESTIONS = ("How many customers do we have?", "Which plan has the most subscriptions?",
                     "How are invoices trending?", "Total invoice amount by month", "Invoices per day last week",
                     "Which customer paid the most?")


class Timed:
    """Records when statements start and end on a set of connections (instrumentation, not a stand-in)."""

    def __init__(self, databases: list[Database]) -> None:
        self.lock = threading.Lock()
        self.starts: list[float] = []
        self.ends: list[float] = []
        for db in databases:
            original = db.run

            def run(sql, limits=None, _original=original):
                with self.lock:
                    self.starts.append(time.perf_counter())
                try:
                    return _original(sql, limits)
                finally:
                    with self.lock:
                        self.ends.append(time.perf_counter())

            db.run = run  # type: ignore[method-assign]

    def reset(self) -> None:
        with self.lock:
            self.starts.clear()
            self.ends.clear()


def _load() -> str:
    """The machine's load with each figure (1-minute average, 2 cores): read every figure with it."""
    return f"  [load {os.getloadavg()[0]:.1f}]"


def _connect(urls: dict[str, str]) -> list[Database]:
    return [Database(parse_db_option(f"{name}={url}"), Limits()) for name, url in urls.items()]


def _timeouts(report: Report) -> dict[str, int]:
    """{engine name: readings that timed out} in a report (every engine named, 0 included)."""
    counts: dict[str, int] = {}
    for reading in report.interpretations:
        for name, result in reading.results.items():
            counts[name] = counts.get(name, 0) + (result.status == "timeout")
    return counts


def _per_engine(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items() if count)


def _median_check(question: str, databases: list[Database], timed: Timed, repeat: int) -> tuple[float, float, int]:
    """(median ms, median overhead ms, timeouts in the last run)."""
    wall, overhead, counts = _median_check_by_engine(question, databases, timed, repeat)
    return wall, overhead, sum(counts.values())


def _median_check_by_engine(question: str, databases: list[Database], timed: Timed,
                            repeat: int) -> tuple[float, float, dict[str, int]]:
    """(median ms, median overhead ms, {engine: timeouts in the last run})."""
    check(question, databases)  # warm: profiles, pools, entity lookups
    walls: list[float] = []
    overheads: list[float] = []
    timeouts: dict[str, int] = {}
    for _ in range(repeat):
        timed.reset()
        started = time.perf_counter()
        report = check(question, databases)
        wall = (time.perf_counter() - started) * 1000
        engine = (max(timed.ends) - min(timed.starts)) * 1000 if timed.starts else 0.0
        walls.append(wall)
        overheads.append(wall - engine)
        timeouts = _timeouts(report)
    return statistics.median(walls), statistics.median(overheads), timeouts


def section_demo(urls: dict[str, str], repeat: int) -> None:
    databases = _connect(urls)
    timed = Timed(databases)
    print("\n## demo database, scale 1, three engines")
    for question in ("What is the top-selling product?", "How are sales trending?"):
        wall, overhead, timeouts = _median_check(question, databases, timed, repeat)
        print(f"{question!r}: median {wall:7.1f} ms, checker overhead {overhead:5.1f} ms, timeouts {timeouts}"
              f"{_load()}")
    overheads = [_median_check(q, databases, timed, max(3, repeat // 2))[1] for q in EXAMPLES]
    print(f"checker overhead per check over the {len(EXAMPLES)} example questions: median "
          f"{statistics.median(overheads):.1f} ms, max {max(overheads):.1f} ms{_load()}")


def section_demo50(urls: dict[str, str], repeat: int) -> None:
    databases = _connect(urls)
    timed = Timed(databases)
    print("\n## demo database, scale 50 (1,020,000 order items), three engines")
    for question in EXAMPLES:
        wall, _, timeouts = _median_check_by_engine(question, databases, timed, repeat)
        print(f"{wall:8.0f} ms  timeouts {sum(timeouts.values())} ({_per_engine(timeouts) or 'none'})  {question!r}{_load()}")


def section_history(urls: dict[str, str], repeat: int) -> None:
    print("\n## history schema (subscriptions, 2.8M invoices), three engines")
    for db in _connect(urls):  # the first call of all: builds and stores the profiles
        started = time.perf_counter()
        entry = stored_profile(db)
        print(f"{db.name}: profile {'read from the store' if entry.reused else 'built'} in "
              f"{(time.perf_counter() - started):.2f} s")
    for question in HISTORY_QUESTIONS:
        firsts: list[float] = []
        walls: list[float] = []
        timeouts: dict[str, int] = {}
        for _ in range(repeat):
            databases = _connect(urls)  # as a new CLI process would: nothing in memory, the store on disk
            timed = Timed(databases)
            started = time.perf_counter()
            report = check(question, databases)
            walls.append((time.perf_counter() - started) * 1000)
            firsts.append((min(timed.starts) - started) * 1000 if timed.starts else float("nan"))
            timeouts = _timeouts(report)
            for db in databases:
                db.dispose()
        print(f"before the first statement {statistics.median(firsts):6.1f} ms, check {statistics.median(walls):7.0f} ms, "
              f"timeouts {sum(timeouts.values())} ({_per_engine(timeouts) or 'none'})  {question!r}{_load()}")


def first_time_questions(count: int) -> list[str]:
    """`count` distinct demo questions none of the example questions repeats (this script's own fixtures,
    so every version measured gets the same questions)."""
    import json

    found: list[str] = []
    for name in FIRST_TIME_SOURCES:
        for line in (HERE / "tests" / "fixtures" / name).read_text(encoding="utf-8").splitlines():
            question = json.loads(line)["q"] if line.strip() else None
            if question and question not in found and question not in EXAMPLES:
                found.append(question)
    return found[:count]


def section_first(urls: dict[str, str], count: int = 60) -> None:
    """Each question checked once (the analysis, the statements written and checked, the answers: nothing
    reused), after the example questions warmed the profiles and pools."""
    databases = _connect(urls)
    timed = Timed(databases)
    for question in EXAMPLES:
        check(question, databases)
    print(f"\n## demo database, three engines, {count} questions asked for the first time")
    walls, overheads, cpus = [], [], []
    for question in first_time_questions(count):
        timed.reset()
        started, cpu = time.perf_counter(), time.process_time()
        check(question, databases)
        wall = (time.perf_counter() - started) * 1000
        cpus.append((time.process_time() - cpu) * 1000)
        walls.append(wall)
        overheads.append(wall - ((max(timed.ends) - min(timed.starts)) * 1000 if timed.starts else 0.0))
    deciles = statistics.quantiles(overheads, n=10)
    print(f"first-time check: median {statistics.median(walls):.0f} ms; the checker's own part median "
          f"{statistics.median(overheads):.1f} ms, p90 {deciles[-1]:.1f} ms; process CPU median "
          f"{statistics.median(cpus):.1f} ms{_load()}")


def section_batch(urls: dict[str, str], distinct: bool = False) -> None:
    print(f"\n## batch on the demo database, three engines, {'distinct questions' if distinct else 'the 11 repeated'}")
    db_args = [a for name, url in urls.items() for a in ("--db", f"{name}={url}")]
    with tempfile.TemporaryDirectory() as tmp:
        timings = {}
        for count in (1, 200):
            path = Path(tmp) / f"q{count}.txt"
            questions = first_time_questions(count) if distinct else [EXAMPLES[i % len(EXAMPLES)] for i in range(count)]
            assert len(questions) == count, f"only {len(questions)} distinct questions"
            path.write_text("\n".join(questions) + "\n")
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "checker_app", "batch", str(path), *db_args],
                                  capture_output=True, text=True, cwd=ROOT, timeout=3600, check=False)
            timings[count] = time.perf_counter() - started
            assert done.returncode in (0, 1), done.stderr[-400:]
        marginal = (timings[200] - timings[1]) / 199 * 1000
        print(f"1 question {timings[1]:.1f} s, 200 questions {timings[200]:.1f} s: marginal {marginal:.0f} ms per question"
              f"{_load()}")


@contextlib.contextmanager
def _given_or_seeded(values: list[str], scale: int, schema: str) -> Iterator[dict[str, str]]:
    if values:
        yield {c.name: c.url.render_as_string(hide_password=False) for c in map(parse_db_option, values)}
        return
    with seeded_demo(scale=scale, schema=schema) as urls:
        yield urls


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--sections", default="demo,demo50,history,batch,first,distinct")
    parser.add_argument("--demo50", action="append", default=[], metavar="NAME=URL")
    parser.add_argument("--history", action="append", default=[], metavar="NAME=URL")
    args = parser.parse_args()
    sections = set(args.sections.split(","))
    print(f"load average at start: {os.getloadavg()[0]:.1f} (2 cores)")
    if sections & {"demo", "batch", "first", "distinct"}:
        with seeded_demo() as urls:
            if "demo" in sections:
                section_demo(urls, args.repeat)
            if "first" in sections:
                section_first(urls)
            if "batch" in sections:
                section_batch(urls)
            if "distinct" in sections:
                section_batch(urls, distinct=True)
    if "demo50" in sections:
        with _given_or_seeded(args.demo50, 50, "demo") as urls:
            section_demo50(urls, max(3, args.repeat // 2))
    if "history" in sections:
        with _given_or_seeded(args.history, 30, "history") as urls:
            section_history(urls, max(3, args.repeat // 2))
    print(f"load average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
