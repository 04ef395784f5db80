"""A bank someone stands behind: review status, who and when, certifying vs practice exams.

Status transitions in the service and the admin (actions, the change form), what an edit or a
regeneration does to an approved item, which items each mode draws, that only a certifying
exam issues certificates, practice feedback, and what the migration makes of existing data.
"""

from __future__ import annotations

import json

import pytest
from django.db import IntegrityError, transaction
from django.test import Client
from django.utils import timezone

from quizzes.models import Certificate, ExamAttemptItem, ExamItem, ExamPolicy
from quizzes.services.item_review import (
    CONTENT_FIELDS,
    exam_item_edit_review,
    exam_items_review,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def reviewer(db):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.create_superuser(
        username="kim", email="kim@example.org", password="a-long-admin-password-1"
    )


@pytest.fixture
def admin_web(reviewer):
    # English: these tests read the English texts (German: tests/lms/test_admin_language.py).
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(reviewer)
    return client


def _ids(module, count=None, **filters):
    ids = ExamItem.objects.filter(module=module, **filters).order_by("id")
    ids = ids.values_list("id", flat=True)
    return list(ids if count is None else ids[:count])


# --- status transitions -------------------------------------------------------------------------


def test_generated_items_start_as_drafts(course, draft_bank):
    assert set(ExamItem.objects.values_list("status", flat=True)) == {"draft"}
    assert not ExamItem.objects.filter(reviewed_at__isnull=False).exists()


def test_review_records_who_and_when_and_draft_clears_it(course, draft_bank, reviewer):
    ids = _ids(course, 3)
    before = timezone.now()
    assert exam_items_review(item_ids=ids, status="approved", reviewer_id=reviewer.pk) == 3
    approved = ExamItem.objects.filter(pk__in=ids)
    assert {(i.status, i.reviewed_by_id) for i in approved} == {("approved", reviewer.pk)}
    assert all(i.reviewed_at >= before for i in approved)
    # Approving again changes nothing (the first decision's reviewer and time stay).
    first_time = approved[0].reviewed_at
    assert exam_items_review(item_ids=ids, status="approved", reviewer_id=None) == 0
    assert ExamItem.objects.get(pk=ids[0]).reviewed_at == first_time

    assert exam_items_review(item_ids=ids[:1], status="rejected", reviewer_id=reviewer.pk) == 1
    assert exam_items_review(item_ids=ids[1:2], status="draft", reviewer_id=reviewer.pk) == 1
    draft = ExamItem.objects.get(pk=ids[1])
    assert (draft.status, draft.reviewed_by_id, draft.reviewed_at) == ("draft", None, None)
    with pytest.raises(ValueError):
        exam_items_review(item_ids=ids, status="maybe", reviewer_id=None)


def test_the_database_refuses_a_decision_without_a_time(course, draft_bank):
    item = ExamItem.objects.filter(module=course).first()
    with pytest.raises(IntegrityError), transaction.atomic():
        ExamItem.objects.filter(pk=item.pk).update(status="approved")


def test_an_edit_of_an_approved_items_text_returns_it_to_draft(course, draft_bank, reviewer):
    item = ExamItem.objects.filter(module=course).first()
    exam_items_review(item_ids=[item.pk], status="approved", reviewer_id=reviewer.pk)
    item.refresh_from_db()
    # Switching it off is no new text: still approved.
    assert not exam_item_edit_review(
        item=item, previous_status="approved", changed_fields=["is_active"], editor_id=reviewer.pk
    )
    assert item.status == "approved"
    item.prompt += " (korrigiert)"
    assert exam_item_edit_review(
        item=item, previous_status="approved", changed_fields=["prompt"], editor_id=reviewer.pk
    )
    assert (item.status, item.reviewed_by_id, item.reviewed_at) == ("draft", None, None)
    # The admin who sets the status in the same form decides, and is recorded.
    item.status = "approved"
    exam_item_edit_review(
        item=item,
        previous_status="draft",
        changed_fields=["prompt", "status"],
        editor_id=reviewer.pk,
    )
    assert (item.status, item.reviewed_by_id) == ("approved", reviewer.pk)
    assert item.reviewed_at is not None


def test_regeneration_returns_changed_approved_items_to_draft(course, bank):
    """The generator's text changes (a re-import changed FP16's definition, which FP16's items
    and other steps' distractors show): exactly the items whose text changed become drafts,
    the others stay approved."""
    from courses.models import Step
    from quizzes.services.items import exam_items_generate

    def text(item):
        return json.dumps([getattr(item, name) for name in CONTENT_FIELDS])

    before = {item.pk: text(item) for item in ExamItem.objects.all()}
    step = Step.objects.get(module=course, term="FP16")
    Step.objects.filter(pk=step.pk).update(
        definition="FP16 ist ein 16-Bit-Gleitkommaformat mit neuer Beschreibung."
    )
    report = exam_items_generate(module_id=course.pk)
    assert report.returned_to_draft == report.updated > 0
    changed = {item.pk for item in ExamItem.objects.all() if text(item) != before[item.pk]}
    drafts = ExamItem.objects.filter(status="draft")
    assert set(drafts.values_list("pk", flat=True)) == changed
    assert ExamItem.objects.filter(step=step, status="draft").exists()
    assert not drafts.filter(reviewed_at__isnull=False).exists()
    assert ExamItem.objects.filter(status="approved").count() == len(before) - len(changed)


# --- the admin ----------------------------------------------------------------------------------


def test_admin_bulk_approves_and_rejects_and_says_what_the_exam_is_now(
    admin_web, course, draft_bank, reviewer
):
    ids = _ids(course)
    response = admin_web.post(
        "/admin/quizzes/examitem/",
        {"action": "approve", "_selected_action": ids[:5]},
        follow=True,
    )
    text = response.content.decode()
    assert "5 item(s) approved." in text
    assert "only 5 approved items, an attempt draws 10" in text  # still practice
    assert ExamItem.objects.filter(status="approved", reviewed_by=reviewer).count() == 5

    response = admin_web.post(
        "/admin/quizzes/examitem/", {"action": "approve", "_selected_action": ids}, follow=True
    )
    assert "new attempts are certifying" in response.content.decode()
    response = admin_web.post(
        "/admin/quizzes/examitem/", {"action": "reject", "_selected_action": ids[:2]}
    )
    assert ExamItem.objects.filter(status="rejected").count() == 2
    admin_web.post(
        "/admin/quizzes/examitem/", {"action": "back_to_draft", "_selected_action": ids[:1]}
    )
    assert ExamItem.objects.get(pk=ids[0]).status == "draft"
    listing = admin_web.get("/admin/quizzes/examitem/?status__exact=rejected")
    assert listing.context["cl"].result_count == 1


def _change_form(item: ExamItem, **changes) -> dict:
    form = {
        "module": item.module_id,
        "step": item.step_id or "",
        "kind": item.kind,
        "prompt": item.prompt,
        "text_format": item.text_format,
        "explanation": item.explanation,
        "status": item.status,
        "is_active": "on" if item.is_active else "",
    }
    # The answers as the editor's rows (quizzes/admin_item_form.py).
    if item.kind == "true_false":
        form["true_false_correct"] = item.correct_keys[0]
    for index, option in enumerate(item.options if item.kind != "true_false" else []):
        form[f"choice_rows-{index}-text"] = option["text"]
        if option["key"] in item.correct_keys:
            form[f"choice_rows-{index}-correct"] = "on"
    form.update(changes)
    return form


def test_admin_edit_of_an_approved_item_returns_it_to_draft(admin_web, course, bank):
    item = ExamItem.objects.filter(module=course, kind="single_choice").first()
    url = f"/admin/quizzes/examitem/{item.pk}/change/"
    response = admin_web.post(url, _change_form(item, prompt=item.prompt + " Neu."), follow=True)
    assert "it is a draft again" in response.content.decode()
    item.refresh_from_db()
    assert (item.status, item.reviewed_by_id, item.reviewed_at) == ("draft", None, None)
    # Approving it in the form records the admin.
    admin_web.post(url, _change_form(item, status="approved"))
    item.refresh_from_db()
    assert item.status == "approved" and item.reviewed_by.username == "kim"


def test_admin_adds_an_approved_hand_written_item(admin_web, course, reviewer):
    form = {
        "module": course.pk,
        "step": "",
        "kind": "true_false",
        "prompt": "FP16 belegt zwei Byte je Wert.",
        "text_format": "plain",
        "true_false_correct": "true",
        "explanation": "",
        "status": "approved",
        "is_active": "on",
    }
    assert admin_web.post("/admin/quizzes/examitem/add/", form).status_code == 302
    item = ExamItem.objects.get(origin="hand_written")
    assert (item.status, item.reviewed_by_id) == ("approved", reviewer.pk)


def test_copy_as_hand_written_keeps_the_review(admin_web, course, bank):
    original = ExamItem.objects.get(generator_key="fp16:term-for-description")
    admin_web.post(
        "/admin/quizzes/examitem/",
        {"action": "copy_as_hand_written", "_selected_action": [original.pk]},
    )
    copy = ExamItem.objects.get(origin="hand_written")
    assert (copy.status, copy.reviewed_at) == ("approved", original.reviewed_at)


# --- certifying and practice --------------------------------------------------------------------


def _drawn_statuses(attempt_id: int) -> set[str]:
    return set(
        ExamAttemptItem.objects.filter(attempt_id=attempt_id).values_list("item__status", flat=True)
    )


def test_a_draft_bank_runs_a_practice_exam_without_certificate(learner_api, exam, draft_bank):
    overview = learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert overview["mode"] == "practice"
    attempt = exam.start(learner_api)
    assert attempt["mode"] == "practice"
    assert _drawn_statuses(attempt["id"]) == {"draft"}
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=10))
    result = exam.submit(learner_api, attempt["id"])
    assert (result["mode"], result["passed"], result["certificate"]) == ("practice", True, None)
    # Graded, and its feedback shows at once (the default policy: correctness per item).
    assert result["review"]["shows"] == "correctness"
    assert all(item["is_correct"] for item in result["items"])
    assert not any("correct_keys" in item for item in result["items"])
    # A practice pass is no grade: no final grade, no certificate, the exam goes on.
    assert result["final_grade"]["score_percent"] is None
    assert not Certificate.objects.exists()
    overview = learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert overview["eligibility"]["can_start"] and overview["final_grade"]["passed"] is False
    assert overview["attempts"][0]["mode"] == "practice"


