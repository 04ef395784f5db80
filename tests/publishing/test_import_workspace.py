"""The import workspace's service: preview (content, learners, exam items), publish exactly the
preview, refuse a stale one, undo by publishing an earlier import again, the command."""

from __future__ import annotations

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext

from courses.models import Module, Step
from progress.models import StepNote, StepProgress
from publishing.models import CourseImport
from publishing.preview import import_preview
from publishing.services import (
    ImportStale,
    course_import_again,
    course_import_draft_create,
    course_import_publish,
)
from quizzes.models import ExamItem
from reviews.models import ReviewCard
from tests.conftest import SEED_DIR
from tests.factories import learner_create
from tests.publishing.edits import ADDED_TERM, SEED_MODULE, edited_seed, seed_text

pytestmark = pytest.mark.django_db

WRITES = ("INSERT", "UPDATE", "DELETE")
T = "2026-01-01T00:00Z"


def _seed_files():
    return [(p.name, p.read_bytes()) for p in sorted(SEED_DIR.glob("*.txt"))]


def _edited_files():
    return [
        (name, edited_seed(data.decode()).encode() if name == SEED_MODULE else data)
        for name, data in _seed_files()
    ]


def _publish(files, user_id=None):
    draft, preview = course_import_draft_create(documents=files, user_id=user_id)
    return course_import_publish(
        course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=user_id
    ), preview


@pytest.fixture
def published():
    _publish(_seed_files())
    return Module.objects.get(slug="self-hosting-27")


def test_first_import_previews_every_step_as_added_and_publishes(db):
    done, preview = _publish(_seed_files())
    module = preview.content.modules[0]
    assert module.is_new and module.counts["added"] == 32
    assert {c.kind for c in preview.content.cards} == {"added"}
    assert done.status == CourseImport.Status.PUBLISHED and done.rows_written > 0
    assert Step.objects.active().count() == 32
    # The exam items were generated, as drafts for the item review.
    assert ExamItem.objects.filter(status=ExamItem.Status.DRAFT).count() > 0
    assert done.exam_items["self-hosting-27"]["created"] == preview.exam["self-hosting-27"].created
    assert done.documents.count() == 4


def test_preview_of_the_edited_seed_names_exactly_the_three_changes(published):
    removed = published.steps.get(number=3)
    changed = published.steps.get(number=5)
    learner, other = learner_create(username="a"), learner_create(username="b")
    for user in (learner, other):
        StepProgress.objects.create(
            learner=user, step=removed, status="completed", completed_at=T, updated_at=T
        )
    StepProgress.objects.create(learner=learner, step=changed, status="in_progress", updated_at=T)
    StepNote.objects.create(
        learner=learner,
        step=removed,
        prompt="lernauftrag",
        text="x",
        created_at="2026-01-01T00:00Z",
        updated_at="2026-01-01T00:00Z",
    )
    ReviewCard.objects.create(
        learner=learner, step=changed, kind=ReviewCard.Kind.DEFINITION, due=T, created_at=T
    )

    _plan, preview = import_preview(documents=_edited_files())
    module = preview.content.modules[0]
    kinds = {s.kind: [x.term for x in module.steps if x.kind == s.kind] for s in module.steps}
    assert kinds["added"] == [ADDED_TERM]
    assert kinds["changed"] == ["Compute capability"]
    assert kinds["retired"] == [removed.term]
    assert module.counts == {
        "added": 1,
        "changed": 1,
        "renumbered": 28,  # steps 4 … 32 move up by one, but step 5 changed
        "unchanged": 2,
        "retired": 1,
    }
    diff = next(s for s in module.steps if s.kind == "changed").diff
    assert any(line.startswith("-") and "unterstützten" in line for line in diff)
    assert any(line.startswith("+") and "Hardwarefunktionen einer" in line for line in diff)
    assert preview.learners_of(removed.pk).progress == 2
    assert preview.learners_of(removed.pk).notes == 1
    assert preview.learners_of(changed.pk).progress == 1
    assert preview.learners_of(changed.pk).cards == 1
    exam = preview.exam["self-hosting-27"]
    assert exam.created > 0 and exam.retired > 0
    assert [c.kind for c in preview.content.cards] == []


