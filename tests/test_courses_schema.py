"""Found by a newcomer on an online-learning schema the project never saw (instructors, courses, enrollments,
payments), on SQLite, PostgreSQL and MariaDB: two instructors whose names differ by an accent ('Maria Garcia',
'María García') were one filter on SQLite and PostgreSQL, and on MariaDB, whose default collation folds accents,
`name = 'Maria Garcia'` kept both; their two readings shared one id, so one reading showed the other's rows;
refunds were offered 'only succeeded payments', which keeps none.
Each case is one line: the question, then what some reading must answer on every engine, computed here from
the rows the test writes."""
from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from tests.support import built_on, check_as_expected

ENGINES = ("sqlite", "postgresql", "mysql")
INSTRUCTORS = [(1, "Maria Garcia"), (2, "María García"), (3, "John Smith"), (4, "Ada Lovelace")]  # Ada: no course
COURSES = [(i, 1 + i % 3, f"Course {i}", ("Data", "Music")[i % 2]) for i in range(1, 7)]
ENROLLMENTS = [(i, 1 + i % 6, dt.datetime(2025, 1, 1) + dt.timedelta(days=i)) for i in range(1, 31)]
PAYMENTS = [(i, i, dt.datetime(2025, 1, 2) + dt.timedelta(days=i), 10 + i) for i in range(1, 31)]


def build(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE instructors (id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE courses (id INTEGER PRIMARY KEY, instructor_id INTEGER NOT NULL "
                             "REFERENCES instructors(id), title VARCHAR(80) NOT NULL, category VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE enrollments (id INTEGER PRIMARY KEY, course_id INTEGER NOT NULL "
                             "REFERENCES courses(id), enrolled_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE payments (id INTEGER PRIMARY KEY, enrollment_id INTEGER NOT NULL "
                             "REFERENCES enrollments(id), paid_at TIMESTAMP NOT NULL, amount NUMERIC(8,2) NOT NULL, "
                             "status VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE refunds (id INTEGER PRIMARY KEY, payment_id INTEGER NOT NULL "
                             "REFERENCES payments(id), refunded_at TIMESTAMP NOT NULL, amount NUMERIC(8,2) NOT NULL)")
        conn.execute(sa.text("INSERT INTO instructors VALUES (:i, :n)"), [{"i": i, "n": n} for i, n in INSTRUCTORS])
        conn.execute(sa.text("INSERT INTO courses VALUES (:i, :t, :n, :c)"),
                     [{"i": i, "t": t, "n": n, "c": c} for i, t, n, c in COURSES])
        conn.execute(sa.text("INSERT INTO enrollments VALUES (:i, :c, :d)"),
                     [{"i": i, "c": c, "d": d} for i, c, d in ENROLLMENTS])
        conn.execute(sa.text("INSERT INTO payments VALUES (:i, :e, :d, :a, :s)"),
                     [{"i": i, "e": e, "d": d, "a": a, "s": _status(i)} for i, e, d, a in PAYMENTS])
        conn.execute(sa.text("INSERT INTO refunds VALUES (:i, :p, :d, :a)"),
                     [{"i": i, "p": p, "d": d + dt.timedelta(days=3), "a": a} for i, (p, _, d, a) in
                      enumerate((x for x in PAYMENTS if _status(x[0]) == "refunded"), 1)])
    engine.dispose()


def _status(payment: int) -> str:
    return "refunded" if payment % 5 == 0 else "failed" if payment % 7 == 0 else "succeeded"


def _revenue(instructors: set[int]) -> str:
    course_of = {e: c for e, c, _ in ENROLLMENTS}
    teacher = {c: t for c, t, _, _ in COURSES}
    return f"{sum(a for _, e, _, a in PAYMENTS if teacher[course_of[e]] in instructors):.2f}"


CASES = [
    # typed without accents, with a row spelt so: that row, on every engine (not both, not the other)
    ("total revenue from maria garcia courses", [f"answer={_revenue({1})}", "complete"]),
    ("total revenue from maría garcía courses", [f"answer={_revenue({2})}", "complete"]),
    # grouped: two rows, on every engine (MariaDB's collation would merge them if grouped by the name)
    ("revenue by instructor", [f"answer={_revenue({1})}", f"answer={_revenue({2})}", "complete"]),
    # an amount asked while every reading counts rows: the money word is reported unread, never a silent count
    ("total revenue from maria garcia courses count", ["ignored=revenue"]),
    # lowest first: one who earned nothing earned least of all (the ranking counted only those with payments)
    ("which 2 instructors earned the least", ["first=Ada Lovelace", "answer=0.00"]),
    # refunds point at refunded payments: 'only succeeded payments' would keep none, so it is not a reading
    ("total refund amount", [f"every={sum(a for i, _, _, a in PAYMENTS if _status(i) == 'refunded'):.2f}"]),
]


@pytest.fixture
def course_urls(servers) -> dict[str, str]:
    return built_on(servers, ENGINES, "ac_courses", build)



def test_namesakes_by_accent_are_two_rows_on_every_engine(course_urls) -> None:
    for question, expect in CASES:
        check_as_expected(course_urls, ENGINES, question, expect)
