"""Helpers for the few hot reads written in plain SQL (portable: PostgreSQL and SQLite).

The ORM builds each query anew on every request; on the busiest endpoints that cost more CPU
than the database spent answering (bench/results/latest.md). Those reads are plain SQL; these
helpers give their parameters and results the types the ORM would.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import functools
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from django.db import connection
from django.db.models import Model
from django.utils.dateparse import parse_datetime

_Row = TypeVar("_Row")


def rows_as(cursor, row_type: type[_Row]) -> list[_Row]:
    """Every row the cursor has left, each as a ``row_type`` (a frozen dataclass or a
    ``typing.NamedTuple``) built by column name: the typed form of Django's ``dictfetchall``.
    The statement names its columns after the type's fields (``AS field_name``); a column the
    type lacks, or a field no column fills, is an error at the first call, not a silently
    shifted value."""
    build = _row_builder(row_type, _column_names(cursor))
    return [build(row) for row in cursor.fetchall()]


def row_as(cursor, row_type: type[_Row]) -> _Row | None:
    """The cursor's next row as a ``row_type`` (see ``rows_as``), or None when there is none."""
    build = _row_builder(row_type, _column_names(cursor))
    row = cursor.fetchone()
    return None if row is None else build(row)


def _column_names(cursor) -> tuple[str, ...]:
    # psycopg: the names straight from the result. ``cursor.description`` builds a Column object
    # per column on every call (a fifth of the due queue's statement in Python).
    result = getattr(getattr(cursor, "cursor", None), "pgresult", None)
    if result is not None:
        return tuple(result.fname(index).decode() for index in range(result.nfields))
    return tuple(column[0] for column in cursor.description)


@functools.cache
def _row_builder(row_type: type, names: tuple[str, ...]) -> Callable[[Sequence], Any]:
    """How a row with these column names becomes a ``row_type``: checked once per statement
    shape. Columns in the dataclass's field order are passed by position (the names were
    checked to match), any other order by name. A ``typing.NamedTuple`` row type (frozen too)
    is built from a row in its field order by ``_make``, without a Python call per row: the
    due queue's rows were a quarter of its statement's Python work as frozen dataclasses."""
    named_tuple = issubclass(row_type, tuple)
    fields = (
        tuple(row_type._fields)
        if named_tuple
        else tuple(field.name for field in dataclasses.fields(row_type))
    )
    if set(names) != set(fields) or len(names) != len(fields):
        raise TypeError(
            f"{row_type.__name__}: the statement's columns {sorted(names)} are not its fields "
            f"{sorted(fields)}"
        )
    if names == fields:
        return row_type._make if named_tuple else lambda row: row_type(*row)
    return lambda row: row_type(**dict(zip(names, row, strict=True)))


@contextlib.contextmanager
def cursor():
    """``connection.cursor()`` for the hot plain-SQL statements. On PostgreSQL with the session
    in UTC (as Django sets it with USE_TZ), timestamps are read with psycopg's compiled loader
    instead of Django's Python subclass of it (which parses the same text in Python and then
    stamps the zone the session is in): the same aware UTC datetimes, without ~3 µs of Python
    per value (the due queue reads 20)."""
    with connection.cursor() as wrapped:
        if connection.vendor == "postgresql" and connection.timezone is datetime.UTC:
            adapters = getattr(wrapped.cursor, "adapters", None)  # psycopg 3, not psycopg2
            if adapters is not None:
                adapters.register_loader("timestamptz", _timestamptz_loader())
        yield wrapped


@functools.cache
def _timestamptz_loader():
    from psycopg.types.datetime import TimestamptzLoader

    return TimestamptzLoader


def datetime_param(value: datetime.datetime | None) -> Any:
    """An aware datetime (or None) as this database's driver expects it (SQLite: naive UTC
    text)."""
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
    insert = _Insert.of(type(instance))
    sql = f"{insert.into} VALUES ({insert.placeholders}) RETURNING {insert.pk}"
    params = insert.params(instance)
    together = along is not None and connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        if together:
            cursor.execute(f"WITH along AS ({along[0]}) {sql}", [*along[1], *params])
        else:
            cursor.execute(sql, params)
        _saved(instance, cursor.fetchone()[0])
        if along is not None and not together:
            cursor.execute(*along)


def row_insert_if_updated(instance: Model, *, update: tuple[str, list]) -> bool:
    """PostgreSQL: run ``update`` (an UPDATE … WHERE that guards a version) and INSERT the new
    model instance only if it matched a row, in one statement; set the instance's primary key.

    Returns False, writing nothing, when the UPDATE matched no row. One statement is one
    transaction by itself, so outside ``atomic`` this needs no BEGIN and no COMMIT round trip.
    """
    insert = _Insert.of(type(instance))
    sql = (
        f"WITH matched AS ({update[0]} RETURNING 1) "
        f"{insert.into} SELECT {insert.placeholders} FROM matched RETURNING {insert.pk}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*update[1], *insert.params(instance)])
        row = cursor.fetchone()
    if row is None:
        return False
    _saved(instance, row[0])
    return True


@dataclass(frozen=True)
class _Insert:
    """The parts of a model's INSERT, worked out once per model."""

    fields: list
    into: str  # INSERT INTO table (columns)
    placeholders: str
    pk: str

    @classmethod
    @functools.cache
    def of(cls, model: type[Model]) -> _Insert:
        fields = [field for field in model._meta.concrete_fields if not field.primary_key]
        quote = connection.ops.quote_name
        columns = ", ".join(quote(field.column) for field in fields)
        return cls(
            fields=fields,
            into=f"INSERT INTO {quote(model._meta.db_table)} ({columns})",
            placeholders=", ".join(["%s"] * len(fields)),
            pk=quote(model._meta.pk.column),
        )

    def params(self, instance: Model) -> list:
        return [
            field.get_db_prep_save(getattr(instance, field.attname), connection)
            for field in self.fields
        ]


def _saved(instance: Model, pk: Any) -> None:
    """Mark an instance inserted with plain SQL as saved, as save() would."""
    instance.pk = pk
    instance._state.adding = False
    instance._state.db = connection.alias


def dict_rows(sql: str, params: Sequence | dict = ()) -> list[dict[str, Any]]:
    """Run one kept plain-SQL read and return its rows as dicts by column name."""
    with connection.cursor() as plain:
        plain.execute(sql, params)
        names = [column.name for column in plain.description]
        return [dict(zip(names, row, strict=True)) for row in plain.fetchall()]
