"""The plain SQL of the accounts app: storing the reminder planner's next instants.

Why plain SQL: every reminder planner chunk moves up to 500 learners on to their next reminder
instant, each only if it still holds the value the planner read (a compare-and-swap the ORM's
bulk_update cannot express; it would also write a CASE with a branch per learner). Here it is
one UPDATE joined to arrays (PostgreSQL) or one prepared UPDATE run per row (SQLite), one
statement either way (the planner's pinned per-chunk count, bench/results/latest.md: reminder
planner). Table and column names come from ``User._meta``; every value is a bound parameter.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Mapping

from django.db import connection

from accounts.models import User
from lms.sql import datetime_param

_quote = connection.ops.quote_name
_TABLE = _quote(User._meta.db_table)
_NEXT = _quote(User._meta.get_field("next_reminder_at").column)
_ID = _quote(User._meta.pk.column)


def next_reminders_update(
    next_at: Mapping[int, datetime.datetime | None],
    *,
    read: Mapping[int, datetime.datetime] | None = None,
) -> None:
    """Set ``next_reminder_at`` of each learner id to its instant (or NULL), in one statement.

    With ``read`` (the values the caller read), a row is changed only if it still holds that
    value: a compare-and-swap, so a preference change saved meanwhile keeps what it stored.
    """
    if not next_at:
        return
    ids = list(next_at)
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            # One UPDATE joined to the arrays: no CASE with a branch per learner.
            values = [next_at[learner_id] for learner_id in ids]
            if read is None:
                cursor.execute(
                    f"UPDATE {_TABLE} AS learner SET {_NEXT} = schedule.next_at "
                    "FROM unnest(%s::bigint[], %s::timestamptz[]) AS schedule(id, next_at) "
                    f"WHERE learner.{_ID} = schedule.id",
                    [ids, values],
                )
            else:
                cursor.execute(
                    f"UPDATE {_TABLE} AS learner SET {_NEXT} = schedule.next_at "
                    "FROM unnest(%s::bigint[], %s::timestamptz[], %s::timestamptz[]) "
                    "AS schedule(id, next_at, read_at) "
                    f"WHERE learner.{_ID} = schedule.id AND learner.{_NEXT} = schedule.read_at",
                    [ids, values, [read[learner_id] for learner_id in ids]],
                )
        else:
            # Portable: one prepared UPDATE run for every row (one statement for Django's count).
            sql = f"UPDATE {_TABLE} SET {_NEXT} = %s WHERE {_ID} = %s"
            if read is None:
                cursor.executemany(
                    sql, [(datetime_param(next_at[learner_id]), learner_id) for learner_id in ids]
                )
            else:
                cursor.executemany(
                    sql + f" AND {_NEXT} = %s",
                    [
                        (
                            datetime_param(next_at[learner_id]),
                            learner_id,
                            datetime_param(read[learner_id]),
                        )
                        for learner_id in ids
                    ],
                )


# --- the token look-up ------------------------------------------------------------------------
#
# Why plain SQL: every request with a knox token looks its token up with its user
# (``select_related``). Building that ORM query over the user's ~70 columns cost about five
# times what PostgreSQL spent running it (bench.profile floor_auth: 1.7 ms of the token floor's
# 7 ms CPU per request). The statement here is built once from ``_meta``; its values go through
# the same database converters the ORM applies (SQLite returns text for dates, 0/1 for flags),
# and the rows become the same model instances. knox's ``AuthToken`` table is read here because
# accounts is the app that authenticates with it (accounts.auth); knox itself writes it.


@functools.cache
def _token_statement() -> tuple[str, list, list, list, list]:
    from knox.models import AuthToken

    token_fields = list(AuthToken._meta.concrete_fields)
    user_fields = list(User._meta.concrete_fields)
    columns = [f"t.{_quote(f.column)}" for f in token_fields] + [
        f"u.{_quote(f.column)}" for f in user_fields
    ]
    user_fk = AuthToken._meta.get_field("user").column
    key = AuthToken._meta.get_field("token_key").column
    sql = (
        f"SELECT {', '.join(columns)} FROM {_quote(AuthToken._meta.db_table)} t "
        f"JOIN {_TABLE} u ON u.{_ID} = t.{_quote(user_fk)} WHERE t.{_quote(key)} = %s"
    )

    def converters(model, fields):
        # (position, converters, expression) of the fields that have any (on PostgreSQL few do).
        found = []
        for position, field in enumerate(fields):
            expression = field.get_col(model._meta.db_table)
            field_converters = connection.ops.get_db_converters(
                expression
            ) + field.get_db_converters(connection)
            if field_converters:
                found.append((position, field_converters, expression))
        return found

    return (
        sql,
        token_fields,
        converters(AuthToken, token_fields),
        user_fields,
        converters(User, user_fields),
    )


def _converted(values, converters) -> list:
    out = list(values)
    for position, field_converters, expression in converters:
        value = out[position]
        for converter in field_converters:
            value = converter(value, expression, connection)
        out[position] = value
    return out


def tokens_with_user(token_key: str) -> list:
    """The knox tokens with this key prefix, each with its user loaded (as
    ``select_related("user")`` would): one statement.

    The connection's health check (a ``SELECT 1`` round trip before a reused connection's first
    query in a request) is this statement's own: if the server dropped the connection, it fails,
    the connection is replaced and the statement runs once more, so a dropped connection still
    never fails a request (tests/reliability/test_faults.py).
    """
    from django.db import Error as DatabaseError
    from knox.models import AuthToken

    sql, token_fields, token_converters, user_fields, user_converters = _token_statement()
    checks_first = (
        connection.health_check_enabled
        and not connection.health_check_done
        and connection.connection is not None
        and not connection.in_atomic_block
    )
    if checks_first:
        connection.health_check_done = True
    try:
        with connection.cursor() as cursor:
            cursor.execute(sql, [token_key])
            rows = cursor.fetchall()
    except DatabaseError:
        if not checks_first:
            raise
        connection.close()
        with connection.cursor() as cursor:
            cursor.execute(sql, [token_key])
            rows = cursor.fetchall()
    user_field = AuthToken._meta.get_field("user")
    token_names = [f.attname for f in token_fields]
    user_names = [f.attname for f in user_fields]
    tokens = []
    n = len(token_fields)
    for row in rows:
        token = AuthToken.from_db(
            connection.alias,
            token_names,
            _converted(row[:n], token_converters),
        )
        user = User.from_db(
            connection.alias,
            user_names,
            _converted(row[n:], user_converters),
        )
        user_field.set_cached_value(token, user)
        tokens.append(token)
    return tokens
