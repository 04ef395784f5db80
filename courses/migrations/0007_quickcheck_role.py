"""Each quick check's role (courses.quick_check_roles): a flashcard, the step's definition again,
a generic reflection prompt or an instruction, decided for the existing modules here and by
every import afterwards. The partial index of the quick checks whose cards leave the review
queue now covers the non-flashcards too."""

from django.db import migrations, models

from courses.quick_check_roles import StepChecks, quick_check_roles


def roles_classify(apps, schema_editor):
    """The rules over each module's active steps, as ``quick_check_roles_refresh`` applies them
    after an admin edit (written again here with the historical models)."""
    Step = apps.get_model("courses", "Step")
    StepQuickCheck = apps.get_model("courses", "StepQuickCheck")
    QuickCheck = apps.get_model("courses", "QuickCheck")
    for module_id in QuickCheck.objects.values_list("module_id", flat=True).distinct():
        definitions = dict(
            Step.objects.filter(module_id=module_id, status="active").values_list(
                "id", "definition"
            )
        )
        shown = {step_id: [] for step_id in definitions}
        links = (
            StepQuickCheck.objects.filter(step_id__in=list(definitions))
            .order_by("step_id", "position")
            .values_list(
                "step_id", "quick_check_id", "quick_check__question", "quick_check__answer"
            )
        )
        for step_id, quick_check_id, question, answer in links:
            shown[step_id].append((quick_check_id, question, answer))
        roles = quick_check_roles(
            StepChecks(definition=definition, quick_checks=tuple(shown[step_id]))
            for step_id, definition in definitions.items()
        )
        for role in set(roles.values()):
            QuickCheck.objects.filter(
                pk__in=[pk for pk, value in roles.items() if value == role]
            ).update(role=role)


class Migration(migrations.Migration):
    dependencies = [("courses", "0006_progress_models_moved")]

    operations = [
        migrations.RemoveIndex(model_name="quickcheck", name="quickcheck_inactive"),
        migrations.AddField(
            model_name="quickcheck",
            name="role",
            field=models.CharField(
                choices=[
                    ("flashcard", "flashcard (a review card)"),
                    ("definition", "the step's definition (its definition card)"),
                    ("generic", "reflection prompt (recurs in most steps)"),
                    ("instruction", "reflection prompt (an instruction)"),
                ],
                db_default="flashcard",
                default="flashcard",
                max_length=12,
            ),
        ),
        migrations.AddIndex(
            model_name="quickcheck",
            index=models.Index(
                condition=models.Q(
                    ("is_active", False),
                    models.Q(("role", "flashcard"), _negated=True),
                    _connector="OR",
                ),
                fields=["id"],
                name="quickcheck_no_card",
            ),
        ),
        migrations.AddConstraint(
            model_name="quickcheck",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    ("role__in", ("flashcard", "definition", "generic", "instruction"))
                ),
                name="quickcheck_role_known",
            ),
        ),
        migrations.RunPython(roles_classify, migrations.RunPython.noop),
    ]
