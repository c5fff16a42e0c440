"""Whole reports of two versions of the checker, compared question by question (timings left out).

    python benchmarks/compare_reports.py --before DIR --after DIR [--db NAME=URL ...] [--out DIR] [--batch]

DIR is a checkout of each version (``git archive COMMIT | tar -x -C DIR``). Every labelled and gold
question of the demo (the fixtures under tests/fixtures of the after tree) is checked by each version in a
subprocess of its own, one version after the other, on the same databases (the demo seeded here on the
three engines, or --db URLs), each with a profile store of its own. A report is compared whole as its JSON
(`Report.to_dict`) with every `elapsed_ms` removed; a statement that timed out in one version and not in the
other is counted apart (the machine's load, not the code), any other difference is printed. `--batch`: the
questions go through one `batch` call of each version instead (its reuse of answers and analyses included).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
SOURCES = ("labelled/demo.jsonl", "gold/demo.jsonl", "gold/later/demo.jsonl", "gold/later2/demo.jsonl",
           "gold/later3/demo.jsonl", "gold/later4/demo.jsonl", "gold/later5/demo.jsonl", "gold/later6/demo.jsonl",
           "gold/later7/demo.jsonl", "gold/later8/demo.jsonl")

WORKER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
from adapters import Database, Limits, parse_db_option
from adapters.errors import CheckerError
from checker_app.pipeline import check

def strip(value):
    if isinstance(value, dict):
        return {k: strip(v) for k, v in value.items() if k != "elapsed_ms"}
    if isinstance(value, list):
        return [strip(v) for v in value]
    return value

databases = [Database(parse_db_option(v), Limits()) for v in json.loads(sys.argv[3])]
with open(sys.argv[2]) as src, open(sys.argv[4], "w") as out:
    for question in json.load(src):
        try:
            report = strip(check(question, databases).to_dict())
        except CheckerError as err:
            report = {"error": str(err)}
        out.write(json.dumps({"q": question, "report": report}, sort_keys=True) + "\n")
        out.flush()
"""


def questions() -> list[str]:
    found: list[str] = []
    for name in SOURCES:
        path = HERE / "tests" / "fixtures" / name
        if not path.exists():
            continue
        for line in path.read_text(encoding="utf-8").splitlines():
            question = json.loads(line).get("q") if line.strip() else None
            if question and question not in found:
                found.append(question)
    return found


def _timeouts(report: dict) -> set[tuple[str, str]]:
    return {(r.get("id"), engine) for r in report.get("interpretations", [])
            for engine, res in (r.get("results") or {}).items() if res.get("status") == "timeout"}


def _strip(value: object) -> object:
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if k != "elapsed_ms"}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


def _run_batch(tree: Path, qfile: Path, dbs: list[str], out: Path, store: Path) -> None:
    env = {**os.environ, "CHECKER_PROFILE_DIR": str(store)}
    asked = json.loads(qfile.read_text())
    lines = qfile.with_suffix(".txt")
    lines.write_text("\n".join(asked) + "\n")
    db_args = [a for value in dbs for a in ("--db", value)]
    done = subprocess.run([sys.executable, "-m", "checker_app", "batch", str(lines), *db_args], cwd=tree, env=env,
                          capture_output=True, text=True, check=False)
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert len(reports) == len(asked), done.stderr[-2000:]
    with out.open("w") as handle:
        for question, report in zip(asked, reports):
            handle.write(json.dumps({"q": question, "report": _strip(report)}, sort_keys=True) + "\n")


def _run(tree: Path, qfile: Path, dbs: list[str], out: Path, store: Path) -> None:
    env = {**os.environ, "CHECKER_PROFILE_DIR": str(store)}
    subprocess.run([sys.executable, "-c", WORKER, str(tree), str(qfile), json.dumps(dbs), str(out)],
                   cwd=tree, env=env, check=True)


def compare(before: Path, after: Path) -> int:
    a = [json.loads(line) for line in before.read_text().splitlines()]
    b = [json.loads(line) for line in after.read_text().splitlines()]
    same = timed_out = 0
    for left, right in zip(a, b):
        if left == right:
            same += 1
        elif _timeouts(left["report"]) != _timeouts(right["report"]):
            timed_out += 1
        else:
            print(f"DIFFERENT: {left['q']!r}")
    print(f"{len(a)} questions: {same} identical but for timings, {timed_out} differ where a statement timed out "
          f"in one version only, {len(a) - same - timed_out} differ otherwise")
    return len(a) - same - timed_out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--db", action="append", default=[], metavar="NAME=URL")
    parser.add_argument("--out", type=Path, default=None, help="keep the two JSONL files here")
    parser.add_argument("--batch", action="store_true", help="one `batch` call per version instead of a check each")
    args = parser.parse_args()
    sys.path.insert(0, str(HERE))
    from benchmarks.throwaway import seeded_demo

    with tempfile.TemporaryDirectory(prefix="ac_compare_") as tmp:
        out = args.out or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        qfile = Path(tmp) / "questions.json"
        qfile.write_text(json.dumps(questions()))

        def both(dbs: list[str]) -> int:
            for label, tree in (("before", args.before), ("after", args.after)):
                (_run_batch if args.batch else _run)(tree.resolve(), qfile, dbs, out / f"{label}.jsonl",
                                                     Path(tmp) / f"store-{label}")
            return compare(out / "before.jsonl", out / "after.jsonl")

        if args.db:
            differing = both(args.db)
        else:
            with seeded_demo() as urls:
                differing = both([f"{name}={url}" for name, url in urls.items()])
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
