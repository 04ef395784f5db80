"""The migration that brings the evidence rule (progress 0004) undoes no completion and counts
the quick checks rated before it as answered on their steps."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.helpers.migrations import migrate_to

AFTER = [("progress", "0004_step_completion_evidence")]


def every_app_latest_but_progress_before_the_rule() -> list[tuple[str, str]]:
    leaves = MigrationExecutor(connection).loader.graph.leaf_nodes()
    return [leaf for leaf in leaves if leaf[0] != "progress"] + [("progress", "0003_verbose_names")]


def test_completions_stay_and_ratings_become_evidence(migrated_back_afterwards):
    old = migrate_to(every_app_latest_but_progress_before_the_rule())
    now = timezone.now()
    user = old.get_model("accounts", "User").objects.create(username="mara", email="m@x.org")
    module = old.get_model("courses", "Module").objects.create(
        slug="m", series="S", number=1, title="M", header="M", source_path="m.txt"
    )
    steps = [
        old.get_model("courses", "Step").objects.create(
            module=module,
            slug=slug,
            number=number,
            total=2,
            term=slug,
            lead="A.",
            definition="A.",
            level="S1",
            source_hash=slug,
            content_hash=slug,
        )
        for number, slug in ((1, "a"), (2, "b"))
    ]
    quick_check = old.get_model("courses", "QuickCheck").objects.create(
        module=module, question="Q?", answer="A.", text_hash="q"
    )
    progress = old.get_model("progress", "StepProgress")
    # Step 1 completed in one click, no section viewed; step 2 started, its quick check rated.
    progress.objects.create(
        learner=user, step=steps[0], status="completed", completed_at=now, updated_at=now
    )
    progress.objects.create(learner=user, step=steps[1], status="in_progress", updated_at=now)
    old.get_model("quizzes", "QuickCheckRating").objects.create(
        learner=user,
        quick_check=quick_check,
        step=steps[1],
        rating="knew",
        first_rated_at=now,
        updated_at=now,
    )

    new = migrate_to(AFTER)
    rows = {
        row.step_id: row
        for row in new.get_model("progress", "StepProgress").objects.filter(learner_id=user.pk)
    }
    assert (rows[steps[0].pk].status, rows[steps[0].pk].quick_checks_answered) == ("completed", [])
    assert rows[steps[0].pk].completed_at == now
    assert rows[steps[1].pk].status == "in_progress"
    assert rows[steps[1].pk].quick_checks_answered == [quick_check.pk]
