"""Starting an exam attempt: certifying when the approved items fill an attempt, else practice
over drafts and approved. The enrollment row lock queues concurrent starts of one learner."""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from courses import api as courses_api
from lms.errors import Conflict
from progress import api as progress_api
from quizzes.answers import TYPED_KINDS, matching_attempt_copy, matching_draw_counts
from quizzes.attempt_rules import exam_is_certifying, final_score
from quizzes.drawing import DrawCandidate, attempt_draw
from quizzes.eligibility import FULL_NAME_FIELD, FULL_NAME_MISSING, Eligibility
from quizzes.models import ExamAttempt, ExamAttemptItem, ExamItem
from quizzes.selectors import ExamSetup, learner_eligibility, learner_exam_setup
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
    """Start an attempt: draw the items, shuffle options, set the deadline.
    Raises Conflict (409) with the reasons when the learner may not start now."""
    now = now or timezone.now()
    try:
        with transaction.atomic():
            # Concurrent starts queue up here, so attempt counts are read after the previous commit.
            module = progress_api.enrollment_lock(learner_id=learner_id, module_slug=module_slug)
            if module is None:
                courses_api.module_by_slug(module_slug)  # 404 for a module that does not exist
                raise Conflict(
                    _("Enroll in the module before taking its exam."), code="not_enrolled"
                )
            setup = learner_exam_setup(learner_id=learner_id, module_id=module.id)
            if setup.policy.pk is None:
                setup = ExamSetup(
                    policy=exam_policy_get(module_id=module.id),
                    limits=setup.limits,
                    approved_items=setup.approved_items,
                )
            policy = setup.policy
            attempts = list(
                ExamAttempt.objects.filter(learner_id=learner_id, module_id=module.id)
                .select_related("result")
                .order_by("number")
            )
            # The mode comes from the bank as read here, in the transaction that draws from it.
            bank = _drawable_items(module_id=module.id)
            approved = {
                item_id: row
                for item_id, row in bank.items()
                if row["status"] == ExamItem.Status.APPROVED
            }
            certifying = exam_is_certifying(
                approved_items=len(approved), items_per_attempt=policy.items_per_attempt
            )
            _grade, final_passed = final_score(policy=policy, attempts=attempts)
            eligibility = learner_eligibility(
                learner_id=learner_id,
                outline=courses_api.module_outline(module.slug),
                setup=setup,
                certifying=certifying,
                attempts=attempts,
                enrolled=True,
                final_passed=final_passed,
                full_name_given=full_name_given,
                now=now,
            )
            if not eligibility.can_start:
                raise _refusal(eligibility)
            if not bank and not ExamItem.objects.filter(module_id=module.id).exists():
                # A bank never generated yet: its new items are drafts, so this attempt is practice.
                exam_items_generate(module_id=module.id)
                bank = _drawable_items(module_id=module.id)
            if not bank:
                raise Conflict(_("This exam has no items yet."), code="no_items")
            if certifying:
                bank = approved
            seed = secrets.randbelow(2**62)
            drawn = attempt_draw(
                candidates=[_draw_candidate(row) for row in bank.values()],
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
                certifying=certifying,
                started_at=now,
                # The learner's own limit: the policy's plus their extra time.
                deadline_at=now + datetime.timedelta(minutes=setup.limits.time_limit_minutes),
            )
            items = ExamAttemptItem.objects.bulk_create(
                [
                    _attempt_item(
                        attempt=attempt,
                        position=position,
                        row=bank[choice.item_id],
                        option_order=choice.option_order,
                        choice_order=choice.choice_order,
                    )
                    for position, choice in enumerate(drawn, start=1)
                ]
            )
    except IntegrityError as exc:
        # The unique attempt number turned away a second start that got past the lock.
        raise Conflict(
            _("Another attempt was started at the same time."), code="attempt_in_progress"
        ) from exc
    return StartedAttempt(attempt=attempt, items=items, module_slug=module.slug)


def _refusal(eligibility: Eligibility) -> Conflict:
    """The 409 for a start the rules refuse: the first reason as the error, every reason (and
    the steps still to complete, for the completion gate) in its detail."""
    first = eligibility.reasons[0]
    gate = eligibility.steps
    return Conflict(
        first.message,
        code=first.code,
        detail={
            "reasons": [{"code": r.code, "message": r.message} for r in eligibility.reasons],
            "available_at": (
                eligibility.available_at.isoformat() if eligibility.available_at else None
            ),
            # The field the learner must fill in first, when a reason is a missing field.
            "missing_fields": [
                FULL_NAME_FIELD for r in eligibility.reasons if r.code == FULL_NAME_MISSING
            ],
            "steps_required": gate.required,
            "steps_completed": gate.completed,
            "missing_steps": [
                {"number": step.number, "slug": step.slug, "term": step.term}
                for step in gate.missing
            ],
        },
    )


def _draw_candidate(row: dict) -> DrawCandidate:
    option_count, choice_count = len(row["options"]), 0
    if row["kind"] == ExamItem.Kind.MATCHING:
        option_count, choice_count = matching_draw_counts(row["answer_key"]["pairs"])
    return DrawCandidate(
        item_id=row["id"],
        step_id=row["step_id"],
        kind=row["kind"],
        option_count=option_count,
        choice_count=choice_count,
    )


def _attempt_item(
    *,
    attempt: ExamAttempt,
    position: int,
    row: dict,
    option_order: Sequence[int],
    choice_order: Sequence[int],
) -> ExamAttemptItem:
    """The attempt's own copy of a bank item; choice options relabelled a, b, c … in the order
    shown, so a key says nothing about the answer (matching: ``matching_attempt_copy``)."""
    options, correct, choices, answer_key = [], [], None, None
    feedback = dict(row["answer_feedback"] or {})
    if row["kind"] == ExamItem.Kind.MATCHING:
        options, choices, answer_key = matching_attempt_copy(
            pairs=row["answer_key"]["pairs"],
            option_order=option_order,
            choice_order=choice_order,
            option_labels=_OPTION_LABELS,
        )
    elif row["kind"] in TYPED_KINDS:
        answer_key = row["answer_key"]
    else:
        options = [row["options"][index] for index in option_order]
        correct = row["correct_keys"]
        if row["kind"] != ExamItem.Kind.TRUE_FALSE:
            new_keys = {
                option["key"]: _OPTION_LABELS[i] if i < len(_OPTION_LABELS) else f"o{i}"
                for i, option in enumerate(options)
            }
            options = [{"key": new_keys[o["key"]], "text": o["text"]} for o in options]
            correct = sorted(new_keys[key] for key in correct)
            feedback = {new_keys[key]: text for key, text in feedback.items() if key in new_keys}
    return ExamAttemptItem(
        attempt=attempt,
        position=position,
        item_id=row["id"],
        kind=row["kind"],
        prompt=row["prompt"],
        options=options,
        correct_keys=correct,
        explanation=row["explanation"],
        text_format=row["text_format"],
        answer_feedback=feedback,
        choices=choices,
        answer_key=answer_key,
    )


def _drawable_items(*, module_id: int) -> dict[int, dict]:
    """Every item an attempt may draw (drafts and approved: never rejected, inactive or
    retired), with its review status."""
    rows = (
        ExamItem.objects.filter(module_id=module_id)
        .drawable()
        .order_by("id")
        .values(
            "id",
            "step_id",
            "kind",
            "prompt",
            "options",
            "correct_keys",
            "explanation",
            "answer_key",
            "text_format",
            "answer_feedback",
            "status",
        )
    )
    return {row["id"]: row for row in rows}
