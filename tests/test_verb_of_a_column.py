"""Found by a newcomer on a hotel schema: 'how many guests checked in in 2025' counted the guests who signed up in
2025, clear, while 'checked' names the bookings' check_in column, which no reading used. A verb formed on a
column's word ('checked' of check_in, 'booked' of booked_at) that no reading uses is reported as not read."""
from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from tests.support import connect


@pytest.fixture
def hotel(tmp_path: Path) -> str:
    path = tmp_path / "hotel.sqlite"
    db = sqlite3.connect(path)
    db.executescript("""
        CREATE TABLE guests (guest_id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, signup_date DATE NOT NULL);
        CREATE TABLE bookings (booking_id INTEGER PRIMARY KEY, guest_id INTEGER NOT NULL REFERENCES guests(guest_id),
                               booked_at TIMESTAMP NOT NULL, check_in DATE NOT NULL, total_price NUMERIC NOT NULL);
        INSERT INTO guests VALUES (1, 'Ana Silva', '2024-03-01'), (2, 'Ben Weber', '2025-02-01'),
                                  (3, 'Chloe Martin', '2025-05-01');
        INSERT INTO bookings VALUES (1, 1, '2024-12-20 10:00:00', '2025-01-05', 300),
                                    (2, 2, '2025-02-02 09:00:00', '2025-03-01', 200),
                                    (3, 1, '2025-06-01 12:00:00', '2025-07-01', 150);
    """)
    db.commit()
    db.close()
    return f"sqlite:///{path}"


def test_a_verb_of_an_unused_column_is_not_read(hotel: str) -> None:
    connected = connect(hotel)
    analysis = connected.analyse("How many guests checked in in 2025?")
    ignored = [i.text.lower() for i in analysis.understood.ignored]
    sqls = [i.sql("sqlite") for i in analysis.interpretations]
    if any('"check_in"' in sql for sql in sqls):  # read as the check-in date: then the word is read
        assert "checked" not in ignored
    else:  # counted some other date: the verb must be said unread, never a clear count
        assert not analysis.understood.complete and "checked" in ignored, (ignored, sqls)
    connected.db.dispose()
