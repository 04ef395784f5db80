"""Starting an exam attempt: the items drawn with a fresh seed, their options shuffled, the
deadline set from the server's clock.

The learner's enrollment row is locked first, so concurrent starts of one learner queue up; the
database backs the rule up with one attempt number per learner and module. A fixed number of
queries whatever the number of items.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone

from courses import api as courses_api
from lms.errors import Conflict
from progress import api as progress_api
from quizzes.attempt_rules import final_score
from quizzes.drawing import DrawCandidate, attempt_draw
from quizzes.eligibility import FULL_NAME_FIELD, FULL_NAME_MISSING
from quizzes.models import ExamAttempt, ExamAttemptItem, ExamItem
from quizzes.selectors import learner_eligibility
from quizzes.services.items import exam_items_generate, exam_policy_get

_OPTION_LABELS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class StartedAttempt:
    attempt: ExamAttempt
    items: list[ExamAttemptItem]
    module_slug: str


def exam_attempt_start(
    *,
    learner_id: int,
    module_slug: str,
    full_name_given: bool,
    now: datetime.datetime | None = None,
) -> StartedAttempt:
    """Start an attempt: draw the items with a fresh seed, shuffle options, set the deadline.

    Raises Conflict (409) with the reasons when the learner may not start now.
    ``full_name_given``: the learner gave the name a certificate states
    (``accounts.api.certificate_name_given`` of the request's user).
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            # The lock makes concurrent starts of one learner queue up, so "attempts used" and
            # "attempt in progress" are read after the previous start has committed.
            module = progress_api.enrollment_lock(learner_id=learner_id, module_slug=module_slug)
            if module is None:
                courses_api.module_by_slug(module_slug)  # 404 for a module that does not exist
                raise Conflict("Enroll in the module before taking its exam.", code="not_enrolled")
            policy = exam_policy_get(module_id=module.id)
            attempts = list(
                ExamAttempt.objects.filter(learner_id=learner_id, module_id=module.id)
                .select_related("result")
                .order_by("number")
            )
            _grade, final_passed = final_score(policy=policy, attempts=attempts)
            eligibility = learner_eligibility(
                learner_id=learner_id,
                module_id=module.id,
                policy=policy,
                attempts=attempts,
                enrolled=True,
                final_passed=final_passed,
                full_name_given=full_name_given,
                now=now,
            )
            if not eligibility.can_start:
                first = eligibility.reasons[0]
                raise Conflict(
                    first.message,
                    code=first.code,
                    detail={
                        "reasons": [
                            {"code": r.code, "message": r.message} for r in eligibility.reasons
                        ],
                        # What the learner must fill in first (the settings field or the
                        # PATCH /api/v1/me/ field), when a reason is a missing field.
                        "missing_fields": [
                            FULL_NAME_FIELD
                            for r in eligibility.reasons
                            if r.code == FULL_NAME_MISSING
                        ],
                        "available_at": (
                            eligibility.available_at.isoformat()
                            if eligibility.available_at
                            else None
                        ),
                    },
                )
            bank = _drawable_items(module_id=module.id)
            if not bank and not ExamItem.objects.filter(module_id=module.id).exists():
                # First exam of a module whose bank was never generated (no command run yet).
                exam_items_generate(module_id=module.id)
                bank = _drawable_items(module_id=module.id)
            if not bank:
                raise Conflict("This exam has no items yet.", code="no_items")
            seed = secrets.randbelow(2**62)
            drawn = attempt_draw(
                candidates=[
                    DrawCandidate(
                        item_id=row["id"],
                        step_id=row["step_id"],
                        kind=row["kind"],
                        option_count=len(row["options"]),
                    )
                    for row in bank.values()
                ],
                count=policy.items_per_attempt,
                seed=seed,
            )
            attempt = ExamAttempt.objects.create(
                learner_id=learner_id,
                module_id=module.id,
                policy=policy,
                number=len(attempts) + 1,
                seed=seed,
                item_count=len(drawn),
                pass_mark_percent=policy.pass_mark_percent,
                started_at=now,
                deadline_at=now + datetime.timedelta(minutes=policy.time_limit_minutes),
            )
            items = ExamAttemptItem.objects.bulk_create(
                [
                    _attempt_item(
                        attempt=attempt,
                        position=position,
                        row=bank[choice.item_id],
                        option_order=choice.option_order,
                    )
                    for position, choice in enumerate(drawn, start=1)
                ]
            )
    except IntegrityError as exc:
        # Only reachable where the row lock is unavailable (SQLite): the unique attempt number
        # turned a concurrent second start away.
        raise Conflict(
            "Another attempt was started at the same time.", code="attempt_in_progress"
        ) from exc
    return StartedAttempt(attempt=attempt, items=items, module_slug=module.slug)


def _attempt_item(
    *, attempt: ExamAttempt, position: int, row: dict, option_order: Sequence[int]
) -> ExamAttemptItem:
    """The attempt's own copy of a bank item, options in the drawn order.

    Choice options are relabelled a, b, c … in the order shown, so a key says nothing about the
    answer (an author who always puts the right answer first gives nothing away).
    """
    options = [row["options"][index] for index in option_order]
    correct = row["correct_keys"]
    if row["kind"] != ExamItem.Kind.TRUE_FALSE:
        new_keys = {
            option["key"]: _OPTION_LABELS[i] if i < len(_OPTION_LABELS) else f"o{i}"
            for i, option in enumerate(options)
        }
        options = [{"key": new_keys[o["key"]], "text": o["text"]} for o in options]
        correct = sorted(new_keys[key] for key in correct)
    return ExamAttemptItem(
        attempt=attempt,
        position=position,
        item_id=row["id"],
        kind=row["kind"],
        prompt=row["prompt"],
        options=options,
        correct_keys=correct,
        explanation=row["explanation"],
    )


def _drawable_items(*, module_id: int) -> dict[int, dict]:
    rows = (
        ExamItem.objects.filter(module_id=module_id, is_active=True, is_retired=False)
        .order_by("id")
        .values("id", "step_id", "kind", "prompt", "options", "correct_keys", "explanation")
    )
    return {row["id"]: row for row in rows}
