"""What other apps may ask of the quizzes app: the learner's data export and account erasure,
and the demo data's authored item bank."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction

from lms.privacy import export_rows
from quizzes.answers import accepted_answers
from quizzes.attempt_rules import (
    attempt_is_finalized,
    attempt_review_level,
    final_score,
    mode_name,
)
from quizzes.data import ExamItemsPlan
from quizzes.generator import StepSource
from quizzes.grading import CORRECT_ANSWERS, CORRECTNESS
from quizzes.models import (
    ArchivedItemResponse,
    Certificate,
    ExamAccommodation,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamPolicy,
    ExamRegradeLearner,
    QuickCheckRating,
    QuickCheckRatingEvent,
)
from quizzes.selectors import attempt_item_view, attempt_policy, learner_attempt, learner_attempts
from quizzes.services.gift_import import exam_items_gift_import
from quizzes.services.item_review import exam_items_review
from quizzes.services.items import exam_items_changes, exam_items_generate
from quizzes.signals import exam_grade_changed as exam_grade_changed


def _review_levels(attempts: list[ExamAttempt], extra_attempts: dict[int, int]) -> dict[int, str]:
    """Per attempt: what its review policy lets the learner see now (as the API shows it);
    ``extra_attempts`` per module from the learner's accommodations."""
    by_module: dict[int, list[ExamAttempt]] = {}
    for attempt in attempts:
        by_module.setdefault(attempt.module_id, []).append(attempt)
    levels = {}
    for module_id, module_attempts in by_module.items():
        policy = attempt_policy(
            module_attempts[-1].policy, extra_attempts=extra_attempts.get(module_id, 0)
        )
        for attempt in module_attempts:
            levels[attempt.pk] = (
                attempt_review_level(
                    policy=policy, certifying=attempt.certifying, attempts=module_attempts
                )
                if attempt_is_finalized(attempt)
                else "nothing"
            )
    return levels


def _item_export(item: ExamAttemptItem, level: str) -> dict[str, Any]:
    # The export never shows more of an attempt than its review does.
    row: dict[str, Any] = {**asdict(attempt_item_view(item)), "answered_at": item.answered_at}
    if level in (CORRECTNESS, CORRECT_ANSWERS):
        row["is_correct"] = bool(item.is_correct)
    if level == CORRECT_ANSWERS:
        row["correct_keys"] = list(item.correct_keys)
        row["explanation"] = item.explanation
        # The typed kinds' answer keys, as the review shows them (quizzes/answers.py).
        row["accepted_answers"] = accepted_answers(kind=item.kind, answer_key=item.answer_key)
        row["correct_pairs"] = [
            {"option": option, "choice": choice}
            for option, choice in ((item.answer_key or {}).get("pairs") or {}).items()
        ]
    return row


def learner_export(learner_id: int) -> dict[str, Any]:
    """Everything the quizzes app stores about the learner (data export), without the shuffle
    seeds: with the bank they would reproduce the exam's draw."""
    attempts = list(
        ExamAttempt.objects.filter(learner_id=learner_id)
        .select_related("policy", "result")
        .order_by("module_id", "number")
    )
    accommodations = export_rows(
        ExamAccommodation.objects.filter(learner_id=learner_id), context=("module__slug",)
    )
    levels = _review_levels(
        attempts, {row["module_id"]: row["extra_attempts"] for row in accommodations}
    )
    items: dict[int, list[ExamAttemptItem]] = {}
    for item in ExamAttemptItem.objects.filter(attempt__learner_id=learner_id).order_by(
        "attempt_id", "position"
    ):
        items.setdefault(item.attempt_id, []).append(item)
    exam_attempts = []
    for attempt in attempts:
        result = getattr(attempt, "result", None)
        exam_attempts.append(
            {
                "id": attempt.pk,
                "module_id": attempt.module_id,
                "number": attempt.number,
                "certifying": attempt.certifying,
                "mode": mode_name(attempt.certifying),
                "item_count": attempt.item_count,
                "pass_mark_percent": attempt.pass_mark_percent,
                "started_at": attempt.started_at,
                "deadline_at": attempt.deadline_at,
                "review_shows": levels[attempt.pk],
                "result": None
                if result is None
                else {
                    "score_percent": result.score_percent,
                    "correct_count": result.correct_count,
                    "item_count": result.item_count,
                    "passed": result.passed,
                    "reason": result.reason,
                    "finalized_at": result.finalized_at,
                },
                "items": [_item_export(i, levels[attempt.pk]) for i in items.get(attempt.pk, [])],
            }
        )
    return {
        "quick_check_ratings": export_rows(
            QuickCheckRating.objects.filter(learner_id=learner_id),
            context=("quick_check__question",),
        ),
        "quick_check_rating_events": export_rows(
            QuickCheckRatingEvent.objects.filter(learner_id=learner_id)
        ),
        "exam_attempts": exam_attempts,
        "certificates": export_rows(
            Certificate.objects.filter(learner_id=learner_id), context=("module__slug",)
        ),
        "exam_accommodations": accommodations,
        # A course admin's regrades of the learner's attempts: grade and certificate before/after.
        "exam_regrades": export_rows(
            ExamRegradeLearner.objects.filter(learner_id=learner_id), context=("module__slug",)
        ),
    }


