"""The split of progress out of courses moved no row: migrating across it keeps the learners'
enrollments and progress, and their content types (permissions), both ways."""

from __future__ import annotations

from django.utils import timezone

from tests.helpers.migrations import migrate_to

BEFORE = [("courses", "0005_dead_content_indexes"), ("accounts", "0004_user_next_reminder_at_fill")]
AFTER = [("progress", "0002_content_types_from_courses")]


def test_enrollments_and_progress_survive_the_split_both_ways(migrated_back_afterwards):
    old = migrate_to(BEFORE)
    now = timezone.now()
    user = old.get_model("accounts", "User").objects.create(username="mara", email="m@x.org")
    module = old.get_model("courses", "Module").objects.create(
        slug="m", series="S", number=1, title="M", header="M", source_path="m.txt"
    )
    step = old.get_model("courses", "Step").objects.create(
        module=module,
        slug="a",
        number=1,
        total=1,
        term="A",
        lead="A.",
        definition="A.",
        level="S1",
        source_hash="h",
        content_hash="h",
    )
    old.get_model("courses", "Enrollment").objects.create(
        learner=user, module=module, enrolled_at=now
    )
    old.get_model("courses", "StepProgress").objects.create(
        learner=user, step=step, status="completed", completed_at=now, updated_at=now
    )
    content_type = old.get_model("contenttypes", "ContentType")
    content_type.objects.get_or_create(app_label="courses", model="enrollment")

    new = migrate_to(AFTER)
    assert new.get_model("progress", "Enrollment").objects.filter(learner_id=user.pk).count() == 1
    progress = new.get_model("progress", "StepProgress").objects.get(learner_id=user.pk)
    assert (progress.step_id, progress.status) == (step.pk, "completed")
    labels = set(
        new.get_model("contenttypes", "ContentType")
        .objects.filter(model="enrollment")
        .values_list("app_label", flat=True)
    )
    assert labels == {"progress"}

    back = migrate_to(BEFORE)
    assert back.get_model("courses", "StepProgress").objects.get(learner_id=user.pk).status == (
        "completed"
    )
    labels = set(
        back.get_model("contenttypes", "ContentType")
        .objects.filter(model="enrollment")
        .values_list("app_label", flat=True)
    )
    assert labels == {"courses"}
