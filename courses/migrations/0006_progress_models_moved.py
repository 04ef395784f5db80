"""The learner-progress models moved to the progress app with their tables (db_table): this
removes them from the courses app's state only; no table or row changes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("courses", "0005_dead_content_indexes"),
    ]

    operations = [
        migrations.SeparateDatabaseAndState(
            database_operations=[],
            state_operations=[
                migrations.RemoveField(
                    model_name="progressevent",
                    name="learner",
                ),
                migrations.RemoveField(
                    model_name="progressevent",
                    name="step",
                ),
                migrations.RemoveField(
                    model_name="stepnote",
                    name="learner",
                ),
                migrations.RemoveField(
                    model_name="stepnote",
                    name="step",
                ),
                migrations.RemoveField(
                    model_name="stepprogress",
                    name="learner",
                ),
                migrations.RemoveField(
                    model_name="stepprogress",
                    name="step",
                ),
                migrations.DeleteModel(
                    name="Enrollment",
                ),
                migrations.DeleteModel(
                    name="ProgressEvent",
                ),
                migrations.DeleteModel(
                    name="StepNote",
                ),
                migrations.DeleteModel(
                    name="StepProgress",
                ),
            ],
        ),
    ]
