"""The courses app's plain SQL: the step ETag read that every step view and every 304 starts with,
and the faces of review cards (front and back) the review page reads on every request.

Building the same ORM query cost about five times more CPU than running it (bench/README.md,
step lines; the cards' faces, a UNION of steps and quick checks, 0.5-1.1 ms a read against
the page's ~5 ms). Table and column names come from the models' ``_meta``, every value is bound, and
rows come back as a frozen row type by column name (``lms.sql.row_as``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import connection

from courses.models import STEP_ACTIVE, Module, QuickCheck, Step, TermCard
from lms.sql import row_as, rows_as


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


@dataclass(frozen=True)
class CardFaceRow:
    """A review card's faces: a step's term, its module's title and its definition, or a quick
    check's question and answer (``module_title`` empty)."""

    is_quick_check: bool
    id: int
    front: str
    module_title: str
    back: str


@functools.lru_cache(maxsize=256)
def _card_faces_sql(step_count: int, quick_check_count: int) -> str:
    quote = connection.ops.quote_name
    step, module, quick_check = Step._meta, Module._meta, QuickCheck._meta

    def column(opts, name: str) -> str:
        return quote(opts.get_field(name).column)

    def ids(count: int) -> str:
        return ", ".join(["%s"] * count)

    reads = []
    if step_count:
        reads.append(
            f"SELECT FALSE AS is_quick_check, s.{quote(step.pk.column)} AS id, "
            f"s.{column(step, 'term')} AS front, m.{column(module, 'title')} AS module_title, "
            f"s.{column(step, 'definition')} AS back "
            f"FROM {quote(step.db_table)} s "
            f"JOIN {quote(module.db_table)} m "
            f"ON m.{quote(module.pk.column)} = s.{column(step, 'module')} "
            f"WHERE s.{quote(step.pk.column)} IN ({ids(step_count)})"
        )
    if quick_check_count:
        reads.append(
            f"SELECT TRUE AS is_quick_check, q.{quote(quick_check.pk.column)} AS id, "
            f"q.{column(quick_check, 'question')} AS front, '' AS module_title, "
            f"q.{column(quick_check, 'answer')} AS back "
            f"FROM {quote(quick_check.db_table)} q "
            f"WHERE q.{quote(quick_check.pk.column)} IN ({ids(quick_check_count)})"
        )
    return " UNION ALL ".join(reads)


def card_faces_read(
    *, step_ids: Sequence[int], quick_check_ids: Sequence[int]
) -> list[CardFaceRow]:
    """Both faces of the cards of these steps and quick checks (unknown ids left out): one
    statement, none without ids."""
    if not step_ids and not quick_check_ids:
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            _card_faces_sql(len(step_ids), len(quick_check_ids)),
            [*step_ids, *quick_check_ids],
        )
        return rows_as(cursor, CardFaceRow)
