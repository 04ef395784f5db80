"""The progress app's plain SQL: the learner's enrollment with their progress rows on a module,
with their progress and notes on one step, and every enrollment with every progress row.

The progress page reads the first on every request, the step page the second; built with the
ORM each read cost more CPU than everything else its request does (bench/results/latest.md,
module progress; bench.profile web_step: the step reader's state a third of the page). Only the
progress app's own tables are named: the module's step ids come in as parameters (from
``courses.api.module_outline``). Table and column names come from ``_meta``, every value is
bound, and rows come back as a frozen row type by column name (``lms.sql.rows_as``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

from django.db import connection

from lms.sql import cursor, rows_as
from progress.models import Enrollment, StepNote, StepProgress


class EnrollmentProgressRow(NamedTuple):
    """The enrollment, and one of the learner's progress rows on the given steps (all None
    when there is none). A NamedTuple: ``rows_as`` builds it without a Python call per row
    (up to one row per step of the module, on every progress and module page)."""

    enrolled_at: Any
    step_id: int | None
    status: str | None
    sections_viewed: Any
    last_section: str | None
    first_opened_at: Any
    completed_at: Any
    last_event_at: Any


@functools.cache
def _statement(*, vendor: str, step_count: int) -> str:
    quote = connection.ops.quote_name
    enrollment, progress = Enrollment._meta, StepProgress._meta

    def e(name: str) -> str:
        return f"e.{quote(enrollment.get_field(name).column)}"

    def p(name: str) -> str:
        return f"p.{quote(progress.get_field(name).column)}"

    if step_count == 0:
        steps = "1 = 0"
    elif vendor == "postgresql":
        # One array literal as text, cast by the server (psycopg would build the array in
        # Python on every request).
        steps = f"{p('step')} = ANY(%s::bigint[])"
    else:
        steps = f"{p('step')} IN ({', '.join(['%s'] * step_count)})"
    columns = ", ".join(
        f"{p(name)} AS {name}"
        for name in (
            "status",
            "sections_viewed",
            "last_section",
            "first_opened_at",
            "completed_at",
            "last_event_at",
        )
    )
    return (
        f"SELECT {e('enrolled_at')} AS enrolled_at, {p('step')} AS step_id, {columns} "
        f"FROM {quote(enrollment.db_table)} e "
        f"LEFT JOIN {quote(progress.db_table)} p "
        f"ON {p('learner')} = {e('learner')} AND {steps} "
        f"WHERE {e('learner')} = %s AND {e('module')} = %s"
    )


def enrollment_progress_rows(
    *, learner_id: int, module_id: int, step_ids: Sequence[int]
) -> list[EnrollmentProgressRow]:
    """The learner's enrollment in the module joined to their progress rows on ``step_ids``:
    no row when not enrolled; one row with the progress columns None when there is no progress.
    One query."""
    vendor = connection.vendor
    sql = _statement(vendor=vendor, step_count=len(step_ids))
    if not step_ids:
        params: list = []
    elif vendor == "postgresql":
        params = ["{" + ",".join(str(int(step_id)) for step_id in step_ids) + "}"]
    else:
        params = list(step_ids)
    with cursor() as progress_cursor:
        progress_cursor.execute(sql, [*params, learner_id, module_id])
        return rows_as(progress_cursor, EnrollmentProgressRow)


@dataclass(frozen=True)
class StepReaderRow:
    """The enrollment joined to the learner's progress row on the step (status and sections
    viewed, None when there is none) and one of their notes on it (prompt and text, None when
    there is none): one row per note, at least one."""

    status: str | None
    sections_viewed: Any
    prompt: str | None
    text: str | None
    # The value of the caller's own column (``step_reader_rows``'s ``column``), else None.
    carried: Any


@functools.cache
def _step_reader_statement(carried: str = "NULL") -> str:
    quote = connection.ops.quote_name
    enrollment, progress, note = Enrollment._meta, StepProgress._meta, StepNote._meta

    def column(alias: str, meta, name: str) -> str:
        return f"{alias}.{quote(meta.get_field(name).column)}"

    return (
        f"SELECT {column('p', progress, 'status')} AS status, "
        f"{column('p', progress, 'sections_viewed')} AS sections_viewed, "
        f"{column('n', note, 'prompt')} AS prompt, {column('n', note, 'text')} AS text, "
        f"{carried} AS carried "
        f"FROM {quote(enrollment.db_table)} e "
        f"LEFT JOIN {quote(progress.db_table)} p "
        f"ON {column('p', progress, 'learner')} = {column('e', enrollment, 'learner')} "
        f"AND {column('p', progress, 'step')} = %s "
        f"LEFT JOIN {quote(note.db_table)} n "
        f"ON {column('n', note, 'learner')} = {column('e', enrollment, 'learner')} "
        f"AND {column('n', note, 'step')} = %s "
        f"WHERE {column('e', enrollment, 'learner')} = %s "
        f"AND {column('e', enrollment, 'module')} = %s"
    )


def step_reader_rows(
    *, learner_id: int, module_id: int, step_id: int, column: tuple[str, list] | None = None
) -> list[StepReaderRow]:
    """The learner's enrollment in the module with their progress and notes on the step: no row
    when not enrolled (one progress row at most and one note per prompt, by the tables'
    unique constraints). One query. ``column``: a scalar subquery of another app (SQL, params)
    the statement carries as ``carried`` (the step page's quick-check ratings)."""
    sql, params = column if column is not None else ("NULL", [])
    with connection.cursor() as cursor:
        cursor.execute(
            _step_reader_statement(sql), [*params, step_id, step_id, learner_id, module_id]
        )
        return rows_as(cursor, StepReaderRow)


@dataclass(frozen=True)
class LearnerProgressRow:
    """One of the learner's enrollments (``module_id`` and ``enrolled_at``, the progress columns
    None) or one of their progress rows (``step_id`` and the progress columns, the enrollment's
    None)."""

    module_id: int | None
    enrolled_at: Any
    step_id: int | None
    status: str | None
    sections_viewed: Any
    last_section: str | None
    first_opened_at: Any
    completed_at: Any
    last_event_at: Any


# The progress row's columns, as EnrollmentProgressRow names them after its step.
_PROGRESS_COLUMNS = EnrollmentProgressRow._fields[
    EnrollmentProgressRow._fields.index("step_id") + 1 :
]


@functools.cache
def _learner_progress_statement() -> str:
    quote = connection.ops.quote_name
    enrollment, progress = Enrollment._meta, StepProgress._meta

    def e(name: str) -> str:
        return quote(enrollment.get_field(name).column)

    def p(name: str) -> str:
        return quote(progress.get_field(name).column)

    # Typed NULLs: each branch's columns must agree on their types.
    nulls = {
        name: f"CAST(NULL AS {progress.get_field(name).db_type(connection)})"
        for name in _PROGRESS_COLUMNS
    }
    step_type = progress.get_field("step").db_type(connection)
    enrollments = ", ".join(f"{nulls[name]} AS {name}" for name in _PROGRESS_COLUMNS)
    progress_columns = ", ".join(f"{p(name)} AS {name}" for name in _PROGRESS_COLUMNS)
    # The enrollments first (newest first), then the progress rows; "position" keeps them so.
    return (
        f"SELECT module_id, enrolled_at, step_id, {', '.join(_PROGRESS_COLUMNS)} FROM ("
        f"SELECT 0 AS position, {e('module')} AS module_id, {e('enrolled_at')} AS enrolled_at, "
        f"{e('id')} AS enrollment_id, CAST(NULL AS {step_type}) AS step_id, {enrollments} "
        f"FROM {quote(enrollment.db_table)} WHERE {e('learner')} = %s "
        "UNION ALL "
        f"SELECT 1, NULL, NULL, NULL, {p('step')}, {progress_columns} "
        f"FROM {quote(progress.db_table)} WHERE {p('learner')} = %s"
        ") AS learner_progress ORDER BY position, enrolled_at DESC, enrollment_id DESC"
    )


def learner_progress_rows(*, learner_id: int) -> list[LearnerProgressRow]:
    """Every enrollment of the learner, newest first, then every progress row of theirs (on any
    module's steps, retired ones too). One statement, for the pages that show each enrolled
    module's progress (the dashboard, the statistics): a statement for the enrollments and one
    per module cost a round trip each."""
    with cursor() as progress_cursor:
        progress_cursor.execute(_learner_progress_statement(), [learner_id, learner_id])
        return rows_as(progress_cursor, LearnerProgressRow)
