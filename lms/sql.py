"""The one helper for the few statements kept in plain SQL (each ``<app>/sql.py`` says why)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection
from psycopg.rows import dict_row


def dict_rows(sql: str, params: Sequence | dict = ()) -> list[dict[str, Any]]:
    """Run one kept plain-SQL read and return its rows as dicts by column name (psycopg's own
    ``dict_row`` factory on the cursor Django wraps, so the statement is counted and logged)."""
    with connection.cursor() as plain:
        plain.cursor.row_factory = dict_row
        plain.execute(sql, params)
        return plain.fetchall()
