"""The typed item kinds (short answer, numerical, matching) in an attempt, over the API: what a
learner sees, saving each kind's answer, refusing bad input, grading and the review."""

from __future__ import annotations

import pytest

from quizzes.models import ExamAttemptItem
from tests.factories import exam_typed_answer
from tests.quizzes.conftest import FORBIDDEN_BEFORE_REVIEW, keys_in

pytestmark = pytest.mark.django_db


def _by_kind(attempt: dict) -> dict[str, dict]:
    return {item["kind"]: item for item in attempt["items"]}


def _save(client, attempt_id, answers, **headers):
    return client.put(
        f"/api/v1/exam-attempts/{attempt_id}/answers/",
        {"answers": answers},
        format="json",
        **headers,
    )


def test_an_attempt_shows_typed_items_without_their_answers(learner_api, exam, typed_bank):
    attempt = exam.start(learner_api)
    items = _by_kind(attempt)
    assert set(items) == {"short_answer", "numerical", "matching"}
    assert not keys_in(attempt) & FORBIDDEN_BEFORE_REVIEW
    text = str(attempt)
    for secret in ("nvcc", "NVIDIA CUDA Compiler", "'14'", "0.5", "tolerance"):
        assert secret not in text
    short, number = items["short_answer"], items["numerical"]
    for item in (short, number):
        assert item["options"] == [] and item["choices"] == [] and item["pairs"] == []
        assert item["text"] is None and item["number"] is None and item["answered"] is False
    matching = items["matching"]
    assert sorted(o["text"] for o in matching["options"]) == ["BF16", "FP16", "FP32", "INT8"]
    assert [o["key"] for o in matching["options"]] == ["a", "b", "c", "d"]
    # 2 Byte once, the distractor too; keys 1..4 in the order shown.
    assert sorted(c["text"] for c in matching["choices"]) == [
        "1 Byte",
        "2 Byte",
        "4 Byte",
        "8 Byte",
    ]
    assert [c["key"] for c in matching["choices"]] == ["1", "2", "3", "4"]


def test_right_answers_of_every_typed_kind_score_100(learner_api, exam, typed_bank):
    attempt = exam.start(learner_api)
    answers = exam.answers(attempt, correct=3)
    saved = exam.save(learner_api, attempt["id"], answers)
    assert saved == {**saved, "saved_count": 3, "answered_count": 3}
    again = learner_api.get(f"/api/v1/exam-attempts/{attempt['id']}/").json()
    shown = {item["id"]: item for item in again["items"]}
    for answer in answers:
        item = shown[answer["item"]]
        assert item["answered"] is True
        if "text" in answer:
            assert item["text"] == answer["text"]
        if "number" in answer:
            assert item["number"] == answer["number"]  # as typed, with the decimal comma
        if "pairs" in answer:
            assert sorted(item["pairs"], key=str) == sorted(answer["pairs"], key=str)
    assert again["answered_count"] == 3
    result = exam.submit(learner_api, attempt["id"])
    assert result["correct_count"] == 3 and result["score_percent"] == "100.00"
    assert result["passed"] is True


def test_wrong_answers_score_0(learner_api, exam, typed_bank):
    result = exam.take(learner_api, correct=0)
    assert result["correct_count"] == 0 and result["score_percent"] == "0.00"


@pytest.mark.parametrize(
    ("kind", "answer", "right"),
    [
        ("short_answer", {"text": "  NVIDIA cuda compiler. "}, True),
        ("short_answer", {"text": "gcc"}, False),
        ("numerical", {"number": "13,5"}, True),  # exactly at -tolerance
        ("numerical", {"number": "14.5"}, True),  # exactly at +tolerance
        ("numerical", {"number": " 14 "}, True),
        ("numerical", {"number": "14,51"}, False),  # just outside
        ("numerical", {"number": "13.49"}, False),
    ],
)
def test_typed_answers_graded_on_the_server(learner_api, exam, typed_bank, kind, answer, right):
    attempt = exam.start(learner_api)
    item = _by_kind(attempt)[kind]
    exam.save(learner_api, attempt["id"], [{"item": item["id"], **answer}])
    result = exam.submit(learner_api, attempt["id"])
    assert result["correct_count"] == (1 if right else 0)


def test_a_matching_item_is_right_only_with_every_pair(learner_api, exam, typed_bank):
    attempt = exam.start(learner_api)
    row = ExamAttemptItem.objects.get(attempt_id=attempt["id"], kind="matching")
    full = exam_typed_answer(row, right=True)
    partial = {"item": row.pk, "pairs": full["pairs"][:3]}
    saved = exam.save(learner_api, attempt["id"], [partial])
    assert saved["answered_count"] == 0  # three of four options paired: not answered yet
    assert ExamAttemptItem.objects.get(pk=row.pk).answer_pairs == {
        pair["option"]: pair["choice"] for pair in full["pairs"][:3]
    }
    assert exam.submit(learner_api, attempt["id"])["correct_count"] == 0


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("de", "ist keine Zahl"),
        ("en", "is not a number"),
    ],
)
def test_a_number_that_is_no_number_is_400_in_the_learners_language_and_saves_nothing(
    learner_api, exam, typed_bank, language, expected
):
    attempt = exam.start(learner_api)
    items = _by_kind(attempt)
    good = {"item": items["short_answer"]["id"], "text": "nvcc"}
    bad = {"item": items["numerical"]["id"], "number": "14 GB"}
    response = _save(learner_api, attempt["id"], [good, bad], HTTP_ACCEPT_LANGUAGE=language)
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["code"] == "invalid"
    (problem,) = error["detail"]
    assert problem["code"] == "invalid_number" and problem["item"] == bad["item"]
    assert problem["reason"] == "not_a_number"
    assert expected in problem["message"] and "14 GB" in problem["message"]
    position = items["numerical"]["position"]
    assert str(position) in problem["message"]
    assert not ExamAttemptItem.objects.filter(answer_text__isnull=False).exists()


