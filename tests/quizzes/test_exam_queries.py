"""Query counts of the exam endpoints: fixed, whatever the number of items or attempts.

Counts are with token-less forced authentication (no session queries) and include the
SAVEPOINT/RELEASE pair the test transaction turns each ``atomic`` block into.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

START_QUERIES = 8  # savepoint, lock enrollment, policy, attempts, bank, attempt, items, release
SAVE_QUERIES = 6  # savepoint, lock attempt, result?, items, bulk update, release
# savepoint, lock the attempt and read the learner's attempts (one statement), items, result,
# grade the items (one UPDATE), release
SUBMIT_QUERIES = 6
SUBMIT_PASS_QUERIES = 7  # … plus the certificate
SUBMIT_AGAIN_QUERIES = 4  # savepoint, lock the attempt and read the attempts, items, release
# The periodic task: the expired attempts' ids, then a submit's statements for each; a
# certificate it issues names the learner through accounts.api (one more query, only then).
FINALIZE_EXPIRED_QUERIES = 1 + SUBMIT_QUERIES
FINALIZE_EXPIRED_PASS_QUERIES = 1 + SUBMIT_PASS_QUERIES + 1


@pytest.fixture(params=[10, 30], ids=["10-items", "30-items"])
def items_per_attempt(request, policy, bank):
    policy.items_per_attempt = request.param
    policy.save()
    return request.param


def test_start_save_submit_use_a_fixed_number_of_queries(
    learner_api, exam, items_per_attempt, django_assert_num_queries
):
    with django_assert_num_queries(START_QUERIES):
        attempt = exam.start(learner_api)
    assert len(attempt["items"]) == items_per_attempt
    answers = exam.answers(attempt, correct=0)
    with django_assert_num_queries(SAVE_QUERIES):
        exam.save(learner_api, attempt["id"], answers)
    with django_assert_num_queries(SUBMIT_QUERIES):
        result = exam.submit(learner_api, attempt["id"])
    assert result["item_count"] == items_per_attempt
    with django_assert_num_queries(SUBMIT_AGAIN_QUERIES):
        exam.submit(learner_api, attempt["id"])


def test_submit_after_earlier_attempts_uses_the_same_queries(
    learner_api, exam, items_per_attempt, django_assert_num_queries
):
    # The lock statement returns one row per attempt of the learner in the module.
    for _ in range(2):
        exam.take(learner_api, correct=0)
    attempt = exam.start(learner_api)
    with django_assert_num_queries(SUBMIT_QUERIES):
        exam.submit(learner_api, attempt["id"])
    with django_assert_num_queries(SUBMIT_AGAIN_QUERIES):
        exam.submit(learner_api, attempt["id"])


def test_passing_submit_with_certificate(
    learner_api, exam, items_per_attempt, django_assert_num_queries
):
    attempt = exam.start(learner_api)
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=items_per_attempt))
    with django_assert_num_queries(SUBMIT_PASS_QUERIES):
        result = exam.submit(learner_api, attempt["id"])
    assert result["certificate"] is not None


@pytest.mark.parametrize("passing", [False, True], ids=["failed", "passed"])
def test_finalizing_an_expired_attempt_uses_a_fixed_number_of_queries(
    learner_api, exam, items_per_attempt, passing, django_assert_num_queries
):
    import datetime

    from django.utils import timezone

    from quizzes.models import Certificate, ExamAttempt
    from quizzes.tasks import exam_attempts_finalize_expired

    attempt = exam.start(learner_api)
    correct = items_per_attempt if passing else 0
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=correct))
    now = timezone.now()
    ExamAttempt.objects.update(
        started_at=now - datetime.timedelta(minutes=30),
        deadline_at=now - datetime.timedelta(minutes=2),
    )
    expected = FINALIZE_EXPIRED_PASS_QUERIES if passing else FINALIZE_EXPIRED_QUERIES
    with django_assert_num_queries(expected):
        assert exam_attempts_finalize_expired() == 1
    assert Certificate.objects.exists() is passing


@pytest.mark.parametrize("earlier_attempts", [0, 2])
def test_reads_are_constant(
    learner_api, exam, items_per_attempt, earlier_attempts, django_assert_num_queries
):
    for _ in range(earlier_attempts):
        exam.take(learner_api, correct=0)
    attempt = exam.start(learner_api)
    # module, policy, enrollment, attempts (+results, certificate)
    with django_assert_num_queries(4):
        body = learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert len(body["attempts"]) == earlier_attempts + 1
    # attempt (+policy, result), items, module
    with django_assert_num_queries(3):
        learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/")
    exam.submit(learner_api, attempt["id"])
    # … and the learner's attempts for the review policy once finalized
    with django_assert_num_queries(4):
        learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/")


@pytest.mark.parametrize("passes", [1, 3])
def test_certificate_list_is_constant(
    make_learner, enroll, client_for, exam, bank, passes, django_assert_num_queries
):
    from courses.models import Module
    from quizzes.models import Certificate, ExamAttempt

    user = make_learner()
    enroll(user)
    client = client_for(user)
    exam.take(client, correct=10)
    # More certificates: copies for extra modules (a learner has one per module).
    source = Certificate.objects.get()
    for index in range(passes - 1):
        module = Module.objects.create(
            slug=f"extra-{index}", series="Extra", number=index + 1, title="Extra", header="x"
        )
        attempt = ExamAttempt.objects.get(pk=source.attempt_id)
        attempt.pk, attempt.module = None, module
        attempt.save()
        Certificate.objects.create(
            learner=user,
            module=module,
            attempt=attempt,
            code=f"code-{index}",
            learner_name="Lena",
            score_percent=source.score_percent,
            issued_at=source.issued_at,
        )
    # count, page, modules
    with django_assert_num_queries(3):
        body = client.get("/api/v1/certificates/").json()
    assert body["count"] == passes


def test_start_with_all_steps_required_costs_one_more_fixed_query(
    learner_api, learner, exam, items_per_attempt, policy, django_assert_num_queries
):
    from django.utils import timezone

    from courses.models import Step
    from progress.models import StepProgress

    policy.requires_all_steps_completed = True
    policy.save()
    now = timezone.now()
    StepProgress.objects.bulk_create(
        StepProgress(
            learner=learner, step=step, status="completed", completed_at=now, updated_at=now
        )
        for step in Step.objects.filter(status="active")
    )
    # progress.api.all_steps_completed: one query (the enrollment with its step counts).
    with django_assert_num_queries(START_QUERIES + 1):
        attempt = exam.start(learner_api)
    assert len(attempt["items"]) == items_per_attempt


@pytest.mark.postgres
def test_attempt_items_keep_room_for_updates_in_place():
    """Saving answers and grading update the items on columns no index covers; with room left
    in each page (migration 0004) PostgreSQL does that without new index entries (HOT)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE relname = 'quizzes_examattemptitem'")
        assert cursor.fetchone()[0] == ["fillfactor=70"]
        cursor.execute(
            "SELECT indexdef FROM pg_indexes WHERE tablename = 'quizzes_examattemptitem'"
        )
        indexes = [row[0] for row in cursor.fetchall()]
    # None of them covers a column that saving or grading writes.
    for column in ("selected_keys", "answer_text", "answer_pairs", "answered_at", "is_correct"):
        assert not any(column in index for index in indexes), indexes
    assert not any(index.endswith("(attempt_id)") for index in indexes), indexes


