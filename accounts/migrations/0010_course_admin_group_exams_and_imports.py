"""The course-admin role gains the module exam plans, a read of the learners' exam dates and FSRS
fits, and the import workspace (accounts/roles.py; written beside issue 17 and issue 15)."""

from django.db import migrations

from accounts.roles import course_admin_group_sync


def group_sync(apps, schema_editor):
    course_admin_group_sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0009_verbose_names"),
        # The models whose permissions the role now holds too.
        ("publishing", "0001_initial"),
        ("reviews", "0011_fsrs_calendar_verbose_names"),
    ]

    operations = [migrations.RunPython(group_sync, migrations.RunPython.noop)]
