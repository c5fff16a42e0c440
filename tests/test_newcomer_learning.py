"""Found trying an online-learning schema the project never saw (students, courses, enrollments with a status and a
completed date): 'how many refunds were there in 2024' counted refunded enrollments by the day they completed
(none ever did), marked clear; 'when did lena enroll' counted her reviews; 'how many students enrolled in 2024'
counted the students who signed up in 2024; 'which country brings in the most revenue' grouped by the
instructors' country (the first table holding a country), said as 'per country'."""
from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from tests.support import Connected, built_sqlite, complete_answers

# (enrollment, student, enrolled at, status, completed at): student 1 signed up in 2023, enrolled in 2024
ENROLLMENTS = [(1, 1, "2024-03-01 10:00:00", "completed", "2024-05-01 10:00:00"),
               (2, 1, "2024-06-01 10:00:00", "refunded", None),
               (3, 2, "2024-02-01 10:00:00", "refunded", None),
               (4, 2, "2023-11-01 10:00:00", "completed", "2024-01-15 10:00:00"),
               (5, 1, "2024-08-01 10:00:00", "active", None)]


def _learning(url: str) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE instructors (instructor_id INTEGER PRIMARY KEY, full_name VARCHAR(30) "
                             "NOT NULL, country VARCHAR(20) NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE students (student_id INTEGER PRIMARY KEY, full_name VARCHAR(30) NOT NULL, "
                             "signup_date DATE NOT NULL)")
        conn.exec_driver_sql("CREATE TABLE enrollments (enrollment_id INTEGER PRIMARY KEY, student_id INTEGER NOT NULL "
                             "REFERENCES students(student_id), enrolled_at TIMESTAMP NOT NULL, "
                             "status VARCHAR(12) NOT NULL, completed_at TIMESTAMP)")
        conn.exec_driver_sql("CREATE TABLE reviews (review_id INTEGER PRIMARY KEY, student_id INTEGER NOT NULL "
                             "REFERENCES students(student_id), rating INTEGER NOT NULL, created_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO students VALUES (1, 'Lena Fischer', '2023-06-01'), "
                             "(2, 'Omar Haddad', '2024-01-20')")
        conn.execute(sa.text("INSERT INTO enrollments VALUES (:i, :s, :e, :t, :c)"),
                     [dict(zip("isetc", row, strict=True)) for row in ENROLLMENTS])
        conn.exec_driver_sql("INSERT INTO reviews VALUES (1, 2, 4, '2024-05-02 10:00:00')")
        # the instructors come first and hold a country too; the buyers' country is the students'
        conn.exec_driver_sql("ALTER TABLE students ADD COLUMN country VARCHAR(20)")
        conn.exec_driver_sql("UPDATE students SET country = CASE student_id WHEN 1 THEN 'Germany' ELSE 'France' END")
        conn.exec_driver_sql("CREATE TABLE courses (course_id INTEGER PRIMARY KEY, title VARCHAR(30) NOT NULL, "
                             "instructor_id INTEGER NOT NULL REFERENCES instructors(instructor_id))")
        conn.exec_driver_sql("ALTER TABLE enrollments ADD COLUMN course_id INTEGER REFERENCES courses(course_id)")
        conn.exec_driver_sql("CREATE TABLE payments (payment_id INTEGER PRIMARY KEY, enrollment_id INTEGER NOT NULL "
                             "REFERENCES enrollments(enrollment_id), amount NUMERIC(8,2) NOT NULL, "
                             "paid_at TIMESTAMP NOT NULL)")
        conn.exec_driver_sql("INSERT INTO instructors VALUES (1, 'Ada Berg', 'Spain')")
        conn.exec_driver_sql("INSERT INTO courses VALUES (1, 'SQL basics', 1)")
        conn.exec_driver_sql("UPDATE enrollments SET course_id = 1")
        conn.exec_driver_sql("ALTER TABLE reviews ADD COLUMN course_id INTEGER REFERENCES courses(course_id)")
        conn.exec_driver_sql("UPDATE reviews SET course_id = 1")
        conn.exec_driver_sql("INSERT INTO payments VALUES (1, 1, 50, '2024-03-01 10:00:00'), "
                             "(2, 3, 20, '2024-02-01 10:00:00')")
    engine.dispose()


@pytest.fixture
def learning(tmp_path) -> Iterator[Connected]:
    with built_sqlite(tmp_path, "learning.sqlite", _learning) as connected:
        yield connected


def test_a_refund_is_never_dated_by_a_completion(learning: Connected) -> None:
    analysis = learning.analyse("How many refunds were there in 2024?")
    assert not any("completed at" in i.explanation for i in analysis.interpretations), analysis.interpretations
    assert "2024" in [i.text for i in analysis.understood.ignored]  # no refund date is recorded: said


def test_when_someone_did_a_deed_of_other_rows_is_its_date(learning: Connected) -> None:
    assert complete_answers(learning, "When did Lena Fischer enroll?") == ["[['2024-03-01 10:00:00']]"]


def test_people_who_did_a_deed_in_a_year_are_counted_by_the_deed(learning: Connected) -> None:
    # both enrolled in 2024 (one signed up in 2023): never the one who signed up in 2024
    assert "[[2]]" in complete_answers(learning, "How many students enrolled in 2024?")
    assert complete_answers(learning, "how many students signed up in 2024") == ["[[1]]"]


def test_a_country_of_the_buyers_is_the_nearest_one(learning: Connected) -> None:
    analysis = learning.analyse("revenue by country")
    assert analysis.interpretations and all("per student's country" in i.explanation
                                            for i in analysis.interpretations), analysis.interpretations


def test_the_best_teacher_may_be_the_best_rated(learning: Connected) -> None:
    """'who is the best instructor' ranked by money and counts alone: how well they are rated is a reading too
    (an average, never a sum of ratings)."""
    analysis = learning.analyse("Who is the best instructor?")
    assert any(i.explanation.startswith("Average rating over the reviews") for i in analysis.interpretations), \
        analysis.interpretations


def test_completions_by_month_are_dated_by_their_completion(learning: Connected) -> None:
    """'which month had the most completions' grouped the completed enrollments by the month they began."""
    analysis = learning.analyse("Which month had the most completions?")
    counted = [i for i in analysis.interpretations if i.explanation.startswith("Number of enrollments")]
    assert counted and all("of the completed at" in i.explanation for i in counted), analysis.interpretations


def test_a_rate_of_how_rows_ended_may_leave_out_those_still_going(learning: Connected) -> None:
    """'what is the completion rate' divided by every enrollment, the active ones too, and never said so."""
    # completed 2 of 5, or 2 of the 4 that ended
    assert sorted(round(float(row[-1]), 3) for row in (
        learning.run(i).rows[0] for i in learning.analyse("What is the completion rate?").interpretations)) in (
        [0.4, 0.5], [40.0, 50.0])