@pytest.fixture(params=[1, 10], ids=["3-typed-items", "30-typed-items"])
def typed_items_per_attempt(request, course, policy):
    """A bank of short-answer, numerical and matching items only (no generated ones), all of
    them drawn."""
    from tests.factories import exam_typed_items_create

    exam_typed_items_create(course, count=request.param)
    policy.items_per_attempt = 3 * request.param
    policy.save()
    return policy.items_per_attempt


def test_typed_kinds_use_the_same_queries(
    learner_api, exam, typed_items_per_attempt, django_assert_num_queries
):
    """Short-answer, numerical and matching items cost what choice items cost, whatever their
    number: start, save, submit, replay and the reads."""
    with django_assert_num_queries(START_QUERIES):
        attempt = exam.start(learner_api)
    assert len(attempt["items"]) == typed_items_per_attempt
    assert {item["kind"] for item in attempt["items"]} == {"short_answer", "numerical", "matching"}
    with django_assert_num_queries(3):
        learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/")
    answers = exam.answers(attempt, correct=typed_items_per_attempt)
    with django_assert_num_queries(SAVE_QUERIES):
        exam.save(learner_api, attempt["id"], answers)
    with django_assert_num_queries(SUBMIT_PASS_QUERIES):
        result = exam.submit(learner_api, attempt["id"])
    assert result["correct_count"] == typed_items_per_attempt
    with django_assert_num_queries(SUBMIT_AGAIN_QUERIES):
        exam.submit(learner_api, attempt["id"])
    with django_assert_num_queries(4):
        learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/")
