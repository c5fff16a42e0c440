"""The profile overrides file at its boundary: each mistake is one line that names the key.

The overrides applied to a real schema are tested in tests/test_archetypes.py::test_profile_overrides.
"""
from __future__ import annotations

import datetime as dt

import pytest

from archetypes.errors import ProfileOverrideError
from archetypes.profile import load_profile_overrides
from archetypes.profile.overrides import validated

# YAML  ->  words the one-line error must contain (one case a line)
BAD = [
    ("business_time_zone: Mars/Olympus", "business_time_zone: 'Mars/Olympus' is not an IANA time zone"),
    ("fiscal_year_start: 13", "fiscal_year_start: expected a month number 1-12"),
    ("fiscal_year_start: '4'", "fiscal_year_start"),
    ("fiscal_year_strat: 4", "fiscal_year_strat: not a key of the profile overrides"),
    ("synonyms: [site, Warehouse]", "synonyms: expected a mapping"),
    ("as_of: '2025-13-45'", "as_of: expected a date YYYY-MM-DD"),
    ("as_of: 2025-13-45", "month must be in 1..12"),   # YAML itself reads an unquoted date
    ("measures: [{value: net}]", "measures.0.table: required"),
    ("measures: [{value: net, table: t, money: maybe}]", "measures.0.money: expected true or false"),
    ("measures: {value: net}", "measures: expected a list"),
    ("measures: [{value: net, table: t, expression: 'price *'}]", "measures.0.expression: cannot parse"),
    ("measures: [{value: net, table: t, colum: price}]", "measures.0.colum: not a key"),
    ("allow_functions: 'pg_read_file; DROP'", "allow_functions: expected a list"),
    ("ignore_tables: {a: b}", "ignore_tables: expected a list"),
    ("synonyms: {site: [a, {b: c}]}", "synonyms.site.1: expected text"),
    ("- a list", "expected a mapping at the top"),
    ("synonyms: {a: [b", "cannot read profile overrides"),
]


@pytest.mark.parametrize(("text", "words"), BAD)
def test_a_bad_overrides_file_is_one_line_naming_the_key(tmp_path, text: str, words: str) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text(text + "\n", encoding="utf-8")
    with pytest.raises(ProfileOverrideError) as raised:
        load_profile_overrides(path)
    message = str(raised.value)
    assert words in message and "\n" not in message, message


def test_a_missing_file_is_one_line(tmp_path) -> None:
    with pytest.raises(ProfileOverrideError, match="cannot read profile overrides"):
        load_profile_overrides(tmp_path / "missing.yaml")


def test_the_file_reads_as_written(tmp_path) -> None:
    path = tmp_path / "profile.yaml"
    path.write_text("synonyms:\n  site: Warehouse\n  where: [a.city, b.country]\nfiscal_year_start: 4\n"
                    "as_of: 2025-06-30\nignore_tables:\nmeasures:\n  - {value: 2024, table: t, column: c}\n",
                    encoding="utf-8")
    data = load_profile_overrides(path)
    checked = validated(data)
    assert checked.synonyms == {"site": "Warehouse", "where": "a.city, b.country"}
    assert checked.fiscal_year_start == 4 and checked.as_of == dt.date(2025, 6, 30)
    assert checked.ignore_tables == () and checked.measures[0].value == "2024"
