"""No command prints a credential: plain and JSON output and errors, for a password in the userinfo (with an
unencoded '@'), in `?password=`, in `sslkey`, on working and failing connections."""
from __future__ import annotations

import json
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import sqlalchemy as sa

from adapters.urls import display_url, repair_userinfo, scrub, secrets_of
from tests.support import assert_valid

FIXTURES = Path(__file__).parent / "fixtures"
PG_AT = "Pw@Scrub-7391"        # an unencoded '@': SQLAlchemy alone would show "Scrub-7391" as the host
PG_QUERY = "Pw-Query-5512"
MY_AT = "Pw@My-8812"
MY_BAD = "Pw-Bad-3391"
DEAD = "Pw-Dead-4410"
PORT = "Pw-Port-2291"
SSL = "Pw-Key-1177"
SECRETS = (PG_AT, "Scrub-7391", PG_QUERY, MY_AT, "My-8812", MY_BAD, DEAD, PORT, SSL)


@pytest.mark.parametrize("text,secret", [
    ("postgresql://u:p@ss@h/db", "p@ss"),
    ("postgresql://u@h/db?password=sekrit&sslmode=disable", "sekrit"),
    ("mysql://u@h/db?passwd=sekrit", "sekrit"),
    ("postgresql://u@h/db?sslpassword=sekrit", "sekrit"),
    ("postgresql://u@h/db?sslkey=/keys/sekrit.pem", "sekrit"),
    ("mysql://u:pa%2Fss@h/db", "pa/ss"),
])
def test_every_credential_part_of_a_url_is_hidden(text: str, secret: str) -> None:
    url = repair_userinfo(text, sa.make_url(text))
    assert any(secret in s for s in secrets_of(url))
    assert secret not in display_url(url) and "***" in display_url(url)
    message = f"cannot connect to {text}: bad credential {' '.join(secrets_of(url))}"
    assert secret not in scrub(message, secrets_of(url))
    assert secret not in display_url(text)  # text that was never parsed


@pytest.fixture(scope="module")
def urls(demo_urls):
    """The demo database behind credential-bearing URLs: some connect, some fail."""
    pg = sa.make_url(demo_urls["postgresql"])
    my = sa.make_url(demo_urls["mysql"])
    user = f"ac_scrub_{uuid.uuid4().hex[:6]}"
    admin = sa.create_engine(demo_urls["mysql"], isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.exec_driver_sql(f"CREATE USER '{user}'@'%%' IDENTIFIED BY '{MY_AT}'")
        conn.exec_driver_sql(f"GRANT SELECT ON `{my.database}`.* TO '{user}'@'%%'")
    yield {
        "pg_at": f"pg=postgresql://{pg.username}:{PG_AT}@{pg.host}:{pg.port}/{pg.database}",
        "pg_query": f"pgq=postgresql://{pg.username}@{pg.host}:{pg.port}/{pg.database}?password={PG_QUERY}",
        "my_at": f"maria=mysql://{user}:{MY_AT}@{my.host}:{my.port}/{my.database}",
        "my_bad": f"bad=mysql://root@{my.host}:{my.port}/{my.database}?password={MY_BAD}",
        "dead": f"dead=postgresql://{pg.username}:{DEAD}@127.0.0.1:1/{pg.database}",
        "port": f"postgresql://{pg.username}:{PORT}@127.0.0.1:abc/db",
        "ssl": f"postgresql://{pg.username}@127.0.0.1:1/db?sslmode=require&sslkey=/tmp/{SSL}.pem",
    }
    with admin.connect() as conn:
        conn.exec_driver_sql(f"DROP USER IF EXISTS '{user}'@'%%'")
    admin.dispose()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker_app", *args], capture_output=True, text=True, timeout=300)


def _leaks(out: subprocess.CompletedProcess[str]) -> list[str]:
    return [s for s in SECRETS if s in out.stdout or s in out.stderr]


def _dbs(urls: dict[str, str], *names: str) -> list[str]:
    return [a for name in names for a in ("--db", urls[name])]


def test_check_run_repair_and_batch_never_print_a_credential(urls, tmp_path) -> None:
    working = _dbs(urls, "pg_at", "pg_query", "my_at")
    failing = _dbs(urls, "pg_at", "my_bad", "dead")
    questions = tmp_path / "q.txt"
    questions.write_text("How many products are there?\nWhat is the top-selling product?\n")
    runs = {
        "check": _cli("check", "How many products are there?", *working),
        "check --json": _cli("check", "How many products are there?", "--json", *working),
        "check failing": _cli("check", "How many products are there?", "--json", *failing),
        "run": _cli("run", "SELECT count(*) AS n FROM products", *working, *_dbs(urls, "my_bad", "dead")),
        "run --json": _cli("run", "SELECT count(*) AS n FROM products", "--json", *working,
                           *_dbs(urls, "my_bad", "dead")),
        "repair": _cli("repair", "SELECT name FROM products JOIN categories USING (category_id)", *working),
        "repair --json": _cli("repair", "SELECT name FROM products", "--json", *working),
        "batch": _cli("batch", str(questions), *working),
        "diagnose": _cli("diagnose", "--samples", "--json", *_dbs(urls, "pg_query")),
        "eval": _cli("eval", str(FIXTURES / "labelled" / "demo.jsonl"), "--json", "--db",
                     urls["pg_query"].replace("pgq=", "demo=")),
        "role": _cli("role", "--db", urls["pg_query"]),
    }
    for name, url in (("port", urls["port"]), ("ssl", urls["ssl"]), ("dead", urls["dead"]),
                      ("my_bad", urls["my_bad"])):
        runs[f"check error {name}"] = _cli("check", "How many products are there?", "--db", url)
        runs[f"run error {name}"] = _cli("run", "SELECT 1", "--db", url)
    leaks = {name: _leaks(out) for name, out in runs.items() if _leaks(out)}
    assert not leaks, leaks
    report = json.loads(runs["check --json"].stdout)
    assert_valid(report)  # the reports printed by these subprocesses match the published schema too
    assert_valid(json.loads(runs["check failing"].stdout))
    for line in runs["batch"].stdout.splitlines():
        assert_valid(json.loads(line), "batch")
    assert report["verdict"] and all("***" in e["url"] for e in report["engines"])
    assert {e["name"] for e in report["engines"]} == {"pg", "pgq", "maria"}
    assert runs["check error port"].returncode == 2 and runs["check error port"].stderr.count("\n") == 1


def test_seed_never_prints_a_credential(servers) -> None:
    url = sa.make_url(servers.create("postgresql", prefix="ac_scrub_seed"))
    target = f"postgresql://{url.username}@{url.host}:{url.port}/{url.database}?password={PG_QUERY}"
    ok = _cli("seed", "--db", target)
    assert ok.returncode == 0, ok.stderr
    failed = _cli("seed", "--db", f"postgresql://{url.username}:{DEAD}@127.0.0.1:1/{url.database}")
    assert failed.returncode == 2
    assert not _leaks(ok) and not _leaks(failed), (ok, failed)
    assert "***" in ok.stdout