def test_practice_draws_drafts_and_approved_never_rejected(learner_api, exam, course, draft_bank):
    from quizzes.models import ExamPolicy

    ids = _ids(course)
    exam_items_review(item_ids=ids[:5], status="approved", reviewer_id=None)
    # Every item but 12 rejected: 5 approved + 7 drafts are all an attempt of 12 can draw.
    exam_items_review(item_ids=ids[12:], status="rejected", reviewer_id=None)
    ExamPolicy.objects.update(items_per_attempt=12)
    attempt = exam.start(learner_api)
    assert attempt["mode"] == "practice"
    drawn = set(ExamAttemptItem.objects.filter(attempt_id=attempt["id"]).values_list("item_id"))
    assert drawn == {(item_id,) for item_id in ids[:12]}


def test_a_certifying_exam_draws_approved_items_only(learner_api, exam, course, draft_bank):
    ids = _ids(course)
    exam_items_review(item_ids=ids[:10], status="approved", reviewer_id=None)
    attempt = exam.start(learner_api)
    assert attempt["mode"] == "certifying"
    assert set(
        ExamAttemptItem.objects.filter(attempt_id=attempt["id"]).values_list("item_id", flat=True)
    ) == set(ids[:10])
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=10))
    result = exam.submit(learner_api, attempt["id"])
    assert result["mode"] == "certifying" and result["certificate"] is not None


