"""Test support: strict skipping, throwaway databases on the live servers, shared datasets.

Tests that need a server or a file from ../shared/datasets skip with a reason, unless
CHECKER_STRICT_TESTS=1 (CI), where the same condition fails the test.
"""
from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import sqlalchemy as sa

import adapters
from archetypes import Analysis, Interpretation, SchemaProfile, analyse, build_profile
from archetypes.query import lookup_sql

if TYPE_CHECKING:
    from streamlit.testing.v1 import AppTest

REPO = Path(__file__).resolve().parent.parent
DATASETS = Path(os.environ.get("CHECKER_DATASETS", REPO.parent / "shared" / "datasets"))
PG_ADMIN_URL = os.environ.get("CHECKER_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres")
MYSQL_ADMIN_URL = os.environ.get("CHECKER_TEST_MYSQL", "mysql+pymysql://root@127.0.0.1:3306/")
BACKENDS = ("sqlite", "postgresql", "mysql")


def strict() -> bool:
    return os.environ.get("CHECKER_STRICT_TESTS") == "1"


def unavailable(reason: str) -> None:
    """Skip, or fail under CHECKER_STRICT_TESTS=1 so CI never passes by skipping."""
    if strict():
        pytest.fail(f"required for strict tests: {reason}", pytrace=False)
    pytest.skip(reason)


