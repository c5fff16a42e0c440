"""Model SQL checked against the profile, carried from the dialect it was written in, and re-anchored to the
data's as-of date; run on the live demo database (SQLite, PostgreSQL, MariaDB) through the whole check,
with the real SDK talking to the scripted server."""
from __future__ import annotations

from checker_app.pipeline import CheckOptions, check
from tests.llm_server import llm, structured_reply, text_reply  # noqa: F401

QUESTION = "How many orders were placed in the last 30 days?"
MYSQL_STYLE = ("SELECT YEAR(o.ordered_at) AS y, COUNT(*) AS orders FROM orders o "
               "WHERE o.ordered_at >= CAST('2025-06-30' AS DATE) - INTERVAL 30 DAY GROUP BY YEAR(o.ordered_at)")
INVENTED = "SELECT oi.customer_id, product_name FROM order_items oi"
CLOCK = "SELECT COUNT(*) AS orders FROM orders WHERE ordered_at >= date('now', '-30 days')"
AMBIGUOUS = ("SELECT order_id, COUNT(*) AS items FROM order_items JOIN (SELECT id AS order_id FROM orders) AS o "
             "ON o.order_id = order_items.order_id GROUP BY order_id ORDER BY order_id LIMIT 1")


def _readings(*pairs: tuple[str, str]) -> dict:
    return {"archetypes": [], "readings": [{"label": label, "sql": sql} for label, sql in pairs]}


def test_model_sql_is_checked_transpiled_and_anchored(llm, demo_dbs) -> None:
    llm.push(text_reply("no question"), structured_reply(_readings(
        ("MySQL style", MYSQL_STYLE), ("Invented columns", INVENTED), ("Clock", CLOCK))))
    report = check(QUESTION, demo_dbs, CheckOptions(engine="both", model_settings=llm.settings()))
    model = {r.id: r for r in report.interpretations if r.source == "model"}
    payload = {r["id"]: r for r in report.to_dict()["model"]["readings"]}
    # written in MySQL, asked for SQLite: detected, and carried to every engine, SQLite included
    assert payload["model:1"]["written_in"] == "mysql" and payload["model:1"]["transpiled"] is True
    mysql_style = model["model:1"]
    assert all(r.ok for r in mysql_style.results.values()), {n: r.error for n, r in mysql_style.results.items()}
    counts = {n: int(r.rows[0][1]) for n, r in mysql_style.results.items()}
    assert len(set(counts.values())) == 1 and next(iter(counts.values())) > 0, counts
    # invented columns never reach an engine, and the reason names what the table has
    invented = model["model:2"]
    assert {r.status for r in invented.results.values()} == {"rejected"}
    assert "oi.customer_id (order_items has: id, order_id, product_id" in payload["model:2"]["error"]
    assert "product_name" in payload["model:2"]["error"]
    # the clock: flagged against the as-of date, and the anchored reading offered next to it
    assert payload["model:3"]["clock"] and payload["model:3"]["as_of"] == "2025-06-30"
    anchored = model["model:3@as_of"]
    assert payload["model:3@as_of"]["anchored_from"] == "model:3"
    assert int(model["model:3"].results["sqlite"].rows[0][0]) == 0            # today is long after the data
    assert int(anchored.results["sqlite"].rows[0][0]) > 0
    # the comparison counts the readings that failed instead of calling the rest the same set
    comparison = report.comparison
    assert comparison is not None and "model:2" in comparison.failed.model
    assert "model reading(s) gave no answer" in comparison.summary


def test_an_ambiguous_model_column_is_listed_and_repaired(llm, demo_dbs) -> None:
    sqlite = [db for db in demo_dbs if db.backend == "sqlite"]
    llm.push(text_reply("no question"), structured_reply(_readings(("Ambiguous id", AMBIGUOUS))))
    report = check(QUESTION, sqlite, CheckOptions(engine="model", model_settings=llm.settings()))
    payload = report.to_dict()["model"]["readings"][0]
    assert payload["ambiguous_columns"] and payload["ambiguous_columns"][0].startswith("order_id (")
    result = report.interpretations[0].results["sqlite"]
    assert result.ok and result.repairs, result.error


def test_unknown_archetype_ids_never_flip_the_verdict(llm, demo_dbs) -> None:
    sqlite = [db for db in demo_dbs if db.backend == "sqlite"]
    reply = {"archetypes": [{"id": "a", "quote": "orders"}, {"id": ":ranking_metric", "quote": "last 30 days"}],
             "readings": [{"label": "Orders", "sql": "SELECT COUNT(*) FROM orders"}]}
    llm.push(text_reply("no question"), structured_reply(reply))
    report = check(QUESTION, sqlite, CheckOptions(engine="model", model_settings=llm.settings()))
    assert report.archetypes == [] and report.verdict == "clear"
    assert report.model is not None and [e.value for e in report.model.model_errors] == ["a", ":ranking_metric"]


def test_several_model_readings_without_a_registry_archetype_are_not_clear(llm, demo_dbs) -> None:
    """Only free ids (none of them an archetype) and two readings that give two answers: material, never
    "clear: one reading"."""
    sqlite = [db for db in demo_dbs if db.backend == "sqlite"]
    reply = {"archetypes": [{"id": ":ranking_metric", "quote": "top-selling"}],
             "readings": [{"label": "By revenue", "sql": "SELECT p.name, SUM(oi.unit_price * oi.quantity) AS revenue "
                           "FROM order_items oi JOIN products p ON p.id = oi.product_id GROUP BY p.name "
                           "ORDER BY revenue DESC LIMIT 1"},
                          {"label": "By units", "sql": "SELECT p.name, SUM(oi.quantity) AS units FROM order_items oi "
                           "JOIN products p ON p.id = oi.product_id GROUP BY p.name ORDER BY units DESC LIMIT 1"}]}
    llm.push(text_reply("no question"), structured_reply(reply))
    report = check("What is the top-selling product?", sqlite, CheckOptions(engine="model", model_settings=llm.settings()))
    assert report.archetypes == [] and len(report.interpretations) == 2
    assert report.verdict == "material" and report.verdict_text.startswith("2 readings, 2 different answers")