@transaction.atomic
def learner_erase(learner_id: int) -> int:
    """Before an account is deleted: keep the answers the item analysis counts (the first
    finalized certifying attempt per module) anonymously, under a random key per module, and
    delete its certificates. Returns the number of answers kept."""
    first_attempts: dict[int, ExamAttempt] = {}
    for attempt in (
        ExamAttempt.objects.filter(learner_id=learner_id, certifying=True, result__isnull=False)
        .select_related("result")
        .order_by("module_id", "number")
    ):
        first_attempts.setdefault(attempt.module_id, attempt)
    respondents = {module_id: uuid.uuid4() for module_id in first_attempts}
    by_id = {attempt.pk: attempt for attempt in first_attempts.values()}
    archived = [
        ArchivedItemResponse(
            item_id=item.item_id,
            module_id=by_id[item.attempt_id].module_id,
            respondent=respondents[by_id[item.attempt_id].module_id],
            attempt_number=by_id[item.attempt_id].number,
            attempt_score=by_id[item.attempt_id].result.score_percent,
            is_correct=bool(item.is_correct),
            position=item.position,
        )
        # Items deleted from the bank since (item NULL) are left out, as the statistics do.
        for item in ExamAttemptItem.objects.filter(attempt_id__in=by_id, item__isnull=False)
    ]
    ArchivedItemResponse.objects.bulk_create(archived)
    Certificate.objects.filter(learner_id=learner_id).delete()
    return len(archived)


@dataclass(frozen=True)
class DemoBank:
    """What ``demo_bank_author`` did to a module's bank."""

    imported: int
    returned_to_draft: int
    approved: int


@transaction.atomic
def demo_bank_author(*, module_id: int, data: bytes, source: str, reviewer_id: int) -> DemoBank:
    """``manage.py demo_setup``: import the module's authored GIFT bank approved by the demo
    admin (questions already there are skipped), and return generated items that admin approved
    in an earlier demo to draft: the certifying exam draws the authored items only, generated
    ones stay for practice. A broken file raises ``InvalidInput`` and writes nothing."""
    report = exam_items_gift_import(
        module_id=module_id, data=data, source=source, approved_by_id=reviewer_id
    )
    generated = ExamItem.objects.filter(
        module_id=module_id,
        origin=ExamItem.Origin.GENERATED,
        status=ExamItem.Status.APPROVED,
        reviewed_by_id=reviewer_id,
    ).values_list("id", flat=True)
    drafted = exam_items_review(
        item_ids=list(generated), status=ExamItem.Status.DRAFT, reviewer_id=None
    )
    approved = ExamItem.objects.filter(module_id=module_id).approved().count()
    return DemoBank(imported=report.created, returned_to_draft=drafted, approved=approved)


def exam_items_plan(*, module_id: int | None, steps: Iterable[Any]) -> ExamItemsPlan:
    """What ``exam_items_generate`` would do if the module's active steps were ``steps``
    (``step_id`` None for a step not yet stored), with the approved bank before and after.
    Three queries."""
    # A step not yet stored gets a stand-in id of its own (the generator tells steps apart by id).
    sources = [
        StepSource(
            id=step.step_id or -position,
            slug=step.slug,
            number=step.number,
            term=step.term,
            definition=step.definition,
        )
        for position, step in enumerate(steps, start=1)
    ]
    report, _created, _updated = exam_items_changes(module_id=module_id or None, steps=sources)
    approved_now = 0
    items_per_attempt = ExamPolicy._meta.get_field("items_per_attempt").default
    if module_id:
        approved_now = ExamItem.objects.approved().filter(module_id=module_id).count()
        items_per_attempt = (
            ExamPolicy.objects.filter(module_id=module_id)
            .values_list("items_per_attempt", flat=True)
            .first()
            or items_per_attempt
        )
    return ExamItemsPlan(
        created=report.created,
        updated=report.updated,
        retired=report.retired,
        restored=report.restored,
        returned_to_draft=report.returned_to_draft,
        reviews_restored=report.reviews_restored,
        returned_items=tuple(report.returned_items),
        approved_now=approved_now,
        approved_after=approved_now - report.approved_lost + report.approved_gained,
        items_per_attempt=items_per_attempt,
    )


def exam_items_fingerprint(*, module_ids: Iterable[int]) -> str:
    """A hash of the module's generated items as stored (one query): a publish whose preview
    counted other items refuses."""
    rows = ExamItem.objects.filter(
        module_id__in=list(module_ids), origin=ExamItem.Origin.GENERATED
    ).order_by("pk")
    digest = hashlib.sha256()
    for pk, key, status, retired, updated_at in rows.values_list(
        "pk", "generator_key", "status", "is_retired", "updated_at"
    ):
        digest.update(f"{pk}\x1f{key}\x1f{status}\x1f{retired}\x1f{updated_at}\x1e".encode())
    return digest.hexdigest()


def exam_items_regenerate(*, module_id: int) -> dict[str, int]:
    """Regenerate the module's generated items from its active steps (new ones are drafts, for
    the item review); what changed, by count."""
    return asdict(exam_items_generate(module_id=module_id))


def exam_grade(*, learner_id: int, module_id: int) -> Decimal | None:
    """The learner's final exam grade in the module (percent, by the policy's grading method
    over the finalized certifying attempts); None before the first."""
    rows, _code = learner_attempts(learner_id=learner_id, module_id=module_id)
    if not rows:
        return None
    # The grading method and pass mark of the newest attempt's policy (extra attempts do not
    # change a grade).
    policy = attempt_policy(rows[-1].policy)
    grade, _passed = final_score(policy=policy, attempts=[learner_attempt(row) for row in rows])
    return grade
