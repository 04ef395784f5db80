"""Reads of the quizzes app as frozen dataclasses. ``attempt_result_view`` alone decides what
a learner sees of an attempt: answers only once finalized and the review policy allows."""

from __future__ import annotations

import dataclasses
import datetime
import hashlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db.models import (
    Count,
    F,
    IntegerField,
    Max,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.functions import Coalesce
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import api as accounts_api
from courses import api as courses_api
from courses.data import ModuleOutline
from lms.errors import NotFound
from progress import api as progress_api
from quizzes.answers import (
    MATCHING,
    NUMERICAL,
    SHORT_ANSWER,
    accepted_answers,
    answer_feedback_shown,
    item_is_answered,
    item_is_correct,
)
from quizzes.attempt_rules import (
    ANSWER_GRACE,
    EXPIRED,
    AttemptPolicy,
    AttemptResult,
    GradedItem,
    LearnerAttempt,
    attempt_grade,
    attempt_is_finalized,
    attempt_review_level,
    attempt_states,
    attempts_with_result,
    exam_is_certifying,
    final_score,
    mode_name,
    seconds_left,
)
from quizzes.certificate_pdf import certificate_pdf
from quizzes.data import (
    AttemptItemView,
    AttemptSummary,
    AttemptView,
    CertificateLink,
    CertificatePdf,
    CertificateView,
    ExamOverview,
    FinalGrade,
    GradesRow,
    ItemAnalysis,
    ItemAnalysisRow,
    LearnerLimits,
    Option,
    Pair,
    PolicyView,
    ResultView,
    ReviewInfo,
    ReviewItem,
    ReviewItemWithAnswers,
    StepQuickCheck,
    StudyPlan,
    StudyStep,
)
from quizzes.eligibility import Eligibility, StepState, exam_eligibility, step_gate
from quizzes.gift import GiftItem, gift_write
from quizzes.grading import CORRECT_ANSWERS, CORRECTNESS
from quizzes.item_analysis import (
    AttemptMarks,
    attempt_version,
    bank_version,
    exam_figures,
    item_figures,
)
from quizzes.item_html import item_html_clean
from quizzes.lookup_solver import answers_right, course_passages
from quizzes.models import (
    ArchivedItemResponse,
    Certificate,
    ExamAccommodation,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamPolicy,
    ExamRegradeLearner,
    ExamResult,
    QuickCheckRating,
)
from quizzes.regrade import ShownKey, attempt_item_key, certificate_action
from reviews import api as reviews_api

# --- the exam ---------------------------------------------------------------------------------


def learner_attempt(attempt: ExamAttempt) -> LearnerAttempt:
    """The attempt (its ``result`` selected with it) as the attempt's rules read it."""
    result = attempt.result if attempt_is_finalized(attempt) else None
    return LearnerAttempt(
        id=attempt.pk,
        number=attempt.number,
        result=None
        if result is None
        else AttemptResult(
            score_percent=result.score_percent,
            passed=result.passed,
            correct_count=result.correct_count,
            item_count=result.item_count,
            reason=result.reason,
            finalized_at=result.finalized_at,
        ),
        certifying=attempt.certifying,
    )


def attempt_policy(policy: ExamPolicy, *, extra_attempts: int = 0) -> AttemptPolicy:
    """The policy as grading and the review read it, with the learner's own maximum."""
    return AttemptPolicy(
        grading_method=policy.grading_method,
        pass_mark_percent=policy.pass_mark_percent,
        max_attempts=policy.max_attempts + extra_attempts,
        review_content=policy.review_content,
        review_timing=policy.review_timing,
    )


def graded_item(item: ExamAttemptItem) -> GradedItem:
    """The attempt's item as grading and the review read it."""
    return GradedItem(
        id=item.pk,
        position=item.position,
        correct_keys=item.correct_keys,
        selected_keys=item.selected_keys,
        explanation=item.explanation,
        is_correct=item.is_correct,
        kind=item.kind,
        answer_key=item.answer_key,
        answer_text=item.answer_text,
        answer_pairs=item.answer_pairs,
        answer_feedback=item.answer_feedback,
        text_format=item.text_format,
    )


def learner_attempts(*, learner_id: int, module_id: int) -> tuple[list[ExamAttempt], str | None]:
    """The learner's attempts in a module, oldest first, with their results; and the code of
    the certificate they hold in it. One query."""
    certificate = Certificate.objects.filter(learner_id=OuterRef("learner_id"), module_id=module_id)
    attempts = list(
        ExamAttempt.objects.filter(learner_id=learner_id, module_id=module_id)
        .select_related("result")
        .annotate(certificate_code=Subquery(certificate.values("code")[:1]))
        .order_by("number")
    )
    return attempts, attempts[0].certificate_code if attempts else None


# --- the learner's exam set-up: policy, accommodation, approved bank ----------------------------


@dataclass(frozen=True)
class ExamSetup:
    """The module's policy (unsaved defaults before its first use), the learner's own limits,
    and how many approved items the bank can draw (``certifying``: enough for an attempt)."""

    policy: ExamPolicy
    limits: LearnerLimits
    approved_items: int

    @property
    def certifying(self) -> bool:
        return exam_is_certifying(
            approved_items=self.approved_items, items_per_attempt=self.policy.items_per_attempt
        )


def accommodation_subqueries(*, learner_id: Any, module_id: Any) -> dict[str, Coalesce]:
    """The learner's extra minutes and extra attempts in the module (0 without an
    accommodation), as annotations: they ride along with a query the read makes anyway."""
    rows = ExamAccommodation.objects.filter(learner_id=learner_id, module_id=module_id)
    return {
        name: Coalesce(Subquery(rows.values(name)[:1]), Value(0), output_field=IntegerField())
        for name in ("extra_time_minutes", "extra_attempts")
    }


def learner_exam_setup(*, learner_id: int, module_id: int) -> ExamSetup:
    """The policy (unsaved defaults before the first), the learner's accommodation and the
    count of approved items: one query, three without a policy."""
    approved = (
        ExamItem.objects.approved()
        .filter(module_id=OuterRef("module_id"))
        .order_by()
        .values("module_id")
        .annotate(n=Count("id"))
        .values("n")
    )
    policy = (
        ExamPolicy.objects.filter(module_id=module_id)
        .annotate(
            **accommodation_subqueries(learner_id=learner_id, module_id=OuterRef("module_id")),
            approved_items=Coalesce(Subquery(approved), Value(0), output_field=IntegerField()),
        )
        .first()
    )
    if policy is None:
        policy = ExamPolicy(module_id=module_id)
        extra = ExamAccommodation.objects.filter(learner_id=learner_id, module_id=module_id)
        policy.extra_time_minutes, policy.extra_attempts = extra.values_list(
            "extra_time_minutes", "extra_attempts"
        ).first() or (0, 0)
        policy.approved_items = ExamItem.objects.approved().filter(module_id=module_id).count()
    return ExamSetup(
        policy=policy,
        limits=LearnerLimits(
            time_limit_minutes=policy.time_limit_minutes + policy.extra_time_minutes,
            max_attempts=policy.max_attempts + policy.extra_attempts,
            extra_time_minutes=policy.extra_time_minutes,
            extra_attempts=policy.extra_attempts,
        ),
        approved_items=policy.approved_items,
    )


def learner_eligibility(
    *,
    learner_id: int,
    outline: ModuleOutline,
    setup: ExamSetup,
    certifying: bool,
    attempts: Sequence[ExamAttempt],
    enrolled: bool,
    final_passed: bool,
    full_name_given: bool,
    now: datetime.datetime,
    completed_step_ids: frozenset[int] | None = None,
) -> Eligibility:
    """Whether the learner may start an attempt now, and why not; one query for the completed
    steps unless the caller passes ``completed_step_ids``."""
    done = completed_step_ids
    if done is None:
        done = progress_api.completed_step_ids(learner_id=learner_id, module_id=outline.id)
    gate = step_gate(
        required_share=setup.policy.required_step_share,
        steps=[
            StepState(number=s.number, slug=s.slug, term=s.term, completed=s.id in done)
            for s in outline.active_steps
        ],
    )
    return exam_eligibility(
        now=now,
        enrolled=enrolled,
        steps=gate,
        attempts=attempt_states(attempts),
        certifying=certifying,
        max_attempts=setup.limits.max_attempts,
        wait=datetime.timedelta(minutes=setup.policy.wait_between_attempts_minutes),
        final_passed=final_passed,
        full_name_given=full_name_given,
    )


def certificate_url(code: str) -> str:
    # Printed on certificates and in their QR codes, so the route never moves.
    return settings.SITE_URL + reverse("certificate-verify", args=[code])


def _certificate_link(code: str | None) -> CertificateLink | None:
    return CertificateLink(code=code, url=certificate_url(code)) if code else None


def policy_view(policy: ExamPolicy) -> PolicyView:
    return PolicyView(
        items_per_attempt=policy.items_per_attempt,
        time_limit_minutes=policy.time_limit_minutes,
        pass_mark_percent=policy.pass_mark_percent,
        max_attempts=policy.max_attempts,
        wait_between_attempts_minutes=policy.wait_between_attempts_minutes,
        grading_method=policy.grading_method,
        review_content=policy.review_content,
        review_timing=policy.review_timing,
        requires_all_steps_completed=policy.requires_all_steps_completed,
        required_step_share=policy.required_step_share,
        answer_grace_seconds=int(ANSWER_GRACE.total_seconds()),
    )


def exam_rule_get(*, module_id: int) -> PolicyView:
    """The module's exam rule (items, time, pass mark, attempts, required step share) as a
    module overview states it to anyone: one query; the defaults before a policy is saved."""
    policy = ExamPolicy.objects.filter(module_id=module_id).first()
    return policy_view(policy or ExamPolicy(module_id=module_id))


def attempt_summary(attempt: ExamAttempt) -> AttemptSummary:
    result = attempt.result if attempt_is_finalized(attempt) else None
    return AttemptSummary(
        id=attempt.pk,
        number=attempt.number,
        mode=mode_name(attempt.certifying),
        started_at=attempt.started_at,
        deadline_at=attempt.deadline_at,
        finalized=result is not None,
        finalized_at=result.finalized_at if result else None,
        score_percent=result.score_percent if result else None,
        passed=result.passed if result else None,
    )


def _review_item(item: GradedItem, *, with_answers: bool) -> ReviewItem:
    """An item of a finalized attempt as its review shows it: correctness always, the correct
    keys and explanation only ``with_answers``."""
    shown = {
        "id": item.id,
        "position": item.position,
        "selected_keys": item.selected_keys or [],
        "is_correct": bool(item.is_correct),
        "score": 1 if item.is_correct else 0,
        **_typed_answer(item.kind, item.answer_text, item.answer_pairs),
    }
    if with_answers:
        return ReviewItemWithAnswers(
            **shown,
            correct_keys=list(item.correct_keys),
            explanation=item.explanation,
            accepted_answers=accepted_answers(kind=item.kind, answer_key=item.answer_key),
            correct_pairs=_pairs(
                (item.answer_key or {}).get("pairs") if item.kind == MATCHING else None
            ),
            feedback=[
                item_html_clean(text) if item.text_format == "html" else text
                for text in answer_feedback_shown(
                    kind=item.kind,
                    feedback=item.answer_feedback,
                    answer_key=item.answer_key,
                    selected_keys=item.selected_keys,
                    answer_text=item.answer_text,
                )
            ],
        )
    return ReviewItem(**shown)


def _pairs(pairs: dict | None) -> list[Pair]:
    return [Pair(option=option, choice=choice) for option, choice in (pairs or {}).items()]


def _typed_answer(kind: str, answer_text: str | None, answer_pairs: dict | None) -> dict:
    """The learner's answer to a typed item as the views show it: ``text`` (short answer),
    ``number`` (numerical, as typed), ``pairs`` (matching); None / [] for the other kinds."""
    return {
        "text": answer_text if kind == SHORT_ANSWER else None,
        "number": answer_text if kind == NUMERICAL else None,
        "pairs": _pairs(answer_pairs) if kind == MATCHING else [],
    }


def attempt_result_view(
    *,
    attempt: LearnerAttempt,
    policy: AttemptPolicy,
    items: Sequence[GradedItem],
    attempts: Sequence[LearnerAttempt],
    certificate_code: str | None,
) -> ResultView:
    """The result of a finalized attempt as the review policy lets the learner see it now."""
    result = attempt.result
    grade, final_passed = final_score(policy=policy, attempts=attempts)
    level = attempt_review_level(policy=policy, certifying=attempt.certifying, attempts=attempts)
    review_items = None
    if level in (CORRECTNESS, CORRECT_ANSWERS):
        review_items = [_review_item(item, with_answers=level == CORRECT_ANSWERS) for item in items]
    return ResultView(
        attempt=attempt.id,
        mode=mode_name(attempt.certifying),
        score_percent=result.score_percent,
        passed=result.passed,
        correct_count=result.correct_count,
        item_count=result.item_count,
        reason=result.reason,
        finalized_at=result.finalized_at,
        review=ReviewInfo(
            shows=level,
            review_content=policy.review_content,
            review_timing=policy.review_timing,
        ),
        items=review_items,
        final_grade=FinalGrade(
            grading_method=policy.grading_method, score_percent=grade, passed=final_passed
        ),
        certificate=_certificate_link(certificate_code),
    )


def attempt_item_view(item: ExamAttemptItem) -> AttemptItemView:
    """One item as the learner answers it: never the correct keys, correctness or explanation."""
    html = item.text_format == "html"
    return AttemptItemView(
        id=item.pk,
        position=item.position,
        kind=item.kind,
        # An HTML item was sanitised when written; again here, since the page shows it as is.
        prompt=item_html_clean(item.prompt) if html else item.prompt,
        text_format=item.text_format,
        options=[
            Option(key=o["key"], text=item_html_clean(o["text"]) if html else o["text"])
            for o in item.options
        ],
        selected_keys=item.selected_keys or [],
        choices=[Option(key=c["key"], text=c["text"]) for c in item.choices or []],
        **_typed_answer(item.kind, item.answer_text, item.answer_pairs),
        answered=item_is_answered(
            kind=item.kind,
            option_count=len(item.options),
            selected_keys=item.selected_keys,
            answer_text=item.answer_text,
            answer_pairs=item.answer_pairs,
        ),
    )


def attempt_view(
    *,
    attempt: ExamAttempt,
    module_slug: str,
    items: Sequence[ExamAttemptItem],
    result: ResultView | None,
    now: datetime.datetime,
    finalized: bool | None = None,
    module_title: str = "",
) -> AttemptView:
    """The attempt as the learner answers it, with ``result`` once it is finalized (unless
    ``finalized`` says otherwise: the result page's view of an attempt whose time is up)."""
    finalized = result is not None if finalized is None else finalized
    shown = [attempt_item_view(item) for item in items]
    return AttemptView(
        id=attempt.pk,
        module=module_slug,
        module_title=module_title,
        number=attempt.number,
        mode=mode_name(attempt.certifying),
        started_at=attempt.started_at,
        deadline_at=attempt.deadline_at,
        # The deadline was set from the policy's limit plus the learner's extra time.
        time_limit_minutes=int((attempt.deadline_at - attempt.started_at).total_seconds() // 60),
        seconds_left=0 if finalized else seconds_left(deadline_at=attempt.deadline_at, now=now),
        finalized=finalized,
        item_count=len(items),
        answered_count=sum(1 for item in shown if item.answered),
        items=shown,
        result=result,
    )


def exam_attempt_get(
    *,
    learner_id: int,
    attempt_id: int,
    now: datetime.datetime | None = None,
    time_up: bool = False,
) -> AttemptView:
    """One of the learner's attempts with its items and answers (another's: 404), and its
    result once finalized. With ``time_up`` (the result page), once time is up also the result
    the periodic task will store, computed here and written nowhere."""
    now = now or timezone.now()
    attempt = (
        ExamAttempt.objects.filter(pk=attempt_id, learner_id=learner_id)
        .select_related("policy", "result")
        # The learner's extra attempts: the review's "after the last attempt" counts them.
        .annotate(
            module_slug=F("module__slug"),
            module_title=F("module__title"),
            **accommodation_subqueries(
                learner_id=OuterRef("learner_id"), module_id=OuterRef("module_id")
            ),
        )
        .prefetch_related(Prefetch("items", ExamAttemptItem.objects.order_by("position")))
        .first()
    )
    if attempt is None:
        raise NotFound(_("There is no such exam attempt."), code="attempt_not_found")
    items = list(attempt.items.all())
    finalized = attempt_is_finalized(attempt)
    result = None
    if finalized or (time_up and seconds_left(deadline_at=attempt.deadline_at, now=now) == 0):
        rows, certificate_code = learner_attempts(
            learner_id=learner_id, module_id=attempt.module_id
        )
        this = learner_attempt(attempt)
        attempts = [learner_attempt(row) for row in rows]
        graded_items = [graded_item(item) for item in items]
        if not finalized:
            graded = attempt_grade(
                items=graded_items,
                pass_mark_percent=attempt.pass_mark_percent,
                reason=EXPIRED,
                at=now,
            )
            this = dataclasses.replace(this, result=graded.result)
            attempts = attempts_with_result(attempts, attempt_id=this.id, result=graded.result)
            graded_items = graded.items
        result = attempt_result_view(
            attempt=this,
            policy=attempt_policy(attempt.policy, extra_attempts=attempt.extra_attempts),
            items=graded_items,
            attempts=attempts,
            certificate_code=certificate_code,
        )
    return attempt_view(
        attempt=attempt,
        module_slug=attempt.module_slug,
        items=items,
        result=result,
        now=now,
        finalized=finalized,
        module_title=attempt.module_title,
    )


def exam_overview(
    *,
    learner_id: int,
    module_slug: str,
    full_name_given: bool,
    now: datetime.datetime | None = None,
    completed_step_ids: frozenset[int] | None = None,
) -> ExamOverview:
    """The module's exam for the learner: policy, mode, limits, eligibility, attempts, grade.
    ``completed_step_ids`` from a caller that has them saves two queries."""
    now = now or timezone.now()
    outline = courses_api.module_outline(module_slug)
    setup = learner_exam_setup(learner_id=learner_id, module_id=outline.id)
    policy = setup.policy
    attempts, certificate_code = learner_attempts(learner_id=learner_id, module_id=outline.id)
    enrolled = completed_step_ids is not None or progress_api.enrollment_exists(
        learner_id=learner_id, module_id=outline.id
    )
    grade, passed = final_score(policy=policy, attempts=attempts)
    eligibility = learner_eligibility(
        learner_id=learner_id,
        outline=outline,
        setup=setup,
        certifying=setup.certifying,
        attempts=attempts,
        enrolled=enrolled,
        final_passed=passed,
        full_name_given=full_name_given,
        now=now,
        completed_step_ids=completed_step_ids,
    )
    in_progress = next((a for a in attempts if not attempt_is_finalized(a)), None)
    return ExamOverview(
        module=outline.slug,
        title=outline.title,
        mode=mode_name(setup.certifying),
        policy=policy_view(policy),
        limits=setup.limits,
        eligibility=eligibility,
        attempt_in_progress=in_progress.pk if in_progress else None,
        attempts=[attempt_summary(a) for a in attempts],
        final_grade=FinalGrade(
            grading_method=policy.grading_method, score_percent=grade, passed=passed
        ),
        certificate=_certificate_link(certificate_code),
    )


def attempt_study_plan(
    *,
    learner_id: int,
    attempt: AttemptView,
    full_name_given: bool,
    now: datetime.datetime | None = None,
) -> StudyPlan:
    """What to study after ``attempt`` (a finalized one, from ``exam_attempt_get``): the steps
    its questions came from with the due cards of each, and when the next attempt opens.

    Which answers were wrong is shown only where the review policy reveals correctness
    (``attempt.result.items``); otherwise every step asked is named, none as missed. Items of
    an authored bank may have no step: they are counted, not named.
    """
    now = now or timezone.now()
    reviewed = attempt.result.items if attempt.result else None
    wrong = {entry.id for entry in reviewed or () if not entry.is_correct}
    step_of = dict(
        ExamAttemptItem.objects.filter(
            attempt_id=attempt.id, attempt__learner_id=learner_id
        ).values_list("id", "item__step_id")
    )
    steps = courses_api.steps_by_ids({step for step in step_of.values() if step})
    due = reviews_api.due_cards_by_step(learner_id=learner_id, step_ids=steps, at=now)
    asked: dict[int, int] = {}
    missed: dict[int, int] = {}
    for item_id, step_id in step_of.items():
        key = step_id if step_id in steps else 0
        asked[key] = asked.get(key, 0) + 1
        missed[key] = missed.get(key, 0) + (item_id in wrong)
    reveals = reviewed is not None
    shown = [
        StudyStep(
            id=step_id,
            number=steps[step_id].number,
            term=steps[step_id].term,
            is_active=steps[step_id].is_active,
            asked=count,
            missed=missed[step_id] if reveals else None,
            due_cards=due.get(step_id, 0),
        )
        for step_id, count in asked.items()
        if step_id and (not reveals or missed[step_id])
    ]
    shown.sort(key=lambda s: (-(s.missed or 0), -s.due_cards, s.number))
    overview = exam_overview(
        learner_id=learner_id,
        module_slug=attempt.module,
        full_name_given=full_name_given,
        now=now,
    )
    eligibility = overview.eligibility
    return StudyPlan(
        reveals_missed=reveals,
        steps=shown,
        items_without_step=asked.get(0, 0),
        missed_without_step=missed.get(0, 0) if reveals else None,
        due_cards=sum(s.due_cards for s in shown),
        attempts_left=eligibility.attempts_left,
        next_attempt_at=eligibility.available_at,
        can_start=eligibility.can_start,
    )


# --- quick checks -----------------------------------------------------------------------------


def quick_check_ratings_for_step(
    *, learner_id: int, module_slug: str, step_number: int
) -> list[StepQuickCheck]:
    """The step's quick checks in order, each with the learner's latest rating (or none)."""
    step = courses_api.step_by_number(module_slug, step_number)
    quick_checks = courses_api.step_quick_checks(step.id)
    ratings = {
        row.quick_check_id: row
        for row in QuickCheckRating.objects.filter(
            learner_id=learner_id, quick_check_id__in=[qc.id for qc in quick_checks]
        )
    }
    return [
        StepQuickCheck(
            id=qc.id,
            position=position,
            question=qc.question,
            answer=qc.answer,
            role=qc.role,
            takes_rating=not qc.is_reflection_prompt,
            rating=ratings[qc.id].rating if qc.id in ratings else None,
            rated_at=ratings[qc.id].updated_at if qc.id in ratings else None,
            times_rated=ratings[qc.id].times_rated if qc.id in ratings else 0,
        )
        for position, qc in enumerate(quick_checks, start=1)
    ]


def _ratings(*, learner_id: int, quick_check_ids: Iterable[int]) -> QuerySet[QuickCheckRating]:
    return QuickCheckRating.objects.filter(
        learner_id=learner_id, quick_check_id__in=list(quick_check_ids)
    )


def quick_check_ratings_get(*, learner_id: int, quick_check_ids: Iterable[int]) -> dict[int, str]:
    """The learner's latest rating per quick check (unrated ones left out), for a page that
    already has the step's quick checks (the step reader): one query."""
    rows = _ratings(learner_id=learner_id, quick_check_ids=quick_check_ids)
    return dict(rows.values_list("quick_check_id", "rating"))


# --- certificates -----------------------------------------------------------------------------


def certificate_list(*, learner_id: int) -> QuerySet[Certificate]:
    """The learner's certificates, newest first. A queryset: the API's paginator counts and
    slices it in the database; ``certificates_view`` turns a page into ``CertificateView``."""
    return Certificate.objects.filter(learner_id=learner_id).order_by("-issued_at", "-id")


def certificates_view(certificates: Sequence[Certificate]) -> list[CertificateView]:
    """Certificates with their module: one query for all the modules."""
    modules = courses_api.modules_by_ids({c.module_id for c in certificates})
    return [
        CertificateView(
            code=c.code,
            url=certificate_url(c.code),
            module=modules[c.module_id].slug,
            module_title=modules[c.module_id].title,
            learner_name=c.learner_name,
            score_percent=c.score_percent,
            issued_at=c.issued_at,
            revoked_at=c.revoked_at,
        )
        for c in certificates
    ]


def _certificate_view(**filters: Any) -> CertificateView | None:
    certificate = Certificate.objects.filter(**filters).first()
    return certificates_view([certificate])[0] if certificate else None


def certificate_by_code(*, code: str) -> CertificateView | None:
    """The public facts of a certificate, valid or revoked (None for an unknown code)."""
    return _certificate_view(code=code)


def certificate_valid_by_code(*, code: str) -> CertificateView | None:
    """The valid certificate with this code; None for an unknown or a revoked code alike."""
    return _certificate_view(code=code, revoked_at__isnull=True)


def learner_certificate(*, learner_id: int, code: str) -> CertificateView | None:
    """The learner's own certificate with this code (None for anyone else's or an unknown one)."""
    return _certificate_view(learner_id=learner_id, code=code)


def learner_certificate_pdf(*, learner_id: int, code: str, time_zone: str) -> CertificatePdf:
    """The learner's own valid certificate as a PDF in the active language, its date in
    ``time_zone``; NotFound for another learner's, a revoked or an unknown code. Two queries."""
    certificate = learner_certificate(learner_id=learner_id, code=code)
    if certificate is None or not certificate.is_valid:
        raise NotFound(_("You have no valid certificate with this code."), code="not_found")
    return CertificatePdf(
        filename=f"lernpfad-certificate-{certificate.module}.pdf",
        content=certificate_pdf(certificate, time_zone=time_zone),
    )


# --- the admin's reports ----------------------------------------------------------------------


@dataclass(frozen=True)
class BankState:
    """A module's bank as the exam sees it: approved items against the items an attempt draws."""

    module_id: int
    approved: int
    drafts: int
    items_per_attempt: int

    @property
    def certifying(self) -> bool:
        return self.approved >= self.items_per_attempt


def exam_bank_states(*, module_ids: Iterable[int]) -> list[BankState]:
    """Per module: approved and draft items that attempts may draw, and the items an attempt
    needs (the policy's, or the default before the policy exists). Two queries."""
    module_ids = sorted(set(module_ids))
    counts = {
        row["module_id"]: row
        for row in ExamItem.objects.filter(module_id__in=module_ids)
        .drawable()
        .values("module_id")
        .annotate(
            approved=Count("id", filter=Q(status=ExamItem.Status.APPROVED)),
            drafts=Count("id", filter=Q(status=ExamItem.Status.DRAFT)),
        )
    }
    needed = dict(
        ExamPolicy.objects.filter(module_id__in=module_ids).values_list(
            "module_id", "items_per_attempt"
        )
    )
    default = ExamPolicy._meta.get_field("items_per_attempt").default
    return [
        BankState(
            module_id=module_id,
            approved=counts.get(module_id, {}).get("approved", 0),
            drafts=counts.get(module_id, {}).get("drafts", 0),
            items_per_attempt=needed.get(module_id, default),
        )
        for module_id in module_ids
    ]


def grades_rows(*, module_ids: Iterable[int] | None = None) -> list[GradesRow]:
    """One row per learner and module with finalized certifying attempts: the grades export."""
    # Practice attempts are no grades: only certifying attempts are listed and counted.
    attempts = ExamAttempt.objects.filter(result__isnull=False, certifying=True).select_related(
        "result", "learner", "policy"
    )
    if module_ids is not None:
        attempts = attempts.filter(module_id__in=list(module_ids))
    by_learner: dict[tuple[int, int], list[ExamAttempt]] = {}
    for attempt in attempts.order_by("module_id", "learner_id", "number"):
        by_learner.setdefault((attempt.module_id, attempt.learner_id), []).append(attempt)
    certificates = {
        (c.module_id, c.learner_id): c.code
        for c in Certificate.objects.filter(module_id__in={key[0] for key in by_learner}).only(
            "module_id", "learner_id", "code"
        )
    }
    modules = courses_api.modules_by_ids({key[0] for key in by_learner})
    rows = []
    for (module_id, learner_id), learner_attempt_list in by_learner.items():
        last = learner_attempt_list[-1]
        grade, passed = final_score(policy=last.policy, attempts=learner_attempt_list)
        rows.append(
            GradesRow(
                module=modules[module_id].slug,
                username=last.learner.username,
                name=accounts_api.certificate_name(last.learner),
                email=last.learner.email,
                attempts=len(learner_attempt_list),
                scores=tuple(a.result.score_percent for a in learner_attempt_list),
                grading_method=last.policy.grading_method,
                final_grade=grade,
                passed=passed,
                last_finalized_at=last.result.finalized_at,
                certificate_issued=(module_id, learner_id) in certificates,
            )
        )
    return rows


def item_analysis(*, module_id: int) -> ItemAnalysis:
    """Moodle's item analysis of the certifying exam (quizzes.item_analysis) from each learner's
    first finalized certifying attempt, erased learners' kept answers included; per item also
    the figures of the attempts that drew it as it reads now and of those that drew an earlier
    version, side by side."""
    attempts: list[AttemptMarks] = []
    drawn_versions: list[dict[int, tuple]] = []
    # DISTINCT ON (learner): each learner's lowest-numbered finalized certifying attempt.
    first = (
        ExamAttempt.objects.filter(module_id=module_id, certifying=True, result__isnull=False)
        .order_by("learner_id", "number")
        .distinct("learner_id")
        .values("pk")
    )
    attempt_items = (
        # Items deleted from the bank since are left out, as for erased learners' answers.
        ExamAttemptItem.objects.filter(attempt_id__in=first, item__isnull=False)
        .order_by("attempt_id", "position")
        .values_list(
            "attempt_id",
            "item_id",
            "is_correct",
            "kind",
            "prompt",
            "options",
            "correct_keys",
            "choices",
            "answer_key",
        )
    )
    by_attempt: dict[int, list[tuple]] = defaultdict(list)
    for row in attempt_items:
        by_attempt[row[0]].append(row)
    for rows in by_attempt.values():
        attempts.append(
            AttemptMarks(
                items=tuple(row[1] for row in rows),
                marks=tuple(1.0 if row[2] else 0.0 for row in rows),
            )
        )
        drawn_versions.append(
            {
                row[1]: attempt_version(
                    kind=row[3],
                    prompt=row[4],
                    options=row[5] or [],
                    correct_keys=row[6] or [],
                    choices=row[7],
                    answer_key=row[8],
                )
                for row in rows
            }
        )
    # Erased learners' kept answers, in the order shown (answers kept before positions were:
    # by item id).
    archived: dict[tuple, list[tuple[int, bool]]] = defaultdict(list)
    for respondent, number, item_id, correct in (
        ArchivedItemResponse.objects.filter(module_id=module_id)
        .order_by("respondent", "attempt_number", "position", "item_id")
        .values_list("respondent", "attempt_number", "item_id", "is_correct")
    ):
        archived[(respondent, number)].append((item_id, correct))
    first_number: dict = {}
    for respondent, number in archived:
        first_number.setdefault(respondent, number)
    for respondent, number in first_number.items():
        answers = archived[(respondent, number)]
        attempts.append(
            AttemptMarks(
                items=tuple(item for item, _ in answers),
                marks=tuple(1.0 if correct else 0.0 for _, correct in answers),
            )
        )
    items = list(ExamItem.objects.filter(module_id=module_id).order_by("step_id", "id"))
    current: dict[int, set[int]] = defaultdict(set)
    earlier: dict[int, set[int]] = defaultdict(set)
    for item in items:
        version = bank_version(
            kind=item.kind,
            prompt=item.prompt,
            options=item.options or [],
            correct_keys=item.correct_keys or [],
            answer_key=item.answer_key or {},
        )
        for index, versions in enumerate(drawn_versions):
            if item.pk in versions:
                (current if versions[item.pk] == version else earlier)[item.pk].add(index)
    overall = item_figures(attempts)
    now = item_figures(attempts, only=current)
    before = item_figures(attempts, only=earlier)
    steps = courses_api.steps_by_ids({item.step_id for item in items if item.step_id})
    return ItemAnalysis(
        exam=exam_figures(attempts),
        rows=[
            ItemAnalysisRow(
                id=item.pk,
                step=steps[item.step_id].number if item.step_id in steps else None,
                kind=item.kind,
                origin=item.origin,
                status=item.status,
                is_active=item.is_active and not item.is_retired,
                prompt=item.prompt,
                figures=overall.get(item.pk),
                current=now.get(item.pk),
                earlier=before.get(item.pk),
            )
            for item in items
        ],
    )


def lookup_risk_ids(*, module_id: int) -> set[int]:
    """The module's bank items that the look-up solver (quizzes.lookup_solver) answers right
    from the public course text alone, cached until the text or an item changes."""
    slug = courses_api.modules_by_ids([module_id])[module_id].slug
    texts = courses_api.module_public_text(slug)
    items = ExamItem.objects.filter(module_id=module_id)
    stamp = items.aggregate(changed=Max("updated_at"), count=Count("id"))
    digest = hashlib.sha256(repr((texts, stamp)).encode()).hexdigest()

    def read() -> set[int]:
        passages = course_passages(texts)
        return {
            item.pk
            for item in items
            if answers_right(
                kind=item.kind,
                prompt=item.prompt,
                options=item.options or [],
                correct_keys=item.correct_keys or [],
                answer_key=item.answer_key or {},
                passages=passages,
            )
        }

    return cache.get_or_set(f"quizzes:lookup-risk:{module_id}:{digest}", read, 24 * 3600)


# --- the item bank in GIFT (quizzes/gift.py) ------------------------------------------------


def gift_items(items: QuerySet[ExamItem]) -> list[GiftItem]:
    """Bank items as the GIFT writer takes them, each with its step's slug (one query)."""
    return [
        GiftItem(
            kind=item.kind,
            prompt=item.prompt,
            options=list(item.options or []),
            correct_keys=list(item.correct_keys or []),
            answer_key=dict(item.answer_key or {}),
            explanation=item.explanation,
            title=item.title,
            text_format=item.text_format,
            answer_feedback=dict(item.answer_feedback or {}),
            category=item.category,
            comment=item.gift_comment,
            step=item.step.slug if item.step_id else "",
        )
        for item in items.select_related("step")
    ]


def item_bank_gift(*, module_id: int | None = None, item_ids: Iterable[int] | None = None) -> str:
    """A GIFT file of the module's drawable bank (active, not retired), or of the chosen
    items, oldest first: what an import into another module (or Moodle) reads back. One query."""
    items = ExamItem.objects.order_by("id")
    if item_ids is not None:
        items = items.filter(pk__in=list(item_ids))
    else:
        items = items.filter(module_id=module_id, is_active=True, is_retired=False)
    return gift_write(gift_items(items))


# --- the course admin's views: the enrollments' exam column, the module dashboard -------------


@dataclass(frozen=True)
class LearnerExamSummary:
    """One learner's exam in one module: attempts, best score, passed, a valid certificate."""

    attempts: int
    best_score: Decimal | None
    passed: bool
    certificate_code: str | None
    certificate_issued_at: datetime.datetime | None


def learner_exam_summaries(
    pairs: Iterable[tuple[int, int]],
) -> dict[tuple[int, int], LearnerExamSummary]:
    """By ``(learner_id, module_id)``: the summary of each pair that has an attempt. 3 queries
    however many pairs (attempts, results and certificates of the pairs' learners)."""
    pairs = set(pairs)
    learner_ids = {learner for learner, _module in pairs}
    module_ids = {module for _learner, module in pairs}
    scope = {"learner_id__in": learner_ids, "module_id__in": module_ids}
    attempts = {
        (row["learner_id"], row["module_id"]): row["n"]
        for row in ExamAttempt.objects.filter(**scope)
        .order_by()
        .values("learner_id", "module_id")
        .annotate(n=Count("id"))
    }
    results = {
        (row["learner_id"], row["module_id"]): row
        for row in ExamResult.objects.filter(**scope)
        .order_by()
        .values("learner_id", "module_id")
        .annotate(best=Max("score_percent"), passed=Count("id", filter=Q(passed=True)))
    }
    certificates = {
        (row.learner_id, row.module_id): row
        for row in Certificate.objects.filter(revoked_at__isnull=True, **scope).only(
            "learner_id", "module_id", "code", "issued_at"
        )
    }
    summaries = {}
    for pair in pairs:
        if pair not in attempts:
            continue
        result = results.get(pair)
        certificate = certificates.get(pair)
        summaries[pair] = LearnerExamSummary(
            attempts=attempts[pair],
            best_score=result["best"] if result else None,
            passed=bool(result and result["passed"]),
            certificate_code=certificate.code if certificate else None,
            certificate_issued_at=certificate.issued_at if certificate else None,
        )
    return summaries


@dataclass(frozen=True)
class ModuleExamStats:
    """A module's exam at a glance (the course dashboard)."""

    attempts: int
    finalized: int
    learners: int
    learners_passed: int
    # Finalized attempts by score, in tens: 0–9, 10–19, … 90–100 (100 falls into the last).
    score_histogram: tuple[int, ...]
    certificates: int

    @property
    def pass_rate(self) -> float | None:
        """Share of the learners with a finalized attempt who passed."""
        return self.learners_passed / self.learners if self.learners else None


def module_exam_stats(*, module_id: int) -> ModuleExamStats:
    """Attempts, pass rate, score histogram and valid certificates of a module: 3 queries."""
    attempts = ExamAttempt.objects.filter(module_id=module_id).count()
    results = ExamResult.objects.filter(module_id=module_id)
    histogram = [0] * 10
    learners: dict[int, bool] = {}
    for learner_id, score, passed in results.values_list("learner_id", "score_percent", "passed"):
        histogram[min(int(score // 10), 9)] += 1
        learners[learner_id] = learners.get(learner_id, False) or passed
    return ModuleExamStats(
        attempts=attempts,
        finalized=sum(histogram),
        learners=len(learners),
        learners_passed=sum(learners.values()),
        score_histogram=tuple(histogram),
        certificates=Certificate.objects.filter(
            module_id=module_id, revoked_at__isnull=True
        ).count(),
    )


# --- regrading an item after its key was corrected (quizzes/regrade.py) -----------------------


@dataclass(frozen=True)
class AttemptRegradePlan:
    """One attempt that drew the item: its copy's key and its result, before and after."""

    attempt_id: int
    attempt_item_id: int
    number: int
    certifying: bool
    key: ShownKey
    correct_before: bool | None
    correct_after: bool | None
    result_before: AttemptResult | None
    result_after: AttemptResult | None


@dataclass(frozen=True)
class LearnerRegradePlan:
    """One learner's changed attempts, final grade before and after, and the certificate."""

    learner_id: int
    learner_name: str
    module_id: int
    attempts: list[AttemptRegradePlan]
    grade_before: Decimal | None
    grade_after: Decimal | None
    passed_before: bool
    passed_after: bool
    certificate_id: int | None
    certificate_action: str
    # The attempt an issued certificate names: the one at which the learner passed.
    passing_attempt_id: int | None


@dataclass(frozen=True)
class RegradePlan:
    """What regrading a bank item would change (Moodle's dry run); the service writes it."""

    item_id: int
    prompt: str
    key: dict
    attempts_drawn: int
    in_progress: int
    # (learner name, attempt number) of attempts whose copy no longer matches the item's
    # options: left as they are.
    skipped: list[tuple[str, int]]
    learners: list[LearnerRegradePlan]

    @property
    def changed(self) -> bool:
        return bool(self.learners)


def _regraded_result(attempt: ExamAttempt, items: list[GradedItem]) -> AttemptResult:
    result = attempt.result
    return attempt_grade(
        items=items,
        pass_mark_percent=attempt.pass_mark_percent,
        reason=result.reason,
        at=result.finalized_at,
    ).result


def item_regrade_plan(*, item_id: int) -> RegradePlan:
    """Every attempt that drew the bank item, regraded with the item's current key, and per
    learner the final grade and certificate before and after; attempts whose key already
    matches are left out, so a plan after its own regrade is empty. A fixed number of
    queries however many attempts."""
    item = ExamItem.objects.filter(pk=item_id).first()
    if item is None:
        raise NotFound(_("There is no such exam item."), code="item_not_found")
    drawn = list(ExamAttemptItem.objects.filter(item_id=item_id).select_related("attempt__result"))
    changed: dict[int, tuple[ExamAttemptItem, ShownKey]] = {}
    skipped, in_progress = [], 0
    for row in drawn:
        key = attempt_item_key(
            kind=row.kind,
            bank_kind=item.kind,
            bank_options=item.options,
            bank_correct_keys=item.correct_keys,
            bank_answer_key=item.answer_key,
            shown_options=row.options,
            shown_choices=row.choices,
        )
        if key is None:
            skipped.append((row.attempt.learner_id, row.attempt.number))
        elif key.correct_keys != row.correct_keys or (key.answer_key or None) != (
            row.answer_key or None
        ):
            changed[row.attempt_id] = (row, key)
            in_progress += not attempt_is_finalized(row.attempt)
    pairs = {(row.attempt.learner_id, row.attempt.module_id) for row, _key in changed.values()}
    names = accounts_api.certificate_names(
        {learner for learner, _module in pairs} | {learner for learner, _n in skipped}
    )
    skipped = [(names.get(learner, "?"), number) for learner, number in sorted(skipped)]
    learners = _learner_regrade_plans(pairs=pairs, changed=changed, names=names)
    return RegradePlan(
        item_id=item.pk,
        prompt=item.prompt,
        key={"correct_keys": item.correct_keys, "answer_key": item.answer_key},
        attempts_drawn=len(drawn),
        in_progress=in_progress,
        skipped=skipped,
        learners=learners,
    )


def _learner_regrade_plans(
    *,
    pairs: set[tuple[int, int]],
    changed: dict[int, tuple[ExamAttemptItem, ShownKey]],
    names: dict[int, str],
) -> list[LearnerRegradePlan]:
    if not pairs:
        return []
    learner_ids = {learner for learner, _module in pairs}
    module_ids = {module for _learner, module in pairs}
    attempts = (
        ExamAttempt.objects.filter(learner_id__in=learner_ids, module_id__in=module_ids)
        .select_related("result", "policy")
        .order_by("learner_id", "module_id", "number")
    )
    by_pair: dict[tuple[int, int], list[ExamAttempt]] = {}
    for attempt in attempts:
        by_pair.setdefault((attempt.learner_id, attempt.module_id), []).append(attempt)
    items_by_attempt: dict[int, list[ExamAttemptItem]] = {}
    for row in ExamAttemptItem.objects.filter(attempt_id__in=list(changed)).order_by(
        "attempt_id", "position"
    ):
        items_by_attempt.setdefault(row.attempt_id, []).append(row)
    certificates = {
        (c.learner_id, c.module_id): c
        for c in Certificate.objects.filter(learner_id__in=learner_ids, module_id__in=module_ids)
    }
    revoked_by_regrade = set(
        ExamRegradeLearner.objects.filter(
            certificate__in=[c for c in certificates.values() if c.revoked_at],
            certificate_action=ExamRegradeLearner.CertificateAction.REVOKED,
            regrade__performed_at=F("certificate__revoked_at"),
        ).values_list("certificate_id", flat=True)
    )
    plans = []
    for pair in sorted(pairs):
        learner_id, module_id = pair
        own = by_pair[pair]
        before = [learner_attempt(attempt) for attempt in own]
        after = list(before)
        attempt_plans = []
        for index, attempt in enumerate(own):
            if attempt.pk not in changed:
                continue
            row, key = changed[attempt.pk]
            items = [
                dataclasses.replace(
                    graded_item(item), correct_keys=key.correct_keys, answer_key=key.answer_key
                )
                if item.pk == row.pk
                else graded_item(item)
                for item in items_by_attempt[attempt.pk]
            ]
            result_after = None
            correct_after = None
            if attempt_is_finalized(attempt):
                result_after = _regraded_result(attempt, items)
                after[index] = dataclasses.replace(before[index], result=result_after)
                correct_after = item_is_correct(
                    kind=row.kind,
                    correct_keys=key.correct_keys,
                    answer_key=key.answer_key,
                    selected_keys=row.selected_keys,
                    answer_text=row.answer_text,
                    answer_pairs=row.answer_pairs,
                )
            attempt_plans.append(
                AttemptRegradePlan(
                    attempt_id=attempt.pk,
                    attempt_item_id=row.pk,
                    number=attempt.number,
                    certifying=attempt.certifying,
                    key=key,
                    correct_before=row.is_correct,
                    correct_after=correct_after,
                    result_before=before[index].result,
                    result_after=result_after,
                )
            )
        policy = own[-1].policy
        grade_before, passed_before = final_score(policy=policy, attempts=before)
        grade_after, passed_after = final_score(policy=policy, attempts=after)
        certificate = certificates.get(pair)
        plans.append(
            LearnerRegradePlan(
                learner_id=learner_id,
                learner_name=names.get(learner_id, "?"),
                module_id=module_id,
                attempts=attempt_plans,
                grade_before=grade_before,
                grade_after=grade_after,
                passed_before=passed_before,
                passed_after=passed_after,
                certificate_id=certificate.pk if certificate else None,
                certificate_action=certificate_action(
                    passed_before=passed_before,
                    passed_after=passed_after,
                    grade_before=grade_before,
                    grade_after=grade_after,
                    has_certificate=certificate is not None,
                    certificate_valid=certificate is not None and certificate.revoked_at is None,
                    revoked_by_regrade=certificate is not None
                    and certificate.pk in revoked_by_regrade,
                ),
                passing_attempt_id=_passing_attempt_id(policy, after),
            )
        )
    return plans


def _passing_attempt_id(policy, attempts: Sequence[LearnerAttempt]) -> int | None:
    """The first attempt after which the learner's final grade passes (the attempt whose
    finalizing would have issued the certificate)."""
    for index, attempt in enumerate(attempts):
        if not (attempt.certifying and attempt_is_finalized(attempt)):
            continue
        _grade, passed = final_score(policy=policy, attempts=attempts[: index + 1])
        if passed:
            return attempt.id
    return None


# --- the course admin's review of one attempt, question by question -------------------------


@dataclass(frozen=True)
class ReviewedOption:
    """An option (or, for matching, an option with the choice given and the right one)."""

    key: str
    text: str
    chosen: bool = False
    correct: bool = False
    # Matching only: the text of the choice the learner paired it with, and the right one.
    given: str | None = None
    right: str | None = None


@dataclass(frozen=True)
class ReviewedQuestion:
    """One question of an attempt as the learner saw it (options in the order shown), their
    answer, the key and whether it was right."""

    position: int
    kind: str
    prompt: str
    item_id: int | None
    options: list[ReviewedOption]
    answer_text: str | None
    accepted: list[str]
    answered: bool
    is_correct: bool | None
    explanation: str


@dataclass(frozen=True)
class AttemptAdminReview:
    """An attempt as the course admin reviews it: the figures, the conditions, the questions."""

    attempt: ExamAttempt
    learner_name: str
    result: ExamResult | None
    time_allowed_minutes: int
    # The learner's accommodation in the module as it stands (None: none).
    accommodation: ExamAccommodation | None
    duration: datetime.timedelta | None
    questions: list[ReviewedQuestion]

    @property
    def duration_minutes_seconds(self) -> tuple[int, int] | None:
        """The time taken as (whole minutes, seconds), as the page states it."""
        if self.duration is None:
            return None
        return divmod(int(self.duration.total_seconds()), 60)


def attempt_admin_review(*, attempt_id: int) -> AttemptAdminReview:
    """The attempt with its result, learner, module, policy, accommodation and questions in
    three queries."""
    attempt = (
        ExamAttempt.objects.select_related("learner", "module", "policy", "result")
        .filter(pk=attempt_id)
        .first()
    )
    if attempt is None:
        raise NotFound(_("There is no such exam attempt."), code="attempt_not_found")
    result = attempt.result if attempt_is_finalized(attempt) else None
    accommodation = ExamAccommodation.objects.filter(
        learner_id=attempt.learner_id, module_id=attempt.module_id
    ).first()
    duration = None
    if result is not None:
        duration = min(result.finalized_at, attempt.deadline_at) - attempt.started_at
    return AttemptAdminReview(
        attempt=attempt,
        learner_name=accounts_api.certificate_name(attempt.learner),
        result=result,
        time_allowed_minutes=int((attempt.deadline_at - attempt.started_at).total_seconds() // 60),
        accommodation=accommodation,
        duration=duration,
        questions=[_reviewed_question(item) for item in attempt.items.order_by("position")],
    )


def _reviewed_question(item: ExamAttemptItem) -> ReviewedQuestion:
    selected = set(item.selected_keys or [])
    correct = set(item.correct_keys or [])
    if item.kind == MATCHING:
        choices = {choice["key"]: choice["text"] for choice in item.choices or []}
        given = item.answer_pairs or {}
        right = (item.answer_key or {}).get("pairs", {})
        options = [
            ReviewedOption(
                key=option["key"],
                text=option["text"],
                chosen=option["key"] in given,
                correct=given.get(option["key"]) == right.get(option["key"]),
                given=choices.get(given.get(option["key"])),
                right=choices.get(right.get(option["key"])),
            )
            for option in item.options
        ]
    else:
        options = [
            ReviewedOption(
                key=option["key"],
                text=option["text"],
                chosen=option["key"] in selected,
                correct=option["key"] in correct,
            )
            for option in item.options
        ]
    return ReviewedQuestion(
        position=item.position,
        kind=item.get_kind_display(),
        prompt=item.prompt,
        item_id=item.item_id,
        options=options,
        answer_text=item.answer_text if item.kind in (SHORT_ANSWER, NUMERICAL) else None,
        accepted=accepted_answers(kind=item.kind, answer_key=item.answer_key),
        answered=item_is_answered(
            kind=item.kind,
            option_count=len(item.options),
            selected_keys=item.selected_keys,
            answer_text=item.answer_text,
            answer_pairs=item.answer_pairs,
        ),
        is_correct=item.is_correct,
        explanation=item.explanation,
    )
