"""The one set of builders for test data: learners, enrollments, API clients.

Fixtures in the conftests are thin wrappers around these, so every test makes a learner the same
way (and the password a test logs in with is always ``learner_password(username)``).
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from rest_framework.test import APIClient


def learner_password(username: str) -> str:
    """The password ``learner_create`` gives a user (long and uncommon enough for the
    validators)."""
    return f"{username}-Lernpfad-Passwort-2026"


def learner_create(username: str = "lena", **fields: Any):
    """A learner row as ``create_user`` makes it (address ``<username>@example.org``); any
    field of the user may be given (``time_zone="Asia/Tokyo"``, ``is_staff=True`` …)."""
    fields.setdefault("email", f"{username}@example.org")
    fields.setdefault("password", learner_password(username))
    return get_user_model().objects.create_user(username=username, **fields)


def learner_register(username: str = "lena", *, confirmed: bool = True, **fields: Any):
    """A learner signed up through the accounts service, as the sign-up page and the API do
    (preferences validated), and, unless ``confirmed=False``, with the address confirmed
    through the link's service (so the account can log in and has its next reminder stored)."""
    from accounts.services import email_confirm, user_register
    from accounts.tokens import email_confirmation_token

    fields.setdefault("email", f"{username}@example.org")
    fields.setdefault("password", learner_password(username))
    user = user_register(username=username, **fields)
    if confirmed and user is not None:
        user = email_confirm(token=email_confirmation_token(user_id=user.pk, address=user.email))
    return user


def unsubscribe_token_for(learner) -> str:
    """The token of the unsubscribe link in a reminder e-mail sent to ``learner``: a sent
    digest row with its key, as ``reminder_digest_send`` leaves it (on a day of its own)."""
    import datetime

    from django.utils import timezone

    from reviews.models import ReminderDigest
    from reviews.services.reminder_unsubscribe import (
        reminder_unsubscribe_key,
        reminder_unsubscribe_token,
    )

    now = timezone.now()
    earlier = ReminderDigest.objects.filter(learner_id=learner.pk).count()
    key = reminder_unsubscribe_key()
    ReminderDigest.objects.create(
        learner_id=learner.pk,
        local_date=datetime.date(2001, 1, 1) + datetime.timedelta(days=earlier),
        status=ReminderDigest.Status.SENT,
        claimed_at=now,
        sent_at=now,
        unsubscribe_key=key,
    )
    return reminder_unsubscribe_token(key)


def enrollment_create(learner, module, *, at=None):
    """Enroll ``learner`` in ``module`` (a Module row) the way the service does: with a "not
    started" progress row per active step."""
    from progress.services.enrollment import enrollment_create as enroll

    enrollment, _ = enroll(learner_id=learner.pk, module_slug=module.slug)
    if at is not None:
        type(enrollment).objects.filter(pk=enrollment.pk).update(enrolled_at=at)
        enrollment.refresh_from_db()
    return enrollment


def api_client_for(user) -> APIClient:
    """An API client authenticated as ``user`` without a token (no auth queries, so query
    counts are the view's own)."""
    client = APIClient()
    client.force_authenticate(user)
    return client


def token_client(token: str) -> APIClient:
    """An API client that sends ``token`` as a mobile app does (``Authorization: Token …``)."""
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def steps_complete(learner, module, *, count: int | None = None, at=None) -> int:
    """Mark the first ``count`` (default: every) active steps of ``module`` completed for
    ``learner``, straight in the progress table, as completions recorded before the evidence rule
    stay (no review cards: for exam tests that need the completion gate open). Returns how many
    steps are completed afterwards. ``steps_complete_through_rules`` goes through the rule."""
    from django.utils import timezone

    from courses.models import Step
    from progress.models import StepProgress

    at = at or timezone.now()
    steps = list(Step.objects.active().filter(module=module).order_by("number"))
    chosen = [step.pk for step in (steps[:count] if count is not None else steps)]
    done = {
        "status": StepProgress.Status.COMPLETED,
        "completed_at": at,
        "status_changed_at": at,
        "last_event_at": at,
        "updated_at": at,
    }
    rows = StepProgress.objects.filter(learner=learner, step_id__in=chosen)
    existing = set(rows.values_list("step_id", flat=True))
    rows.update(**done)
    StepProgress.objects.bulk_create(
        StepProgress(learner=learner, step_id=step_id, **done)
        for step_id in chosen
        if step_id not in existing
    )
    return StepProgress.objects.filter(
        learner=learner, step__in=steps, status=StepProgress.Status.COMPLETED
    ).count()


