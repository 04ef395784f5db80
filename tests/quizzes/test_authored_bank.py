"""The seed module's authored exam bank (fixtures/exam-items/self-hosting-27.gift): it reads
cleanly with every question and every kind the importer knows, each question has feedback, and
``manage.py demo_setup`` imports it approved, so the certifying exam draws only these questions
while the generated items stay drafts for practice."""

from __future__ import annotations

import re
from collections import Counter
from io import StringIO

import pytest
from django.conf import settings
from django.core.management import call_command

from quizzes.gift import gift_parse
from quizzes.models import ExamAttemptItem, ExamItem

AUTHORED_BANK = settings.LERNPFAD_EXAM_ITEMS_DIR / "self-hosting-27.gift"
ALL_KINDS = set(ExamItem.Kind.values)


def test_the_authored_bank_reads_cleanly_with_every_kind():
    parsed = gift_parse(AUTHORED_BANK.read_text(encoding="utf-8"), source=AUTHORED_BANK.name)
    kinds = Counter(item.kind for item in parsed.items)
    assert sum(kinds.values()) == 35
    assert set(kinds) == ALL_KINDS, kinds
    assert kinds == {
        "single_choice": 13,
        "true_false": 7,
        "numerical": 5,
        "multiple_choice": 4,
        "short_answer": 3,
        "matching": 3,
    }
    # One question per block of the file: none skipped.
    blocks = re.findall(r"^::", AUTHORED_BANK.read_text(encoding="utf-8"), flags=re.MULTILINE)
    assert len(blocks) == len(parsed.items)
    # Every question explains itself; every kind that has answers of its own gives feedback on
    # them (Moodle's matching has none), and the importer keeps it: no warning at all.
    assert all(item.explanation for item in parsed.items)
    assert list(parsed.warnings) == []
    assert {item.line for item in parsed.items if item.answer_feedback} == {
        item.line for item in parsed.items if item.kind != "matching"
    }
    assert len({item.prompt for item in parsed.items}) == len(parsed.items)
    # Each names the step it is about, so a missed question leads to that step.
    assert all(item.step for item in parsed.items)


@pytest.mark.django_db
def test_demo_setup_approves_the_authored_bank_and_leaves_generated_items_drafts(course):
    from accounts.models import User
    from quizzes.services.item_review import exam_bank_approve
    from quizzes.services.items import exam_items_generate, exam_policy_get

    exam_items_generate(module_id=course.pk)  # make run generates before demo_setup
    out = StringIO()
    call_command("demo_setup", stdout=out)
    admin = User.objects.get(username="admin")
    authored = ExamItem.objects.filter(module=course, origin="hand_written")
    generated = ExamItem.objects.filter(module=course, origin="generated")
    assert authored.count() == 35
    assert set(authored.values_list("status", "reviewed_by")) == {("approved", admin.pk)}
    # Every authored question is linked to an active step of the module (its [tag:step:…]).
    assert not authored.filter(step=None).exists()
    assert set(authored.values_list("step__module", "step__status")) == {(course.pk, "active")}
    assert authored.values("step").distinct().count() >= 20
    assert generated.exists() and set(generated.values_list("status", flat=True)) == {"draft"}
    assert "self-hosting-27: 35 authored exam item(s) imported and approved" in out.getvalue()
    # The policy draws fewer items than the approved bank holds: the exam certifies.
    approved = ExamItem.objects.filter(module=course).approved()
    assert set(approved) == set(authored)
    assert exam_policy_get(module_id=course.pk).items_per_attempt <= approved.count()

    # A demo set up before approved the generated items too: run again (make run does), the
    # authored questions are not added twice and the generated ones return to draft.
    exam_bank_approve(module_id=course.pk, reviewer_id=admin.pk)
    out = StringIO()
    call_command("demo_setup", stdout=out)
    assert authored.count() == 35
    assert set(generated.values_list("status", flat=True)) == {"draft"}
    assert f"{generated.count()} returned to draft" in out.getvalue()
    assert "0 authored exam item(s) imported" in out.getvalue()


@pytest.mark.django_db
def test_the_certifying_exam_draws_only_authored_items(course, make_learner, enroll, exam):
    from quizzes.services.items import exam_items_generate
    from tests.factories import api_client_for

    exam_items_generate(module_id=course.pk)
    call_command("demo_setup", stdout=StringIO())
    learner = make_learner("mia")
    enroll(learner)
    client = api_client_for(learner)
    for _attempt in range(2):
        attempt = exam.start(client)
        assert attempt["mode"] == "certifying"
        ids = [item["id"] for item in attempt["items"]]
        assert len(ids) == 10
        drawn = ExamAttemptItem.objects.filter(pk__in=ids)
        assert set(drawn.values_list("item__origin", "item__status")) == {
            ("hand_written", "approved")
        }
        exam.submit(client, attempt["id"])


@pytest.mark.django_db
def test_demo_setup_refuses_a_broken_bank(course, tmp_path, settings):
    from django.core.management.base import CommandError

    (tmp_path / "self-hosting-27.gift").write_text("::Kaputt::Frage {=a ~b\n", encoding="utf-8")
    (tmp_path / "kein-modul.gift").write_text("::Gut::Frage {=a ~b}\n", encoding="utf-8")
    settings.LERNPFAD_EXAM_ITEMS_DIR = tmp_path
    with pytest.raises(CommandError, match=r"self-hosting-27\.gift:1:"):
        call_command("demo_setup", stdout=StringIO())
    assert not ExamItem.objects.filter(module=course).exists()
