"""The learner-progress models, moved here from the courses app with their tables
(db_table "courses_…"): state only, the tables and rows are the ones courses created."""

import django.db.models.deletion
import django.db.models.functions.text
import django.db.models.lookups
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    initial = True

    dependencies = [
        ("courses", "0006_progress_models_moved"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.CreateModel(
                    name="Enrollment",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "source",
                            models.CharField(
                                choices=[
                                    ("self", "self-enrolled"),
                                    ("admin", "enrolled by an admin"),
                                ],
                                default="self",
                                max_length=10,
                            ),
                        ),
                        ("enrolled_at", models.DateTimeField()),
                        (
                            "learner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="enrollments",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "module",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="enrollments",
                                to="courses.module",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "courses_enrollment",
                        "indexes": [
                            models.Index(
                                fields=["module", "enrolled_at"],
                                name="courses_enr_module__a7675c_idx",
                            )
                        ],
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("learner", "module"), name="enrollment_unique"
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="ProgressEvent",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        ("client_event_id", models.CharField(max_length=64)),
                        (
                            "kind",
                            models.CharField(
                                choices=[
                                    ("opened", "opened"),
                                    ("section_viewed", "section viewed"),
                                    ("completed", "completed"),
                                    ("reopened", "reopened"),
                                ],
                                max_length=20,
                            ),
                        ),
                        ("section", models.CharField(blank=True, max_length=30)),
                        (
                            "occurred_at",
                            models.DateTimeField(
                                help_text="Client time (clamped to the time received)."
                            ),
                        ),
                        ("received_at", models.DateTimeField()),
                        (
                            "result",
                            models.CharField(
                                choices=[
                                    ("applied", "applied"),
                                    ("unchanged", "already in effect"),
                                    ("stale", "older than the step's last status change"),
                                ],
                                max_length=10,
                            ),
                        ),
                        (
                            "learner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="progress_events",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "step",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="progress_events",
                                to="courses.step",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "courses_progressevent",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("learner", "client_event_id"),
                                name="progressevent_client_id_unique",
                            )
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="StepNote",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "prompt",
                            models.CharField(
                                choices=[
                                    ("praxisaufgabe", "Optionale Praxisaufgabe"),
                                    ("lernauftrag", "Lernauftrag für diesen Schritt"),
                                ],
                                max_length=20,
                            ),
                        ),
                        ("text", models.TextField(max_length=10000)),
                        ("created_at", models.DateTimeField()),
                        ("updated_at", models.DateTimeField()),
                        (
                            "learner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="step_notes",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "step",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="notes",
                                to="courses.step",
                            ),
                        ),
                    ],
                    options={
                        "db_table": "courses_stepnote",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("learner", "step", "prompt"), name="stepnote_unique"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    ("prompt__in", ["praxisaufgabe", "lernauftrag"])
                                ),
                                name="stepnote_prompt",
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("text", ""), _negated=True),
                                    django.db.models.lookups.LessThanOrEqual(
                                        django.db.models.functions.text.Length("text"), 10000
                                    ),
                                ),
                                name="stepnote_text_length",
                            ),
                        ],
                    },
                ),
                migrations.CreateModel(
                    name="StepProgress",
                    fields=[
                        (
                            "id",
                            models.BigAutoField(
                                auto_created=True,
                                primary_key=True,
                                serialize=False,
                                verbose_name="ID",
                            ),
                        ),
                        (
                            "status",
                            models.CharField(
                                choices=[
                                    ("not_started", "not started"),
                                    ("in_progress", "in progress"),
                                    ("completed", "completed"),
                                ],
                                default="not_started",
                                max_length=12,
                            ),
                        ),
                        ("first_opened_at", models.DateTimeField(blank=True, null=True)),
                        ("completed_at", models.DateTimeField(blank=True, null=True)),
                        ("sections_viewed", models.JSONField(blank=True, default=list)),
                        ("last_section", models.CharField(blank=True, max_length=30)),
                        ("status_changed_at", models.DateTimeField(blank=True, null=True)),
                        ("last_event_at", models.DateTimeField(blank=True, null=True)),
                        ("updated_at", models.DateTimeField()),
                        (
                            "learner",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="step_progress",
                                to=settings.AUTH_USER_MODEL,
                            ),
                        ),
                        (
                            "step",
                            models.ForeignKey(
                                on_delete=django.db.models.deletion.CASCADE,
                                related_name="progress",
                                to="courses.step",
                            ),
                        ),
                    ],
                    options={
                        "verbose_name_plural": "step progress",
                        "db_table": "courses_stepprogress",
                        "constraints": [
                            models.UniqueConstraint(
                                fields=("learner", "step"), name="stepprogress_unique"
                            ),
                            models.CheckConstraint(
                                condition=models.Q(
                                    models.Q(("status", "completed"), _negated=True),
                                    ("completed_at__isnull", False),
                                    _connector="OR",
                                ),
                                name="stepprogress_completed_has_time",
                            ),
                        ],
                    },
                ),
            ],
        ),
    ]
