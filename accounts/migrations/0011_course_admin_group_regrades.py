"""The course-admin role reads the regrade audit lines (accounts/roles.py; issue 27)."""

from django.db import migrations

from accounts.roles import course_admin_group_sync


def group_sync(apps, schema_editor):
    course_admin_group_sync(apps)


class Migration(migrations.Migration):
    dependencies = [
        ("accounts", "0010_course_admin_group_exams_and_imports"),
        ("quizzes", "0011_exam_regrade_audit"),
    ]

    operations = [migrations.RunPython(group_sync, migrations.RunPython.noop)]
