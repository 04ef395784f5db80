"""The exam over the API: overview, start, autosave, submit, review, attempts and waiting rules."""

from __future__ import annotations

import datetime
from decimal import Decimal

import pytest
from django.utils import timezone

from quizzes.models import Certificate, ExamAttempt, ExamAttemptItem, ExamPolicy, ExamResult
from tests.factories import steps_complete

pytestmark = pytest.mark.django_db


def late(*, seconds: int) -> None:
    """Move every attempt's clock so its deadline passed ``seconds`` ago."""
    now = timezone.now()
    ExamAttempt.objects.update(
        started_at=now - datetime.timedelta(minutes=20, seconds=seconds),
        deadline_at=now - datetime.timedelta(seconds=seconds),
    )


def overview(client, module="self-hosting-27"):
    response = client.get(f"/api/v1/modules/{module}/exam/")
    assert response.status_code == 200, response.json()
    return response.json()


def test_looking_at_an_exam_writes_no_policy(learner_api):
    """The overview of a module whose policy was never saved shows the defaults, and saves
    nothing: the first attempt (or item generation) saves the policy."""
    before = overview(learner_api)
    assert before["policy"]["items_per_attempt"] == 10
    assert before["policy"]["pass_mark_percent"] == "80.00"
    assert not ExamPolicy.objects.exists()


def test_whole_exam_start_save_submit_result_certificate(learner_api, exam, bank):
    before = overview(learner_api)
    assert before["eligibility"]["can_start"] is True
    assert before["policy"]["items_per_attempt"] == 10
    assert before["policy"]["time_limit_minutes"] == 20
    assert Decimal(before["policy"]["pass_mark_percent"]) == Decimal(80)
    assert before["policy"]["max_attempts"] == 3
    assert before["attempts"] == [] and before["certificate"] is None

    attempt = exam.start(learner_api)
    assert len(attempt["items"]) == 10 and attempt["item_count"] == 10
    assert 1190 <= attempt["seconds_left"] <= 1200
    assert attempt["finalized"] is False and attempt["result"] is None
    for item in attempt["items"]:
        expected = 2 if item["kind"] == "true_false" else 4
        assert len(item["options"]) == expected
        assert item["selected_keys"] == []

    answers = exam.answers(attempt, correct=9)
    saved = exam.save(learner_api, attempt["id"], answers[:4])
    assert saved["saved_count"] == 4 and saved["answered_count"] == 4
    saved = exam.save(learner_api, attempt["id"], answers)
    assert saved["answered_count"] == 10

    shown = learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/").json()
    assert [i["selected_keys"] for i in shown["items"]] == [a["selected"] for a in answers]

    result = exam.submit(learner_api, attempt["id"])
    assert Decimal(result["score_percent"]) == Decimal(90)
    assert result["passed"] is True
    assert result["correct_count"] == 9 and result["item_count"] == 10
    assert result["reason"] == "submitted"
    assert result["final_grade"]["passed"] is True
    assert result["certificate"]["code"]
    # Default review: correctness per item after the last attempt, and passing ends the attempts.
    assert result["review"]["shows"] == "correctness"
    assert sum(1 for item in result["items"] if item["is_correct"]) == 9

    again = exam.submit(learner_api, attempt["id"])
    assert again == result
    assert ExamResult.objects.filter(attempt_id=attempt["id"]).count() == 1

    after = overview(learner_api)
    assert after["certificate"]["code"] == result["certificate"]["code"]
    assert after["final_grade"]["passed"] is True
    assert after["eligibility"]["can_start"] is False
    assert [r["code"] for r in after["eligibility"]["reasons"]] == ["already_passed"]
    assert after["attempts"][0]["score_percent"] == "90.00"

    certificates = learner_api.get("/api/v1/certificates/").json()
    assert certificates["count"] == 1
    assert certificates["results"][0]["module"] == "self-hosting-27"

    detail = learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/").json()
    assert detail["finalized"] is True and detail["seconds_left"] == 0
    assert detail["result"] == result


def test_start_needs_enrollment(learner, client_for, exam, bank):
    client = client_for(learner)
    body = overview(client)
    assert body["eligibility"]["can_start"] is False
    assert body["eligibility"]["reasons"][0]["code"] == "not_enrolled"
    response = client.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "not_enrolled"
    assert not ExamAttempt.objects.exists()


