"""Regrading every attempt that drew a bank item after its key was corrected: results,
certificates and the audit line in one transaction (the plan is ``selectors.item_regrade_plan``,
the rules ``quizzes/regrade.py``). Running it twice changes nothing the second time."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from lms.errors import Conflict, NotFound
from quizzes import regrade as rules
from quizzes.models import (
    Certificate,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamRegrade,
    ExamRegradeLearner,
    ExamResult,
)
from quizzes.selectors import LearnerRegradePlan, RegradePlan, item_regrade_plan
from quizzes.services.certificates import (
    certificate_issue,
    certificates_reinstate,
    certificates_revoke,
)
from quizzes.signals import exam_grade_changed


@dataclass(frozen=True)
class RegradeDone:
    """The plan that was applied, and its audit line (None when nothing had to change)."""

    plan: RegradePlan
    regrade: ExamRegrade | None


def exam_item_regrade(*, item_id: int, admin, now: datetime.datetime | None = None) -> RegradeDone:
    """Carry the item's current key into every attempt that drew it, regrade the finished
    ones, issue, revoke or reinstate certificates and write the audit line, all or nothing.
    The item and the attempts are locked first, so a learner's submit waits or goes first."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            if not ExamItem.objects.select_for_update().filter(pk=item_id).exists():
                raise NotFound(_("There is no such exam item."), code="item_not_found")
            attempt_ids = ExamAttemptItem.objects.filter(item_id=item_id).values("attempt_id")
            # Locked in id order, as every other writer of attempts locks one at a time.
            list(
                ExamAttempt.objects.select_for_update(of=("self",))
                .filter(pk__in=attempt_ids)
                .order_by("pk")
                .values_list("pk", flat=True)
            )
            plan = item_regrade_plan(item_id=item_id)
            if not plan.changed:
                return RegradeDone(plan=plan, regrade=None)
            regrade = ExamRegrade.objects.create(
                item_id=item_id,
                item_prompt=plan.prompt,
                key=plan.key,
                performed_by_id=admin.pk,
                performed_by_name=admin.get_username(),
                performed_at=now,
                attempts_changed=sum(len(learner.attempts) for learner in plan.learners),
            )
            for learner in plan.learners:
                _attempts_write(learner)
                certificate_id = _certificate_write(learner, regrade=regrade, now=now)
                ExamRegradeLearner.objects.create(
                    regrade=regrade,
                    learner_id=learner.learner_id,
                    module_id=learner.module_id,
                    attempts=[
                        {
                            "attempt_id": attempt.attempt_id,
                            "number": attempt.number,
                            "score_before": _score(attempt.result_before),
                            "score_after": _score(attempt.result_after),
                        }
                        for attempt in learner.attempts
                    ],
                    grade_before=learner.grade_before,
                    grade_after=learner.grade_after,
                    passed_before=learner.passed_before,
                    passed_after=learner.passed_after,
                    certificate_id=certificate_id,
                    certificate_action=learner.certificate_action,
                )
                if learner.grade_after != learner.grade_before:
                    exam_grade_changed.send(
                        sender=ExamRegrade,
                        learner_id=learner.learner_id,
                        module_id=learner.module_id,
                        cause=f"regrade:{regrade.pk}",
                        at=now,
                    )
    except IntegrityError as exc:
        # A learner's certificate was issued by a submit that got in between: nothing written.
        raise Conflict(
            _("An attempt was finalized during the regrade; please regrade again."),
            code="regrade_conflict",
        ) from exc
    return RegradeDone(plan=plan, regrade=regrade)


def _score(result) -> str | None:
    return None if result is None else str(result.score_percent)


def _attempts_write(learner: LearnerRegradePlan) -> None:
    for attempt in learner.attempts:
        ExamAttemptItem.objects.filter(pk=attempt.attempt_item_id).update(
            correct_keys=attempt.key.correct_keys,
            answer_key=attempt.key.answer_key,
            is_correct=attempt.correct_after,
        )
        result = attempt.result_after
        if result is not None:
            ExamResult.objects.filter(attempt_id=attempt.attempt_id).update(
                score_percent=result.score_percent,
                correct_count=result.correct_count,
                passed=result.passed,
            )


def _certificate_write(
    learner: LearnerRegradePlan, *, regrade: ExamRegrade, now: datetime.datetime
) -> int | None:
    """Apply the learner's certificate action; the certificate's id (None: they have none)."""
    action = learner.certificate_action
    if action == rules.CERTIFICATE_ISSUED:
        return certificate_issue(
            learner_id=learner.learner_id,
            module_id=learner.module_id,
            attempt_id=learner.passing_attempt_id,
            learner_name=learner.learner_name,
            score_percent=learner.grade_after,
            at=now,
        ).pk
    ids = [learner.certificate_id] if learner.certificate_id else []
    if action == rules.CERTIFICATE_REVOKED:
        certificates_revoke(
            certificate_ids=ids,
            reason=_("regrade of question %(item)d") % {"item": regrade.item_id},
            at=now,
        )
    elif action == rules.CERTIFICATE_REINSTATED:
        certificates_reinstate(certificate_ids=ids)
    elif action == rules.CERTIFICATE_SCORE:
        Certificate.objects.filter(pk__in=ids).update(score_percent=learner.grade_after)
    return learner.certificate_id
