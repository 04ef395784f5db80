"""Concurrency on real PostgreSQL: threads, each with its own connection, no mocks.

Twenty simultaneous submits grade an attempt exactly once; simultaneous starts never exceed the
maximum attempts; neither ever answers 500. The last tests give a finalization what a race it
lost leaves behind, which real threads hit only by chance.
"""

from __future__ import annotations

import threading
from collections import Counter

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from quizzes.models import ExamAttempt, ExamResult
from tests.factories import api_client_for

THREADS = 20


def run_concurrently(user, calls):
    """Run each ``call(client)`` in its own thread, released together; returns the responses."""
    barrier = threading.Barrier(len(calls))
    responses: list = [None] * len(calls)
    errors: list = []

    def worker(index, call):
        client = api_client_for(user)
        try:
            barrier.wait(timeout=30)
            responses[index] = call(client)
        except Exception as exc:  # reported below: a thread's exception must fail the test
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(i, c)) for i, c in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return responses


@pytest.mark.django_db(transaction=True)
def test_twenty_concurrent_submits_grade_once(learner, enroll, client_for, exam, bank):
    enroll(learner)
    client = client_for(learner)
    attempt = exam.start(client)
    exam.save(client, attempt["id"], exam.answers(attempt, correct=8))

    url = f"/api/v1/exam-attempts/{attempt['id']}/submit/"
    responses = run_concurrently(learner, [lambda c: c.post(url)] * THREADS)

    statuses = Counter(response.status_code for response in responses)
    # Every submit that waited for the lock answers the one result as a replay, none a 409.
    assert statuses == {200: THREADS}, statuses
    assert ExamResult.objects.filter(attempt_id=attempt["id"]).count() == 1
    bodies = [response.json() for response in responses if response.status_code == 200]
    assert all(body == bodies[0] for body in bodies)
    assert bodies[0]["score_percent"] == "80.00" and bodies[0]["passed"] is True


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("finished_before", [0, 2])
def test_concurrent_starts_never_exceed_max_attempts(
    learner, enroll, client_for, exam, bank, finished_before
):
    enroll(learner)
    client = client_for(learner)
    for _ in range(finished_before):
        exam.take(client, correct=0)

    url = "/api/v1/modules/self-hosting-27/exam/attempts/"
    responses = run_concurrently(learner, [lambda c: c.post(url)] * THREADS)

    statuses = Counter(response.status_code for response in responses)
    assert statuses == {201: 1, 409: THREADS - 1}, statuses
    assert ExamAttempt.objects.filter(learner=learner).count() == finished_before + 1
    assert ExamAttempt.objects.filter(learner=learner).count() <= 3