def test_practice_attempts_do_not_use_up_the_certifying_ones(learner_api, exam, course, policy):
    """One attempt allowed: practice first, then the bank is approved and the learner still
    has the one attempt that certifies."""
    from tests.factories import exam_bank_approve

    policy.max_attempts = 1
    policy.save()
    practice = exam.take(learner_api, correct=3)  # lazily generated bank: drafts
    assert practice["mode"] == "practice"
    refused = learner_api.post("/api/v1/modules/self-hosting-27/exam/attempts/")
    assert refused.json()["error"]["code"] == "no_attempts_left"

    exam_bank_approve(course)
    overview = learner_api.get("/api/v1/modules/self-hosting-27/exam/").json()
    assert overview["mode"] == "certifying"
    assert (overview["eligibility"]["attempts_used"], overview["eligibility"]["attempts_left"]) == (
        0,
        1,
    )
    passed = exam.take(learner_api, correct=10)
    assert passed["mode"] == "certifying" and passed["certificate"] is not None
    assert passed["final_grade"]["score_percent"] == "100.00"


@pytest.mark.parametrize(
    ("content", "shows", "keys"),
    [
        ("score_only", "correctness", False),
        ("correctness", "correctness", False),
        ("correct_answers", "correct_answers", True),
    ],
)
def test_practice_feedback_comes_at_once_at_least_as_correctness(
    learner_api, exam, draft_bank, policy, content, shows, keys
):
    policy.review_content = content
    policy.review_timing = "after_last_attempt"
    policy.save()
    result = exam.take(learner_api, correct=4)
    assert result["review"]["shows"] == shows
    assert all(("correct_keys" in item) is keys for item in result["items"])
    detail = learner_api.get(f"/api/v1/exam-attempts/{result['attempt']}/").json()
    assert detail["result"]["review"]["shows"] == shows


