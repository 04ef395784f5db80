"""The exam cannot be gamed: no answer leaks before the review policy allows, client scores are
ignored, another learner's attempt is invisible."""

from __future__ import annotations

import pytest

from quizzes.models import ExamAttemptItem, ExamPolicy, ExamResult

pytestmark = pytest.mark.django_db

# Keys that would tell a learner the answer or grade an item.
REVEALING = {"correct_keys", "is_correct", "score", "explanation", "correct"}


def walk_exam(client, exam, *, correct: int) -> list[tuple[str, dict]]:
    """Every exam endpoint a learner can call around one attempt, with its JSON."""
    seen = []

    def record(label, response):
        assert response.status_code < 500, label
        seen.append((label, response.json()))
        return response.json()

    record("overview before", client.get("/api/v1/modules/self-hosting-27/exam/"))
    attempt = record("start", client.post("/api/v1/modules/self-hosting-27/exam/attempts/"))
    record("detail", client.get(f"/api/v1/exam-attempts/{attempt['id']}/"))
    answers = exam.answers(attempt, correct=correct)
    record(
        "save",
        client.put(
            f"/api/v1/exam-attempts/{attempt['id']}/answers/", {"answers": answers}, format="json"
        ),
    )
    record("overview during", client.get("/api/v1/modules/self-hosting-27/exam/"))
    record("submit", client.post(f"/api/v1/exam-attempts/{attempt['id']}/submit/"))
    record("submit again", client.post(f"/api/v1/exam-attempts/{attempt['id']}/submit/"))
    record("detail after", client.get(f"/api/v1/exam-attempts/{attempt['id']}/"))
    record("overview after", client.get("/api/v1/modules/self-hosting-27/exam/"))
    record("certificates", client.get("/api/v1/certificates/"))
    return seen


def revealing_keys(body, json_keys) -> set[str]:
    return json_keys(body) & REVEALING


@pytest.mark.parametrize(
    ("content", "timing"),
    [
        ("correct_answers", "after_passing"),
        ("correct_answers", "after_last_attempt"),
        ("correctness", "after_last_attempt"),
        ("score_only", "immediately"),
    ],
)
def test_nothing_revealing_before_the_policy_allows(
    learner_api, exam, bank, policy, json_keys, content, timing
):
    policy.review_content = content
    policy.review_timing = timing
    policy.save()
    # A failed attempt with attempts left: none of these policies allows a review yet.
    for label, body in walk_exam(learner_api, exam, correct=2):
        assert not revealing_keys(body, json_keys), label
    # The answers' texts are in the response only as options, never marked.
    item = ExamAttemptItem.objects.filter(explanation__gt="").first()
    detail = learner_api.get(f"/api/v1/exam-attempts/{item.attempt_id}/").content.decode()
    assert item.explanation not in detail


def test_the_walk_does_see_answers_when_the_policy_allows(
    learner_api, exam, bank, policy, json_keys
):
    # The control: the same walk finds the keys once review is due, so the scan can fail.
    policy.review_content = ExamPolicy.ReviewContent.CORRECT_ANSWERS
    policy.review_timing = ExamPolicy.ReviewTiming.IMMEDIATELY
    policy.save()
    seen = dict(walk_exam(learner_api, exam, correct=2))
    for label in ("overview before", "start", "detail", "save", "overview during"):
        assert not revealing_keys(seen[label], json_keys), label
    for label in ("submit", "submit again", "detail after"):
        assert {"correct_keys", "is_correct", "explanation", "score"} <= json_keys(seen[label])


def test_correctness_review_shows_no_correct_keys_or_explanations(
    learner_api, exam, bank, policy, json_keys
):
    policy.review_content = ExamPolicy.ReviewContent.CORRECTNESS
    policy.review_timing = ExamPolicy.ReviewTiming.IMMEDIATELY
    policy.save()
    result = exam.take(learner_api, correct=6)
    assert result["review"]["shows"] == "correctness"
    assert "is_correct" in json_keys(result)
    assert not json_keys(result) & {"correct_keys", "explanation"}


def test_scores_and_correctness_sent_by_the_client_are_ignored(learner_api, exam, bank):
    attempt = exam.start(learner_api)
    wrong = exam.answers(attempt, correct=0)
    for answer in wrong:
        answer.update({"is_correct": True, "score": 1, "correct_keys": answer["selected"]})
    response = learner_api.put(
        f"/api/v1/exam-attempts/{attempt['id']}/answers/",
        {"answers": wrong, "score_percent": 100, "passed": True},
        format="json",
    )
    assert response.status_code == 200
    result = exam.submit(
        learner_api,
        attempt["id"],
        body={"score_percent": "100.00", "passed": True, "correct_count": 10, "items": []},
    )
    assert result["score_percent"] == "0.00" and result["passed"] is False
    stored = ExamResult.objects.get()
    assert stored.score_percent == 0 and stored.passed is False
    # The stored copies of the items were not touched by the client's claims.
    assert all(item.correct_keys != item.selected_keys for item in ExamAttemptItem.objects.all())


def test_another_learners_attempt_is_404(learner_api, exam, bank, make_learner, enroll, client_for):
    attempt = exam.start(learner_api)
    intruder = make_learner("mallory")
    enroll(intruder)
    other = client_for(intruder)
    answers = exam.answers(attempt, correct=10)
    checks = [
        other.get(f"/api/v1/exam-attempts/{attempt['id']}/"),
        other.put(
            f"/api/v1/exam-attempts/{attempt['id']}/answers/", {"answers": answers}, format="json"
        ),
        other.post(f"/api/v1/exam-attempts/{attempt['id']}/submit/"),
    ]
    for response in checks:
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "attempt_not_found"
    # Nothing happened to the owner's attempt.
    assert not ExamResult.objects.exists()
    assert not ExamAttemptItem.objects.filter(selected_keys__isnull=False).exists()
    # And a missing id looks exactly the same.
    missing = other.get("/api/v1/exam-attempts/987654/")
    assert missing.status_code == 404 and missing.json() == checks[0].json()


def test_another_learners_certificate_is_not_listed(
    learner_api, exam, bank, make_learner, client_for
):
    exam.take(learner_api, correct=10)
    other = client_for(make_learner("otto"))
    assert other.get("/api/v1/certificates/").json()["count"] == 0


def test_option_keys_say_nothing_about_the_answer(
    course, bank, policy, make_learner, enroll, client_for, exam
):
    from quizzes.models import ExamItem

    # An author who always puts the right answer first, under key "a".
    ExamItem.objects.update(is_active=False)
    ExamItem.objects.create(
        module=course,
        kind="single_choice",
        prompt="Welches Format hat 32 Bit?",
        options=[
            {"key": "a", "text": "FP32"},
            {"key": "b", "text": "FP16"},
            {"key": "c", "text": "BF16"},
            {"key": "d", "text": "INT8"},
        ],
        correct_keys=["a"],
        origin="hand_written",
    )
    policy.items_per_attempt = 1
    policy.save()
    correct_keys = set()
    for index in range(12):
        user = make_learner(f"l{index}")
        enroll(user)
        attempt = exam.start(client_for(user))
        item = attempt["items"][0]
        assert [o["key"] for o in item["options"]] == ["a", "b", "c", "d"]
        stored = ExamAttemptItem.objects.get(pk=item["id"])
        right = stored.correct_keys[0]
        assert next(o["text"] for o in item["options"] if o["key"] == right) == "FP32"
        correct_keys.add(right)
    assert len(correct_keys) > 1
