"""Found by a newcomer on an HR schema the project never saw (departments, employees with a termination date,
salary history, performance reviews with two keys to employees, leave requests), on SQLite, PostgreSQL and
MariaDB: 'employees in Sales' dropped 'Sales' (a word that also means the fact) and counted everyone, clear; a
review's two keys (the employee reviewed, the reviewer) joined one way on SQLite and the other on the servers;
leave requests' start and end dates were taken for a validity period; people who had left counted as employees;
'average salary' summed; 'how many sick days' counted requests, complete (now the days they span, added up); a first name that is also a title
named the title only. Each case is one line: the question, then what some reading must answer on every engine,
computed here from the rows the test writes."""
from __future__ import annotations

import datetime as dt

import pytest
import sqlalchemy as sa

from tests.support import built_on, check_as_expected

ENGINES = ("sqlite", "postgresql", "mysql")
DEPARTMENTS = [(1, "Engineering"), (2, "Sales"), (3, "Finance")]
# (id, name, department, terminated on): Frank Ortiz shares his first name with the project 'Frank'
EMPLOYEES = [(i, f"{('Ann', 'Bo', 'Cy', 'Di', 'Frank')[i % 5]} {('Lee', 'Kim', 'Ortiz', 'Roy')[i % 4]}", 1 + i % 3,
              dt.date(2024, 3, 1) if i % 6 == 0 else None) for i in range(1, 25)]
# one salary row per employee ending when the next starts; the current one open-ended at 9999-12-31
SALARIES = [(2 * i - 1 + k, i, 50_000 + 1_000 * i + 5_000 * k, dt.date(2022 + 3 * k, 1, 1),
             dt.date(2025, 1, 1) if k == 0 else dt.date(9999, 12, 31)) for i in range(1, 25) for k in (0, 1)]
# leave: every request ends on a real day (a span of time, not a validity period)
LEAVES = [(i, 1 + i % 24, dt.date(2024, 1, 1) + dt.timedelta(days=7 * i), 1 + i % 4, ("sick", "vacation")[i % 2],
           ("approved", "rejected", "pending")[i % 3]) for i in range(1, 40)]
# reviews: employee_id is declared first, reviewer_id second (SQLite's catalog lists them the other way round)
REVIEWS = [(i, 1 + i % 24, 1 + (i * 7) % 24, dt.date(2024, 6, 1) + dt.timedelta(days=i), 1 + i % 5)
           for i in range(1, 30)]


