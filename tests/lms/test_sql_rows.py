"""Rows of a kept plain-SQL statement come as dicts by column name, with the ORM's types."""

from __future__ import annotations

import datetime

import pytest

from lms.sql import dict_rows

pytestmark = pytest.mark.django_db


def test_rows_come_by_column_name_with_bound_parameters():
    rows = dict_rows(
        "SELECT %(left)s::int AS a, %(right)s::text AS b UNION ALL SELECT 2, 'z'",
        {"left": 1, "right": "x"},
    )
    assert rows == [{"a": 1, "b": "x"}, {"a": 2, "b": "z"}]


def test_a_timestamp_comes_back_aware_in_utc():
    at = datetime.datetime(2026, 3, 29, 1, 30, tzinfo=datetime.UTC)
    (row,) = dict_rows("SELECT %s::timestamptz AS at", [at])
    assert row["at"] == at
    assert row["at"].utcoffset() == datetime.timedelta(0)