@pytest.mark.django_db(transaction=True)
def test_autosaves_racing_a_submit_never_fail(learner, enroll, client_for, exam, bank):
    enroll(learner)
    client = client_for(learner)
    attempt = exam.start(client)
    answers = exam.answers(attempt, correct=10)
    save_url = f"/api/v1/exam-attempts/{attempt['id']}/answers/"
    submit_url = f"/api/v1/exam-attempts/{attempt['id']}/submit/"

    def save(c):
        return c.put(save_url, {"answers": answers}, format="json")

    def submit(c):
        return c.post(submit_url)

    responses = run_concurrently(learner, [save, submit] * (THREADS // 2))
    statuses = Counter(response.status_code for response in responses)
    assert set(statuses) <= {200, 409}, statuses
    result = ExamResult.objects.get(attempt_id=attempt["id"])
    # Saves that got in before the grading count, those after it were refused: the stored
    # score is whatever the saved answers were at grading time, and the same for every submit.
    submitted = {
        r.json()["score_percent"]
        for r in responses
        if r.request["REQUEST_METHOD"] == "POST" and r.status_code == 200
    }
    assert submitted == {f"{result.score_percent:.2f}"}


@pytest.mark.django_db(transaction=True)
def test_answers_saved_while_the_submit_waits_for_the_lock_are_graded(
    learner, enroll, client_for, exam, bank
):
    """The answers a save commits while the submit waits for the attempt's lock are the ones
    graded, never those stored before the wait."""
    enroll(learner)
    client = client_for(learner)
    attempt = exam.start(client)
    exam.save(client, attempt["id"], exam.answers(attempt, correct=0))
    save_url = f"/api/v1/exam-attempts/{attempt['id']}/answers/"
    submit_url = f"/api/v1/exam-attempts/{attempt['id']}/submit/"
    saved, release = threading.Event(), threading.Event()
    responses: dict = {}

    def in_thread(name, call):
        def run():
            thread_client = api_client_for(learner)
            try:
                responses[name] = call(thread_client)
            finally:
                connection.close()

        return threading.Thread(target=run)

    all_correct = {"answers": exam.answers(attempt, correct=10)}

    def save_and_hold(c):
        # The save's transaction keeps the attempt locked until the submit waits for it.
        with transaction.atomic():
            response = c.put(save_url, all_correct, format="json")
            saved.set()
            release.wait(timeout=30)
        return response

    saver = in_thread("save", save_and_hold)
    submitter = in_thread("submit", lambda c: c.post(submit_url))
    saver.start()
    assert saved.wait(timeout=30)
    submitter.start()
    try:
        for _ in range(300):  # until the submit's statement waits for the lock (≤ 30 s)
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT count(*) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND wait_event_type = 'Lock'"
                )
                if cursor.fetchone()[0]:
                    break
            threading.Event().wait(0.1)
        else:
            pytest.fail("the submit never waited for the attempt's lock")
    finally:
        release.set()
        saver.join(timeout=60)
        submitter.join(timeout=60)

    assert responses["save"].status_code == 200
    assert responses["submit"].status_code == 200, responses["submit"].content
    result = responses["submit"].json()
    assert result["correct_count"] == result["item_count"]
    assert ExamResult.objects.get(attempt_id=attempt["id"]).correct_count == result["item_count"]


@pytest.mark.django_db
def test_second_result_for_an_attempt_is_refused_by_the_database(
    learner, enroll, client_for, exam, bank
):
    enroll(learner)
    client = client_for(learner)
    attempt = exam.start(client)
    exam.submit(client, attempt["id"])
    first = ExamResult.objects.get()
    with pytest.raises(IntegrityError), transaction.atomic():
        ExamResult.objects.create(
            attempt_id=attempt["id"],
            learner=learner,
            module_id=first.module_id,
            score_percent=100,
            correct_count=10,
            item_count=10,
            passed=True,
            reason="submitted",
            finalized_at=timezone.now(),
        )


@pytest.mark.django_db
def test_a_result_committed_by_another_finalization_is_answered_as_a_replay(
    learner, enroll, client_for, exam, bank
):
    """The submit reads the attempt's result after its lock: a result another finalization
    committed meanwhile is the one answered, and nothing is graded or issued again."""
    from quizzes.models import Certificate, ExamAttemptItem

    enroll(learner)
    client = client_for(learner)
    attempt = exam.start(client)
    exam.save(client, attempt["id"], exam.answers(attempt, correct=10))
    committed = ExamResult.objects.create(
        attempt_id=attempt["id"],
        learner=learner,
        module_id=ExamAttempt.objects.get().module_id,
        score_percent=40,
        correct_count=4,
        item_count=10,
        passed=False,
        reason="expired",
        finalized_at=timezone.now(),
    )

    result = exam.submit(client, attempt["id"])

    assert (result["score_percent"], result["reason"]) == ("40.00", "expired")
    assert ExamResult.objects.get().pk == committed.pk
    assert not ExamAttemptItem.objects.filter(is_correct__isnull=False).exists()
    assert not Certificate.objects.exists()


@pytest.mark.django_db
def test_a_certificate_the_learner_holds_is_the_one_shown(learner, enroll, client_for, exam, bank):
    from quizzes.models import Certificate

    enroll(learner)
    client = client_for(learner)
    attempt = exam.start(client)
    exam.save(client, attempt["id"], exam.answers(attempt, correct=10))
    earlier = Certificate.objects.create(
        learner=learner,
        module_id=ExamAttempt.objects.get().module_id,
        attempt_id=attempt["id"],
        code="issued-by-a-concurrent-finalization",
        learner_name="Lena Lernende",
        score_percent=100,
        issued_at=timezone.now(),
    )

    result = exam.submit(client, attempt["id"])

    assert result["certificate"]["code"] == earlier.code
    assert Certificate.objects.get().code == earlier.code
