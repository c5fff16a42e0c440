"""Found trying an HR schema the project never saw (PostgreSQL; here on SQLite): 'people' was looked up as a
lowercase name and filtered the department 'People Ops' ('how many people work in engineering' summed salaries
of Engineering and People Ops, benign: 0), 'who manages the most people' ranked only People Ops; 'left the
company' was unread next to the termination date it names; 'which office has the most employees' left 'office'
unread (a table of offices with a city and no name column was no entity); 'top 5 employees by salary' counted
each one's salary rows."""
from __future__ import annotations

import datetime as dt

import sqlalchemy as sa

from tests.support import connect

DEPARTMENTS = ["Engineering", "Sales", "People Ops"]
# (department, manager, hired, left): employee 1 runs everything; 2 and 3 report to 1; 4 to 6 report to 2
EMPLOYEES = [(1, None, dt.date(2018, 1, 1), None), (1, 1, dt.date(2019, 1, 1), None), (3, 1, dt.date(2019, 6, 1), None),
             (1, 2, dt.date(2020, 1, 1), dt.date(2024, 3, 1)), (1, 2, dt.date(2021, 1, 1), None),
             (2, 2, dt.date(2022, 1, 1), dt.date(2024, 9, 1))]


def _hr(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE departments (id INTEGER PRIMARY KEY, name VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE offices (id INTEGER PRIMARY KEY, city VARCHAR(30) NOT NULL, "
                             "country VARCHAR(30) NOT NULL)")
        conn.exec_driver_sql("INSERT INTO offices VALUES (1, 'Berlin', 'Germany'), (2, 'Lisbon', 'Portugal')")
        conn.exec_driver_sql("CREATE TABLE employees (id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "hire_date DATE NOT NULL, termination_date DATE, department_id INTEGER NOT NULL "
                             "REFERENCES departments(id), manager_id INTEGER REFERENCES employees(id), "
                             "office_id INTEGER NOT NULL REFERENCES offices(id))")
        conn.exec_driver_sql("CREATE TABLE salaries (id INTEGER PRIMARY KEY, employee_id INTEGER NOT NULL "
                             "REFERENCES employees(id), amount NUMERIC(10,2) NOT NULL, valid_from DATE NOT NULL, "
                             "valid_to DATE NOT NULL)")
        conn.execute(sa.text("INSERT INTO departments VALUES (:i, :n)"),
                     [{"i": i, "n": n} for i, n in enumerate(DEPARTMENTS, 1)])
        conn.execute(sa.text("INSERT INTO employees VALUES (:i, :n, :h, :t, :d, :m, :o)"),
                     [{"i": i, "n": f"Person {i}", "h": hired, "t": left, "d": dep, "m": manager, "o": 1 + (i > 4)}
                      for i, (dep, manager, hired, left) in enumerate(EMPLOYEES, 1)])
        conn.execute(sa.text("INSERT INTO salaries VALUES (:i, :i, 50000 + 1000 * :i, :f, '9999-12-31')"),
                     [{"i": i, "f": row[2]} for i, row in enumerate(EMPLOYEES, 1)])
    engine.dispose()


def _answers(connected, question: str) -> list[list]:
    analysis = connected.analyse(question)
    assert analysis.understood.complete, (question, analysis.understood)
    assert analysis.interpretations, (question, analysis.notes)
    assert not any("People Ops" in i.explanation for i in analysis.interpretations), question
    return [connected.run(i).rows for i in analysis.interpretations]


def test_people_are_counted_not_a_department_called_people(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'hr.sqlite'}"
    _hr(url)
    connected = connect(url)
    # Engineering: employees 1, 2, 4, 5; employee 4 has left
    assert sorted(rows[0][0] for rows in _answers(connected, "how many people work in engineering")) == [3, 4]
    # direct reports: employee 2 has three (4, 5, 6); down the chain employee 1 has all five
    most = _answers(connected, "who manages the most people")
    assert [rows[0][0] for rows in most] == ["Person 2", "Person 1"], most
    # two left in 2024 (employees 4 and 6), by the termination date 'left the company' names
    assert _answers(connected, "how many people left the company in 2024") == [[[2]]]
    # employees 1 to 4 in Berlin (3 still there), 5 and 6 in Lisbon (1 still there): Berlin either way
    # 'by salary': each one's salary, not the number of salary rows (one each, a tie of everyone)
    paid = _answers(connected, "top 5 employees by salary")
    assert paid and all(rows[0] == ["Person 6", 56000] for rows in paid), paid
    offices = _answers(connected, "which office has the most employees")
    assert offices and all(rows[0][0] == "Berlin" for rows in offices), offices
