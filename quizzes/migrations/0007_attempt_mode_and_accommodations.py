"""An attempt is certifying or practice (decided at its start from the approved bank), and a
learner may have an accommodation per module: extra minutes and extra attempts (issue 14).

Every existing attempt was a real exam attempt and stays certifying, so the final grades and
the certificates issued from them stay as they are."""

import django.core.validators
import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0006_progress_models_moved"),
        ("quizzes", "0006_exam_policy_required_step_share"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="examattempt",
            name="certifying",
            field=models.BooleanField(default=True),
            preserve_default=False,
        ),
        migrations.CreateModel(
            name="ExamAccommodation",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                (
                    "extra_time_minutes",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Added to the policy's time limit of every attempt this learner starts.",
                        validators=[django.core.validators.MaxValueValidator(600)],
                    ),
                ),
                (
                    "extra_attempts",
                    models.PositiveSmallIntegerField(
                        default=0,
                        help_text="Added to the policy's maximum number of attempts.",
                        validators=[django.core.validators.MaxValueValidator(100)],
                    ),
                ),
                ("updated_at", models.DateTimeField(auto_now=True)),
                (
                    "learner",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="exam_accommodations",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
                (
                    "module",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="+",
                        to="courses.module",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(
                        fields=("learner", "module"), name="examaccommodation_unique"
                    ),
                    models.CheckConstraint(
                        condition=models.Q(
                            ("extra_time_minutes__lte", 600), ("extra_attempts__lte", 100)
                        ),
                        name="examaccommodation_range",
                    ),
                ],
            },
        ),
    ]
