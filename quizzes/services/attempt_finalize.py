"""Finalizing an exam attempt: grading its items from the saved answers, storing its one
result, issuing the module's certificate; and the periodic finalization of expired attempts.

The attempt's row is locked first, and the database backs the rules up: one ``ExamResult`` per
attempt, one certificate per learner and module. Four statements whatever the number of items or
attempts, a fifth when a certificate is issued.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Context as DecimalContext
from decimal import Decimal

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from accounts import api as accounts_api
from lms.errors import Conflict, NotFound
from lms.sql import aware, datetime_param, json_value
from quizzes.attempt_rules import (
    ANSWER_GRACE,
    AttemptPolicy,
    AttemptResult,
    GradedItem,
    LearnerAttempt,
    final_score,
)
from quizzes.grading import answer_is_correct, attempt_score, passes
from quizzes.models import ExamAttempt, ExamResult

# How many expired attempts one run of the periodic task finalizes.
FINALIZE_BATCH_SIZE = 200
# secrets.token_urlsafe(24): 32 characters, 192 bits; a certificate page cannot be guessed.
CERTIFICATE_CODE_BYTES = 24


@dataclass(frozen=True)
class FinalizedAttempt:
    """A finalized attempt and what its result view needs; ``graded_now`` False on a replay."""

    attempt: LearnerAttempt
    policy: AttemptPolicy
    items: list[GradedItem]
    attempts: list[LearnerAttempt]
    certificate_code: str | None
    graded_now: bool


# --- finalizing: the hottest write of the exam, in plain SQL ---------------------------------
#
# Every submit (and every expired attempt) runs these statements. Plain SQL, portable
# (PostgreSQL and SQLite): building them with the ORM and instantiating the models cost more CPU
# than everything else the submit does (bench/results/latest.md, exam submit).

# Lock the attempt and read, in the same statement, its policy, the module's certificate if any,
# and every attempt of the learner in the module with its result: one row per attempt. The
# certificate is a subquery, not a fifth join: PostgreSQL plans that in about two thirds of the
# time (planning is most of this statement's cost on the server).
_ATTEMPT_LOCK_SQL = """
SELECT t.learner_id, t.module_id, t.pass_mark_percent, t.deadline_at,
       p.grading_method, p.pass_mark_percent, p.max_attempts, p.review_content, p.review_timing,
       (SELECT c.code FROM quizzes_certificate c
        WHERE c.learner_id = t.learner_id AND c.module_id = t.module_id),
       a.id, a.number,
       r.id, r.score_percent, r.passed, r.correct_count, r.item_count, r.reason, r.finalized_at
FROM quizzes_examattempt t
JOIN quizzes_exampolicy p ON p.id = t.policy_id
JOIN quizzes_examattempt a ON a.learner_id = t.learner_id AND a.module_id = t.module_id
LEFT JOIN quizzes_examresult r ON r.attempt_id = a.id
WHERE t.id = %s{learner}
ORDER BY a.number"""
_ATTEMPT_LOCK_ANY_SQL = _ATTEMPT_LOCK_SQL.format(learner="")
_ATTEMPT_LOCK_OWN_SQL = _ATTEMPT_LOCK_SQL.format(learner=" AND t.learner_id = %s")

_ATTEMPT_ITEMS_SQL = """
SELECT id, position, correct_keys, selected_keys, explanation, is_correct
FROM quizzes_examattemptitem WHERE attempt_id = %s ORDER BY position"""

# ON CONFLICT DO NOTHING: a result committed by a concurrent finalization while this one waited
# for the lock is refused without an error (see ``exam_attempt_finalize``).
_RESULT_INSERT_SQL = """
INSERT INTO quizzes_examresult
    (attempt_id, learner_id, module_id, score_percent, correct_count, item_count, passed, reason,
     finalized_at)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (attempt_id) DO NOTHING"""

# ON CONFLICT DO NOTHING: the unique (learner, module) key keeps one certificate even if two
# finalizations of different attempts ever raced.
_CERTIFICATE_INSERT_SQL = """
INSERT INTO quizzes_certificate
    (learner_id, module_id, attempt_id, code, learner_name, score_percent, issued_at)