@pytest.mark.parametrize(
    ("kind", "answer", "code"),
    [
        ("short_answer", {"selected": ["a"]}, "wrong_answer_field"),
        ("numerical", {"text": "14"}, "wrong_answer_field"),
        ("matching", {"number": "1"}, "wrong_answer_field"),
        ("matching", {"pairs": [{"option": "z", "choice": "1"}]}, "unknown_option"),
        ("matching", {"pairs": [{"option": "a", "choice": "9"}]}, "unknown_choice"),
        (
            "matching",
            {"pairs": [{"option": "a", "choice": "1"}, {"option": "a", "choice": "2"}]},
            "duplicate_option",
        ),
        ("numerical", {"number": "1" * 60}, "invalid_number"),
    ],
)
def test_bad_typed_answers_are_400(learner_api, exam, typed_bank, kind, answer, code):
    attempt = exam.start(learner_api)
    item = _by_kind(attempt)[kind]
    response = _save(learner_api, attempt["id"], [{"item": item["id"], **answer}])
    assert response.status_code == 400, response.json()
    assert [p["code"] for p in response.json()["error"]["detail"]] == [code]


def test_a_choice_item_refuses_a_text_answer(learner_api, exam, bank, policy):
    attempt = exam.start(learner_api)
    item = attempt["items"][0]
    response = _save(learner_api, attempt["id"], [{"item": item["id"], "text": "a"}])
    assert response.status_code == 400
    (problem,) = response.json()["error"]["detail"]
    assert problem["code"] == "wrong_answer_field" and problem["expected"] == "selected"


@pytest.mark.parametrize(
    "answer",
    [
        {},
        {"selected": ["a"], "text": "b"},
        {"text": 5 * "x" * 101},
        {"pairs": "a"},
        {"pairs": [{"option": "a"}]},
    ],
)
def test_malformed_typed_bodies_are_400(learner_api, exam, typed_bank, answer):
    attempt = exam.start(learner_api)
    item = attempt["items"][0]
    response = _save(learner_api, attempt["id"], [{"item": item["id"], **answer}])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "invalid"


def test_clearing_typed_answers(learner_api, exam, typed_bank):
    attempt = exam.start(learner_api)
    answers = exam.answers(attempt, correct=3)
    exam.save(learner_api, attempt["id"], answers)
    clear = []
    for answer in answers:
        field = next(name for name in ("text", "number", "pairs") if name in answer)
        clear.append({"item": answer["item"], field: [] if field == "pairs" else "  "})
    assert exam.save(learner_api, attempt["id"], clear)["answered_count"] == 0
    assert not ExamAttemptItem.objects.filter(answer_text__isnull=False).exists()
    assert not ExamAttemptItem.objects.filter(answer_pairs__isnull=False).exists()


def test_the_review_shows_the_accepted_answers_once_allowed(learner_api, exam, typed_bank, policy):
    policy.review_content, policy.review_timing = "correct_answers", "immediately"
    policy.save()
    attempt = exam.start(learner_api)
    answers = {a["item"]: a for a in exam.answers(attempt, correct=3)}
    exam.save(learner_api, attempt["id"], list(answers.values()))
    result = exam.submit(learner_api, attempt["id"])
    items = {item["id"]: item for item in result["items"]}
    kinds = {item["id"]: item["kind"] for item in attempt["items"]}
    for item_id, item in items.items():
        assert item["is_correct"] is True
        if kinds[item_id] == "short_answer":
            assert item["accepted_answers"] == ["nvcc", "NVIDIA CUDA Compiler"]
            assert item["text"] == "NVCC" and item["number"] is None
        elif kinds[item_id] == "numerical":
            assert item["accepted_answers"] == ["14 ± 0.5"]
            assert item["number"] == "14,5" and item["text"] is None
        else:
            assert item["accepted_answers"] == []
            assert sorted(item["correct_pairs"], key=str) == sorted(
                answers[item_id]["pairs"], key=str
            )
            assert sorted(item["pairs"], key=str) == sorted(answers[item_id]["pairs"], key=str)


def test_a_review_showing_correctness_only_keeps_the_accepted_answers(
    learner_api, exam, typed_bank, policy
):
    policy.review_content, policy.review_timing = "correctness", "immediately"
    policy.save()
    result = exam.take(learner_api, correct=1)
    assert {"is_correct", "text", "number", "pairs"} <= keys_in(result)
    assert not keys_in(result) & {"accepted_answers", "correct_pairs", "correct_keys"}


def test_the_data_export_holds_the_typed_answers(learner, learner_api, exam, typed_bank):
    from quizzes.api import learner_export

    attempt = exam.start(learner_api)
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=3))
    exported = learner_export(learner.pk)["exam_attempts"][0]["items"]
    assert {item["kind"] for item in exported} == {"short_answer", "numerical", "matching"}
    assert any(item["text"] == "NVCC" for item in exported)
    assert any(item["number"] == "14,5" for item in exported)
    assert not keys_in(exported) & FORBIDDEN_BEFORE_REVIEW  # still open: no answer key
