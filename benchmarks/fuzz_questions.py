"""A longer fuzz run of the question pipeline than CI's: the same property test, more examples.

    python benchmarks/fuzz_questions.py --examples 10000

Prints pytest's summary; a failure shows hypothesis's smallest falsifying example.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=10_000)
    args = parser.parse_args()
    env = {**os.environ, "CHECKER_FUZZ_EXAMPLES": str(args.examples)}
    return subprocess.call([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                            str(REPO / "tests" / "test_safety_fuzz.py")], cwd=REPO, env=env)


if __name__ == "__main__":
    raise SystemExit(main())