def test_publish_applies_the_preview_and_undo_brings_the_step_back(published):
    removed = published.steps.get(number=3)
    unchanged = published.steps.get(number=1)
    learner = learner_create(username="l")
    for step in (removed, unchanged):
        StepProgress.objects.create(
            learner=learner, step=step, status="completed", completed_at=T, updated_at=T
        )
    first = CourseImport.objects.get()
    done, _preview = _publish(_edited_files())
    removed.refresh_from_db()
    assert removed.status == Step.Status.RETIRED
    assert StepProgress.objects.filter(step=unchanged, status="completed").count() == 1
    assert Step.objects.active().filter(module=published).count() == 32
    assert done.counts["self-hosting-27"]["retired"] == 1

    again, again_preview = course_import_again(course_import_id=first.pk, user_id=None)
    module = again_preview.content.modules[0]
    back = next(s for s in module.steps if s.step_id == removed.pk)
    assert back.kind == "added" and back.restored
    course_import_publish(
        course_import_id=again.pk, fingerprint=again_preview.fingerprint, user_id=None
    )
    removed.refresh_from_db()
    assert removed.status == Step.Status.ACTIVE and removed.number == 3
    assert StepProgress.objects.filter(step=removed, status="completed").count() == 1


def test_publish_refuses_when_the_database_changed_since_the_preview(published):
    draft, preview = course_import_draft_create(documents=_edited_files(), user_id=None)
    step = published.steps.get(number=10)
    Step.objects.filter(pk=step.pk).update(content_hash="edited-by-an-admin")
    with CaptureQueriesContext(connection) as ctx, pytest.raises(ImportStale) as stale:
        course_import_publish(
            course_import_id=draft.pk, fingerprint=preview.fingerprint, user_id=None
        )
    assert stale.value.preview.fingerprint != preview.fingerprint
    writes = [q["sql"] for q in ctx.captured_queries if q["sql"].lstrip().startswith(WRITES)]
    assert writes == []
    draft.refresh_from_db()
    assert draft.status == CourseImport.Status.DRAFT


def test_admin_edits_the_new_document_would_overwrite_are_listed(published):
    step = published.steps.get(number=5)
    from courses.services.importing import step_refresh_content_hash

    Step.objects.filter(pk=step.pk).update(lead=step.lead + " Vom Admin ergänzt.")
    step.refresh_from_db()
    step_refresh_content_hash(step=step)
    _plan, preview = import_preview(documents=_edited_files())
    module = preview.content.modules[0]
    assert [s.term for s in module.admin_edits_overwritten] == ["Compute capability"]


def test_dry_run_prints_the_plan_and_writes_nothing(published, capsys, tmp_path):
    path = tmp_path / SEED_MODULE
    path.write_text(edited_seed(seed_text(SEED_DIR)), encoding="utf-8")
    before = CourseImport.objects.count()
    with CaptureQueriesContext(connection) as ctx:
        call_command("import_course", "--dry-run", str(path))
    out = capsys.readouterr().out
    _plan, preview = import_preview(documents=[(str(path), path.read_bytes())])
    from publishing.preview import plan_lines

    assert out.strip() == "\n".join(plan_lines(preview)).strip()
    assert f"added step 32: {ADDED_TERM}" in out
    assert "retired step 3:" in out
    assert [q for q in ctx.captured_queries if q["sql"].lstrip().startswith(WRITES)] == []
    assert CourseImport.objects.count() == before


def test_the_command_records_its_import(db):
    call_command("import_course")
    done = CourseImport.objects.get()
    assert done.origin == CourseImport.Origin.COMMAND and done.status == "published"
    call_command("import_course")
    again = CourseImport.objects.order_by("-pk").first()
    assert again.rows_written == 0
