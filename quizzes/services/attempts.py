"""The exam attempt lifecycle: start, autosave answers, submit/finalize, certificates.

Every write locks a row first (the learner's enrollment to start, the attempt to save or
finalize), and the database backs the rules up: one attempt number per learner and module, one
``ExamResult`` per attempt, one certificate per learner and module. Each hot path uses a fixed
number of queries whatever the number of items.
"""

from __future__ import annotations

import datetime
import secrets
from collections.abc import Sequence
from dataclasses import dataclass

from django.db import IntegrityError, transaction
from django.db.models import BooleanField, ExpressionWrapper, OuterRef, Q, Subquery
from django.utils import timezone

from courses import api as courses_api
from lms.errors import Conflict, InvalidInput, NotFound
from quizzes.drawing import DrawCandidate, attempt_draw
from quizzes.eligibility import AttemptState, Eligibility, exam_eligibility
from quizzes.grading import answer_is_correct, attempt_score, final_grade, passes
from quizzes.models import (
    Certificate,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamPolicy,
    ExamResult,
)
from quizzes.services.items import exam_items_generate, exam_policy_get

# Answers saved up to this long after the deadline still count: the last autosave of a learner
# whose time ran out is usually on its way when the clock strikes.
ANSWER_GRACE = datetime.timedelta(seconds=30)
# How many expired attempts one run of the periodic task finalizes.
FINALIZE_BATCH_SIZE = 200
# secrets.token_urlsafe(24): 32 characters, 192 bits; a certificate page cannot be guessed.
CERTIFICATE_CODE_BYTES = 24
_OPTION_LABELS = "abcdefghijklmnopqrstuvwxyz"


@dataclass(frozen=True)
class StartedAttempt:
    attempt: ExamAttempt
    items: list[ExamAttemptItem]
    module_slug: str


@dataclass(frozen=True)
class SavedAnswers:
    attempt: ExamAttempt
    saved_count: int
    answered_count: int
    saved_at: datetime.datetime


@dataclass(frozen=True)
class FinalizedAttempt:
    """A finalized attempt and what its result view needs; ``graded_now`` False on a replay."""

    attempt: ExamAttempt
    result: ExamResult
    items: list[ExamAttemptItem]
    attempts: list[ExamAttempt]
    certificate_code: str | None
    graded_now: bool


def learner_attempts(*, learner_id: int, module_id: int):
    """The learner's attempts in a module, oldest first, with result and certificate code."""
    certificate = Certificate.objects.filter(learner_id=OuterRef("learner_id"), module_id=module_id)
    return (
        ExamAttempt.objects.filter(learner_id=learner_id, module_id=module_id)
        .select_related("result")
        .annotate(certificate_code=Subquery(certificate.values("code")[:1]))
        .order_by("number")
    )


def attempt_is_finalized(attempt: ExamAttempt) -> bool:
    return getattr(attempt, "result", None) is not None


def attempt_states(attempts: Sequence[ExamAttempt]) -> list[AttemptState]:
    return [
        AttemptState(
            number=a.number,
            finalized_at=a.result.finalized_at if attempt_is_finalized(a) else None,
        )
        for a in attempts
    ]


def final_score(*, policy: ExamPolicy, attempts: Sequence[ExamAttempt]):
    """(final grade, passed) over the finalized attempts, by the policy's grading method."""
    scores = [a.result.score_percent for a in attempts if attempt_is_finalized(a)]
    grade = final_grade(method=policy.grading_method, scores=scores)
    passed = grade is not None and passes(
        score_percent=grade, pass_mark_percent=policy.pass_mark_percent
    )
    return grade, passed


def learner_eligibility(
    *,
    learner_id: int,
    module_id: int,
    policy: ExamPolicy,
    attempts: Sequence[ExamAttempt],
    enrolled: bool,
    final_passed: bool,
    now: datetime.datetime,
) -> Eligibility:
    """Whether the learner may start an attempt of the module's exam now, and why not.

    One query (all steps completed?) when the policy requires every step, none otherwise.
    """
    return exam_eligibility(
        now=now,
        enrolled=enrolled,
        steps_required=policy.requires_all_steps_completed,
        steps_completed=(
            courses_api.all_steps_completed(learner_id=learner_id, module_id=module_id)
            if policy.requires_all_steps_completed
            else True
        ),
        attempts=attempt_states(attempts),
        max_attempts=policy.max_attempts,
        wait=datetime.timedelta(minutes=policy.wait_between_attempts_minutes),
        final_passed=final_passed,
    )


