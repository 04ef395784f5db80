"""The one helper for the few statements kept in plain SQL (each ``<app>/sql.py`` says why)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connection


def dict_rows(sql: str, params: Sequence | dict = ()) -> list[dict[str, Any]]:
    """Run one kept plain-SQL read and return its rows as dicts by column name."""
    with connection.cursor() as plain:
        plain.execute(sql, params)
        names = [column.name for column in plain.description]
        return [dict(zip(names, row, strict=True)) for row in plain.fetchall()]
