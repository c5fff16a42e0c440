"""Two versions of the checker measured side by side in one run: `bench_scale.py` of each tree, alternately.

    python benchmarks/bench_before_after.py --before DIR --after DIR [--sections history,demo]
        [--rounds 1] [--repeat 3] [--history NAME=URL ...] [--demo50 NAME=URL ...] [--same-bench]

DIR is a checkout of each version (``git archive COMMIT | tar -x -C DIR``). Each section runs as one
subprocess per version, the versions taking turns (before, after; the next round after, before), so a
change in the machine's load falls on both. Each version keeps its own profile store (a stored profile
is keyed by the code that built it), reused across its runs. Every line is printed with its version.
`--same-bench`: both versions are measured by the after tree's `bench_scale.py` (CHECKER_BENCH_CODE points
it at the version's code), so sections the before tree lacks are measured on it too.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def _run(label: str, tree: Path, section: str, args: argparse.Namespace, store: Path) -> None:
    bench = (args.after.resolve() if args.same_bench else tree) / "benchmarks" / "bench_scale.py"
    command = [sys.executable, str(bench), "--sections", section, "--repeat", str(args.repeat)]
    for value in args.history:
        command += ["--history", value]
    for value in args.demo50:
        command += ["--demo50", value]
    env = {**os.environ, "CHECKER_PROFILE_DIR": str(store), "CHECKER_BENCH_CODE": str(tree)}
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True, text=True, check=False)
    for line in (done.stdout + (done.stderr[-2000:] if done.returncode else "")).splitlines():
        if line.strip():
            print(f"[{label}] {line}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, required=True)
    parser.add_argument("--sections", default="history,demo")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--history", action="append", default=[], metavar="NAME=URL")
    parser.add_argument("--demo50", action="append", default=[], metavar="NAME=URL")
    parser.add_argument("--same-bench", action="store_true", help="measure both versions with the after tree's bench_scale.py")
    args = parser.parse_args()
    trees = [("before", args.before.resolve()), ("after", args.after.resolve())]
    with tempfile.TemporaryDirectory(prefix="ac_before_after_") as tmp:
        stores = {label: Path(tmp) / label for label, _ in trees}
        for round_index in range(args.rounds):
            order = trees if round_index % 2 == 0 else trees[::-1]
            for section in args.sections.split(","):
                for label, tree in order:
                    _run(label, tree, section, args, stores[label])


if __name__ == "__main__":
    main()
