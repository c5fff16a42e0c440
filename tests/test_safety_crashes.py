"""The fuzz crashes of issue 12, each a one-line error (or an answer), never a traceback."""
from __future__ import annotations

import datetime as dt
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from adapters import ConfigError, parse_db_option
from archetypes import calendar
from archetypes.calendar import CalendarRangeError
from tests.support import assert_valid

EXTREMES = [dt.date(1, 1, 1), dt.date(1, 1, 2), dt.date(9999, 12, 30), dt.date(9999, 12, 31)]
GRAINS = ["day", "week_iso", "week_sunday", "month", "quarter", "year", "weekday", "fy_period", "fy_quarter", "fy_year"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "checker_app", *args], capture_output=True, text=True, timeout=300)


def _one_line_error(out: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert out.returncode == code, out
    assert out.stderr.startswith("error: ") and out.stderr.count("\n") == 1, out.stderr
    assert "Traceback" not in out.stderr
    return out.stderr


@pytest.mark.parametrize("as_of", EXTREMES, ids=str)
def test_calendar_at_the_ends_of_time_clamps_or_raises_its_own_error(as_of: dt.date) -> None:
    for value in calendar.WINDOWS:
        window = calendar.preset_window(value, as_of)
        assert window is None or window.start <= window.end
    for grain in GRAINS:
        start = calendar.shift(as_of, -dt.timedelta(days=400))
        end = calendar.shift(as_of, calendar.DAY)
        try:
            found = calendar.periods(grain, start, end, fiscal_year_start=4)
        except CalendarRangeError as err:
            assert "\n" not in str(err)
            continue
        assert found and all(p.start <= p.end for p in found)
    for zone in ("America/New_York", "Asia/Tokyo", "Pacific/Kiritimati"):
        assert isinstance(calendar.utc_instant(as_of, zone), dt.datetime)
    assert calendar.add_months(as_of, 24).year <= 9999 and calendar.add_months(as_of, -24).year >= 1


@pytest.mark.parametrize("value,words", [
    ("0001-01-01", "outside 1900..2999"), ("9999-12-31", "outside 1900..2999"), ("2025-13-45", "YYYY-MM-DD"),
    ("yesterday", "YYYY-MM-DD"),
])
def test_as_of_outside_the_sane_range_is_a_one_line_error(value: str, words: str) -> None:
    assert words in _one_line_error(_cli("check", "How are sales trending?", "--as-of", value))


@pytest.mark.parametrize("value", ["2025-13-45", "9999-12-31", "0001-01-01"])
def test_a_profile_as_of_outside_the_range_is_a_one_line_error(tmp_path, value: str) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text(f'as_of: "{value}"\n')
    assert "as_of" in _one_line_error(_cli("check", "How are sales trending?", "--profile", str(profile)))


def test_allow_functions_must_be_a_list_of_names(tmp_path) -> None:
    profile = tmp_path / "profile.yaml"
    profile.write_text('allow_functions: "pg_read_file; DROP"\n')
    assert "allow_functions" in _one_line_error(_cli("check", "How many products are there?", "--profile", str(profile)))


def test_a_sentinel_timestamp_in_the_data_does_not_crash_the_trend(tmp_path) -> None:
    from checker_app.settings import ensure_demo_database

    path = tmp_path / "sentinel.sqlite"
    shutil.copyfile(ensure_demo_database().removeprefix("sqlite:///"), path)
    conn = sqlite3.connect(path)
    conn.execute("UPDATE orders SET ordered_at = '9999-12-31 23:59:59' WHERE id = (SELECT max(id) FROM orders)")
    conn.commit()
    conn.close()
    out = _cli("check", "How are sales trending?", "--json", "--db", f"sqlite:///{path}")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert_valid(report)
    assert report["as_of"].startswith("9999-12-31") and report["interpretations"]


@pytest.mark.parametrize("url,words", [
    ("postgresql://u@127.0.0.1:abc/db", "port"),
    ("postgresql://u@[::1/db", "IPv6"),
    ("postgresql://u@127.0.0.1/db?frobnicate=1", "unknown option 'frobnicate'"),
    ("mysql://u@127.0.0.1/db?frobnicate=1", "unknown option 'frobnicate'"),
    ("postgresql+nodriver://u@127.0.0.1/db", "unknown driver"),
    ("oracle://u@127.0.0.1/db", "unsupported backend"),
])
def test_bad_urls_are_one_line_errors(url: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        parse_db_option(url)
    assert words in str(info.value)
    assert words in _one_line_error(_cli("check", "How many products are there?", "--db", url))


def test_a_sqlite_path_with_a_hash_opens_that_file_read_only(tmp_path) -> None:
    from checker_app.settings import ensure_demo_database

    folder = tmp_path / "a#b"
    folder.mkdir()
    (tmp_path / "a").write_bytes(b"")  # the file a lost fragment would open instead
    path = folder / "demo.sqlite"
    shutil.copyfile(ensure_demo_database().removeprefix("sqlite:///"), path)
    out = _cli("run", "SELECT count(*) AS n FROM products", "--json", "--db", f"lite=sqlite:///{path}")
    assert out.returncode == 0, out
    assert json.loads(out.stdout)["results"]["lite"]["rows"][0][0] > 0
    from adapters import Database

    db = Database(parse_db_option(f"sqlite:///{path}"))
    with db.engine.connect() as conn, pytest.raises(Exception, match="readonly"):
        conn.exec_driver_sql("DELETE FROM products")
    db.dispose()


def test_batch_gives_bad_records_an_error_line_and_goes_on(tmp_path) -> None:
    deep = "[" * 100_000 + "]" * 100_000
    lines = [
        '{"q": "How many products are there?"}',
        '{"q": "\\ud800"}',
        '{"x": 1}',
        '{"q": 42}',
        '{"q": ' + deep + "}",
        '"just a JSON string"',
        "{not json",
        "What is the top-selling product?",
    ]
    batch = tmp_path / "batch.jsonl"
    batch.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = _cli("batch", str(batch))
    assert out.returncode == 1, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    for record in records:
        assert_valid(record, "batch")
    assert len(records) == len(lines)
    assert [("error" in r) for r in records] == [False, True, True, True, True, False, True, False]
    assert all("\n" not in r["error"] for r in records if "error" in r)
    assert records[-1]["verdict"] == "material"  # a line not starting with '{' is a plain question


def test_diagnose_reads_the_other_traces_after_a_deeply_nested_one(tmp_path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    from checker_app.diagnose import sample_traces

    sample = sample_traces()[0]
    out = _cli("diagnose", str(deep), str(sample), "--json")
    assert out.returncode == 1, out.stderr
    records = [json.loads(line) for line in out.stdout.splitlines()]
    assert records[0]["source"] == "deep.json" and "nested too deeply" in records[0]["error"]
    assert records[1]["source"] == Path(sample).name and "findings" in records[1]
