"""The courses app's plain SQL: the step ETag read that every step view and every 304 starts with.

Building the same ORM query cost about five times more CPU than running it (bench/README.md,
step lines). Table and column names come from the models' ``_meta``, every value is bound, and
rows come back as a frozen row type by column name (``lms.sql.row_as``).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from django.db import connection

from courses.models import STEP_ACTIVE, Module, Step, TermCard
from lms.sql import row_as


@dataclass(frozen=True)
class StepHashes:
    step_hash: str
    card_hash: str | None


@functools.cache
def _step_hashes_sql() -> str:
    quote = connection.ops.quote_name
    step, module, card = Step._meta, Module._meta, TermCard._meta

    def column(opts, name: str) -> str:
        return quote(opts.get_field(name).column)

    return (
        f"SELECT s.{column(step, 'content_hash')} AS step_hash, "
        f"c.{column(card, 'content_hash')} AS card_hash "
        f"FROM {quote(step.db_table)} s "
        f"JOIN {quote(module.db_table)} m "
        f"ON m.{quote(module.pk.column)} = s.{column(step, 'module')} "
        f"LEFT JOIN {quote(card.db_table)} c "
        f"ON c.{column(card, 'step')} = s.{quote(step.pk.column)} "
        f"WHERE m.{column(module, 'slug')} = %s AND s.{column(step, 'number')} = %s "
        f"AND s.{column(step, 'status')} = %s"
    )


def step_hashes(*, module_slug: str, number: int) -> StepHashes | None:
    """The content hashes of an active step and its term card; None when there is no such step."""
    with connection.cursor() as cursor:
        cursor.execute(_step_hashes_sql(), [module_slug, number, STEP_ACTIVE])
        return row_as(cursor, StepHashes)
