"""Approvals that last: an import keeps an item's review while what a learner sees and how it is
graded stay the same, shows which items it would send back and why, warns when the approved bank
would no longer fill a certifying attempt; undo gives every review back exactly."""

from __future__ import annotations

import pytest

from courses.models import Module
from publishing.models import CourseImport
from publishing.preview import import_preview, plan_lines
from publishing.services import (
    course_import_again,
    course_import_draft_create,
    course_import_publish,
)
from quizzes.models import ExamItem, ExamPolicy
from quizzes.services.items import exam_items_generate
from tests.conftest import SEED_DIR
from tests.factories import exam_bank_approve, learner_create
from tests.publishing.edits import (
    MIDDLE_STEP_ALONE,
    MIDDLE_STEP_DRAWN_ON,
    SEED_MODULE,
    without_step,
)

pytestmark = pytest.mark.django_db

SLUG = "self-hosting-27"


def _seed_files():
    return [(p.name, p.read_bytes()) for p in sorted(SEED_DIR.glob("*.txt"))]


def _files_without(step: int):
    return [
        (name, without_step(data.decode(), step).encode() if name == SEED_MODULE else data)
        for name, data in _seed_files()
    ]


def _publish(files):
    draft, preview = course_import_draft_create(documents=files, user_id=None)
    done = course_import_publish(
        course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=None
    )
    return done, preview


def _undo(course_import: CourseImport):
    again, preview = course_import_again(course_import_id=course_import.pk, user_id=None)
    return course_import_publish(
        course_import_id=again.pk, fingerprint=preview.fingerprint, user_id=None
    )


def _reviews() -> dict[int, tuple]:
    return {
        pk: (status, reviewer, at)
        for pk, status, reviewer, at in ExamItem.objects.values_list(
            "pk", "status", "reviewed_by_id", "reviewed_at"
        )
    }


@pytest.fixture
def approved_bank():
    """The seed course published and its whole bank approved by a course admin."""
    first, _preview = _publish(_seed_files())
    reviewer = learner_create(username="pruefer")
    for module in Module.objects.all():
        exam_bank_approve(module, reviewer=reviewer)
    assert ExamItem.objects.approved().count() == 119
    return first


def test_deleting_a_middle_step_keeps_every_approval_and_undo_restores_them(approved_bank):
    before = _reviews()
    module = Module.objects.get(slug=SLUG)
    removed = module.steps.get(number=MIDDLE_STEP_ALONE)
    own = set(ExamItem.objects.filter(step=removed).values_list("pk", flat=True))

    _plan, preview = import_preview(documents=_files_without(MIDDLE_STEP_ALONE))
    exam = preview.exam[SLUG]
    assert exam.returned_items == () and exam.approvals_lost == 0
    assert exam.approved_after == 119 - len(own) and not exam.falls_below

    done, _preview = _publish(_files_without(MIDDLE_STEP_ALONE))
    report = done.exam_items[SLUG]
    # Steps 14 … 32 were renumbered; before, 61 of 119 approvals were lost here.
    assert report["returned_to_draft"] == 0 and report["retired"] == len(own)
    assert ExamItem.objects.approved().count() == 119 - len(own)
    assert _reviews() == before  # retiring an item keeps its review
    assert not ExamItem.objects.filter(explanation__contains="(Schritt").exists()

    _undo(approved_bank)
    assert ExamItem.objects.approved().count() == 119
    assert _reviews() == before


def test_step_numbers_in_stored_explanations_are_no_change_of_substance(approved_bank):
    """Items stored before step numbers left the explanations keep their approval."""
    module = Module.objects.get(slug=SLUG)
    for item in ExamItem.objects.all():
        item.explanation = f"{item.explanation} (Schritt 7)"
        item.save(update_fields=["explanation"])
    before = _reviews()
    report = exam_items_generate(module_id=module.pk)
    assert report.returned_to_draft == 0 and report.updated == 119
    assert _reviews() == before
    assert not ExamItem.objects.filter(explanation__contains="(Schritt").exists()


def test_the_preview_names_the_items_that_would_go_back_and_undo_restores_them(approved_bank):
    before = _reviews()
    _plan, preview = import_preview(documents=_files_without(MIDDLE_STEP_DRAWN_ON))
    exam = preview.exam[SLUG]
    # Four items of other steps offered "VAE offloading" as a wrong option: a learner would
    # see other options, so they are reviewed again.
    assert exam.approvals_lost == 4
    assert {item["generator_key"] for item in exam.returned_items} == {
        "model-offloading:term-for-description",
        "model-offloading:description-for-term",
        "cpu-offloading:term-for-description",
        "cpu-offloading:description-for-term",
    }
    assert {tuple(item["reasons"]) for item in exam.returned_items} == {("options",)}
    assert any(line.startswith("    back to review: item ") for line in plan_lines(preview))

    done, _preview = _publish(_files_without(MIDDLE_STEP_DRAWN_ON))
    returned = [item["id"] for item in done.exam_items[SLUG]["returned_items"]]
    assert sorted(returned) == sorted(item["id"] for item in exam.returned_items)
    assert set(ExamItem.objects.filter(pk__in=returned).values_list("status", flat=True)) == {
        ExamItem.Status.DRAFT
    }

    again, again_preview = course_import_again(course_import_id=approved_bank.pk, user_id=None)
    assert again_preview.exam[SLUG].reviews_restored == 4
    course_import_publish(
        course_import_id=again.pk, fingerprint=again_preview.fingerprint, user_id=None
    )
    assert _reviews() == before
    assert not ExamItem.objects.exclude(review_before_change={}).exists()


def test_a_new_decision_replaces_the_one_an_import_undid(approved_bank):
    """An item approved again after it changed keeps that newer decision through an undo."""
    _publish(_files_without(MIDDLE_STEP_DRAWN_ON))
    item = (
        ExamItem.objects.filter(status=ExamItem.Status.DRAFT)
        .exclude(review_before_change={})
        .first()
    )
    from quizzes.services.item_review import exam_items_review

    exam_items_review(item_ids=[item.pk], status=ExamItem.Status.REJECTED, reviewer_id=None)
    _undo(approved_bank)
    item.refresh_from_db()
    assert item.status == ExamItem.Status.DRAFT  # its rejected text changed back: review again
    assert item.review_before_change["status"] == ExamItem.Status.REJECTED


def test_the_preview_warns_in_red_when_the_bank_falls_below_the_draw(approved_bank, admin_client):
    module = Module.objects.get(slug=SLUG)
    ExamPolicy.objects.update_or_create(module=module, defaults={"items_per_attempt": 115})
    draft, preview = course_import_draft_create(
        documents=_files_without(MIDDLE_STEP_DRAWN_ON), user_id=None
    )
    exam = preview.exam[SLUG]
    assert exam.approved_now == 119 and exam.approved_after < 115 and exam.falls_below
    page = admin_client.get(
        f"/admin/publishing/courseimport/{draft.pk}/preview/", HTTP_ACCEPT_LANGUAGE="de"
    ).content.decode()
    assert 'class="errornote import-bank-below"' in page
    assert f"{exam.approved_after} Fragen" in page and "115" in page
    assert page.count('class="import-returned-item"') == 4
    assert "zur erneuten Prüfung" in page

    ExamPolicy.objects.filter(module=module).update(items_per_attempt=10)
    page = admin_client.get(f"/admin/publishing/courseimport/{draft.pk}/preview/").content.decode()
    assert "import-bank-below" not in page
