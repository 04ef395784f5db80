"""The plain SQL of the quizzes app: the statements of an exam attempt's finalization.

Why plain SQL: every submit (and every expired attempt) runs these statements, and building
them with the ORM and instantiating the models cost more CPU than everything else the submit
does (bench/results/latest.md, exam submit). They are portable (PostgreSQL and SQLite).

How: each statement is built once from the models' ``_meta`` names (no table or column typed by
hand), every value is a bound parameter, and rows are read by column name onto frozen row types
(``lms.sql.rows_as``), then into the attempt's value types (``quizzes.attempt_rules``). No
statement names another app's table: what the certificate needs of the learner comes as a value.
"""

from __future__ import annotations

import datetime
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Context as DecimalContext
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Model

from lms.sql import aware, cursor, datetime_param, json_value, row_as, rows_as
from quizzes.attempt_rules import AttemptPolicy, AttemptResult, GradedItem, LearnerAttempt
from quizzes.models import (
    Certificate,
    ExamAccommodation,
    ExamAttempt,
    ExamAttemptItem,
    ExamPolicy,
    ExamResult,
)

_CENT = Decimal("0.01")
# What Django's SQLite backend does to a decimal column (stored as a float or an integer).
_SQLITE_DECIMAL = DecimalContext(prec=15).create_decimal_from_float


def _decimal(value: Any) -> Decimal:
    """A two-place decimal column read with plain SQL (PostgreSQL: a Decimal already)."""
    return value if isinstance(value, Decimal) else _SQLITE_DECIMAL(value).quantize(_CENT)


class _Names:
    """A model's quoted table and column names, from its ``_meta``, under a table alias:
    ``attempt("learner")`` is ``t."learner_id"``, ``attempt.table`` is
    ``"quizzes_examattempt" t``."""

    def __init__(self, model: type[Model], alias: str = "") -> None:
        quote = connection.ops.quote_name
        self._meta = model._meta
        self._prefix = f"{alias}." if alias else ""
        self.table = quote(model._meta.db_table) + (f" {alias}" if alias else "")

    def __call__(self, field: str) -> str:
        return self._prefix + connection.ops.quote_name(self._meta.get_field(field).column)


# --- the attempt's lock and what finalizing it reads --------------------------------------------


@dataclass(frozen=True, slots=True)
class _AttemptLockRow:
    """One row of the lock statement: the locked attempt and its policy (the same in every row),
    and one of the learner's attempts in the module with its result (NULLs when it has none)."""

    learner_id: int
    module_id: int
    pass_mark_percent: Any
    deadline_at: Any
    grading_method: str
    policy_pass_mark_percent: Any
    max_attempts: int
    review_content: str
    review_timing: str
    extra_attempts: int | None
    certificate_code: str | None
    attempt_id: int
    attempt_number: int
    certifying: Any
    result_id: int | None
    score_percent: Any
    passed: Any
    correct_count: int | None
    item_count: int | None
    reason: str | None
    finalized_at: Any


@dataclass(frozen=True, slots=True)
class LockedAttempt:
    """What finalizing an attempt reads with its lock: the attempt, its policy (``max_attempts``
    the learner's own, with any extra attempts), the module's certificate if any, and every
    attempt of the learner in the module (``this`` among them)."""

    learner_id: int
    module_id: int
    pass_mark_percent: Decimal
    deadline_at: datetime.datetime
    policy: AttemptPolicy
    certificate_code: str | None
    this: LearnerAttempt
    attempts: list[LearnerAttempt]