def exam_attempt_start(
    *, learner_id: int, module_slug: str, now: datetime.datetime | None = None
) -> StartedAttempt:
    """Start an attempt: draw the items with a fresh seed, shuffle options, set the deadline.

    Raises Conflict (409) with the reasons when the learner may not start now.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            # The lock makes concurrent starts of one learner queue up, so "attempts used" and
            # "attempt in progress" are read after the previous start has committed.
            module = courses_api.enrollment_lock(learner_id=learner_id, module_slug=module_slug)
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


def exam_attempt_answers_save(
    *,
    learner_id: int,
    attempt_id: int,
    answers: Sequence[dict],
    now: datetime.datetime | None = None,
) -> SavedAnswers:
    """Save some or all answers (``[{"item": id, "selected": [keys]}]``; ``[]`` clears one).

    All or nothing: one unknown item or option key and nothing is saved (400). After the
    deadline plus the grace period, or once the attempt is finalized, a 409.
    """
    now = now or timezone.now()
    with transaction.atomic():
        attempt = (
            ExamAttempt.objects.select_for_update()
            .filter(pk=attempt_id, learner_id=learner_id)
            .first()
        )
        if attempt is None:
            raise NotFound("There is no such exam attempt.", code="attempt_not_found")
        # A separate query after the lock: it sees a result committed while we waited for it.
        if ExamResult.objects.filter(attempt_id=attempt.pk).exists():
            raise Conflict("This attempt is finalized.", code="attempt_finalized")
        if now > attempt.deadline_at + ANSWER_GRACE:
            raise Conflict(
                "The time for this attempt is up; answers can no longer be saved.",
                code="deadline_passed",
                detail={"deadline_at": attempt.deadline_at.isoformat()},
            )
        items = {
            item.pk: item
            for item in ExamAttemptItem.objects.filter(attempt_id=attempt.pk).only(
                "id", "attempt_id", "kind", "options", "selected_keys", "answered_at"
            )
        }
        problems = _answer_problems(answers=answers, items=items)
        if problems:
            raise InvalidInput("Some answers are not valid; nothing was saved.", detail=problems)
        changed = []
        for answer in answers:
            item = items[answer["item"]]
            order = [option["key"] for option in item.options]
            selected = sorted(set(answer["selected"]), key=order.index)
            item.selected_keys = selected
            item.answered_at = now
            changed.append(item)
        if changed:
            ExamAttemptItem.objects.bulk_update(changed, ["selected_keys", "answered_at"])
    answered = sum(1 for item in items.values() if item.selected_keys)
    return SavedAnswers(
        attempt=attempt, saved_count=len(changed), answered_count=answered, saved_at=now
    )


def _answer_problems(*, answers: Sequence[dict], items: dict[int, ExamAttemptItem]) -> list[dict]:
    problems = []
    seen: set[int] = set()
    for index, answer in enumerate(answers):
        item = items.get(answer["item"])
        if item is None:
            problems.append({"index": index, "code": "unknown_item", "item": answer["item"]})
            continue
        if answer["item"] in seen:
            problems.append({"index": index, "code": "duplicate_item", "item": answer["item"]})
            continue
        seen.add(answer["item"])
        keys = {option["key"] for option in item.options}
        unknown = sorted(set(answer["selected"]) - keys)
        if unknown:
            problems.append(
                {"index": index, "code": "unknown_option", "item": item.pk, "keys": unknown}
            )
        elif item.kind != ExamItem.Kind.MULTIPLE_CHOICE and len(set(answer["selected"])) > 1:
            problems.append({"index": index, "code": "one_option_only", "item": item.pk})
    return problems


def exam_attempt_finalize(
    *,
    attempt_id: int,
    learner_id: int | None = None,
    now: datetime.datetime | None = None,
) -> FinalizedAttempt:
    """Grade the attempt from its saved answers, once; a second call returns the same result.

    ``learner_id`` restricts it to the learner's own attempt (submit); the periodic task omits it.
    Grading happens on the server only, from the attempt's own copies of the items.
    """
    now = now or timezone.now()
    try:
        with transaction.atomic():
            attempt_query = ExamAttempt.objects.select_for_update(of=("self",)).select_related(
                "policy", "learner"
            )
            if learner_id is not None:
                attempt_query = attempt_query.filter(learner_id=learner_id)
            attempt = attempt_query.filter(pk=attempt_id).first()
            if attempt is None:
                raise NotFound("There is no such exam attempt.", code="attempt_not_found")
            # Read after the lock, so a result committed by a concurrent submit is seen here.
            attempts = list(
                learner_attempts(learner_id=attempt.learner_id, module_id=attempt.module_id)
            )
            this = next(a for a in attempts if a.pk == attempt.pk)
            items = list(ExamAttemptItem.objects.filter(attempt_id=attempt.pk).order_by("position"))
            certificate_code = attempts[0].certificate_code
            if attempt_is_finalized(this):
                return FinalizedAttempt(
                    attempt=attempt,
                    result=this.result,
                    items=items,
                    attempts=attempts,
                    certificate_code=certificate_code,
                    graded_now=False,
                )
            outcomes = []
            for item in items:
                item.is_correct = answer_is_correct(
                    correct_keys=item.correct_keys, selected_keys=item.selected_keys
                )
                outcomes.append(item.is_correct)
            score = attempt_score(outcomes)
            result = ExamResult.objects.create(
                attempt=attempt,
                learner_id=attempt.learner_id,
                module_id=attempt.module_id,
                score_percent=score.score_percent,
                correct_count=score.correct_count,
                item_count=score.item_count,
                passed=passes(
                    score_percent=score.score_percent,
                    pass_mark_percent=attempt.pass_mark_percent,
                ),
                reason=(
                    ExamResult.Reason.SUBMITTED
                    if now <= attempt.deadline_at + ANSWER_GRACE
                    else ExamResult.Reason.EXPIRED
                ),
                finalized_at=now,
            )
            if items:
                # One plain UPDATE: bulk_update builds a CASE WHEN per item in Python, the
                # largest single cost of a submit (bench/results/latest.md, exam submit).
                correct_ids = [item.pk for item in items if item.is_correct]
                graded = ExamAttemptItem.objects.filter(attempt_id=attempt.pk)
                if correct_ids:
                    graded.update(
                        is_correct=ExpressionWrapper(
                            Q(pk__in=correct_ids), output_field=BooleanField()
                        )
                    )
                else:
                    # "pk IN ()" would make Django skip the UPDATE altogether.
                    graded.update(is_correct=False)
            this.result = result
            grade, passed = final_score(policy=attempt.policy, attempts=attempts)
            if passed and certificate_code is None:
                certificate_code = secrets.token_urlsafe(CERTIFICATE_CODE_BYTES)
                # ignore_conflicts: the unique (learner, module) key keeps one certificate even
                # if two finalizations of different attempts ever raced.
                Certificate.objects.bulk_create(
                    [
                        Certificate(
                            learner_id=attempt.learner_id,
                            module_id=attempt.module_id,
                            attempt=attempt,
                            code=certificate_code,
                            learner_name=attempt.learner.public_name[:200],
                            score_percent=grade,
                            issued_at=now,
                        )
                    ],
                    ignore_conflicts=True,
                )
            for other in attempts:
                other.certificate_code = certificate_code
    except IntegrityError as exc:
        # The one-result-per-attempt key refused a second grading that slipped past the lock.
        raise Conflict(
            "This attempt was finalized at the same time.", code="attempt_finalized"
        ) from exc
    return FinalizedAttempt(
        attempt=attempt,
        result=result,
        items=items,
        attempts=attempts,
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
