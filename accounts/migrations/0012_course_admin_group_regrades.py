"""The course-admin role reads the regrade audit lines (accounts/roles.py; issue 27)."""

from django.db import migrations

from accounts.roles import course_admin_group_sync


def group_sync(apps, schema_editor):
    course_admin_group_sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0011_user_credentials_epoch"),
        ("quizzes", "0014_exam_regrade_audit"),
    ]

    operations = [migrations.RunPython(group_sync, migrations.RunPython.noop)]