@functools.cache
def _attempt_lock_sql(*, own: bool) -> str:
    """Lock the attempt (only its row) and read, in the same statement, its policy, the module's
    certificate if any and every attempt of the learner in the module with its result: one row
    per attempt. The certificate is a subquery, not a fifth join: PostgreSQL plans that in about
    two thirds of the time (planning is most of this statement's cost on the server); the
    learner's extra attempts (an accommodation) are one more subquery of the same kind."""
    t, p, a = _Names(ExamAttempt, "t"), _Names(ExamPolicy, "p"), _Names(ExamAttempt, "a")
    r, c = _Names(ExamResult, "r"), _Names(Certificate, "c")
    x = _Names(ExamAccommodation, "x")
    sql = f"""
SELECT {t("learner")} AS learner_id, {t("module")} AS module_id,
       {t("pass_mark_percent")} AS pass_mark_percent, {t("deadline_at")} AS deadline_at,
       {p("grading_method")} AS grading_method,
       {p("pass_mark_percent")} AS policy_pass_mark_percent,
       {p("max_attempts")} AS max_attempts, {p("review_content")} AS review_content,
       {p("review_timing")} AS review_timing,
       (SELECT {x("extra_attempts")} FROM {x.table}
        WHERE {x("learner")} = {t("learner")} AND {x("module")} = {t("module")})
           AS extra_attempts,
       (SELECT {c("code")} FROM {c.table}
        WHERE {c("learner")} = {t("learner")} AND {c("module")} = {t("module")})
           AS certificate_code,
       {a("id")} AS attempt_id, {a("number")} AS attempt_number,
       {a("certifying")} AS certifying,
       {r("id")} AS result_id, {r("score_percent")} AS score_percent, {r("passed")} AS passed,
       {r("correct_count")} AS correct_count, {r("item_count")} AS item_count,
       {r("reason")} AS reason, {r("finalized_at")} AS finalized_at
FROM {t.table}
JOIN {p.table} ON {p("id")} = {t("policy")}
JOIN {a.table} ON {a("learner")} = {t("learner")} AND {a("module")} = {t("module")}
LEFT JOIN {r.table} ON {r("attempt")} = {a("id")}
WHERE {t("id")} = %s{f" AND {t('learner')} = %s" if own else ""}
ORDER BY {a("number")}"""
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF t"
    elif connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return sql


def attempt_lock(*, attempt_id: int, learner_id: int | None) -> LockedAttempt | None:
    """Lock the attempt and read what finalizing it needs; ``learner_id`` restricts it to the
    learner's own attempt. None when there is no such attempt."""
    params = [attempt_id] if learner_id is None else [attempt_id, learner_id]
    with cursor() as lock_cursor:
        lock_cursor.execute(_attempt_lock_sql(own=learner_id is not None), params)
        rows = rows_as(lock_cursor, _AttemptLockRow)
    if not rows:
        return None
    attempts = [
        LearnerAttempt(
            id=row.attempt_id,
            number=row.attempt_number,
            result=None
            if row.result_id is None
            else AttemptResult(
                score_percent=_decimal(row.score_percent),
                passed=bool(row.passed),
                correct_count=row.correct_count,
                item_count=row.item_count,
                reason=row.reason,
                finalized_at=aware(row.finalized_at),
            ),
            certifying=bool(row.certifying),
        )
        for row in rows
    ]
    first = rows[0]
    return LockedAttempt(
        learner_id=first.learner_id,
        module_id=first.module_id,
        pass_mark_percent=_decimal(first.pass_mark_percent),
        deadline_at=aware(first.deadline_at),
        policy=AttemptPolicy(
            grading_method=first.grading_method,
            pass_mark_percent=_decimal(first.policy_pass_mark_percent),
            max_attempts=first.max_attempts + (first.extra_attempts or 0),
            review_content=first.review_content,
            review_timing=first.review_timing,
        ),
        certificate_code=first.certificate_code,
        this=next(attempt for attempt in attempts if attempt.id == attempt_id),
        attempts=attempts,
    )


# --- the attempt's items and their grading ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _AttemptItemRow:
    id: int
    position: int
    correct_keys: Any
    selected_keys: Any
    explanation: str
    is_correct: Any
    kind: str
    answer_key: Any
    answer_text: str | None
    answer_pairs: Any


@functools.cache
def _attempt_items_sql() -> str:
    i = _Names(ExamAttemptItem)
    return f"""
SELECT {i("id")} AS id, {i("position")} AS position, {i("correct_keys")} AS correct_keys,
       {i("selected_keys")} AS selected_keys, {i("explanation")} AS explanation,
       {i("is_correct")} AS is_correct, {i("kind")} AS kind, {i("answer_key")} AS answer_key,
       {i("answer_text")} AS answer_text, {i("answer_pairs")} AS answer_pairs
FROM {i.table} WHERE {i("attempt")} = %s ORDER BY {i("position")}"""


