"""What model mode itself costs per question, the model's time left out: the scripted server answers at once.

    python benchmarks/bench_model_replay.py [--repeat 50]

Median wall time of `run_model` (prompt from the profile, two calls through the real SDK over local HTTP,
validation against the schema sent, each reading's dialect, lint, column check and clock check), streamed
and not, on the embedded demo database (SQLite). A real server adds its own time to the first token and
generation on top (36 s to the first token for a 1.5B model on 2 cores, from the issue's run).
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
from checker_app.llm.run import run_model  # noqa: E402
from checker_app.profiles import load_profile  # noqa: E402
from checker_app.settings import ensure_demo_database  # noqa: E402
from tests.llm_server import ScriptedLLM, structured_reply, tool_call_reply  # noqa: E402

QUESTION = "What is the top-selling product?"
ASK = {"questions": [{"type": "choice", "question": "Rank products by which metric?", "quote": "top-selling",
                      "archetype": "ranking_metric", "options": [{"label": "Revenue"}, {"label": "Units"}]}],
       "suggestions": [["Orders"]]}
READINGS = {"archetypes": [{"id": "ranking_metric", "quote": "top-selling"}], "readings": [
    {"label": "revenue", "sql": "SELECT p.name, SUM(oi.unit_price * oi.quantity) AS revenue FROM order_items oi "
                                "JOIN products p ON p.id = oi.product_id GROUP BY p.name ORDER BY revenue DESC LIMIT 1"},
    {"label": "units, MySQL style, last 30 days", "sql": "SELECT p.name, SUM(oi.quantity) AS units FROM order_items oi "
     "JOIN products p ON p.id = oi.product_id JOIN orders o ON o.id = oi.order_id "
     "WHERE o.ordered_at >= NOW() - INTERVAL 30 DAY GROUP BY p.name ORDER BY units DESC LIMIT 1"}]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=50)
    args = parser.parse_args()
    db = Database(parse_db_option(f"demo={ensure_demo_database()}"), Limits())
    profile = load_profile(db)
    server = ScriptedLLM().start()
    try:
        for stream in (True, False):
            settings = server.settings(stream=stream)
            times = []
            for n in range(args.repeat + 1):
                server.push(tool_call_reply(ASK), structured_reply(json.dumps(READINGS)))
                started = time.perf_counter()
                part = run_model(QUESTION, profile, settings=settings)
                if n:  # the first warms the connection pool
                    times.append((time.perf_counter() - started) * 1000)
            assert part.status == "ok" and len(part.readings) == 3, part.to_dict()
            print(f"run_model, {'streamed' if stream else 'not streamed'}, median of {args.repeat}: "
                  f"{statistics.median(times):6.1f} ms (p90 {sorted(times)[int(0.9 * len(times)) - 1]:6.1f})")
    finally:
        server.stop()
        db.dispose()


if __name__ == "__main__":
    main()
