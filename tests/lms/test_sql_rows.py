"""Rows read with plain SQL onto their row types by column name (lms.sql.rows_as, row_as): frozen
dataclasses and NamedTuples alike, in any column order, and a mismatch is an error."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import pytest
from django.db import connection

from lms.sql import cursor, row_as, rows_as

pytestmark = pytest.mark.django_db


@dataclass(frozen=True)
class PairClass:
    left: int
    right: str


class PairTuple(NamedTuple):
    left: int
    right: str


@pytest.mark.parametrize("row_type", [PairClass, PairTuple])
@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1 AS left, 'a' AS right UNION ALL SELECT 2, 'b'",
        "SELECT 'a' AS right, 1 AS left UNION ALL SELECT 'b', 2",
    ],
)
def test_rows_come_by_column_name_whatever_the_type_or_order(row_type, sql):
    with cursor() as rows_cursor:
        rows_cursor.execute(sql.replace("left", '"left"').replace("right", '"right"'))
        rows = rows_as(rows_cursor, row_type)
    assert rows == [row_type(left=1, right="a"), row_type(left=2, right="b")]
    assert all(type(row) is row_type for row in rows)


@pytest.mark.parametrize("row_type", [PairClass, PairTuple])
def test_a_column_the_type_lacks_is_an_error(row_type):
    with connection.cursor() as rows_cursor:
        rows_cursor.execute('SELECT 1 AS "left", \'a\' AS "other"')
        with pytest.raises(TypeError, match="not its fields"):
            rows_as(rows_cursor, row_type)


def test_row_as_gives_none_without_a_row():
    with connection.cursor() as rows_cursor:
        rows_cursor.execute('SELECT 1 AS "left", \'a\' AS "right" WHERE 1 = 0')
        assert row_as(rows_cursor, PairTuple) is None