def attempt_items(*, attempt_id: int) -> list[GradedItem]:
    """The attempt's items in order, as grading and the review need them."""
    with cursor() as items_cursor:
        items_cursor.execute(_attempt_items_sql(), [attempt_id])
        rows = rows_as(items_cursor, _AttemptItemRow)
    return [
        GradedItem(
            id=row.id,
            position=row.position,
            correct_keys=json_value(row.correct_keys),
            selected_keys=json_value(row.selected_keys),
            explanation=row.explanation,
            is_correct=None if row.is_correct is None else bool(row.is_correct),
            kind=row.kind,
            answer_key=json_value(row.answer_key),
            answer_text=row.answer_text,
            answer_pairs=json_value(row.answer_pairs),
        )
        for row in rows
    ]


@functools.cache
def _items_grade_sql(*, correct: int) -> str:
    """``correct`` placeholders for the ids of the correct items (0: every item is wrong)."""
    i = _Names(ExamAttemptItem)
    # "id IN ()" is no SQL: with no correct item, every item is set to the bound False.
    value = f"({i('id')} IN ({', '.join(['%s'] * correct)}))" if correct else "%s"
    return f"UPDATE {i.table} SET {i('is_correct')} = {value} WHERE {i('attempt')} = %s"


def attempt_items_grade(*, attempt_id: int, items: Sequence[GradedItem]) -> None:
    """Store each item's graded correctness in one UPDATE (``bulk_update`` builds a CASE per item
    in Python, once the largest single cost of a submit)."""
    if not items:
        return
    correct_ids = [item.id for item in items if item.is_correct]
    params = [*correct_ids, attempt_id] if correct_ids else [False, attempt_id]
    with connection.cursor() as cursor:
        cursor.execute(_items_grade_sql(correct=len(correct_ids)), params)


# --- the result and the certificate ----------------------------------------------------------


@functools.cache
def _result_insert_sql() -> str:
    """ON CONFLICT DO NOTHING: a result committed by a concurrent finalization while this one
    waited for the lock is refused without an error."""
    r = _Names(ExamResult)
    columns = ("attempt", "learner", "module", "score_percent", "correct_count", "item_count")
    columns += ("passed", "reason", "finalized_at")
    return (
        f"INSERT INTO {r.table} ({', '.join(r(column) for column in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))}) ON CONFLICT ({r('attempt')}) DO NOTHING"
    )


def result_insert(
    *, attempt_id: int, learner_id: int, module_id: int, result: AttemptResult
) -> bool:
    """Store the attempt's result; False, writing nothing, when it has one already."""
    with connection.cursor() as cursor:
        cursor.execute(
            _result_insert_sql(),
            [
                attempt_id,
                learner_id,
                module_id,
                result.score_percent,
                result.correct_count,
                result.item_count,
                result.passed,
                result.reason,
                datetime_param(result.finalized_at),
            ],
        )
        return cursor.rowcount > 0


@functools.cache
def _certificate_insert_sql() -> str:
    """ON CONFLICT DO NOTHING: the unique (learner, module) key keeps one certificate even if two
    finalizations of different attempts ever raced."""
    c = _Names(Certificate)
    columns = ("learner", "module", "attempt", "code", "learner_name", "score_percent")
    columns += ("issued_at",)
    return (
        f"INSERT INTO {c.table} ({', '.join(c(column) for column in columns)}) "
        f"VALUES ({', '.join(['%s'] * len(columns))}) ON CONFLICT DO NOTHING"
    )


def certificate_insert(
    *,
    learner_id: int,
    module_id: int,
    attempt_id: int,
    code: str,
    learner_name: str,
    score_percent: Decimal,
    issued_at: datetime.datetime,
) -> bool:
    """Issue the learner's certificate of the module; False, writing nothing, when they hold
    one already."""
    with connection.cursor() as cursor:
        cursor.execute(
            _certificate_insert_sql(),
            [
                learner_id,
                module_id,
                attempt_id,
                code,
                learner_name,
                score_percent,
                datetime_param(issued_at),
            ],
        )
        return cursor.rowcount > 0


@dataclass(frozen=True, slots=True)
class _CertificateCodeRow:
    code: str


@functools.cache
def _certificate_code_sql() -> str:
    c = _Names(Certificate)
    return (
        f"SELECT {c('code')} AS code FROM {c.table} "
        f"WHERE {c('learner')} = %s AND {c('module')} = %s"
    )


def certificate_code(*, learner_id: int, module_id: int) -> str | None:
    """The code of the learner's certificate of the module, if they hold one."""
    with connection.cursor() as cursor:
        cursor.execute(_certificate_code_sql(), [learner_id, module_id])
        row = row_as(cursor, _CertificateCodeRow)
    return None if row is None else row.code
