"""The item bank is reviewed: every item gets a status (draft, approved, rejected) with who
decided and when. Every existing item becomes a draft: nobody has vouched for it yet, so a
course admin approves the bank before the exam certifies again (issue 14)."""

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("quizzes", "0004_attempt_item_room_for_updates"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name="examitem",
            name="status",
            field=models.CharField(
                choices=[
                    ("draft", "draft (not reviewed)"),
                    ("approved", "approved"),
                    ("rejected", "rejected (never drawn)"),
                ],
                default="draft",
                max_length=10,
            ),
        ),
        migrations.AddField(
            model_name="examitem",
            name="reviewed_by",
            field=models.ForeignKey(
                blank=True,
                editable=False,
                null=True,
                on_delete=django.db.models.deletion.SET_NULL,
                related_name="+",
                to=settings.AUTH_USER_MODEL,
            ),
        ),
        migrations.AddField(
            model_name="examitem",
            name="reviewed_at",
            field=models.DateTimeField(blank=True, editable=False, null=True),
        ),
        migrations.AddConstraint(
            model_name="examitem",
            constraint=models.CheckConstraint(
                condition=models.Q(("status__in", ["draft", "approved", "rejected"])),
                name="examitem_status_known",
            ),
        ),
        migrations.AddConstraint(
            model_name="examitem",
            constraint=models.CheckConstraint(
                condition=models.Q(
                    models.Q(("status", "draft"), ("reviewed_at__isnull", True)),
                    models.Q(
                        models.Q(("status", "draft"), _negated=True),
                        ("reviewed_at__isnull", False),
                    ),
                    _connector="OR",
                ),
                name="examitem_reviewed_when_decided",
            ),
        ),
    ]