def step_evidence_leave(learner, module_slug: str, number: int, *, at=None, quick_checks=True):
    """Leave on a step what completing it asks under the strictest rule, as a reader would: opened
    an hour before ``at`` (default now), every section seen, and (unless not) every rated quick
    check answered through the quizzes service. Returns the step's requirement."""
    import datetime

    from django.utils import timezone

    from progress.models import StepProgress
    from progress.selectors import requirement_of, with_completion_requirement
    from progress.services.step_events import step_event_record
    from quizzes.services.quick_checks import quick_check_rate

    start = (at or timezone.now()) - datetime.timedelta(hours=1)
    common = {"learner_id": learner.pk, "module_slug": module_slug, "number": number}
    step_event_record(**common, kind="opened", at=start)
    needed = requirement_of(
        with_completion_requirement(
            StepProgress.objects.filter(
                learner_id=learner.pk,
                step__module__slug=module_slug,
                step__number=number,
                step__status="active",
            )
        ).get()
    )
    for kind in needed.section_kinds:
        step_event_record(**common, kind="section_viewed", section=kind, at=start)
    if quick_checks:
        for quick_check_id in needed.quick_check_ids:
            quick_check_rate(
                learner_id=learner.pk,
                module_slug=module_slug,
                step_number=number,
                quick_check_id=quick_check_id,
                rating="knew",
                at=start,
            )
    return needed


def steps_complete_through_rules(
    learner, module_slug: str, *, count: int | None = None, at=None, numbers=None
):
    """Complete the first ``count`` (default: every) active steps, or those ``numbers``, through
    the completion rule (``step_evidence_leave``, then "completed" at ``at``), review cards and
    all. Returns how many steps were completed."""
    from django.utils import timezone

    from courses.models import Step
    from progress.services.step_events import step_event_record

    at = at or timezone.now()
    active = list(
        Step.objects.active()
        .filter(module__slug=module_slug)
        .order_by("number")
        .values_list("number", flat=True)
    )
    if numbers is not None:
        chosen = [number for number in active if number in set(numbers)]
    else:
        chosen = active[:count] if count is not None else active
    for number in chosen:
        step_evidence_leave(learner, module_slug, number, at=at)
        step_event_record(
            learner_id=learner.pk, module_slug=module_slug, number=number, kind="completed", at=at
        )
    return len(chosen)


def exam_bank_approve(module, *, reviewer=None) -> int:
    """Generate the module's item bank if it has none and approve every draft item, as a course
    admin would in the admin (a certifying exam). Returns how many items were approved."""
    from quizzes.models import ExamItem
    from quizzes.services.item_review import exam_bank_approve as approve
    from quizzes.services.items import exam_items_generate

    if not ExamItem.objects.filter(module_id=module.pk).exists():
        exam_items_generate(module_id=module.pk)
    return approve(module_id=module.pk, reviewer_id=reviewer.pk if reviewer else None)


# --- exam items of the typed kinds (quizzes/answers.py) ---

TYPED_KINDS = ("short_answer", "numerical", "matching")


def exam_typed_answer(row, *, right: bool) -> dict:
    """A right or wrong answer to a short-answer, numerical or matching attempt item, as a
    learner would type it: the accepted answer in capitals, a number with a decimal comma just
    inside the tolerance, the pairs (wrong: the first two options swapped)."""
    from decimal import Decimal

    key = row.answer_key
    if row.kind == "short_answer":
        text = key["accepted"][0].upper() if right else "ganz sicher falsch"
        return {"item": row.pk, "text": text}
    if row.kind == "numerical":
        first = key["answers"][0]
        high = (
            Decimal(str(first["max"]))
            if "max" in first
            else Decimal(str(first["value"])) + Decimal(str(first["tolerance"]))
        )
        number = high if right else high + 1
        return {"item": row.pk, "number": str(number).replace(".", ",")}
    pairs = dict(key["pairs"])
    if not right:
        first, second = list(pairs)[:2]
        if pairs[first] == pairs[second]:
            pairs[first] = next(c["key"] for c in row.choices if c["key"] != pairs[first])
        else:
            pairs[first], pairs[second] = pairs[second], pairs[first]
    return {
        "item": row.pk,
        "pairs": [{"option": option, "choice": choice} for option, choice in pairs.items()],
    }