def build(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE departments (id INTEGER PRIMARY KEY, name VARCHAR(40) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE employees (id INTEGER PRIMARY KEY, name VARCHAR(80) NOT NULL, "
                             "department_id INTEGER NOT NULL REFERENCES departments(id), termination_date DATE)")
        conn.exec_driver_sql("CREATE TABLE projects (id INTEGER PRIMARY KEY, title VARCHAR(40) NOT NULL, "
                             "owner_id INTEGER NOT NULL REFERENCES employees(id), budget NUMERIC(10,2) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE salary_history (id INTEGER PRIMARY KEY, employee_id INTEGER NOT NULL "
                             "REFERENCES employees(id), amount NUMERIC(10,2) NOT NULL, valid_from DATE NOT NULL, "
                             "valid_to DATE NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE leave_requests (id INTEGER PRIMARY KEY, employee_id INTEGER NOT NULL "
                             "REFERENCES employees(id), start_date DATE NOT NULL, end_date DATE NOT NULL, "
                             "leave_type VARCHAR(12) NOT NULL, status VARCHAR(12) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE performance_reviews (id INTEGER PRIMARY KEY, employee_id INTEGER NOT NULL "
                             "REFERENCES employees(id), reviewer_id INTEGER NOT NULL REFERENCES employees(id), "
                             "review_date DATE NOT NULL, rating INTEGER NOT NULL)")
        conn.execute(sa.text("INSERT INTO departments VALUES (:i, :n)"), [{"i": i, "n": n} for i, n in DEPARTMENTS])
        conn.execute(sa.text("INSERT INTO employees VALUES (:i, :n, :d, :t)"),
                     [{"i": i, "n": n, "d": d, "t": t} for i, n, d, t in EMPLOYEES])
        conn.execute(sa.text("INSERT INTO projects VALUES (1, 'Frank', 1, 1000), (2, 'Atlas', 2, 500)"))
        conn.execute(sa.text("INSERT INTO salary_history VALUES (:i, :e, :a, :f, :t)"),
                     [{"i": i, "e": e, "a": a, "f": f, "t": t} for i, e, a, f, t in SALARIES])
        conn.execute(sa.text("INSERT INTO leave_requests VALUES (:i, :e, :s, :x, :k, :t)"),
                     [{"i": i, "e": e, "s": s, "x": s + dt.timedelta(days=n), "k": k, "t": t}
                      for i, e, s, n, k, t in LEAVES])
        conn.execute(sa.text("INSERT INTO performance_reviews VALUES (:i, :e, :r, :d, :g)"),
                     [{"i": i, "e": e, "r": r, "d": d, "g": g} for i, e, r, d, g in REVIEWS])
    engine.dispose()


def _employees(department: int | None = None, current: bool = False) -> int:
    return sum(1 for _, _, d, t in EMPLOYEES if department in (None, d) and not (current and t is not None))


_SICK_DAYS = sum(n for _, _, _, n, kind, status in LEAVES if kind == "sick" and status == "approved")
_UNREVIEWED = sum(1 for i, *_ in EMPLOYEES if not any(e == i for _, e, *_ in REVIEWS))


def _best_rated_department() -> str:
    """The department whose employees' reviews average highest (the employee reviewed, not the reviewer)."""
    ratings: dict[int, list[int]] = {}
    for _, employee, _, _, rating in REVIEWS:
        department = next(d for i, _, d, _ in EMPLOYEES if i == employee)
        ratings.setdefault(department, []).append(rating)
    best = max(ratings, key=lambda d: sum(ratings[d]) / len(ratings[d]))
    return next(n for i, n in DEPARTMENTS if i == best)
_CURRENT_PAY = [a for _, _, a, _, t in SALARIES if t.year == 9999]

CASES = [
    # 'Sales' is a department, said as a place: a filter, with or without the people who left
    ("how many employees are there in Sales?", [f"answer={_employees(2)}", f"answer={_employees(2, True)}",
                                                "fires=record_scope", "complete"]),
    ("how many current employees do we have", [f"every={_employees(current=True)}", "complete"]),
    ("list former employees", [f"rows={len(EMPLOYEES) - _employees(current=True)}", "complete"]),
    # the review's own employee, on every engine (the reviewer key would leave others unreviewed)
    ("how many employees have no performance review", [f"every={_UNREVIEWED}"]),
    # a leave's end date is a day, not an open validity period: no 'current requests' reading
    ("how many leave requests were rejected", [f"every={sum(1 for *_, t in LEAVES if t == 'rejected')}",
                                               "complete"]),
    # the salary history's current rows end at 9999-12-31: the average of those is one reading
    ("average salary", [f"answer={sum(_CURRENT_PAY) / len(_CURRENT_PAY):.2f}", "fires=record_scope"]),
    # days of leave are not requests: the days each approved sick leave spans, added up
    ("how many approved sick days were there", [f"every={_SICK_DAYS:.2f}", "complete"]),
    # 'frank': the project Frank, or the people whose first name it is
    ("show frank", ["fires=entity"]),
    # a rating is averaged over the rows that reach the department, never added up (a hotel newcomer's 'best rating')
    ("which department has the best rating", [f"every={_best_rated_department()}", "complete"]),
]


@pytest.fixture
def people_urls(servers) -> dict[str, str]:
    return built_on(servers, ENGINES, "ac_people", build)


def test_hr_questions_read_alike_on_every_engine(people_urls) -> None:
    for question, expect in CASES:
        check_as_expected(people_urls, ENGINES, question, expect)
