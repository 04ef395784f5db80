"""The completion gate: a policy requires a share of the module's steps completed before the
exam, every step by default. ``requires_all_steps_completed`` (default off) becomes
``required_step_share``; every existing policy gets 100 %: off was the default nobody chose,
and it let a learner who studied nothing earn a certificate (issue 14). An admin who wants less
lowers the share. Certificates already issued stay valid."""

import django.core.validators
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("quizzes", "0005_exam_item_review_status")]

    operations = [
        migrations.AddField(
            model_name="exampolicy",
            name="required_step_share",
            field=models.PositiveSmallIntegerField(
                default=100,
                help_text="0: no steps needed; 100: every step (the default).",
                validators=[
                    django.core.validators.MinValueValidator(0),
                    django.core.validators.MaxValueValidator(100),
                ],
                verbose_name="required share of steps completed (%)",
            ),
        ),
        migrations.RemoveField(model_name="exampolicy", name="requires_all_steps_completed"),
        migrations.AddConstraint(
            model_name="exampolicy",
            constraint=models.CheckConstraint(
                condition=models.Q(("required_step_share__lte", 100)),
                name="exampolicy_step_share_range",
            ),
        ),
    ]