def exam_typed_items_create(module, *, count: int = 1, **extra):
    """``count`` each of a short-answer, a numerical and a matching item in the module's bank."""
    from quizzes.models import ExamItem

    items = []
    for index in range(count):
        items += [
            ExamItem(
                module=module,
                kind="short_answer",
                prompt=f"Welches Werkzeug baut CUDA-Programme? ({index})",
                answer_key={"accepted": ["nvcc", "NVIDIA CUDA Compiler"]},
                explanation="nvcc übersetzt CUDA-C++.",
                **extra,
            ),
            ExamItem(
                module=module,
                kind="numerical",
                prompt=(
                    f"Wie viel VRAM (GB) belegen die Gewichte eines 7-Milliarden-Parameter-"
                    f"Modells in FP16? ({index})"
                ),
                answer_key={"answers": [{"value": "14", "tolerance": "0.5"}]},
                explanation="7 Mrd. x 2 Byte = 14 GB.",
                **extra,
            ),
            ExamItem(
                module=module,
                kind="matching",
                prompt=f"Ordne jedem Format seine Bytes pro Parameter zu. ({index})",
                answer_key={
                    "pairs": [
                        {"left": "FP32", "right": "4 Byte"},
                        {"left": "FP16", "right": "2 Byte"},
                        {"left": "BF16", "right": "2 Byte"},
                        {"left": "INT8", "right": "1 Byte"},
                        {"left": "", "right": "8 Byte"},
                    ]
                },
                **extra,
            ),
        ]
    for item in items:
        item.full_clean()
    return ExamItem.objects.bulk_create(items)


def flashcard_quick_check_add(steps, question: str, answer: str):
    """A quick check that is a flashcard (a question only some steps ask, with a real answer),
    added at the end of each of ``steps``' quick checks (Step rows of one module). The seed
    module's own quick checks make no review card of their own (courses.quick_check_roles):
    they repeat the definition or recur in every step."""
    from courses.content_plan import quick_check_hash
    from courses.models import QuickCheck, StepQuickCheck
    from courses.services.importing import quick_check_roles_refresh

    module = steps[0].module
    quick_check = QuickCheck.objects.create(
        module=module,
        question=question,
        answer=answer,
        text_hash=quick_check_hash(question, answer),
    )
    for step in steps:
        position = step.quick_check_links.count() + 1
        StepQuickCheck.objects.create(step=step, quick_check=quick_check, position=position)
    quick_check_roles_refresh(module_id=module.pk)
    quick_check.refresh_from_db()
    return quick_check


# --- a small bank whose every item each attempt draws (regrade, attempt review) ---

REGRADE_OPTIONS = ("Port 80", "Port 443", "Port 22")


def exam_small_bank_create(module, *, count: int = 5) -> list:
    """``count`` approved single-choice items and a policy drawing exactly them (pass mark
    80 %): every certifying attempt shows every item, so a test knows what each learner saw."""
    from django.utils import timezone

    from quizzes.models import ExamItem
    from quizzes.services.items import exam_policy_get

    policy = exam_policy_get(module_id=module.pk)
    policy.items_per_attempt = count
    policy.save()
    items = [
        ExamItem(
            module=module,
            kind="single_choice",
            prompt=f"Welcher Port gehört zu Dienst {index + 1}?",
            options=[
                {"key": key, "text": text} for key, text in zip("abc", REGRADE_OPTIONS, strict=True)
            ],
            correct_keys=["a"],
            explanation="Siehe Schritt 3.",
            status="approved",
            reviewed_at=timezone.now(),
        )
        for index in range(count)
    ]
    for item in items:
        item.full_clean()
    return ExamItem.objects.bulk_create(items)


def exam_attempt_take(learner, module, *, answers: dict[int, str], now=None):
    """Start, answer and submit a certifying attempt through the services: ``answers`` maps a
    bank item's id to the option text chosen (an item left out is not answered)."""
    from quizzes.models import ExamAttemptItem
    from quizzes.services.attempt_answers import exam_attempt_answers_save
    from quizzes.services.attempt_finalize import exam_attempt_finalize
    from quizzes.services.attempt_start import exam_attempt_start

    started = exam_attempt_start(
        learner_id=learner.pk, module_slug=module.slug, full_name_given=True, now=now
    )
    chosen = []
    for row in ExamAttemptItem.objects.filter(attempt=started.attempt):
        if row.item_id in answers:
            key = next(o["key"] for o in row.options if o["text"] == answers[row.item_id])
            chosen.append({"item": row.pk, "selected": [key]})
    exam_attempt_answers_save(
        learner_id=learner.pk, attempt_id=started.attempt.pk, answers=chosen, now=now
    )
    return exam_attempt_finalize(attempt_id=started.attempt.pk, now=now)
