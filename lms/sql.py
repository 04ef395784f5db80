"""Helpers for the few hot reads written in plain SQL (portable: PostgreSQL and SQLite).

The ORM builds each query anew on every request; on the busiest endpoints that cost more CPU
than the database spent answering (bench/results/latest.md). Those reads are plain SQL; these
helpers give their parameters and results the types the ORM would.
"""

from __future__ import annotations

import datetime
import functools
import json
from typing import Any

from django.db import connection
from django.db.models import Model
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


def row_insert(instance: Model, *, along: tuple[str, list] | None = None) -> None:
    """INSERT one new model instance with plain SQL and set its primary key.

    For hot write paths only: no save() machinery, hence no signals and no ``auto_now`` (models
    inserted this way have neither). Every value is prepared by its field, as save() would.
    ``along`` is another data-modifying statement (SQL, params) to run with it: on PostgreSQL in
    the same round trip (a WITH of the INSERT, run whether or not it is read), elsewhere right
    after it.
    """
    model = type(instance)
    fields, sql = _insert_statement(model)
    params = [
        field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        if along is not None and connection.vendor == "postgresql":
            cursor.execute(f"WITH along AS ({along[0]}) {sql}", [*along[1], *params])
        else:
            cursor.execute(sql, params)
        instance.pk = cursor.fetchone()[0]
        if along is not None and connection.vendor != "postgresql":
            cursor.execute(*along)
    instance._state.adding = False
    instance._state.db = connection.alias


def row_insert_if_updated(instance: Model, *, update: tuple[str, list]) -> bool:
    """PostgreSQL: run ``update`` (an UPDATE … WHERE that guards a version) and INSERT the new
    model instance only if it matched a row, in one statement; set the instance's primary key.

    Returns False, writing nothing, when the UPDATE matched no row. One statement is one
    transaction by itself, so outside ``atomic`` this needs no BEGIN and no COMMIT round trip.
    """
    model = type(instance)
    fields, _ = _insert_statement(model)
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    values = ", ".join(["%s"] * len(fields))
    sql = (
        f"WITH matched AS ({update[0]} RETURNING 1) "
        f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({columns}) "
        f"SELECT {values} FROM matched RETURNING {connection.ops.quote_name(model._meta.pk.column)}"
    )
    params = [
        field.get_db_prep_save(getattr(instance, field.attname), connection) for field in fields
    ]
    with connection.cursor() as cursor:
        cursor.execute(sql, [*update[1], *params])
        row = cursor.fetchone()
    if row is None:
        return False
    instance.pk = row[0]
    instance._state.adding = False
    instance._state.db = connection.alias
    return True


@functools.cache
def _insert_statement(model: type[Model]) -> tuple[list, str]:
    fields = [field for field in model._meta.concrete_fields if not field.primary_key]
    columns = ", ".join(connection.ops.quote_name(field.column) for field in fields)
    placeholders = ", ".join(["%s"] * len(fields))
    pk = connection.ops.quote_name(model._meta.pk.column)
    return fields, (
        f"INSERT INTO {connection.ops.quote_name(model._meta.db_table)} ({columns}) "
        f"VALUES ({placeholders}) RETURNING {pk}"
    )