VALUES (%s, %s, %s, %s, %s, %s, %s)
ON CONFLICT DO NOTHING"""

_CERTIFICATE_CODE_SQL = (
    "SELECT code FROM quizzes_certificate WHERE learner_id = %s AND module_id = %s"
)

_CENT = Decimal("0.01")
# What Django's SQLite backend does to a decimal column (stored as a float or an integer).
_SQLITE_DECIMAL = DecimalContext(prec=15).create_decimal_from_float


def _decimal(value) -> Decimal:
    """A two-place decimal column read with plain SQL (PostgreSQL: a Decimal already)."""
    return value if isinstance(value, Decimal) else _SQLITE_DECIMAL(value).quantize(_CENT)


@dataclass(frozen=True, slots=True)
class _LockedAttempt:
    learner_id: int
    module_id: int
    pass_mark_percent: Decimal
    deadline_at: datetime.datetime
    policy: AttemptPolicy
    certificate_code: str | None
    this: LearnerAttempt
    attempts: list[LearnerAttempt]


def _attempt_lock(*, attempt_id: int, learner_id: int | None) -> _LockedAttempt | None:
    """Lock the attempt (only the attempt's row) and read what finalizing it needs."""
    features = connection.features
    if learner_id is None:
        sql, params = _ATTEMPT_LOCK_ANY_SQL, [attempt_id]
    else:
        sql, params = _ATTEMPT_LOCK_OWN_SQL, [attempt_id, learner_id]
    if features.has_select_for_update_of:
        sql += " FOR UPDATE OF t"
    elif features.has_select_for_update:
        sql += " FOR UPDATE"
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    if not rows:
        return None
    attempts = []
    this = None
    for row in rows:
        result = None
        if row[12] is not None:
            result = AttemptResult(
                score_percent=_decimal(row[13]),
                passed=bool(row[14]),
                correct_count=row[15],
                item_count=row[16],
                reason=row[17],
                finalized_at=aware(row[18]),
            )
        attempt = LearnerAttempt(id=row[10], number=row[11], result=result)
        attempts.append(attempt)
        if attempt.id == attempt_id:
            this = attempt
    first = rows[0]
    return _LockedAttempt(
        learner_id=first[0],
        module_id=first[1],
        pass_mark_percent=_decimal(first[2]),
        deadline_at=aware(first[3]),
        policy=AttemptPolicy(
            grading_method=first[4],
            pass_mark_percent=_decimal(first[5]),
            max_attempts=first[6],
            review_content=first[7],
            review_timing=first[8],
        ),
        certificate_code=first[9],
        this=this,
        attempts=attempts,
    )


def _attempt_items(attempt_id: int) -> list[GradedItem]:
    with connection.cursor() as cursor:
        cursor.execute(_ATTEMPT_ITEMS_SQL, [attempt_id])
        rows = cursor.fetchall()
    return [
        GradedItem(
            id=row[0],
            position=row[1],
            correct_keys=json_value(row[2]),
            selected_keys=json_value(row[3]),
            explanation=row[4],
            is_correct=None if row[5] is None else bool(row[5]),
        )
        for row in rows
    ]


def _learner_name_read(learner_id: int) -> str:
    """The learner's name for a certificate issued without a request (the periodic task): one
    query to the accounts app."""
    return accounts_api.display_names([learner_id])[learner_id]


def _replayed(locked: _LockedAttempt, items: list[GradedItem]) -> FinalizedAttempt:
    return FinalizedAttempt(
        attempt=locked.this,
        policy=locked.policy,
        items=items,
        attempts=locked.attempts,
        certificate_code=locked.certificate_code,
        graded_now=False,
    )


def _items_grade(cursor, *, attempt_id: int, items: list[GradedItem]) -> None:
    """Store each item's graded correctness in one UPDATE (``bulk_update`` builds a CASE per item
    in Python, once the largest single cost of a submit)."""
    if not items:
        return
    correct_ids = [item.id for item in items if item.is_correct]
    if not correct_ids:  # "id IN ()" is no SQL
        cursor.execute(
            "UPDATE quizzes_examattemptitem SET is_correct = %s WHERE attempt_id = %s",
            [False, attempt_id],
        )
        return
    marks = ", ".join(["%s"] * len(correct_ids))
    cursor.execute(
        f"UPDATE quizzes_examattemptitem SET is_correct = (id IN ({marks})) WHERE attempt_id = %s",
        [*correct_ids, attempt_id],
    )


def _certificate_issue(
    cursor, *, locked: _LockedAttempt, attempt_id: int, learner_name: str, grade: Decimal, at
) -> str | None:
    """Issue the module's certificate for this attempt; the code the learner holds afterwards."""
    code = secrets.token_urlsafe(CERTIFICATE_CODE_BYTES)
    cursor.execute(
        _CERTIFICATE_INSERT_SQL,
        [
            locked.learner_id,
            locked.module_id,
            attempt_id,
            code,
            learner_name[:200],
            grade,
            at,
        ],
    )
    if cursor.rowcount:
        return code
    # Another finalization of the module issued one meanwhile: show that.
    cursor.execute(_CERTIFICATE_CODE_SQL, [locked.learner_id, locked.module_id])
    row = cursor.fetchone()
    return row[0] if row else None


def exam_attempt_submit(
    *, learner, attempt_id: int, now: datetime.datetime | None = None
) -> FinalizedAttempt:
    """The learner submits their own attempt (another's: 404): ``exam_attempt_finalize`` for
    them. A certificate states the name of the request's user: no query for it."""
    return _attempt_finalize(
        attempt_id=attempt_id,
        learner_id=learner.pk,
        learner_name=lambda _learner_id: accounts_api.display_name(learner),
        now=now,
    )


def exam_attempt_finalize(
    *, attempt_id: int, now: datetime.datetime | None = None
) -> FinalizedAttempt:
    """Grade the attempt from its saved answers, once; a second call returns the same result.

    Grading happens on the server only, from the attempt's own copies of the items. Four
    statements in the transaction (lock and read the attempts, items, result, items' grading),
    a fifth when it issues a certificate (and a sixth, the learner's name, unless it is a
    submit); a replay reads two.
    """
    return _attempt_finalize(
        attempt_id=attempt_id, learner_id=None, learner_name=_learner_name_read, now=now
    )


def _attempt_finalize(
    *,
    attempt_id: int,
    learner_id: int | None,
    learner_name: Callable[[int], str],
    now: datetime.datetime | None,
) -> FinalizedAttempt:
    """``exam_attempt_finalize``; ``learner_id`` restricts it to the learner's own attempt, and
    ``learner_name`` gives the name a certificate states, asked only when one is issued."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            locked = _attempt_lock(attempt_id=attempt_id, learner_id=learner_id)
            if locked is None:
                raise NotFound("There is no such exam attempt.", code="attempt_not_found")
            items = _attempt_items(attempt_id)
            if locked.this.result is not None:
                return _replayed(locked, items)
            outcomes = []
            for item in items:
                item.is_correct = answer_is_correct(
                    correct_keys=item.correct_keys, selected_keys=item.selected_keys
                )
                outcomes.append(item.is_correct)
            score = attempt_score(outcomes)
            result = AttemptResult(
                score_percent=score.score_percent,
                passed=passes(
                    score_percent=score.score_percent, pass_mark_percent=locked.pass_mark_percent
                ),
                correct_count=score.correct_count,
                item_count=score.item_count,
                reason=(
                    ExamResult.Reason.SUBMITTED.value
                    if now <= locked.deadline_at + ANSWER_GRACE
                    else ExamResult.Reason.EXPIRED.value
                ),
                finalized_at=now,
            )
            finalized_at = datetime_param(now)
            with connection.cursor() as cursor:
                cursor.execute(
                    _RESULT_INSERT_SQL,
                    [
                        attempt_id,
                        locked.learner_id,
                        locked.module_id,
                        result.score_percent,
                        result.correct_count,
                        result.item_count,
                        result.passed,
                        result.reason,
                        finalized_at,
                    ],
                )
                if cursor.rowcount == 0:
                    # A concurrent finalization committed this attempt's result while we waited
                    # for the lock: the lock's statement read the other tables as they were when
                    # it began (PostgreSQL), before that. We hold the lock now, and a new
                    # statement sees the result: answer it as a replay.
                    locked = _attempt_lock(attempt_id=attempt_id, learner_id=learner_id)
                    if locked is None or locked.this.result is None:
                        raise Conflict(
                            "This attempt was finalized at the same time.",
                            code="attempt_finalized",
                        )
                    return _replayed(locked, _attempt_items(attempt_id))
                _items_grade(cursor, attempt_id=attempt_id, items=items)
                locked.this.result = result
                grade, passed = final_score(policy=locked.policy, attempts=locked.attempts)
                certificate_code = locked.certificate_code
                if passed and certificate_code is None:
                    certificate_code = _certificate_issue(
                        cursor,
                        locked=locked,
                        attempt_id=attempt_id,
                        learner_name=learner_name(locked.learner_id),
                        grade=grade,
                        at=finalized_at,
                    )
    except IntegrityError as exc:
        # A database key refused a write that slipped past the lock (SQLite has no row locks).
        raise Conflict(
            "This attempt was finalized at the same time.", code="attempt_finalized"
        ) from exc
    return FinalizedAttempt(
        attempt=locked.this,
        policy=locked.policy,
        items=items,
        attempts=locked.attempts,
        certificate_code=certificate_code,
        graded_now=True,
    )


def exam_attempts_finalize_expired(*, now: datetime.datetime | None = None) -> int:
    """Finalize attempts past their deadline plus grace with the answers saved in time.

    Each attempt in its own transaction; returns how many this call graded.
    """
    now = now or timezone.now()
    ids = list(
        ExamAttempt.objects.filter(result__isnull=True, deadline_at__lt=now - ANSWER_GRACE)
        .order_by("deadline_at")
        .values_list("id", flat=True)[:FINALIZE_BATCH_SIZE]
    )
    graded = 0
    for attempt_id in ids:
        try:
            outcome = exam_attempt_finalize(attempt_id=attempt_id, now=now)
        except (NotFound, Conflict):
            continue  # deleted meanwhile, or a learner's submit got there first
        graded += outcome.graded_now
    return graded
