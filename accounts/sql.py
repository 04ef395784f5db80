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
