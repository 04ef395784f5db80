"""The plain SQL of the quizzes app: the statements of an exam attempt's finalization, and the
learner's quick-check ratings on the step page.

Why plain SQL: every submit (and every expired attempt) runs these statements, and building
them with the ORM and instantiating the models cost more CPU than everything else the submit
does (bench/results/latest.md, exam submit); the ratings' ORM read was a tenth of the step
page's CPU (bench.profile web_step). They are portable (PostgreSQL and SQLite).

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
    ExamItem,
    ExamPolicy,
    ExamResult,
    QuickCheckRating,
    approved_item_lookups,
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
    # PostgreSQL: the attempt's items as a JSON list of objects (``_ITEM_FIELDS``), in the row
    # of the locked attempt only (each row's value is decoded); NULL elsewhere (read by a
    # statement of their own).
    items: Any


@dataclass(frozen=True, slots=True)
class LockedAttempt:
    """What finalizing an attempt reads with its lock: the attempt, its policy (``max_attempts``
    the learner's own, with any extra attempts), the module's certificate if any, every
    attempt of the learner in the module (``this`` among them) and this attempt's items in
    order, as grading and the review need them."""

    learner_id: int
    module_id: int
    pass_mark_percent: Decimal
    deadline_at: datetime.datetime
    policy: AttemptPolicy
    certificate_code: str | None
    this: LearnerAttempt
    attempts: list[LearnerAttempt]
    items: list[GradedItem]


@functools.cache
def _attempt_lock_sql(*, own: bool) -> str:
    """Lock the attempt (only its row) and read, in the same statement, its policy, the module's
    certificate if any and every attempt of the learner in the module with its result: one row
    per attempt. The certificate is a subquery, not a fifth join: PostgreSQL plans that in about
    two thirds of the time (planning is most of this statement's cost on the server); the
    learner's extra attempts (an accommodation) are one more subquery of the same kind.

    On PostgreSQL the statement also reads the attempt's items (``_locked_items_sql``), which
    saved a round trip of the submit's six; elsewhere ``attempt_items`` reads them after it."""
    p, a = _Names(ExamPolicy, "p"), _Names(ExamAttempt, "a")
    r, c = _Names(ExamResult, "r"), _Names(Certificate, "c")
    x = _Names(ExamAccommodation, "x")
    postgresql = connection.vendor == "postgresql"
    # PostgreSQL: ``t`` is the locked attempt's row from the WITH below (its columns keep the
    # table's names), elsewhere the table itself under that alias.
    t = _Names(ExamAttempt, "t")
    items = "NULL"
    if postgresql:
        items = f"CASE WHEN {a('id')} = {t('id')} THEN (SELECT items FROM locked_items) END"
    select = f"""
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
       {r("reason")} AS reason, {r("finalized_at")} AS finalized_at,
       {items} AS items
FROM {"t" if postgresql else t.table}
JOIN {p.table} ON {p("id")} = {t("policy")}
JOIN {a.table} ON {a("learner")} = {t("learner")} AND {a("module")} = {t("module")}
LEFT JOIN {r.table} ON {r("attempt")} = {a("id")}"""
    order = f"ORDER BY {a('number')}"
    if postgresql:
        return f"{_locked_items_sql(own=own)}{select}\n{order}"
    own_filter = f" AND {t('learner')} = %s" if own else ""
    sql = f"{select}\nWHERE {t('id')} = %s{own_filter}\n{order}"
    if connection.features.has_select_for_update_of:
        sql += " FOR UPDATE OF t"
    elif connection.features.has_select_for_update:
        sql += " FOR UPDATE"
    return sql


# What the items are read as (``GradedItem``'s fields, the columns of ``_attempt_items_sql``).
_ITEM_FIELDS = ("id", "position", "correct_keys", "selected_keys", "explanation", "is_correct")
_ITEM_FIELDS += ("kind", "answer_key", "answer_text", "answer_pairs")


def _locked_items_sql(*, own: bool) -> str:
    """PostgreSQL: the WITH of the lock statement. ``t`` locks the attempt's row; ``locked_items``
    then locks its items' rows (FOR NO KEY UPDATE, as the grading's UPDATE would) and reads them
    as one JSON list in position order.

    Why the items are locked: a statement reads as of its start, even when it then waits for
    the attempt's lock, so an answer saved by the transaction it waited for would be missing
    from a plain read (that is why they had a statement of their own). A locked row is read
    as its last committed version instead. They are locked only once the attempt is (their
    WHERE needs its id): the order in which the answers' save and the grading take the same
    locks, the attempt first."""
    attempt, item = _Names(ExamAttempt), _Names(ExamAttemptItem)
    attempt_columns = ", ".join(
        attempt(name)
        for name in ("id", "learner", "module", "policy", "pass_mark_percent", "deadline_at")
    )
    own_filter = f" AND {attempt('learner')} = %s" if own else ""
    item_columns = ", ".join(item(name) for name in _ITEM_FIELDS)
    item_object = ", ".join(f"'{name}', {item(name)}" for name in _ITEM_FIELDS)
    return f"""
WITH t AS (
    SELECT {attempt_columns} FROM {attempt.table}
    WHERE {attempt("id")} = %s{own_filter} FOR UPDATE
), locked_items AS (
    SELECT json_agg(json_build_object({item_object}) ORDER BY {item("position")}) AS items
    FROM (SELECT {item_columns} FROM {item.table}
          WHERE {item("attempt")} = (SELECT {attempt("id")} FROM t) FOR NO KEY UPDATE) locked
)"""


def attempt_lock(*, attempt_id: int, learner_id: int | None) -> LockedAttempt | None:
    """Lock the attempt and read what finalizing it needs, its items included; ``learner_id``
    restricts it to the learner's own attempt. None when there is no such attempt. One
    statement on PostgreSQL, two elsewhere."""
    params = [attempt_id] if learner_id is None else [attempt_id, learner_id]
    with cursor() as lock_cursor:
        lock_cursor.execute(_attempt_lock_sql(own=learner_id is not None), params)
        rows = rows_as(lock_cursor, _AttemptLockRow)
    if not rows:
        return None
    first = rows[0]
    if connection.vendor == "postgresql":
        locked_row = next(row for row in rows if row.attempt_id == attempt_id)
        items = [GradedItem(**item) for item in json_value(locked_row.items) or ()]
    else:
        items = attempt_items(attempt_id=attempt_id)
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
        items=items,
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
    columns = ", ".join(f"{i(name)} AS {name}" for name in _ITEM_FIELDS)
    return f"SELECT {columns} FROM {i.table} WHERE {i('attempt')} = %s ORDER BY {i('position')}"


def attempt_items(*, attempt_id: int) -> list[GradedItem]:
    """The attempt's items in order, as grading and the review need them (``attempt_lock``
    reads them itself on PostgreSQL)."""
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
    value = _grade_value(i, correct)
    return f"UPDATE {i.table} SET {i('is_correct')} = {value} WHERE {i('attempt')} = %s"


def _grade_value(i: _Names, correct: int) -> str:
    # "id IN ()" is no SQL: with no correct item, every item is set to the bound False.
    return f"({i('id')} IN ({', '.join(['%s'] * correct)}))" if correct else "%s"


def _grade_params(items: Sequence[GradedItem]) -> list:
    """The ids of the correct items for ``_grade_value`` (or the bound False)."""
    return [item.id for item in items if item.is_correct] or [False]


def attempt_items_grade(*, attempt_id: int, items: Sequence[GradedItem]) -> None:
    """Store each item's graded correctness in one UPDATE (``bulk_update`` builds a CASE per item
    in Python, once the largest single cost of a submit)."""
    if not items:
        return
    correct = sum(1 for item in items if item.is_correct)
    with connection.cursor() as cursor:
        cursor.execute(_items_grade_sql(correct=correct), [*_grade_params(items), attempt_id])


# --- the result and the certificate ----------------------------------------------------------


@functools.cache
def _result_insert_sql() -> str:
    """ON CONFLICT DO NOTHING: a result committed by a concurrent finalization while this one
    waited for the lock is refused without an error."""
    r = _Names(ExamResult)
    return (
        f"INSERT INTO {r.table} ({', '.join(r(column) for column in _RESULT_COLUMNS)}) "
        f"VALUES ({', '.join(['%s'] * len(_RESULT_COLUMNS))}) "
        f"ON CONFLICT ({r('attempt')}) DO NOTHING"
    )


_RESULT_COLUMNS = ("attempt", "learner", "module", "score_percent", "correct_count")
_RESULT_COLUMNS += ("item_count", "passed", "reason", "finalized_at")


def _result_params(
    *, attempt_id: int, learner_id: int, module_id: int, result: AttemptResult
) -> list:
    """The values of ``_RESULT_COLUMNS``, in that order."""
    return [
        attempt_id,
        learner_id,
        module_id,
        result.score_percent,
        result.correct_count,
        result.item_count,
        result.passed,
        result.reason,
        datetime_param(result.finalized_at),
    ]


def result_insert(
    *, attempt_id: int, learner_id: int, module_id: int, result: AttemptResult
) -> bool:
    """Store the attempt's result; False, writing nothing, when it has one already."""
    with connection.cursor() as cursor:
        cursor.execute(
            _result_insert_sql(),
            _result_params(
                attempt_id=attempt_id, learner_id=learner_id, module_id=module_id, result=result
            ),
        )
        return cursor.rowcount > 0


@functools.cache
def _certificate_insert_sql() -> str:
    """ON CONFLICT DO NOTHING: the unique (learner, module) key keeps one certificate even if two
    finalizations of different attempts ever raced."""
    c = _Names(Certificate)
    return (
        f"INSERT INTO {c.table} ({', '.join(c(column) for column in _CERTIFICATE_COLUMNS)}) "
        f"VALUES ({', '.join(['%s'] * len(_CERTIFICATE_COLUMNS))}) ON CONFLICT DO NOTHING"
    )


_CERTIFICATE_COLUMNS = ("learner", "module", "attempt", "code", "learner_name")
_CERTIFICATE_COLUMNS += ("score_percent", "issued_at")


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
class CertificateToIssue:
    """The certificate a finalization issues along with its result (``result_store``)."""

    code: str
    learner_name: str
    score_percent: Decimal
    issued_at: datetime.datetime


@functools.cache
def _result_store_sql(*, correct: int, certificate: bool) -> str:
    """The result, the items' grading and the certificate as one statement (PostgreSQL's
    data-modifying WITH): the grading and the certificate are written only when the result
    is (it is refused when a concurrent finalization stored one first). ``correct`` as in
    ``_items_grade_sql``."""
    r, i, c = _Names(ExamResult), _Names(ExamAttemptItem), _Names(Certificate)
    sql = (
        f"WITH result AS (INSERT INTO {r.table} "
        f"({', '.join(r(column) for column in _RESULT_COLUMNS)}) "
        f"VALUES ({', '.join(['%s'] * len(_RESULT_COLUMNS))}) "
        f"ON CONFLICT ({r('attempt')}) DO NOTHING RETURNING {r('attempt')}), "
        f"graded AS (UPDATE {i.table} SET {i('is_correct')} = {_grade_value(i, correct)} "
        f"WHERE {i('attempt')} = %s AND EXISTS (SELECT 1 FROM result) RETURNING 1)"
    )
    if certificate:
        # Typed placeholders: INSERT … SELECT does not take the columns' types for them.
        types = ("bigint", "bigint", "bigint", "text", "text", "numeric", "timestamptz")
        sql += (
            f", certificate AS (INSERT INTO {c.table} "
            f"({', '.join(c(column) for column in _CERTIFICATE_COLUMNS)}) "
            f"SELECT {', '.join(f'%s::{kind}' for kind in types)} "
            f"WHERE EXISTS (SELECT 1 FROM result) ON CONFLICT DO NOTHING RETURNING 1)"
        )
    stored = "(SELECT count(*) FROM result)"
    issued = "(SELECT count(*) FROM certificate)" if certificate else "0"
    return f"{sql} SELECT {stored}, {issued}"


def result_store(
    *,
    attempt_id: int,
    learner_id: int,
    module_id: int,
    result: AttemptResult,
    items: Sequence[GradedItem],
    certificate: CertificateToIssue | None,
) -> tuple[bool, bool]:
    """Store the attempt's result, its items' grading and, when given, the certificate:
    (result stored, certificate issued). Nothing is written when the attempt has a result
    already; no certificate when the learner holds one of the module already.

    One statement on PostgreSQL (a submit's three writes were three of its eight statements);
    elsewhere ``result_insert``, ``attempt_items_grade`` and ``certificate_insert`` in turn.
    The caller holds the attempt's lock in its transaction either way.
    """
    if connection.vendor != "postgresql":
        if not result_insert(
            attempt_id=attempt_id, learner_id=learner_id, module_id=module_id, result=result
        ):
            return False, False
        attempt_items_grade(attempt_id=attempt_id, items=items)
        issued = certificate is not None and certificate_insert(
            learner_id=learner_id,
            module_id=module_id,
            attempt_id=attempt_id,
            code=certificate.code,
            learner_name=certificate.learner_name,
            score_percent=certificate.score_percent,
            issued_at=certificate.issued_at,
        )
        return True, issued
    correct = sum(1 for item in items if item.is_correct)
    params: list[Any] = [
        *_result_params(
            attempt_id=attempt_id, learner_id=learner_id, module_id=module_id, result=result
        ),
        *_grade_params(items),
        attempt_id,
    ]
    if certificate is not None:
        params += [
            learner_id,
            module_id,
            attempt_id,
            certificate.code,
            certificate.learner_name,
            certificate.score_percent,
            datetime_param(certificate.issued_at),
        ]
    with connection.cursor() as store_cursor:
        store_cursor.execute(
            _result_store_sql(correct=correct, certificate=certificate is not None),
            params,
        )
        stored, issued = store_cursor.fetchone()
    return stored > 0, issued > 0


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


# --- the step page's ratings ---------------------------------------------------------------


@dataclass(frozen=True)
class _RatingRow:
    quick_check_id: int
    rating: str


@functools.cache
def _ratings_statement(*, vendor: str, count: int) -> str:
    quote = connection.ops.quote_name
    meta = QuickCheckRating._meta

    def column(name: str) -> str:
        return quote(meta.get_field(name).column)

    ids = "= ANY(%s)" if vendor == "postgresql" else f"IN ({', '.join(['%s'] * count)})"
    return (
        f"SELECT {column('quick_check')} AS quick_check_id, {column('rating')} AS rating "
        f"FROM {quote(meta.db_table)} "
        f"WHERE {column('learner')} = %s AND {column('quick_check')} {ids}"
    )


def quick_check_ratings_read(*, learner_id: int, quick_check_ids: Sequence[int]) -> dict[int, str]:
    """The learner's rating per quick check of ``quick_check_ids`` (unrated ones left out):
    one query, none without ids."""
    if not quick_check_ids:
        return {}
    vendor = connection.vendor
    ids = [list(quick_check_ids)] if vendor == "postgresql" else list(quick_check_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            _ratings_statement(vendor=vendor, count=len(quick_check_ids)), [learner_id, *ids]
        )
        return {row.quick_check_id: row.rating for row in rows_as(cursor, _RatingRow)}


def quick_check_ratings_column(
    *, learner_id: int, quick_check_ids: Sequence[int]
) -> tuple[str, list] | None:
    """The learner's ratings of ``quick_check_ids`` as a scalar subquery (SQL, params) another
    app's statement can carry as one of its columns: a JSON list of [quick check id, rating]
    pairs, NULL when none is rated (``quick_check_ratings_from_column`` reads it). The step page
    reads it along the learner's progress (one statement instead of two). PostgreSQL only (its
    JSON functions); None elsewhere or without ids: read them with ``quick_check_ratings_read``.
    """
    if not quick_check_ids or connection.vendor != "postgresql":
        return None
    q = _Names(QuickCheckRating)
    return (
        f"(SELECT json_agg(json_build_array({q('quick_check')}, {q('rating')})) "
        f"FROM {q.table} WHERE {q('learner')} = %s AND {q('quick_check')} = ANY(%s))",
        [learner_id, list(quick_check_ids)],
    )


def quick_check_ratings_from_column(value: Any) -> dict[int, str]:
    """The ratings a ``quick_check_ratings_column`` read, as ``quick_check_ratings_read`` gives
    them."""
    pairs = json_value(value) if value is not None else []
    return {int(quick_check_id): rating for quick_check_id, rating in pairs}


# --- an attempt as the learner answers it -------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _AttemptAnsweringRow:
    """One row of the answering read: the attempt (the same in every row), whether it has its
    result, and one of its items (all None when it has none)."""

    module_id: int
    number: int
    certifying: Any
    started_at: Any
    deadline_at: Any
    result_id: int | None
    item_id: int | None
    position: int | None
    kind: str | None
    prompt: str | None
    options: Any
    selected_keys: Any
    choices: Any
    answer_text: str | None
    answer_pairs: Any
    correct_keys: Any
    explanation: str | None
    is_correct: Any
    answer_key: Any


@dataclass(frozen=True, slots=True)
class AnsweringItem:
    """An attempt's item with every column the answering page and the review read (the
    attribute names of ``ExamAttemptItem``, so the selectors' views take either)."""

    pk: int
    position: int
    kind: str
    prompt: str
    options: list
    selected_keys: list | None
    choices: list | None
    answer_text: str | None
    answer_pairs: dict | None
    correct_keys: list
    explanation: str
    is_correct: bool | None
    answer_key: Any


@dataclass(frozen=True, slots=True)
class AnsweringAttempt:
    """The learner's attempt with its items in order (``ExamAttempt``'s attribute names)."""

    pk: int
    module_id: int
    number: int
    certifying: bool
    started_at: datetime.datetime
    deadline_at: datetime.datetime
    finalized: bool
    items: list[AnsweringItem]


@functools.cache
def _attempt_answering_sql() -> str:
    """The attempt, whether it has its result, and its items, one row per item: the two ORM
    reads this replaces (the attempt with its policy, result and accommodation; the items as
    model instances) cost the exam page more CPU than rendering it (bench.profile web_exam)."""
    t, r, i = _Names(ExamAttempt, "t"), _Names(ExamResult, "r"), _Names(ExamAttemptItem, "i")
    return f"""
SELECT {t("module")} AS module_id, {t("number")} AS number, {t("certifying")} AS certifying,
       {t("started_at")} AS started_at, {t("deadline_at")} AS deadline_at,
       {r("id")} AS result_id, {i("id")} AS item_id, {i("position")} AS position,
       {i("kind")} AS kind, {i("prompt")} AS prompt, {i("options")} AS options,
       {i("selected_keys")} AS selected_keys, {i("choices")} AS choices,
       {i("answer_text")} AS answer_text, {i("answer_pairs")} AS answer_pairs,
       {i("correct_keys")} AS correct_keys, {i("explanation")} AS explanation,
       {i("is_correct")} AS is_correct, {i("answer_key")} AS answer_key
FROM {t.table}
LEFT JOIN {r.table} ON {r("attempt")} = {t("id")}
LEFT JOIN {i.table} ON {i("attempt")} = {t("id")}
WHERE {t("id")} = %s AND {t("learner")} = %s
ORDER BY {i("position")}"""


def attempt_answering_read(*, attempt_id: int, learner_id: int) -> AnsweringAttempt | None:
    """The learner's attempt with its items (None when there is no such attempt of theirs):
    one statement."""
    with connection.cursor() as cursor:
        cursor.execute(_attempt_answering_sql(), [attempt_id, learner_id])
        rows = rows_as(cursor, _AttemptAnsweringRow)
    if not rows:
        return None
    first = rows[0]
    return AnsweringAttempt(
        pk=attempt_id,
        module_id=first.module_id,
        number=first.number,
        certifying=bool(first.certifying),
        started_at=aware(first.started_at),
        deadline_at=aware(first.deadline_at),
        finalized=first.result_id is not None,
        items=[
            AnsweringItem(
                pk=row.item_id,
                position=row.position,
                kind=row.kind,
                prompt=row.prompt,
                options=json_value(row.options),
                selected_keys=json_value(row.selected_keys),
                choices=json_value(row.choices),
                answer_text=row.answer_text,
                answer_pairs=json_value(row.answer_pairs),
                correct_keys=json_value(row.correct_keys),
                explanation=row.explanation,
                is_correct=None if row.is_correct is None else bool(row.is_correct),
                answer_key=json_value(row.answer_key),
            )
            for row in rows
            if row.item_id is not None
        ],
    )


# --- the learner's exam in a module: what the overview reads -------------------------------------


@dataclass(frozen=True, slots=True)
class OverviewAttempt:
    """One of the learner's attempts in the module with its result (None until finalized): the
    attribute names of ``ExamAttempt``, so the overview's rules take either."""

    pk: int
    number: int
    certifying: bool
    started_at: datetime.datetime
    deadline_at: datetime.datetime
    result: AttemptResult | None


@dataclass(frozen=True, slots=True)
class OverviewRead:
    """The module's saved policy (None before its first use), the learner's accommodation (0
    without one), the count of approved items, the learner's attempts oldest first and the code
    of the certificate they hold in the module (None without attempts)."""

    policy: ExamPolicy | None
    extra_time_minutes: int
    extra_attempts: int
    approved_items: int
    attempts: list[OverviewAttempt]
    certificate_code: str | None


_POLICY_FIELDS = tuple(field.attname for field in ExamPolicy._meta.concrete_fields)


@functools.cache
def _overview_sql() -> str:
    """The policy, the accommodation, the approved items, the certificate and the attempts with
    their results, one row per attempt: the two ORM reads this replaces (the policy with three
    subquery annotations; the attempts with their results and the certificate) were close to
    half of the dashboard's CPU (bench.profile web_dashboard)."""
    p, x, c = _Names(ExamPolicy, "p"), _Names(ExamAccommodation, "x"), _Names(Certificate, "c")
    a, r, i = _Names(ExamAttempt, "a"), _Names(ExamResult, "r"), _Names(ExamItem, "i")
    quote = connection.ops.quote_name
    policy = ", ".join(
        f"p.{quote(ExamPolicy._meta.get_field(name).column)} AS policy_{name}"
        for name in _POLICY_FIELDS
    )
    approved = " AND ".join(f"{i(name)} = %(approved_{name})s" for name in approved_item_lookups())
    accommodation = (
        f"FROM {x.table} WHERE {x('learner')} = %(learner)s AND {x('module')} = %(module)s"
    )
    return f"""
SELECT {policy},
       (SELECT {x("extra_time_minutes")} {accommodation}) AS extra_time_minutes,
       (SELECT {x("extra_attempts")} {accommodation}) AS extra_attempts,
       (SELECT COUNT(*) FROM {i.table} WHERE {i("module")} = %(module)s AND {approved})
           AS approved_items,
       (SELECT {c("code")} FROM {c.table}
        WHERE {c("learner")} = %(learner)s AND {c("module")} = %(module)s LIMIT 1)
           AS certificate_code,
       {a("id")} AS attempt_id, {a("number")} AS attempt_number,
       {a("certifying")} AS certifying, {a("started_at")} AS started_at,
       {a("deadline_at")} AS deadline_at,
       {r("id")} AS result_id, {r("score_percent")} AS score_percent, {r("passed")} AS passed,
       {r("correct_count")} AS correct_count, {r("item_count")} AS item_count,
       {r("reason")} AS reason, {r("finalized_at")} AS finalized_at
FROM (SELECT 1 AS one) one
LEFT JOIN {p.table} ON {p("module")} = %(module)s
LEFT JOIN {a.table} ON {a("learner")} = %(learner)s AND {a("module")} = %(module)s
LEFT JOIN {r.table} ON {r("attempt")} = {a("id")}
ORDER BY {a("number")}"""


def exam_overview_read(*, learner_id: int, module_id: int) -> OverviewRead:
    """What the learner's exam overview of the module reads: one statement."""
    params: dict[str, Any] = {"learner": learner_id, "module": module_id}
    for name, value in approved_item_lookups().items():
        params[f"approved_{name}"] = value
    with connection.cursor() as cursor:
        cursor.execute(_overview_sql(), params)
        names = [column[0] for column in cursor.description]
        rows = [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
    first = rows[0]
    policy = None
    if first["policy_id"] is not None:
        policy = ExamPolicy.from_db(
            connection.alias,
            list(_POLICY_FIELDS),
            [
                ExamPolicy._meta.get_field(name).to_python(first[f"policy_{name}"])
                if connection.vendor == "sqlite"
                else first[f"policy_{name}"]
                for name in _POLICY_FIELDS
            ],
        )
    attempts = [
        OverviewAttempt(
            pk=row["attempt_id"],
            number=row["attempt_number"],
            certifying=bool(row["certifying"]),
            started_at=aware(row["started_at"]),
            deadline_at=aware(row["deadline_at"]),
            result=None
            if row["result_id"] is None
            else AttemptResult(
                score_percent=_decimal(row["score_percent"]),
                passed=bool(row["passed"]),
                correct_count=row["correct_count"],
                item_count=row["item_count"],
                reason=row["reason"],
                finalized_at=aware(row["finalized_at"]),
            ),
        )
        for row in rows
        if row["attempt_id"] is not None
    ]
    return OverviewRead(
        policy=policy,
        extra_time_minutes=first["extra_time_minutes"] or 0,
        extra_attempts=first["extra_attempts"] or 0,
        approved_items=first["approved_items"],
        attempts=attempts,
        certificate_code=first["certificate_code"] if attempts else None,
    )
