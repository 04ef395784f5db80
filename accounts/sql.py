"""The token look-up, the accounts app's one plain-SQL statement: on every knox request,
building the ``select_related`` query cost five times what PostgreSQL spends running it."""

from __future__ import annotations

import functools

from django.db import Error as DatabaseError
from django.db import connection
from knox.models import AuthToken

from accounts.models import User
from lms.sql import dict_rows


@functools.cache
def _token_statement() -> str:
    quote = connection.ops.quote_name
    columns = [
        f"{alias}.{quote(field.column)} AS {quote(f'{alias}.{field.attname}')}"
        for alias, model in (("t", AuthToken), ("u", User))
        for field in model._meta.concrete_fields
    ]
    user_id = quote(AuthToken._meta.get_field("user").column)
    key = quote(AuthToken._meta.get_field("token_key").column)
    return (
        f"SELECT {', '.join(columns)} FROM {quote(AuthToken._meta.db_table)} t "
        f"JOIN {quote(User._meta.db_table)} u ON u.{quote(User._meta.pk.column)} = t.{user_id} "
        f"WHERE t.{key} = %s"
    )


def _instance(model, alias: str, row: dict):
    # PostgreSQL returns each of these columns as the field's Python value (no converters).
    names = [field.attname for field in model._meta.concrete_fields]
    return model.from_db(connection.alias, names, [row[f"{alias}.{name}"] for name in names])


def tokens_with_user(token_key: str) -> list[AuthToken]:
    """The knox tokens with this key prefix, each with its user loaded: one statement, which also
    serves as the connection's health check, so a dropped connection never fails a request."""
    checks_first = (
        connection.health_check_enabled
        and not connection.health_check_done
        and connection.connection is not None
        and not connection.in_atomic_block
    )
    if checks_first:
        connection.health_check_done = True
    try:
        rows = dict_rows(_token_statement(), [token_key])
    except DatabaseError:
        if not checks_first:
            raise
        connection.close()
        rows = dict_rows(_token_statement(), [token_key])
    tokens = []
    for row in rows:
        token = _instance(AuthToken, "t", row)
        AuthToken._meta.get_field("user").set_cached_value(token, _instance(User, "u", row))
        tokens.append(token)
    return tokens
