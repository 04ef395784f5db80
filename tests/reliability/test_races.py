"""Races on real PostgreSQL: 50 requests at once, released by a barrier, each thread with its own
database connection, through the whole HTTP stack (token authentication included).

- 50 submits of one attempt, three rounds: exactly one graded result each round, every
  successful answer shows that result;
- 50 starts of an attempt, with 0, 1 and 2 of 3 attempts used: never more than the maximum;
- 50 reviews of one card with one client review id, and 50 offline sync uploads of one event:
  one review logged, one event applied; the replays get the original back.
"""

from __future__ import annotations

import datetime
import threading
from collections import Counter

import pytest
from django.db import connection
from django.utils import timezone
from reliability_world import JsonClient, actor_create, caches_clear, exam_answer_all, ok

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

THREADS = 50


def at_once_bodies(token: str, url: str, make_body) -> list:
    """POST from THREADS threads released together, each with its own body from make_body()."""
    bodies = [make_body() for _ in range(THREADS)]
    return at_once(token, "post", url, bodies=bodies)


def at_once(token: str, method: str, url: str, body=None, *, bodies=None) -> list:
    """Send the same request from THREADS threads released together; returns the responses."""
    # Each burst starts with fresh throttle counters: the exam and review rates (120 and 600 a
    # minute) are meant for people, and this test sends 50 requests a second on purpose.
    caches_clear()
    barrier = threading.Barrier(THREADS)
    responses: list = [None] * THREADS
    errors: list = []

    def worker(index: int) -> None:
        client = JsonClient()
        client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        try:
            barrier.wait(timeout=60)
            responses[index] = getattr(client, method)(
                url, bodies[index] if bodies is not None else body
            )
        except Exception as exc:  # a thread's exception must fail the test, not vanish
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=180)
    assert not errors, errors
    assert all(r is not None for r in responses)
    return responses


@pytest.fixture
def exam_learner(second_module):
    """A learner enrolled in the small second module (3 attempts of 3 items, approved bank),
    every step completed."""
    from quizzes.models import ExamPolicy
    from quizzes.services.items import exam_items_generate
    from tests.factories import exam_bank_approve, steps_complete

    exam_items_generate(module_id=second_module.id)
    exam_bank_approve(second_module)
    ExamPolicy.objects.filter(module=second_module).update(items_per_attempt=3, max_attempts=3)
    learner = actor_create("rita")
    ok(learner.client.post(f"/api/v1/modules/{second_module.slug}/enrollment/"))
    steps_complete(learner.user, second_module)
    return learner, second_module.slug


def test_fifty_concurrent_submits_grade_each_attempt_once(exam_learner):
    from quizzes.models import ExamResult

    learner, slug = exam_learner
    for round_number in range(3):
        attempt = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
        exam_answer_all(learner, attempt["id"], correctly=False)
        responses = at_once(learner.token, "post", f"/api/v1/exam-attempts/{attempt['id']}/submit/")
        statuses = Counter(r.status_code for r in responses)
        assert set(statuses) <= {200, 409}, (round_number, statuses)
        assert statuses[200] >= 1
        assert ExamResult.objects.filter(attempt_id=attempt["id"]).count() == 1
        results = {r.content for r in responses if r.status_code == 200}
        assert len(results) == 1, "two different results were reported for one attempt"
    assert ExamResult.objects.filter(learner=learner.user).count() == 3


@pytest.mark.parametrize("used_before", [0, 1, 2])
def test_fifty_concurrent_starts_never_exceed_the_maximum(exam_learner, used_before):
    from quizzes.models import ExamAttempt

    learner, slug = exam_learner
    for _ in range(used_before):
        attempt = ok(learner.client.post(f"/api/v1/modules/{slug}/exam/attempts/")).json()
        exam_answer_all(learner, attempt["id"], correctly=False)
        ok(learner.client.post(f"/api/v1/exam-attempts/{attempt['id']}/submit/"))

    responses = at_once(learner.token, "post", f"/api/v1/modules/{slug}/exam/attempts/")
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {201: 1, 409: THREADS - 1}, statuses
    attempts = ExamAttempt.objects.filter(learner=learner.user)
    assert attempts.count() == used_before + 1 <= 3
    assert sorted(attempts.values_list("number", flat=True)) == list(range(1, used_before + 2))


def test_fifty_duplicate_reviews_with_one_client_review_id_log_one_review(world):
    from reviews.models import ReviewCard, ReviewLog

    card = ReviewCard.objects.filter(learner=world.a.user).order_by("-pk").first()
    before = ReviewLog.objects.filter(learner=world.a.user).count()
    body = {"card": card.pk, "rating": 3, "client_review_id": "offline-7f3a"}
    responses = at_once(world.a.token, "post", "/api/v1/reviews/", body)
    statuses = Counter(r.status_code for r in responses)
    assert set(statuses) <= {200, 201}, statuses
    assert ReviewLog.objects.filter(learner=world.a.user).count() == before + 1
    log = ReviewLog.objects.get(learner=world.a.user, client_review_id="offline-7f3a")
    bodies = [r.json() for r in responses]
    assert {b["review_id"] for b in bodies} == {log.pk}
    assert sum(1 for b in bodies if not b["replayed"]) == 1
    card.refresh_from_db()
    assert card.last_review == log.reviewed_at


def test_fifty_reviews_of_one_card_at_once_each_build_on_the_one_before(world):
    """50 different reviews of one card at once (50 client review ids): every one is applied,
    each from the state the previous one left, none from a state another one already used."""
    from reviews.models import ReviewCard, ReviewLog

    card = ReviewCard.objects.filter(learner=world.a.user).order_by("pk").first()
    start = card.last_review
    counter = iter(range(THREADS))
    lock = threading.Lock()

    def body() -> dict:
        with lock:
            number = next(counter)
        return {"card": card.pk, "rating": 3, "client_review_id": f"same-card-{number}"}

    responses = at_once_bodies(world.a.token, "/api/v1/reviews/", body)
    assert Counter(r.status_code for r in responses) == {200: THREADS}
    logs = list(ReviewLog.objects.filter(card=card, client_review_id__startswith="same-card-"))
    assert len(logs) == THREADS
    befores = [log.before_last_review for log in logs]
    assert len(set(befores)) == THREADS  # no two reviews computed from the same state
    assert set(befores) <= {start} | {log.reviewed_at for log in logs}
    card.refresh_from_db()
    assert card.last_review in {log.reviewed_at for log in logs}
    assert card.last_review not in befores  # the last one applied is the last one


def test_fifty_duplicate_sync_uploads_apply_the_event_once(world):
    from progress.models import ProgressEvent

    event = {
        "client_event_id": "offline-sync-1",
        "event": "opened",
        "module": world.module_slug,
        "step": 5,
        "occurred_at": (timezone.now() - datetime.timedelta(minutes=1)).isoformat(),
    }
    responses = at_once(world.a.token, "post", "/api/v1/progress/sync/", {"events": [event]})
    statuses = Counter(r.status_code for r in responses)
    assert statuses == {200: THREADS}, statuses
    results = Counter(r.json()["results"][0]["status"] for r in responses)
    logged = ProgressEvent.objects.filter(learner=world.a.user, client_event_id="offline-sync-1")
    assert logged.count() == 1
    assert results["applied"] == 1, results