def server_reachable(admin_url: str) -> str | None:
    """None if the server answers, else why not."""
    engine = sa.create_engine(admin_url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        return None
    except Exception as err:  # noqa: BLE001 - any driver error means "not reachable"
        return str(err).splitlines()[0]
    finally:
        engine.dispose()


def dataset(*parts: str) -> Path:
    path = DATASETS.joinpath(*parts)
    if not path.exists():
        unavailable(f"dataset file missing: {path}")
    return path


class ServerDatabases:
    """Creates uniquely named databases on the PostgreSQL and MariaDB test servers and drops them."""

    def __init__(self, tmp_dir: Path) -> None:
        self.tmp_dir = tmp_dir
        self.created: list[tuple[str, str]] = []

    def create(self, backend: str, prefix: str = "ac_test") -> str:
        """A fresh empty database for `backend`; returns its SQLAlchemy URL."""
        name = f"{prefix}_{uuid.uuid4().hex[:10]}"
        if backend == "sqlite":
            return f"sqlite:///{self.tmp_dir / (name + '.sqlite')}"
        admin = PG_ADMIN_URL if backend == "postgresql" else MYSQL_ADMIN_URL
        problem = server_reachable(admin)
        if problem:
            unavailable(f"{backend} server not reachable: {problem}")
        engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.exec_driver_sql(f"CREATE DATABASE {name}")
        engine.dispose()
        self.created.append((backend, name))
        return str(sa.make_url(admin).set(database=name).render_as_string(hide_password=False))

    def drop_all(self) -> None:
        for backend, name in reversed(self.created):
            admin = PG_ADMIN_URL if backend == "postgresql" else MYSQL_ADMIN_URL
            engine = sa.create_engine(admin, isolation_level="AUTOCOMMIT")
            try:
                with engine.connect() as conn:
                    if backend == "postgresql":
                        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
                    else:
                        conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {name}")
            finally:
                engine.dispose()
        self.created.clear()


# -- shared datasets ----------------------------------------------------------------------------

def load_chinook(backend: str, servers: ServerDatabases) -> str:
    """Chinook loaded from ../shared/datasets/chinook into a fresh database; returns its URL."""
    if backend == "sqlite":
        target = servers.tmp_dir / f"chinook_{uuid.uuid4().hex[:8]}.sqlite"
        shutil.copyfile(dataset("chinook", "Chinook_Sqlite.sqlite"), target)
        return f"sqlite:///{target}"
    url = servers.create(backend, prefix="ac_chinook")
    if backend == "postgresql":
        script = dataset("chinook", "Chinook_PostgreSql.sql").read_text(encoding="utf-8")
        script = re.sub(r"(?im)^\s*(DROP DATABASE|CREATE DATABASE|\\c)\b[^\n]*\n", "", script)
        _run_script_postgres(url, script)
    else:
        script = dataset("chinook", "Chinook_MySql.sql").read_text(encoding="utf-8")
        script = re.sub(r"(?im)^\s*(DROP DATABASE|CREATE DATABASE|USE)\b[^\n]*\n", "", script)
        _run_script_mysql(url, script)
    return url


def load_northwind(backend: str, servers: ServerDatabases) -> str:
    """Northwind (SQLite script or PostgreSQL dump) into a fresh database; returns its URL."""
    if backend == "sqlite":
        import sqlite3

        target = servers.tmp_dir / f"northwind_{uuid.uuid4().hex[:8]}.sqlite"
        script = dataset("northwind", "sqlite-jpwhite3", "create.sql").read_text(encoding="utf-8")
        conn = sqlite3.connect(target)
        conn.executescript(script)
        conn.close()
        return f"sqlite:///{target}"
    if backend != "postgresql":
        unavailable("Northwind is only shipped for SQLite and PostgreSQL")
    url = servers.create(backend, prefix="ac_northwind")
    _run_script_postgres(url, dataset("northwind", "postgres-pthom", "northwind.sql").read_text(encoding="utf-8"))
    return url


def _run_script_postgres(url: str, script: str) -> None:
    import psycopg

    dsn = sa.make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(script)  # no parameters: psycopg sends the script as one simple query


def _run_script_mysql(url: str, script: str) -> None:
    import pymysql
    from pymysql.constants import CLIENT

    parsed = sa.make_url(url)
    conn = pymysql.connect(host=parsed.host, port=parsed.port or 3306, user=parsed.username,
                           password=parsed.password or "", database=parsed.database,
                           client_flag=CLIENT.MULTI_STATEMENTS, charset="utf8mb4")
    try:
        with conn.cursor() as cursor:
            cursor.execute(script)
            while cursor.nextset():
                pass
        conn.commit()
    finally:
        conn.close()


# -- the published JSON Schemas (docs/*.schema.json) ---------------------------------------------------

def _validator(name: str):  # a jsonschema validator
    import json

    from jsonschema import Draft202012Validator

    schema = json.loads((REPO / "docs" / name).read_text(encoding="utf-8"))
    return Draft202012Validator(schema)


def assert_valid(payload: object, kind: str = "report") -> None:
    """`payload` (parsed JSON) matches the committed schema of a report, or of a `batch` line."""
    validator = _SCHEMAS.get(kind) or _SCHEMAS.setdefault(kind, _validator(f"{kind}.schema.json"))
    errors = sorted(validator.iter_errors(payload), key=lambda e: list(e.absolute_path))
    assert not errors, [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors[:5]]


_SCHEMAS: dict[str, object] = {}


def detection(data: dict):  # a checker_app.report.Detection
    """A report detection from a literal (evidence and span optional)."""
    from checker_app.report import Detection

    return Detection.model_validate({"evidence": "", "span": None, **data})


# -- a database with its schema and inferred profile (the archetype tests' connection) --------------

@dataclass
class Connected:
    db: adapters.Database
    schema: adapters.SchemaInfo
    profile: SchemaProfile

    @property
    def dialect(self) -> str:
        return self.db.dialect

    def lookup(self, query) -> list[tuple]:
        result = self.db.run(lookup_sql(query, self.db.dialect))
        if not result.ok:
            raise RuntimeError(result.error.message if result.error else result.status)
        return [tuple(row) for row in result.rows]

    def run(self, interpretation: Interpretation) -> adapters.RunResult:
        result = self.db.run(interpretation.sql(self.db.dialect))
        assert result.ok, f"{interpretation.id} on {self.dialect}: {result.error}\n{interpretation.sql(self.dialect)}"
        return result

    def analyse(self, question: str, **kwargs: Any) -> Analysis:
        return analyse(question, self.profile, self.lookup, **kwargs)


def untimed(value: object) -> object:
    """A report's JSON without its timings (elapsed_ms), to compare two runs of the same check."""
    if isinstance(value, dict):
        return {k: untimed(v) for k, v in value.items() if k != "elapsed_ms"}
    if isinstance(value, list):
        return [untimed(v) for v in value]
    return value


def connect(url: str, overrides: dict | None = None) -> Connected:
    db = adapters.Database(adapters.parse_db_option(url))
    schema = adapters.introspect(db.engine, dialect=db.dialect)
    connected = Connected(db, schema, None)  # type: ignore[arg-type]
    connected.profile = build_profile(schema, connected.lookup, overrides)
    return connected


@contextlib.contextmanager
def built_sqlite(folder: Path, name: str, build: Callable[[str], None]) -> Iterator[Connected]:
    """A SQLite file in `folder` built by `build(url)`, connected (a newcomer's schema in a test)."""
    url = f"sqlite:///{folder / name}"
    build(url)
    connected = connect(url)
    try:
        yield connected
    finally:
        connected.db.dispose()


def complete_answers(connected: Connected, question: str) -> list[str]:
    """Each reading's rows, as text, of a question every word of which was read (asserted)."""
    analysis = connected.analyse(question)
    assert analysis.understood.complete and analysis.interpretations, (question, analysis.understood)
    return [str(connected.run(i).rows) for i in analysis.interpretations]


# -- the singers schema (schema_mapping tests, the compare page) -------------------------------------

# PascalCase on purpose: identifiers must be quoted right on every engine. SingerCountry is split off
# Singer (named after it, same key), SingerAge holds precomputed aggregates of Singer.Age, Concert and
# Performance have nothing to do with either.
SINGERS_SCHEMA = [
    'CREATE TABLE "Singer" ("SingerId" INTEGER PRIMARY KEY, "Name" VARCHAR(40), "Country" VARCHAR(40), "Age" INTEGER)',
    'CREATE TABLE "SingerCountry" ("SingerId" INTEGER, "Country" VARCHAR(40))',
    'CREATE TABLE "SingerAge" ("AvgAge" NUMERIC(6, 2), "MaxAge" INTEGER, "MinAge" INTEGER, "TotalAge" INTEGER)',
    'CREATE TABLE "Concert" ("ConcertId" INTEGER PRIMARY KEY, "ConcertName" VARCHAR(40), "Year" INTEGER)',
    'CREATE TABLE "Performance" ("ConcertId" INTEGER REFERENCES "Concert"("ConcertId"), '
    '"SingerId" INTEGER REFERENCES "Singer"("SingerId"))',
]
SINGERS_ROWS = [
    "INSERT INTO \"Singer\" VALUES (1, 'Ana', 'France', 30), (2, 'Ben', 'Spain', 40), (3, 'Cyd', 'Italy', 50)",
    # the split-off table is out of date: Ben moved, Cyd is missing
    "INSERT INTO \"SingerCountry\" VALUES (1, 'France'), (2, 'Portugal')",
    # the precomputed aggregates are stale too (AVG(Age) is 40 today)
    'INSERT INTO "SingerAge" VALUES (38.5, 48, 30, 117)',
    "INSERT INTO \"Concert\" VALUES (1, 'Spring Gala', 2014), (2, 'Summer Nights', 2015)",
    'INSERT INTO "Performance" VALUES (1, 1), (1, 2), (2, 3)',
]


def create_singers(url: str) -> str:
    """The singers schema and rows in the empty database at `url` (its URL back)."""
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        if engine.dialect.name == "mysql":
            conn.exec_driver_sql("SET SESSION sql_mode = CONCAT(@@sql_mode, ',ANSI_QUOTES')")
        for statement in SINGERS_SCHEMA + SINGERS_ROWS:
            conn.exec_driver_sql(statement)
    engine.dispose()
    return url


# -- scripted model replies (model-mode tests on the pipeline and the page) ---------------------------

ASK = {"questions": [{"type": "choice", "header": "Metric", "question": "Rank products by which metric?",
                      "multiSelect": False, "quote": "top-selling", "archetype": "ranking_metric",
                      "options": [{"label": "Revenue"}, {"label": "Units"}, {"label": "Orders"}]}],
       "suggestions": [[]]}
REVENUE = ("SELECT products.name, SUM(order_items.unit_price * order_items.quantity) AS revenue FROM order_items "
           "JOIN products ON order_items.product_id = products.id GROUP BY products.name "
           "ORDER BY revenue DESC, products.name LIMIT 1")
UNITS = ("SELECT p.name, SUM(oi.quantity) AS units FROM order_items AS oi JOIN products AS p ON p.id = oi.product_id "
         "GROUP BY p.name ORDER BY units DESC, p.name LIMIT 1")
# `order_id` is in both order_items and the derived table: every engine refuses it until the repair pass
ORDERS_AMBIGUOUS = ("SELECT products.name, COUNT(DISTINCT order_id) AS orders FROM order_items "
                    "JOIN (SELECT id AS order_id, status FROM orders) AS o ON o.order_id = order_items.order_id "
                    "JOIN products ON products.id = order_items.product_id "
                    "GROUP BY products.name ORDER BY orders DESC, products.name LIMIT 1")
PLACEHOLDER = ("SELECT products.name FROM order_items JOIN orders ON orders.id = order_items.order_id "
               "JOIN products ON products.id = order_items.product_id WHERE orders.status = :status LIMIT 1")
READINGS = {"archetypes": [{"id": "ranking_metric", "quote": "top-selling"}],
            "readings": [{"label": "Highest revenue", "sql": REVENUE}, {"label": "Most units", "sql": UNITS},
                         {"label": "Most orders", "sql": ORDERS_AMBIGUOUS},
                         {"label": "Completed orders only", "sql": PLACEHOLDER}]}


# -- the checker page under AppTest -------------------------------------------------------------------

CHECKER = str(REPO / "checker_app" / "pages" / "checker.py")
TOP_SELLING = "What is the top-selling product?"
TOP_PRODUCTS = {"MacBook Pro", "USB-C Cable", "Phone Case"}


def checker_page(q: str | None = TOP_SELLING, engine: str | None = None, timeout: float = 60) -> AppTest:
    """The checker page run once by AppTest, with `?q=` (and `&engine=`) as a link would give them."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(CHECKER, default_timeout=timeout)
    if q is not None:
        at.query_params["q"] = q
    if engine is not None:
        at.query_params["engine"] = engine
    return at.run()


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    assert found, f"no button {label!r} in {[b.label for b in at.button]}"
    return found[0]



def choice(at: AppTest):
    found = [r for r in at.radio if r.label == "Choose one"]
    assert found, "the wizard shows no options"
    return found[0]



def no_exception(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


# -- the page in a real browser (tests/test_browser.py, benchmarks/bench_page.py) -----------------------------

CHROMIUM = os.environ.get("CHECKER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
STARTUP_S = 90


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(home: Path, *db_values: str, command_name: str = "serve", extra: tuple[str, ...] = (),
            pythonpath: Path = REPO, cwd: Path = REPO) -> Iterator[str]:
    """`ambiguity-checker serve` (as `python -m checker_app serve`, or another command such as `demo`) on a
    free port; yields its base URL and stops the process group it started (serve and its Streamlit child)."""
    port = free_port()
    command = [sys.executable, "-m", "checker_app", command_name, "--port", str(port), "--address", "127.0.0.1",
               *extra]
    for value in db_values:
        command += ["--db", value]
    log_path = home / f"serve-{port}.log"
    env = {**os.environ, "CHECKER_HOME": str(home), "PYTHONPATH": str(pythonpath)}
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    serving.log = log_path  # type: ignore[attr-defined]
    try:
        deadline = time.monotonic() + STARTUP_S
        while True:
            if process.poll() is not None:
                pytest.fail(f"serve exited with {process.returncode}:\n{log_path.read_text(errors='replace')}")
            try:
                with urllib.request.urlopen(f"{base}/_stcore/health", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"serve did not answer within {STARTUP_S} s:\n{log_path.read_text(errors='replace')}")
            time.sleep(0.3)
        yield base
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGTERM)  # the group of the process this test started
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def main(page):  # the app's own content, not the toolbar
    return page.locator('[data-testid="stMain"]')


def settle(page) -> None:
    """Wait until no element is still a loading placeholder, so a screenshot shows the real page."""
    page.wait_for_function("() => !document.querySelector('[data-testid=\"stSkeleton\"]')")
    page.wait_for_timeout(500)


def shot(page, path: Path) -> None:
    settle(page)
    page.screenshot(path=str(path))


def each_engine(urls: dict[str, str]) -> Iterator[list[adapters.Database]]:
    """One Database per engine of `urls` (20 s per statement: a series' statement on a loaded machine), disposed
    after use."""
    databases = [adapters.Database(adapters.parse_db_option(f"{b}={urls[b]}"), adapters.Limits(time_limit_s=20))
                 for b in BACKENDS]
    yield databases
    for db in databases:
        db.dispose()


def built_on(servers: ServerDatabases, engines: tuple[str, ...], prefix: str, build: Any) -> dict[str, str]:
    """A fresh database per engine with `build(url)` run on each: {backend: URL}."""
    urls = {backend: servers.create(backend, prefix=prefix) for backend in engines}
    for url in urls.values():
        build(url)
    return urls


def fixture_questions(*files: str) -> list[str]:
    """The distinct questions (`q`) of JSONL fixture files under tests/fixtures, in order."""
    import json

    found: list[str] = []
    for name in files:
        for line in (Path(__file__).parent / "fixtures" / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and (question := json.loads(line)["q"]) not in found:
                found.append(question)
    return found


# -- a newcomer's schema checked through the CLI: one question and its expectations a line ---------------------

def answer_cells(rows: list[list]) -> set[str]:
    """Every cell as shown and, for a number, with two decimals ('255.00'): what an `answer=` expects."""
    out = set()
    for row in rows:
        for value in row:
            out.add(f"{value:.2f}" if isinstance(value, float) else str(value))
            if isinstance(value, (int, float)) or str(value).replace(".", "", 1).isdigit():
                out.add(f"{float(value):.2f}")
    return out


def check_as_expected(urls: dict[str, str], engines: tuple[str, ...], question: str, expect: list[str]) -> None:
    """`check --json` on every engine, then each expectation: `complete`; `ignored=WORDS` reported unread;
    `fires=ID`; `sql~TEXT` in every reading (the first engine's); `rows=N` some reading's row count, `answer=CELL`
    some reading's cell, `every=CELL` every reading's cell, `first=NAME` every reading's first cell, on every
    engine. The readings' ids are distinct (results are kept by id)."""
    import json

    from click.testing import CliRunner

    from checker_app.cli import main

    args = [f"--db={backend}={urls[backend]}" for backend in engines]
    result = CliRunner().invoke(main, ["check", question, "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, (question, result.output)
    report = json.loads(result.output)
    readings = report["interpretations"]
    assert readings and len({r["id"] for r in readings}) == len(readings), (question, [r["id"] for r in readings])
    for item in expect:
        kind, _, wanted = item.partition("=") if "=" in item else item.partition("~")
        if item == "complete":
            assert report["understood"]["complete"], (question, report["understood"])
        elif kind == "ignored":
            assert wanted in [i["text"] for i in report["understood"]["ignored"]], (question, report["understood"])
        elif kind == "fires":
            assert wanted in [a["id"] for a in report["archetypes"]], (question, report["archetypes"])
        elif kind == "sql":
            assert all(wanted in r["sql"][engines[0]] for r in readings), (question, [r["sql"] for r in readings])
        elif kind == "first":
            assert all(r["results"][e]["rows"][0][0] == wanted for r in readings for e in engines), (
                question, [[r["results"][e]["rows"][:1] for e in engines] for r in readings])
        else:
            for engine in engines:
                results = [r["results"][engine] for r in readings if r["results"][engine]["status"] == "ok"]
                if kind == "rows":
                    assert any(r["row_count"] == int(wanted) for r in results), (question, engine, results)
                elif kind == "every":
                    assert results and all(wanted in answer_cells(r["rows"]) for r in results), (
                        question, engine, wanted, [r["rows"][:3] for r in results])
                else:
                    assert any(wanted in answer_cells(r["rows"]) for r in results), (
                        question, engine, wanted, [r["rows"][:3] for r in results])
