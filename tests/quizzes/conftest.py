"""Fixtures of the quizzes tests: learners, enrollment, the seed item bank and an exam driver."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.utils import timezone

from tests.factories import (
    TYPED_KINDS,
    api_client_for,
    exam_bank_approve,
    exam_typed_answer,
    exam_typed_items_create,
    learner_create,
    steps_complete,
)

FORBIDDEN_BEFORE_REVIEW = {
    "correct_keys",
    "is_correct",
    "score",
    "explanation",
    "correct",
    "accepted_answers",
    "correct_pairs",
    "answer_key",
}


@pytest.fixture(autouse=True)
def _fresh_throttle_cache():
    # The exam throttle counts requests per user id in the cache; ids repeat across tests.
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def make_learner(db):
    """The shared learner factory, with a display name and a full name by default: a certifying
    exam starts only for a learner with a full name, and the certificate states it."""

    def make(username: str = "lena", **fields):
        fields.setdefault("display_name", "Lena")
        fields.setdefault("full_name", "Lena Lernende")
        return learner_create(username, **fields)

    return make


@pytest.fixture
def enroll(course):
    """Enroll a learner; by default also complete every step, so the exam's completion gate
    (every step, the default policy) is open: these tests are about the exam itself."""
    from progress.models import Enrollment

    def enroll(user, module=None, *, steps_done: bool = True):
        module = module or course
        enrollment = Enrollment.objects.create(
            learner=user, module=module, enrolled_at=timezone.now()
        )
        if steps_done:
            steps_complete(user, module)
        return enrollment

    return enroll


@pytest.fixture
def client_for():
    return api_client_for


@pytest.fixture
def learner(make_learner):
    return make_learner()


@pytest.fixture
def learner_api(learner, enroll, client_for):
    """An enrolled learner's API client."""
    enroll(learner)
    return client_for(learner)


@pytest.fixture
def policy(course):
    from quizzes.services.items import exam_policy_get

    return exam_policy_get(module_id=course.id)


@pytest.fixture
def bank(course):
    """The seed module's generated bank, approved as a course admin would: its exam certifies.
    Without this fixture the first start generates drafts, and the exam is practice."""
    from quizzes.services.items import exam_items_generate

    report = exam_items_generate(module_id=course.id)
    exam_bank_approve(course)
    return report


@pytest.fixture
def draft_bank(course):
    """The seed module's generated bank as generated: drafts only, a practice exam."""
    from quizzes.services.items import exam_items_generate

    return exam_items_generate(module_id=course.id)


class ExamDriver:
    """Drives the exam over HTTP the way a client would; reads correct keys from the DB only
    to produce right or wrong answers on purpose."""

    def __init__(self, module_slug: str):
        self.module = module_slug

    def start(self, client, expect=201):
        response = client.post(f"/api/v1/modules/{self.module}/exam/attempts/")
        assert response.status_code == expect, response.json()
        return response.json()

    def answers(self, attempt: dict, *, correct: int) -> list[dict]:
        """Answers for every item of the attempt: the first ``correct`` right, the rest wrong."""
        from quizzes.models import ExamAttemptItem

        stored = {row.pk: row for row in ExamAttemptItem.objects.filter(attempt_id=attempt["id"])}
        answers = []
        for index, item in enumerate(attempt["items"]):
            row = stored[item["id"]]
            if row.kind in TYPED_KINDS:
                answers.append(exam_typed_answer(row, right=index < correct))
                continue
            right = row.correct_keys
            if index < correct:
                selected = right
            else:
                selected = [next(o["key"] for o in item["options"] if o["key"] not in right)]
            answers.append({"item": item["id"], "selected": selected})
        return answers

    def save(self, client, attempt_id: int, answers: list[dict], expect=200):
        response = client.put(
            f"/api/v1/exam-attempts/{attempt_id}/answers/", {"answers": answers}, format="json"
        )
        assert response.status_code == expect, response.json()
        return response.json()

    def submit(self, client, attempt_id: int, expect=200, body=None):
        response = client.post(
            f"/api/v1/exam-attempts/{attempt_id}/submit/", body or {}, format="json"
        )
        assert response.status_code == expect, response.json()
        return response.json()

    def take(self, client, *, correct: int) -> dict:
        """Start, answer (``correct`` right), submit; returns the submit result."""
        attempt = self.start(client)
        self.save(client, attempt["id"], self.answers(attempt, correct=correct))
        return self.submit(client, attempt["id"])


@pytest.fixture
def typed_bank(course, policy):
    """A bank of only the typed kinds (no generated items), three items per attempt."""
    policy.items_per_attempt = 3
    policy.save()
    return exam_typed_items_create(course)


@pytest.fixture
def exam(course) -> ExamDriver:
    return ExamDriver(course.slug)


def keys_in(value, found=None) -> set[str]:
    """Every dict key anywhere in a JSON value."""
    found = set() if found is None else found
    if isinstance(value, dict):
        for key, inner in value.items():
            found.add(key)
            keys_in(inner, found)
    elif isinstance(value, list):
        for inner in value:
            keys_in(inner, found)
    return found


@pytest.fixture
def json_keys():
    return keys_in
