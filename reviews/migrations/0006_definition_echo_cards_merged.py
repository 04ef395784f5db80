"""Existing learners' cards of quick checks that make no card any more (courses 0007: a line
that recurs in most steps, an instruction, or the step's definition again) are retired: the
live-card rule leaves them out of the queue, the stats' due counts and the reminders from now
on (courses.api.retired_content lists their quick checks), and their rows and review logs stay
as they are.

Their history counts: every review log stays (the stats, the streak and the heatmap count a
learner's logs whatever their card), and a card that repeated its step's definition hands its
schedule on to the step's definition card, the card that stays, when it was reviewed later than
that card (or the definition card does not exist yet: it is created with that schedule). The
logs are not moved onto the definition card: each log holds its card's state before and after
the review, and two cards' logs interleaved on one card would make undo and a later FSRS
optimisation read states that card never had.

A data migration rather than a management command: it must run once per database, after the
quick checks got their roles, in the deploy's `migrate`, without anyone remembering it.
"""

from django.db import migrations

STATE_FIELDS = ("state", "learning_step", "stability", "difficulty", "due", "last_review")


def definition_echo_schedules_handed_on(apps, schema_editor):
    ReviewCard = apps.get_model("reviews", "ReviewCard")
    echoes = (
        ReviewCard.objects.filter(
            kind="quick_check", quick_check__role="definition", last_review__isnull=False
        )
        .order_by("id")
        .iterator()
    )
    for echo in echoes:
        definition = ReviewCard.objects.filter(
            learner_id=echo.learner_id, kind="definition", step_id=echo.step_id
        ).first()
        state = {name: getattr(echo, name) for name in STATE_FIELDS}
        if definition is None:
            ReviewCard.objects.create(
                learner_id=echo.learner_id,
                kind="definition",
                step_id=echo.step_id,
                quick_check_id=None,
                suspended=echo.suspended,
                created_at=echo.created_at,
                **state,
            )
        elif definition.last_review is None or definition.last_review < echo.last_review:
            ReviewCard.objects.filter(pk=definition.pk).update(**state)


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0007_quickcheck_role"),
        ("reviews", "0005_reviewlog_learner_applied_index"),
    ]

    operations = [
        migrations.RunPython(definition_echo_schedules_handed_on, migrations.RunPython.noop),
    ]
