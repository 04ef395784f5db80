"""Helpers for the few hot reads written in plain SQL (portable: PostgreSQL and SQLite).

The ORM builds each query anew on every request; on the busiest endpoints that cost more CPU
than the database spent answering (bench/results/latest.md). Those reads are plain SQL; these
helpers give their parameters and results the types the ORM would.
"""

from __future__ import annotations

import datetime
import json
from typing import Any

from django.db import connection
from django.utils.dateparse import parse_datetime


def datetime_param(value: datetime.datetime) -> Any:
    """An aware datetime as this database's driver expects it (SQLite: naive UTC text)."""
    return connection.ops.adapt_datetimefield_value(value)


def aware(value: Any) -> datetime.datetime | None:
    """A timestamp read with plain SQL: aware on PostgreSQL, naive UTC or text on SQLite."""
    if value is None or (isinstance(value, datetime.datetime) and value.tzinfo is not None):
        return value
    if isinstance(value, str):
        value = parse_datetime(value)
        if value.tzinfo is not None:
            return value
    return value.replace(tzinfo=datetime.UTC)


def json_value(value: Any) -> Any:
    """A JSON column read with plain SQL (Django reads jsonb as text; SQLite stores text)."""
    return json.loads(value) if isinstance(value, str | bytes) else value
