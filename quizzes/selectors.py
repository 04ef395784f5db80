"""Reads of the quizzes app, shaped for the API, the web pages and the admin.

Each read returns frozen dataclasses (the REST serializers and the templates read their
attributes), as the other apps' selectors do. What a learner sees of an attempt is decided here,
in one place (``attempt_result_view``): the correct keys, per-item correctness and explanations
leave the server only once the attempt is finalized and the review policy allows it.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Sequence
from decimal import Decimal

from django.conf import settings
from django.db.models import OuterRef, QuerySet, Subquery
from django.urls import reverse
from django.utils import timezone

from accounts import api as accounts_api
from courses import api as courses_api
from lms.errors import NotFound
from progress import api as progress_api
from quizzes.attempt_rules import (
    ANSWER_GRACE,
    EXPIRED,
    AttemptPolicy,
    AttemptResult,
    GradedItem,
    LearnerAttempt,
    attempt_grade,
    attempt_is_finalized,
    attempt_states,
    attempts_with_result,
    final_score,
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
    ItemStatisticsRow,
    Option,
    PolicyView,
    ResultView,
    ReviewInfo,
    ReviewItem,
    ReviewItemWithAnswers,
    StepQuickCheck,
)
from quizzes.eligibility import Eligibility, exam_eligibility
from quizzes.grading import (
    CORRECT_ANSWERS,
    CORRECTNESS,
    ItemResponse,
    item_statistics,
    review_level,
)
from quizzes.models import (
    ArchivedItemResponse,
    Certificate,
    ExamAttempt,
    ExamAttemptItem,
    ExamItem,
    ExamPolicy,
    ExamResult,
    QuickCheckRating,
)

# --- the exam ---------------------------------------------------------------------------------


def _attempt_result(result: ExamResult) -> AttemptResult:
    return AttemptResult(
        score_percent=result.score_percent,
        passed=result.passed,
        correct_count=result.correct_count,
        item_count=result.item_count,
        reason=result.reason,
        finalized_at=result.finalized_at,
    )


def _learner_attempt(attempt: ExamAttempt) -> LearnerAttempt:
    result = attempt.result if attempt_is_finalized(attempt) else None
    return LearnerAttempt(
        id=attempt.pk,
        number=attempt.number,
        result=None if result is None else _attempt_result(result),
    )


def _attempt_policy(policy: ExamPolicy) -> AttemptPolicy:
    return AttemptPolicy(
        grading_method=policy.grading_method,
        pass_mark_percent=policy.pass_mark_percent,
        max_attempts=policy.max_attempts,
        review_content=policy.review_content,
        review_timing=policy.review_timing,
    )


def _graded_item(item: ExamAttemptItem) -> GradedItem:
    return GradedItem(
        id=item.pk,
        position=item.position,
        correct_keys=item.correct_keys,
        selected_keys=item.selected_keys,
        explanation=item.explanation,
        is_correct=item.is_correct,
    )


def _learner_attempts(*, learner_id: int, module_id: int) -> tuple[list[ExamAttempt], str | None]:
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


def learner_eligibility(
    *,
    learner_id: int,
    module_id: int,
    policy: ExamPolicy,
    attempts: Sequence[ExamAttempt],
    enrolled: bool,
    final_passed: bool,
    full_name_given: bool,
    now: datetime.datetime,
) -> Eligibility:
    """Whether the learner may start an attempt of the module's exam now, and why not.

    One query (all steps completed?) when the policy requires every step, none otherwise.
    ``full_name_given``: the learner gave the name a certificate states
    (``accounts.api.certificate_name_given`` of the request's user: no query).
    """
    return exam_eligibility(
        now=now,
        enrolled=enrolled,
        steps_required=policy.requires_all_steps_completed,
        steps_completed=(
            progress_api.all_steps_completed(learner_id=learner_id, module_id=module_id)
            if policy.requires_all_steps_completed
            else True
        ),
        attempts=attempt_states(attempts),
        max_attempts=policy.max_attempts,
        wait=datetime.timedelta(minutes=policy.wait_between_attempts_minutes),
        final_passed=final_passed,
        # Every exam issues a certificate on passing.
        certifies=True,
        full_name_given=full_name_given,
    )


def _exam_policy_or_defaults(*, module_id: int) -> ExamPolicy:
    """The module's exam policy: its row, or (unsaved) the defaults that the first attempt or
    item generation saves. A read only: looking at an exam writes nothing."""
    return ExamPolicy.objects.filter(module_id=module_id).first() or ExamPolicy(module_id=module_id)


def certificate_url(code: str) -> str:
    # The public page's route is named in lms.urls: it is printed on certificates and in their
    # QR codes, so it never moves.
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
        answer_grace_seconds=int(ANSWER_GRACE.total_seconds()),
    )


def attempt_summary(attempt: ExamAttempt) -> AttemptSummary:
    result = attempt.result if attempt_is_finalized(attempt) else None
    return AttemptSummary(
        id=attempt.pk,
        number=attempt.number,
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
    }
    if with_answers:
        return ReviewItemWithAnswers(
            **shown, correct_keys=list(item.correct_keys), explanation=item.explanation
        )
    return ReviewItem(**shown)


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
    level = review_level(
        content=policy.review_content,
        timing=policy.review_timing,
        final_passed=final_passed,
        attempts_left=policy.max_attempts - len(attempts),
        attempt_in_progress=not all(attempt_is_finalized(a) for a in attempts),
    )
    review_items = None
    if level in (CORRECTNESS, CORRECT_ANSWERS):
        review_items = [_review_item(item, with_answers=level == CORRECT_ANSWERS) for item in items]
    return ResultView(
        attempt=attempt.id,
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
    return AttemptItemView(
        id=item.pk,
        position=item.position,
        kind=item.kind,
        prompt=item.prompt,
        options=[Option(key=o["key"], text=o["text"]) for o in item.options],
        selected_keys=item.selected_keys or [],
    )


def attempt_view(
    *,
    attempt: ExamAttempt,
    module_slug: str,
    items: Sequence[ExamAttemptItem],
    result: ResultView | None,
    now: datetime.datetime,
    finalized: bool | None = None,
) -> AttemptView:
    """The attempt as the learner answers it, with ``result`` once it is finalized (unless
    ``finalized`` says otherwise: the result page's view of an attempt whose time is up)."""
    finalized = result is not None if finalized is None else finalized
    return AttemptView(
        id=attempt.pk,
        module=module_slug,
        number=attempt.number,
        started_at=attempt.started_at,
        deadline_at=attempt.deadline_at,
        seconds_left=0 if finalized else seconds_left(deadline_at=attempt.deadline_at, now=now),
        finalized=finalized,
        item_count=len(items),
        answered_count=sum(1 for item in items if item.selected_keys),
        items=[attempt_item_view(item) for item in items],
        result=result,
    )


def exam_attempt_get(
    *, learner_id: int, attempt_id: int, now: datetime.datetime | None = None
) -> AttemptView:
    """One of the learner's attempts with its items and saved answers (another's: 404); its
    result once finalized. Three queries, four once finalized."""
    return _attempt_read(
        learner_id=learner_id, attempt_id=attempt_id, now=now or timezone.now(), time_up=False
    )


def exam_attempt_result_get(
    *, learner_id: int, attempt_id: int, now: datetime.datetime | None = None
) -> AttemptView:
    """``exam_attempt_get`` for the result page: once the attempt's time is up, with its result
    even before the periodic task has finalized it. That result is the one the task will store
    (the answers saved in time, reason expired), computed here from the same rule and written
    nowhere: looking at a result never writes. No result while time is left. Four queries."""
    return _attempt_read(
        learner_id=learner_id, attempt_id=attempt_id, now=now or timezone.now(), time_up=True
    )


def _attempt_read(
    *, learner_id: int, attempt_id: int, now: datetime.datetime, time_up: bool
) -> AttemptView:
    attempt = (
        ExamAttempt.objects.select_related("policy", "result")
        .filter(pk=attempt_id, learner_id=learner_id)
        .first()
    )
    if attempt is None:
        raise NotFound("There is no such exam attempt.", code="attempt_not_found")
    items = list(ExamAttemptItem.objects.filter(attempt_id=attempt.pk).order_by("position"))
    module = courses_api.modules_by_ids([attempt.module_id])[attempt.module_id]
    finalized = attempt_is_finalized(attempt)
    result = None
    if finalized or (time_up and seconds_left(deadline_at=attempt.deadline_at, now=now) == 0):
        rows, certificate_code = _learner_attempts(
            learner_id=learner_id, module_id=attempt.module_id
        )
        this = _learner_attempt(attempt)
        attempts = [_learner_attempt(row) for row in rows]
        graded_items = [_graded_item(item) for item in items]
        if not finalized:
            graded = attempt_grade(
                items=graded_items,
                pass_mark_percent=attempt.pass_mark_percent,
                reason=EXPIRED,
                at=now,
            )
            this = LearnerAttempt(id=this.id, number=this.number, result=graded.result)
            attempts = attempts_with_result(attempts, attempt_id=this.id, result=graded.result)
            graded_items = graded.items
        result = attempt_result_view(
            attempt=this,
            policy=_attempt_policy(attempt.policy),
            items=graded_items,
            attempts=attempts,
            certificate_code=certificate_code,
        )
    return attempt_view(
        attempt=attempt,
        module_slug=module.slug,
        items=items,
        result=result,
        now=now,
        finalized=finalized,
    )


def exam_overview(
    *,
    learner_id: int,
    module_slug: str,
    full_name_given: bool,
    now: datetime.datetime | None = None,
) -> ExamOverview:
    """The module's exam for the learner: policy, eligibility, attempts, final grade.
    ``full_name_given`` as ``learner_eligibility`` takes it."""
    now = now or timezone.now()
    module = courses_api.module_by_slug(module_slug)
    policy = _exam_policy_or_defaults(module_id=module.id)
    enrolled = progress_api.enrollment_exists(learner_id=learner_id, module_id=module.id)
    attempts, certificate_code = _learner_attempts(learner_id=learner_id, module_id=module.id)
    grade, passed = final_score(policy=policy, attempts=attempts)
    eligibility = learner_eligibility(
        learner_id=learner_id,
        module_id=module.id,
        policy=policy,
        attempts=attempts,
        enrolled=enrolled,
        final_passed=passed,
        full_name_given=full_name_given,
        now=now,
    )
    in_progress = next((a for a in attempts if not attempt_is_finalized(a)), None)
    return ExamOverview(
        module=module.slug,
        title=module.title,
        policy=policy_view(policy),
        eligibility=eligibility,
        attempt_in_progress=in_progress.pk if in_progress else None,
        attempts=[attempt_summary(a) for a in attempts],
        final_grade=FinalGrade(
            grading_method=policy.grading_method, score_percent=grade, passed=passed
        ),
        certificate=_certificate_link(certificate_code),
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


def certificate_by_code(*, code: str) -> CertificateView | None:
    """The public facts of a certificate, valid or revoked (None for an unknown code): what the
    public page shows a person. Two queries."""
    certificate = Certificate.objects.filter(code=code).first()
    if certificate is None:
        return None
    return certificates_view([certificate])[0]


def certificate_valid_by_code(*, code: str) -> CertificateView | None:
    """The certificate with this code if it is valid; None for an unknown or a revoked code
    alike, so the JSON verification cannot tell them apart. Two queries at most."""
    certificate = Certificate.objects.filter(code=code, revoked_at__isnull=True).first()
    if certificate is None:
        return None
    return certificates_view([certificate])[0]


def learner_certificate(*, learner_id: int, code: str) -> CertificateView | None:
    """The learner's own certificate with this code (None for anyone else's or an unknown one)."""
    certificate = Certificate.objects.filter(learner_id=learner_id, code=code).first()
    if certificate is None:
        return None
    return certificates_view([certificate])[0]


def learner_certificate_pdf(*, learner_id: int, code: str, time_zone: str) -> CertificatePdf:
    """The learner's own valid certificate as a PDF in the active language, its date in
    ``time_zone``; NotFound for another learner's, a revoked or an unknown code. Two queries."""
    certificate = learner_certificate(learner_id=learner_id, code=code)
    if certificate is None or not certificate.is_valid:
        raise NotFound("You have no valid certificate with this code.", code="not_found")
    return CertificatePdf(
        filename=f"lernpfad-certificate-{certificate.module}.pdf",
        content=certificate_pdf(certificate, time_zone=time_zone),
    )


# --- the admin's reports ----------------------------------------------------------------------


def grades_rows(*, module_ids: Iterable[int] | None = None) -> list[GradesRow]:
    """One row per learner and module with finalized attempts: the grades CSV export."""
    attempts = ExamAttempt.objects.filter(result__isnull=False).select_related(
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
                name=accounts_api.display_name(last.learner),
                email=last.learner.email,
                attempts=len(learner_attempt_list),
                scores=" ".join(str(a.result.score_percent) for a in learner_attempt_list),
                grading_method=last.policy.grading_method,
                final_grade=grade,
                passed=passed,
                last_finalized_at=last.result.finalized_at.isoformat(),
                certificate_issued=(module_id, learner_id) in certificates,
            )
        )
    return rows


def item_statistics_rows(*, module_id: int) -> list[ItemStatisticsRow]:
    """Per bank item: how often shown, share correct, discrimination index (finalized only)."""
    responses = [
        ItemResponse(
            item_id=row["item_id"],
            learner_id=row["attempt__learner_id"],
            attempt_number=row["attempt__number"],
            attempt_score=row["attempt__result__score_percent"] or Decimal(0),
            is_correct=bool(row["is_correct"]),
        )
        for row in ExamAttemptItem.objects.filter(
            attempt__module_id=module_id,
            attempt__result__isnull=False,
            item__isnull=False,
        ).values(
            "item_id",
            "is_correct",
            "attempt__learner_id",
            "attempt__number",
            "attempt__result__score_percent",
        )
    ]
    # Answers of learners who deleted their account, kept anonymously (quizzes.api.learner_erase):
    # each former learner gets a negative key of their own, so they still count once.
    respondents: dict = {}
    for row in ArchivedItemResponse.objects.filter(module_id=module_id).values(
        "item_id", "respondent", "attempt_number", "attempt_score", "is_correct"
    ):
        responses.append(
            ItemResponse(
                item_id=row["item_id"],
                learner_id=respondents.setdefault(row["respondent"], -1 - len(respondents)),
                attempt_number=row["attempt_number"],
                attempt_score=row["attempt_score"],
                is_correct=row["is_correct"],
            )
        )
    statistics = item_statistics(responses)
    items = ExamItem.objects.filter(module_id=module_id).order_by("step_id", "id")
    steps = courses_api.steps_by_ids({item.step_id for item in items if item.step_id})
    rows = []
    for item in items:
        stat = statistics.get(item.pk)
        rows.append(
            ItemStatisticsRow(
                id=item.pk,
                step=steps[item.step_id].number if item.step_id in steps else None,
                kind=item.kind,
                origin=item.origin,
                is_active=item.is_active and not item.is_retired,
                prompt=item.prompt,
                answered=stat.answered if stat else 0,
                correct_share=stat.correct_share if stat else None,
                discrimination=stat.discrimination if stat else None,
            )
        )
    return rows
