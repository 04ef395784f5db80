"""Finalizing an exam attempt: grading, its one result, the certificate; and the periodic
finalization of expired attempts. Everything is read after locking the attempt's row."""

from __future__ import annotations

import dataclasses
import datetime
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import Case, OuterRef, Value, When
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
from quizzes.models import ExamAttempt, ExamAttemptItem, ExamResult
from quizzes.selectors import (
    accommodation_subqueries,
    attempt_policy,
    graded_item,
    learner_attempt,
    learner_attempts,
)
from quizzes.services.certificates import certificate_issue
from quizzes.signals import exam_grade_changed

# How many expired attempts one run of the periodic task finalizes.
FINALIZE_BATCH_SIZE = 200


@dataclass(frozen=True)
class FinalizedAttempt:
    """A finalized attempt and what its result view needs; ``graded_now`` False on a replay."""

    attempt: LearnerAttempt
    policy: AttemptPolicy
    items: list[GradedItem]
    attempts: list[LearnerAttempt]
    certificate_code: str | None
    graded_now: bool


def exam_attempt_submit(
    *, learner, attempt_id: int, now: datetime.datetime | None = None
) -> FinalizedAttempt:
    """The learner submits their own attempt (another's: 404): ``exam_attempt_finalize`` for
    them. A certificate states the name of the request's user."""
    return exam_attempt_finalize(attempt_id=attempt_id, learner=learner, now=now)


def exam_attempt_finalize(
    *, attempt_id: int, learner=None, now: datetime.datetime | None = None
) -> FinalizedAttempt:
    """Grade the attempt from its saved answers, once; a second call returns the same result.
    ``learner`` restricts it to that learner's own attempt."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            attempt = _attempt_lock(attempt_id=attempt_id, learner=learner)
            rows, code = learner_attempts(
                learner_id=attempt.learner_id, module_id=attempt.module_id
            )
            attempts = [learner_attempt(row) for row in rows]
            this = next(a for a in attempts if a.id == attempt_id)
            policy = attempt_policy(attempt.policy, extra_attempts=attempt.extra_attempts)
            items = [graded_item(item) for item in attempt.items.order_by("position")]
            if this.result is not None:
                return FinalizedAttempt(this, policy, items, attempts, code, graded_now=False)
            graded = attempt_grade(
                items=items,
                pass_mark_percent=attempt.pass_mark_percent,
                reason=result_reason(deadline_at=attempt.deadline_at, now=now),
                at=now,
            )
            ExamResult.objects.create(
                attempt_id=attempt_id,
                learner_id=attempt.learner_id,
                module_id=attempt.module_id,
                **dataclasses.asdict(graded.result),
            )
            # One UPDATE for all the items (bulk_update would send one CASE branch per item).
            correct = [item.id for item in graded.items if item.is_correct]
            ExamAttemptItem.objects.filter(attempt_id=attempt_id).update(
                is_correct=Case(When(pk__in=correct, then=Value(True)), default=Value(False))
            )
            this = dataclasses.replace(this, result=graded.result)
            attempts = attempts_with_result(attempts, attempt_id=attempt_id, result=graded.result)
            # Only certifying attempts count towards the certificate.
            grade, passed = final_score(policy=policy, attempts=attempts)
            if this.certifying:
                exam_grade_changed.send(
                    sender=ExamResult,
                    learner_id=attempt.learner_id,
                    module_id=attempt.module_id,
                    cause=f"attempt:{attempt_id}",
                    at=now,
                )
            if passed and code is None and this.certifying:
                code = certificate_issue(
                    learner_id=attempt.learner_id,
                    module_id=attempt.module_id,
                    attempt_id=attempt_id,
                    learner_name=_learner_name(attempt.learner_id, learner),
                    score_percent=grade,
                    at=now,
                ).code
    except IntegrityError as exc:
        # A database key refused a second result or certificate that got past the lock.
        raise Conflict(
            "This attempt was finalized at the same time.", code="attempt_finalized"
        ) from exc
    return FinalizedAttempt(this, policy, graded.items, attempts, code, graded_now=True)


def _attempt_lock(*, attempt_id: int, learner) -> ExamAttempt:
    """Lock the attempt's row (not its policy's) and read it with its policy and the learner's
    extra attempts; NotFound when there is no such attempt (of ``learner``, when given)."""
    attempts = ExamAttempt.objects.select_for_update(of=("self",)).filter(pk=attempt_id)
    if learner is not None:
        attempts = attempts.filter(learner_id=learner.pk)
    attempt = (
        attempts.select_related("policy")
        .annotate(
            **accommodation_subqueries(
                learner_id=OuterRef("learner_id"), module_id=OuterRef("module_id")
            )
        )
        .first()
    )
    if attempt is None:
        raise NotFound(_("There is no such exam attempt."), code="attempt_not_found")
    return attempt


def _learner_name(learner_id: int, learner) -> str:
    """The name a certificate states: the request's user's, else read from the accounts app."""
    if learner is not None:
        return accounts_api.certificate_name(learner)
    return accounts_api.certificate_names([learner_id])[learner_id]


def exam_attempts_finalize_expired(*, now: datetime.datetime | None = None) -> int:
    """Finalize attempts past deadline plus grace, each in its own transaction; returns how many."""
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