def test_the_web_pages_say_practice(learner, learner_api, exam, draft_bank):
    web = Client()
    web.force_login(learner)
    page = web.get("/modules/self-hosting-27/exam/").content.decode()
    assert "Übungsprüfung" in page and "ohne Zertifikat" in page
    attempt = exam.start(learner_api)
    html = web.get(f"/exam/attempts/{attempt['id']}/").content.decode()
    assert 'id="exam-mode"' in html and "Übungsprüfung" in html
    exam.save(learner_api, attempt["id"], exam.answers(attempt, correct=10))
    exam.submit(learner_api, attempt["id"])
    result = web.get(f"/exam/attempts/{attempt['id']}/result/").content.decode()
    assert "Übungsprüfung" in result and "Bestanden" in result
    assert "/my/certificates/" not in result
    dashboard = web.get("/").content.decode()
    assert "Übungsprüfung ohne Zertifikat" in dashboard and "bestanden (" not in dashboard
    english = web.get("/modules/self-hosting-27/exam/", HTTP_ACCEPT_LANGUAGE="en")
    assert "Practice exam" in english.content.decode()


# --- existing data and the demo -----------------------------------------------------------------


def test_demo_setup_approves_the_authored_bank_not_the_generated_one(course, draft_bank):
    """Issue 28: the demo certifies with the authored bank (tests/quizzes/test_authored_bank.py);
    the generated items stay drafts for practice."""
    import io

    from django.core.management import call_command

    out = io.StringIO()
    call_command("demo_setup", stdout=out)
    assert "self-hosting-27: " in out.getvalue()
    statuses = set(ExamItem.objects.values_list("origin", "status", "reviewed_by__username"))
    assert statuses == {("hand_written", "approved", "admin"), ("generated", "draft", None)}
    assert ExamPolicy.objects.exists()
