"""Fixtures of the reliability suites: a populated Lernpfad and the exam-answer scanner.

``world`` builds, through the public API as the apps would, everything learner A can own:
enrollment, progress, notes, quick-check ratings, review cards and a review, an open exam attempt
with a saved answer (seed module), a passed attempt with its certificate (a second module), a
notification and a second device token. Learner B has an enrollment and an attempt of their own;
staff is an admin account. Suites probe A's objects as the others.
"""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.utils import timezone
from reliability_world import (
    CANARY,
    PASSWORD,
    SECOND_MODULE,
    AnswerScanner,
    JsonClient,
    World,
    actor_create,
    exam_answer_all,
    learner_activity,
    ok,
)

from tests.factories import exam_bank_approve, steps_complete


@pytest.fixture
def second_module(course, module_document):
    """A second module (5 steps), so A can hold a certificate and an open attempt at once."""
    from courses.models import Module
    from courses.services.importing import course_import

    course_import(paths=[module_document("homelab.txt", **SECOND_MODULE)])
    return Module.objects.get(slug="homelab-3")


@pytest.fixture
def world(course, second_module) -> World:
    from quizzes.models import Certificate, ExamAccommodation, ExamPolicy
    from quizzes.services.items import exam_items_generate
    from reviews.models import Notification, ReviewCard

    for module in (course, second_module):
        exam_items_generate(module_id=module.id)
        # Approved as a course admin would: both exams certify.
        exam_bank_approve(module)
    # The second module's exam: few items, so 5 steps suffice.
    ExamPolicy.objects.filter(module=second_module).update(items_per_attempt=3)

    a = actor_create(CANARY)
    b = actor_create("ben")
    staff = actor_create("sam", staff=True)
    ids: dict[str, Any] = {}

    ids.update(learner_activity(a, course.slug))
    learner_activity(b, course.slug)
    # The rest of the steps, straight in the table: the exams' completion gate is open.
    for learner in (a, b):
        steps_complete(learner.user, course)

    # A passes the second module (certificate), then opens an attempt in the seed module.
    ok(a.client.post(f"/api/v1/modules/{second_module.slug}/enrollment/"))
    steps_complete(a.user, second_module)
    passed = ok(a.client.post(f"/api/v1/modules/{second_module.slug}/exam/attempts/")).json()
    exam_answer_all(a, passed["id"], correctly=True)
    result = ok(a.client.post(f"/api/v1/exam-attempts/{passed['id']}/submit/")).json()
    assert result["passed"], result
    certificate = Certificate.objects.get(learner=a.user)
    # A course admin gave A ten extra minutes in the seed module (an accommodation).
    ExamAccommodation.objects.create(learner=a.user, module=course, extra_time_minutes=10)
    attempt = ok(a.client.post(f"/api/v1/modules/{course.slug}/exam/attempts/")).json()
    first_item = attempt["items"][0]
    ok(
        a.client.put(
            f"/api/v1/exam-attempts/{attempt['id']}/answers/",
            {
                "answers": [
                    {"item": first_item["id"], "selected": [first_item["options"][0]["key"]]}
                ]
            },
        )
    )
    b_attempt = ok(b.client.post(f"/api/v1/modules/{course.slug}/exam/attempts/")).json()

    # A reviews a card once (with a client review id) and has a notification.
    card = ReviewCard.objects.filter(learner=a.user).order_by("pk").first()
    assert card is not None, "completing steps created no review cards"
    review = ok(
        a.client.post(
            "/api/v1/reviews/",
            {"card": card.pk, "rating": 3, "client_review_id": f"{CANARY}-review-1"},
        )
    ).json()
    notification = Notification.objects.create(
        learner=a.user,
        kind=Notification.Kind.REVIEW_DIGEST,
        title="3 Karten sind fällig",
        body=f"Für {CANARY}",
        created_at=timezone.now() - datetime.timedelta(hours=1),
    )
    second_device = ok(
        JsonClient().post(
            "/api/v1/auth/token/",
            {"username": CANARY, "password": PASSWORD, "device_name": "tablet"},
        )
    ).json()

    from accounts.models import Device

    ids.update(
        {
            "attempt": attempt["id"],
            "attempt_passed": passed["id"],
            "attempt_b": b_attempt["id"],
            "attempt_item": first_item["id"],
            "attempt_item_key": first_item["options"][0]["key"],
            "card_id": card.pk,
            "review_id": review["review_id"],
            "notification_id": notification.pk,
            "device_id": Device.objects.filter(user=a.user, name="tablet").get().pk,
            "certificate_code": certificate.code,
            "second_token": second_device["token"],
        }
    )
    return World(
        module_slug=course.slug,
        second_module_slug=second_module.slug,
        a=a,
        b=b,
        staff=staff,
        ids=ids,
    )


@pytest.fixture(autouse=True)
def answer_scanner(monkeypatch):
    """Scan every response of the test; a leak fails the test at teardown."""
    from django.core.handlers.base import BaseHandler

    scanner = AnswerScanner()
    original = BaseHandler.get_response

    def get_response(self, request):
        response = original(self, request)
        scanner.scan(request, response)
        return response

    monkeypatch.setattr(BaseHandler, "get_response", get_response)
    yield scanner
    assert not scanner.violations, "exam answers leaked:\n" + "\n".join(
        dict.fromkeys(scanner.violations)
    )


def pytest_collection_modifyitems(items):
    """Give each schemathesis operation test its own node id (``test_x[GET /api/v1/me/]``).

    schemathesis 4 names the items per operation, but pytest 9 builds node ids from the original
    name, so all operations would share one id (and -k, reports and reruns could not tell them
    apart).
    """
    from _pytest.nodeid import NodeId

    for item in items:
        label = getattr(item, "operation_label", None)
        if label and isinstance(getattr(item, "_id", None), NodeId) and item._id.params is None:
            item._id = NodeId(path=item._id.path, names=item._id.names, params=label)
