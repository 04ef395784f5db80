"""Finalizing an exam attempt: grading its items from the saved answers, storing its one
result, issuing the module's certificate; and the periodic finalization of expired attempts.

The attempt's row is locked first, and the database backs the rules up: one ``ExamResult`` per
attempt, one certificate per learner and module. On PostgreSQL two statements in the
transaction whatever the number of items or attempts (lock and read, then store); elsewhere
up to five.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import api as accounts_api
from lms.errors import Conflict, NotFound
from quizzes.attempt_rules import (
    ANSWER_GRACE,
    AttemptPolicy,
    GradedItem,
    LearnerAttempt,
    attempt_grade,
    attempts_with_result,
    final_score,
    result_reason,
)
from quizzes.models import ExamAttempt
from quizzes.sql import (
    CertificateToIssue,
    LockedAttempt,
    attempt_lock,
    certificate_code,
    result_store,
)

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


def _learner_name_read(learner_id: int) -> str:
    """The learner's name for a certificate issued without a request (the periodic task): one
    query to the accounts app."""
    return accounts_api.certificate_names([learner_id])[learner_id]


def _replayed(locked: LockedAttempt) -> FinalizedAttempt:
    return FinalizedAttempt(
        attempt=locked.this,
        policy=locked.policy,
        items=locked.items,
        attempts=locked.attempts,
        certificate_code=locked.certificate_code,
        graded_now=False,
    )


def exam_attempt_submit(
    *, learner, attempt_id: int, now: datetime.datetime | None = None
) -> FinalizedAttempt:
    """The learner submits their own attempt (another's: 404): ``exam_attempt_finalize`` for
    them. A certificate states the name of the request's user: no query for it."""
    return _attempt_finalize(
        attempt_id=attempt_id,
        learner_id=learner.pk,
        learner_name=lambda _learner_id: accounts_api.certificate_name(learner),
        now=now,
    )


def exam_attempt_finalize(
    *, attempt_id: int, now: datetime.datetime | None = None
) -> FinalizedAttempt:
    """Grade the attempt from its saved answers, once; a second call returns the same result.

    Grading happens on the server only, from the attempt's own copies of the items. Two
    statements in the transaction on PostgreSQL (lock and read the attempts with the items:
    ``quizzes.sql.attempt_lock``; then the result with the items' grading and any
    certificate: ``quizzes.sql.result_store``), a third, the learner's name, when it issues a
    certificate unless it is a submit; a replay reads one.
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
            locked = attempt_lock(attempt_id=attempt_id, learner_id=learner_id)
            if locked is None:
                raise NotFound(_("There is no such exam attempt."), code="attempt_not_found")
            if locked.this.result is not None:
                return _replayed(locked)
            graded = attempt_grade(
                items=locked.items,
                pass_mark_percent=locked.pass_mark_percent,
                reason=result_reason(deadline_at=locked.deadline_at, now=now),
                at=now,
            )
            attempts = attempts_with_result(
                locked.attempts, attempt_id=attempt_id, result=graded.result
            )
            # The final grade counts certifying attempts only: a practice attempt never issues
            # the certificate, however well it went.
            grade, passed = final_score(policy=locked.policy, attempts=attempts)
            code = locked.certificate_code
            certificate = None
            if passed and code is None and locked.this.certifying:
                certificate = CertificateToIssue(
                    code=secrets.token_urlsafe(CERTIFICATE_CODE_BYTES),
                    learner_name=learner_name(locked.learner_id)[:200],
                    score_percent=grade,
                    issued_at=now,
                )
            # The result, the items' grading and the certificate: one statement on PostgreSQL.
            stored, issued = result_store(
                attempt_id=attempt_id,
                learner_id=locked.learner_id,
                module_id=locked.module_id,
                result=graded.result,
                items=graded.items,
                certificate=certificate,
            )
            if not stored:
                # A concurrent finalization committed this attempt's result while we waited for
                # the lock: the lock's statement read the other tables as they were when it began
                # (PostgreSQL), before that. We hold the lock now, and a new statement sees the
                # result: answer it as a replay.
                locked = attempt_lock(attempt_id=attempt_id, learner_id=learner_id)
                if locked is None or locked.this.result is None:
                    raise Conflict(
                        "This attempt was finalized at the same time.", code="attempt_finalized"
                    )
                return _replayed(locked)
            if certificate is not None:
                # Not issued: another finalization of the module issued one meanwhile; show it.
                code = (
                    certificate.code
                    if issued
                    else certificate_code(learner_id=locked.learner_id, module_id=locked.module_id)
                )
    except IntegrityError as exc:
        # A database key refused a write that slipped past the lock (SQLite has no row locks).
        raise Conflict(
            "This attempt was finalized at the same time.", code="attempt_finalized"
        ) from exc
    return FinalizedAttempt(
        attempt=LearnerAttempt(
            id=attempt_id,
            number=locked.this.number,
            result=graded.result,
            certifying=locked.this.certifying,
        ),
        policy=locked.policy,
        items=graded.items,
        attempts=attempts,
        certificate_code=code,
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
