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


def learner_register(username: str = "lena", **fields: Any):
    """A learner signed up through the accounts service, as the sign-up page and the API do
    (preferences validated, next reminder instant stored)."""
    from accounts.services import user_register

    fields.setdefault("email", f"{username}@example.org")
    fields.setdefault("password", learner_password(username))
    return user_register(username=username, **fields)


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