def test_unknown_module_is_404(learner_api):
    assert learner_api.get("/api/v1/modules/nope/exam/").status_code == 404
    response = learner_api.post("/api/v1/modules/nope/exam/attempts/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "module_not_found"


def test_anonymous_gets_401_everywhere(api_client, course):
    for method, url in [
        ("get", "/api/v1/modules/self-hosting-27/exam/"),
        ("post", "/api/v1/modules/self-hosting-27/exam/attempts/"),
        ("get", "/api/v1/exam-attempts/1/"),
        ("put", "/api/v1/exam-attempts/1/answers/"),
        ("post", "/api/v1/exam-attempts/1/submit/"),
        ("get", "/api/v1/certificates/"),
    ]:
        response = getattr(api_client, method)(url)
        assert response.status_code in (401, 403), url
        assert "error" in response.json()


def test_one_attempt_at_a_time(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    response = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "attempt_in_progress"
    assert overview(learner_api)["attempt_in_progress"] == attempt["id"]


def test_max_attempts_then_409_and_review_opens(learner_api, exam, bank):
    for number in (1, 2, 3):
        result = exam.take(learner_api, correct=5)
        assert result["passed"] is False
        # after_last_attempt: only the score until no attempt is left.
        if number < 3:
            assert result["review"]["shows"] == "score_only" and result["items"] is None
        else:
            assert result["review"]["shows"] == "correctness" and len(result["items"]) == 10
    response = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "no_attempts_left"
    body = overview(learner_api)
    assert body["eligibility"]["attempts_left"] == 0
    assert body["final_grade"] == {
        "grading_method": "highest",
        "score_percent": "50.00",
        "passed": False,
    }
    assert not Certificate.objects.exists()


def test_wait_between_attempts(learner_api, exam, bank, policy):
    policy.wait_between_attempts_minutes = 60
    policy.save()
    exam.take(learner_api, correct=0)
    response = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "waiting"
    assert error["detail"]["available_at"]
    ExamResult.objects.update(finalized_at=timezone.now() - datetime.timedelta(minutes=61))
    exam.start(learner_api)


def test_every_step_is_required_by_default(make_learner, enroll, client_for, exam, bank):
    """A new module's policy requires every step: a learner who studied nothing cannot start
    (the certificate of issue 14 was earned with 0 of 32 steps)."""
    from quizzes.models import ExamPolicy

    learner = make_learner()
    enroll(learner, steps_done=False)
    client = client_for(learner)
    assert ExamPolicy.objects.get().required_step_share == 100
    response = client.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "steps_incomplete"

    steps_complete(learner, ExamPolicy.objects.get().module)
    exam.start(client)


def test_average_grading_and_certificate_by_final_grade(learner_api, exam, bank, policy):
    policy.grading_method = ExamPolicy.GradingMethod.AVERAGE
    policy.save()
    first = exam.take(learner_api, correct=7)
    assert first["final_grade"]["score_percent"] == "70.00"
    second = exam.take(learner_api, correct=10)
    # The second attempt passes on its own, but the average (85) is what counts.
    assert second["passed"] is True
    assert second["final_grade"] == {
        "grading_method": "average",
        "score_percent": "85.00",
        "passed": True,
    }
    certificate = Certificate.objects.get()
    assert certificate.score_percent == Decimal("85.00")
    assert second["certificate"]["code"] == certificate.code


def test_items_per_attempt_and_time_limit_follow_policy(learner_api, exam, bank, policy):
    policy.items_per_attempt = 4
    policy.time_limit_minutes = 5
    policy.save()
    attempt = exam.start(learner_api)
    assert len(attempt["items"]) == 4
    assert 290 <= attempt["seconds_left"] <= 300
    stored = ExamAttempt.objects.get()
    assert stored.deadline_at - stored.started_at == datetime.timedelta(minutes=5)


def test_draw_prefers_distinct_steps_and_shuffles_per_attempt(
    make_learner, enroll, client_for, exam, bank
):
    orders = set()
    for index in range(4):
        user = make_learner(f"learner{index}")
        enroll(user)
        attempt = exam.start(client_for(user))
        items = ExamAttemptItem.objects.filter(attempt_id=attempt["id"]).select_related("item")
        steps = [i.item.step_id for i in items]
        assert len(set(steps)) == 10
        orders.add(tuple(i.item_id for i in items))
    assert len(orders) > 1


@pytest.mark.parametrize(
    ("answers", "code"),
    [
        ([{"item": 999999, "selected": ["a"]}], "unknown_item"),
        ("first:zz", "unknown_option"),
        ("first:twice", "duplicate_item"),
    ],
)
def test_bad_answers_are_400_and_save_nothing(learner_api, exam, bank, answers, code):
    attempt = exam.start(learner_api)
    first = attempt["items"][0]
    key = first["options"][0]["key"]
    if answers == "first:zz":
        answers = [{"item": first["id"], "selected": ["zz"]}]
    elif answers == "first:twice":
        answers = [
            {"item": first["id"], "selected": [key]},
            {"item": first["id"], "selected": [key]},
        ]
    good = {
        "item": attempt["items"][1]["id"],
        "selected": [attempt["items"][1]["options"][0]["key"]],
    }
    body = exam.save(learner_api, attempt["id"], [good, *answers], expect=400)
    assert body["error"]["code"] == "invalid"
    assert {problem["code"] for problem in body["error"]["detail"]} == {code}
    assert not ExamAttemptItem.objects.filter(selected_keys__isnull=False).exists()


def test_two_keys_for_a_single_choice_item_is_400(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    item = next(i for i in attempt["items"] if i["kind"] == "single_choice")
    keys = [o["key"] for o in item["options"][:2]]
    body = exam.save(learner_api, attempt["id"], [{"item": item["id"], "selected": keys}], 400)
    assert body["error"]["detail"][0]["code"] == "one_option_only"


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"answers": "a"},
        {"answers": [{"item": "x", "selected": ["a"]}]},
        {"answers": [{"item": 1, "selected": "a"}]},
        {"answers": [{"item": 1}]},
    ],
)
def test_malformed_answers_body_is_400(learner_api, exam, bank, body):
    attempt = exam.start(learner_api)
    response = learner_api.put(
        f"/api/v1/exam-attempts/{attempt['id']}/answers/", body, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_clearing_an_answer(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    item = attempt["items"][0]
    exam.save(
        learner_api, attempt["id"], [{"item": item["id"], "selected": [item["options"][0]["key"]]}]
    )
    saved = exam.save(learner_api, attempt["id"], [{"item": item["id"], "selected": []}])
    assert saved["answered_count"] == 0


def test_save_after_deadline_plus_grace_is_409_within_grace_is_fine(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    answers = exam.answers(attempt, correct=10)
    late(seconds=10)
    exam.save(learner_api, attempt["id"], answers[:1])  # 10 s late: inside the grace period
    late(seconds=31)
    body = exam.save(learner_api, attempt["id"], answers, expect=409)
    assert body["error"]["code"] == "deadline_passed"
    result = exam.submit(learner_api, attempt["id"])
    # Only the answer saved in time counts; the late submit is recorded as expired.
    assert result["correct_count"] == 1 and result["reason"] == "expired"


def test_save_after_submit_is_409(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    answers = exam.answers(attempt, correct=3)
    exam.submit(learner_api, attempt["id"])
    body = exam.save(learner_api, attempt["id"], answers, expect=409)
    assert body["error"]["code"] == "attempt_finalized"


def test_unanswered_items_count_as_wrong(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    result = exam.submit(learner_api, attempt["id"])
    assert result["score_percent"] == "0.00" and result["passed"] is False


def test_no_items_is_409(learner_api, course, bank):
    from quizzes.models import ExamItem

    ExamItem.objects.update(is_active=False)
    response = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "no_items"


@pytest.mark.parametrize(
    ("content", "timing", "method", "scores"),
    [
        ("score_only", "after_last_attempt", "highest", [7]),
        ("correctness", "immediately", "highest", [None]),  # nothing answered
        ("correctness", "immediately", "highest", [9]),
        ("correct_answers", "immediately", "average", [0, 9]),
        ("correct_answers", "after_passing", "last", [10]),
    ],
)
def test_result_body_is_the_same_for_the_grading_and_a_replay(
    learner_api, learner, exam, bank, policy, content, timing, method, scores
):
    """The submit's body and a replay's result view give the same declared fields, and the
    review shows what the policy allows."""
    import json

    from quizzes.rest.serializers import ResultSerializer
    from quizzes.selectors import attempt_result_view
    from quizzes.services.attempt_finalize import exam_attempt_submit

    policy.review_content, policy.review_timing, policy.grading_method = content, timing, method
    policy.save()
    for correct in scores:
        attempt = exam.start(learner_api)
        if correct is not None:
            exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=correct))
        body = exam.submit(learner_api, attempt["id"])
    done = exam_attempt_submit(learner=learner, attempt_id=attempt["id"])
    assert done.graded_now is False
    view = attempt_result_view(
        attempt=done.attempt,
        policy=done.policy,
        items=done.items,
        attempts=done.attempts,
        certificate_code=done.certificate_code,
    )
    assert body == json.loads(json.dumps(ResultSerializer(view).data))
    assert body["review"]["shows"] == (
        content if timing == "immediately" or body["passed"] else "score_only"
    )
