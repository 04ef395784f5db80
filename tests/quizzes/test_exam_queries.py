"""Query counts of the exam endpoints: fixed, whatever the number of items or attempts.

Counts are with token-less forced authentication (no session queries) and include the
SAVEPOINT/RELEASE pair the test transaction turns each ``atomic`` block into. Every count is
measured with 10 and with 100 approved items in the bank, for a learner with an accommodation
(extra time, extra attempts) behind the completion gate (every step completed), and with the
per-process copy of the module outline cold (``cold()``: the upper bound).
"""

from __future__ import annotations

import pytest

from lms.content_cache import content_caches_clear

pytestmark = pytest.mark.django_db

# savepoint, lock enrollment, policy (with the accommodation and the approved count), attempts,
# bank, module outline, completed steps (the gate), attempt, items, release
START_QUERIES = 10
SAVE_QUERIES = 6  # savepoint, lock attempt, result?, items, bulk update, release
# savepoint, lock the attempt and read the learner's attempts and its items (one statement:
# quizzes.sql.attempt_lock), the result with the items' grading (quizzes.sql.result_store: one
# statement), release
SUBMIT_QUERIES = 4
SUBMIT_PASS_QUERIES = 4  # the certificate is written by that same statement
SUBMIT_AGAIN_QUERIES = 3  # savepoint, lock the attempt and read the attempts and items, release
# The periodic task: the expired attempts' ids, then a submit's statements for each; a
# certificate it issues names the learner through accounts.api (one more query, only then).
FINALIZE_EXPIRED_QUERIES = 1 + SUBMIT_QUERIES
FINALIZE_EXPIRED_PASS_QUERIES = 1 + SUBMIT_PASS_QUERIES + 1


def cold() -> None:
    """Forget the per-process copies of content (the module outline), as after a second."""
    content_caches_clear()


@pytest.fixture(params=[(10, 10), (100, 30)], ids=["10-approved", "100-approved"])
def items_per_attempt(request, course, policy, draft_bank, learner):
    """The first n items of the generated bank approved (the rest drafts) and an attempt size
    they fill, so the exam certifies; the learner has an accommodation."""
    from quizzes.models import ExamAccommodation, ExamItem
    from quizzes.services.item_review import exam_items_review

    approved, items = request.param
    ids = ExamItem.objects.filter(module=course).order_by("id").values_list("id", flat=True)
    assert len(ids) >= approved
    exam_items_review(item_ids=list(ids[:approved]), status="approved", reviewer_id=None)
    policy.items_per_attempt = items
    policy.save()
    ExamAccommodation.objects.create(
        learner=learner, module=course, extra_time_minutes=15, extra_attempts=2
    )
    return items


def test_start_save_submit_use_a_fixed_number_of_queries(
    learner_api, exam, items_per_attempt, django_assert_num_queries
):
    cold()
    with django_assert_num_queries(START_QUERIES):
        attempt = exam.start(learner_api)
    assert len(attempt["items"]) == items_per_attempt
    assert attempt["mode"] == "certifying" and attempt["time_limit_minutes"] == 20 + 15
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
    cold()
    # module outline; policy, accommodation, approved count, attempts with results and the
    # certificate (quizzes.sql.exam_overview_read, one statement); enrollment; completed steps
    with django_assert_num_queries(4):
        body = learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert len(body["attempts"]) == earlier_attempts + 1
    assert body["mode"] == "certifying" and body["limits"]["max_attempts"] == 3 + 2
    # the attempt with its items (quizzes.sql.attempt_answering_read, one statement), module
    with django_assert_num_queries(2):
        learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/")
    exam.submit(learner_api, attempt["id"])
    # … and once finalized the attempt's policy, result and accommodation, and the learner's
    # attempts for the review policy
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


def test_start_refused_by_the_gate_costs_the_same_queries(
    make_learner, enroll, client_for, exam, items_per_attempt, django_assert_num_queries
):
    """A learner with steps missing: the refusal reads what a start reads, up to the gate."""
    from quizzes.models import ExamAccommodation, ExamPolicy
    from tests.factories import steps_complete

    learner = make_learner("nora")
    enroll(learner, steps_done=False)
    module = ExamPolicy.objects.get().module
    steps_complete(learner, module, count=5)
    ExamAccommodation.objects.create(learner=learner, module=module, extra_time_minutes=5)
    client = client_for(learner)
    cold()
    # savepoint, lock enrollment, policy, attempts, bank, outline, completed steps, rollback
    # to the savepoint, release: the start's reads, no writes
    with django_assert_num_queries(START_QUERIES - 1):
        body = exam.start(client, expect=409)
    assert body["error"]["code"] == "steps_incomplete"
    assert len(body["error"]["detail"]["missing_steps"]) == 32 - 5


def test_a_practice_start_and_submit_cost_what_a_certifying_one_does(
    learner_api, exam, items_per_attempt, django_assert_num_queries
):
    """Too few approved items for an attempt: the same statements, drafts drawn too."""
    from quizzes.models import ExamItem, ExamPolicy

    approved = ExamItem.objects.filter(status="approved").count()
    ExamPolicy.objects.update(items_per_attempt=approved + 1)
    cold()
    with django_assert_num_queries(START_QUERIES):
        attempt = exam.start(learner_api)
    assert attempt["mode"] == "practice"
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=len(attempt["items"])))
    with django_assert_num_queries(SUBMIT_QUERIES):
        result = exam.submit(learner_api, attempt["id"])
    assert result["passed"] and result["certificate"] is None


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
    from tests.factories import exam_bank_approve, exam_typed_items_create

    exam_typed_items_create(course, count=request.param)
    exam_bank_approve(course)  # approved: a certifying exam, as the choice-item counts are
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
    with django_assert_num_queries(2):
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
