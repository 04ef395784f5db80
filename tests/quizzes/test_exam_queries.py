"""Query counts of the exam endpoints: under a budget, whatever the number of items or attempts.

Each budget is checked with 10 and with 100 approved items in the bank (and with earlier
attempts), so a query per item or per attempt would blow it. Counts are with token-less forced
authentication (no session queries) and include the SAVEPOINT/RELEASE pair the test transaction
turns each ``atomic`` block into; the learner has an accommodation (extra time, extra attempts)
and every step completed (the completion gate).
"""

from __future__ import annotations

import pytest

from tests.helpers.queries import assert_queries_within

pytestmark = pytest.mark.django_db

# savepoint, lock enrollment, policy (with the accommodation and the approved count), attempts,
# bank, module outline, completed steps (the gate), attempt, items, release
START_BUDGET = 11
SAVE_BUDGET = 7  # savepoint, lock attempt, result?, items, bulk update, release
# savepoint, lock the attempt (with its policy and accommodation), the learner's attempts with
# results and certificate, the items, the result, the items' grading, release
SUBMIT_BUDGET = 8
SUBMIT_PASS_BUDGET = SUBMIT_BUDGET + 1  # the certificate
SUBMIT_AGAIN_BUDGET = 6  # the submit's reads, no writes
# The periodic task: the expired attempts' ids, then a submit's statements for each; a
# certificate it issues names the learner through accounts.api (one more query, only then).
FINALIZE_EXPIRED_BUDGET = 1 + SUBMIT_BUDGET
FINALIZE_EXPIRED_PASS_BUDGET = 1 + SUBMIT_PASS_BUDGET + 1
# the module outline, the policy with the accommodation and approved count, the attempts with
# results and certificate, the enrollment, the completed steps
OVERVIEW_BUDGET = 6
ATTEMPT_BUDGET = 3  # the attempt with its policy, result and module; its items
ATTEMPT_FINALIZED_BUDGET = 4  # … and the learner's attempts for the review policy


def within(budget, run):
    """``run()``'s value, after checking it sends at most ``budget`` queries."""
    value = []
    assert_queries_within(lambda: value.append(run()), budget=budget)
    return value[0]


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


def test_start_save_submit_stay_within_their_budgets(learner_api, exam, items_per_attempt):
    attempt = within(START_BUDGET, lambda: exam.start(learner_api))
    assert len(attempt["items"]) == items_per_attempt
    assert attempt["mode"] == "certifying" and attempt["time_limit_minutes"] == 20 + 15
    answers = exam.answers(attempt, correct=0)
    within(SAVE_BUDGET, lambda: exam.save(learner_api, attempt["id"], answers))
    result = within(SUBMIT_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))
    assert result["item_count"] == items_per_attempt
    within(SUBMIT_AGAIN_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))


def test_submit_after_earlier_attempts_stays_within_its_budget(
    learner_api, exam, items_per_attempt
):
    for _ in range(2):
        exam.take(learner_api, correct=0)
    attempt = exam.start(learner_api)
    within(SUBMIT_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))
    within(SUBMIT_AGAIN_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))


def test_passing_submit_with_certificate(learner_api, exam, items_per_attempt):
    attempt = exam.start(learner_api)
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=items_per_attempt))
    result = within(SUBMIT_PASS_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))
    assert result["certificate"] is not None


@pytest.mark.parametrize("passing", [False, True], ids=["failed", "passed"])
def test_finalizing_an_expired_attempt_stays_within_its_budget(
    learner_api, exam, items_per_attempt, passing
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
    budget = FINALIZE_EXPIRED_PASS_BUDGET if passing else FINALIZE_EXPIRED_BUDGET
    assert within(budget, exam_attempts_finalize_expired) == 1
    assert Certificate.objects.exists() is passing


@pytest.mark.parametrize("earlier_attempts", [0, 2])
def test_reads_stay_within_their_budgets(learner_api, exam, items_per_attempt, earlier_attempts):
    for _ in range(earlier_attempts):
        exam.take(learner_api, correct=0)
    attempt = exam.start(learner_api)
    url = f"/api/v1/exam-attempts/{attempt['id']}/"
    body = within(
        OVERVIEW_BUDGET, lambda: learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()
    )
    assert len(body["attempts"]) == earlier_attempts + 1
    assert body["mode"] == "certifying" and body["limits"]["max_attempts"] == 3 + 2
    within(ATTEMPT_BUDGET, lambda: learner_api.get(url))
    exam.submit(learner_api, attempt["id"])
    within(ATTEMPT_FINALIZED_BUDGET, lambda: learner_api.get(url))


@pytest.mark.parametrize("passes", [1, 3])
def test_certificate_list_stays_within_its_budget(
    make_learner, enroll, client_for, exam, bank, passes
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
    body = within(3, lambda: client.get("/api/v1/certificates/").json())
    assert body["count"] == passes


def test_start_refused_by_the_gate_stays_within_the_start_budget(
    make_learner, enroll, client_for, exam, items_per_attempt
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
    # the start's reads, rolled back to the savepoint: no writes
    body = within(START_BUDGET, lambda: exam.start(client, expect=409))
    assert body["error"]["code"] == "steps_incomplete"
    assert len(body["error"]["detail"]["missing_steps"]) == 32 - 5


def test_a_practice_start_and_submit_stay_within_the_same_budgets(
    learner_api, exam, items_per_attempt
):
    """Too few approved items for an attempt: drafts drawn too, within the same budgets."""
    from quizzes.models import ExamItem, ExamPolicy

    approved = ExamItem.objects.filter(status="approved").count()
    ExamPolicy.objects.update(items_per_attempt=approved + 1)
    attempt = within(START_BUDGET, lambda: exam.start(learner_api))
    assert attempt["mode"] == "practice"
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=len(attempt["items"])))
    result = within(SUBMIT_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))
    assert result["passed"] and result["certificate"] is None


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


def test_typed_kinds_stay_within_the_same_budgets(learner_api, exam, typed_items_per_attempt):
    """Short-answer, numerical and matching items stay within the choice items' budgets,
    whatever their number: start, save, submit, replay and the reads."""
    attempt = within(START_BUDGET, lambda: exam.start(learner_api))
    url = f"/api/v1/exam-attempts/{attempt['id']}/"
    assert len(attempt["items"]) == typed_items_per_attempt
    assert {item["kind"] for item in attempt["items"]} == {"short_answer", "numerical", "matching"}
    within(ATTEMPT_BUDGET, lambda: learner_api.get(url))
    answers = exam.answers(attempt, correct=typed_items_per_attempt)
    within(SAVE_BUDGET, lambda: exam.save(learner_api, attempt["id"], answers))
    result = within(SUBMIT_PASS_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))
    assert result["correct_count"] == typed_items_per_attempt
    within(SUBMIT_AGAIN_BUDGET, lambda: exam.submit(learner_api, attempt["id"]))
    within(ATTEMPT_FINALIZED_BUDGET, lambda: learner_api.get(url))
